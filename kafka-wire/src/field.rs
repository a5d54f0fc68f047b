//! The [`Field`] trait: how one Rust type is put on and taken off the wire.
//!
//! The derive calls these for every field; users implement them for their own newtypes
//! (a `TopicName` wrapper, an enum stored as `int16`) by delegating to a built-in type.

use bytes::{BufMut, Bytes};

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::meta::{FieldMeta, KafkaType, StructMeta};
use crate::primitives::{put_uvarint, uvarint_size};
use crate::rules::skip::skip_struct;
use crate::types::{Records, Str, Uuid};
use crate::vectored::VECTORED_MIN;
use crate::{Limit, Reader, Version, VersionRange};

/// The context one value is written or read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cx {
    /// The message version, passed unchanged to nested structs (as Kafka's generated code does).
    pub version: Version,
    /// Compact (flexible) length prefixes for strings, bytes and arrays.
    pub compact: bool,
    /// Whether null is allowed at this version.
    pub nullable: bool,
    /// Whether the value is the payload of a tagged field (changes a nullable struct's marker).
    pub tagged: bool,
}

impl Cx {
    /// The context of a top-level struct at `version`.
    pub const fn new(version: Version) -> Self {
        Cx {
            version,
            compact: false,
            nullable: false,
            tagged: false,
        }
    }

    /// The context of an array element: same version and compactness, never null.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub const fn element(self) -> Self {
        Cx {
            version: self.version,
            compact: self.compact,
            nullable: false,
            tagged: false,
        }
    }
}

/// The argument of [`FieldHooks`]' methods and of [`EncodeBuf`](crate::EncodeBuf)'s hidden
/// ones (`as_vec`, `with_vec`): only this crate can make one, so only it calls them, and a
/// user's `impl EncodeBuf` (or an override in an `impl FieldHooks`) cannot replace one by
/// accident: the override would have to name this type, which lives in the private module
/// only generated code uses. Implementation detail of the derive, not public API.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Sealed(());

impl Sealed {
    /// The one value, for this crate's callers of the hidden methods.
    pub(crate) const TOKEN: Sealed = Sealed(());
}

mod sealed_buf {
    pub trait Sealed {}
    impl Sealed for Vec<u8> {}
}

/// The buffer of [`FieldHooks::write_vec`]: a `Vec<u8>`, and nothing else (sealed), so
/// that a writer may use what only a vector offers (a fixed-size store then `truncate`) while
/// the method stays generic, compiled only where a message is encoded, as `write` is.
/// Implementation detail of the derive, not public API.
#[doc(hidden)]
pub trait VecBuf: BufMut + sealed_buf::Sealed {
    /// The vector itself.
    fn vec(&mut self) -> &mut Vec<u8>;
}

impl VecBuf for Vec<u8> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn vec(&mut self) -> &mut Vec<u8> {
        self
    }
}

/// A type that can be a field of a derived struct.
///
/// `write` and `size` must agree: `size` is the exact number of bytes `write` puts.
/// `read` must never panic and must not allocate more than the input can justify.
///
/// A type of your own (a newtype, an enum stored as an integer) implements the four required
/// items by delegating to a built-in type, `min_size` and `alloc_ratio` when it must keep the
/// decode's memory bound tight (their defaults are always safe), and, in one more line, the
/// hidden [`FieldHooks`](crate::__private::FieldHooks) with nothing in it: the hooks through
/// which the built-in types and derived structs speed up arrays and encodes, whose defaults
/// are right for every other type.
///
/// ```
/// use kafka_wire::bytes::BufMut;
/// use kafka_wire::{Bytes, Cx, DecodeError, EncodeError, Field, KafkaType, Reader};
///
/// /// A temperature, stored as Kafka's int32.
/// #[derive(Debug, Clone, Copy, Default, PartialEq)]
/// struct Celsius(i32);
///
/// impl Field for Celsius {
///     const KAFKA_TYPE: KafkaType = KafkaType::Int32;
///     fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
///         self.0.write(buf, cx)
///     }
///     fn size(&self, cx: Cx) -> usize {
///         self.0.size(cx)
///     }
///     fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
///         i32::read(r, cx).map(Celsius)
///     }
///     fn min_size(cx: Cx) -> usize {
///         i32::min_size(cx)
///     }
/// }
/// // The hooks' defaults: nothing to write.
/// impl kafka_wire::__private::FieldHooks for Celsius {}
///
/// let mut out = Vec::new();
/// Celsius(-2).write(&mut out, Cx::new(0)).unwrap();
/// assert_eq!(out, [0xff, 0xff, 0xff, 0xfe]);
/// let input = Bytes::from(out);
/// assert_eq!(Celsius::read(&mut Reader::new(&input), Cx::new(0)).unwrap(), Celsius(-2));
/// ```
// A friendlier error than "trait bound not satisfied" for the most common derive mistake; the
// derive puts it on the field's type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of a Kafka message: it implements no Kafka codec",
    label = "not a Kafka type: `{Self}` does not implement `kafka_wire::Field`",
    note = "Kafka types are bool, i8, i16, u16, i32, u32, i64, f64, Str (or String), Bytes, Uuid, Records, Vec<T> of a Kafka type, FixedArray<T> of a fixed-width integer, and structs with #[derive(KafkaMessage)]",
    note = "for a type of your own (a newtype, an enum stored as an integer), implement `kafka_wire::Field` by delegating to one of these"
)]
pub trait Field: FieldHooks {
    /// The Kafka type this Rust type encodes as.
    const KAFKA_TYPE: KafkaType;

    /// Writes the value.
    ///
    /// A write that fails may leave part of the value in `buf`: the encode entry points
    /// ([`KafkaMessage::encode`](crate::KafkaMessage::encode) and the frame encoders) are
    /// the ones that are all or nothing.
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError>;

    /// The exact number of bytes `write` puts.
    fn size(&self, cx: Cx) -> usize;

    /// Reads a value.
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError>;

    /// The fewest bytes a successful [`read`](Self::read) at `cx` consumes (an empty string or
    /// array is its length prefix; a struct is the sum over the fields `cx.version` has, plus
    /// its tagged-field count when flexible).
    ///
    /// An array rejects, before reserving anything, a count whose elements could not fit in
    /// the bytes left at this size each, and reserves exactly the count otherwise: this is
    /// what ties a decode's memory to the input (see [`alloc_ratio`](Self::alloc_ratio)). It
    /// must never exceed what `read` consumes: valid input would be rejected, and an array
    /// of such elements that the input holds at their real size but not at this one may
    /// decode with fewer elements than its count (a logic error in the `impl`, never a
    /// panic or unbounded memory). The default, 0, is always safe, only looser.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size(cx: Cx) -> usize {
        let _ = cx;
        0
    }

    /// The most bytes a [`read`](Self::read) at `cx` allocates per input byte it consumes,
    /// rounded up: for an array, `size_of::<T>() / max(1, T::min_size)` or its elements' own
    /// ratio, whichever is larger; for a struct, the largest ratio of its fields (and of its
    /// unknown tagged fields when flexible). A decode of `n` bytes allocates at most
    /// `k·n + c` bytes where `k` is the message's ratio (see the crate's documentation on
    /// resource limits). The default, 0, is right for a type that allocates nothing.
    #[inline]
    fn alloc_ratio(cx: Cx) -> usize {
        let _ = cx;
        0
    }
}

/// The hooks of [`Field`] that only the built-in types and derived structs fill in: how
/// arrays of them are read and sized at once, how they write into the `Vec<u8>` every
/// message encode writes into, what the derive checks at compile time. A supertrait of
/// `Field`, so that `Field` holds only what a user implements and calls; a user's own type
/// implements it empty (`impl kafka_wire::__private::FieldHooks for MyType {}`), every
/// default being right for it. The methods take the [`Sealed`] token, so only this crate
/// calls them. Implementation detail of the derive, not public API.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` implements no `FieldHooks`, which every `Field` needs",
    label = "add `impl kafka_wire::__private::FieldHooks for {Self} {{}}`",
    note = "the hooks' defaults are right for a type of your own: the impl is empty (see the `kafka_wire::Field` docs)"
)]
pub trait FieldHooks: Sized {
    /// The flexible versions of the derived struct this type is (or holds, for arrays and
    /// options), `None` for every other type, so that the derive can check at compile time
    /// that nested structs share their parent's flexible versions.
    const NESTED_FLEXIBLE: Option<VersionRange> = None;

    /// Whether the strings of this type (or that it holds, for arrays and options) must be
    /// UTF-8 whatever the decode limits, as `String` requires, so that the metadata-driven
    /// readers check them as `read` does.
    const UTF8_REQUIRED: bool = false;

    /// Whether this type is a struct declared `outline`, so that arrays of it are read and
    /// written by element loops compiled once for every such type (each element a call
    /// through a vtable) rather than one loop per element type.
    const OUTLINED: bool = false;

    /// [`Field::write`] into a `Vec<u8>`, which every message encode writes into (see
    /// [`EncodeBuf`](crate::EncodeBuf)). The default is `write`; integer arrays, arrays,
    /// options and derived structs override it to use the vector directly.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn write_vec<V: VecBuf + ?Sized>(&self, buf: &mut V, cx: Cx, _: Sealed) -> Result<(), EncodeError>
    where
        Self: Field,
    {
        self.write(buf, cx)
    }

