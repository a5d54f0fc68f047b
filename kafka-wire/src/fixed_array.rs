//! [`FixedArray`]: a Kafka array of fixed-width integers kept as its wire bytes.

use core::{fmt, iter::FusedIterator, marker::PhantomData, slice::ChunksExact};

use bytes::{BufMut, Bytes};

use crate::error::{DecodeError, EncodeError};
use crate::field::arrays::{read_array_count, read_elements};
use crate::field::prefix::{
    empty_prefix, prefix_size, put_len, put_null, read_array_prefix, Prefix,
};
use crate::field::traits::{FieldHooks, Sealed, VecBuf};
use crate::meta::KafkaType;
use crate::small::{SmallBytes, INLINE_CAP};
use crate::{Cx, Field, NullableField, Reader};

mod sealed {
    pub trait Sealed {}
}

/// The element types of a [`FixedArray`]: Kafka's fixed-width integers (`int8`, `int16`,
/// `uint16`, `int32`, `uint32`, `int64`), read from and written as big-endian bytes.
///
/// Sealed: the array's equality, hashing and byte-exact re-encoding rely on every value
/// having exactly one encoding, which holds for these integers (not for `float64`, whose
/// NaNs and signed zeros compare unlike their bytes, nor for `bool`, whose byte may be any
/// non-zero value).
pub trait FixedWidth: Field + Copy + sealed::Sealed {
    /// Bytes per element on the wire.
    const WIDTH: usize;
    /// The value of one element's big-endian bytes (`chunk` is `WIDTH` long).
    #[doc(hidden)]
    fn from_chunk(chunk: &[u8]) -> Self;
    /// Appends the value's big-endian bytes.
    #[doc(hidden)]
    fn put_be(self, out: &mut Vec<u8>);
}

macro_rules! fixed_width {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl FixedWidth for $t {
            const WIDTH: usize = size_of::<$t>();
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn from_chunk(chunk: &[u8]) -> Self {
                // Always `WIDTH` bytes (from `chunks_exact`), so the fallback is never taken
                // and the conversion compiles to one load and byte swap.
                chunk.try_into().map_or(0, <$t>::from_be_bytes)
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn put_be(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_be_bytes());
            }
        }
    )*};
}

fixed_width!(i8, i16, u16, i32, u32, i64);

/// A Kafka array of fixed-width integers (`[]int32` replica lists, partition indexes,
/// `[]int64` producer ids, ...) kept as the big-endian bytes the wire carried.
///
/// Decoding keeps the array's bytes without an allocation and without per-element work,
/// where a `Vec<i32>` costs an allocation per array (the allocator was most of a Metadata
/// response's decode time) and a conversion per element: up to 23 bytes (five `int32`s,
/// two `int64`s) are copied into the value itself, longer arrays are a [`Bytes`] slice of
/// the input (no copy, one reference count on the buffer). Encoding copies the bytes in
/// one piece, so an array decoded and forwarded (a proxy) goes out exactly as it came
/// without its elements being touched. Elements are converted when read:
/// [`get`](Self::get), [`iter`](Self::iter), [`to_vec`](Self::to_vec).
///
/// The trade-off is that the array is immutable: to change one, build a new one
/// (`FixedArray::from(vec)`, `collect()`, [`from_slice`](Self::from_slice)); each element
/// read costs a byte swap; and holding a long array keeps the whole input buffer alive, as a
/// long decoded [`Str`](crate::Str) or a [`Bytes`] does. The `kafka-protocol` crate decodes these
/// fields into `Vec<i32>` (of `BrokerId` newtypes); `Vec<T>` of these integers is still a
/// field type for hand-written structs, with the same wire form.
///
/// Equality, ordering, `Debug` and `Hash` follow the values (equality and hashing compare
/// the bytes, which for these integers is the same thing), and an array compares equal to a
/// slice or `Vec` of the same values.
///
/// ```
/// use kafka_wire::FixedArray;
///
/// let replicas: FixedArray<i32> = vec![1, 2, 3].into();
/// assert_eq!(replicas.len(), 3);
/// assert_eq!(replicas.get(1), Some(2));
/// assert_eq!(replicas.iter().sum::<i32>(), 6);
/// assert_eq!(replicas, [1, 2, 3]);
/// assert_eq!(replicas.as_bytes(), &[0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3]);
/// assert_eq!(format!("{replicas:?}"), "[1, 2, 3]");
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct FixedArray<T: FixedWidth> {
    /// The elements' big-endian bytes, a whole number of elements.
    raw: SmallBytes,
    _t: PhantomData<T>,
}

