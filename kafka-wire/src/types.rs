//! Value types for Kafka's `string`, `uuid`, `records` and unknown tagged fields.

use core::{
    borrow::Borrow,
    fmt::{self, Write as _},
    mem::ManuallyDrop,
    ops::Deref,
    str::FromStr,
};

use bytes::Bytes;

use crate::small::SmallBytes;

/// Kafka's `string`: the bytes the wire carried, copied inline when they are short (up to 23
/// bytes) and shared with the buffer they were decoded from otherwise (no allocation either
/// way).
///
/// Why inline: a shared slice takes a reference on the buffer (an atomic increment) and gives
/// it back when dropped (an atomic decrement through a vtable), which for the short names and
/// metadata of most messages cost more than the rest of the string's decode. The inline copy
/// is one fixed-size copy of whole words. `Option<Str>` is 40 bytes (32 before: the variant
/// uses the niche that `Option` used).
///
/// Decoding does not check UTF-8, as Kafka's own Java decoder does not reject it (it reads
/// `new String(bytes, UTF_8)`, which replaces malformed input with U+FFFD). The bytes are
/// kept as they came, so a decoded message encodes back to the same bytes, and a proxy that
/// forwards a field does not pay for checking it. Reading the text is where UTF-8 matters:
///
/// - [`Str::to_str`] checks and says why the bytes are not UTF-8 (the accessor for input
///   that is not trusted);
/// - [`Str::to_string_lossy`] replaces malformed input with U+FFFD, giving the string Java's
///   decoder gives; `Display` writes the same text, `Debug` escapes invalid bytes as `\xNN`;
/// - `Deref<Target = str>`, [`Str::as_str`] and `AsRef<str>` give the text of a valid
///   string and `""` for bytes that are not UTF-8 (never a panic, never a prefix that could
///   pass for another valid name); equality with a `&str` compares the bytes.
///
/// `Eq`, `Ord` and `Hash` compare, order and hash the bytes, and `Str` borrows as `[u8]`
/// (not as `str`), so it is a sound key for `HashMap`, `HashSet` and `BTreeMap` whatever
/// the bytes: look a key up by its bytes, `map.get(b"orders".as_slice())` or
/// `map.get(name.as_bytes())`. A key that is not UTF-8 matches only its own bytes.
///
/// [`DecodeLimits::strict_utf8`](crate::DecodeLimits::strict_utf8) makes decoding reject
/// invalid UTF-8 instead, with the offset and field path of the string. Strings built from
/// Rust text (`From<&'static str>`, `From<String>`, [`Str::copy_from`]) are always UTF-8.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Str(SmallBytes);

// By hand: `Borrow<[u8]>` promises the same hash as `[u8]`, so the bytes are hashed as a
// slice (`Bytes`' own `Hash` makes no such promise).
impl core::hash::Hash for Str {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        <[u8] as core::hash::Hash>::hash(self.as_bytes(), state);
    }
}

impl Str {
    /// The empty string.
    pub const fn new() -> Self {
        Str(SmallBytes::EMPTY)
    }

    /// A string borrowed from static memory, with no allocation.
    pub const fn from_static(s: &'static str) -> Self {
        Str(SmallBytes::Shared(Bytes::from_static(s.as_bytes())))
    }

    /// A string copied from `s`, whatever its lifetime (`From<&str>` is for `&'static str`
    /// only, which it does not copy).
    pub fn copy_from(s: &str) -> Self {
        Str(SmallBytes::inline(s.as_bytes())
            .unwrap_or_else(|| SmallBytes::Shared(Bytes::copy_from_slice(s.as_bytes()))))
    }

    /// Wraps bytes that are UTF-8, or says why they are not.
    #[inline]
    pub fn from_utf8(bytes: Bytes) -> Result<Self, core::str::Utf8Error> {
        core::str::from_utf8(&bytes)?;
        Ok(Str::from_wire(bytes))
    }