    /// [`NullableField::write_nullable`] into a `Vec<u8>` (see
    /// [`write_vec`](Self::write_vec)). The default is `write_nullable`, except for derived
    /// structs (a struct type whose nested flexible versions are set, which only the derive
    /// does), whose marker and fields go through `write_vec`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn write_nullable_vec<V: VecBuf + ?Sized>(
        v: Option<&Self>,
        buf: &mut V,
        cx: Cx,
        t: Sealed,
    ) -> Result<(), EncodeError>
    where
        Self: NullableField,
    {
        if matches!(Self::KAFKA_TYPE, KafkaType::Struct(_)) && Self::NESTED_FLEXIBLE.is_some() {
            if cx.nullable {
                crate::rules::nullable::put_struct_marker(buf, v.is_some(), cx);
            }
            return match v {
                Some(s) => s.write_vec(buf, cx, t),
                None => Ok(()),
            };
        }
        Self::write_nullable(v, buf, cx)
    }

    /// The `n` elements of an array of this type read in one piece, or `None` to read them
    /// one by one (the default, and always correct). The fixed-width integers take the whole
    /// array with one bounds check when the input holds all of it; anything else (a short
    /// input, which must fail with the one-by-one reading's error) is `None`, with nothing
    /// consumed.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read_array_at_once(r: &mut Reader<'_>, n: usize, _: Sealed) -> Option<Vec<Self>> {
        let _ = (r, n);
        None
    }

    /// Reads one element of an array past what the input can hold and drops it, only for
    /// the error a plain reading finds (see `read_elements`). The default reads it with
    /// [`Field::read`]; the derive reads a struct by its metadata instead, so that this cold
    /// path holds no second copy of every struct's `read` with its nested reads inlined
    /// (about a fifth of the messages crate's optimised code).
    #[cold]
    #[inline(never)]
    fn read_discard(r: &mut Reader<'_>, cx: Cx, _: Sealed) -> Result<(), DecodeError>
    where
        Self: Field,
    {
        match Self::read(r, cx) {
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// [`Field::read`] as an `outline` struct's field reads it, out of line. The default is
    /// `read`; an array of an `outline` struct reads through the element loop compiled once
    /// for every such type (see [`OUTLINED`](Self::OUTLINED)). A method of its own, so that
    /// `read`, which the data path's inlined code uses, is not touched: a branch there,
    /// though dead after monomorphisation, changed what the optimiser made of the data
    /// path's decodes (0.4-1.6% more instructions).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read_out(r: &mut Reader<'_>, cx: Cx, _: Sealed) -> Result<Self, DecodeError>
    where
        Self: Field,
    {
        Self::read(r, cx)
    }

    /// The size of the elements of an array of this type without a loop over them (the
    /// fixed-width types: count times width), or `None` to add their sizes one by one (the
    /// default).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn size_array_at_once(items: &[Self], _: Sealed) -> Option<usize> {
        let _ = items;
        None
    }

    /// Whether [`Field::size`] runs no loop over elements for this value: an empty or null
    /// array, a struct whose arrays are all so and that holds no unknown tagged fields.
    /// [`KafkaMessage::encoded_size`] sizes such a message inline and any other out of
    /// line, so that sizing one whose arrays are empty saves no registers for loops that do
    /// not run. Only a hint (both paths give the same size); the default, `false`, is always
    /// correct.
    ///
    /// [`KafkaMessage::encoded_size`]: crate::KafkaMessage::encoded_size
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn sizes_trivially(&self, _: Sealed) -> bool {
        false
    }
}

/// A [`Field`] that Kafka lets be null (string, bytes, records, array, struct), so that
/// `Option<Self>` is a field too.
#[diagnostic::on_unimplemented(
    message = "`Option<{Self}>` is not a Kafka field: `{Self}` is not a nullable Kafka type",
    label = "`{Self}` does not implement `kafka_wire::NullableField`",
    note = "in Kafka only string, bytes, records, arrays and structs can be null: use `{Self}` without `Option`"
)]
///
/// The provided methods are Kafka's nullable struct (a marker, int8 -1/1 in a regular field
/// and a 0/1 byte in a tagged payload, then the struct), which is what derived structs use
/// (the derive writes an empty impl). A type that is null the way a string, bytes or an array
/// is (length -1) implements all four.
pub trait NullableField: Field {
    /// Writes the value or the null marker.
    fn write_nullable<B: BufMut + ?Sized>(
        v: Option<&Self>,
        buf: &mut B,
        cx: Cx,
    ) -> Result<(), EncodeError> {
        if cx.nullable {
            crate::rules::nullable::put_struct_marker(buf, v.is_some(), cx);
        }
        match v {
            Some(s) => s.write(buf, cx),
            None => Ok(()),
        }
    }

    /// The size of the value or the null marker.
    fn size_nullable(v: Option<&Self>, cx: Cx) -> usize {
        usize::from(cx.nullable) + v.map_or(0, |s| s.size(cx))
    }

    /// Reads a value or the null marker (`None`); whether null is allowed is checked by the
    /// caller.
    fn read_nullable(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Self>, DecodeError> {
        if cx.nullable && !crate::rules::nullable::read_struct_marker(r, cx)? {
            return Ok(None);
        }
        match Self::read(r, cx) {
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(e),
        }
    }

    /// The fewest bytes [`read_nullable`](Self::read_nullable) consumes at `cx`, the null
    /// marker included (see [`Field::min_size`]): for a struct, the one-byte marker alone
    /// when null is allowed.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size_nullable(cx: Cx) -> usize {
        if cx.nullable {
            1
        } else {
            Self::min_size(cx)
        }
    }
}

impl<T: NullableField> FieldHooks for Option<T> {
    const NESTED_FLEXIBLE: Option<VersionRange> = T::NESTED_FLEXIBLE;
    const UTF8_REQUIRED: bool = T::UTF8_REQUIRED;

    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn write_vec<V: VecBuf + ?Sized>(
        &self,
        buf: &mut V,
        cx: Cx,
        t: Sealed,
    ) -> Result<(), EncodeError> {
        if self.is_none() && !cx.nullable {
            return Err(EncodeError::new(EncodeErrorKind::NullNotAllowed {
                version: cx.version,
            }));
        }
        T::write_nullable_vec(self.as_ref(), buf, cx, t)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn sizes_trivially(&self, t: Sealed) -> bool {
        match self {
            None => true,
            Some(v) => v.sizes_trivially(t),
        }
    }
}

impl<T: NullableField> Field for Option<T> {
    const KAFKA_TYPE: KafkaType = T::KAFKA_TYPE;

    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
        if self.is_none() && !cx.nullable {
            return Err(EncodeError::new(EncodeErrorKind::NullNotAllowed {
                version: cx.version,
            }));
        }
        T::write_nullable(self.as_ref(), buf, cx)
    }

