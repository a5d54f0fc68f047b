//! The traits: [`Field`] (what a user implements and calls), its hidden supertrait
//! [`FieldHooks`] (what the built-in types and derived structs override) and
//! [`NullableField`], with the sealed token and buffer of the hooks.

use bytes::BufMut;

use crate::error::{DecodeError, EncodeError};
use crate::field::context::Cx;
use crate::meta::KafkaType;
use crate::rules::nullable::{put_struct_marker, read_struct_marker};
use crate::{Reader, VersionRange};

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
    fn write_vec<V: VecBuf + ?Sized>(
        &self,
        buf: &mut V,
        cx: Cx,
        _: Sealed,
    ) -> Result<(), EncodeError>
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
                put_struct_marker(buf, v.is_some(), cx);
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
            put_struct_marker(buf, v.is_some(), cx);
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
        if cx.nullable && !read_struct_marker(r, cx)? {
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