    /// Wraps any bytes without checking them, as decoding does: for forwarding a string
    /// that arrived some other way exactly as it came.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub const fn from_wire(bytes: Bytes) -> Self {
        Str(SmallBytes::Shared(bytes))
    }

    /// The bytes `input[range]` kept as decoding keeps a string: copied inline when they are
    /// 23 bytes or fewer, else a shared slice of `input` (one reference count, no copy). No
    /// UTF-8 check, as [`Str::from_wire`]. For decoders written by hand over a buffer (the
    /// benchmarks' decode floors build their strings with it).
    ///
    /// # Panics
    ///
    /// If `range` is decreasing or ends past `input`, as [`Bytes::slice`].
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn from_input(input: &Bytes, range: core::ops::Range<usize>) -> Self {
        let value = &input[range.clone()];
        let len = value.len();
        if len > crate::small::INLINE_CAP {
            return Str(SmallBytes::Shared(input.slice(range)));
        }
        // As the decoder: one fixed-size copy from the byte before the value, when the
        // input holds the whole window.
        let window = range
            .start
            .checked_sub(1)
            .and_then(|before| input.get(before..))
            .and_then(|w| w.first_chunk::<{ crate::small::INLINE_CAP + 1 }>());
        match window {
            Some(window) => Str(SmallBytes::inline_window(window, len)),
            None => Str(SmallBytes::inline(value).unwrap_or_default()),
        }
    }

    /// A decoded string (inline when short, see the type's documentation).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) const fn from_small(bytes: SmallBytes) -> Self {
        Str(bytes)
    }

    /// The text if the bytes are UTF-8, or why they are not (as `CStr::to_str`). Checks
    /// the bytes on every call.
    #[inline]
    pub fn to_str(&self) -> Result<&str, core::str::Utf8Error> {
        core::str::from_utf8(self.as_bytes())
    }

    /// The text with malformed input replaced by U+FFFD, as Kafka's Java decoder reads it
    /// (as `CStr::to_string_lossy`); borrowed when the bytes are UTF-8.
    pub fn to_string_lossy(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.as_bytes())
    }

    /// Whether the bytes are UTF-8.
    pub fn is_utf8(&self) -> bool {
        self.to_str().is_ok()
    }

    /// The text, or `""` if the bytes are not UTF-8 (see the type's documentation; use
    /// [`Str::to_str`] to tell the two apart). Checks the bytes on every call.
    pub fn as_str(&self) -> &str {
        self.to_str().unwrap_or_default()
    }

    /// The length in bytes. Unlike `str::len` through `Deref`, this does not check the
    /// UTF-8 (the codec asks for it on every `size` and `write`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the string is empty (without checking the UTF-8).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The bytes, as the wire carried them (whether or not they are UTF-8).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_slice()
    }

    /// The storage, for the writer's whole-storage copy of an inline string.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn small(&self) -> &SmallBytes {
        &self.0
    }

    /// The bytes as a [`Bytes`]: a shared string without a copy, a short (inline) one
    /// copied.
    pub fn into_bytes(self) -> Bytes {
        self.0.into_bytes()
    }

    /// The bytes as a [`Bytes`] (as [`Str::into_bytes`]), keeping `self`.
    pub fn to_bytes(&self) -> Bytes {
        self.0.clone().into_bytes()
    }
}