impl<T: FixedWidth> FixedArray<T> {
    /// An empty array.
    pub const fn new() -> Self {
        FixedArray {
            raw: SmallBytes::EMPTY,
            _t: PhantomData,
        }
    }

    /// The array of `raw`'s big-endian elements, or `None` if its length is not a whole
    /// number of elements. No copy.
    pub fn from_be_bytes(raw: Bytes) -> Option<Self> {
        if !raw.len().is_multiple_of(T::WIDTH) {
            return None;
        }
        Some(FixedArray {
            raw: SmallBytes::Shared(raw),
            _t: PhantomData,
        })
    }

    /// An array of `items` (one allocation, the values' big-endian bytes).
    pub fn from_slice(items: &[T]) -> Self {
        items.iter().copied().collect()
    }

    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.raw.len() / T::WIDTH
    }

    /// Whether the array has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// Element `i`, or `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        let start = i.checked_mul(T::WIDTH)?;
        let chunk = self
            .raw
            .as_slice()
            .get(start..start.checked_add(T::WIDTH)?)?;
        Some(T::from_chunk(chunk))
    }

    /// The first element, if any.
    #[inline]
    pub fn first(&self) -> Option<T> {
        self.get(0)
    }

    /// The last element, if any.
    #[inline]
    pub fn last(&self) -> Option<T> {
        self.iter().next_back()
    }

    /// Whether `x` is an element.
    pub fn contains(&self, x: T) -> bool
    where
        T: PartialEq,
    {
        self.iter().any(|y| y == x)
    }

    /// The elements, in order.
    #[inline]
    pub fn iter(&self) -> FixedArrayIter<'_, T> {
        FixedArrayIter {
            chunks: self.raw.as_slice().chunks_exact(T::WIDTH),
            _t: PhantomData,
        }
    }

    /// The elements in a new `Vec`.
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().collect()
    }

    /// The elements' big-endian bytes, as the wire carries them.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        self.raw.as_slice()
    }

    /// The elements' big-endian bytes as a [`Bytes`]: without a copy when the array is
    /// shared with a buffer (arrays over 23 bytes, decoded or built from values, and
    /// [`from_be_bytes`](Self::from_be_bytes)), copied when it is stored inline.
    #[inline]
    pub fn into_bytes(self) -> Bytes {
        self.raw.into_bytes()
    }
}

impl<T: FixedWidth> Default for FixedArray<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: FixedWidth + fmt::Debug> fmt::Debug for FixedArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: FixedWidth + Ord> PartialOrd for FixedArray<T> {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// By value, as `Vec<T>` orders (not by bytes: a negative number's bytes sort last).
impl<T: FixedWidth + Ord> Ord for FixedArray<T> {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.iter().cmp(other.iter())
    }
}

impl<T: FixedWidth> FromIterator<T> for FixedArray<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut raw = Vec::with_capacity(iter.size_hint().0.saturating_mul(T::WIDTH));
        for x in iter {
            x.put_be(&mut raw);
        }
        // Short arrays inline, as decoded ones are: no reference count, and the encoder's
        // one-store path (`write_vec`).
        let raw = match SmallBytes::inline(&raw) {
            Some(inline) => inline,
            None => SmallBytes::Shared(Bytes::from(raw)),
        };
        FixedArray {
            raw,
            _t: PhantomData,
        }
    }
}

