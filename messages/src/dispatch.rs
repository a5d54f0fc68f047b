//! Run-time dispatch over the declared APIs: [`ApiKey`], the [`RequestBody`] and
//! [`ResponseBody`] enums, and whole frames ([`RequestFrame`], [`ResponseFrame`]).

use core::fmt;

use bytes::{BufMut, Bytes};
use kafka_wire::frame::{self, DEFAULT_MAX_FRAME_SIZE};
use kafka_wire::{
    DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, KafkaMessage, Reader,
    RequestHeader, ResponseHeader, Str, StructMeta, Version, VersionRange,
};

use crate::{
    AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, ApiVersionsRequest, ApiVersionsResponse,
    InitializeShareGroupStateRequest, InitializeShareGroupStateResponse, TxnOffsetCommitRequest,
    TxnOffsetCommitResponse,
};

/// The methods of [`RequestBody`] and [`ResponseBody`]: one template for both sides.
macro_rules! body_impl {
    ($body:ident, $side:literal, $( $variant:ident => $msg:ident ),*) => {
        impl $body {
            /// The API of this body.
            pub fn api_key(&self) -> ApiKey {
                match self {
                    $( $body::$variant(_) => ApiKey::$variant, )*
                }
            }

            /// Encodes the body (no header, no size prefix) at `version`.
            pub fn encode<B: BufMut + ?Sized>(
                &self,
                buf: &mut B,
                version: Version,
            ) -> Result<(), EncodeError> {
                match self {
                    $( $body::$variant(m) => m.encode(buf, version), )*
                }
            }

            /// The exact number of bytes [`encode`](Self::encode) writes at `version`.
            pub fn encoded_size(&self, version: Version) -> usize {
                match self {
                    $( $body::$variant(m) => m.encoded_size(version), )*
                }
            }

            #[doc = concat!("Decodes the ", $side, " body of `api_key` at `version` from the reader's position.")]
            ///
            #[doc = concat!("A version outside the API's ", $side, " versions is `UnsupportedVersion`.")]
            pub fn decode(
                api_key: ApiKey,
                version: Version,
                r: &mut Reader<'_>,
            ) -> Result<Self, DecodeError> {
                match api_key {
                    $( ApiKey::$variant => <$msg as KafkaMessage>::decode(r, version).map($body::$variant), )*
                }
            }

            #[doc = concat!("The default (empty) ", $side, " body of `api_key`.")]
            pub fn default_for(api_key: ApiKey) -> Self {
                match api_key {
                    $( ApiKey::$variant => $body::$variant(<$msg>::default()), )*
                }
            }
        }
    };
}

