//! The traits the derive implements, and their entry points.

use core::cell::RefCell;

use bytes::{BufMut, Bytes};

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::field::context::Cx;
use crate::field::traits::{Field, Sealed};
use crate::meta::{ApiKind, StructMeta};
use crate::vectored::Vectored;
use crate::{Reader, Version, VersionRange};

/// [`Field::size`] of a message whose arrays are not all empty (see
/// [`KafkaMessage::encoded_size`]): its own function, so that the inline path of
/// `encoded_size` holds no loop.
#[cfg_attr(not(debug_assertions), inline(never))]
fn size_outlined<T: Field>(v: &T, cx: Cx) -> usize {
    v.size(cx)
}

/// A struct declared with `#[derive(KafkaMessage)]`: encodable, decodable and sized at each of
/// its versions, with static metadata.
pub trait KafkaMessage: Field + Default {
    /// The struct's description: name, versions, fields.
    const META: &'static StructMeta;

    /// Writes the struct at `version`.
    ///
    /// Fails where Kafka's generated code throws: a version outside the struct's versions, a
    /// non-default value in a non-ignorable field that `version` does not have, null where
    /// the version is not nullable, a string over 32767 bytes, a length above its prefix's
    /// maximum, unknown tagged fields at a non-flexible version or out of order.
    ///
    /// All or nothing, into every buffer, and never a panic: on any error `buf` is exactly as
    /// it was. A `Vec<u8>` (and an empty `BytesMut` of 16 KiB or more, whose storage is lent
    /// as one) is written in place and truncated back on error; any other buffer (a smaller
    /// or non-empty `BytesMut`, a `&mut [u8]`, a `Limit`, a `BufMut` of your own, see
    /// [`EncodeBuf`]) gets the message through a per-thread scratch vector, copied in with
    /// one `put_slice` only once all of it encoded and if it fits (else `BufferTooSmall`,
    /// nothing written).
    fn encode<B: EncodeBuf + ?Sized>(
        &self,
        buf: &mut B,
        version: Version,
    ) -> Result<(), EncodeError> {
        match buf.as_vec(Sealed::TOKEN) {
            Some(out) => write_in_place(self, out, version),
            // Through a trait object: the struct's `write` is compiled for `Vec<u8>` only,
            // whatever buffers a program encodes into.
            None => put_staged_message(buf, self, version),
        }
    }

    /// Appends the struct at `version` to a growable buffer; on any error the buffer is
    /// restored to its previous length (as [`encode`](Self::encode) does for every buffer).
    fn encode_append<B: Rewind + ?Sized>(
        &self,
        buf: &mut B,
        version: Version,
    ) -> Result<(), EncodeError> {
        self.encode(buf, version)
    }

    /// The exact number of bytes [`encode`](Self::encode) writes at `version`.
    ///
    /// At a version outside the struct's versions, where `encode` fails, this is 0 (see
    /// [`try_encoded_size`](Self::try_encoded_size) for an error instead).
    fn encoded_size(&self, version: Version) -> usize {
        if !Self::META.versions.contains(version) {
            return 0;
        }
        // A message whose arrays are empty is sized inline, with its loops folded away
        // (LLVM knows the counts are 0 on this path), so it saves no callee-saved registers
        // for them; any other is sized by one out-of-line copy, reached by a tail call.
        if self.sizes_trivially(Sealed::TOKEN) {
            self.size(Cx::new(version))
        } else {
            size_outlined(self, Cx::new(version))
        }
    }

    /// [`encoded_size`](Self::encoded_size), or `UnsupportedVersion` at a version outside the
    /// struct's versions.
    fn try_encoded_size(&self, version: Version) -> Result<usize, EncodeError> {
        if Self::META.versions.contains(version) {
            Ok(self.encoded_size(version))
        } else {
            Err(EncodeError::new(EncodeErrorKind::UnsupportedVersion {
                name: Self::META.name,
                version,
            }))
        }
    }

    /// Encodes into a new vector of exactly the right capacity (written to a per-thread
    /// scratch vector, then copied: one allocation, no size pass).
    fn encode_to_vec(&self, version: Version) -> Result<Vec<u8>, EncodeError> {
        staged_to_vec(self, version)
    }