impl Deref for Str {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

/// Map lookups by bytes: `HashMap<Str, _>::get(b"topic".as_slice())` or
/// `map.get(name.as_bytes())`. `Eq`, `Ord` and `Hash` all follow the bytes, so a key that
/// is not UTF-8 is found only by its own bytes. (There is no `Borrow<str>`: a string that is
/// not UTF-8 has no `str` that orders and hashes as it does.)
impl Borrow<[u8]> for Str {
    fn borrow(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// Borrowed from static memory, with no copy ([`Str::from_static`]). (Not copied inline when
/// short: the derive builds string defaults with `From`, and a `const` borrow of a literal is
/// what lets each `absent` check compare with it for free.)
impl From<&'static str> for Str {
    fn from(s: &'static str) -> Self {
        Str::from_static(s)
    }
}

/// Up to 23 bytes copied inline (and the `String` freed), as a decoded string is; longer
/// ones keep the `String`'s allocation, with no copy. So a message built from values is
/// encoded by the same path as one decoded from the wire: an inline string is one
/// fixed-size copy of its storage, a shared one a length check and a `memcpy` call.
impl From<String> for Str {
    fn from(s: String) -> Self {
        match SmallBytes::inline(s.as_bytes()) {
            Some(b) => Str(b),
            None => Str::from_wire(Bytes::from(s)),
        }
    }
}

impl From<&String> for Str {
    fn from(s: &String) -> Self {
        Str::copy_from(s)
    }
}

impl From<Box<str>> for Str {
    fn from(s: Box<str>) -> Self {
        Str::from(String::from(s))
    }
}

/// The text with malformed input replaced by U+FFFD ([`Str::to_string_lossy`]): what Kafka's
/// Java decoder gives. No copy when the bytes are UTF-8 and not shared with a larger buffer.
impl From<Str> for String {
    fn from(s: Str) -> Self {
        match String::from_utf8(Vec::from(s.into_bytes())) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }
    }
}

// Bytes, not `as_str`: bytes that are not UTF-8 equal no Rust string, not even "".
impl PartialEq<str> for Str {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for Str {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

/// As `str`'s `Debug` for UTF-8; bytes that are not UTF-8 are written `\xNN`.
impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Ok(s) = self.to_str() {
            return fmt::Debug::fmt(s, f);
        }
        f.write_char('"')?;
        for chunk in self.as_bytes().utf8_chunks() {
            for c in chunk.valid().chars() {
                // As `str`'s `Debug`: a single quote is not escaped inside double quotes.
                if c == '\'' {
                    f.write_char(c)?;
                } else {
                    for e in c.escape_debug() {
                        f.write_char(e)?;
                    }
                }
            }
            for b in chunk.invalid() {
                write!(f, "\\x{b:02X}")?;
            }
        }
        f.write_char('"')
    }
}

/// The text with malformed input replaced by U+FFFD, as [`Str::to_string_lossy`], without
/// allocating.
impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Ok(s) = self.to_str() {
            return f.write_str(s);
        }
        for chunk in self.as_bytes().utf8_chunks() {
            f.write_str(chunk.valid())?;
            if !chunk.invalid().is_empty() {
                f.write_char(char::REPLACEMENT_CHARACTER)?;
            }
        }
        Ok(())
    }
}

/// A 128-bit Kafka UUID (Kafka's `uuid`): the most significant 64 bits then the least.
///
/// Its text form is Kafka's: URL-safe base64 without padding (22 characters), as
/// `org.apache.kafka.common.Uuid#toString` prints it.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Uuid([u8; 16]);

impl Uuid {
    /// The all-zero UUID, Kafka's default.
    pub const ZERO: Uuid = Uuid([0; 16]);

    /// From its 16 wire bytes.
    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        Uuid(bytes)
    }

    /// From its two 64-bit halves, as Kafka's `new Uuid(msb, lsb)`.
    pub const fn from_halves(most: u64, least: u64) -> Self {
        Uuid(((most as u128) << 64 | least as u128).to_be_bytes())
    }

    /// From a `u128` (big-endian).
    pub const fn from_u128(v: u128) -> Self {
        Uuid(v.to_be_bytes())
    }

    /// The 16 wire bytes.
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// As a `u128` (big-endian).
    pub const fn as_u128(&self) -> u128 {
        u128::from_be_bytes(self.0)
    }
}

const B64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // 16 bytes = 128 bits = 21 full sextets + 2 bits: 22 characters, no padding.
        let v = self.as_u128();
        let mut out = [0u8; 22];
        for (i, c) in out.iter_mut().enumerate() {
            let shift = 128i32 - 6 * (i as i32 + 1);
            let sextet = if shift >= 0 {
                (v >> shift) & 0x3f
            } else {
                (v << (-shift)) & 0x3f
            };
            *c = B64URL[sextet as usize];
        }
        f.write_str(core::str::from_utf8(&out).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Uuid({self})")
    }
}

/// A UUID text that is not 22 characters of URL-safe base64.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid uuid {0:?}: expected 22 characters of URL-safe base64 (Kafka's Uuid form)")]
pub struct UuidParseError(pub String);

impl FromStr for Uuid {
    type Err = UuidParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || UuidParseError(s.to_owned());
        let s = s.trim_end_matches('=');
        if s.len() != 22 {
            return Err(bad());
        }
        let mut v: u128 = 0;
        for (i, c) in s.bytes().enumerate() {
            let sextet = B64URL.iter().position(|&x| x == c).ok_or_else(bad)? as u128;
            if i < 21 {
                v = (v << 6) | sextet;
            } else {
                // The last character carries 2 bits; the 4 others must be zero.
                if sextet & 0x0f != 0 {
                    return Err(bad());
                }
                v = (v << 2) | (sextet >> 4);
            }
        }
        Ok(Uuid::from_u128(v))
    }
}

