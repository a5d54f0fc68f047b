//! A `Field` whose `min_size` is larger than what its `read` consumes breaks the contract
//! that ties an array's reservation to the input. Arrays believe a count only as far as the
//! input could hold that many elements at their minimum and read the rest without keeping
//! them (a count that large cannot decode with honest minimums): with a minimum that lies,
//! those elements decode, and a decode must then fail rather than return the array short.

use bytes::{BufMut, Bytes};
use kafka_wire::{Cx, DecodeError, DecodeErrorKind, EncodeError, Field, KafkaMessage, Reader};

/// One byte on the wire, but claims four.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Overstated(i8);

impl Field for Overstated {
    const KAFKA_TYPE: kafka_wire::KafkaType = kafka_wire::KafkaType::Int8;
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
        self.0.write(buf, cx)
    }
    fn size(&self, _: Cx) -> usize {
        1
    }
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        i8::read(r, cx).map(Overstated)
    }
    fn min_size(_: Cx) -> usize {
        4
    }
}

#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0", flexible = "none")]
struct Direct {
    #[kafka(versions = "0+")]
    items: Vec<Overstated>,
}

/// The overstated type inside the elements of an outer array, whose claims then starve an
/// honest inner array.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0", flexible = "none")]
struct Part {
    #[kafka(versions = "0+")]
    tag: Overstated,
    #[kafka(versions = "0+")]
    numbers: Vec<i16>,
}

#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0", flexible = "none")]
struct Nested {
    #[kafka(versions = "0+")]
    parts: Vec<Part>,
}

fn assert_not_short<M: KafkaMessage + std::fmt::Debug>(m: &M, count: impl Fn(&M) -> usize) {
    let bytes = Bytes::from(m.encode_to_vec(0).unwrap());
    match M::decode_exact(&bytes, 0) {
        Ok(back) => assert_eq!(count(&back), count(m), "decoded short: {back:?}"),
        Err(e) => assert!(matches!(e.kind(), DecodeErrorKind::InvalidValue(_)), "{e}"),
    }
}

#[test]
fn an_array_of_an_overstated_type_is_never_returned_short() {
    let m = Direct {
        items: (0..8).map(Overstated).collect(),
    };
    assert_not_short(&m, |m| m.items.len());
}

#[test]
fn an_honest_array_starved_by_an_overstated_outer_one_is_never_returned_short() {
    let m = Nested {
        parts: vec![
            Part {
                tag: Overstated(1),
                numbers: (0..12).collect(),
            },
            Part {
                tag: Overstated(2),
                numbers: Vec::new(),
            },
            Part {
                tag: Overstated(3),
                numbers: Vec::new(),
            },
        ],
    };
    assert_not_short(&m, |m| m.parts.iter().map(|p| p.numbers.len()).sum());
}
