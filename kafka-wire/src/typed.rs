//! Whole request and response frames as types, and (feature `tokio`) `tokio_util` codecs that
//! carry them instead of raw [`Bytes`].
//!
//! [`TypedRequest`] and [`TypedResponse`] are what a frame type offers a codec; the
//! `RequestFrame` and `ResponseFrame` that `kafka_wire_messages::apis!` declares (the shipped
//! ones and a user's own) implement them. On a socket:
//!
//! - a broker reads requests and writes responses with [`ServerCodec`];
//! - a client writes requests and reads responses with [`ClientCodec`], which remembers the
//!   API key and version of every request in flight by correlation id, so each response is
//!   decoded without the caller tracking them.
//!
//! Both split the stream with [`FrameCodec`], so the size prefix is checked against the
//! maximum frame size before a frame is buffered. A tokio program needs two crates besides
//! this one: `tokio` (sockets and runtime) and `futures-util` (the `SinkExt`/`StreamExt`
//! methods of [`Framed`]); `tokio_util` is re-exported as [`codec`]. The codecs need the
//! `tokio` feature.
//!
//! These codecs decode each frame inside `Decoder::decode`, on the task that reads the
//! socket. Decoding is linear in the frame, but a large frame (up to the 100 MiB limit) still
//! takes a while, and reading its record batches (decompressing up to
//! [`DecodeLimits::max_decompressed_batch`](crate::DecodeLimits::max_decompressed_batch) per
//! batch) more: a server with many connections should read raw frames with
//! [`FrameCodec`](crate::codec::FrameCodec) and decode them, and their records, off its I/O
//! tasks (`tokio::task::spawn_blocking`), as `kwire proxy` does, so that one slow frame does
//! not hold up the other connections.
//!
//! A codec built with [`DecodeOptions::allow_trailing_bytes`] accepts bytes after a body, as
//! Java's clients and brokers do. To learn how many each frame carried, carry
//! [`DecodedFrame`]s: `ClientCodec<RequestFrame, DecodedFrame<ResponseFrame>>` yields each
//! response with its `trailing_bytes` (and `ServerCodec<DecodedFrame<RequestFrame>, _>` each
//! request).
#![cfg_attr(
    feature = "tokio",
    doc = "",
    doc = "[`FrameCodec`]: crate::codec::FrameCodec",
    doc = "[`Framed`]: crate::codec::Framed",
    doc = "[`codec`]: crate::codec"
)]
#![cfg_attr(
    not(feature = "tokio"),
    doc = "",
    doc = "[`ServerCodec`]: crate#features",
    doc = "[`ClientCodec`]: crate#features",
    doc = "[`FrameCodec`]: crate#features",
    doc = "[`Framed`]: crate#features",
    doc = "[`codec`]: crate#features"
)]

use bytes::{Bytes, BytesMut};

use crate::error::{DecodeError, EncodeError};
use crate::frame::{DecodeOptions, DecodedFrame};
use crate::{RequestHeader, Version};

/// A whole request frame type: decoded from a frame (size prefix included) whose API it
/// picks from the header, and encoded back with its size prefix.
pub trait TypedRequest: Sized {
    /// Decodes a whole frame with `options`: its limits (a size prefix above the frame size
    /// limit is rejected first) and whether bytes after the body are accepted (and how many
    /// were).
    fn decode_frame(
        frame: &Bytes,
        options: &DecodeOptions,
    ) -> Result<DecodedFrame<Self>, DecodeError>;
    /// Appends the whole frame, size prefix included.
    fn encode_frame(&self, buf: &mut BytesMut) -> Result<(), EncodeError>;
    /// The request header (API key, version and correlation id).
    fn request_header(&self) -> &RequestHeader;
}

/// A whole response frame type, decoded knowing the API key and version of the request it
/// answers (which a response does not carry).
pub trait TypedResponse: Sized {
    /// Decodes a whole frame answering a request of `api_key` at `version`, with `options`
    /// (limits, frame size included, and leniency: the result says how many bytes after the
    /// body were ignored).
    fn decode_frame(
        frame: &Bytes,
        api_key: i16,
        version: Version,
        options: &DecodeOptions,
    ) -> Result<DecodedFrame<Self>, DecodeError>;
    /// Appends the whole frame, size prefix included.
    fn encode_frame(&self, buf: &mut BytesMut) -> Result<(), EncodeError>;
    /// The correlation id of the request this answers.
    fn correlation_id(&self) -> i32;
}

