// A hand-written type's hooks overriding one by the signature it had before it was sealed:
// refused, so a user cannot replace the array readers' internals by accident.
use kafka_wire::bytes::BufMut;
use kafka_wire::{Cx, DecodeError, EncodeError, Field, KafkaType, Reader};

struct Celsius(i32);

impl Field for Celsius {
    const KAFKA_TYPE: KafkaType = KafkaType::Int32;

    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
        self.0.write(buf, cx)
    }

    fn size(&self, cx: Cx) -> usize {
        self.0.size(cx)
    }

    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        i32::read(r, cx).map(Celsius)
    }
}

impl kafka_wire::__private::FieldHooks for Celsius {
    fn read_discard(r: &mut Reader<'_>, cx: Cx) -> Result<(), DecodeError> {
        Self::read(r, cx).map(drop)
    }
}

fn main() {}
