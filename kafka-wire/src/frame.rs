//! Size-prefixed frames (Java's `NetworkReceive`): an int32 big-endian length N, then N bytes of
//! header and body.
//!
//! Frames here include their 4-byte size prefix, so byte offsets in errors are offsets in the
//! frame as it crossed the wire.

use std::io;

use bytes::{BufMut, Bytes};

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::field::Sealed;
use crate::header::{RequestHeader, ResponseHeader};
use crate::message::{ApiMessage, KafkaMessage};
use crate::meta::{ApiKind, StructMeta};
use crate::vectored::Vectored;
use crate::{Reader, Version};

pub use crate::limits::DEFAULT_MAX_FRAME_SIZE;

/// Reads the size prefix at the start of `buf` and says how long the whole frame is (prefix
/// included), or `None` if fewer than 4 bytes are there yet.
///
/// A negative size or one above `max_size` is an error from the prefix alone, before any
/// allocation.
pub fn frame_len(buf: &[u8], max_size: usize) -> Result<Option<usize>, DecodeError> {
    let Some(prefix) = buf.first_chunk::<4>() else {
        return Ok(None);
    };
    let size = i32::from_be_bytes(*prefix);
    if size < 0 {
        return Err(DecodeError::new(DecodeErrorKind::NegativeFrameSize(size), 0).in_part("size"));
    }
    if size as usize > max_size {
        // The same error as every other limit: `LimitExceeded`, naming `max_frame_size`.
        return Err(DecodeError::new(
            DecodeErrorKind::LimitExceeded {
                limit: crate::Limit::FrameSize,
                value: size as u64,
                max: max_size as u64,
            },
            0,
        )
        .in_part("size"));
    }
    Ok(Some(4 + size as usize))
}

/// The whole length (prefix included) a complete frame's prefix declares, checked against
/// `max_size`; fewer than 4 bytes is `Truncated` at the size prefix.
///
/// Unlike [`frame_len`], which answers "not yet" while a stream is still filling a buffer,
/// this is for a frame already in hand: a missing prefix is an error.
pub fn declared_len(frame: &[u8], max_size: usize) -> Result<usize, DecodeError> {
    frame_len(frame, max_size)?.ok_or_else(|| {
        DecodeError::new(
            DecodeErrorKind::Truncated {
                needed: 4,
                available: frame.len(),
            },
            0,
        )
        .in_part("size")
    })
}

/// Checks that a frame is exactly as long as its prefix declared (`total`, prefix included):
/// shorter is `Truncated`, longer is `TrailingBytes`.
pub(crate) fn check_len(frame: &[u8], total: usize) -> Result<(), DecodeError> {
    if frame.len() < total {
        return Err(DecodeError::new(
            DecodeErrorKind::Truncated {
                needed: total - 4,
                available: frame.len() - 4,
            },
            4,
        )
        .in_part("size"));
    }
    if frame.len() > total {
        return Err(
            DecodeError::new(DecodeErrorKind::TrailingBytes(frame.len() - total), total)
                .in_part("frame"),
        );
    }
    Ok(())
}

/// Checks a complete frame's size prefix against `max_size` and against the frame's length,
/// and returns a reader positioned after the prefix (offsets stay frame offsets).
///
/// A frame shorter than its prefix says is `Truncated`; one longer is `TrailingBytes`.
pub fn open_frame(frame: &Bytes, max_size: usize) -> Result<Reader<'_>, DecodeError> {
    check_len(frame, declared_len(frame, max_size)?)?;
    Ok(Reader::at(frame, 4))
}

/// Reads `api_key` and `api_version` from a request frame (prefix included) without decoding
/// the rest, as a broker does to choose the header version.
pub fn peek_request(frame: &Bytes) -> Result<(i16, Version), DecodeError> {
    let mut r = Reader::at(frame, 4);
    let key = r
        .read_i16()
        .map_err(|e| e.in_field("request_api_key").in_part("header"))?;
    let version = r
        .read_i16()
        .map_err(|e| e.in_field("request_api_version").in_part("header"))?;
    Ok((key, version))
}

/// What every request frame starts with, whatever its API: the first three header fields,
/// which sit at the same offsets in every request header version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RequestPeek {
    /// `request_api_key`.
    pub api_key: i16,
    /// `request_api_version`.
    pub api_version: Version,
    /// `correlation_id`, which the response will echo.
    pub correlation_id: i32,
}

/// Reads the API key, version and correlation id of a request frame (prefix included)
/// without decoding the rest: enough to route a request and to match its response, even for
/// an API this crate does not declare.
pub fn peek_request_header(frame: &Bytes) -> Result<RequestPeek, DecodeError> {
    let (api_key, api_version) = peek_request(frame)?;
    let correlation_id = Reader::at(frame, 8)
        .read_i32()
        .map_err(|e| e.in_field("correlation_id").in_part("header"))?;
    Ok(RequestPeek {
        api_key,
        api_version,
        correlation_id,
    })
}

