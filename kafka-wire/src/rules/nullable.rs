//! Nullable structs: a marker before the struct, int8 -1 (null) or 1 in a regular field, and
//! 0 or 1 in a tagged field's payload (Kafka's `MessageDataGenerator`). Strings, bytes and
//! arrays are null through their length prefix instead (see `field/prefix.rs`).

use bytes::BufMut;

use crate::error::{DecodeError, DecodeErrorKind};
use crate::field::context::Cx;
use crate::Reader;

/// Writes a nullable struct's marker: int8 -1/1 in a regular field, a 0/1 byte in a tagged
/// payload (Java's `MessageDataGenerator`).
#[inline]
pub fn put_struct_marker<B: BufMut + ?Sized>(buf: &mut B, present: bool, cx: Cx) {
    match (present, cx.tagged) {
        (true, _) => buf.put_i8(1),
        (false, true) => buf.put_u8(0),
        (false, false) => buf.put_i8(-1),
    }
}

/// Reads a nullable struct's marker: `true` when a struct follows.
#[inline]
pub fn read_struct_marker(r: &mut Reader<'_>, cx: Cx) -> Result<bool, DecodeError> {
    let at = r.position();
    let b = r.read_i8()?;
    match (b, cx.tagged) {
        (1, _) => Ok(true),
        (0, true) | (-1, false) => Ok(false),
        _ => Err(DecodeError::new(
            DecodeErrorKind::InvalidValue("nullable struct marker"),
            at,
        )),
    }
}