    #[inline]
    fn size(&self, cx: Cx) -> usize {
        T::size_nullable(self.as_ref(), cx)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size(cx: Cx) -> usize {
        T::min_size_nullable(cx)
    }

    #[inline]
    fn alloc_ratio(cx: Cx) -> usize {
        T::alloc_ratio(cx)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        let start = r.position();
        match T::read_nullable(r, cx)? {
            None if !cx.nullable => Err(DecodeError::new(
                DecodeErrorKind::UnexpectedNull {
                    version: cx.version,
                },
                start,
            )),
            v => Ok(v),
        }
    }
}

macro_rules! fixed_field {
    ($t:ty, $kt:ident, $read:ident, $put:ident, $n:expr) => {
        impl FieldHooks for $t {
            /// One bounds check for the whole array, then a conversion loop LLVM can
            /// vectorise, instead of a check, a read and a push per element.
            #[inline]
            fn read_array_at_once(r: &mut Reader<'_>, n: usize, _: Sealed) -> Option<Vec<Self>> {
                let len = n.checked_mul($n)?;
                // Only when no enclosing array's later elements need these bytes: then the
                // one-by-one reading would keep every element too (see `read_elements`).
                if len > r.unclaimed() {
                    return None;
                }
                let s = r.read_slice_opt(len)?;
                Some(
                    s.as_chunks::<$n>()
                        .0
                        .iter()
                        .map(|c| <$t>::from_be_bytes(*c))
                        .collect(),
                )
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn size_array_at_once(items: &[Self], _: Sealed) -> Option<usize> {
                Some(items.len() * $n)
            }
        }

        impl Field for $t {
            const KAFKA_TYPE: KafkaType = KafkaType::$kt;
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn write<B: BufMut + ?Sized>(&self, buf: &mut B, _cx: Cx) -> Result<(), EncodeError> {
                buf.$put(*self);
                Ok(())
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn size(&self, _cx: Cx) -> usize {
                $n
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn read(r: &mut Reader<'_>, _cx: Cx) -> Result<Self, DecodeError> {
                r.$read()
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn min_size(_cx: Cx) -> usize {
                $n
            }
        }
    };
}

fixed_field!(i8, Int8, read_i8, put_i8, 1);
fixed_field!(i16, Int16, read_i16, put_i16, 2);
fixed_field!(u16, Uint16, read_u16, put_u16, 2);
fixed_field!(i32, Int32, read_i32, put_i32, 4);
fixed_field!(u32, Uint32, read_u32, put_u32, 4);
fixed_field!(i64, Int64, read_i64, put_i64, 8);
fixed_field!(f64, Float64, read_f64, put_f64, 8);

impl FieldHooks for bool {}

impl Field for bool {
    const KAFKA_TYPE: KafkaType = KafkaType::Bool;
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, _cx: Cx) -> Result<(), EncodeError> {
        buf.put_u8(u8::from(*self));
        Ok(())
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn size(&self, _cx: Cx) -> usize {
        1
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size(_cx: Cx) -> usize {
        1
    }
    #[inline]
    fn read(r: &mut Reader<'_>, _cx: Cx) -> Result<Self, DecodeError> {
        let at = r.position();
        match r.read_u8()? {
            0 => Ok(false),
            1 => Ok(true),
            // Kafka reads any non-zero byte as true, but it would re-encode as 1; rejecting
            // keeps decode -> encode byte-exact.
            _ => Err(DecodeError::new(
                DecodeErrorKind::InvalidValue("bool byte other than 0 or 1"),
                at,
            )),
        }
    }
}

impl FieldHooks for Uuid {}

impl Field for Uuid {
    const KAFKA_TYPE: KafkaType = KafkaType::Uuid;
    #[inline]
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, _cx: Cx) -> Result<(), EncodeError> {
        buf.put_slice(self.as_bytes());
        Ok(())
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn size(&self, _cx: Cx) -> usize {
        16
    }
    #[inline]
    fn read(r: &mut Reader<'_>, _cx: Cx) -> Result<Self, DecodeError> {
        r.read_array::<16>().map(Uuid::from_bytes)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size(_cx: Cx) -> usize {
        16
    }
}

// ---- length prefixes -------------------------------------------------------------------

/// Kafka's limit on string length in both encodings (Java's `MessageDataGenerator` checks it on write).
pub const MAX_STRING_LEN: usize = 0x7fff;

/// Which classic prefix a length-prefixed type uses.
#[derive(Clone, Copy)]
pub(crate) enum Prefix {
    /// int16 (strings).
    I16,
    /// int32 (bytes, records, arrays).
    I32,
}

#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn prefix_size(p: Prefix, len: Option<usize>, compact: bool) -> usize {
    if compact {
        match len {
            None => 1,
            // A branch the predictor nearly always gets right, where the branch-free
            // formula is a chain of five dependent instructions per prefix.
            Some(n) if n < 0x7f => 1,
            Some(n) => {
                core::hint::cold_path();
                uvarint_size((n as u32).wrapping_add(1))
            }
        }
    } else {
        match p {
            Prefix::I16 => 2,
            Prefix::I32 => 4,
        }
    }
}

/// The size of an empty (or null) value's prefix: the fewest bytes a length-prefixed value
/// takes.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) const fn empty_prefix(p: Prefix, compact: bool) -> usize {
    match (compact, p) {
        (true, _) => 1,
        (false, Prefix::I16) => 2,
        (false, Prefix::I32) => 4,
    }
}

/// Writes the length prefix of a value of `n` bytes or elements in the forms nearly every
/// value takes, and returns `true`: a compact length in one varint byte, or in two (up to
/// 16,382: a 200-byte metadata string, a record batch) when `two_bytes`, or a classic
/// int16/int32 within its maximum. Anything else returns `false` with nothing written, for
/// the caller's cold path to write with [`put_prefix`] (longer compact lengths; lengths over
/// the maximum, which fail): so the writer of each string, bytes and array type holds only
/// this, inline. (The two-byte form went through the cold call until wave 11: its call,
/// with six registers saved, cost more than the rest of a 200-byte string's write.)
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn put_len_fast<B: BufMut + ?Sized>(
    buf: &mut B,
    p: Prefix,
    n: usize,
    compact: bool,
    two_bytes: bool,
) -> bool {
    if compact {
        if n < 0x7f {
            buf.put_u8(n as u8 + 1);
            return true;
        }
        if two_bytes && n < 0x3fff {
            // uvarint(n + 1) in two bytes: n + 1 is 128 to 16,383.
            let v = n + 1;
            buf.put_slice(&[(v as u8) | 0x80, (v >> 7) as u8]);
            return true;
        }
    } else {
        match p {
            Prefix::I16 if n <= MAX_STRING_LEN => {
                buf.put_i16(n as i16);
                return true;
            }
            Prefix::I32 if n <= i32::MAX as usize => {
                buf.put_i32(n as i32);
                return true;
            }
            _ => {}
        }
    }
    false
}

/// Writes the length prefix of a value of `n` bytes or elements: [`put_len_fast`] inline,
/// else one cold call.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn put_len<B: BufMut + ?Sized>(
    buf: &mut B,
    p: Prefix,
    n: usize,
    compact: bool,
) -> Result<(), EncodeError> {
    // Arrays keep the two-byte compact count out of line: inline, the extra branch in every
    // array writer cost the element loops a register (InitializeShareGroupState 100x100
    // encode +9.6%), and arrays of 127 elements or more are rarer than such strings.
    if put_len_fast(buf, p, n, compact, false) {
        return Ok(());
    }
    put_prefix_cold(buf, p, Some(n), compact)
}

/// A string or bytes value: prefix and contents, the common forms inline (see
/// [`put_len_fast`]). The fast path returns straight after its copy; everything else
/// (null, long compact lengths, too long) is one cold call that writes the whole value, so
/// no code after a slow prefix is shared with the fast path (with the copy after a
/// `put_len(..)?`, TxnOffsetCommit v5 encodes took 1.4% more instructions).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn put_sized<B: BufMut + ?Sized>(
    buf: &mut B,
    p: Prefix,
    v: Option<&[u8]>,
    compact: bool,
) -> Result<(), EncodeError> {
    if let Some(b) = v {
        if put_len_fast(buf, p, b.len(), compact, true) {
            buf.put_slice(b);
            return Ok(());
        }
    }
    put_sized_slow(buf, p, v, compact)
}

/// The rest of [`put_sized`], cold: null, compact values of 16,383 bytes or more, and
/// lengths over the maximum (which fail).
#[cold]
#[inline(never)]
fn put_sized_slow<B: BufMut + ?Sized>(
    buf: &mut B,
    p: Prefix,
    v: Option<&[u8]>,
    compact: bool,
) -> Result<(), EncodeError> {
    put_prefix(buf, p, v.map(<[u8]>::len), compact)?;
    if let Some(b) = v {
        buf.put_slice(b);
    }
    Ok(())
}

/// [`put_prefix`] out of line and cold: the rest of [`put_len`], and null arrays, so that
/// the loops around an array write keep their registers.
#[cold]
#[inline(never)]
fn put_prefix_cold<B: BufMut + ?Sized>(
    buf: &mut B,
    p: Prefix,
    len: Option<usize>,
    compact: bool,
) -> Result<(), EncodeError> {
    put_prefix(buf, p, len, compact)
}

/// Any length prefix, checked against its maximum (`None`: null). Always inline: its
/// callers are the cold paths, into which LLVM does not inline a plain hint (a call per
/// 200-byte compact string, TxnOffsetCommit 1x5000 encode 765K -> 835K instructions).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn put_prefix<B: BufMut + ?Sized>(
    buf: &mut B,
    p: Prefix,
    len: Option<usize>,
    compact: bool,
) -> Result<(), EncodeError> {
    let max = match p {
        Prefix::I16 => MAX_STRING_LEN,
        // Compact lengths are uvarint(n + 1) read into a Java int: n + 1 must stay below 2^31.
        Prefix::I32 => i32::MAX as usize - usize::from(compact),
    };
    match len {
        Some(n) if n > max => Err(EncodeError::new(match p {
            Prefix::I16 => EncodeErrorKind::StringTooLong(n),
            Prefix::I32 => EncodeErrorKind::LengthTooLarge(n),
        })),
        // uvarint(n + 1) in two bytes, written here rather than by the general varint
        // writer's loop: compact strings of 127 to 16,382 bytes come here, as do arrays of
        // that many elements. The range is part of the pattern: a shorter length (a caller
        // that skipped `put_len_fast`) takes the general writer's canonical single byte.
        Some(n @ 0x7f..0x3fff) if compact => {
            let v = n + 1;
            buf.put_slice(&[(v as u8 & 0x7f) | 0x80, (v >> 7) as u8]);
            Ok(())
        }
        _ if compact => {
            put_uvarint(buf, len.map_or(0, |n| n as u32 + 1));
            Ok(())
        }
        Some(n) => {
            match p {
                Prefix::I16 => buf.put_i16(n as i16),
                Prefix::I32 => buf.put_i32(n as i32),
            }
            Ok(())
        }
        None => {
            match p {
                Prefix::I16 => buf.put_i16(-1),
                Prefix::I32 => buf.put_i32(-1),
            }
            Ok(())
        }
    }
}

/// Writes an array's length prefix (`None`: null), checked against its maximum, for
/// arrays in `dynamic` (the generated code's `Vec<T>` takes the same
/// [`put_len`] and [`put_prefix`]).
#[cfg(feature = "json")]
#[inline]
pub(crate) fn put_array_prefix<B: BufMut + ?Sized>(
    buf: &mut B,
    len: Option<usize>,
    compact: bool,
) -> Result<(), EncodeError> {
    match len {
        Some(n) => put_len(buf, Prefix::I32, n, compact),
        None => put_prefix(buf, Prefix::I32, None, compact),
    }
}

/// A null prefix (length -1 in the classic form, 0 in the compact one), cold.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn put_null<B: BufMut + ?Sized>(
    buf: &mut B,
    p: Prefix,
    compact: bool,
) -> Result<(), EncodeError> {
    put_prefix_cold(buf, p, None, compact)
}

/// Reads an array's element count (`None`: null), checked against the input and the
/// configured array limit: the one function for array prefixes in the generated code
/// (through `Vec<T>`), the metadata-driven codec and [`Reader::read_array_len`].
#[inline]
pub(crate) fn read_array_prefix(
    r: &mut Reader<'_>,
    compact: bool,
) -> Result<Option<usize>, DecodeError> {
    let at = r.position();
    let Some(n) = read_prefix(r, Prefix::I32, compact)? else {
        return Ok(None);
    };
    r.check_limit(Limit::ArrayLen, n, r.limits.array_len(), at)?;
    Ok(Some(n))
}

/// Reads a length prefix; `None` is Kafka's null marker. Lengths below -1 are errors, and so
/// is a length larger than what remains (checked before anything is allocated).
///
/// Always inline: its few callers pass `p` and `compact` as constants or straight from the
/// context, and out of line it cost a call on every string (TxnOffsetCommit v5 1x5000
/// decode: +7% instructions when the array readers' inlining changed).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn read_prefix(r: &mut Reader<'_>, p: Prefix, compact: bool) -> Result<Option<usize>, DecodeError> {
    let start = r.position();
    let len: i64 = if compact {
        match r.read_uvarint()? {
            0 => return Ok(None),
            n => i64::from(n) - 1,
        }
    } else {
        match p {
            Prefix::I16 => i64::from(r.read_i16()?),
            Prefix::I32 => i64::from(r.read_i32()?),
        }
    };
    if len == -1 && !compact {
        return Ok(None);
    }
    if len < 0 {
        return Err(DecodeError::new(
            DecodeErrorKind::NegativeLength(len),
            start,
        ));
    }
    if matches!(p, Prefix::I16) && len as u64 > MAX_STRING_LEN as u64 {
        return Err(DecodeError::new(
            DecodeErrorKind::StringTooLong(len as u64),
            start,
        ));
    }
    if matches!(p, Prefix::I16) {
        r.check_limit(Limit::StringLen, len as usize, r.limits.string_len(), start)?;
    }
    if len as u64 > r.remaining() as u64 {
        return Err(DecodeError::new(
            DecodeErrorKind::LengthExceedsInput {
                declared: len as u64,
                remaining: r.remaining(),
            },
            start,
        ));
    }
    Ok(Some(len as usize))
}

#[inline]
pub(crate) fn null_error(cx: Cx, at: usize) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::UnexpectedNull {
            version: cx.version,
        },
        at,
    )
}

// ---- strings ----------------------------------------------------------------------------

/// Reads a string. The common cases (a compact length in one byte or a classic int16 length,
/// the string in the input) take an inlined fast path; anything else, errors included,
/// starts again from the prefix in [`read_str_slow`], which reports them.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn read_str(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Str>, DecodeError> {
    if cx.compact {
        if r.eat(0) {
            return Ok(None);
        }
        if let Some((s, rest)) = r.peek_short_compact() {
            if let Some(s) = fast_str(r, s, rest) {
                r.skip_to(rest);
                return Ok(Some(s));
            }
        }
    } else if let Some((s, rest)) = r.peek_classic_str() {
        // The classic form (int16 length) of every non-flexible version.
        match s {
            None => {
                r.skip_to(rest);
                return Ok(None);
            }
            Some(s) => {
                if let Some(s) = fast_str(r, s, rest) {
                    r.skip_to(rest);
                    return Ok(Some(s));
                }
            }
        }
    }
    read_str_slow(r, cx)
}

