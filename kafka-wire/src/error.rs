//! Typed decode and encode errors: what was wrong, where (byte offset) and in which field.

use core::fmt;

use crate::Version;

/// One step of a field path such as `TxnOffsetCommitRequest.topics[3].partitions[0].committed_metadata`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSegment {
    /// The struct the path starts from (the message or header being decoded).
    Root(&'static str),
    /// A named field.
    Field(&'static str),
    /// An element of an array.
    Index(usize),
    /// A frame-level part that is not a field (for example `header` or `body`).
    Part(&'static str),
}

/// A field path, built as an error travels up from the failing field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldPath {
    // Innermost first: segments are pushed while the error bubbles up, which keeps the
    // success path free of any bookkeeping.
    rev: Vec<PathSegment>,
}

impl FieldPath {
    /// The segments, outermost first.
    pub fn segments(&self) -> impl Iterator<Item = &PathSegment> {
        self.rev.iter().rev()
    }

    /// Whether the path has no segment.
    pub fn is_empty(&self) -> bool {
        self.rev.is_empty()
    }

    fn push_outer(&mut self, seg: PathSegment) {
        self.rev.push(seg);
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for seg in self.segments() {
            match seg {
                PathSegment::Root(n) | PathSegment::Field(n) | PathSegment::Part(n) => {
                    if !first {
                        f.write_str(".")?;
                    }
                    f.write_str(n)?;
                }
                PathSegment::Index(i) => write!(f, "[{i}]")?,
            }
            first = false;
        }
        Ok(())
    }
}

/// What was wrong with the bytes being decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The input ended inside a value.
    #[error("truncated input: needed {needed} more byte(s), {available} available")]
    Truncated {
        /// Bytes the value needs.
        needed: usize,
        /// Bytes that were left.
        available: usize,
    },
    /// A length or count below -1 (classic) that is not Kafka's null marker.
    #[error("negative length {0}")]
    NegativeLength(i64),
    /// A declared length or element count larger than the bytes that remain.
    #[error("declared length {declared} exceeds the {remaining} byte(s) remaining")]
    LengthExceedsInput {
        /// The declared length or count.
        declared: u64,
        /// Bytes left in the input.
        remaining: usize,
    },
    /// A value above one of the configured [`DecodeLimits`](crate::DecodeLimits).
    #[error("{value} exceeds the limit {limit} = {max}")]
    LimitExceeded {
        /// Which limit.
        limit: crate::Limit,
        /// The declared length or count (or the running total).
        value: u64,
        /// The limit's value.
        max: u64,
    },
    /// A string longer than Kafka's 32767-byte limit.
    #[error("string length {0} exceeds Kafka's limit of 32767 bytes")]
    StringTooLong(u64),
    /// Null where the field is not nullable at this version.
    #[error("null in a field that is not nullable at version {version}")]
    UnexpectedNull {
        /// The version being decoded.
        version: Version,
    },
    /// A string that is not UTF-8: any string under
    /// [`DecodeLimits::strict_utf8`](crate::DecodeLimits::strict_utf8), or one read into a
    /// `String` field (by the typed and the metadata-driven decoders alike).
    #[error("invalid UTF-8 in string: {0}")]
    InvalidUtf8(core::str::Utf8Error),
    /// An unsigned varint whose 5th byte (or a varlong whose 10th) has the continuation bit.
    #[error("varint is too long: continuation bit set in byte {max_bytes}")]
    VarintTooLong {
        /// The maximum number of bytes of the encoding.
        max_bytes: u8,
    },
    /// A varint in a non-minimal form (a zero last byte) or with bits beyond its width.
    #[error("overlong varint: non-minimal encoding or value out of range")]
    NonCanonicalVarint,
    /// A tagged field that the struct knows but that is not tagged at this version.
    #[error("tag {tag} is not valid for version {version}")]
    TagNotValidForVersion {
        /// The tag.
        tag: u32,
        /// The version being decoded.
        version: Version,
    },
    /// A tag that is not strictly above the previous one in the same tagged section.
    #[error("tag {tag} follows tag {previous}: tags must be strictly ascending")]
    UnorderedTag {
        /// The tag read.
        tag: u32,
        /// The tag before it.
        previous: u32,
    },
    /// A known tagged field whose payload did not fill its declared size.
    #[error("tagged field {tag} declares {declared} byte(s) but its value took {actual}")]
    TaggedSizeMismatch {
        /// The tag.
        tag: u32,
        /// The size on the wire.
        declared: u64,
        /// The bytes the value used.
        actual: usize,
    },
    /// An API key this codec does not declare.
    #[error("unknown api key {0}")]
    UnknownApiKey(i16),
    /// An API that this build does not compile in: Kafka assigned its key and the messages
    /// crate knows it, but the cargo features that would compile its types are off.
    #[error(
        "API {name} is not compiled in: enable the cargo feature {features} of kafkawire-messages"
    )]
    ApiNotCompiled {
        /// The API's name (`"Produce"`).
        name: &'static str,
        /// The features that compile it (`"client"`, or `"admin" or "txn"`).
        features: &'static str,
    },
    /// A version outside the struct's or API's valid versions.
    #[error("unsupported version {version} of {name}")]
    UnsupportedVersion {
        /// The struct or API.
        name: &'static str,
        /// The version asked for.
        version: Version,
    },
    /// Bytes left after a frame's body.
    #[error("{0} trailing byte(s) after the end of the message")]
    TrailingBytes(usize),
    /// A frame whose size prefix is negative.
    #[error("negative frame size {0}")]
    NegativeFrameSize(i32),
    /// A value that is not valid for its type (for example a bad enum discriminant in user code).
    #[error("invalid value: {0}")]
    InvalidValue(&'static str),
    /// A record set that does not read (converted from the records reader's error, which
    /// keeps the batch and record index and whether the offset counts in decompressed bytes).
    #[cfg(feature = "records")]
    #[error("{}", .0.kind())]
    Records(crate::records::RecordsError),
}