/// Record batches carried by a `records` field, kept as their raw bytes.
///
/// The bytes share the decoded buffer. Parsing batches is left to the caller; the codec
/// frames them exactly like nullable `bytes` (ARCHITECTURE.md, *Strings, bytes, arrays and records*).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Records(pub Bytes);

impl From<Bytes> for Records {
    fn from(bytes: Bytes) -> Self {
        Records(bytes)
    }
}

impl From<Vec<u8>> for Records {
    fn from(bytes: Vec<u8>) -> Self {
        Records(Bytes::from(bytes))
    }
}

impl From<&'static [u8]> for Records {
    fn from(bytes: &'static [u8]) -> Self {
        Records(Bytes::from_static(bytes))
    }
}

impl From<Records> for Bytes {
    fn from(r: Records) -> Self {
        r.0
    }
}

impl fmt::Debug for Records {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Records({} bytes)", self.0.len())
    }
}

/// One tagged field that the struct does not declare, kept so it can be re-emitted.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawTaggedField {
    /// The tag.
    pub tag: u32,
    /// The payload exactly as it was on the wire.
    pub data: Bytes,
}

/// The tagged fields of a struct that it does not declare, in the order read.
///
/// Every derived struct with flexible versions holds one, so decode → encode is lossless.
// One pointer, null when empty (nearly always): every flexible struct holds one, so a vector
// (three words) here cost each decoded struct three stores where one does, and 16 bytes
// (InitializeShareGroupState's partitions: 40 -> 24 bytes each). `ManuallyDrop` + the `Drop`
// below: dropped once per decoded struct, so the empty case is one inlined test instead of
// a call to the drop glue (measured with the vector: TxnOffsetCommit v5 100x100
// decode-and-drop, 2.46M -> 2.15M instructions). Nothing leaks: `drop` takes the box out and
// drops it; what stays behind is `None`.
// The box is the point (clippy's `box_collection`): one pointer in every struct, the
// vector's three words only behind it, in the rare struct that has unknown fields.
#[allow(clippy::box_collection)]
#[derive(Clone, Default)]
pub struct UnknownTaggedFields(ManuallyDrop<Option<Box<Vec<RawTaggedField>>>>);

impl Drop for UnknownTaggedFields {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn drop(&mut self) {
        if self.0.is_some() {
            drop_raw_fields(&mut self.0);
        }
    }
}

#[inline(never)]
#[allow(clippy::box_collection)]
fn drop_raw_fields(v: &mut Option<Box<Vec<RawTaggedField>>>) {
    drop(v.take());
}

impl fmt::Debug for UnknownTaggedFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("UnknownTaggedFields")
            .field(&self.as_slice())
            .finish()
    }
}

// By contents: an emptied list (`as_mut_vec`) equals a new one.
impl PartialEq for UnknownTaggedFields {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for UnknownTaggedFields {}

impl core::hash::Hash for UnknownTaggedFields {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl UnknownTaggedFields {
    /// No unknown tagged fields.
    pub const fn new() -> Self {
        UnknownTaggedFields(ManuallyDrop::new(None))
    }

    /// Whether there is none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    /// How many there are.
    #[inline]
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// Adds one (tags must end up strictly ascending, or encoding fails).
    pub fn push(&mut self, tag: u32, data: impl Into<Bytes>) {
        self.as_mut_vec().push(RawTaggedField {
            tag,
            data: data.into(),
        });
    }

    /// The fields, in order.
    #[inline]
    pub fn iter(&self) -> core::slice::Iter<'_, RawTaggedField> {
        self.as_slice().iter()
    }

    /// The fields, in order, as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[RawTaggedField] {
        match &*self.0 {
            Some(v) => v,
            None => &[],
        }
    }

    /// Whether no list was ever made (new, decoded without unknown fields, or from an empty
    /// vector): then there is none, and the writers skip the list with one test of the
    /// pointer instead of reading its length through it.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn is_unset(&self) -> bool {
        self.0.is_none()
    }

    /// Mutable access to the list.
    pub fn as_mut_vec(&mut self) -> &mut Vec<RawTaggedField> {
        self.0.get_or_insert_with(Box::default)
    }
}