/// Reads the correlation id of a response frame (prefix included).
///
/// It is the first field of every response header version, so it can be read before the
/// request it answers (hence the header version) is known, which is how a client or proxy
/// finds that request.
pub fn peek_response(frame: &Bytes) -> Result<i32, DecodeError> {
    Reader::at(frame, 4)
        .read_i32()
        .map_err(|e| e.in_field("correlation_id").in_part("header"))
}

/// How a whole frame is decoded: the [`DecodeLimits`](crate::DecodeLimits) to enforce (its
/// frame size limit included) and whether bytes left after the body are accepted.
///
/// The default is strict: Kafka's default limits, and bytes left after the body are
/// `TrailingBytes`, so that a decoded frame encodes back to exactly the bytes it came from.
/// Java's clients and brokers do not look past the body (`AbstractResponse.parseResponse`,
/// `RequestContext.parseRequest`), so a peer can send a frame they accept and this crate
/// rejects (librdkafka's mock cluster appends a zero byte to its Metadata v12 answers); a
/// program that must read such frames opts in with
/// [`allow_trailing_bytes`](Self::allow_trailing_bytes), and learns how many bytes were
/// ignored from [`DecodedFrame::trailing_bytes`].
///
/// Every frame decoder takes one (`decode_request`, `decode_response`, the `decode` of the
/// frame types of `kafka_wire_messages::apis!`, the metadata-driven frames, [`read_frame`]);
/// `&DecodeOptions::DEFAULT`, [`from_max_frame_size`](Self::from_max_frame_size) and
/// [`from_limits`](Self::from_limits) are the short ways to write one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DecodeOptions {
    /// The limits to enforce while decoding.
    pub limits: crate::DecodeLimits,
    /// Accept (and count) bytes left inside the frame after its body, as Java does, instead
    /// of failing with `TrailingBytes`. Bytes beyond the frame's size prefix are still an
    /// error: they belong to no frame.
    pub allow_trailing_bytes: bool,
    /// Decode an ApiVersions response that does not decode at the requested version again at
    /// v0, as Kafka's clients do (`ApiVersionsResponse.parse`): a broker asked at a version it
    /// does not support answers with a v0 body (error UNSUPPORTED_VERSION and the versions it
    /// supports). The frame then says version 0, and encodes back to the same bytes; if
    /// neither decodes, the error is the one at the requested version. On by default; the
    /// response frames of `kafka_wire_messages::apis!` (and `AnyResponse`) apply it;
    /// [`decode_response`] and the metadata-driven codec decode at the version given.
    pub api_versions_fallback: bool,
}

impl DecodeOptions {
    /// Strict decoding with Kafka's default limits (and the ApiVersions fallback).
    pub const DEFAULT: DecodeOptions = DecodeOptions {
        limits: crate::DecodeLimits::DEFAULT,
        allow_trailing_bytes: false,
        api_versions_fallback: true,
    };

    /// Strict decoding with Kafka's default limits ([`DecodeOptions::DEFAULT`]).
    pub const fn new() -> Self {
        Self::DEFAULT
    }

    /// Strict decoding with Kafka's default limits, but frames of up to `max` bytes (size
    /// prefix excluded).
    pub const fn from_max_frame_size(max: usize) -> Self {
        Self::from_limits(crate::DecodeLimits::DEFAULT.max_frame_size(max))
    }

    /// Strict decoding enforcing `limits` (also `DecodeOptions::from(limits)`).
    pub const fn from_limits(limits: crate::DecodeLimits) -> Self {
        Self::DEFAULT.with_limits(limits)
    }

    /// These options, with the ApiVersions fallback on or off (see
    /// [`api_versions_fallback`](Self::api_versions_fallback)).
    pub const fn with_api_versions_fallback(mut self, on: bool) -> Self {
        self.api_versions_fallback = on;
        self
    }

    /// These options, enforcing `limits`.
    pub const fn with_limits(mut self, limits: crate::DecodeLimits) -> Self {
        self.limits = limits;
        self
    }

    /// These options, accepting bytes left after the body when `allow` is set (see
    /// [`allow_trailing_bytes`](Self::allow_trailing_bytes)).
    pub const fn with_trailing_bytes(mut self, allow: bool) -> Self {
        self.allow_trailing_bytes = allow;
        self
    }

    /// A reader over a complete frame after its size prefix, which is checked against the
    /// frame size limit and the frame's length (see [`open_frame`]), enforcing the limits.
    pub fn open<'a>(&'a self, frame: &'a Bytes) -> Result<Reader<'a>, DecodeError> {
        self.open_declared(frame, self.declared_len(frame)?)
    }

    /// The first half of [`open`](Self::open): the whole length the size prefix declares,
    /// checked against the frame size limit. (The metadata-driven codec reports the prefix
    /// as a node of its own between the two halves.)
    pub(crate) fn declared_len(&self, frame: &[u8]) -> Result<usize, DecodeError> {
        declared_len(frame, self.limits.frame_size())
    }