#[cfg(feature = "records")]
impl From<crate::records::RecordsError> for DecodeError {
    /// The records reader's failure as a decode error: the same offset (from the start of
    /// the record set, or of the batch's decompressed records), and the path
    /// `records[batch][record]` (`records[batch].decompressed[record]` when the offset
    /// counts in decompressed bytes), so that `?` carries it out of a decoding function.
    #[cold]
    fn from(e: crate::records::RecordsError) -> Self {
        let (offset, batch, record, decompressed) =
            (e.offset(), e.batch(), e.record(), e.in_decompressed());
        let mut d = DecodeError::new(DecodeErrorKind::Records(e), offset);
        if let Some(r) = record {
            d = d.at_index(r);
        }
        if decompressed {
            d = d.in_part("decompressed");
        }
        d.at_index(batch).in_part("records")
    }
}

/// The path accessor and builders both error types share: each builder adds one segment on
/// the outside of the path as the error travels up through the values that enclose it.
macro_rules! path_methods {
    () => {
        /// The path of the offending field.
        pub fn path(&self) -> &FieldPath {
            &self.0.path
        }

        /// Adds the enclosing field's name to the path (used by generated code).
        #[cfg_attr(not(debug_assertions), inline(always))]
        #[cfg_attr(debug_assertions, inline)]
        pub fn in_field(self, name: &'static str) -> Self {
            Self::push_field(self, name)
        }

        /// Adds the array index to the path (used by generated code).
        #[cold]
        pub fn at_index(mut self, index: usize) -> Self {
            self.0.path.push_outer(PathSegment::Index(index));
            self
        }

        /// [`Self::in_field`], out of line. `extern "C"` tells every caller that it cannot
        /// unwind, so a call to it on an error path is a plain call, not an `invoke` with
        /// cleanup blocks for the caller's partly built values (every field the generated
        /// `write` puts has such an error path). It cannot panic: it pushes one segment onto
        /// the path's `Vec`, whose only failures are an allocation failure (which aborts,
        /// it does not unwind) and a capacity overflow (more segments than memory can
        /// hold); were it to panic, the panic would abort instead of unwinding.
        #[cold]
        #[inline(never)]
        #[allow(improper_ctypes_definitions)] // a Rust `&str`: only Rust calls this
        extern "C" fn push_field(mut self, name: &'static str) -> Self {
            self.0.path.push_outer(PathSegment::Field(name));
            self
        }

        /// Adds the root struct's name to the path.
        #[cold]
        pub fn in_root(mut self, name: &'static str) -> Self {
            self.0.path.push_outer(PathSegment::Root(name));
            self
        }

        /// Adds a frame part (such as `header` or `body`) to the path.
        #[cold]
        pub fn in_part(mut self, name: &'static str) -> Self {
            self.0.path.push_outer(PathSegment::Part(name));
            self
        }
    };
}

/// A decode failure: the kind, the byte offset where it was found, and the field path.
///
/// Boxed so that `Result<T, DecodeError>` stays one word wide on the hot path.
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<DecodeErrorInner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct DecodeErrorInner {
    kind: DecodeErrorKind,
    offset: usize,
    path: FieldPath,
}

impl DecodeError {
    /// An error of `kind` found at byte `offset` (from the start of the decoded buffer).
    #[cold]
    pub fn new(kind: DecodeErrorKind, offset: usize) -> Self {
        DecodeError(Box::new(DecodeErrorInner {
            kind,
            offset,
            path: FieldPath::default(),
        }))
    }