/// A request frame with the count of bytes ignored after its body: a codec carrying these
/// reports the count of each frame. Encoding writes the frame alone (the ignored bytes are
/// not kept).
impl<T: TypedRequest> TypedRequest for DecodedFrame<T> {
    fn decode_frame(
        frame: &Bytes,
        options: &DecodeOptions,
    ) -> Result<DecodedFrame<Self>, DecodeError> {
        let d = T::decode_frame(frame, options)?;
        let n = d.trailing_bytes;
        Ok(DecodedFrame::new(d, n))
    }
    fn encode_frame(&self, buf: &mut BytesMut) -> Result<(), EncodeError> {
        self.frame.encode_frame(buf)
    }
    fn request_header(&self) -> &RequestHeader {
        self.frame.request_header()
    }
}

/// A response frame with the count of bytes ignored after its body (see the
/// [`TypedRequest`] impl).
impl<T: TypedResponse> TypedResponse for DecodedFrame<T> {
    fn decode_frame(
        frame: &Bytes,
        api_key: i16,
        version: Version,
        options: &DecodeOptions,
    ) -> Result<DecodedFrame<Self>, DecodeError> {
        let d = T::decode_frame(frame, api_key, version, options)?;
        let n = d.trailing_bytes;
        Ok(DecodedFrame::new(d, n))
    }
    fn encode_frame(&self, buf: &mut BytesMut) -> Result<(), EncodeError> {
        self.frame.encode_frame(buf)
    }
    fn correlation_id(&self) -> i32 {
        self.frame.correlation_id()
    }
}

/// A decoded frame with the bytes it was decoded from (size prefix included; shared with
/// the codec's read buffer, not copied): what a broker logging requests, or a proxy
/// forwarding them unchanged, needs beside the decoded value. `ServerCodec<WithBytes<RequestFrame>, _>`
/// yields each request with its bytes, `ClientCodec<_, WithBytes<ResponseFrame>>` each
/// response. Encoding one writes the decoded frame (re-encoded), not the kept bytes: to send
/// those, give the codec the `Bytes`.
#[derive(Debug, Clone, PartialEq)]
pub struct WithBytes<T> {
    /// The decoded frame.
    pub frame: T,
    /// The whole frame as received, size prefix included.
    pub bytes: Bytes,
}

impl<T: TypedRequest> TypedRequest for WithBytes<T> {
    fn decode_frame(
        frame: &Bytes,
        options: &DecodeOptions,
    ) -> Result<DecodedFrame<Self>, DecodeError> {
        let d = T::decode_frame(frame, options)?;
        let n = d.trailing_bytes;
        Ok(DecodedFrame::new(
            WithBytes {
                frame: d.frame,
                bytes: frame.clone(),
            },
            n,
        ))
    }
    fn encode_frame(&self, buf: &mut BytesMut) -> Result<(), EncodeError> {
        self.frame.encode_frame(buf)
    }
    fn request_header(&self) -> &RequestHeader {
        self.frame.request_header()
    }
}

impl<T: TypedResponse> TypedResponse for WithBytes<T> {
    fn decode_frame(
        frame: &Bytes,
        api_key: i16,
        version: Version,
        options: &DecodeOptions,
    ) -> Result<DecodedFrame<Self>, DecodeError> {
        let d = T::decode_frame(frame, api_key, version, options)?;
        let n = d.trailing_bytes;
        Ok(DecodedFrame::new(
            WithBytes {
                frame: d.frame,
                bytes: frame.clone(),
            },
            n,
        ))
    }
    fn encode_frame(&self, buf: &mut BytesMut) -> Result<(), EncodeError> {
        self.frame.encode_frame(buf)
    }
    fn correlation_id(&self) -> i32 {
        self.frame.correlation_id()
    }
}

#[cfg(feature = "tokio")]
pub use self::codecs::*;

#[cfg(feature = "tokio")]
mod codecs {
    use std::marker::PhantomData;

    use bytes::{Bytes, BytesMut};

    use super::{TypedRequest, TypedResponse};
    use crate::codec::{CodecError, Decoder, Encoder, FrameCodec};
    use crate::correlation::{CorrelationTracker, TrackError};
    use crate::error::{DecodeError, EncodeError, EncodeErrorKind};
    use crate::frame::{peek_response, DecodeOptions, RequestPeek};
    use crate::DecodeLimits;

