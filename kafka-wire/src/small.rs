//! [`SmallBytes`]: the storage of [`FixedArray`](crate::FixedArray), short values inline and
//! longer ones shared with the buffer they were decoded from.

use core::{cmp::Ordering, hash::Hash};

use bytes::Bytes;

/// The longest value kept inline: what fits beside a one-byte length in the 32 bytes a
/// [`Bytes`] takes (the enum adds nothing: `Bytes`' vtable reference is never null, and that
/// niche tells the variants apart).
pub(crate) const INLINE_CAP: usize = 23;

/// Bytes either copied inline (short values) or shared with a larger buffer.
///
/// Why: a shared [`Bytes`] costs an atomic increment of the buffer's reference count when
/// taken and an atomic decrement, through the vtable, when dropped. For the many short
/// integer arrays of a decoded message (replica and ISR lists) that pair cost more than the
/// decode itself; copying up to 23 bytes costs a few moves, and dropping an inline value
/// nothing. (`Str` keeps a plain `Bytes`: held in this enum, strings decoded slower,
/// measured; see its documentation.)
///
/// Whether a value is inline is not an invariant (a short [`Bytes`] handed in stays shared):
/// equality, ordering and hashing follow the bytes only.
#[derive(Clone)]
pub(crate) enum SmallBytes {
    /// A slice of a shared buffer (or static memory, or an owned allocation).
    Shared(Bytes),
    /// `raw[0]` is the length (at most `INLINE_CAP`), `raw[1..]` the bytes. The bytes past
    /// the length are not part of the value (they may be whatever followed it in the input)
    /// and are never read. One array, length first, so that the decoder builds the first
    /// word in a register from the input (see [`SmallBytes::inline_window`]): built as a
    /// length byte and the bytes after it, it was stored in pieces of 1, 4, 2 and 1 bytes
    /// that the move into place read back as one word, a store-forwarding stall per array.
    Inline { raw: [u8; INLINE_CAP + 1] },
}

impl SmallBytes {
    /// The empty value (inline: dropping it is free).
    pub(crate) const EMPTY: SmallBytes = SmallBytes::Inline {
        raw: [0; INLINE_CAP + 1],
    };

    /// `s` copied inline if it fits, else `None`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn inline(s: &[u8]) -> Option<Self> {
        let mut raw = [0; INLINE_CAP + 1];
        raw.get_mut(1..=s.len())?.copy_from_slice(s);
        if let Some(n) = raw.first_mut() {
            *n = s.len() as u8;
        }
        Some(SmallBytes::Inline { raw })
    }

    /// Bytes `1..=len` of `window` (`len <= INLINE_CAP`, which the caller checked), inline:
    /// `window` is the byte before the value (any byte: it is replaced by the length) and the
    /// `INLINE_CAP` bytes from its start. A copy of a constant size, whole words, with the
    /// length put into the first word in a register rather than stored over it.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn inline_window(window: &[u8; INLINE_CAP + 1], len: usize) -> Self {
        let mut raw = *window;
        if let Some(head) = raw.first_chunk_mut::<8>() {
            let word = u64::from_le_bytes(*head) & !0xff | len as u64;
            *head = word.to_le_bytes();
        }
        SmallBytes::Inline { raw }
    }

    /// `s` copied: inline if it fits, else into a new allocation.
    #[cfg(test)]
    pub(crate) fn copy_from_slice(s: &[u8]) -> Self {
        Self::inline(s).unwrap_or_else(|| SmallBytes::Shared(Bytes::copy_from_slice(s)))
    }

    /// The bytes.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            SmallBytes::Shared(b) => b,
            SmallBytes::Inline {
                raw: [len, data @ ..],
            } => data.get(..usize::from(*len)).unwrap_or_default(),
        }
    }

    /// The inline storage (length byte first), or `None` when shared.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn inline_raw(&self) -> Option<&[u8; INLINE_CAP + 1]> {
        match self {
            SmallBytes::Inline { raw } => Some(raw),
            SmallBytes::Shared(_) => None,
        }
    }

    /// Writes a string's length prefix and, when inline, its bytes with one fixed-size copy
    /// of the storage (the empty string: its prefix alone), then truncates the vector to the
    /// bytes that belong: no copy of a variable length (a `memcpy` call). Compact, the prefix
    /// is the length plus one in one varint byte (at most 24), put in place of the length
    /// byte in a register; classic, the storage shifted up one byte behind a zero (the
    /// int16 prefix, so up to 22 bytes). Returns `false` with nothing written when the value is
    /// shared, when the vector has no room for the whole storage (so a buffer sized exactly
    /// for a message never grows: the caller writes the exact bytes instead), or when the
    /// length byte is out of range (never made). Each form checks the room with its own
    /// constant width, which LLVM merges with `extend_from_slice`'s check (a width chosen
    /// between the forms at run time was not merged: +11% Metadata encode instructions).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn put_inline_str(&self, out: &mut Vec<u8>, compact: bool) -> bool {
        let Some(raw) = self.inline_raw() else {
            return false;
        };
        let [len, ..] = *raw;
        let len = usize::from(len);
        if len == 0 {
            // The empty string (a default, most metadata) is its prefix: one or two bytes,
            // not a 24-byte store, and no room needed beyond them.
            if compact {
                out.push(1);
            } else {
                out.extend_from_slice(&[0, 0]);
            }
            return true;
        }
        if len > INLINE_CAP {
            return false;
        }
        let start = out.len();
        if compact {
            if out.capacity() - start < INLINE_CAP + 1 {
                return false;
            }
            if let Some((head, tail)) = raw.split_first_chunk::<8>() {
                let head = u64::from_le_bytes(*head) & !0xff | (len as u64 + 1);
                let mut w = [0u8; INLINE_CAP + 1];
                if let Some((wh, wt)) = w.split_first_chunk_mut::<8>() {
                    *wh = head.to_le_bytes();
                    wt.copy_from_slice(tail);
                }
                out.extend_from_slice(&w);
            }
            out.truncate(start + 1 + len);
        } else {
            // The int16 prefix is 0 then the length byte, which is the storage's first
            // byte: the storage one byte further on, behind a zero. Its three words are
            // shifted in registers and stored as words, 24 bytes, so up to 22 bytes of
            // string (a 23-byte one takes the caller's path). (Built on the stack as a zero
            // and a copy of the storage, `b135f8a`'s 25-byte form was read back by loads
            // straddling those stores: two failed store-to-load forwards per string.)
            if len > INLINE_CAP - 1 || out.capacity() - start < INLINE_CAP + 1 {
                return false;
            }
            let Some((c0, rest)) = raw.split_first_chunk::<8>() else {
                return false;
            };
            let Some((c1, rest)) = rest.split_first_chunk::<8>() else {
                return false;
            };
            let Some(c2) = rest.first_chunk::<8>() else {
                return false;
            };
            let [r0, r1, r2] = [c0, c1, c2].map(|c| u64::from_le_bytes(*c));
            let mut w = [0u8; INLINE_CAP + 1];
            if let Some((w0, rest)) = w.split_first_chunk_mut::<8>() {
                *w0 = (r0 << 8).to_le_bytes();
                if let Some((w1, rest)) = rest.split_first_chunk_mut::<8>() {
                    *w1 = (r0 >> 56 | r1 << 8).to_le_bytes();
                    if let Some(w2) = rest.first_chunk_mut::<8>() {
                        *w2 = (r1 >> 56 | r2 << 8).to_le_bytes();
                    }
                }
            }
            out.extend_from_slice(&w);
            out.truncate(start + 2 + len);
        }
        true
    }

    /// The length in bytes.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn len(&self) -> usize {
        match self {
            SmallBytes::Shared(b) => b.len(),
            SmallBytes::Inline { raw: [len, ..] } => usize::from(*len),
        }
    }

    /// Whether there are no bytes.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes as a [`Bytes`]: the shared one without a copy, an inline value copied.
    pub(crate) fn into_bytes(self) -> Bytes {
        match self {
            SmallBytes::Shared(b) => b,
            inline => Bytes::copy_from_slice(inline.as_slice()),
        }
    }
}