impl<T: FixedWidth> From<Vec<T>> for FixedArray<T> {
    fn from(v: Vec<T>) -> Self {
        Self::from_slice(&v)
    }
}

impl<T: FixedWidth> From<&[T]> for FixedArray<T> {
    fn from(v: &[T]) -> Self {
        Self::from_slice(v)
    }
}

impl<T: FixedWidth, const N: usize> From<[T; N]> for FixedArray<T> {
    fn from(v: [T; N]) -> Self {
        Self::from_slice(&v)
    }
}

impl<T: FixedWidth> From<FixedArray<T>> for Vec<T> {
    fn from(a: FixedArray<T>) -> Self {
        a.to_vec()
    }
}

impl<T: FixedWidth + PartialEq> PartialEq<[T]> for FixedArray<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter().copied())
    }
}

impl<T: FixedWidth + PartialEq, const N: usize> PartialEq<[T; N]> for FixedArray<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        *self == other[..]
    }
}

impl<T: FixedWidth + PartialEq> PartialEq<Vec<T>> for FixedArray<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        *self == other[..]
    }
}

impl<T: FixedWidth + PartialEq> PartialEq<&[T]> for FixedArray<T> {
    fn eq(&self, other: &&[T]) -> bool {
        *self == **other
    }
}

impl<'a, T: FixedWidth> IntoIterator for &'a FixedArray<T> {
    type Item = T;
    type IntoIter = FixedArrayIter<'a, T>;
    fn into_iter(self) -> FixedArrayIter<'a, T> {
        self.iter()
    }
}

/// The elements of a [`FixedArray`], converted as they are taken.
#[derive(Clone, Debug)]
pub struct FixedArrayIter<'a, T> {
    chunks: ChunksExact<'a, u8>,
    _t: PhantomData<T>,
}

impl<T: FixedWidth> Iterator for FixedArrayIter<'_, T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        self.chunks.next().map(T::from_chunk)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
    #[inline]
    fn nth(&mut self, n: usize) -> Option<T> {
        self.chunks.nth(n).map(T::from_chunk)
    }
}

impl<T: FixedWidth> DoubleEndedIterator for FixedArrayIter<'_, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        self.chunks.next_back().map(T::from_chunk)
    }
}

impl<T: FixedWidth> ExactSizeIterator for FixedArrayIter<'_, T> {}
impl<T: FixedWidth> FusedIterator for FixedArrayIter<'_, T> {}

// ---- the wire form: an array's count prefix, then the elements' bytes as they are ----

impl<T: FixedWidth> FieldHooks for FixedArray<T> {
    /// An inline array (up to 23 bytes) as one fixed-size copy of its storage, the length
    /// byte replaced by the count, then the vector truncated to the bytes that count: no
    /// copy of a variable length (a `memcpy` call) and one capacity check. Forced inline as
    /// `write` is inlined: out of line it was a call and six saved registers per array.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn write_vec<V: VecBuf + ?Sized>(
        &self,
        buf: &mut V,
        cx: Cx,
        _: Sealed,
    ) -> Result<(), EncodeError> {
        if let Some(raw) = self.raw.inline_raw() {
            if put_inline(buf.vec(), raw, T::WIDTH, cx.compact) {
                return Ok(());
            }
        }
        self.write(buf, cx)
    }
    #[inline]
    fn write_nullable_vec<V: VecBuf + ?Sized>(
        v: Option<&Self>,
        buf: &mut V,
        cx: Cx,
        t: Sealed,
    ) -> Result<(), EncodeError> {
        match v {
            Some(a) => a.write_vec(buf, cx, t),
            None => put_null(buf, Prefix::I32, cx.compact),
        }
    }
}

impl<T: FixedWidth> Field for FixedArray<T> {
    const KAFKA_TYPE: KafkaType = KafkaType::Array(&T::KAFKA_TYPE);