/// Declares [`ApiKey`], [`RequestBody`] and [`ResponseBody`] from one list of APIs, so that
/// adding an API is one line.
macro_rules! apis {
    ($( $(#[$doc:meta])* $variant:ident = $key:literal => $req:ident, $resp:ident; )*) => {
        /// An API this crate declares, by its Kafka API key.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(i16)]
        pub enum ApiKey {
            $( $(#[$doc])* $variant = $key, )*
        }

        impl ApiKey {
            /// Every declared API, in ascending key order.
            pub const ALL: &'static [ApiKey] = &[$(ApiKey::$variant),*];

            /// The API with key `key`, or `None` if this crate does not declare it.
            pub const fn from_i16(key: i16) -> Option<ApiKey> {
                match key {
                    $( $key => Some(ApiKey::$variant), )*
                    _ => None,
                }
            }

            /// The API key as on the wire.
            pub const fn key(self) -> i16 {
                self as i16
            }

            /// The API's name, as Kafka spells it (`"TxnOffsetCommit"`).
            pub const fn name(self) -> &'static str {
                match self {
                    $( ApiKey::$variant => stringify!($variant), )*
                }
            }

            /// The request struct's metadata.
            pub fn request_meta(self) -> &'static StructMeta {
                match self {
                    $( ApiKey::$variant => <$req as KafkaMessage>::META, )*
                }
            }

            /// The response struct's metadata.
            pub fn response_meta(self) -> &'static StructMeta {
                match self {
                    $( ApiKey::$variant => <$resp as KafkaMessage>::META, )*
                }
            }
        }

        /// The body of a request of any declared API.
        #[derive(Debug, Clone, PartialEq)]
        pub enum RequestBody {
            $(
                #[doc = concat!("A [`", stringify!($req), "`].")]
                $variant($req),
            )*
        }

        /// The body of a response of any declared API.
        #[derive(Debug, Clone, PartialEq)]
        pub enum ResponseBody {
            $(
                #[doc = concat!("A [`", stringify!($resp), "`].")]
                $variant($resp),
            )*
        }

        body_impl!(RequestBody, "request", $( $variant => $req ),*);
        body_impl!(ResponseBody, "response", $( $variant => $resp ),*);

        $(
            impl From<$req> for RequestBody {
                fn from(m: $req) -> Self {
                    RequestBody::$variant(m)
                }
            }

            impl From<$resp> for ResponseBody {
                fn from(m: $resp) -> Self {
                    ResponseBody::$variant(m)
                }
            }
        )*
    };
}

apis! {
    /// ApiVersions (18): the versions of every API the broker supports.
    ApiVersions = 18 => ApiVersionsRequest, ApiVersionsResponse;
    /// AddPartitionsToTxn (24): adds partitions to a transaction.
    AddPartitionsToTxn = 24 => AddPartitionsToTxnRequest, AddPartitionsToTxnResponse;
    /// TxnOffsetCommit (28): commits offsets within a transaction.
    TxnOffsetCommit = 28 => TxnOffsetCommitRequest, TxnOffsetCommitResponse;
    /// InitializeShareGroupState (83): initializes share-partition state.
    InitializeShareGroupState = 83 => InitializeShareGroupStateRequest, InitializeShareGroupStateResponse;
}

impl ApiKey {
    /// Versions of the request (`validVersions`).
    pub fn request_versions(self) -> VersionRange {
        self.request_meta().versions
    }

    /// Versions of the response (`validVersions`).
    pub fn response_versions(self) -> VersionRange {
        self.response_meta().versions
    }

    /// Flexible versions of the request.
    pub fn request_flexible_versions(self) -> VersionRange {
        self.request_meta().flexible
    }

    /// Flexible versions of the response.
    pub fn response_flexible_versions(self) -> VersionRange {
        self.response_meta().flexible
    }

    /// The request header version for a request at `version`: 2 if flexible, else 1.
    pub fn request_header_version(self, version: Version) -> Version {
        kafka_wire::request_header_version(self.request_flexible_versions(), version)
    }

    /// The response header version for a response at `version`: 1 if flexible, else 0;
    /// always 0 for ApiVersions (KIP-511).
    pub fn response_header_version(self, version: Version) -> Version {
        kafka_wire::response_header_version(self.key(), self.response_flexible_versions(), version)
    }

    /// `from_i16`, as a decode error (`UnknownApiKey`, at offset 0) for an undeclared key.
    pub fn try_from_i16(key: i16) -> Result<ApiKey, DecodeError> {
        ApiKey::from_i16(key)
            .ok_or_else(|| DecodeError::new(DecodeErrorKind::UnknownApiKey(key), 0))
    }
}

impl TryFrom<i16> for ApiKey {
    type Error = DecodeError;
    fn try_from(key: i16) -> Result<Self, Self::Error> {
        ApiKey::try_from_i16(key)
    }
}

impl From<ApiKey> for i16 {
    fn from(k: ApiKey) -> i16 {
        k.key()
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl RequestBody {
    /// The request struct's metadata.
    pub fn meta(&self) -> &'static StructMeta {
        self.api_key().request_meta()
    }

    /// Encodes into a new vector at `version`.
    pub fn to_vec(&self, version: Version) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(self.encoded_size(version));
        self.encode(&mut out, version)?;
        Ok(out)
    }
}

impl ResponseBody {
    /// The response struct's metadata.
    pub fn meta(&self) -> &'static StructMeta {
        self.api_key().response_meta()
    }

    /// Encodes into a new vector at `version`.
    pub fn to_vec(&self, version: Version) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(self.encoded_size(version));
        self.encode(&mut out, version)?;
        Ok(out)
    }
}