    /// The second half of [`open`](Self::open): the frame's length against `total`, then a
    /// reader after the prefix enforcing the limits.
    pub(crate) fn open_declared<'a>(
        &'a self,
        frame: &'a Bytes,
        total: usize,
    ) -> Result<Reader<'a>, DecodeError> {
        check_len(frame, total)?;
        Ok(Reader::at(frame, 4).limited(&self.limits))
    }

    /// Ends a frame's decode: the number of bytes left after the body, which is 0 unless
    /// trailing bytes are allowed (otherwise they are `TrailingBytes`, as in
    /// [`ensure_consumed`]).
    pub fn finish(&self, r: &Reader<'_>) -> Result<usize, DecodeError> {
        if self.allow_trailing_bytes {
            Ok(r.remaining())
        } else {
            ensure_consumed(r).map(|()| 0)
        }
    }
}

impl Default for DecodeOptions {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl From<crate::DecodeLimits> for DecodeOptions {
    /// Strict decoding with `limits`.
    fn from(limits: crate::DecodeLimits) -> Self {
        Self::from_limits(limits)
    }
}

/// A frame decoded with [`DecodeOptions`], and how many bytes after its body were ignored.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DecodedFrame<F> {
    /// The decoded frame.
    pub frame: F,
    /// The bytes left inside the frame after its body and ignored: always 0 unless
    /// [`DecodeOptions::allow_trailing_bytes`] is set. Such a frame does not encode back to
    /// the bytes it came from.
    pub trailing_bytes: usize,
}

impl<F> DecodedFrame<F> {
    /// The frame, with `trailing_bytes` ignored after its body.
    pub fn new(frame: F, trailing_bytes: usize) -> Self {
        DecodedFrame {
            frame,
            trailing_bytes,
        }
    }
}

/// Fails with `TrailingBytes` unless every byte of the frame has been read.
pub fn ensure_consumed(r: &Reader<'_>) -> Result<(), DecodeError> {
    if r.is_empty() {
        Ok(())
    } else {
        Err(r
            .error(DecodeErrorKind::TrailingBytes(r.remaining()))
            .in_part("frame"))
    }
}

/// The error for a request frame whose `request_api_key` names no API the caller decodes,
/// at the key, as every frame decoder reports it.
pub(crate) fn unknown_api_key(key: i16) -> DecodeError {
    DecodeError::new(DecodeErrorKind::UnknownApiKey(key), 4)
        .in_field("request_api_key")
        .in_part("header")
}

/// Refuses a frame at a version its body lacks before the header is read, as every frame
/// decoder does (the typed frames of `kafka_wire_messages::apis!`, the generic ones here and
/// the metadata-driven ones): in a request the error is the header's `request_api_version`
/// (offset 6); in a response, whose version the caller gives, it is at offset 4 with no
/// field. The error names the API (the body's name without `Request`/`Response`).
pub(crate) fn check_version(
    kind: ApiKind,
    body: &'static StructMeta,
    version: Version,
) -> Result<(), DecodeError> {
    if body.versions.contains(version) {
        return Ok(());
    }
    let name = body.name;
    let name = name
        .strip_suffix("Request")
        .or_else(|| name.strip_suffix("Response"))
        .unwrap_or(name);
    let unsupported = DecodeErrorKind::UnsupportedVersion { name, version };
    Err(match kind {
        ApiKind::Request => DecodeError::new(unsupported, 6)
            .in_field("request_api_version")
            .in_part("header"),
        ApiKind::Response => DecodeError::new(unsupported, 4),
    })
}

/// A set of Kafka APIs that whole frames are decoded against: what the one frame decode path
/// ([`decode_request_in`], [`decode_response_in`]: size prefix, header, body, then
/// [`DecodeOptions::finish`]) asks of whoever knows the APIs. The frames of
/// `kafka_wire_messages::apis!` (the shipped set and a user's own, whose `Apis` type
/// implements it), [`decode_request`]/[`decode_response`] (a set of one message type) and
/// the metadata-driven codec's frames (`dynamic`, feature `json`) are its implementations;
/// `AnyRequest`/`AnyResponse` are the shipped set, through [`Refusals`], with what is not in
/// it kept as bytes.
///
/// The path is generic over the set, so it is compiled once per set, not per API; the set
/// dispatches on the API inside its own methods. Errors are returned as the methods report
/// them; the path adds the frame part (`header`, `body`) to the header's and body's.
pub trait ApiSet {
    /// One API of the set, as the set names it (`ApiKey` for `apis!`).
    type Api: Copy;
    /// A decoded request header.
    type RequestHeader;
    /// A decoded response header.
    type ResponseHeader;
    /// A decoded request body of any API of the set.
    type Request;
    /// A decoded response body of any API of the set.
    type Response;
    /// A whole decoded request frame, built from its parts by
    /// [`request_frame`](Self::request_frame).
    type RequestFrame;
    /// A whole decoded response frame, built by [`response_frame`](Self::response_frame).
    type ResponseFrame;