    /// Appends the struct at `version` to `out` with every `bytes` or `records` value of
    /// [`VECTORED_MIN`](crate::VECTORED_MIN) bytes or more referenced (a clone of its
    /// [`Bytes`], no copy of the payload) rather than written: the segments are then given to
    /// the socket in one `write_vectored` ([`Vectored::write_to`]). The bytes they stand for
    /// are exactly those of [`encode`](Self::encode). All or nothing, as `encode`.
    fn encode_vectored(&self, out: &mut Vectored, version: Version) -> Result<(), EncodeError> {
        vectored_message(out, self, version)
    }

    /// Reads the struct at `version` from the reader's position.
    fn decode(r: &mut Reader<'_>, version: Version) -> Result<Self, DecodeError> {
        match Self::read(r, Cx::new(version)) {
            Ok(v) => Ok(v),
            Err(e) => Err(rooted(e, Self::META)),
        }
    }

    /// Reads the struct at `version` from the whole of `buf`; bytes left over are an error.
    ///
    /// Strings, bytes, and integer arrays over 23 bytes, in the result share `buf` (no
    /// copy); shorter integer arrays are copied into the value (no allocation either way).
    fn decode_exact(buf: &Bytes, version: Version) -> Result<Self, DecodeError> {
        let mut r = Reader::new(buf);
        // One match from `decode`'s result to ours, as `decode` itself is written: with the
        // value taken out (`?`) and put back after the test, it was assembled on the stack
        // and copied out whole, a `memcpy` whose wide loads waited on the narrow stores just
        // made (40% of a small message's decode).
        match Self::decode(&mut r, version) {
            Ok(v) if r.is_empty() => Ok(v),
            Ok(v) => Err(trailing(v, &r)),
            Err(e) => Err(e),
        }
    }

    /// [`decode_exact`](Self::decode_exact) from a borrowed slice, which is copied first
    /// (values in the result that would share `buf` share the copy). Use `decode_exact` with
    /// a [`Bytes`] you already hold to avoid the copy.
    fn decode_exact_slice(buf: &[u8], version: Version) -> Result<Self, DecodeError> {
        Self::decode_exact(&Bytes::copy_from_slice(buf), version)
    }

    /// Encodes into a new [`Bytes`] of exactly the right size.
    fn encode_to_bytes(&self, version: Version) -> Result<Bytes, EncodeError> {
        self.encode_to_vec(version).map(Bytes::from)
    }
}

/// `e` with the message's name at the root of its path: out of line and not generic, so
/// each message's `decode` holds one call on its error path.
#[cold]
#[inline(never)]
fn rooted(e: DecodeError, meta: &'static StructMeta) -> DecodeError {
    e.in_root(meta.name)
}

/// The error for the bytes left after a decoded value, which is dropped (out of line: the
/// drop is the only code here that depends on `M`).
#[cold]
#[inline(never)]
fn trailing<M>(v: M, r: &Reader<'_>) -> DecodeError {
    drop(v);
    r.error(DecodeErrorKind::TrailingBytes(r.remaining()))
}

/// Fails with `BufferTooSmall` unless `buf` has room for `needed` more bytes: `BufMut`'s
/// writes panic on a full fixed buffer, so an encode checks first.
#[inline]
pub(crate) fn check_room<B: BufMut + ?Sized>(buf: &B, needed: usize) -> Result<(), EncodeError> {
    let available = buf.remaining_mut();
    if available < needed {
        return Err(EncodeError::new(EncodeErrorKind::BufferTooSmall {
            needed,
            available,
        }));
    }
    Ok(())
}

/// Writes `m` at the end of a vector, which is truncated back to its length (and its
/// capacity) on error.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn write_in_place<M: KafkaMessage>(
    m: &M,
    out: &mut Vec<u8>,
    version: Version,
) -> Result<(), EncodeError> {
    let (start, capacity) = (out.len(), out.capacity());
    // `match`, not `map_err`: a closure is one more function per message.
    match m.write_vec(out, Cx::new(version), Sealed::TOKEN) {
        Ok(()) => Ok(()),
        Err(e) => {
            // Back to its length and to the room it had (a write that grew the vector before
            // failing would otherwise leave it larger): a failed encode leaves no trace.
            out.truncate(start);
            out.shrink_to(capacity);
            Err(e.in_root(M::META.name))
        }
    }
}