fn unsupported(api: ApiKey, version: Version, offset: usize) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::UnsupportedVersion {
            name: api.name(),
            version,
        },
        offset,
    )
}

/// A whole request: header and body. The API and version are the header's.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestFrame {
    /// The request header (`request_api_key` must match the body's API).
    pub header: RequestHeader,
    /// The request body, encoded at `header.request_api_version`.
    pub body: RequestBody,
}

impl RequestFrame {
    /// A request of `body`'s API at `version`, with a header filled in to match.
    pub fn new(
        correlation_id: i32,
        client_id: Option<Str>,
        version: Version,
        body: impl Into<RequestBody>,
    ) -> Self {
        let body = body.into();
        RequestFrame {
            header: RequestHeader::new(body.api_key().key(), version, correlation_id, client_id),
            body,
        }
    }

    /// The body's API.
    pub fn api_key(&self) -> ApiKey {
        self.body.api_key()
    }

    /// The API version (`header.request_api_version`).
    pub fn version(&self) -> Version {
        self.header.request_api_version
    }

    /// Decodes a whole request frame (4-byte size prefix included) of any declared API, with
    /// Kafka's default maximum frame size.
    pub fn decode(frame: &Bytes) -> Result<Self, DecodeError> {
        Self::decode_with_max(frame, DEFAULT_MAX_FRAME_SIZE)
    }

    /// Decodes a whole request frame, rejecting a size prefix above `max_size` before
    /// reading further.
    ///
    /// As a broker does, it peeks the API key and version, picks the header version from
    /// them, then decodes header and body. An undeclared key is `UnknownApiKey`, a version
    /// outside the API's request versions `UnsupportedVersion`, and bytes left after the
    /// body `TrailingBytes`.
    pub fn decode_with_max(frame: &Bytes, max_size: usize) -> Result<Self, DecodeError> {
        let mut r = frame::open_frame(frame, max_size)?;
        let (key, version) = frame::peek_request(frame)?;
        let api = ApiKey::from_i16(key).ok_or_else(|| {
            DecodeError::new(DecodeErrorKind::UnknownApiKey(key), 4)
                .in_field("request_api_key")
                .in_part("header")
        })?;
        if !api.request_versions().contains(version) {
            return Err(unsupported(api, version, 6)
                .in_field("request_api_version")
                .in_part("header"));
        }
        let header = RequestHeader::decode(&mut r, api.request_header_version(version))
            .map_err(|e| e.in_part("header"))?;
        let body = RequestBody::decode(api, version, &mut r).map_err(|e| e.in_part("body"))?;
        frame::ensure_consumed(&r)?;
        Ok(RequestFrame { header, body })
    }

    /// Decodes only the request header of a frame, whatever its body: what a broker needs to
    /// answer a request it cannot parse. Kafka, for one, answers an ApiVersions request at an
    /// unsupported version with an UNSUPPORTED_VERSION v0 body carrying the request's
    /// correlation id (KAFKA-RULES rule 33), which [`decode`](Self::decode) rejects.
    ///
    /// The header version follows the API's flexible versions, even above its highest
    /// version; for an undeclared API key it is v1 (v2 only appends a tagged section to the
    /// same fields). The size prefix is checked against `max_size`; the body is not read.
    pub fn decode_header(frame: &Bytes, max_size: usize) -> Result<RequestHeader, DecodeError> {
        let mut r = frame::open_frame(frame, max_size)?;
        let (key, version) = frame::peek_request(frame)?;
        let header_version =
            ApiKey::from_i16(key).map_or(1, |api| api.request_header_version(version));
        RequestHeader::decode(&mut r, header_version).map_err(|e| e.in_part("header"))
    }

    /// The size of the whole frame, size prefix included.
    pub fn encoded_size(&self) -> usize {
        let v = self.version();
        4 + self
            .header
            .encoded_size(self.api_key().request_header_version(v))
            + self.body.encoded_size(v)
    }

