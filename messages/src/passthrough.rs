//! Frames of any API, decoded when this crate declares the API and version, kept as bytes
//! otherwise: what a proxy, a logger or a partial client needs to carry traffic it cannot (or
//! need not) parse.
//!
//! ```
//! use kafka_wire::Bytes;
//! use kafka_wire::frame::DecodeOptions;
//! use kafka_wire_messages::AnyRequest;
//!
//! // LeaderAndIsr v5 (key 4, removed from Kafka, not declared), correlation id 5, null
//! // client id, no tagged fields, then a body that is not looked at.
//! let frame = Bytes::from_static(b"\x00\x00\x00\x0d\x00\x04\x00\x05\x00\x00\x00\x05\xff\xff\x00\x01\x00");
//! let req = AnyRequest::decode(&frame, &DecodeOptions::DEFAULT).unwrap().frame;
//! assert_eq!(req.peek().correlation_id, 5);
//! assert_eq!(req.name(), Some("LeaderAndIsr"));
//! ```

use bytes::Bytes;
use kafka_wire::frame::{self, DecodeOptions, DecodedFrame, Refusals, RequestPeek};
use kafka_wire::{DecodeError, ResponseHeader, Version};

use crate::known;
use crate::{Apis, RequestFrame, ResponseFrame};

/// A frame of an API or version this crate does not declare, with what can be read of it
/// without a schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Opaque {
    /// The API key (from the request header, or from the request a response answers).
    pub api_key: i16,
    /// The API version.
    pub api_version: Version,
    /// The correlation id.
    pub correlation_id: i32,
    /// The whole frame, size prefix included, exactly as it arrived.
    pub frame: Bytes,
}

impl Opaque {
    /// Kafka's name for the API, if Kafka has assigned its key.
    pub fn name(&self) -> Option<&'static str> {
        known::api_name(self.api_key)
    }
}

/// A request frame of any API: decoded, or opaque when this crate does not declare its API
/// key or version, or does not compile the API in (see [`features`](crate::features)).
#[derive(Debug, Clone, PartialEq)]
pub enum AnyRequest {
    /// A declared API at a declared version (boxed: the largest body is far larger than
    /// [`Opaque`]).
    Decoded(Box<RequestFrame>),
    /// Anything else, untouched.
    Opaque(Opaque),
}

impl AnyRequest {
    /// Decodes a whole request frame (prefix included) with `options` (see
    /// [`RequestFrame::decode`]). An undeclared API or version is [`AnyRequest::Opaque`]
    /// (only its size prefix and first three header fields are checked, and no trailing byte
    /// is counted); a declared one that does not decode is an error.
    pub fn decode(
        frame: &Bytes,
        options: &DecodeOptions,
    ) -> Result<DecodedFrame<Self>, DecodeError> {
        let mut set = Refusals::new(Apis);
        match frame::decode_request_in(&mut set, frame, options) {
            Ok(d) => {
                let trailing = d.trailing_bytes;
                let decoded = AnyRequest::Decoded(Box::new(d.frame));
                Ok(DecodedFrame::new(decoded, trailing))
            }
            Err(_) if set.refused => {
                // Size prefix and length are checked: only the fixed header fields are read.
                let peek = frame::peek_request_header(frame)?;
                let opaque = AnyRequest::Opaque(Opaque {
                    api_key: peek.api_key,
                    api_version: peek.api_version,
                    correlation_id: peek.correlation_id,
                    frame: frame.clone(),
                });
                Ok(DecodedFrame::new(opaque, 0))
            }
            Err(e) => Err(e),
        }
    }

    /// The API key, version and correlation id.
    pub fn peek(&self) -> RequestPeek {
        match self {
            AnyRequest::Decoded(f) => RequestPeek {
                api_key: f.header.request_api_key,
                api_version: f.header.request_api_version,
                correlation_id: f.header.correlation_id,
            },
            AnyRequest::Opaque(o) => RequestPeek {
                api_key: o.api_key,
                api_version: o.api_version,
                correlation_id: o.correlation_id,
            },
        }
    }

    /// Kafka's name for the API, declared or not.
    pub fn name(&self) -> Option<&'static str> {
        known::api_name(self.peek().api_key)
    }

    /// The decoded frame, if the API was declared.
    pub fn as_decoded(&self) -> Option<&RequestFrame> {
        match self {
            AnyRequest::Decoded(f) => Some(f),
            AnyRequest::Opaque(_) => None,
        }
    }
}

