//! Writers and sizes of Kafka's primitive encodings (Java's `ByteUtils`; ARCHITECTURE.md, *Primitives*).
//!
//! Readers live on [`Reader`](crate::Reader); these are their inverses. The varint readers
//! underneath it are here too, crate-private: the records reader reads with them as well.

use bytes::BufMut;

/// Why a varint could not be read from a slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VarintError {
    /// The slice ended inside it.
    Eof,
    /// A continuation bit on its last allowed byte (the 5th of a varint, the 10th of a
    /// varlong).
    TooLong,
}

/// The unsigned varint at the start of `b` as Java's `ByteUtils.readUnsignedVarint` reads it,
/// and the bytes it takes: at most 5 bytes, bits of the 5th beyond 32 dropped. The one
/// varint reader: [`Reader`](crate::Reader) adds its canonical-form check on top, and the
/// records reader (whose fast paths take the one- and two-byte forms) calls it for the rest.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn uvarint_at(b: &[u8]) -> Result<(u32, usize), VarintError> {
    let mut v = 0u32;
    for i in 0..5 {
        let &x = b.get(i).ok_or(VarintError::Eof)?;
        v |= u32::from(x & 0x7f).wrapping_shl(7 * i as u32);
        if x < 0x80 {
            return Ok((v, i + 1));
        }
    }
    Err(VarintError::TooLong)
}

/// The unsigned varlong at the start of `b` as Java's `ByteUtils.readUnsignedVarlong` reads
/// it, and the bytes it takes: at most 10 bytes, bits of the 10th beyond 64 dropped.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn uvarlong_at(b: &[u8]) -> Result<(u64, usize), VarintError> {
    let mut v = 0u64;
    for i in 0..10 {
        let &x = b.get(i).ok_or(VarintError::Eof)?;
        v |= u64::from(x & 0x7f).wrapping_shl(7 * i as u32);
        if x < 0x80 {
            return Ok((v, i + 1));
        }
    }
    Err(VarintError::TooLong)
}

/// Bytes an unsigned varint of `v` takes (1 to 5).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub const fn uvarint_size(v: u32) -> usize {
    // 1 byte per started group of 7 bits; 0 takes one byte. (9 * bits + 64) / 64 is
    // bits.div_ceil(7) for 1..=64 bits, with a multiply-add and a shift where the division
    // by 7 took a multiply-high and a fix-up (`size` takes this once per length, count and
    // tagged section: AddPartitionsToTxn v3 response 200x50 size 307K -> 188K instructions).
    let bits = 32 - (v | 1).leading_zeros() as usize;
    (9 * bits + 64) / 64
}

/// Bytes an unsigned varlong of `v` takes (1 to 10).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub const fn uvarlong_size(v: u64) -> usize {
    let bits = 64 - (v | 1).leading_zeros() as usize;
    (9 * bits + 64) / 64
}

/// Writes an unsigned LEB128 varint.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub fn put_uvarint<B: BufMut + ?Sized>(buf: &mut B, v: u32) {
    // The one-byte form (lengths, counts, tags) inline; the rest out of line.
    if v < 0x80 {
        buf.put_u8(v as u8);
    } else {
        put_uvarint_long(buf, v);
    }
}

#[inline(never)]
fn put_uvarint_long<B: BufMut + ?Sized>(buf: &mut B, mut v: u32) {
    let mut tmp = [0u8; 5];
    let mut n = 0;
    while v >= 0x80 {
        tmp[n] = (v as u8) | 0x80;
        v >>= 7;
        n += 1;
    }
    tmp[n] = v as u8;
    buf.put_slice(&tmp[..=n]);
}

/// Writes an unsigned LEB128 varlong.
pub fn put_uvarlong<B: BufMut + ?Sized>(buf: &mut B, mut v: u64) {
    let mut tmp = [0u8; 10];
    let mut n = 0;
    while v >= 0x80 {
        tmp[n] = (v as u8) | 0x80;
        v >>= 7;
        n += 1;
    }
    tmp[n] = v as u8;
    buf.put_slice(&tmp[..=n]);
}

/// Zigzag-encodes an `i32` (records' varint).
#[inline(always)]
pub const fn zigzag32(n: i32) -> u32 {
    ((n << 1) ^ (n >> 31)) as u32
}