    #[inline]
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
        // The storage is matched once, not once per use.
        let raw = self.raw.as_slice();
        put_len(buf, Prefix::I32, raw.len() / T::WIDTH, cx.compact)?;
        buf.put_slice(raw);
        Ok(())
    }
    #[inline]
    fn size(&self, cx: Cx) -> usize {
        let n = self.raw.len();
        prefix_size(Prefix::I32, Some(n / T::WIDTH), cx.compact) + n
    }
    // Forced inline: with the count's fast path inlined into its callers, LLVM otherwise
    // kept this out of line in large bodies (Metadata v12's 15,000 replica and ISR lists: a
    // call each, +11.9% decode instructions, eleventh wave).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        let n = read_array_count(r, cx)?;
        read_raw(r, cx, n)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size(cx: Cx) -> usize {
        empty_prefix(Prefix::I32, cx.compact)
    }
    // `alloc_ratio` stays 0: decoding copies a short array inline or shares the input, and
    // allocates nothing.
}

impl<T: FixedWidth> NullableField for FixedArray<T> {
    #[inline]
    fn write_nullable<B: BufMut + ?Sized>(
        v: Option<&Self>,
        buf: &mut B,
        cx: Cx,
    ) -> Result<(), EncodeError> {
        match v {
            Some(a) => a.write(buf, cx),
            None => put_null(buf, Prefix::I32, cx.compact),
        }
    }
    #[inline]
    fn size_nullable(v: Option<&Self>, cx: Cx) -> usize {
        match v {
            Some(a) => a.size(cx),
            None => prefix_size(Prefix::I32, None, cx.compact),
        }
    }
    #[inline]
    fn read_nullable(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Self>, DecodeError> {
        match read_array_prefix(r, cx.compact)? {
            Some(n) => read_raw(r, cx, n).map(Some),
            None => Ok(None),
        }
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size_nullable(cx: Cx) -> usize {
        empty_prefix(Prefix::I32, cx.compact)
    }
}

/// Writes an inline array's prefix and bytes (`raw`: the length byte, then the bytes) with
/// whole-storage copies, and returns `true`; `false` (nothing written) if the vector has no
/// room for the whole storage (so that a buffer sized exactly for the message never grows:
/// the caller writes the exact bytes instead), or if the length byte is out of range, which
/// the constructors never make. The count is `len / width`; compact, it fits one varint
/// byte (at most 23), which goes in place of the length byte, in a register.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn put_inline(out: &mut Vec<u8>, raw: &[u8; INLINE_CAP + 1], width: usize, compact: bool) -> bool {
    let len = usize::from(raw[0]);
    if len > INLINE_CAP {
        return false;
    }
    let count = len / width;
    let start = out.len();
    let whole = if compact {
        INLINE_CAP + 1
    } else {
        INLINE_CAP + 4
    };
    if out.capacity() - start < whole {
        return false;
    }
    if compact {
        let (head, tail) = raw.split_at(8);
        let head = head.try_into().map_or(0, u64::from_le_bytes) & !0xff | (count as u64 + 1);
        let mut w = [0u8; INLINE_CAP + 1];
        let (wh, wt) = w.split_at_mut(8);
        wh.copy_from_slice(&head.to_le_bytes());
        wt.copy_from_slice(tail);
        out.extend_from_slice(&w);
        out.truncate(start + 1 + len);
    } else {
        out.extend_from_slice(&(count as u32).to_be_bytes());
        if let Some(bytes) = raw.get(1..) {
            out.extend_from_slice(bytes);
        }
        out.truncate(start + 4 + len);
    }
    true
}

/// The `n` elements' bytes, inline when short, else shared with the input. Taken whenever
/// the input holds them, even where an enclosing array's later elements need some of those
/// bytes (where a `Vec` reads its elements one by one): nothing is allocated either way,
/// the same bytes are consumed, and the enclosing array fails later just the same.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn read_raw<T: FixedWidth>(
    r: &mut Reader<'_>,
    cx: Cx,
    n: usize,
) -> Result<FixedArray<T>, DecodeError> {
    if let Some(raw) = n
        .checked_mul(T::WIDTH)
        .and_then(|len| r.read_small_opt(len))
    {
        return Ok(FixedArray {
            raw,
            _t: PhantomData,
        });
    }
    read_short(r, cx, n)
}

