//! Arrays (`Vec<T>`): the count, the claims that tie a decode's memory to its input, the
//! element loops (one per element type, or compiled once for `outline` structs) and the
//! allocation ratio.

use bytes::BufMut;

use crate::error::{DecodeError, EncodeError};
use crate::field::context::Cx;
use crate::field::prefix::{
    empty_prefix, null_error, prefix_size, put_len, put_null, read_array_prefix, Prefix,
};
use crate::field::traits::{Field, FieldHooks, NullableField, Sealed, VecBuf};
use crate::meta::KafkaType;
use crate::{Reader, VersionRange};

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