    /// The API of a request frame whose header names `api_key` at `version`, or the error
    /// that refuses it before its header is read (`UnknownApiKey` at the key, offset 4,
    /// `UnsupportedVersion` at the version, offset 6, both in the `header` part). A frame
    /// refused here is "not in the set": `AnyRequest` keeps it as bytes.
    fn request_api(&mut self, api_key: i16, version: Version) -> Result<Self::Api, DecodeError>;
    /// The API of a response answering a request of `api_key` at `version`, or the error that
    /// refuses it before its header is read (at offset 4).
    fn response_api(&mut self, api_key: i16, version: Version) -> Result<Self::Api, DecodeError>;
    /// The request header version of `api` at `version`.
    fn request_header_version(&self, api: Self::Api, version: Version) -> Version;
    /// The response header version of `api` at `version`.
    fn response_header_version(&self, api: Self::Api, version: Version) -> Version;
    /// Decodes a request header at `header_version`.
    fn decode_request_header(
        &mut self,
        header_version: Version,
        r: &mut Reader<'_>,
    ) -> Result<Self::RequestHeader, DecodeError>;
    /// Decodes a response header at `header_version`.
    fn decode_response_header(
        &mut self,
        header_version: Version,
        r: &mut Reader<'_>,
    ) -> Result<Self::ResponseHeader, DecodeError>;
    /// Decodes the request body of `api` at `version`.
    fn decode_request(
        &mut self,
        api: Self::Api,
        version: Version,
        r: &mut Reader<'_>,
    ) -> Result<Self::Request, DecodeError>;
    /// Decodes the response body of `api` at `version`.
    fn decode_response(
        &mut self,
        api: Self::Api,
        version: Version,
        r: &mut Reader<'_>,
    ) -> Result<Self::Response, DecodeError>;
    /// Encodes a request body at `version` (no header, no size prefix).
    fn encode_request(
        &self,
        body: &Self::Request,
        version: Version,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError>;
    /// Encodes a response body at `version` (no header, no size prefix).
    fn encode_response(
        &self,
        body: &Self::Response,
        version: Version,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError>;
    /// A request frame from its decoded parts.
    fn request_frame(
        &mut self,
        api: Self::Api,
        version: Version,
        header: Self::RequestHeader,
        body: Self::Request,
    ) -> Self::RequestFrame;
    /// A response frame from its decoded parts.
    fn response_frame(
        &mut self,
        api: Self::Api,
        version: Version,
        header: Self::ResponseHeader,
        body: Self::Response,
    ) -> Self::ResponseFrame;
    /// Told once the size prefix has been read and checked against the frame size limit,
    /// before the frame's length is checked against it (the metadata-driven codec's trace
    /// closes its `size` node here). Nothing by default.
    fn prefix_read(&mut self) {}
}

/// `set`, remembering whether it refused a frame's API or version ("not in the set", see
/// [`ApiSet::request_api`]): what a caller that keeps such frames as bytes instead of failing
/// (`AnyRequest`, `AnyResponse`) decodes against, so that the path's result stays the plain
/// `Result` every other caller returns as it is (a decoded frame of hundreds of bytes is not
/// moved through another wrapper).
#[derive(Debug, Clone, Default)]
pub struct Refusals<S> {
    /// The set.
    pub set: S,
    /// Whether the set refused the last frame's API or version.
    pub refused: bool,
}

impl<S> Refusals<S> {
    /// `set`, nothing refused yet.
    pub fn new(set: S) -> Self {
        Refusals {
            set,
            refused: false,
        }
    }
}

impl<S: ApiSet> ApiSet for Refusals<S> {
    type Api = S::Api;
    type RequestHeader = S::RequestHeader;
    type ResponseHeader = S::ResponseHeader;
    type Request = S::Request;
    type Response = S::Response;
    type RequestFrame = S::RequestFrame;
    type ResponseFrame = S::ResponseFrame;

    fn request_api(&mut self, api_key: i16, version: Version) -> Result<S::Api, DecodeError> {
        let res = self.set.request_api(api_key, version);
        self.refused = res.is_err();
        res
    }
    fn response_api(&mut self, api_key: i16, version: Version) -> Result<S::Api, DecodeError> {
        let res = self.set.response_api(api_key, version);
        self.refused = res.is_err();
        res
    }
    fn request_header_version(&self, api: S::Api, version: Version) -> Version {
        self.set.request_header_version(api, version)
    }
    fn response_header_version(&self, api: S::Api, version: Version) -> Version {
        self.set.response_header_version(api, version)
    }
    fn decode_request_header(
        &mut self,
        header_version: Version,
        r: &mut Reader<'_>,
    ) -> Result<S::RequestHeader, DecodeError> {
        self.set.decode_request_header(header_version, r)
    }
    fn decode_response_header(
        &mut self,
        header_version: Version,
        r: &mut Reader<'_>,
    ) -> Result<S::ResponseHeader, DecodeError> {
        self.set.decode_response_header(header_version, r)
    }
    fn decode_request(
        &mut self,
        api: S::Api,
        version: Version,
        r: &mut Reader<'_>,
    ) -> Result<S::Request, DecodeError> {
        self.set.decode_request(api, version, r)
    }
    fn decode_response(
        &mut self,
        api: S::Api,
        version: Version,
        r: &mut Reader<'_>,
    ) -> Result<S::Response, DecodeError> {
        self.set.decode_response(api, version, r)
    }
    fn encode_request(
        &self,
        body: &S::Request,
        version: Version,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        self.set.encode_request(body, version, out)
    }
    fn encode_response(
        &self,
        body: &S::Response,
        version: Version,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        self.set.encode_response(body, version, out)
    }
    fn request_frame(
        &mut self,
        api: S::Api,
        version: Version,
        header: S::RequestHeader,
        body: S::Request,
    ) -> S::RequestFrame {
        self.set.request_frame(api, version, header, body)
    }
    fn response_frame(
        &mut self,
        api: S::Api,
        version: Version,
        header: S::ResponseHeader,
        body: S::Response,
    ) -> S::ResponseFrame {
        self.set.response_frame(api, version, header, body)
    }
    fn prefix_read(&mut self) {
        self.refused = false;
        self.set.prefix_read();
    }
}

/// Decodes a whole request frame (prefix included) against `set`, the one path every request
/// frame decoder takes: the size prefix against the frame size limit of `options`, the
/// frame's length against the prefix, the API key and version (the set picks the API or
/// refuses it), the header at the version the API calls for, the body, then the bytes left
/// (refused, or counted if `options` allows them).
#[inline]
pub fn decode_request_in<S: ApiSet>(
    set: &mut S,
    frame: &Bytes,
    options: &DecodeOptions,
) -> Result<DecodedFrame<S::RequestFrame>, DecodeError> {
    let total = options.declared_len(frame)?;
    set.prefix_read();
    let mut r = options.open_declared(frame, total)?;
    let (key, version) = peek_request(frame)?;
    let api = set.request_api(key, version)?;
    let hv = set.request_header_version(api, version);
    let header = set
        .decode_request_header(hv, &mut r)
        .map_err(|e| e.in_part("header"))?;
    let body = set
        .decode_request(api, version, &mut r)
        .map_err(|e| e.in_part("body"))?;
    let trailing = options.finish(&r)?;
    Ok(DecodedFrame::new(
        set.request_frame(api, version, header, body),
        trailing,
    ))
}

/// Decodes a whole response frame (prefix included) answering a request of `api_key` at
/// `version` against `set`, in the steps of [`decode_request_in`]. With
/// [`DecodeOptions::api_versions_fallback`], an ApiVersions response that does not decode at
/// `version` is decoded again at v0 (the error, if that fails too, is the first one); a
/// version the set refuses is not retried.
#[inline]
pub fn decode_response_in<S: ApiSet>(
    set: &mut S,
    frame: &Bytes,
    api_key: i16,
    version: Version,
    options: &DecodeOptions,
) -> Result<DecodedFrame<S::ResponseFrame>, DecodeError> {
    let mut refused = false;
    let res = response_at(set, frame, api_key, version, options, &mut refused);
    match res {
        Err(e)
            if !refused
                && options.api_versions_fallback
                && api_key == crate::API_VERSIONS_KEY
                && version > 0 =>
        {
            response_at(set, frame, api_key, 0, options, &mut refused).map_err(|_| e)
        }
        res => res,
    }
}

/// [`decode_response_in`] at `version` alone; `refused` says whether the set refused it.
#[inline]
fn response_at<S: ApiSet>(
    set: &mut S,
    frame: &Bytes,
    api_key: i16,
    version: Version,
    options: &DecodeOptions,
    refused: &mut bool,
) -> Result<DecodedFrame<S::ResponseFrame>, DecodeError> {
    let total = options.declared_len(frame)?;
    set.prefix_read();
    let mut r = options.open_declared(frame, total)?;
    let api = set
        .response_api(api_key, version)
        .inspect_err(|_| *refused = true)?;
    let hv = set.response_header_version(api, version);
    let header = set
        .decode_response_header(hv, &mut r)
        .map_err(|e| e.in_part("header"))?;
    let body = set
        .decode_response(api, version, &mut r)
        .map_err(|e| e.in_part("body"))?;
    let trailing = options.finish(&r)?;
    Ok(DecodedFrame::new(
        set.response_frame(api, version, header, body),
        trailing,
    ))
}

/// The set of one message type `M` (its request or response), which [`decode_request`] and
/// [`decode_response`] decode against.
struct One<M>(std::marker::PhantomData<M>);

impl<M: ApiMessage> ApiSet for One<M> {
    type Api = ();
    type RequestHeader = RequestHeader;
    type ResponseHeader = ResponseHeader;
    type Request = M;
    type Response = M;
    type RequestFrame = (RequestHeader, M);
    type ResponseFrame = (ResponseHeader, M);

    fn request_api(&mut self, api_key: i16, version: Version) -> Result<(), DecodeError> {
        if api_key != M::API_KEY {
            return Err(unknown_api_key(api_key));
        }
        check_version(ApiKind::Request, M::META, version)
    }
    fn response_api(&mut self, _api_key: i16, version: Version) -> Result<(), DecodeError> {
        check_version(ApiKind::Response, M::META, version)
    }
    fn request_header_version(&self, (): (), version: Version) -> Version {
        M::header_version(version)
    }
    fn response_header_version(&self, (): (), version: Version) -> Version {
        M::header_version(version)
    }
    fn decode_request_header(
        &mut self,
        header_version: Version,
        r: &mut Reader<'_>,
    ) -> Result<RequestHeader, DecodeError> {
        RequestHeader::decode(r, header_version)
    }
    fn decode_response_header(
        &mut self,
        header_version: Version,
        r: &mut Reader<'_>,
    ) -> Result<ResponseHeader, DecodeError> {
        ResponseHeader::decode(r, header_version)
    }
    fn decode_request(
        &mut self,
        (): (),
        version: Version,
        r: &mut Reader<'_>,
    ) -> Result<M, DecodeError> {
        M::decode(r, version)
    }
    fn decode_response(
        &mut self,
        (): (),
        version: Version,
        r: &mut Reader<'_>,
    ) -> Result<M, DecodeError> {
        M::decode(r, version)
    }
    fn encode_request(
        &self,
        body: &M,
        version: Version,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        body.encode(out, version)
    }
    fn encode_response(
        &self,
        body: &M,
        version: Version,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        body.encode(out, version)
    }
    fn request_frame(
        &mut self,
        (): (),
        _: Version,
        header: RequestHeader,
        body: M,
    ) -> (RequestHeader, M) {
        (header, body)
    }
    fn response_frame(
        &mut self,
        (): (),
        _: Version,
        header: ResponseHeader,
        body: M,
    ) -> (ResponseHeader, M) {
        (header, body)
    }
}

/// Decodes a whole request frame (prefix included) of one known API, with the limits of
/// `options` (frame size included) and, if `options` allows them, ignoring bytes left after
/// the body; the result says how many were ignored. A frame of another API is
/// `UnknownApiKey`.
pub fn decode_request<M: ApiMessage>(
    frame: &Bytes,
    options: &DecodeOptions,
) -> Result<DecodedFrame<(RequestHeader, M)>, DecodeError> {
    decode_request_in(&mut One::<M>(std::marker::PhantomData), frame, options)
}

/// Decodes a whole response frame (prefix included) of one known API, answering a request
/// at `version`, with `options` as [`decode_request`]; at `version` only (ApiVersions'
/// fallback to v0 is the `apis!` frames', whose result says the version).
pub fn decode_response<M: ApiMessage>(
    frame: &Bytes,
    version: Version,
    options: &DecodeOptions,
) -> Result<DecodedFrame<(ResponseHeader, M)>, DecodeError> {
    let options = options.with_api_versions_fallback(false);
    let mut one = One::<M>(std::marker::PhantomData);
    decode_response_in(&mut one, frame, M::API_KEY, version, &options)
}

/// Encodes one whole frame into `buf`, all or nothing: a size prefix, then what `contents`
/// writes (header and body), the prefix filled in once their size is known, so that nothing
/// is sized before it is written. A `Vec<u8>` is written in place and truncated back on
/// error; any other buffer gets the frame through [`crate::message::put_staged`]. The one place frames
/// are assembled: for these functions, the frames of `kafka_wire_messages` and the
/// metadata-driven codec's [`dynamic::encode_frame_into`] (feature `json`).
///
/// A `BufferTooSmall` is reported in the `frame` part, a size above the int32 maximum as
/// `LengthTooLarge` in the `size` part; `contents` names its own parts (`header`, `body`).
#[cfg_attr(
    feature = "json",
    doc = "",
    doc = "[`dynamic::encode_frame_into`]: crate::dynamic::encode_frame_into"
)]
#[cfg_attr(
    not(feature = "json"),
    doc = "",
    doc = "[`dynamic::encode_frame_into`]: crate#features"
)]
pub fn put_frame<B: crate::EncodeBuf + ?Sized>(
    buf: &mut B,
    contents: impl FnOnce(&mut Vec<u8>) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    let mut contents = Some(contents);
    // In place, truncated back on error: into a `Vec<u8>`, or a buffer's own storage lent
    // as one (an empty `BytesMut`, see `EncodeBuf::with_vec`); else staged.
    let mut in_place = |out: &mut Vec<u8>| {
        let (start, capacity) = (out.len(), out.capacity());
        let res = match contents.take() {
            Some(c) => frame_into(out, c),
            None => Err(EncodeError::new(EncodeErrorKind::InvalidValue(
                "frame contents already written",
            ))),
        };
        if res.is_err() {
            // Back to its length and to the room it had: a failed encode leaves no trace.
            out.truncate(start);
            out.shrink_to(capacity);
        }
        res
    };
    let res = match buf.as_vec(Sealed::TOKEN) {
        Some(out) => in_place(out),
        None => match buf.with_vec(&mut in_place, Sealed::TOKEN) {
            Some(res) => res,
            None => crate::message::put_staged(buf, in_place),
        },
    };
    match res {
        Err(e) if e.path().is_empty() => Err(e.in_part("frame")),
        res => res,
    }
}