/// `s`, a slice of the reader's input just before `rest`, as a [`Str`]: copied inline when
/// short, as [`FixedArray`](crate::FixedArray)s are, by one fixed-size copy of whole words
/// ([`Reader::small_before`]), else sharing the input. (Wave 8's inline strings, built from
/// narrow stores that the struct's move read back as words, decoded slower than shared ones.)
/// `None` when it is over the length limit, or not UTF-8 under
/// [`DecodeLimits::strict_utf8`](crate::DecodeLimits::strict_utf8), for the slow path to read
/// again and report. UTF-8 is not checked otherwise, as in Kafka's Java decoder: [`Str`]
/// checks it when read (TxnOffsetCommit v5 1x5000, 200-byte strings: decode 1.27M -> 832K
/// instructions).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn fast_str(r: &Reader<'_>, s: &[u8], rest: &[u8]) -> Option<Str> {
    // The empty string needs no reference to the buffer, and passes every limit.
    if s.is_empty() {
        return Some(Str::new());
    }
    // Over the length limit, or any string under strict UTF-8 (its limit here is 0).
    if s.len() > r.limits.fast_str_len() {
        return None;
    }
    Some(Str::from_small(r.small_before(rest, s.len())))
}

#[inline(never)]
fn read_str_slow(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Str>, DecodeError> {
    let Some(len) = read_prefix(r, Prefix::I16, cx.compact)? else {
        return Ok(None);
    };
    let data_at = r.position();
    let bytes = r.read_slice(len)?;
    if r.limits.utf8_checked() {
        if let Err(e) = core::str::from_utf8(bytes) {
            return Err(DecodeError::new(DecodeErrorKind::InvalidUtf8(e), data_at));
        }
    }
    Ok(Some(Str::from_small(r.small_before(r.rest(), len))))
}

/// A decoded string as a Rust `String`, which cannot hold bytes that are not UTF-8: those
/// are an error at the string's first byte (`r` is just past it), whatever the limits say.
/// Fails with `InvalidUtf8` at the string's first byte when `s`, just read, is not UTF-8
/// (the check of [`utf8_string`], for the metadata-driven readers).
#[cfg(feature = "json")]
pub(crate) fn check_utf8(r: &Reader<'_>, s: &Str) -> Result<(), DecodeError> {
    match s.to_str() {
        Ok(_) => Ok(()),
        Err(e) => Err(DecodeError::new(
            DecodeErrorKind::InvalidUtf8(e),
            r.position().saturating_sub(s.len()),
        )),
    }
}

fn utf8_string(r: &Reader<'_>, s: Str) -> Result<String, DecodeError> {
    match s.to_str() {
        Ok(t) => Ok(t.to_owned()),
        Err(e) => Err(DecodeError::new(
            DecodeErrorKind::InvalidUtf8(e),
            r.position().saturating_sub(s.len()),
        )),
    }
}

impl FieldHooks for Str {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn write_vec<V: VecBuf + ?Sized>(
        &self,
        buf: &mut V,
        cx: Cx,
        t: Sealed,
    ) -> Result<(), EncodeError> {
        Self::write_nullable_vec(Some(self), buf, cx, t)
    }
    /// A short (inline) string as one fixed-size copy of its storage, the length byte
    /// replaced by the prefix, then the vector truncated (see `SmallBytes::put_inline_str`);
    /// every other string as `write_nullable`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn write_nullable_vec<V: VecBuf + ?Sized>(
        v: Option<&Self>,
        buf: &mut V,
        cx: Cx,
        _: Sealed,
    ) -> Result<(), EncodeError> {
        if let Some(s) = v {
            if s.small().put_inline_str(buf.vec(), cx.compact) {
                return Ok(());
            }
        }
        Self::write_nullable(v, buf, cx)
    }
}

impl Field for Str {
    const KAFKA_TYPE: KafkaType = KafkaType::String;
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
        Self::write_nullable(Some(self), buf, cx)
    }
    #[inline]
    fn size(&self, cx: Cx) -> usize {
        Self::size_nullable(Some(self), cx)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        let at = r.position();
        read_str(r, cx)?.ok_or_else(|| null_error(cx, at))
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size(cx: Cx) -> usize {
        empty_prefix(Prefix::I16, cx.compact)
    }
}

