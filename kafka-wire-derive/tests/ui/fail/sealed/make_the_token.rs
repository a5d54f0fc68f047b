// The token the hidden `FieldHooks` methods take cannot be made outside the runtime crate, so
// user code can neither call those methods nor build the token to pass to them.
use kafka_wire::__private::FieldHooks;
use kafka_wire::{Bytes, Cx, Reader};

fn main() {
    let b = Bytes::from_static(&[0, 0, 0, 1]);
    let mut r = Reader::new(&b);
    let token = kafka_wire::__private::Sealed(());
    let _ = <i32 as FieldHooks>::read_discard(&mut r, Cx::new(0), token);
}