/// A response frame of any API: decoded, or opaque when this crate does not declare the API
/// or version of the request it answers.
#[derive(Debug, Clone, PartialEq)]
pub enum AnyResponse {
    /// A declared API at a declared version (boxed, as for requests).
    Decoded(Box<ResponseFrame>),
    /// Anything else, untouched.
    Opaque(Opaque),
}

impl AnyResponse {
    /// Decodes a whole response frame answering a request of `api_key` at `version` (as a
    /// [`CorrelationTracker`](kafka_wire::correlation::CorrelationTracker) remembers them),
    /// with `options` (see [`ResponseFrame::decode`], ApiVersions' fallback included). An
    /// undeclared API or version is [`AnyResponse::Opaque`] (only the size prefix and the
    /// correlation id are checked, and no trailing byte is counted); a declared one that does
    /// not decode is an error.
    pub fn decode(
        frame: &Bytes,
        api_key: i16,
        version: Version,
        options: &DecodeOptions,
    ) -> Result<DecodedFrame<Self>, DecodeError> {
        let mut set = Refusals::new(Apis);
        match frame::decode_response_in(&mut set, frame, api_key, version, options) {
            Ok(d) => {
                let trailing = d.trailing_bytes;
                let decoded = AnyResponse::Decoded(Box::new(d.frame));
                Ok(DecodedFrame::new(decoded, trailing))
            }
            Err(_) if set.refused => {
                let opaque = AnyResponse::Opaque(Opaque {
                    api_key,
                    api_version: version,
                    correlation_id: frame::peek_response(frame)?,
                    frame: frame.clone(),
                });
                Ok(DecodedFrame::new(opaque, 0))
            }
            Err(e) => Err(e),
        }
    }

    /// The correlation id.
    pub fn correlation_id(&self) -> i32 {
        match self {
            AnyResponse::Decoded(f) => f.header.correlation_id,
            AnyResponse::Opaque(o) => o.correlation_id,
        }
    }

    /// The decoded frame, if the API was declared.
    pub fn as_decoded(&self) -> Option<&ResponseFrame> {
        match self {
            AnyResponse::Decoded(f) => Some(f),
            AnyResponse::Opaque(_) => None,
        }
    }
}