/// Appends a frame to `out`: the prefix, `contents`, then the prefix filled in.
#[inline]
fn frame_into(
    out: &mut Vec<u8>,
    contents: impl FnOnce(&mut Vec<u8>) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    let start = out.len();
    out.put_i32(0);
    contents(out)?;
    let size = out.len().saturating_sub(start + 4);
    let size32 = i32::try_from(size)
        .map_err(|_| EncodeError::new(EncodeErrorKind::LengthTooLarge(size)).in_part("size"))?;
    if let Some(prefix) = out.get_mut(start..start + 4) {
        prefix.copy_from_slice(&size32.to_be_bytes());
    }
    Ok(())
}

/// Encodes a whole request frame into `buf`: size prefix, header (at the version the API's flexibility
/// calls for) and body at `header.request_api_version`. All or nothing, into every buffer
/// (see [`put_frame`]).
pub fn encode_request<M: ApiMessage, B: crate::EncodeBuf + ?Sized>(
    buf: &mut B,
    header: &RequestHeader,
    body: &M,
) -> Result<(), EncodeError> {
    check_request_key::<M>(header)?;
    put_frame(buf, |out| request_contents(out, header, body))
}

/// Encodes a whole response frame into `buf`, answering a request at `version`. All or
/// nothing, into every buffer (see [`put_frame`]).
///
/// Every encode and write entry point takes its arguments in one order: destination, header,
/// version (responses only; a request's is in its header), body.
pub fn encode_response<M: ApiMessage, B: crate::EncodeBuf + ?Sized>(
    buf: &mut B,
    header: &ResponseHeader,
    version: Version,
    body: &M,
) -> Result<(), EncodeError> {
    put_frame(buf, |out| response_contents(out, header, version, body))
}

