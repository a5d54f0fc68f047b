// A hand-written `impl Field` without the (empty) impl of the hidden hooks: one error, which
// says what to add.
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

fn main() {}