/// An array the input cannot hold: read as `Vec<T>` reads it, for the same error (the
/// element that ran out, at its offset).
#[cold]
#[inline(never)]
fn read_short<T: FixedWidth>(
    r: &mut Reader<'_>,
    cx: Cx,
    n: usize,
) -> Result<FixedArray<T>, DecodeError> {
    read_elements::<T>(r, cx, Ok(n)).map(FixedArray::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx(compact: bool) -> Cx {
        Cx {
            compact,
            ..Cx::new(0)
        }
    }

    #[test]
    fn wire_form_matches_vec() {
        let values: Vec<i32> = vec![-1, 0, 1, i32::MAX, i32::MIN, 0x0102_0304];
        let a = FixedArray::from(values.clone());
        for compact in [false, true] {
            let mut want = Vec::new();
            values.write(&mut want, cx(compact)).unwrap();
            let mut got = Vec::new();
            a.write(&mut got, cx(compact)).unwrap();
            assert_eq!(got, want);
            assert_eq!(a.size(cx(compact)), want.len());
            let input = Bytes::from(want);
            let mut r = Reader::new(&input);
            let back = FixedArray::<i32>::read(&mut r, cx(compact)).unwrap();
            assert!(r.is_empty());
            assert_eq!(back, values);
            assert_eq!(back.to_vec(), values);
        }
    }

    #[test]
    fn accessors() {
        let a: FixedArray<i64> = [5, -6, 7].into_iter().collect();
        assert_eq!(a.first(), Some(5));
        assert_eq!(a.last(), Some(7));
        assert_eq!(a.get(3), None);
        assert_eq!(a.get(usize::MAX), None);
        assert!(a.contains(-6));
        assert_eq!(a.iter().rev().collect::<Vec<_>>(), vec![7, -6, 5]);
        assert_eq!(a.iter().len(), 3);
        assert!(FixedArray::<i16>::from_be_bytes(Bytes::from_static(&[1, 2, 3])).is_none());
        let b = FixedArray::<i16>::from_be_bytes(Bytes::from_static(&[0xff, 0xfe])).unwrap();
        assert_eq!(b, [-2]);
        // Ordered by value, as Vec orders: -1 before 1 though its bytes sort after.
        let (neg, pos) = (FixedArray::from([-1i32]), FixedArray::from([1i32]));
        assert!(neg < pos);
        assert_eq!(format!("{:?}", FixedArray::<u16>::new()), "[]");
    }

    /// Kafka's wire form written out by hand (an int32 count, or the count plus one as an
    /// unsigned varint in flexible versions, then each element big-endian), not taken from
    /// our own encoder: read, then written back, byte for byte, inline and shared alike.
    #[test]
    fn hand_written_wire_bytes() {
        fn check<T: FixedWidth + PartialEq + fmt::Debug>(wire: &[u8], compact: bool, want: &[T]) {
            let input = Bytes::copy_from_slice(wire);
            let mut r = Reader::new(&input);
            let a = FixedArray::<T>::read(&mut r, cx(compact)).unwrap();
            assert!(r.is_empty());
            assert_eq!(a, *want);
            let mut out = Vec::new();
            a.write(&mut out, cx(compact)).unwrap();
            assert_eq!(out, wire);
            assert_eq!(a.size(cx(compact)), wire.len());
        }
        check::<i32>(
            &[0, 0, 0, 2, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe],
            false,
            &[1, -2],
        );
        check::<i32>(&[3, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe], true, &[1, -2]);
        check::<i16>(&[0, 0, 0, 1, 0x01, 0x02], false, &[0x0102]);
        check::<u16>(&[2, 0xff, 0xff], true, &[u16::MAX]);
        check::<u32>(&[2, 0x80, 0, 0, 0], true, &[1 << 31]);
        check::<i8>(&[0, 0, 0, 2, 0x80, 0x7f], false, &[i8::MIN, i8::MAX]);
        check::<i64>(
            &[2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe],
            true,
            &[-2],
        );
        check::<i32>(&[0, 0, 0, 0], false, &[]);
        check::<i32>(&[1], true, &[]);
        // Seven int32s (28 bytes): longer than the inline storage.
        let mut long = vec![8u8];
        for i in 0..7u8 {
            long.extend([0, 0, 0, i]);
        }
        check::<i32>(&long, true, &[0, 1, 2, 3, 4, 5, 6]);
    }

    /// The vector path (`write_vec`: inline arrays as one fixed-size store, then truncated)
    /// against the wire form assembled by hand, for every length around the inline limit,
    /// inline and shared storage alike, after bytes already in the vector, into vectors
    /// that must grow and into one with room for exactly the array (which must not grow:
    /// the whole-storage copy needs room for all of the storage, else the bytes are written
    /// exactly).
    #[test]
    fn vector_path_every_length() {
        fn wire(n: usize, width: usize, compact: bool) -> Vec<u8> {
            let mut w = if compact {
                // uvarint(n + 1): one byte up to 126 elements.
                vec![n as u8 + 1]
            } else {
                (n as u32).to_be_bytes().to_vec()
            };
            for i in 0..n * width {
                w.push(i as u8 ^ 0x5a);
            }
            w
        }
        fn check<T: FixedWidth>() {
            for n in 0..=(INLINE_CAP / T::WIDTH + 3) {
                for compact in [false, true] {
                    let want = wire(n, T::WIDTH, compact);
                    let body = want.get(if compact { 1 } else { 4 }..).unwrap();
                    let shared = FixedArray::<T>::from_be_bytes(Bytes::copy_from_slice(body));
                    let input = Bytes::copy_from_slice(&want);
                    let decoded = FixedArray::<T>::read(&mut Reader::new(&input), cx(compact));
                    let built = FixedArray::<T>::from_iter(shared.clone().unwrap().iter());
                    assert_eq!(
                        built.raw.inline_raw().is_some(),
                        body.len() <= INLINE_CAP,
                        "built from values: inline exactly when it fits"
                    );
                    for a in [shared.unwrap(), decoded.unwrap(), built] {
                        let exact = 3 + want.len();
                        for (prior, cap) in [(0, 0), (3, 0), (3, 64), (5, 6), (3, exact)] {
                            let mut out = Vec::with_capacity(cap);
                            out.extend((0..prior).map(|i| i as u8));
                            a.write_vec(&mut out, cx(compact), Sealed::TOKEN).unwrap();
                            if (prior, cap) == (3, exact) {
                                // Room for the array only: written exactly, never grown.
                                assert_eq!(out.capacity(), exact);
                            }
                            let before: Vec<u8> = (0..prior).map(|i| i as u8).collect();
                            assert_eq!(out.get(..prior), Some(&before[..]));
                            assert_eq!(out.get(prior..), Some(&want[..]), "n {n}, {compact}");
                            assert_eq!(a.size(cx(compact)), want.len());
                        }
                        let mut out = Vec::new();
                        Some(a.clone())
                            .write_vec(&mut out, cx(compact), Sealed::TOKEN)
                            .unwrap();
                        assert_eq!(out, want);
                    }
                }
            }
        }
        check::<i8>();
        check::<i16>();
        check::<u16>();
        check::<i32>();
        check::<u32>();
        check::<i64>();
    }
}
