//! The traits the derive implements, and their entry points.

use bytes::{BufMut, Bytes};

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::field::{Cx, Field};
use crate::meta::{ApiKind, StructMeta};
use crate::{Reader, Version, VersionRange};

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
    /// Never panics, and a bounded buffer gets all or nothing: the room left in `buf` is
    /// checked against the exact size first (a fixed `&mut [u8]` or a `Limit` that is too
    /// small is `BufferTooSmall`, nothing written), then the message is written to a scratch
    /// vector and copied in only once the whole of it encoded. A growable buffer (`Vec<u8>`,
    /// `BytesMut`, any `BufMut` reporting room near `usize::MAX`) is written directly, for
    /// speed, so a failure found while writing leaves the bytes before it there;
    /// [`encode_append`](Self::encode_append) (for `Vec<u8>` and `BytesMut`) and
    /// [`encode_to_vec`](Self::encode_to_vec) leave nothing behind.
    fn encode<B: BufMut + ?Sized>(&self, buf: &mut B, version: Version) -> Result<(), EncodeError> {
        // A growable buffer (`Vec`, `BytesMut`) reports room near `isize::MAX`: only a bounded
        // one needs the size pass and the scratch copy.
        if is_bounded(buf) {
            return put_staged(buf, self.encoded_size(version), |v| {
                self.write(v, Cx::new(version))
            })
            .map_err(|e| e.in_root(Self::META.name));
        }
        // `match`, not `map_err`: a closure is one more function per message and buffer type.
        match self.write(buf, Cx::new(version)) {
            Ok(()) => Ok(()),
            Err(e) => Err(e.in_root(Self::META.name)),
        }
    }

    /// Appends the struct at `version` to a growable buffer; on any error the buffer is
    /// restored to its previous length.
    fn encode_append<B: Rewind>(&self, buf: &mut B, version: Version) -> Result<(), EncodeError> {
        let start = buf.written();
        self.encode(buf, version).inspect_err(|_| buf.rewind(start))
    }

    /// The exact number of bytes [`encode`](Self::encode) writes at `version`.
    ///
    /// At a version outside the struct's versions, where `encode` fails, this is 0 (see
    /// [`try_encoded_size`](Self::try_encoded_size) for an error instead).
    fn encoded_size(&self, version: Version) -> usize {
        if !Self::META.versions.contains(version) {
            return 0;
        }
        self.size(Cx::new(version))
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

    /// Encodes into a new vector of exactly the right capacity.
    fn encode_to_vec(&self, version: Version) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(self.encoded_size(version));
        self.encode(&mut out, version)?;
        Ok(out)
    }

    /// Reads the struct at `version` from the reader's position.
    fn decode(r: &mut Reader<'_>, version: Version) -> Result<Self, DecodeError> {
        match Self::read(r, Cx::new(version)) {
            Ok(v) => Ok(v),
            Err(e) => Err(e.in_root(Self::META.name)),
        }
    }

    /// Reads the struct at `version` from the whole of `buf`; bytes left over are an error.
    ///
    /// Strings and bytes in the result share `buf` (no copy).
    fn decode_exact(buf: &Bytes, version: Version) -> Result<Self, DecodeError> {
        let mut r = Reader::new(buf);
        let v = Self::decode(&mut r, version)?;
        if !r.is_empty() {
            return Err(r.error(DecodeErrorKind::TrailingBytes(r.remaining())));
        }
        Ok(v)
    }

    /// [`decode_exact`](Self::decode_exact) from a borrowed slice, which is copied first
    /// (strings and bytes in the result share the copy). Use `decode_exact` with a [`Bytes`]
    /// you already hold to avoid the copy.
    fn decode_exact_slice(buf: &[u8], version: Version) -> Result<Self, DecodeError> {
        Self::decode_exact(&Bytes::copy_from_slice(buf), version)
    }

    /// Encodes into a new [`Bytes`] of exactly the right size.
    fn encode_to_bytes(&self, version: Version) -> Result<Bytes, EncodeError> {
        self.encode_to_vec(version).map(Bytes::from)
    }
}

/// Room above which a buffer is taken to be growable (`Vec` and `BytesMut` report
/// `isize::MAX` or more less what they hold), and no encoding can be larger.
pub(crate) const ROOMY: usize = usize::MAX / 4;

/// Fails with `BufferTooSmall` unless `buf` has room for `needed` more bytes: `BufMut`'s
/// writes panic on a full fixed buffer, so an encode checks first.
#[inline]
pub fn check_room<B: BufMut + ?Sized>(buf: &B, needed: usize) -> Result<(), EncodeError> {
    let available = buf.remaining_mut();
    if available < needed {
        return Err(EncodeError::new(EncodeErrorKind::BufferTooSmall {
            needed,
            available,
        }));
    }
    Ok(())
}

/// Whether `buf` is bounded (a fixed slice, a `Limit`), rather than growable like `Vec<u8>`
/// and `BytesMut`, which report room near `usize::MAX`. Encodes into a bounded buffer are
/// all or nothing ([`put_staged`]).
#[inline(always)]
pub fn is_bounded<B: BufMut + ?Sized>(buf: &B) -> bool {
    buf.remaining_mut() < ROOMY
}

/// Encodes all or nothing into a bounded buffer: fails with `BufferTooSmall` unless `buf`
/// has room for `needed` bytes (the exact encoded size), then runs `write` on a scratch
/// vector and copies its bytes into `buf` only if it succeeded, so an error found while
/// writing (a string too long in the last element of a nested array, say) leaves `buf`
/// untouched. Costs one allocation and one copy, on bounded buffers only.
pub fn put_staged<B: BufMut + ?Sized>(
    buf: &mut B,
    needed: usize,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    check_room(buf, needed)?;
    let mut staged = Vec::with_capacity(needed);
    write(&mut staged)?;
    // `needed` is exact, so this holds; checked anyway, as `put_slice` panics when full.
    check_room(buf, staged.len())?;
    buf.put_slice(&staged);
    Ok(())
}

/// A growable buffer that an encode can shorten back to where it started when it fails:
/// `Vec<u8>` and `BytesMut`.
pub trait Rewind: BufMut {
    /// The bytes in the buffer now.
    fn written(&self) -> usize;
    /// Drops every byte after the first `len`.
    fn rewind(&mut self, len: usize);
}

impl Rewind for Vec<u8> {
    fn written(&self) -> usize {
        self.len()
    }
    fn rewind(&mut self, len: usize) {
        self.truncate(len);
    }
}

impl Rewind for bytes::BytesMut {
    fn written(&self) -> usize {
        self.len()
    }
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