    /// What was wrong.
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.0.kind
    }

    /// The byte offset of the offending value, from the start of the decoded buffer.
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    path_methods!();

    /// Moves the error to byte `offset` (for an error found after the offending value was
    /// read, such as a tag that turns out not to be valid at the version).
    #[cold]
    pub(crate) fn with_offset(mut self, offset: usize) -> Self {
        self.0.offset = offset;
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.0.kind, self.0.offset)?;
        let named = match &self.0.kind {
            DecodeErrorKind::UnsupportedVersion { name, .. } => Some(*name),
            _ => None,
        };
        if !self.0.path.is_empty() && !path_is(&self.0.path, named) {
            write!(f, " in `{}`", self.0.path)?;
        }
        Ok(())
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodeError")
            .field("kind", &self.0.kind)
            .field("offset", &self.0.offset)
            .field("path", &format_args!("{}", self.0.path))
            .finish()
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0.kind)
    }
}

/// Why a value could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeErrorKind {
    /// The version is outside the struct's valid versions.
    #[error("can't write version {version} of {name}")]
    UnsupportedVersion {
        /// The struct.
        name: &'static str,
        /// The version asked for.
        version: Version,
    },
    /// A non-ignorable field that is absent at this version holds a non-default value.
    #[error(
        "attempted to write a non-default value of a field that version {version} does not have"
    )]
    NonDefaultAbsentField {
        /// The version being written.
        version: Version,
    },
    /// Null in a field that is not nullable at this version.
    #[error("null in a field that is not nullable at version {version}")]
    NullNotAllowed {
        /// The version being written.
        version: Version,
    },
    /// A string longer than 32767 bytes.
    #[error("string of {0} bytes is too long to be serialized (limit 32767)")]
    StringTooLong(usize),
    /// An array or bytes value longer than an int32 length can say.
    #[error("length {0} is too large to be serialized")]
    LengthTooLarge(usize),
    /// Unknown tagged fields set on a struct written at a version that has no tagged fields.
    #[error("tagged fields were set, but version {version} of this message does not support them")]
    TaggedFieldsNotSupported {
        /// The version being written.
        version: Version,
    },
    /// Unknown tagged fields not in strictly ascending tag order.
    #[error("invalid raw tag field list: tag {tag} comes after tag {previous}, but is not higher than it")]
    UnorderedRawTag {
        /// The offending tag.
        tag: u32,
        /// The tag before it.
        previous: u32,
    },
    /// An unknown tagged field that reuses a tag the struct declares.
    #[error("attempted to use tag {0} as an undefined tag")]
    RawTagCollides(u32),
    /// The destination has less room than the encoding needs; nothing was written.
    #[error("the encoding takes {needed} bytes but the buffer has room for {available}")]
    BufferTooSmall {
        /// The exact size of the encoding.
        needed: usize,
        /// The room left in the buffer (`BufMut::remaining_mut`).
        available: usize,
    },
    /// A value the frame or header cannot carry (for example a frame over 2 GiB).
    #[error("invalid value: {0}")]
    InvalidValue(&'static str),
}

/// An encode failure: the kind and the path of the field that caused it.
#[derive(Clone, PartialEq, Eq)]
pub struct EncodeError(Box<EncodeErrorInner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct EncodeErrorInner {
    kind: EncodeErrorKind,
    path: FieldPath,
}

impl EncodeError {
    /// An error of `kind`, with an empty path.
    #[cold]
    pub fn new(kind: EncodeErrorKind) -> Self {
        EncodeError(Box::new(EncodeErrorInner {
            kind,
            path: FieldPath::default(),
        }))
    }

    /// What was wrong.
    pub fn kind(&self) -> &EncodeErrorKind {
        &self.0.kind
    }

    /// [`Self::at_index`] for the array loops of the encoders, out of line and not
    /// unwinding, as `push_field` (see [`Self::in_field`]): a plain call, not an `invoke`
    /// with cleanups, in every array's loop of the generated `write_vec`. It cannot panic,
    /// for the same reason. The decoders' array loop keeps the unwinding `at_index`: not
    /// unwinding, the decode side's builders changed that loop's registers (see
    /// `private::named_decode_error`).
    #[cold]
    #[inline(never)]
    #[allow(improper_ctypes_definitions)] // `Self`, a Rust struct: only Rust calls this
    pub(crate) extern "C" fn at_index_nounwind(mut self, index: usize) -> Self {
        self.0.path.push_outer(PathSegment::Index(index));
        self
    }

    path_methods!();
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.kind)?;
        // "can't write version 5 of HeartbeatRequest" already says where: a path that is just
        // the struct's name would repeat it.
        let named = match &self.0.kind {
            EncodeErrorKind::UnsupportedVersion { name, .. } => Some(*name),
            _ => None,
        };
        if !self.0.path.is_empty() && !path_is(&self.0.path, named) {
            write!(f, " in `{}`", self.0.path)?;
        }
        Ok(())
    }
}

/// Whether `path` is exactly the single name `name`.
fn path_is(path: &FieldPath, name: Option<&str>) -> bool {
    name.is_some_and(|n| path.to_string() == n)
}

impl fmt::Debug for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EncodeError")
            .field("kind", &self.0.kind)
            .field("path", &format_args!("{}", self.0.path))
            .finish()
    }
}

impl std::error::Error for EncodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0.kind)
    }
}
