//! `Option<T>`: a nullable type's null, allowed only where the version says.

use bytes::BufMut;

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::field::context::Cx;
use crate::field::traits::{Field, FieldHooks, NullableField, Sealed, VecBuf};
use crate::meta::KafkaType;
use crate::{Reader, VersionRange};

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