impl NullableField for Str {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn write_nullable<B: BufMut + ?Sized>(
        v: Option<&Self>,
        buf: &mut B,
        cx: Cx,
    ) -> Result<(), EncodeError> {
        put_sized(buf, Prefix::I16, v.map(|s| s.as_bytes()), cx.compact)
    }
    #[inline]
    fn size_nullable(v: Option<&Self>, cx: Cx) -> usize {
        let len = v.map(|s| s.len());
        prefix_size(Prefix::I16, len, cx.compact) + len.unwrap_or(0)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read_nullable(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Self>, DecodeError> {
        read_str(r, cx)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size_nullable(cx: Cx) -> usize {
        empty_prefix(Prefix::I16, cx.compact)
    }
}

impl FieldHooks for String {
    const UTF8_REQUIRED: bool = true;
}

impl Field for String {
    const KAFKA_TYPE: KafkaType = KafkaType::String;
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
        Self::write_nullable(Some(self), buf, cx)
    }
    fn size(&self, cx: Cx) -> usize {
        Self::size_nullable(Some(self), cx)
    }
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        let s = Str::read(r, cx)?;
        utf8_string(r, s)
    }
    fn min_size(cx: Cx) -> usize {
        empty_prefix(Prefix::I16, cx.compact)
    }
    /// The string is copied: one byte per byte.
    fn alloc_ratio(_cx: Cx) -> usize {
        1
    }
}

impl NullableField for String {
    fn write_nullable<B: BufMut + ?Sized>(
        v: Option<&Self>,
        buf: &mut B,
        cx: Cx,
    ) -> Result<(), EncodeError> {
        put_sized(buf, Prefix::I16, v.map(|s| s.as_bytes()), cx.compact)
    }
    fn size_nullable(v: Option<&Self>, cx: Cx) -> usize {
        let len = v.map(|s| s.len());
        prefix_size(Prefix::I16, len, cx.compact) + len.unwrap_or(0)
    }
    fn read_nullable(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Self>, DecodeError> {
        match read_str(r, cx)? {
            Some(s) => utf8_string(r, s).map(Some),
            None => Ok(None),
        }
    }
    fn min_size_nullable(cx: Cx) -> usize {
        empty_prefix(Prefix::I16, cx.compact)
    }
}

// ---- bytes and records ------------------------------------------------------------------

impl FieldHooks for Bytes {}

impl Field for Bytes {
    const KAFKA_TYPE: KafkaType = KafkaType::Bytes;
    #[inline]
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
        Self::write_nullable(Some(self), buf, cx)
    }
    #[inline]
    fn size(&self, cx: Cx) -> usize {
        Self::size_nullable(Some(self), cx)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        let at = r.position();
        Self::read_nullable(r, cx)?.ok_or_else(|| null_error(cx, at))
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size(cx: Cx) -> usize {
        empty_prefix(Prefix::I32, cx.compact)
    }
}

impl NullableField for Bytes {
    #[inline]
    fn write_nullable<B: BufMut + ?Sized>(
        v: Option<&Self>,
        buf: &mut B,
        cx: Cx,
    ) -> Result<(), EncodeError> {
        if let Some(b) = v {
            // A long value written into the head of a vectored encode is referenced, not
            // copied (see `vectored`); one comparison for every other long value.
            if b.len() >= VECTORED_MIN && crate::vectored::is_target(buf) {
                return put_referenced(buf, b, cx.compact);
            }
        }
        put_sized(buf, Prefix::I32, v.map(|b| &b[..]), cx.compact)
    }
    #[inline]
    fn size_nullable(v: Option<&Self>, cx: Cx) -> usize {
        let len = v.map(|b| b.len());
        prefix_size(Prefix::I32, len, cx.compact) + len.unwrap_or(0)
    }
    // The common cases inlined into the struct's read (a compact length in one or two bytes,
    // up to 16 KiB: a record batch; a classic int32 length of a value in the input), the rest
    // in `read_bytes_slow`. Out of line, the caller read the returned `Bytes` back in 16-byte
    // loads over the callee's 8-byte stores, a store-forwarding stall per value: Produce v12
    // decode took 0.8 us in release against 0.4 us in bench-lto, where it was inlined.
    // Either path only moves the reader past the value and gives its length; the value is
    // made in one place after them, so that no `Bytes` from two paths meets in stack slots
    // that are copied before the struct takes it (Produce: about 25 instructions per record
    // set, eleventh wave).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read_nullable(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Self>, DecodeError> {
        let peeked = if cx.compact {
            r.peek_short_compact()
        } else {
            r.peek_classic_bytes()
        };
        let len = match peeked {
            Some((s, rest)) if s.len() <= r.limits.bytes_len() => {
                r.skip_to(rest);
                Some(s.len())
            }
            _ => read_bytes_slow(r, cx)?,
        };
        Ok(len.map(|n| match n {
            0 => Bytes::new(),
            n => r.share_before(r.rest(), n),
        }))
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size_nullable(cx: Cx) -> usize {
        empty_prefix(Prefix::I32, cx.compact)
    }
}

/// A `bytes` value the inlined reader does not take (null, long, over the limit, a bad
/// length): read from its prefix, errors reported; the reader is left after the value and
/// its length returned (`None`: null), for the caller to take the bytes before it.
#[inline(never)]
fn read_bytes_slow(r: &mut Reader<'_>, cx: Cx) -> Result<Option<usize>, DecodeError> {
    let at = r.position();
    match read_prefix(r, Prefix::I32, cx.compact)? {
        None => Ok(None),
        Some(n) => {
            r.check_limit(Limit::BytesLen, n, r.limits.bytes_len(), at)?;
            r.read_slice(n)?;
            Ok(Some(n))
        }
    }
}

/// A `bytes` value in a vectored encode: its length prefix written, the value recorded at
/// the position after it (see [`crate::vectored::Vectored`]).
#[inline(never)]
fn put_referenced<B: BufMut + ?Sized>(
    buf: &mut B,
    b: &Bytes,
    compact: bool,
) -> Result<(), EncodeError> {
    put_len(buf, Prefix::I32, b.len(), compact)?;
    crate::vectored::refer(buf.remaining_mut(), b);
    Ok(())
}

impl FieldHooks for Records {}

impl Field for Records {
    const KAFKA_TYPE: KafkaType = KafkaType::Records;
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
        self.0.write(buf, cx)
    }
    fn size(&self, cx: Cx) -> usize {
        self.0.size(cx)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        Bytes::read(r, cx).map(Records)
    }
    fn min_size(cx: Cx) -> usize {
        empty_prefix(Prefix::I32, cx.compact)
    }
}

impl NullableField for Records {
    fn write_nullable<B: BufMut + ?Sized>(
        v: Option<&Self>,
        buf: &mut B,
        cx: Cx,
    ) -> Result<(), EncodeError> {
        Bytes::write_nullable(v.map(|r| &r.0), buf, cx)
    }
    fn size_nullable(v: Option<&Self>, cx: Cx) -> usize {
        Bytes::size_nullable(v.map(|r| &r.0), cx)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read_nullable(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Self>, DecodeError> {
        Ok(Bytes::read_nullable(r, cx)?.map(Records))
    }
    fn min_size_nullable(cx: Cx) -> usize {
        empty_prefix(Prefix::I32, cx.compact)
    }
}

// ---- arrays -----------------------------------------------------------------------------

/// The most bytes an array (or a tagged section) reserves ahead of decoding, per input byte
/// left, for the metadata-driven decoder (the typed one reserves by minimum element size).
#[cfg(feature = "json")]
pub(crate) const RESERVE_PER_INPUT_BYTE: usize = 8;

/// How many elements of `T` may be reserved ahead of decoding with `remaining` input bytes
/// left (see [`RESERVE_PER_INPUT_BYTE`]).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
#[cfg(feature = "json")]
pub(crate) fn reserve_limit<T>(remaining: usize) -> usize {
    remaining.saturating_mul(RESERVE_PER_INPUT_BYTE) / size_of::<T>().max(1)
}

/// `size_of::<T>()` per `min_size` wire bytes (at least 1), rounded up.
#[inline]
pub(crate) const fn ratio(in_memory: usize, min_size: usize) -> usize {
    let m = if min_size == 0 { 1 } else { min_size };
    in_memory.div_ceil(m)
}

/// An array's allocation ratio from its element's size in memory, smallest wire size and
/// own ratio (see [`Field::alloc_ratio`]): out of line, so `Vec<T>::alloc_ratio` is three
/// calls and no arithmetic per element type.
#[inline(never)]
fn array_ratio(in_memory: usize, min_size: usize, element_ratio: usize) -> usize {
    ratio(in_memory, min_size).max(element_ratio)
}

/// `out.push(x)` with the growing out of line. With the call to `grow` on the same path,
/// LLVM spilled each decoded element to the stack and copied it into the vector afterwards;
/// with room known, the element is stored straight from registers (TxnOffsetCommit v5
/// 100x100 decode: 1.39M -> 1.29M instructions). Optimised builds only: in debug builds,
/// where none of it is inlined, it was three more generic functions per element type.
#[cfg(not(debug_assertions))]
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn push<T>(out: &mut Vec<T>, x: T) {
    if out.len() < out.capacity() {
        out.push(x);
    } else {
        push_grow(out, x);
    }
}

#[cfg(not(debug_assertions))]
#[cold]
#[inline(never)]
fn push_grow<T>(out: &mut Vec<T>, x: T) {
    out.push(x);
}

impl<T: Field> FieldHooks for Vec<T> {
    const NESTED_FLEXIBLE: Option<VersionRange> = T::NESTED_FLEXIBLE;
    const UTF8_REQUIRED: bool = T::UTF8_REQUIRED;

    #[inline]
    fn write_vec<V: VecBuf + ?Sized>(
        &self,
        buf: &mut V,
        cx: Cx,
        t: Sealed,
    ) -> Result<(), EncodeError> {
        Self::write_nullable_vec(Some(self), buf, cx, t)
    }

    /// The same loop, each element through its own `write_vec`.
    #[inline]
    fn write_nullable_vec<V: VecBuf + ?Sized>(
        v: Option<&Self>,
        buf: &mut V,
        cx: Cx,
        t: Sealed,
    ) -> Result<(), EncodeError> {
        let Some(items) = v else {
            return put_null(buf, Prefix::I32, cx.compact);
        };
        if T::OUTLINED {
            return write_each(items, buf.vec(), cx);
        }
        put_len(buf, Prefix::I32, items.len(), cx.compact)?;
        let ecx = cx.element();
        let mut it = items.iter();
        while let Some(item) = it.next() {
            if let Err(e) = item.write_vec(buf, ecx, t) {
                return Err(e.at_index_nounwind(items.len() - it.len() - 1));
            }
        }
        Ok(())
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn sizes_trivially(&self, _: Sealed) -> bool {
        self.is_empty()
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read_out(r: &mut Reader<'_>, cx: Cx, _: Sealed) -> Result<Self, DecodeError> {
        if T::OUTLINED {
            // The count too is read in the shared loop.
            return read_outlined(r, cx, None);
        }
        Self::read(r, cx)
    }
}

impl<T: Field> Field for Vec<T> {
    const KAFKA_TYPE: KafkaType = KafkaType::Array(&T::KAFKA_TYPE);

    #[inline]
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
        Self::write_nullable(Some(self), buf, cx)
    }
    #[inline]
    fn size(&self, cx: Cx) -> usize {
        Self::size_nullable(Some(self), cx)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        let n = read_array_count(r, cx);
        read_elements(r, cx, n)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size(cx: Cx) -> usize {
        empty_prefix(Prefix::I32, cx.compact)
    }
    #[inline]
    fn alloc_ratio(cx: Cx) -> usize {
        let ecx = cx.element();
        array_ratio(size_of::<T>(), T::min_size(ecx), T::alloc_ratio(ecx))
    }
}

// The bodies below are compiled once per element type (and buffer type), so they avoid
// closures and iterator adaptors, each of which is one more generic function per element
// type for LLVM to handle in an unoptimised build.
impl<T: Field> NullableField for Vec<T> {
    #[inline]
    fn write_nullable<B: BufMut + ?Sized>(
        v: Option<&Self>,
        buf: &mut B,
        cx: Cx,
    ) -> Result<(), EncodeError> {
        let Some(items) = v else {
            return put_null(buf, Prefix::I32, cx.compact);
        };
        put_len(buf, Prefix::I32, items.len(), cx.compact)?;
        let ecx = cx.element();
        // The index is worked out from the iterator on error only: a counter kept
        // across the loop was one more value spilled to the stack per element. (A slice
        // pattern instead of the iterator saved debug IR but cost optimised encode and
        // size 2-9% more instructions, so the iterator stays.)
        let mut it = items.iter();
        while let Some(item) = it.next() {
            if let Err(e) = item.write(buf, ecx) {
                return Err(e.at_index_nounwind(items.len() - it.len() - 1));
            }
        }
        Ok(())
    }

    #[inline]
    fn size_nullable(v: Option<&Self>, cx: Cx) -> usize {
        let Some(items) = v else {
            return prefix_size(Prefix::I32, None, cx.compact);
        };
        let ecx = cx.element();
        let mut n = prefix_size(Prefix::I32, Some(items.len()), cx.compact);
        if let Some(all) = T::size_array_at_once(items, Sealed::TOKEN) {
            return n + all;
        }
        for x in items {
            n += x.size(ecx);
        }
        n
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size_nullable(cx: Cx) -> usize {
        empty_prefix(Prefix::I32, cx.compact)
    }

    #[inline]
    fn read_nullable(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Self>, DecodeError> {
        let Some(n) = read_array_prefix(r, cx.compact)? else {
            return Ok(None);
        };
        match read_elements(r, cx, Ok(n)) {
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(e),
        }
    }
}

/// The element count of an array that must not be null (see [`read_array_prefix`]). Not
/// generic: `Vec<T>::read` is this call and [`read_elements`], with no `Option<Vec<T>>` to
/// unwrap per element type. The common forms (`Reader::take_array_count`) are read inline;
/// everything else, errors included, starts again from the prefix out of line. Before, the
/// whole reader was one `#[inline]` function that LLVM kept out of line in large bodies
/// (a call per topic in TxnOffsetCommit v2 1000x1, 40 instructions each).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn read_array_count(r: &mut Reader<'_>, cx: Cx) -> Result<usize, DecodeError> {
    match r.take_array_count(cx.compact) {
        Some(n) => Ok(n),
        None => read_array_count_slow(r, cx),
    }
}

/// [`read_array_count`]'s every other form: null (an error here), longer varints, and the
/// errors, reported from the prefix's first byte.
#[inline(never)]
fn read_array_count_slow(r: &mut Reader<'_>, cx: Cx) -> Result<usize, DecodeError> {
    let at = r.position();
    match read_array_prefix(r, cx.compact)? {
        Some(n) => Ok(n),
        None => Err(null_error(cx, at)),
    }
}

/// Reads the `n` elements of an array at `cx` (the array's context), of at least
/// `T::min_size` bytes each (all at once when the type can, see
/// [`FieldHooks::read_array_at_once`]). `n` is taken as the count reader returned it, error
/// included, so that `Vec<T>::read` is these two calls, inlined, and not one more function
/// per element type.
///
/// The count is believed only as far as the input could hold that many elements at their
/// smallest, after the bytes the enclosing arrays' later elements need at theirs
/// (`Reader::claimed`): `cap` elements are reserved, so that lying counts, nested ones
/// included, reserve no more than `T::alloc_ratio` bytes per input byte between them, and
/// the vector never grows. A count above `cap` cannot decode: its elements and the
/// enclosing arrays' later ones need more bytes than remain, so one of them will fail. The
/// elements past `cap` are still read, so that the error is the one a plain reading finds
/// (the field that ran out, at its offset), but they are dropped, and they claim every byte
/// left, so that nothing nested in them reserves memory either. Elements that may take no
/// bytes (`min` 0) claim none and are all kept; Kafka's own check (no more elements than
/// bytes left, in `read_prefix`) is their bound.
#[inline]
pub(crate) fn read_elements<T: Field>(
    r: &mut Reader<'_>,
    cx: Cx,
    n: Result<usize, DecodeError>,
) -> Result<Vec<T>, DecodeError> {
    let n = n?;
    let ecx = cx.element();
    if T::OUTLINED {
        return read_outlined(r, cx, Some(n));
    }
    if let Some(v) = T::read_array_at_once(r, n, Sealed::TOKEN) {
        return Ok(v);
    }
    let min = T::min_size(ecx);
    let mut c = Claims::new(r, n, min);
    let mut out = Vec::with_capacity(c.cap);
    // Two loops rather than one with `i < cap` tests: with the element read straight into
    // `push`, as before the claims, LLVM builds it in place (TxnOffsetCommit v5 100x100
    // decode: 1.49M -> 1.26M instructions).
    let mut i = 0;
    while i < c.cap {
        c.next(r);
        match T::read(r, ecx) {
            #[cfg(not(debug_assertions))]
            Ok(x) => push(&mut out, x),
            #[cfg(debug_assertions)]
            Ok(x) => out.push(x),
            Err(e) => return Err(c.failed(r, e, i)),
        }
        i += 1;
    }
    c.finish(r, ecx, T::read_discard)?;
    Ok(out)
}

/// An array of an `outline` struct as the element loops compiled once for every such type
/// see it (see [`FieldHooks::OUTLINED`]): on the read side the vector being filled, on the write
/// side the vector being written. The loops ([`read_each`], [`write_each`]) call these
/// through a vtable, so each element type adds only these small functions to the build,
/// not a copy of the loop with its claims, growth and error paths (about 390 lines of
/// unoptimised IR per element type on the read side alone). An `outline` struct already
/// reads and writes each field through a call; one more per element is in keeping with
/// that (CreateTopics, 100 topics of 15 elements: decode +8-13% instructions, encode
/// +3-6%). Sizing keeps the plain loop per element type: a call per element cost a third
/// more there, and one call per array saved too little code to be worth its own path.
trait Elements {
    /// Reserves room for exactly `cap` more elements.
    fn reserve_exact(&mut self, cap: usize);
    /// Reads one element and appends it.
    fn read_push(&mut self, r: &mut Reader<'_>, ecx: Cx) -> Result<(), DecodeError>;
    /// The number of elements.
    fn count(&self) -> usize;
    /// Writes element `i` (below [`count`](Self::count); past it, nothing).
    fn write_at(&self, i: usize, buf: &mut Vec<u8>, ecx: Cx) -> Result<(), EncodeError>;
}

impl<T: Field> Elements for Vec<T> {
    fn reserve_exact(&mut self, cap: usize) {
        Vec::reserve_exact(self, cap);
    }

    fn read_push(&mut self, r: &mut Reader<'_>, ecx: Cx) -> Result<(), DecodeError> {
        let x = T::read(r, ecx)?;
        self.push(x);
        Ok(())
    }

    fn count(&self) -> usize {
        self.len()
    }

    fn write_at(&self, i: usize, buf: &mut Vec<u8>, ecx: Cx) -> Result<(), EncodeError> {
        match self.get(i) {
            Some(x) => x.write_vec(buf, ecx, Sealed::TOKEN),
            None => Ok(()),
        }
    }
}

/// The elements of an array of an `outline` struct at `cx` (the array's context): `n`
/// of them, or as many as the non-null count read first says when `n` is `None`.
#[inline]
fn read_outlined<T: Field>(
    r: &mut Reader<'_>,
    cx: Cx,
    n: Option<usize>,
) -> Result<Vec<T>, DecodeError> {
    let mut out = Vec::new();
    match read_each(
        r,
        cx,
        n,
        T::min_size(cx.element()),
        T::read_discard,
        &mut out,
    ) {
        Ok(()) => Ok(out),
        Err(e) => Err(e),
    }
}

/// [`read_array_count`] (when `n` is `None`) and [`read_elements`] for an `outline` element
/// type, compiled once: the same claims, the same reservation, the same errors (see
/// [`Elements`]).
#[inline(never)]
fn read_each(
    r: &mut Reader<'_>,
    cx: Cx,
    n: Option<usize>,
    min: usize,
    discard: fn(&mut Reader<'_>, Cx, Sealed) -> Result<(), DecodeError>,
    out: &mut dyn Elements,
) -> Result<(), DecodeError> {
    let n = match n {
        Some(n) => n,
        None => read_array_count(r, cx)?,
    };
    let ecx = cx.element();
    let mut c = Claims::new(r, n, min);
    out.reserve_exact(c.cap);
    let mut i = 0;
    while i < c.cap {
        c.next(r);
        if let Err(e) = out.read_push(r, ecx) {
            return Err(c.failed(r, e, i));
        }
        i += 1;
    }
    c.finish(r, ecx, discard)
}

/// The length prefix and the elements of a non-null array of an `outline` struct, compiled
/// once (see [`Elements`]).
#[inline(never)]
fn write_each(items: &dyn Elements, buf: &mut Vec<u8>, cx: Cx) -> Result<(), EncodeError> {
    let n = items.count();
    put_len(buf, Prefix::I32, n, cx.compact)?;
    let ecx = cx.element();
    for i in 0..n {
        if let Err(e) = items.write_at(i, buf, ecx) {
            return Err(e.at_index_nounwind(i));
        }
    }
    Ok(())
}

/// The claims of one array's elements (see [`read_elements`]): everything in the element
/// loop that does not depend on the element type, so that it is compiled once rather than
/// once per element type in debug builds (not inlined there); optimised builds inline it
/// all, as before.
struct Claims {
    /// The elements kept (and reserved for).
    cap: usize,
    /// The count read.
    n: usize,
    /// The smallest element's size.
    min: usize,
    /// The claim before element `i`: the elements after it are spoken for.
    claimed: usize,
    /// The reader's claim before the array, restored after it.
    saved: usize,
}

impl Claims {
    /// The claims of `n` elements of at least `min` bytes each.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn new(r: &Reader<'_>, n: usize, min: usize) -> Self {
        let saved = r.claimed;
        let cap = match r.unclaimed().checked_div(min) {
            Some(fit) => n.min(fit),
            None => n,
        };
        Claims {
            cap,
            n,
            min,
            claimed: saved.saturating_add(min.saturating_mul(n)),
            saved,
        }
    }

    /// Before reading the next kept element.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next(&mut self, r: &mut Reader<'_>) {
        // Never below `saved`: `claimed` starts at `saved + min * n` (or saturated at
        // `usize::MAX`, which `cap * min` cannot exceed) and drops by `min` at most `cap`
        // times; so the plain subtraction, two instructions per element fewer than the
        // saturating one.
        self.claimed = self.claimed.wrapping_sub(self.min);
        r.claimed = self.claimed;
    }

    /// Element `i` failed with `e`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn failed(&self, r: &mut Reader<'_>, e: DecodeError, i: usize) -> DecodeError {
        r.claimed = self.saved;
        e.at_index(i)
    }

    /// After the kept elements: the dropped ones, if any, then the claim restored.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn finish(
        &self,
        r: &mut Reader<'_>,
        ecx: Cx,
        read: fn(&mut Reader<'_>, Cx, Sealed) -> Result<(), DecodeError>,
    ) -> Result<(), DecodeError> {
        if self.cap < self.n {
            read_dropped(r, ecx, self.cap, self.n, self.saved, read)?;
        }
        r.claimed = self.saved;
        Ok(())
    }
}

/// The elements `cap..n` of an array whose count cannot decode: read for the error a plain
/// reading finds, not kept, claiming every byte left (see [`read_elements`]). Not generic:
/// the element is read through [`FieldHooks::read_discard`], so this loop is compiled once,
/// not once per element type, and no element's `read` is inlined into it.
#[cold]
#[inline(never)]
fn read_dropped(
    r: &mut Reader<'_>,
    ecx: Cx,
    cap: usize,
    n: usize,
    saved: usize,
    read: fn(&mut Reader<'_>, Cx, Sealed) -> Result<(), DecodeError>,
) -> Result<(), DecodeError> {
    for i in cap..n {
        r.claimed = usize::MAX;
        if let Err(e) = read(r, ecx, Sealed::TOKEN) {
            r.claimed = saved;
            return Err(e.at_index(i));
        }
    }
    r.claimed = saved;
    Ok(())
}

/// The context of field `f` of the struct `meta` at version `v`, as the derive computes it
/// (compact in the struct's flexible versions unless the field says otherwise).
pub(crate) fn field_cx(meta: &StructMeta, f: &FieldMeta, v: Version) -> Cx {
    let flex = meta.flexible.contains(v);
    Cx {
        version: v,
        compact: flex && f.flexible.is_none_or(|r| r.contains(v)),
        nullable: f.nullable.contains(v),
        tagged: false,
    }
}

/// Reads a derived struct's element of an array past what the input can hold, by the
/// struct's metadata, keeping nothing (see [`FieldHooks::read_discard`]): the checks, offsets and
/// paths of the generated `read`, through the one skipping reader (`rules::skip`), with one
/// copy of this code for every struct. A field of a user's own type is read as its
/// `KAFKA_TYPE`, as the metadata-driven codec reads it.
#[doc(hidden)]
#[cold]
#[inline(never)]
pub fn discard_struct(
    meta: &'static StructMeta,
    r: &mut Reader<'_>,
    cx: Cx,
) -> Result<(), DecodeError> {
    skip_struct(meta, r, cx)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc<T: Field>(v: &T, cx: Cx) -> Vec<u8> {
        let mut out = Vec::new();
        v.write(&mut out, cx).unwrap();
        assert_eq!(out.len(), v.size(cx), "size() must match write()");
        out
    }

    #[test]
    fn short_strings_are_copied_long_ones_shared() {
        // Up to 23 bytes a decoded string holds no reference on the input (the input stays
        // unique); from 24 it shares it. Every prefix form, and a string at the input's very
        // start (no byte before it to copy from) and at its very end (too few after it).
        for len in [0usize, 1, 7, 8, 22, 23, 24, 200] {
            let text: String = (0..len)
                .map(|i| char::from(b'a' + (i % 26) as u8))
                .collect();
            let nullable = Cx {
                nullable: true,
                ..COMPACT
            };
            let mut forms: Vec<(Vec<u8>, Cx)> = Vec::new();
            // Kafka's compact prefix: len + 1 as an unsigned varint (one or two bytes here).
            let n = len + 1;
            let mut compact = if n < 0x80 {
                vec![n as u8]
            } else {
                vec![(n & 0x7f) as u8 | 0x80, (n >> 7) as u8]
            };
            compact.extend_from_slice(text.as_bytes());
            forms.push((compact.clone(), COMPACT));
            forms.push((compact, nullable));
            let mut classic = (len as i16).to_be_bytes().to_vec();
            classic.extend_from_slice(text.as_bytes());
            forms.push((classic, CLASSIC));
            for (wire, cx) in forms {
                for pad in [0usize, 30] {
                    // `pad` bytes before the prefix and after the string.
                    let mut input = vec![0xee; pad];
                    input.extend_from_slice(&wire);
                    input.extend(core::iter::repeat_n(0xdd, pad));
                    let buf = Bytes::from(input);
                    let mut r = Reader::at(&buf, pad);
                    let s = if cx.nullable {
                        Str::read_nullable(&mut r, cx).unwrap().unwrap()
                    } else {
                        Str::read(&mut r, cx).unwrap()
                    };
                    assert_eq!(r.position(), pad + wire.len());
                    assert_eq!(s.as_bytes(), text.as_bytes(), "len {len} pad {pad}");
                    assert_eq!(s.len(), len);
                    assert_eq!(buf.is_unique(), len <= 23, "len {len} pad {pad}");
                    drop(s);
                    assert!(buf.is_unique());
                }
            }
        }
    }

    fn dec<T: Field>(bytes: &[u8], cx: Cx) -> Result<T, DecodeError> {
        dec_with(bytes, cx, &crate::DecodeLimits::DEFAULT)
    }

    fn dec_with<T: Field>(
        bytes: &[u8],
        cx: Cx,
        limits: &crate::DecodeLimits,
    ) -> Result<T, DecodeError> {
        let b = Bytes::copy_from_slice(bytes);
        let mut r = Reader::with_limits(&b, limits);
        let v = T::read(&mut r, cx)?;
        assert!(r.is_empty(), "left {} bytes", r.remaining());
        Ok(v)
    }

    const STRICT: crate::DecodeLimits = crate::DecodeLimits::DEFAULT.strict_utf8(true);

    const CLASSIC: Cx = Cx::new(0);
    const COMPACT: Cx = Cx {
        version: 3,
        compact: true,
        nullable: false,
        tagged: false,
    };
    const NULLABLE: Cx = Cx {
        nullable: true,
        ..CLASSIC
    };
    const COMPACT_NULLABLE: Cx = Cx {
        nullable: true,
        ..COMPACT
    };

    // Expected bytes written from the encoding rules (ARCHITECTURE.md), not from this code.
    #[test]
    fn fixed_widths_are_big_endian() {
        assert_eq!(enc(&-2i8, CLASSIC), [0xfe]);
        assert_eq!(enc(&0x0102i16, CLASSIC), [1, 2]);
        assert_eq!(enc(&0xfffeu16, CLASSIC), [0xff, 0xfe]);
        assert_eq!(enc(&-1i32, CLASSIC), [0xff; 4]);
        assert_eq!(enc(&0x8000_0000u32, CLASSIC), [0x80, 0, 0, 0]);
        assert_eq!(enc(&1i64, CLASSIC), [0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(enc(&1.0f64, CLASSIC), [0x3f, 0xf0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(enc(&true, CLASSIC), [1]);
        assert_eq!(
            enc(&Uuid::from_halves(1, 2), CLASSIC),
            [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2]
        );
        assert_eq!(
            dec::<i32>(&[0x7f, 0xff, 0xff, 0xff], CLASSIC).unwrap(),
            i32::MAX
        );
        assert_eq!(dec::<u16>(&[0xff, 0xff], CLASSIC).unwrap(), u16::MAX);
        assert!(dec::<bool>(&[2], CLASSIC).is_err());
        let e = dec::<i64>(&[0; 7], CLASSIC).unwrap_err();
        assert_eq!(
            e.kind(),
            &DecodeErrorKind::Truncated {
                needed: 8,
                available: 7
            }
        );
    }

    /// Compact length prefixes around the uvarint's size boundaries, laid out by hand from
    /// the unsigned varint rule (7 bits a byte, low first, high bit set on every byte but the
    /// last; the value is the length plus one): one byte up to 126, two from 127 to 16,382,
    /// three from 16,383. Shared by the string, bytes and array tests below.
    const COMPACT_BOUNDARIES: [(usize, &[u8]); 8] = [
        (0, &[0x01]),
        (126, &[0x7f]),
        (127, &[0x80, 0x01]),
        (128, &[0x81, 0x01]),
        (200, &[0xc9, 0x01]),
        (300, &[0xad, 0x02]),
        (16_382, &[0xff, 0x7f]),
        (16_383, &[0x80, 0x80, 0x01]),
    ];

    /// Compact lengths of two varint bytes (strings of 127 to 16,382 bytes) take the
    /// inlined path; three bytes, non-canonical forms and short inputs the general one. The
    /// prefixes are laid out by hand from the unsigned varint rule (7 bits a byte, low
    /// first, high bit set on every byte but the last; the value is the length plus one).
    #[test]
    fn compact_strings_with_long_prefixes() {
        for (len, prefix) in COMPACT_BOUNDARIES {
            for unit in ["x", "é"] {
                let text = unit.repeat(len / unit.len());
                let body = [text.as_bytes(), &vec![b'y'; len % unit.len()]].concat();
                let wire = [prefix, &body].concat();
                let got = dec::<Str>(&wire, COMPACT).unwrap();
                assert_eq!(got.as_bytes(), &body[..], "length {len}");
                assert_eq!(enc(&got, COMPACT), wire, "length {len}");
            }
        }
        // Non-canonical two-byte form of 1 (an empty string): refused, not read as empty.
        let e = dec::<Str>(&[0x81, 0x00], COMPACT).unwrap_err();
        assert_eq!(e.kind(), &DecodeErrorKind::NonCanonicalVarint);
        // A two-byte length past the input.
        let e = dec::<Str>(&[0xc9, 0x01, b'a', b'b'], COMPACT).unwrap_err();
        assert_eq!(
            e.kind(),
            &DecodeErrorKind::LengthExceedsInput {
                declared: 200,
                remaining: 2
            }
        );
        assert_eq!(e.offset(), 0);
        // Invalid UTF-8 after a two-byte length: kept as it came by default (the slow path
        // too), reported where the bytes start under strict_utf8.
        let mut wire = vec![0x80, 0x01];
        wire.extend(vec![b'a'; 126]);
        wire.push(0xff);
        let got = dec::<Str>(&wire, COMPACT).unwrap();
        assert_eq!(got.as_bytes(), &wire[2..]);
        assert_eq!(enc(&got, COMPACT), wire);
        let e = dec_with::<Str>(&wire, COMPACT, &STRICT).unwrap_err();
        assert!(matches!(e.kind(), DecodeErrorKind::InvalidUtf8(_)));
        assert_eq!(e.offset(), 2);
        let e = dec::<String>(&wire, COMPACT).unwrap_err();
        assert!(matches!(e.kind(), DecodeErrorKind::InvalidUtf8(_)));
        assert_eq!(e.offset(), 2);
    }

    /// Bytes and arrays take the same prefixes as strings: a compact length of two varint
    /// bytes (127 to 16,382) inline, three bytes through the general writer; classic int32.
    /// Prefixes laid out by hand from the unsigned varint rule (the value is the length plus
    /// one).
    #[test]
    fn compact_prefixes_of_bytes_and_arrays() {
        for (len, prefix) in COMPACT_BOUNDARIES {
            let b = Bytes::from(vec![7u8; len]);
            assert_eq!(enc(&b, COMPACT), [prefix, &b[..]].concat(), "bytes {len}");
            let a = vec![true; len];
            let body = vec![1u8; len];
            assert_eq!(
                enc(&a, COMPACT),
                [prefix, &body[..]].concat(),
                "array {len}"
            );
            let classic = (len as i32).to_be_bytes();
            assert_eq!(enc(&a, CLASSIC), [&classic[..], &body[..]].concat());
        }
        assert_eq!(enc::<Option<Vec<bool>>>(&None, NULLABLE), [0xff; 4]);
        assert_eq!(enc::<Option<Bytes>>(&None, COMPACT_NULLABLE), [0]);
    }

    /// Fixed-width arrays: each element's big-endian bytes in order, and `size` (count times
    /// width, without a loop) agrees with what is written, at every length.
    #[test]
    fn fixed_width_arrays_and_their_sizes() {
        fn check<T: Field + Copy>(make: impl Fn(usize) -> T, be: impl Fn(T) -> Vec<u8>) {
            for n in [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 100] {
                let items: Vec<T> = (0..n).map(&make).collect();
                let mut want = vec![0, 0, 0, n as u8];
                for x in &items {
                    want.extend(be(*x));
                }
                assert_eq!(enc(&items, CLASSIC), want, "{n} elements");
            }
        }
        check(|i| (i as i8).wrapping_sub(50), |x| x.to_be_bytes().to_vec());
        check(
            |i| (i as i16).wrapping_mul(997).wrapping_sub(3000),
            |x| x.to_be_bytes().to_vec(),
        );
        check(
            |i| (i as u16).wrapping_mul(659),
            |x| x.to_be_bytes().to_vec(),
        );
        check(
            |i| (i as i32).wrapping_mul(0x0101_0101).wrapping_sub(7),
            |x| x.to_be_bytes().to_vec(),
        );
        check(
            |i| (i as u32).wrapping_mul(0x0302_0100),
            |x| x.to_be_bytes().to_vec(),
        );
        check(
            |i| (i as i64) << 40 | i as i64,
            |x| x.to_be_bytes().to_vec(),
        );
        check(|i| i as f64 * -1.5, |x| x.to_be_bytes().to_vec());
    }

    /// Compact arrays at the prefix's width boundaries: uvarint(n + 1) is one byte up to 126
    /// elements, two from 127 to 16,382, three from 16,383; `enc` checks `size` against the
    /// bytes written.
    #[test]
    fn compact_array_prefix_boundaries() {
        for (n, prefix) in COMPACT_BOUNDARIES {
            let items: Vec<i32> = (0..n as i32).map(|i| i.wrapping_mul(-7_919)).collect();
            let mut want = prefix.to_vec();
            for x in &items {
                want.extend(x.to_be_bytes());
            }
            assert_eq!(enc(&items, COMPACT), want, "{n} elements");
            assert_eq!(
                dec::<Vec<i32>>(&want, COMPACT).unwrap(),
                items,
                "{n} elements"
            );
        }
    }

    /// `put_prefix` called directly with a short compact length still writes the canonical
    /// one-byte uvarint (its fast callers never pass one; the decoder refuses the padded form).
    #[test]
    fn put_prefix_short_compact_length_is_canonical() {
        for (n, want) in [
            (0usize, &[1u8][..]),
            (5, &[6]),
            (126, &[0x7f]),
            (127, &[0x80, 1]),
        ] {
            let mut out = Vec::new();
            put_prefix(&mut out, Prefix::I32, Some(n), true).unwrap();
            assert_eq!(out, want, "{n}");
        }
    }

    #[test]
    fn strings_classic_and_compact() {
        let s = Str::from("hé");
        assert_eq!(enc(&s, CLASSIC), [0, 3, b'h', 0xc3, 0xa9]);
        assert_eq!(enc(&s, COMPACT), [4, b'h', 0xc3, 0xa9]);
        assert_eq!(enc(&Str::new(), COMPACT), [1]);
        assert_eq!(enc::<Option<Str>>(&None, NULLABLE), [0xff, 0xff]);
        assert_eq!(enc::<Option<Str>>(&None, COMPACT_NULLABLE), [0]);
        assert_eq!(dec::<Str>(&[4, b'h', 0xc3, 0xa9], COMPACT).unwrap(), "hé");
        assert_eq!(dec::<Option<Str>>(&[0], COMPACT_NULLABLE).unwrap(), None);
        assert_eq!(dec::<Option<Str>>(&[0xff, 0xff], NULLABLE).unwrap(), None);
        // Null where the version does not allow it.
        let e = dec::<Option<Str>>(&[0xff, 0xff], CLASSIC).unwrap_err();
        assert_eq!(e.kind(), &DecodeErrorKind::UnexpectedNull { version: 0 });
        let e = dec::<Str>(&[0], COMPACT).unwrap_err();
        assert_eq!(e.kind(), &DecodeErrorKind::UnexpectedNull { version: 3 });
        // Lengths below -1, above the input, above 0x7fff; invalid UTF-8.
        let e = dec::<Str>(&[0xff, 0xfe], CLASSIC).unwrap_err();
        assert_eq!(e.kind(), &DecodeErrorKind::NegativeLength(-2));
        let e = dec::<Str>(&[0, 5, b'a'], CLASSIC).unwrap_err();
        assert_eq!(
            e.kind(),
            &DecodeErrorKind::LengthExceedsInput {
                declared: 5,
                remaining: 1
            }
        );
        assert_eq!(e.offset(), 0);
        // uvarint 0x8001 = 32769 => length 32768 > 0x7fff
        let e = dec::<Str>(&[0x81, 0x80, 0x02], COMPACT).unwrap_err();
        assert_eq!(e.kind(), &DecodeErrorKind::StringTooLong(32768));
        // Invalid UTF-8: kept by default, an error under strict_utf8 and for `String`.
        let got = dec::<Str>(&[0, 1, 0xff], CLASSIC).unwrap();
        assert_eq!(got.as_bytes(), [0xff]);
        assert_eq!(enc(&got, CLASSIC), [0, 1, 0xff]);
        for e in [
            dec_with::<Str>(&[0, 1, 0xff], CLASSIC, &STRICT).unwrap_err(),
            dec_with::<Option<Str>>(&[0, 1, 0xff], NULLABLE, &STRICT).unwrap_err(),
            dec::<String>(&[0, 1, 0xff], CLASSIC).unwrap_err(),
            dec::<Option<String>>(&[0, 1, 0xff], NULLABLE).unwrap_err(),
        ] {
            assert!(matches!(e.kind(), DecodeErrorKind::InvalidUtf8(_)));
            assert_eq!(e.offset(), 2);
        }
        assert_eq!(
            dec_with::<Str>(&[0, 2, b'h', b'i'], CLASSIC, &STRICT).unwrap(),
            "hi"
        );
        // Encode-side cap.
        let long = Str::from("x".repeat(0x8000));
        let mut out = Vec::new();
        let e = long.write(&mut out, COMPACT).unwrap_err();
        assert_eq!(e.kind(), &EncodeErrorKind::StringTooLong(0x8000));
        assert!(Str::from("x".repeat(0x7fff))
            .write(&mut out, CLASSIC)
            .is_ok());
        let e = None::<Str>.write(&mut out, CLASSIC).unwrap_err();
        assert_eq!(e.kind(), &EncodeErrorKind::NullNotAllowed { version: 0 });
    }

    #[test]
    fn classic_bytes_fast_and_slow_paths_agree() {
        // Java's `readInt` length then the bytes; -1 is null. The inlined path takes a
        // non-negative length within the input and the limit; everything else is reported
        // by the slow path as before.
        let nullable = Cx {
            nullable: true,
            ..CLASSIC
        };
        for len in [0usize, 1, 200, 70_000] {
            let body: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let wire = [&(len as i32).to_be_bytes()[..], &body].concat();
            assert_eq!(dec::<Bytes>(&wire, CLASSIC).unwrap(), body, "length {len}");
            assert_eq!(dec::<Records>(&wire, nullable).unwrap().0, body);
            assert_eq!(enc(&Bytes::from(body), CLASSIC), wire);
        }
        assert_eq!(dec::<Option<Bytes>>(&[0xff; 4], nullable).unwrap(), None);
        let e = dec::<Bytes>(&[0xff; 4], CLASSIC).unwrap_err();
        assert_eq!(e.kind(), &DecodeErrorKind::UnexpectedNull { version: 0 });
        let e = dec::<Bytes>(&[0xff, 0xff, 0xff, 0xfe], CLASSIC).unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (&DecodeErrorKind::NegativeLength(-2), 0)
        );
        let e = dec::<Bytes>(&[0, 0, 0, 3, 1, 2], CLASSIC).unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (
                &DecodeErrorKind::LengthExceedsInput {
                    declared: 3,
                    remaining: 2
                },
                0
            )
        );
        let limits = crate::DecodeLimits::new().max_bytes_len(2);
        let e = dec_with::<Bytes>(&[0, 0, 0, 3, 1, 2, 3], CLASSIC, &limits).unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (
                &DecodeErrorKind::LimitExceeded {
                    limit: crate::Limit::BytesLen,
                    value: 3,
                    max: 2
                },
                0
            )
        );
    }

    #[test]
    fn compact_bytes_with_long_prefixes() {
        // Kafka's unsigned varint of length + 1 (LEB128): one, two and three bytes.
        for (len, prefix) in COMPACT_BOUNDARIES {
            let body: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let wire = [prefix, &body].concat();
            let got = dec::<Bytes>(&wire, COMPACT).unwrap();
            assert_eq!(got, body, "length {len}");
            assert_eq!(enc(&got, COMPACT), wire, "length {len}");
            let got = dec::<Records>(&wire, COMPACT_NULLABLE).unwrap();
            assert_eq!(got.0, body, "length {len}");
        }
        assert_eq!(dec::<Option<Bytes>>(&[0], COMPACT_NULLABLE).unwrap(), None);
        let e = dec::<Bytes>(&[0x81, 0x00], COMPACT).unwrap_err();
        assert_eq!(e.kind(), &DecodeErrorKind::NonCanonicalVarint);
        let e = dec::<Bytes>(&[0xc9, 0x01, 1, 2], COMPACT).unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (
                &DecodeErrorKind::LengthExceedsInput {
                    declared: 200,
                    remaining: 2
                },
                0
            )
        );
        let wire = [&[0x80, 0x01][..], &[7; 127]].concat();
        let limits = crate::DecodeLimits::new().max_bytes_len(126);
        let e = dec_with::<Bytes>(&wire, COMPACT, &limits).unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (
                &DecodeErrorKind::LimitExceeded {
                    limit: crate::Limit::BytesLen,
                    value: 127,
                    max: 126
                },
                0
            )
        );
    }

    #[test]
    fn bytes_and_arrays() {
        let b = Bytes::from_static(&[9, 8]);
        assert_eq!(enc(&b, CLASSIC), [0, 0, 0, 2, 9, 8]);
        assert_eq!(enc(&b, COMPACT), [3, 9, 8]);
        assert_eq!(enc::<Option<Bytes>>(&None, NULLABLE), [0xff; 4]);
        let a = vec![1i32, -1];
        assert_eq!(
            enc(&a, CLASSIC),
            [0, 0, 0, 2, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff]
        );
        assert_eq!(enc(&a, COMPACT), [3, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff]);
        assert_eq!(enc::<Option<Vec<i32>>>(&None, COMPACT_NULLABLE), [0]);
        let strs = vec![Str::from("a"), Str::from("")];
        // Elements follow the field's compactness, as in Java's generated writers.
        assert_eq!(enc(&strs, COMPACT), [3, 2, b'a', 1]);
        assert_eq!(dec::<Vec<Str>>(&[3, 2, b'a', 1], COMPACT).unwrap(), strs);
        // A huge count is rejected before allocating.
        let e = dec::<Vec<i64>>(&[0x7f, 0xff, 0xff, 0xff], CLASSIC).unwrap_err();
        assert_eq!(
            e.kind(),
            &DecodeErrorKind::LengthExceedsInput {
                declared: 0x7fff_ffff,
                remaining: 0
            }
        );
        // Fixed-width elements are read in one piece: big-endian each, in order.
        assert_eq!(
            dec::<Vec<i32>>(&[0, 0, 0, 2, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe], CLASSIC).unwrap(),
            [1, -2]
        );
        assert_eq!(
            dec::<Vec<i16>>(&[4, 0x7f, 0xff, 0x80, 0, 0, 3], COMPACT).unwrap(),
            [i16::MAX, i16::MIN, 3]
        );
        assert_eq!(
            dec::<Vec<i64>>(&[2, 0, 0, 0, 0, 0, 0, 1, 0], COMPACT).unwrap(),
            [256]
        );
        assert_eq!(dec::<Vec<u16>>(&[1], COMPACT).unwrap(), Vec::<u16>::new());
        // The failing element is named in the path.
        let e = dec::<Vec<i32>>(&[0, 0, 0, 2, 0, 0, 0, 1, 0], CLASSIC).unwrap_err();
        assert_eq!(e.path().to_string(), "[1]");
        assert_eq!(e.offset(), 8);
    }

    /// Strings through the vector path (`write_vec`: a short inline string as one
    /// fixed-size store, then truncated) against Kafka's wire form assembled by hand (an
    /// int16 length, or the length plus one as a one-byte varint in flexible versions, then
    /// the bytes), for every length around the inline limit, inline and shared alike, null,
    /// after bytes already in the vector and into vectors that must grow or have room for
    /// exactly the string (which must not grow).
    #[test]
    fn strings_through_the_vector_path() {
        for n in 0..=30usize {
            let text: String = (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            let leaked: &'static str = Box::leak(text.clone().into_boxed_str());
            let inline = Str::copy_from(&text);
            let shared = Str::from_static(leaked);
            assert_eq!(inline.small().inline_raw().is_some(), n <= 23);
            for (cx, mut want) in [
                (COMPACT, vec![n as u8 + 1]),
                (CLASSIC, (n as u16).to_be_bytes().to_vec()),
            ] {
                want.extend_from_slice(text.as_bytes());
                for s in [&inline, &shared] {
                    let exact = 3 + want.len();
                    for (prior, cap) in [(0, 0), (3, 64), (5, 6), (3, exact)] {
                        let mut out = Vec::with_capacity(cap);
                        out.extend_from_slice(&[9, 8, 7, 6, 5][..prior]);
                        s.write_vec(&mut out, cx, Sealed::TOKEN).unwrap();
                        if (prior, cap) == (3, exact) {
                            assert_eq!(out.capacity(), exact, "never grown");
                        }
                        assert_eq!(out.get(..prior), Some(&[9, 8, 7, 6, 5][..prior]));
                        assert_eq!(out.get(prior..), Some(&want[..]), "{n} {cx:?}");
                        let mut opt = Vec::new();
                        Some(s.clone())
                            .write_vec(&mut opt, cx, Sealed::TOKEN)
                            .unwrap();
                        assert_eq!(opt, want);
                    }
                }
            }
        }
        let mut out = Vec::new();
        let null = Cx {
            nullable: true,
            ..CLASSIC
        };
        None::<Str>
            .write_vec(&mut out, null, Sealed::TOKEN)
            .unwrap();
        None::<Str>
            .write_vec(
                &mut out,
                Cx {
                    compact: true,
                    ..null
                },
                Sealed::TOKEN,
            )
            .unwrap();
        assert_eq!(out, [0xff, 0xff, 0]);
        assert!(None::<Str>
            .write_vec(&mut out, CLASSIC, Sealed::TOKEN)
            .is_err());
    }
}