impl From<Vec<RawTaggedField>> for UnknownTaggedFields {
    fn from(v: Vec<RawTaggedField>) -> Self {
        if v.is_empty() {
            return UnknownTaggedFields::new();
        }
        UnknownTaggedFields(ManuallyDrop::new(Some(Box::new(v))))
    }
}

impl<'a> IntoIterator for &'a UnknownTaggedFields {
    type Item = &'a RawTaggedField;
    type IntoIter = core::slice::Iter<'a, RawTaggedField>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_input_inline_when_short_shared_when_long() {
        // 2 prefix bytes, a 5-byte value, 30 bytes of a long value, 3 trailing bytes.
        let mut raw = vec![0u8, 5];
        raw.extend_from_slice(b"hello");
        raw.extend_from_slice(&[b'x'; 30]);
        raw.extend_from_slice(b"end");
        let input = Bytes::from(raw);
        let short = Str::from_input(&input, 2..7);
        assert_eq!(short.as_bytes(), b"hello");
        assert!(
            matches!(short.0, SmallBytes::Inline { .. }),
            "5 bytes: inline"
        );
        // No byte before the value, and a window running past the input: copied by length.
        assert_eq!(Str::from_input(&input, 0..2).as_bytes(), [0, 5]);
        assert_eq!(Str::from_input(&input, 37..40).as_bytes(), b"end");
        assert!(Str::from_input(&input, 40..40).is_empty());
        let long = Str::from_input(&input, 7..37);
        assert_eq!(long.as_bytes(), [b'x'; 30]);
        assert!(matches!(long.0, SmallBytes::Shared(_)), "30 bytes: shared");
        assert_eq!(
            long.as_bytes().as_ptr(),
            input[7..].as_ptr(),
            "a slice of the input, not a copy"
        );
        // 23 bytes is the inline limit, 24 shares.
        assert!(matches!(
            Str::from_input(&input, 7..30).0,
            SmallBytes::Inline { .. }
        ));
        assert!(matches!(
            Str::from_input(&input, 7..31).0,
            SmallBytes::Shared(_)
        ));
    }

    #[test]
    #[should_panic(expected = "out of range for slice of length 3")]
    fn from_input_out_of_range_panics() {
        let _ = Str::from_input(&Bytes::from_static(b"abc"), 1..4);
    }

    #[test]
    fn unknown_tagged_fields_compare_by_contents() {
        // One pointer, so that every flexible struct pays one store for it, not three.
        assert_eq!(size_of::<UnknownTaggedFields>(), size_of::<usize>());
        let mut a = UnknownTaggedFields::new();
        assert!(a.is_empty() && a.as_slice().is_empty() && a.iter().next().is_none());
        a.push(3, Bytes::from_static(b"xy"));
        a.push(7, Bytes::new());
        assert_eq!(a.len(), 2);
        assert_eq!(
            a.iter().map(|f| f.tag).collect::<Vec<_>>(),
            [3, 7],
            "kept in the order pushed"
        );
        assert_eq!(
            a,
            UnknownTaggedFields::from(vec![
                RawTaggedField {
                    tag: 3,
                    data: Bytes::from_static(b"xy"),
                },
                RawTaggedField {
                    tag: 7,
                    data: Bytes::new(),
                },
            ])
        );
        assert_ne!(a, UnknownTaggedFields::new());
        let b = a.clone();
        // Emptied through the vector: equal to (and hashed as) a new one.
        a.as_mut_vec().clear();
        assert!(a.is_empty());
        assert_eq!(a, UnknownTaggedFields::new());
        assert_eq!(UnknownTaggedFields::from(Vec::new()), a);
        let hash = |u: &UnknownTaggedFields| {
            use core::hash::{BuildHasher, BuildHasherDefault};
            BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(u)
        };
        assert_eq!(hash(&a), hash(&UnknownTaggedFields::new()));
        assert_eq!(format!("{a:?}"), "UnknownTaggedFields([])");
        assert_eq!(b.len(), 2, "a clone owns its fields");
    }

    #[test]
    fn uuid_text_matches_kafka() {
        // Kafka: new Uuid(0, 0).toString() == "AAAAAAAAAAAAAAAAAAAAAA";
        // Uuid.METADATA_TOPIC_ID = new Uuid(0L, 1L) prints "AAAAAAAAAAAAAAAAAAAAAQ".
        assert_eq!(Uuid::ZERO.to_string(), "AAAAAAAAAAAAAAAAAAAAAA");
        assert_eq!(
            Uuid::from_halves(0, 1).to_string(),
            "AAAAAAAAAAAAAAAAAAAAAQ"
        );
        assert_eq!(
            Uuid::from_u128(u128::MAX).to_string(),
            "_____________________w"
        );
        for v in [
            0u128,
            1,
            u128::MAX,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
        ] {
            let u = Uuid::from_u128(v);
            assert_eq!(u.to_string().parse::<Uuid>().unwrap(), u);
        }
        assert!("AAAA".parse::<Uuid>().is_err());
        assert!("AAAAAAAAAAAAAAAAAAAAAB".parse::<Uuid>().is_err());
        assert!("AAAAAAAAAAAAAAAAAAAA+A".parse::<Uuid>().is_err());
    }

    #[test]
    fn str_map_keys_follow_the_bytes() {
        use std::collections::{BTreeMap, HashMap, HashSet};
        let bad = |b: &'static [u8]| Str::from_wire(Bytes::from_static(b));

        // Valid keys are found by their bytes.
        let mut m = HashMap::new();
        m.insert(Str::from("topic"), 1);
        assert_eq!(m.get(b"topic".as_slice()), Some(&1));
        assert_eq!(m.get(Str::from("topic").as_bytes()), Some(&1));
        let set: HashSet<Str> = [Str::from("a")].into_iter().collect();
        assert!(set.contains(b"a".as_slice()));

        // Invalid keys: each is found by its own bytes only, never by "" (which they would
        // borrow as if `Str` were `Borrow<str>`), and "" finds only the real empty key.
        let mut m = HashMap::new();
        m.insert(bad(b"x\xff"), 1);
        m.insert(bad(b"y\xfe"), 2);
        assert_eq!(m.get(b"".as_slice()), None);
        m.insert(Str::new(), 3);
        assert_eq!(m.get(b"".as_slice()), Some(&3));
        assert_eq!(m.get(b"x\xff".as_slice()), Some(&1));
        assert_eq!(m.get(b"y\xfe".as_slice()), Some(&2));
        assert_eq!(m.len(), 3);

        // A B-tree deep enough to have internal nodes (more than 11 keys), with invalid
        // keys sorting among valid ones: every key is found where the bytes order it.
        let mut keys: Vec<Str> = (b'a'..=b'z')
            .map(|c| Str::from(String::from(char::from(c))))
            .collect();
        for b in [
            b"a\xff".as_slice(),
            b"c\xc3(",
            b"f\x80",
            b"m\xed\xa0\x80",
            b"t\xf0\x9f\x98",
        ] {
            keys.push(bad(b));
        }
        let t: BTreeMap<Str, usize> = keys.iter().cloned().zip(0..).collect();
        assert_eq!(t.len(), keys.len());
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(t.get(k.as_bytes()), Some(&i), "{k:?}");
        }
        assert_eq!(t.get(b"".as_slice()), None);
        // Ordered by bytes: "a" < "a\xff" < "b".
        let order: Vec<&[u8]> = t.keys().take(3).map(|k| k.as_bytes()).collect();
        assert_eq!(order, [b"a".as_slice(), b"a\xff", b"b"]);
    }

    #[test]
    fn str_not_utf8_reads_as_java_does() {
        // (bytes, the text Kafka's Java decoder gives: `new String(bytes, UTF_8)` replaces
        // each maximal malformed subpart with U+FFFD; the same text as Python's
        // `bytes.decode("utf-8", "replace")`, which produced these expectations).
        let cases: [(&[u8], &str); 7] = [
            (b"\xff", "\u{fffd}"),
            (b"\xc3(", "\u{fffd}("),
            (b"ab\xe2\x82", "ab\u{fffd}"),
            (b"\xed\xa0\x80x", "\u{fffd}\u{fffd}\u{fffd}x"),
            (b"\xc0\xaf", "\u{fffd}\u{fffd}"),
            (b"\xf0\x9f\x98", "\u{fffd}"),
            (b"t\xf0\x9f\x98\x80p\x80", "t\u{1f600}p\u{fffd}"),
        ];
        for (bytes, java) in cases {
            let s = Str::from_wire(Bytes::from_static(bytes));
            assert_eq!(s.to_string_lossy(), java);
            assert_eq!(s.to_string(), java, "Display");
            assert_eq!(String::from(s.clone()), java);
            assert!(s.to_str().is_err() && !s.is_utf8());
            // Never a panic and never a prefix that could pass for another name.
            assert_eq!(&*s, "");
            assert_eq!(s.as_bytes(), bytes);
            assert_ne!(s, "");
            assert_ne!(s, java);
            assert!(Str::from_utf8(Bytes::from_static(bytes)).is_err());
        }
        let s = Str::from_wire(Bytes::from_static(b"a\"'\n\xffz"));
        assert_eq!(format!("{s:?}"), r#""a\"'\n\xFFz""#);
        assert_eq!(
            format!("{:?}", Str::from("a\"'\n")),
            format!("{:?}", "a\"'\n")
        );
        let ok = Str::from_wire(Bytes::from_static("hé".as_bytes()));
        assert_eq!((ok.to_str(), ok.as_str()), (Ok("hé"), "hé"));
        assert_eq!(String::from(ok), "hé");
    }

    #[test]
    fn str_basics() {
        let s = Str::from("héllo");
        assert_eq!(&*s, "héllo");
        assert_eq!(s, "héllo");
        assert!(Str::from_utf8(Bytes::from_static(&[0xff])).is_err());
        assert_eq!(Str::new().len(), 0);
        // Inline or shared, a `Str` is the size of a `Bytes`; an `Option` of it needs a tag.
        assert_eq!(size_of::<Str>(), 32);
        assert_eq!(size_of::<Option<Str>>(), 40);
        // Copied inline when short, whatever the source; equal either way.
        let short = Str::copy_from("orders");
        assert_eq!(short, Str::from("orders"));
        assert_eq!(short.clone().into_bytes(), "orders".as_bytes());
        assert_eq!(String::from(short), "orders");
    }

    /// Strings built from owned Rust text are stored as decoded ones are: up to 23 bytes
    /// inline, longer ones keeping the source's storage (no copy), so that an encode of a
    /// built message takes the decoded message's path. The bytes are Kafka's string encoding,
    /// written by hand: int16 length (classic) or uvarint length + 1 (compact), then the
    /// bytes.
    #[test]
    fn str_from_text_inline_when_short() {
        let inline = |s: &Str| s.small().inline_raw().is_some();
        let max = "abcdefghijklmnopqrstuvw";
        assert_eq!(max.len(), crate::small::INLINE_CAP);
        let over = "abcdefghijklmnopqrstuvwx";
        for (text, expect_inline) in [("", true), ("orders", true), (max, true), (over, false)] {
            let owned = String::from(text);
            let at = owned.as_ptr();
            let built = [Str::from(owned), Str::from(Box::<str>::from(text))];
            for s in &built {
                assert_eq!(inline(s), expect_inline, "{text:?}");
                assert_eq!(s.as_bytes(), text.as_bytes());
            }
            // A long owned string keeps its allocation.
            if !expect_inline {
                assert_eq!(built[0].as_bytes().as_ptr(), at);
            }
            // A static one is borrowed, whatever its length.
            assert!(!inline(&Str::from(text)));
        }
        // The inline path writes the same bytes as Kafka's encoding, in both forms, with
        // room in the vector for its whole storage (or without: the exact bytes).
        use crate::field::{Cx, FieldHooks, Sealed};
        for cap in [0, 64] {
            let s = Str::from(String::from("orders"));
            let mut classic = Vec::with_capacity(cap);
            s.write_vec(&mut classic, Cx::new(0), Sealed::TOKEN)
                .unwrap();
            assert_eq!(classic, b"\x00\x06orders");
            let compact_cx = Cx {
                compact: true,
                ..Cx::new(3)
            };
            let mut compact = Vec::with_capacity(cap);
            s.write_vec(&mut compact, compact_cx, Sealed::TOKEN)
                .unwrap();
            assert_eq!(compact, b"\x07orders");
            // The empty string: its prefix alone.
            let e = Str::from(String::new());
            let mut classic = Vec::with_capacity(cap);
            e.write_vec(&mut classic, Cx::new(0), Sealed::TOKEN)
                .unwrap();
            assert_eq!(classic, b"\x00\x00");
            let mut compact = Vec::with_capacity(cap);
            e.write_vec(&mut compact, compact_cx, Sealed::TOKEN)
                .unwrap();
            assert_eq!(compact, b"\x01");
        }
    }
}
