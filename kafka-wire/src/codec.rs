//! A [`tokio_util::codec`] framing of Kafka's size-prefixed frames (feature `tokio`).
//!
//! [`FrameCodec`] splits a byte stream into whole frames, each a [`Bytes`] that still starts
//! with its 4-byte size prefix, exactly what [`frame::decode_request`] and
//! [`frame::decode_response`] take. The size prefix is checked against the maximum frame size
//! as soon as its 4 bytes are there, and the room asked for grows with the bytes received
//! (at most [`READ_CHUNK_MAX`](crate::frame::READ_CHUNK_MAX) ahead of them), never the size a
//! prefix announces. The buffer's capacity can be larger than what is asked for: `BytesMut`
//! doubles when it grows and `FramedRead` reserves before each read, so a connection holds
//! up to about 3.3 times the bytes of a frame that have arrived.
//! Encoding writes a whole frame (as [`frame::encode_request`] or [`frame::encode_response`]
//! produce it) after checking its prefix against its length.
//!
//! ```
//! use kafka_wire::bytes::BytesMut;
//! use kafka_wire::codec::{Decoder, FrameCodec};
//!
//! let mut codec = FrameCodec::new();
//! let mut buf = BytesMut::from(&b"\x00\x00\x00\x02\xab\xcd\x00\x00"[..]);
//! let frame = codec.decode(&mut buf).unwrap().unwrap();
//! assert_eq!(&frame[..], b"\x00\x00\x00\x02\xab\xcd");
//! // Two bytes of the next prefix: not a frame yet.
//! assert_eq!(codec.decode(&mut buf).unwrap(), None);
//! ```
//!
//! To read and write decoded requests and responses instead of bytes, use the codecs of
//! [`typed`](crate::typed), which are built on this one.
//!
//! [`frame::decode_request`]: crate::frame::decode_request
//! [`frame::decode_response`]: crate::frame::decode_response
//! [`frame::encode_request`]: crate::frame::encode_request
//! [`frame::encode_response`]: crate::frame::encode_response

use std::io;

use bytes::{Bytes, BytesMut};
/// The `tokio_util` traits [`FrameCodec`] implements, re-exported so that callers name the
/// same `tokio_util` version.
pub use tokio_util::codec::{Decoder, Encoder};
/// `tokio_util`'s adapters from a socket to a stream and sink of frames, re-exported so that a
/// tokio user needs no `tokio_util` dependency of their own.
pub use tokio_util::codec::{Framed, FramedRead, FramedWrite};

use crate::error::{DecodeError, EncodeError, EncodeErrorKind};
use crate::frame::{frame_len, read_ahead, DEFAULT_MAX_FRAME_SIZE};

/// Splits a byte stream into whole Kafka frames (size prefix included) and writes whole
/// frames back.
///
/// Use it with `tokio_util::codec::Framed` on a socket, or call
/// [`Decoder::decode`] directly on a [`BytesMut`] (no runtime needed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameCodec {
    max_frame_size: usize,
}

impl FrameCodec {
    /// A codec accepting frames of up to [`DEFAULT_MAX_FRAME_SIZE`] bytes (not counting the
    /// prefix), Kafka's `socket.request.max.bytes` default.
    pub const fn new() -> Self {
        Self::with_max_frame_size(DEFAULT_MAX_FRAME_SIZE)
    }

    /// A codec accepting frames whose size prefix is at most `max_frame_size`.
    pub const fn with_max_frame_size(max_frame_size: usize) -> Self {
        FrameCodec { max_frame_size }
    }

    /// A codec accepting frames up to the frame size limit of `limits` (the codec splits
    /// frames; the other limits apply where the frames are decoded).
    pub const fn with_limits(limits: &crate::DecodeLimits) -> Self {
        Self::with_max_frame_size(limits.frame_size())
    }

    /// The largest size prefix accepted.
    pub const fn max_frame_size(&self) -> usize {
        self.max_frame_size
    }
}

impl Default for FrameCodec {
    fn default() -> Self {
        Self::new()
    }
}

