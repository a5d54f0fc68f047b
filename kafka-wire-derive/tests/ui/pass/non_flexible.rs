//! A non-flexible struct, a field-level `flexible = "none"`, and a hand-written `Field`.

use kafka_wire::{
    Bytes, Cx, DecodeError, EncodeError, Field, KafkaMessage, KafkaType, Reader, Str,
    UnknownTaggedFields,
};

/// A newtype stored as an int16, as users write for enums.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Acks(i16);

// The hidden hooks every `Field` has: their defaults.
impl kafka_wire::__private::FieldHooks for Acks {}

impl Field for Acks {
    const KAFKA_TYPE: KafkaType = <i16 as Field>::KAFKA_TYPE;
    fn write<B: kafka_wire::bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
        cx: Cx,
    ) -> Result<(), EncodeError> {
        self.0.write(buf, cx)
    }
    fn size(&self, cx: Cx) -> usize {
        self.0.size(cx)
    }
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        i16::read(r, cx).map(Acks)
    }
}

#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0-2", flexible = "none")]
struct Legacy {
    #[kafka(versions = "0+", default = "0x7f")]
    acks: i16,
    #[kafka(versions = "1+")]
    mode: Acks,
}

#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0-1", flexible = "0+")]
struct Mixed {
    /// Always a classic (non-compact) string, even in flexible versions.
    #[kafka(versions = "0+", flexible = "none")]
    name: Str,
    #[kafka(versions = "0+")]
    id: Str,
    unknown_tagged_fields: UnknownTaggedFields,
}

fn main() {
    let l = Legacy {
        acks: 1,
        mode: Acks(-1),
    };
    assert_eq!(Legacy::default().acks, 0x7f);
    assert_eq!(l.encode_to_vec(1).unwrap(), b"\x00\x01\xff\xff");
    assert_eq!(
        Legacy::decode_exact(&Bytes::from_static(b"\x00\x01\xff\xff"), 1).unwrap(),
        l
    );
    assert!(l.encode_to_vec(0).is_err(), "`mode` is absent in v0");

    let m = Mixed {
        name: "ab".into(),
        id: "c".into(),
        ..Default::default()
    };
    // int16 length for `name`, compact length for `id`, empty tagged section.
    let bytes = m.encode_to_vec(0).unwrap();
    assert_eq!(bytes, b"\x00\x02ab\x02c\x00");
    assert_eq!(Mixed::decode_exact(&Bytes::from(bytes), 0).unwrap(), m);
}