/// A message's encode into a vector, as a trait object, so that the staging code below is
/// compiled once per buffer type, not once per message and buffer type.
trait EncodeVec {
    /// [`KafkaMessage::encode`] into a vector (in place, all or nothing).
    fn encode_vec(&self, out: &mut Vec<u8>, version: Version) -> Result<(), EncodeError>;
}

impl<M: KafkaMessage> EncodeVec for M {
    #[inline]
    fn encode_vec(&self, out: &mut Vec<u8>, version: Version) -> Result<(), EncodeError> {
        // The same function as an encode into a `Vec<u8>`, not a second copy of it.
        self.encode(out, version)
    }
}

/// [`KafkaMessage::encode`] into a buffer other than a `Vec<u8>`: in the buffer's own storage
/// when it lends it ([`EncodeBuf::with_vec`]), else staged ([`put_staged`]).
fn put_staged_message<B: EncodeBuf + ?Sized>(
    buf: &mut B,
    m: &dyn EncodeVec,
    version: Version,
) -> Result<(), EncodeError> {
    let mut write = |s: &mut Vec<u8>| m.encode_vec(s, version);
    match buf.with_vec(&mut write, Sealed::TOKEN) {
        Some(res) => res,
        None => stage_into(buf, &mut write),
    }
}

/// The staging of [`put_staged`] and [`put_staged_message`]: `write` on the scratch vector,
/// then its bytes into `buf` with one `put_slice` if they all fit. Generic only over the
/// buffer, so it is compiled once per buffer type.
fn stage_into<B: BufMut + ?Sized>(
    buf: &mut B,
    write: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    with_scratch(&mut |s| {
        write(s)?;
        check_room(buf, s.len())?;
        buf.put_slice(s);
        Ok(())
    })
}

/// [`KafkaMessage::encode_vectored`]: not generic at all, the message's `Vec` encode run on
/// the head.
fn vectored_message(
    out: &mut Vectored,
    m: &dyn EncodeVec,
    version: Version,
) -> Result<(), EncodeError> {
    out.append(&mut |head| m.encode_vec(head, version))
}

/// [`KafkaMessage::encode_to_vec`]: not generic at all.
fn staged_to_vec(m: &dyn EncodeVec, version: Version) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    with_scratch(&mut |s| {
        m.encode_vec(s, version)?;
        out = s.as_slice().to_vec();
        Ok(())
    })?;
    Ok(out)
}

/// A buffer that messages and frames encode into, all or nothing.
///
/// A `Vec<u8>` is written in place and truncated back on error, and so is an empty `BytesMut`
/// of 16 KiB or more (its storage lent as a `Vec<u8>`). Every other buffer is given the encoded
/// bytes with one `put_slice`, after they were all written to a per-thread scratch vector and
/// only if it has room for them ([`put_staged`]): a `BytesMut` holding bytes, a `&mut [u8]`,
/// bytes' `Limit` and `Chain`, and a `BufMut` of your own once you declare it with `impl
/// EncodeBuf for MyBuf {}` (the provided method is that staging). `&mut B` and `Box<B>` encode
/// as `B` does.
///
/// So each message's `write` is compiled once, for `Vec<u8>`, whatever buffers a program
/// encodes into; the price for the other buffers is one copy of the encoded bytes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a buffer kafka-wire encodes into",
    label = "`{Self}` does not implement `kafka_wire::EncodeBuf`",
    note = "for a `BufMut` of your own, add `impl kafka_wire::EncodeBuf for {Self} {{}}`: encodes into it are then staged in a scratch vector and copied in only when they succeed"
)]
pub trait EncodeBuf: BufMut {
    /// Implementation detail, hidden: the buffer as a `Vec<u8>` to write in place, or `None`
    /// (the default). Sealed (the token only this crate makes): a user's `impl EncodeBuf`
    /// cannot override it.
    #[doc(hidden)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn as_vec(&mut self, _: Sealed) -> Option<&mut Vec<u8>> {
        None
    }

    /// Implementation detail, hidden: runs `write` on the buffer's own storage lent as a
    /// `Vec<u8>` when that costs no copy, or `None` (the default: staged). Sealed, as
    /// `as_vec`.
    #[doc(hidden)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn with_vec(
        &mut self,
        write: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), EncodeError>,
        _: Sealed,
    ) -> Option<Result<(), EncodeError>> {
        let _ = write;
        None
    }
}