/// [`encode_request`] appended to a [`Vectored`]: the same bytes, with every `bytes` or
/// `records` value of [`VECTORED_MIN`](crate::VECTORED_MIN) bytes or more referenced, not
/// copied (see [`KafkaMessage::encode_vectored`]); the size prefix counts them. All or
/// nothing.
pub fn encode_request_vectored<M: ApiMessage>(
    out: &mut Vectored,
    header: &RequestHeader,
    body: &M,
) -> Result<(), EncodeError> {
    check_request_key::<M>(header)?;
    out.append_frame(&mut |head| request_contents(head, header, body))
}

/// [`encode_response`] appended to a [`Vectored`] (see [`encode_request_vectored`]).
pub fn encode_response_vectored<M: ApiMessage>(
    out: &mut Vectored,
    header: &ResponseHeader,
    version: Version,
    body: &M,
) -> Result<(), EncodeError> {
    out.append_frame(&mut |head| response_contents(head, header, version, body))
}

/// Fails unless the header's API key is the body's.
fn check_request_key<M: ApiMessage>(header: &RequestHeader) -> Result<(), EncodeError> {
    if header.request_api_key != M::API_KEY {
        return Err(EncodeError::new(EncodeErrorKind::InvalidValue(
            "request_api_key does not match the body's API",
        ))
        .in_part("header"));
    }
    Ok(())
}

