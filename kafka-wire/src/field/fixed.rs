//! The fixed-width types: the integers, `float64`, `bool` and `uuid`.

use bytes::BufMut;

use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::field::context::Cx;
use crate::field::traits::{Field, FieldHooks, Sealed};
use crate::meta::KafkaType;
use crate::types::Uuid;
use crate::Reader;

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