impl Default for SmallBytes {
    fn default() -> Self {
        Self::EMPTY
    }
}

/// The bytes, as `Bytes` prints them (`b"..."`), whichever the variant.
impl core::fmt::Debug for SmallBytes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "b\"{}\"", self.as_slice().escape_ascii())
    }
}

impl PartialEq for SmallBytes {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for SmallBytes {}

impl PartialOrd for SmallBytes {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SmallBytes {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_slice().cmp(other.as_slice())
    }
}

// As a slice, whichever the variant (`Str` borrows as `[u8]`, which promises the same hash).
impl Hash for SmallBytes {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        <[u8] as Hash>::hash(self.as_slice(), state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_size_as_bytes() {
        // The whole point: inline storage must not make strings and arrays bigger.
        assert_eq!(size_of::<SmallBytes>(), size_of::<Bytes>());
        assert_eq!(size_of::<SmallBytes>(), 32);
        assert_eq!(size_of::<crate::FixedArray<i32>>(), 32);
        // The one niche (a null vtable) tells the variants apart, so an `Option` needs a
        // tag of its own: 8 bytes more than `Option<Bytes>`.
        assert_eq!(size_of::<Option<SmallBytes>>(), 40);
    }

    #[test]
    fn variants_compare_by_content() {
        let long = [7u8; INLINE_CAP + 1];
        for s in [&b""[..], b"a", &long[..INLINE_CAP], &long[..]] {
            let shared = SmallBytes::Shared(Bytes::copy_from_slice(s));
            let copied = SmallBytes::copy_from_slice(s);
            assert_eq!(
                matches!(copied, SmallBytes::Inline { .. }),
                s.len() <= INLINE_CAP
            );
            assert_eq!(shared, copied);
            assert_eq!(shared.cmp(&copied), Ordering::Equal);
            assert_eq!(copied.as_slice(), s);
            assert_eq!(copied.len(), s.len());
            assert_eq!(copied.clone().into_bytes(), s);
            use core::hash::{BuildHasher, BuildHasherDefault};
            let h = BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default();
            assert_eq!(h.hash_one(&shared), h.hash_one(s));
        }
        // The bytes after `len` are not part of the value.
        let window = *b"#abcdefghijklmnopqrstuvw";
        let a = SmallBytes::inline_window(&window, 2);
        assert_eq!(a.as_slice(), b"ab");
        assert_eq!(a.len(), 2);
        let all = SmallBytes::inline_window(&window, INLINE_CAP);
        assert_eq!(all.as_slice(), b"abcdefghijklmnopqrstuvw");
        assert_eq!(all, SmallBytes::copy_from_slice(b"abcdefghijklmnopqrstuvw"));
        assert!(SmallBytes::inline_window(&window, 0).is_empty());
        assert_eq!(a, SmallBytes::copy_from_slice(b"ab"));
        assert!(SmallBytes::inline(&long).is_none());
        assert!(SmallBytes::EMPTY.is_empty());
    }
}