impl EncodeBuf for Vec<u8> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn as_vec(&mut self, _: Sealed) -> Option<&mut Vec<u8>> {
        Some(self)
    }
}

/// The least capacity an empty `BytesMut` must have to be written in place (see its
/// `EncodeBuf` impl): lending its storage costs about 210 instructions (the way back from a
/// `Vec<u8>` goes through `Bytes`, which allocates and frees a small header), what copying
/// some kilobytes through the scratch vector costs, so a small buffer, which holds only
/// small messages, is staged.
const IN_PLACE_MIN: usize = 16 * 1024;

/// An empty `BytesMut` of 16 KiB or more (`IN_PLACE_MIN`) lends its storage as a `Vec<u8>`
/// (both conversions move the allocation, no bytes are copied), which the message's `Vec`
/// encode writes in place: no staging copy, and no second copy of every struct's `write`.
/// A `BytesMut` holding bytes is staged, as turning it into a vector would move those bytes
/// to the front.
impl EncodeBuf for bytes::BytesMut {
    fn with_vec(
        &mut self,
        write: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), EncodeError>,
        _: Sealed,
    ) -> Option<Result<(), EncodeError>> {
        if !self.is_empty() || self.capacity() < IN_PLACE_MIN {
            return None;
        }
        let capacity = self.capacity();
        let mut v = Vec::from(core::mem::take(self));
        // A storage shared with `Bytes` split off it comes back as a new, empty vector: give
        // it the room the buffer had, as a `reserve` on the buffer would.
        v.reserve(capacity);
        let res = write(&mut v);
        if res.is_err() {
            // `write` truncated it; the room it grew goes too, so the buffer keeps the
            // capacity it had (a failed 64 KiB encode left 128 KiB).
            v.shrink_to(capacity);
        }
        // Through `Bytes`: it moves the vector's allocation, with one small allocation of
        // its own (freed again at once) when the vector has spare room.
        *self = bytes::BytesMut::from(Bytes::from(v));
        Some(res)
    }
}
impl EncodeBuf for &mut [u8] {}
impl EncodeBuf for &mut [core::mem::MaybeUninit<u8>] {}
impl<T: BufMut> EncodeBuf for bytes::buf::Limit<T> {}
impl<T: BufMut, U: BufMut> EncodeBuf for bytes::buf::Chain<T, U> {}

/// `EncodeBuf` for pointers to one: they encode as what they point to (in place when that is
/// a `Vec<u8>`), as `bytes` forwards `BufMut` through the same pointers.
macro_rules! forward_encode_buf {
    ($($ptr:ty),*) => {$(
        impl<T: EncodeBuf + ?Sized> EncodeBuf for $ptr {
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn as_vec(&mut self, token: Sealed) -> Option<&mut Vec<u8>> {
                (**self).as_vec(token)
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn with_vec(
                &mut self,
                write: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), EncodeError>,
                token: Sealed,
            ) -> Option<Result<(), EncodeError>> {
                (**self).with_vec(write, token)
            }
        }
    )*};
}

forward_encode_buf!(&mut T, Box<T>);

/// Encodes all or nothing into a buffer that cannot be truncated: runs `write` on a scratch
/// vector and appends what it wrote to `buf` with one `put_slice`, only if it succeeded and
/// `buf` has room for all of it (else `BufferTooSmall`, with `needed` the exact size). So an
/// error found while writing (a string too long in the last element of a nested array, say)
/// leaves `buf` untouched, whatever its type.
///
/// The scratch vector is kept per thread and reused, so a steady stream of encodes
/// allocates nothing here; the cost is one copy of the encoded bytes. `Vec<u8>` does not
/// need it (see [`EncodeBuf`]).
#[inline]
pub fn put_staged<B: BufMut + ?Sized>(
    buf: &mut B,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    let mut write = Some(write);
    stage_into(buf, &mut |s| match write.take() {
        Some(w) => w(s),
        None => Err(scratch_lost()),
    })
}