    /// Why a typed codec failed. After any of these the connection is out of step and should
    /// be closed.
    #[derive(Debug, thiserror::Error)]
    #[non_exhaustive]
    pub enum StreamError {
        /// Splitting or writing the byte stream failed (I/O, a bad size prefix, a frame above
        /// the maximum size).
        #[error(transparent)]
        Codec(#[from] CodecError),
        /// A response's correlation id could not be read.
        #[error("cannot read response: {0}")]
        Decode(#[from] DecodeError),
        /// A frame could not be encoded.
        #[error("cannot encode frame: {0}")]
        Encode(#[from] EncodeError),
        /// A request reused a correlation id in flight, or a response answered none.
        #[error(transparent)]
        Correlation(#[from] TrackError),
    }

    impl From<std::io::Error> for StreamError {
        fn from(e: std::io::Error) -> Self {
            StreamError::Codec(CodecError::Io(e))
        }
    }

    /// Encodes `frame` into `dst`, refusing one above `max` (the peer would reject it).
    fn put(
        dst: &mut BytesMut,
        max: usize,
        encode: impl FnOnce(&mut BytesMut) -> Result<(), EncodeError>,
    ) -> Result<(), StreamError> {
        let start = dst.len();
        if let Err(e) = encode(dst) {
            dst.truncate(start);
            return Err(e.into());
        }
        if dst.len() - start - 4 > max {
            dst.truncate(start);
            return Err(EncodeError::new(EncodeErrorKind::InvalidValue(
                "frame larger than the maximum frame size",
            ))
            .in_part("size")
            .into());
        }
        Ok(())
    }

    /// A frame that is well framed but does not decode: the stream stays usable.
    ///
    /// A broker can still answer such a request (Kafka answers an ApiVersions request at an
    /// unsupported version with an UNSUPPORTED_VERSION v0 response carrying the request's
    /// correlation id), and a client can still read what it needs from such a response
    /// (brokers disagree on the layout of that UNSUPPORTED_VERSION answer, but its error code
    /// is always the first two body bytes).
    #[derive(Debug, Clone, PartialEq)]
    pub struct Undecodable {
        /// The whole frame, size prefix included.
        pub frame: Bytes,
        /// Why it did not decode.
        pub error: DecodeError,
        /// For a response, the request it answers (found by its correlation id).
        pub request: Option<RequestPeek>,
    }

    /// The broker side of a connection: decodes requests of type `Req`, encodes responses of
    /// type `Resp`.
    ///
    /// Each item is `Ok(request)`, or `Err(Undecodable)` for a frame that was split correctly
    /// but does not decode; only framing and I/O failures end the stream.
    #[derive(Debug)]
    pub struct ServerCodec<Req, Resp> {
        frames: FrameCodec,
        options: DecodeOptions,
        types: PhantomData<fn(Resp) -> Req>,
    }

    impl<Req, Resp> ServerCodec<Req, Resp> {
        /// A codec with Kafka's default limits.
        pub fn new() -> Self {
            Self::with_options(DecodeOptions::DEFAULT)
        }

        /// A codec splitting frames with `frames` (and its maximum frame size), decoding them
        /// with the default limits otherwise.
        pub fn with_frame_codec(frames: FrameCodec) -> Self {
            ServerCodec {
                options: options_for(&frames),
                frames,
                types: PhantomData,
            }
        }

        /// A codec enforcing `limits`: the frame size limit when splitting the stream, the
        /// others when decoding each frame (a value above one is an [`Undecodable`] frame
        /// whose error is `LimitExceeded`, with its offset and field path).
        pub fn with_limits(limits: &DecodeLimits) -> Self {
            Self::with_options(DecodeOptions::from(*limits))
        }

        /// A codec decoding frames with `options` (limits and leniency). With trailing bytes
        /// allowed, make `Req` a [`DecodedFrame`](crate::frame::DecodedFrame) to get each
        /// request's count of ignored bytes.
        pub fn with_options(options: DecodeOptions) -> Self {
            ServerCodec {
                frames: FrameCodec::with_limits(&options.limits),
                options,
                types: PhantomData,
            }
        }
    }

    /// The options of a codec built from a frame codec: its frame size, default limits.
    fn options_for(frames: &FrameCodec) -> DecodeOptions {
        DecodeOptions::from(DecodeLimits::new().max_frame_size(frames.max_frame_size()))
    }

    impl<Req, Resp> Default for ServerCodec<Req, Resp> {
        fn default() -> Self {
            Self::new()
        }
    }

    impl<Req: TypedRequest, Resp> Decoder for ServerCodec<Req, Resp> {
        type Item = Result<Req, Undecodable>;
        type Error = StreamError;

        fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, StreamError> {
            let Some(frame) = self.frames.decode(src)? else {
                return Ok(None);
            };
            Ok(Some(match Req::decode_frame(&frame, &self.options) {
                Ok(d) => Ok(d.frame),
                Err(error) => Err(Undecodable {
                    frame,
                    error,
                    request: None,
                }),
            }))
        }
    }

    impl<Req, Resp: TypedResponse> Encoder<Resp> for ServerCodec<Req, Resp> {
        type Error = StreamError;

        fn encode(&mut self, item: Resp, dst: &mut BytesMut) -> Result<(), StreamError> {
            let max = self.frames.max_frame_size();
            put(dst, max, |b| item.encode_frame(b))
        }
    }

    impl<Req, Resp> Encoder<Bytes> for ServerCodec<Req, Resp> {
        type Error = StreamError;

        /// Writes an already encoded whole frame (an answer built by hand).
        fn encode(&mut self, frame: Bytes, dst: &mut BytesMut) -> Result<(), StreamError> {
            Ok(self.frames.encode(frame, dst)?)
        }
    }

    /// The client side of a connection: encodes requests of type `Req`, decodes responses of
    /// type `Resp`, matching each response to its request by correlation id.
    ///
    /// Each item is `Ok(response)`, or `Err(Undecodable)` for a response that was matched to
    /// its request but does not decode; a response answering no request in flight ends the
    /// stream, as do framing and I/O failures.
    ///
    /// Encoding a request records its API key and version before the bytes are handed to the
    /// socket, so the response cannot arrive first. Requests that get no response (Produce
    /// with `acks = 0`) must not go through this codec.
    #[derive(Debug)]
    pub struct ClientCodec<Req, Resp> {
        frames: FrameCodec,
        options: DecodeOptions,
        in_flight: CorrelationTracker<RequestPeek>,
        types: PhantomData<fn(Req) -> Resp>,
    }

    impl<Req, Resp> ClientCodec<Req, Resp> {
        /// A codec with Kafka's default limits.
        pub fn new() -> Self {
            Self::with_options(DecodeOptions::DEFAULT)
        }

        /// A codec splitting frames with `frames` (and its maximum frame size), decoding them
        /// with the default limits otherwise.
        pub fn with_frame_codec(frames: FrameCodec) -> Self {
            ClientCodec {
                options: options_for(&frames),
                frames,
                in_flight: CorrelationTracker::new(),
                types: PhantomData,
            }
        }

        /// A codec enforcing `limits`: the frame size limit when splitting the stream, the
        /// others when decoding each response (a value above one is an [`Undecodable`]
        /// response whose error is `LimitExceeded`, with its offset and field path).
        pub fn with_limits(limits: &DecodeLimits) -> Self {
            Self::with_options(DecodeOptions::from(*limits))
        }

        /// A codec decoding responses with `options` (limits and leniency). With trailing
        /// bytes allowed, make `Resp` a [`DecodedFrame`](crate::frame::DecodedFrame) to get
        /// each response's count of ignored bytes.
        pub fn with_options(options: DecodeOptions) -> Self {
            ClientCodec {
                frames: FrameCodec::with_limits(&options.limits),
                options,
                in_flight: CorrelationTracker::new(),
                types: PhantomData,
            }
        }

        /// The requests still waiting for a response.
        pub fn in_flight(&self) -> &CorrelationTracker<RequestPeek> {
            &self.in_flight
        }
    }

    impl<Req, Resp> Default for ClientCodec<Req, Resp> {
        fn default() -> Self {
            Self::new()
        }
    }

    impl<Req: TypedRequest, Resp> Encoder<Req> for ClientCodec<Req, Resp> {
        type Error = StreamError;

        fn encode(&mut self, item: Req, dst: &mut BytesMut) -> Result<(), StreamError> {
            let h = item.request_header();
            let peek = RequestPeek {
                api_key: h.request_api_key,
                api_version: h.request_api_version,
                correlation_id: h.correlation_id,
            };
            // Tracked before the bytes exist, so a fast answer always finds its request.
            self.in_flight.track(peek.correlation_id, peek)?;
            let max = self.frames.max_frame_size();
            if let Err(e) = put(dst, max, |b| item.encode_frame(b)) {
                self.in_flight.complete(peek.correlation_id);
                return Err(e);
            }
            Ok(())
        }
    }

    impl<Req, Resp: TypedResponse> Decoder for ClientCodec<Req, Resp> {
        type Item = Result<Resp, Undecodable>;
        type Error = StreamError;

        fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, StreamError> {
            let Some(frame) = self.frames.decode(src)? else {
                return Ok(None);
            };
            let correlation_id = peek_response(&frame)?;
            let sent = self
                .in_flight
                .complete(correlation_id)
                .ok_or(TrackError::Unmatched(correlation_id))?;
            let decoded = Resp::decode_frame(&frame, sent.api_key, sent.api_version, &self.options);
            Ok(Some(match decoded {
                Ok(d) => Ok(d.frame),
                Err(error) => Err(Undecodable {
                    frame,
                    error,
                    request: Some(sent),
                }),
            }))
        }
    }
}