/// Zigzag-encodes an `i64` (records' varlong).
#[inline(always)]
pub const fn zigzag64(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

/// Decodes a zigzag-encoded `i32` (records' varint): the inverse of [`zigzag32`].
#[inline(always)]
pub(crate) const fn unzigzag32(u: u32) -> i32 {
    ((u >> 1) as i32) ^ -((u & 1) as i32)
}

/// Decodes a zigzag-encoded `i64` (records' varlong): the inverse of [`zigzag64`].
#[inline(always)]
pub(crate) const fn unzigzag64(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

/// Writes a zigzag signed varint.
pub fn put_varint<B: BufMut + ?Sized>(buf: &mut B, n: i32) {
    put_uvarint(buf, zigzag32(n));
}

/// Writes a zigzag signed varlong.
pub fn put_varlong<B: BufMut + ?Sized>(buf: &mut B, n: i64) {
    put_uvarlong(buf, zigzag64(n));
}

/// Bytes a zigzag varint of `n` takes.
pub const fn varint_size(n: i32) -> usize {
    uvarint_size(zigzag32(n))
}

/// Bytes a zigzag varlong of `n` takes.
pub const fn varlong_size(n: i64) -> usize {
    uvarlong_size(zigzag64(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reader;
    use bytes::Bytes;

    fn enc(v: u32) -> Vec<u8> {
        let mut out = Vec::new();
        put_uvarint(&mut out, v);
        out
    }

    fn dec(bytes: &[u8]) -> Result<(u32, usize), crate::DecodeError> {
        let b = Bytes::copy_from_slice(bytes);
        let mut r = Reader::new(&b);
        let v = r.read_uvarint()?;
        Ok((v, r.position()))
    }

    // Expected bytes written by hand from LEB128 (ARCHITECTURE.md, *Primitives*).
    #[test]
    fn uvarint_vectors() {
        let cases: &[(u32, &[u8])] = &[
            (0, &[0x00]),
            (1, &[0x01]),
            (127, &[0x7f]),
            (128, &[0x80, 0x01]),
            (300, &[0xac, 0x02]),
            (16_383, &[0xff, 0x7f]),
            (16_384, &[0x80, 0x80, 0x01]),
            (0x7fff_ffff, &[0xff, 0xff, 0xff, 0xff, 0x07]),
            (u32::MAX, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
        ];
        for &(v, bytes) in cases {
            assert_eq!(enc(v), bytes, "encode {v}");
            assert_eq!(uvarint_size(v), bytes.len(), "size {v}");
            assert_eq!(dec(bytes).unwrap(), (v, bytes.len()), "decode {v}");
        }
    }

    #[test]
    fn varint_sizes_at_every_boundary() {
        // A varint carries 7 bits per byte: the size steps up at 2^7, 2^14, 2^21, 2^28...
        for bits in 0..=64u32 {
            let expected = if bits == 0 {
                1
            } else {
                bits.div_ceil(7) as usize
            };
            let v = if bits == 0 { 0 } else { 1u64 << (bits - 1) };
            let w = if bits == 0 {
                0
            } else {
                u64::MAX >> (64 - bits)
            };
            assert_eq!(uvarlong_size(v), expected, "2^{}", bits.saturating_sub(1));
            assert_eq!(uvarlong_size(w), expected, "2^{bits}-1");
            if bits <= 32 {
                assert_eq!(uvarint_size(v as u32), expected);
                assert_eq!(uvarint_size(w as u32), expected);
            }
        }
    }

    #[test]
    fn uvarint_overlong_and_truncated() {
        // A 5th byte with the continuation bit is Kafka's "Varint is too long".
        let e = dec(&[0xff, 0xff, 0xff, 0xff, 0x80, 0x00]).unwrap_err();
        assert_eq!(
            e.kind(),
            &crate::DecodeErrorKind::VarintTooLong { max_bytes: 5 }
        );
        assert_eq!(e.offset(), 0);
        // Non-minimal forms would not re-encode byte-exact: rejected.
        let e = dec(&[0x80, 0x00]).unwrap_err();
        assert_eq!(e.kind(), &crate::DecodeErrorKind::NonCanonicalVarint);
        // Running out of input inside the varint.
        let e = dec(&[0x80, 0x80]).unwrap_err();
        assert!(matches!(e.kind(), crate::DecodeErrorKind::Truncated { .. }));
        assert_eq!(e.offset(), 0);
        // Bits above 31 in the 5th byte: Kafka drops them; we reject (not lossless).
        let e = dec(&[0xff, 0xff, 0xff, 0xff, 0x7f]).unwrap_err();
        assert_eq!(e.kind(), &crate::DecodeErrorKind::NonCanonicalVarint);
    }

    #[test]
    fn zigzag_vectors() {
        // From the protobuf/Kafka zigzag definition: 0→0, -1→1, 1→2, -2→3.
        for (n, z) in [
            (0, 0u32),
            (-1, 1),
            (1, 2),
            (-2, 3),
            (i32::MAX, u32::MAX - 1),
            (i32::MIN, u32::MAX),
        ] {
            assert_eq!(zigzag32(n), z);
            assert_eq!(unzigzag32(z), n);
            let mut out = Vec::new();
            put_varint(&mut out, n);
            assert_eq!(out.len(), varint_size(n));
            let b = Bytes::from(out);
            assert_eq!(Reader::new(&b).read_varint().unwrap(), n);
        }
        for (n, z) in [
            (0i64, 0u64),
            (-1, 1),
            (1, 2),
            (i64::MAX, u64::MAX - 1),
            (i64::MIN, u64::MAX),
        ] {
            assert_eq!(zigzag64(n), z);
            assert_eq!(unzigzag64(z), n);
        }
        for n in [0i64, -1, 1, i64::MAX, i64::MIN, 1 << 40] {
            let mut out = Vec::new();
            put_varlong(&mut out, n);
            assert_eq!(out.len(), varlong_size(n));
            let b = Bytes::from(out);
            assert_eq!(Reader::new(&b).read_varlong().unwrap(), n);
        }
        // varlong max is 10 bytes; an 11-byte form is too long.
        let b = Bytes::from(vec![0xffu8; 11]);
        assert!(Reader::new(&b).read_varlong().is_err());
    }

    /// The shared readers read as Java's `ByteUtils.readUnsignedVarint` / `readVarlong` do
    /// (Kafka's `ByteUtilsTest` cases): the longest forms, bits past the type dropped, a
    /// continuation bit on the last allowed byte refused, a short slice refused; `Reader`
    /// refuses the non-canonical forms on top (they would not re-encode to the same bytes).
    #[test]
    fn shared_varint_readers_read_as_java() {
        assert_eq!(uvarint_at(&[0x00]), Ok((0, 1)));
        assert_eq!(uvarint_at(&[0x96, 0x01, 0xaa]), Ok((150, 2)));
        assert_eq!(
            uvarint_at(&[0xff, 0xff, 0xff, 0xff, 0x0f]),
            Ok((u32::MAX, 5))
        );
        // Java keeps the low 4 bits of a 5th byte: `value |= b << 28` in an int.
        assert_eq!(
            uvarint_at(&[0xff, 0xff, 0xff, 0xff, 0x7f]),
            Ok((u32::MAX, 5))
        );
        assert_eq!(uvarint_at(&[0x80, 0x00]), Ok((0, 2)));
        assert_eq!(
            uvarint_at(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
            Err(VarintError::TooLong)
        );
        assert_eq!(uvarint_at(&[0x80, 0x80]), Err(VarintError::Eof));
        assert_eq!(uvarint_at(&[]), Err(VarintError::Eof));
        let mut max = [0xffu8; 10];
        max[9] = 0x01;
        assert_eq!(uvarlong_at(&max), Ok((u64::MAX, 10)));
        max[9] = 0x7f;
        assert_eq!(uvarlong_at(&max), Ok((u64::MAX, 10)));
        assert_eq!(uvarlong_at(&[0xff; 11]), Err(VarintError::TooLong));
        assert_eq!(uvarlong_at(&[0xff; 9]), Err(VarintError::Eof));
        for strictly_refused in [&[0x80u8, 0x00][..], &[0xff, 0xff, 0xff, 0xff, 0x7f]] {
            let b = Bytes::copy_from_slice(strictly_refused);
            let e = Reader::new(&b).read_uvarint().unwrap_err();
            assert_eq!(e.kind(), &crate::DecodeErrorKind::NonCanonicalVarint);
            assert_eq!(e.offset(), 0);
        }
    }
}