/// The most capacity a thread keeps in its scratch vector between encodes: a larger message
/// gets a fresh vector that is freed afterwards, so one huge encode does not hold its memory
/// for the thread's life.
pub const SCRATCH_KEEP: usize = 4 << 20;

std::thread_local! {
    /// The scratch vector of [`with_scratch`]. An encode nested in another one (a user's
    /// `Field::write` that encodes) finds it borrowed and uses a fresh vector.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on this thread's scratch vector, emptied (see [`put_staged`]); the vector is kept
/// for the next call unless its capacity exceeds [`SCRATCH_KEEP`]. When the shared vector is
/// in use (a nested encode) or thread-local storage is gone (code running in a thread-local
/// destructor), `f` gets a fresh vector. `f` is called exactly once.
///
/// Not generic: `f` is a trait object, so this and the thread-local access are compiled
/// once, not once per message and buffer type.
#[inline(never)]
pub(crate) fn with_scratch(
    f: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    let shared = SCRATCH.try_with(|c| {
        let mut v = c.try_borrow_mut().ok()?;
        v.clear();
        let r = f(&mut v);
        if v.capacity() > SCRATCH_KEEP {
            *v = Vec::new();
        }
        Some(r)
    });
    match shared {
        Ok(Some(r)) => r,
        _ => f(&mut Vec::new()),
    }
}

/// The error of a staged write whose closure was already taken: not reachable, since
/// [`with_scratch`] calls its function once.
#[cold]
#[inline(never)]
fn scratch_lost() -> EncodeError {
    EncodeError::new(EncodeErrorKind::InvalidValue("scratch vector lost"))
}

/// A growable buffer that an encode can shorten back to where it started when it fails:
/// `Vec<u8>` and `BytesMut`.
pub trait Rewind: EncodeBuf {
    /// The bytes in the buffer now.
    fn written(&self) -> usize;
    /// Drops every byte after the first `len`.
    fn rewind(&mut self, len: usize);
}

impl Rewind for Vec<u8> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn written(&self) -> usize {
        self.len()
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn rewind(&mut self, len: usize) {
        self.truncate(len);
    }
}

impl Rewind for bytes::BytesMut {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn written(&self) -> usize {
        self.len()
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn rewind(&mut self, len: usize) {
        self.truncate(len);
    }
}

/// A top-level request or response of a Kafka API (`#[kafka(api_key = N, request)]`).
pub trait ApiMessage: KafkaMessage {
    /// The API key.
    const API_KEY: i16;
    /// Request or response.
    const KIND: ApiKind;

    /// Sets every top-level error code of this response that `version` has (its `int16`
    /// fields Kafka names `…ErrorCode`) to `error`, and returns how many it set: what an error
    /// response needs beyond the defaults. Requests (and responses without one) set none.
    ///
    /// Nested error codes (per topic, per partition) are not touched: which entries an error
    /// response lists depends on the request (see `RequestFrame::error_response` in
    /// `kafka_wire_messages`).
    fn set_error_code(&mut self, version: Version, error: crate::ErrorCode) -> usize {
        let _ = (version, error);
        0
    }

    /// The header version that goes with `version` of this message (Java's `ApiMessageType.requestHeaderVersion`).
    fn header_version(version: Version) -> Version {
        match Self::KIND {
            ApiKind::Request => request_header_version(Self::META.flexible, version),
            ApiKind::Response => {
                response_header_version(Self::API_KEY, Self::META.flexible, version)
            }
        }
    }
}

/// Request header version for an API whose request has `flexible` versions: 2 when flexible,
/// else 1.
pub const fn request_header_version(flexible: VersionRange, version: Version) -> Version {
    if flexible.contains(version) {
        2
    } else {
        1
    }
}

/// The API key of ApiVersions, whose response always uses header v0 (KIP-511).
pub const API_VERSIONS_KEY: i16 = 18;

/// Response header version: 1 when the response version is flexible, else 0; always 0 for
/// ApiVersions.
pub const fn response_header_version(
    api_key: i16,
    flexible: VersionRange,
    version: Version,
) -> Version {
    if api_key != API_VERSIONS_KEY && flexible.contains(version) {
        1
    } else {
        0
    }
}