/// Why [`FrameCodec`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// The underlying stream failed (or ended inside a frame).
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A received size prefix was negative or above the maximum frame size. The stream cannot
    /// be resynchronised after this.
    #[error("invalid frame: {0}")]
    Frame(#[from] DecodeError),
    /// A frame handed to the encoder was not a well-formed, size-prefixed frame.
    #[error("cannot send frame: {0}")]
    Encode(#[from] EncodeError),
}

impl From<CodecError> for io::Error {
    fn from(e: CodecError) -> Self {
        match e {
            CodecError::Io(e) => e,
            CodecError::Frame(e) => io::Error::new(io::ErrorKind::InvalidData, e),
            CodecError::Encode(e) => io::Error::new(io::ErrorKind::InvalidInput, e),
        }
    }
}

impl Decoder for FrameCodec {
    type Item = Bytes;
    type Error = CodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, CodecError> {
        match frame_len(src, self.max_frame_size)? {
            None => {
                src.reserve(4 - src.len());
                Ok(None)
            }
            Some(total) if src.len() < total => {
                // Room for as many more bytes as have arrived (4 KiB to 1 MiB), not for the
                // whole frame: a prefix alone commits no memory for the body it announces.
                src.reserve(read_ahead(src.len(), total - src.len()));
                Ok(None)
            }
            Some(total) => Ok(Some(src.split_to(total).freeze())),
        }
    }
}

impl Encoder<Bytes> for FrameCodec {
    type Error = CodecError;

    /// Writes `frame`, which must be one whole frame: a size prefix equal to the number of
    /// bytes after it, at most the maximum frame size.
    fn encode(&mut self, frame: Bytes, dst: &mut BytesMut) -> Result<(), CodecError> {
        let total = frame_len(&frame, self.max_frame_size).map_err(|e| {
            EncodeError::new(EncodeErrorKind::InvalidValue(
                "frame size prefix is negative or above the maximum frame size",
            ))
            .in_part(if e.offset() == 0 { "size" } else { "frame" })
        })?;
        if total != Some(frame.len()) {
            return Err(EncodeError::new(EncodeErrorKind::InvalidValue(
                "frame size prefix does not match the frame's length",
            ))
            .in_part("size")
            .into());
        }
        dst.extend_from_slice(&frame);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::DecodeErrorKind;
    use crate::frame::{decode_request, encode_request};
    use crate::{RequestHeader, ResponseHeader};

    fn decode_all(codec: &mut FrameCodec, buf: &mut BytesMut) -> Vec<Bytes> {
        let mut out = Vec::new();
        while let Some(f) = codec.decode(buf).unwrap() {
            out.push(f);
        }
        out
    }

    #[test]
    fn splits_a_stream_fed_one_byte_at_a_time() {
        // Two frames as a broker would send them: correlation id 7, then 8 with one body byte.
        let wire: &[u8] = b"\x00\x00\x00\x04\x00\x00\x00\x07\x00\x00\x00\x05\x00\x00\x00\x08\x2a";
        let mut codec = FrameCodec::new();
        let mut buf = BytesMut::new();
        let mut frames = Vec::new();
        for &b in wire {
            buf.extend_from_slice(&[b]);
            frames.extend(decode_all(&mut codec, &mut buf));
        }
        assert_eq!(frames.len(), 2);
        assert_eq!(&frames[0][..], &wire[..8]);
        assert_eq!(&frames[1][..], &wire[8..]);
        assert!(buf.is_empty());
        // A whole buffer at once gives the same frames.
        let mut buf = BytesMut::from(wire);
        assert_eq!(decode_all(&mut codec, &mut buf), frames);
        // And each decodes as a response header v0.
        for (f, id) in frames.iter().zip([7, 8]) {
            let mut r = crate::Reader::at(f, 4);
            let h = <ResponseHeader as crate::KafkaMessage>::decode(&mut r, 0).unwrap();
            assert_eq!(h.correlation_id, id);
        }
    }

    #[test]
    fn empty_frame_is_a_frame() {
        let mut buf = BytesMut::from(&b"\x00\x00\x00\x00"[..]);
        let f = FrameCodec::new().decode(&mut buf).unwrap().unwrap();
        assert_eq!(&f[..], b"\x00\x00\x00\x00");
    }

    #[test]
    fn oversized_prefix_is_rejected_before_the_body_arrives() {
        let mut codec = FrameCodec::with_max_frame_size(16);
        // Exactly at the limit is fine (still waiting for the body)...
        let mut buf = BytesMut::from(&b"\x00\x00\x00\x10"[..]);
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        assert!(buf.capacity() >= 20);
        // ...and a 100 MB prefix reserves a chunk, not 100 MB.
        let mut buf = BytesMut::from(&b"\x05\xf5\xe1\x00"[..]);
        assert_eq!(FrameCodec::new().decode(&mut buf).unwrap(), None);
        assert!(
            buf.capacity() <= 2 * crate::frame::READ_CHUNK_MIN,
            "{}",
            buf.capacity()
        );
        // ...one above is an error from the four prefix bytes alone, with no room reserved.
        let mut buf = BytesMut::from(&b"\x00\x00\x00\x11"[..]);
        let err = codec.decode(&mut buf).unwrap_err();
        match err {
            CodecError::Frame(e) => assert_eq!(
                e.kind(),
                &DecodeErrorKind::LimitExceeded {
                    limit: crate::Limit::FrameSize,
                    value: 17,
                    max: 16
                }
            ),
            e => panic!("unexpected {e:?}"),
        }
        // A 2 GiB prefix with the default maximum: no 2 GiB reservation.
        let mut buf = BytesMut::from(&b"\x7f\xff\xff\xff"[..]);
        assert!(FrameCodec::new().decode(&mut buf).is_err());
        assert!(buf.capacity() < 1024);
    }

    #[test]
    fn negative_prefix_is_rejected() {
        let mut buf = BytesMut::from(&b"\xff\xff\xff\xfe\x00"[..]);
        let err = FrameCodec::new().decode(&mut buf).unwrap_err();
        assert!(matches!(
            err,
            CodecError::Frame(ref e) if e.kind() == &DecodeErrorKind::NegativeFrameSize(-2)
        ));
        let io: io::Error = err.into();
        assert_eq!(io.kind(), io::ErrorKind::InvalidData);
    }

    #[test]
    fn stream_ending_inside_a_frame_is_an_error() {
        let mut buf = BytesMut::from(&b"\x00\x00\x00\x05\x01\x02"[..]);
        let mut codec = FrameCodec::new();
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        assert!(matches!(
            codec.decode_eof(&mut buf),
            Err(CodecError::Io(ref e)) if e.kind() == io::ErrorKind::Other
        ));
        // At a frame boundary, end of stream is clean.
        assert_eq!(codec.decode_eof(&mut BytesMut::new()).unwrap(), None);
    }

    #[test]
    fn encoder_writes_whole_frames_and_round_trips() {
        // ApiVersions v0 request, correlation id 1, client id "a": the bytes a client sends.
        let wire: &[u8] = b"\x00\x00\x00\x0b\x00\x12\x00\x00\x00\x00\x00\x01\x00\x01a";
        let mut codec = FrameCodec::new();
        let mut dst = BytesMut::new();
        codec.encode(Bytes::from_static(wire), &mut dst).unwrap();
        codec.encode(Bytes::from_static(wire), &mut dst).unwrap();
        let frames = decode_all(&mut codec, &mut dst);
        assert_eq!(frames, vec![Bytes::from_static(wire); 2]);
        let (key, version) = crate::frame::peek_request(&frames[0]).unwrap();
        assert_eq!((key, version), (18, 0));
        let mut r = crate::Reader::at(&frames[0], 4);
        let h = <RequestHeader as crate::KafkaMessage>::decode(&mut r, 1).unwrap();
        assert_eq!(h, RequestHeader::new(18, 0, 1, Some("a".into())));
    }

    #[test]
    fn encoder_rejects_malformed_frames() {
        let mut codec = FrameCodec::with_max_frame_size(8);
        let mut dst = BytesMut::new();
        let cases: [(&'static [u8], &str); 5] = [
            (b"\x00\x00", "no whole prefix"),
            (b"\x00\x00\x00\x02\x01", "prefix longer than the frame"),
            (b"\x00\x00\x00\x00\x01", "prefix shorter than the frame"),
            (b"\xff\xff\xff\xff", "negative prefix"),
            (b"\x00\x00\x00\x09\0\0\0\0\0\0\0\0\0", "above the maximum"),
        ];
        for (bad, why) in cases {
            let err = codec.encode(Bytes::from_static(bad), &mut dst).unwrap_err();
            assert!(matches!(err, CodecError::Encode(_)), "{why}: {err:?}");
        }
        assert!(dst.is_empty());
    }

    /// A derived request encoded with `frame::encode_request` goes through the codec intact.
    #[test]
    fn request_frame_through_the_codec() {
        #[derive(crate::KafkaMessage, Debug, Clone, PartialEq)]
        #[kafka(api_key = 18, request, versions = "0-4", flexible = "3+")]
        struct ApiVersionsRequest {
            #[kafka(versions = "3+")]
            client_software_name: crate::Str,
            #[kafka(versions = "3+")]
            client_software_version: crate::Str,
            unknown_tagged_fields: crate::UnknownTaggedFields,
        }
        let body = ApiVersionsRequest {
            client_software_name: "x".into(),
            client_software_version: "1".into(),
            ..Default::default()
        };
        let header = RequestHeader::new(18, 3, 9, None);
        let mut out = BytesMut::new();
        encode_request(&mut out, &header, &body).unwrap();
        let mut wire = BytesMut::new();
        FrameCodec::new().encode(out.freeze(), &mut wire).unwrap();
        let frame = FrameCodec::new().decode(&mut wire).unwrap().unwrap();
        let (h, b) =
            decode_request::<ApiVersionsRequest>(&frame, &crate::frame::DecodeOptions::DEFAULT)
                .unwrap()
                .frame;
        assert_eq!((h, b), (header, body));
    }
}