/// A request frame's header and body (at the versions `header` calls for).
fn request_contents<M: ApiMessage>(
    out: &mut Vec<u8>,
    header: &RequestHeader,
    body: &M,
) -> Result<(), EncodeError> {
    let version = header.request_api_version;
    let hv = M::header_version(version);
    header.encode(out, hv).map_err(|e| e.in_part("header"))?;
    body.encode(out, version).map_err(|e| e.in_part("body"))
}

/// A response frame's header and body, answering a request at `version`.
fn response_contents<M: ApiMessage>(
    out: &mut Vec<u8>,
    header: &ResponseHeader,
    version: Version,
    body: &M,
) -> Result<(), EncodeError> {
    let hv = M::header_version(version);
    header.encode(out, hv).map_err(|e| e.in_part("header"))?;
    body.encode(out, version).map_err(|e| e.in_part("body"))
}

/// The most bytes a frame reader ([`read_frame`], and the tokio codec) sets aside ahead of
/// the bytes that have arrived (never more than have arrived, see [`read_ahead`]): a size
/// prefix alone commits no memory for the body it announces, so idle connections that each
/// declared a 100 MiB frame cost next to nothing, while a large frame that is arriving is
/// read in chunks of up to 1 MiB, as a plain relay reads (with 64 KiB chunks a 1 MB frame
/// took 16 reads and most of a proxy's CPU beyond the relay's).
pub const READ_CHUNK_MAX: usize = 1024 * 1024;