    /// Encodes the whole frame: size prefix, header (at the version the API calls for), body.
    ///
    /// Fails if `header.request_api_key` is not the body's API, or where the body's encode
    /// fails.
    pub fn encode<B: BufMut + ?Sized>(&self, buf: &mut B) -> Result<(), EncodeError> {
        let api = self.api_key();
        if self.header.request_api_key != api.key() {
            return Err(EncodeError::new(EncodeErrorKind::InvalidValue(
                "request_api_key does not match the body's API",
            ))
            .in_field("request_api_key")
            .in_part("header"));
        }
        let v = self.version();
        let hv = api.request_header_version(v);
        frame::put_frame_size(
            buf,
            self.header.encoded_size(hv) + self.body.encoded_size(v),
        )?;
        self.header
            .encode(buf, hv)
            .map_err(|e| e.in_part("header"))?;
        self.body.encode(buf, v).map_err(|e| e.in_part("body"))
    }

    /// Encodes the whole frame into a new vector.
    pub fn to_vec(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(self.encoded_size());
        self.encode(&mut out)?;
        Ok(out)
    }
}

/// A whole response: header and body, with the API and version of the request it answers
/// (which are not on the wire).
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseFrame {
    /// The response header.
    pub header: ResponseHeader,
    /// The API of the request this answers (must match the body's).
    pub api_key: ApiKey,
    /// The version of the request this answers; the body is encoded at it.
    pub version: Version,
    /// The response body.
    pub body: ResponseBody,
}

impl ResponseFrame {
    /// A response of `body`'s API at `version`, answering `correlation_id`.
    pub fn new(correlation_id: i32, version: Version, body: impl Into<ResponseBody>) -> Self {
        let body = body.into();
        ResponseFrame {
            header: ResponseHeader::new(correlation_id),
            api_key: body.api_key(),
            version,
            body,
        }
    }

    /// Decodes a whole response frame (size prefix included) answering a request of
    /// `api_key` at `version`, with Kafka's default maximum frame size.
    pub fn decode(frame: &Bytes, api_key: ApiKey, version: Version) -> Result<Self, DecodeError> {
        Self::decode_with_max(frame, api_key, version, DEFAULT_MAX_FRAME_SIZE)
    }

    /// Decodes a whole response frame, rejecting a size prefix above `max_size` before
    /// reading further. A version outside the API's response versions is
    /// `UnsupportedVersion`; bytes left after the body are `TrailingBytes`.
    pub fn decode_with_max(
        frame: &Bytes,
        api_key: ApiKey,
        version: Version,
        max_size: usize,
    ) -> Result<Self, DecodeError> {
        let mut r = frame::open_frame(frame, max_size)?;
        if !api_key.response_versions().contains(version) {
            return Err(unsupported(api_key, version, r.position()));
        }
        let header = ResponseHeader::decode(&mut r, api_key.response_header_version(version))
            .map_err(|e| e.in_part("header"))?;
        let body = ResponseBody::decode(api_key, version, &mut r).map_err(|e| e.in_part("body"))?;
        frame::ensure_consumed(&r)?;
        Ok(ResponseFrame {
            header,
            api_key,
            version,
            body,
        })
    }

    /// The size of the whole frame, size prefix included.
    pub fn encoded_size(&self) -> usize {
        4 + self
            .header
            .encoded_size(self.api_key.response_header_version(self.version))
            + self.body.encoded_size(self.version)
    }

    /// Encodes the whole frame: size prefix, header (v0 or v1 as the API and version call
    /// for), body at `version`.
    ///
    /// Fails if `api_key` is not the body's API, or where the body's encode fails.
    pub fn encode<B: BufMut + ?Sized>(&self, buf: &mut B) -> Result<(), EncodeError> {
        if self.body.api_key() != self.api_key {
            return Err(EncodeError::new(EncodeErrorKind::InvalidValue(
                "api_key does not match the body's API",
            )));
        }
        let hv = self.api_key.response_header_version(self.version);
        frame::put_frame_size(
            buf,
            self.header.encoded_size(hv) + self.body.encoded_size(self.version),
        )?;
        self.header
            .encode(buf, hv)
            .map_err(|e| e.in_part("header"))?;
        self.body
            .encode(buf, self.version)
            .map_err(|e| e.in_part("body"))
    }

    /// Encodes the whole frame into a new vector.
    pub fn to_vec(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(self.encoded_size());
        self.encode(&mut out)?;
        Ok(out)
    }
}