impl ResponseFrame {
    /// Decodes only the response header of a frame answering `api_key` at `version`, for any
    /// API Kafka has assigned (declared here or not); an unassigned key gets header v0, the
    /// correlation id alone. The size prefix is checked against the frame size limit of
    /// `options`; the body is not read.
    pub fn decode_header(
        frame: &Bytes,
        api_key: i16,
        version: Version,
        options: &DecodeOptions,
    ) -> Result<ResponseHeader, DecodeError> {
        let mut r = options.open(frame)?;
        let hv = known::response_header_version(api_key, version).unwrap_or(0);
        <ResponseHeader as kafka_wire::KafkaMessage>::decode(&mut r, hv)
            .map_err(|e| e.in_part("header"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ApiKey, ResponseBody};

    const MAX: &DecodeOptions = &DecodeOptions::DEFAULT;

    /// What a Java broker that serves ApiVersions 0-2 sends to a v3 request: header v0
    /// (correlation id 9), then a v0 body: error_code 35 (UNSUPPORTED_VERSION) and an int32
    /// array of one (api_key 18, min 0, max 2), laid out by hand from the v0 schema.
    const V0_ANSWER: &[u8] =
        b"\x00\x00\x00\x10\x00\x00\x00\x09\x00\x23\x00\x00\x00\x01\x00\x12\x00\x00\x00\x02";

    #[test]
    fn api_versions_falls_back_to_v0() {
        let frame = Bytes::from_static(V0_ANSWER);
        // At v3 (flexible) these bytes do not decode.
        let strict = DecodeOptions::DEFAULT.with_api_versions_fallback(false);
        assert!(ResponseFrame::decode(&frame, ApiKey::ApiVersions, 3, &strict).is_err());
        let f = ResponseFrame::decode(&frame, ApiKey::ApiVersions, 3, MAX)
            .unwrap()
            .frame;
        assert_eq!(f.version, 0);
        assert_eq!(f.header.correlation_id, 9);
        let ResponseBody::ApiVersions(body) = &f.body else {
            panic!("not ApiVersions: {f:?}");
        };
        assert_eq!(body.error_code, 35);
        assert_eq!(body.api_keys.len(), 1);
        assert_eq!(f.to_vec().unwrap(), V0_ANSWER);
        // Through AnyResponse too.
        let any = AnyResponse::decode(&frame, 18, 3, MAX).unwrap().frame;
        assert_eq!(any.as_decoded().map(|f| f.version), Some(0));
        // Garbage still fails, with the error at the requested version.
        let bad = Bytes::from_static(b"\x00\x00\x00\x05\x00\x00\x00\x09\x01");
        assert!(ResponseFrame::decode(&bad, ApiKey::ApiVersions, 3, MAX).is_err());
    }

    #[test]
    fn responses_with_trailing_bytes_decode_only_when_allowed() {
        // The v0 answer with one zero byte after its body, the size prefix grown to match.
        let mut padded = V0_ANSWER.to_vec();
        padded.push(0);
        padded[3] += 1;
        let frame = Bytes::from(padded);
        let e = AnyResponse::decode(&frame, 18, 0, MAX).unwrap_err();
        assert_eq!(e.kind(), &kafka_wire::DecodeErrorKind::TrailingBytes(1));
        assert_eq!(e.offset(), 20);
        let lenient = DecodeOptions::new().with_trailing_bytes(true);
        let d = AnyResponse::decode(&frame, 18, 0, &lenient).unwrap();
        assert_eq!(d.trailing_bytes, 1);
        assert_eq!(d.frame.correlation_id(), 9);
        assert!(d.frame.as_decoded().is_some());
        // An undeclared API is not parsed: nothing is counted.
        let d = AnyResponse::decode(&frame, 4, 5, &lenient).unwrap();
        assert_eq!(d.trailing_bytes, 0);
        assert!(d.frame.as_decoded().is_none());
    }

    #[test]
    fn undeclared_apis_pass_through_untouched() {
        // LeaderAndIsr (4, removed from Kafka, not declared) v5 request: header v2 (flexible
        // from 4), correlation id 5, client id "c", no tagged fields, then two body bytes.
        let req = Bytes::from_static(
            b"\x00\x00\x00\x0e\x00\x04\x00\x05\x00\x00\x00\x05\x00\x01c\x00\x01\x00",
        );
        match AnyRequest::decode(&req, MAX).unwrap().frame {
            AnyRequest::Opaque(o) => {
                assert_eq!((o.api_key, o.api_version, o.correlation_id), (4, 5, 5));
                assert_eq!(o.name(), Some("LeaderAndIsr"));
                assert_eq!(o.frame, req);
            }
            AnyRequest::Decoded(f) => panic!("LeaderAndIsr is not declared: {f:?}"),
        }
        // A declared API at an undeclared version is opaque too.
        let av9 = Bytes::from_static(b"\x00\x00\x00\x0a\x00\x12\x00\x09\x00\x00\x00\x06\xff\xff");
        assert!(matches!(
            AnyRequest::decode(&av9, MAX).unwrap().frame,
            AnyRequest::Opaque(Opaque { api_version: 9, .. })
        ));
        // A response of an unassigned key: header v0, the correlation id.
        let resp = Bytes::from_static(b"\x00\x00\x00\x06\x00\x00\x00\x05\xab\xcd");
        let any = AnyResponse::decode(&resp, 999, 0, MAX).unwrap().frame;
        assert_eq!(any.correlation_id(), 5);
        assert!(any.as_decoded().is_none());
        // Metadata v12's response header is v1: correlation id and a tagged section.
        let resp = Bytes::from_static(b"\x00\x00\x00\x06\x00\x00\x00\x05\x00\x00");
        let h = ResponseFrame::decode_header(&resp, 3, 12, MAX).unwrap();
        assert_eq!(h.correlation_id, 5);
        // A frame whose prefix lies is an error even when opaque.
        let short = Bytes::from_static(b"\x00\x00\x00\x20\x00\x03\x00\x0c\x00\x00\x00\x05");
        assert!(AnyRequest::decode(&short, MAX).is_err());
    }

    #[test]
    fn declared_frames_decode() {
        let frame = RequestFrame::new(7, None, 3, crate::ApiVersionsRequest::default());
        let bytes = Bytes::from(frame.to_vec().unwrap());
        let any = AnyRequest::decode(&bytes, MAX).unwrap().frame;
        assert_eq!(any.as_decoded(), Some(&frame));
        assert_eq!(any.peek().correlation_id, 7);
        assert_eq!(any.name(), Some("ApiVersions"));
    }
}
