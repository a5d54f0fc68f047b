//! Versions: a struct is written and read only at its own versions; a field that a version
//! lacks must hold its default unless it is ignorable; nested structs share their parent's
//! flexible versions (Kafka's generator, `MessageDataGenerator`, throws
//! `UnsupportedVersionException` in the first two cases).

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::{Reader, Version, VersionRange};

/// Fails unless `version` is one of the struct's.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub fn check_write_version(
    name: &'static str,
    versions: VersionRange,
    version: Version,
) -> Result<(), EncodeError> {
    if versions.contains(version) {
        Ok(())
    } else {
        Err(EncodeError::new(EncodeErrorKind::UnsupportedVersion {
            name,
            version,
        }))
    }
}

/// Fails unless `version` is one of the struct's.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub fn check_read_version(
    name: &'static str,
    versions: VersionRange,
    version: Version,
    r: &Reader<'_>,
) -> Result<(), DecodeError> {
    if versions.contains(version) {
        Ok(())
    } else {
        Err(r.error(DecodeErrorKind::UnsupportedVersion { name, version }))
    }
}

/// The error for a non-default value in a non-ignorable field absent at `version`.
#[cold]
pub fn absent_field(field: &'static str, version: Version) -> EncodeError {
    EncodeError::new(EncodeErrorKind::NonDefaultAbsentField { version }).in_field(field)
}

/// Fails the build when a nested struct's flexible versions differ from its parent's: Kafka
/// gives every struct of a message the message's flexible versions (Java's
/// `MessageDataGenerator` writes each struct's tagged section in the message's flexible
/// versions), so a mismatch would put tagged sections where Kafka has none.
pub const fn check_nested_flexible(nested: Option<VersionRange>, parent: VersionRange) {
    if let Some(n) = nested {
        if !n.same_as(parent) {
            panic!("a nested struct's `flexible` versions must equal those of the struct that contains it: Kafka gives every struct the message's flexible versions");
        }
    }
}