/// The smallest chunk a frame reader sets aside while a body arrives.
pub const READ_CHUNK_MIN: usize = 4 * 1024;

/// How many bytes to set aside next while reading a frame of which `received` bytes have
/// arrived and `left` are still to come: as many as have arrived, between
/// [`READ_CHUNK_MIN`] and [`READ_CHUNK_MAX`], and never more than are left.
#[inline]
pub fn read_ahead(received: usize, left: usize) -> usize {
    received.clamp(READ_CHUNK_MIN, READ_CHUNK_MAX).min(left)
}

/// Reads one whole frame (prefix included) from a blocking reader.
///
/// The size prefix is checked against the frame size limit of `options` before anything
/// else is read. The body is
/// read in chunks that grow with the bytes received (see [`read_ahead`]), so a peer that
/// announces a large frame and sends nothing more holds a few KiB, not the announced size;
/// the chunks are joined once the whole frame is there. End of input before the first byte
/// is `ErrorKind::UnexpectedEof`, and so is end of input inside the frame.
pub fn read_frame<R: io::Read + ?Sized>(r: &mut R, options: &DecodeOptions) -> io::Result<Bytes> {
    let mut prefix = [0u8; 4];
    r.read_exact(&mut prefix)?;
    let total = frame_len(&prefix, options.limits.frame_size())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?
        .unwrap_or(4);
    // The first chunk holds the prefix too, so that a small frame is one allocation.
    let first = read_ahead(0, total - 4);
    let mut chunk = Vec::with_capacity(4 + first);
    chunk.extend_from_slice(&prefix);
    chunk.resize(4 + first, 0);
    r.read_exact(chunk.get_mut(4..).unwrap_or_default())?;
    let mut received = chunk.len();
    if received == total {
        return Ok(Bytes::from(chunk));
    }
    let mut chunks = vec![chunk];
    while received < total {
        let mut chunk = vec![0u8; read_ahead(received, total - received)];
        r.read_exact(&mut chunk)?;
        received += chunk.len();
        chunks.push(chunk);
    }
    Ok(Bytes::from(chunks.concat()))
}

/// Writes a request frame to a blocking writer, with `write_vectored`: long `bytes` and
/// `records` values go to the writer from where they are, not through a copy (see
/// [`encode_request_vectored`]).
pub fn write_request<M: ApiMessage, W: io::Write + ?Sized>(
    w: &mut W,
    header: &RequestHeader,
    body: &M,
) -> io::Result<()> {
    let mut out = Vectored::new();
    encode_request_vectored(&mut out, header, body)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    out.write_to(w)
}

/// Writes a response frame to a blocking writer, with `write_vectored` (see
/// [`write_request`]).
pub fn write_response<M: ApiMessage, W: io::Write + ?Sized>(
    w: &mut W,
    header: &ResponseHeader,
    version: Version,
    body: &M,
) -> io::Result<()> {
    let mut out = Vectored::new();
    encode_response_vectored(&mut out, header, version, body)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    out.write_to(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peek_error_path_is_outermost_first() {
        // A frame that ends inside request_api_version.
        let frame = Bytes::from_static(&[0, 0, 0, 3, 0, 24, 0]);
        let e = peek_request(&frame).unwrap_err();
        assert_eq!(e.path().to_string(), "header.request_api_version");
        assert_eq!(e.offset(), 6);
    }

    #[test]
    fn peeks_read_fixed_offsets() {
        // ApiVersions v0 request, correlation id 1, client id "a" (header v1).
        let req = Bytes::from_static(b"\x00\x00\x00\x0b\x00\x12\x00\x00\x00\x00\x00\x01\x00\x01a");
        let p = peek_request_header(&req).unwrap();
        assert_eq!((p.api_key, p.api_version, p.correlation_id), (18, 0, 1));
        // A response: size, correlation id 0x01020304, then anything.
        let resp = Bytes::from_static(b"\x00\x00\x00\x05\x01\x02\x03\x04\x00");
        assert_eq!(peek_response(&resp).unwrap(), 0x0102_0304);
        // Cut inside the correlation id: an error naming it, at its offset.
        let cut = Bytes::from_static(b"\x00\x00\x00\x02\x01\x02");
        let e = peek_response(&cut).unwrap_err();
        assert_eq!(e.path().to_string(), "header.correlation_id");
        assert_eq!(e.offset(), 4);
        let e = peek_request_header(&req.slice(..10)).unwrap_err();
        assert_eq!(e.path().to_string(), "header.correlation_id");
        assert_eq!(e.offset(), 8);
        // declared_len on a frame in hand: a missing prefix is an error, not "not yet".
        assert_eq!(declared_len(&req, DEFAULT_MAX_FRAME_SIZE).unwrap(), 15);
        assert!(declared_len(&req[..3], DEFAULT_MAX_FRAME_SIZE).is_err());
    }
}
