//! Reads of Kafka's length-prefixed field types on [`Reader`], for parsing what no struct
//! declares: peeking one field of an undeclared API, or a hand-written parser.
//!
//! They follow the same rules as derived fields (the `compact` flag picks the flexible
//! encodings): lengths are checked against the input before anything is allocated, strings
//! must be UTF-8, and errors carry the byte offset.

use crate::error::DecodeError;
use crate::field::context::Cx;
use crate::field::traits::{Field, NullableField};
use crate::types::{Str, UnknownTaggedFields};
use crate::Reader;

/// The context of one value: version 0 (no field read here depends on it).
const fn cx(compact: bool, nullable: bool) -> Cx {
    Cx {
        version: 0,
        compact,
        nullable,
        tagged: false,
    }
}

impl Reader<'_> {
    /// Reads a non-null string: int16 length (`compact`: uvarint length + 1), then UTF-8.
    pub fn read_string(&mut self, compact: bool) -> Result<Str, DecodeError> {
        Str::read(self, cx(compact, false))
    }

    /// Reads a nullable string (length -1, or 0 when `compact`, is null).
    pub fn read_nullable_string(&mut self, compact: bool) -> Result<Option<Str>, DecodeError> {
        Str::read_nullable(self, cx(compact, true))
    }

    /// Reads a nullable byte string (int32 length, or uvarint length + 1 when `compact`),
    /// sharing the input.
    pub fn read_nullable_bytes(
        &mut self,
        compact: bool,
    ) -> Result<Option<crate::Bytes>, DecodeError> {
        crate::Bytes::read_nullable(self, cx(compact, true))
    }

    /// Reads an array's element count: int32 (`compact`: uvarint count + 1); `None` is a
    /// null array. A count larger than the bytes left is an error, as in Kafka, since every
    /// element takes at least one byte, and so is one above the reader's array limit
    /// (both reported at the count, by the same function as derived arrays).
    pub fn read_array_len(&mut self, compact: bool) -> Result<Option<usize>, DecodeError> {
        crate::field::prefix::read_array_prefix(self, compact)
    }

    /// Reads a tagged-field section (flexible versions only), keeping every field as raw
    /// bytes.
    pub fn read_tagged_fields(&mut self) -> Result<UnknownTaggedFields, DecodeError> {
        let mut out = UnknownTaggedFields::new();
        crate::rules::tagged::read_tagged_section(self, &mut out, &mut |_, _| Ok(None))?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use crate::{DecodeErrorKind, Reader};

    // Byte layouts from Kafka's protocol guide: STRING is an int16 length then UTF-8,
    // COMPACT_STRING an unsigned varint of length + 1, NULLABLE_STRING -1 for null,
    // ARRAY an int32 count (-1 null), COMPACT_ARRAY an unsigned varint count + 1 (0 null).
    #[test]
    fn strings_and_arrays_both_encodings() {
        let b = Bytes::from_static(b"\x00\x02hi\x03yo\xff\xff\x00\x00\x00\x00\x02\x00\x01\x02\x07");
        let mut r = Reader::new(&b);
        assert_eq!(r.read_string(false).unwrap(), "hi");
        assert_eq!(r.read_string(true).unwrap(), "yo");
        assert_eq!(r.read_nullable_string(false).unwrap(), None);
        assert_eq!(r.read_nullable_string(true).unwrap(), None);
        assert_eq!(r.read_array_len(false).unwrap(), Some(2));
        assert_eq!(r.read_array_len(true).unwrap(), None);
        assert_eq!(r.read_array_len(true).unwrap(), Some(0));
        assert_eq!(r.read_array_len(true).unwrap(), Some(1));
        assert_eq!(r.read_u8().unwrap(), 7);
        assert!(r.is_empty());
    }

    #[test]
    fn counts_beyond_the_input_and_bad_strings_are_errors_at_their_offset() {
        let b = Bytes::from_static(b"\x00\x00\x00\x05\x00");
        let e = Reader::new(&b).read_array_len(false).unwrap_err();
        assert!(matches!(
            e.kind(),
            DecodeErrorKind::LengthExceedsInput { .. }
        ));
        assert_eq!(e.offset(), 0);
        let b = Bytes::from_static(b"\xff\xff\xff\xfe");
        let e = Reader::new(&b).read_array_len(false).unwrap_err();
        assert_eq!(e.kind(), &DecodeErrorKind::NegativeLength(-2));
        // Not UTF-8: kept as it came by default, an error at its bytes under strict_utf8.
        let b = Bytes::from_static(b"\x00\x01\xff");
        let s = Reader::new(&b).read_string(false).unwrap();
        assert_eq!(s.as_bytes(), b"\xff");
        let strict = crate::DecodeLimits::new().strict_utf8(true);
        let e = Reader::with_limits(&b, &strict)
            .read_string(false)
            .unwrap_err();
        assert!(matches!(e.kind(), DecodeErrorKind::InvalidUtf8(_)));
        assert_eq!(e.offset(), 2);
        // A non-null string read where null is on the wire.
        let b = Bytes::from_static(b"\xff\xff");
        assert!(Reader::new(&b).read_string(false).is_err());
    }

    #[test]
    fn tagged_sections_are_kept_raw() {
        // Two fields: tag 0 with 2 bytes, tag 5 with 0 bytes.
        let b = Bytes::from_static(b"\x02\x00\x02ab\x05\x00");
        let mut r = Reader::new(&b);
        let t = r.read_tagged_fields().unwrap();
        let got: Vec<(u32, &[u8])> = t.iter().map(|f| (f.tag, &f.data[..])).collect();
        assert_eq!(got, vec![(0, &b"ab"[..]), (5, &b""[..])]);
        // Out of order is an error.
        let b = Bytes::from_static(b"\x02\x05\x00\x00\x00");
        assert!(Reader::new(&b).read_tagged_fields().is_err());
    }
}
