//! Version ranges, Kafka's `"0-5"`, `"3+"`, `"4"` and `"none"`.

use core::fmt;

/// An API version as Kafka puts it on the wire (a Java `short`).
pub type Version = i16;

/// An inclusive range of API versions, as written in Kafka's JSON schemas.
///
/// `"N+"` is `N..=32767`, `"A-B"` is `A..=B`, `"N"` is `N..=N` and `"none"` is empty
/// (Java's `org.apache.kafka.message.Versions`). A range whose minimum is above its maximum is empty.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct VersionRange {
    min: Version,
    max: Version,
}

impl VersionRange {
    /// The empty range (`"none"`).
    pub const NONE: VersionRange = VersionRange { min: 0, max: -1 };
    /// Every version (`"0+"`).
    pub const ALL: VersionRange = VersionRange::at_least(0);

    /// `min..=max`; empty when `min > max`.
    pub const fn new(min: Version, max: Version) -> Self {
        VersionRange { min, max }
    }

    /// `min..=32767`, Kafka's open-ended `"N+"`.
    pub const fn at_least(min: Version) -> Self {
        VersionRange {
            min,
            max: Version::MAX,
        }
    }

    /// Whether `version` is in the range.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub const fn contains(self, version: Version) -> bool {
        version >= self.min && version <= self.max
    }

    /// Whether the range holds no version.
    pub const fn is_empty(self) -> bool {
        self.min > self.max
    }

    /// Whether the range is open-ended (`"N+"`).
    pub const fn is_open_ended(self) -> bool {
        !self.is_empty() && self.max == Version::MAX
    }

    /// The lowest version, or `None` when empty.
    pub const fn min(self) -> Option<Version> {
        if self.is_empty() {
            None
        } else {
            Some(self.min)
        }
    }

    /// The highest version, or `None` when empty (`32767` for an open-ended range).
    pub const fn max(self) -> Option<Version> {
        if self.is_empty() {
            None
        } else {
            Some(self.max)
        }
    }

    /// The versions in both ranges.
    pub const fn intersect(self, other: VersionRange) -> VersionRange {
        let min = if self.min > other.min {
            self.min
        } else {
            other.min
        };
        let max = if self.max < other.max {
            self.max
        } else {
            other.max
        };
        if min > max {
            VersionRange::NONE
        } else {
            VersionRange { min, max }
        }
    }

    /// Equality usable in constants (every empty range is equal to every other).
    pub const fn same_as(self, other: VersionRange) -> bool {
        (self.is_empty() && other.is_empty()) || (self.min == other.min && self.max == other.max)
    }

    /// Whether every version of `self` is in `other` (the empty range is in every range).
    pub const fn is_subset_of(self, other: VersionRange) -> bool {
        self.is_empty() || (self.min >= other.min && self.max <= other.max)
    }

    /// Iterates over the versions of a bounded range (an open-ended range yields up to 32767).
    pub fn iter(self) -> impl Iterator<Item = Version> {
        let (min, max) = if self.is_empty() {
            (1, 0)
        } else {
            (self.min, self.max)
        };
        min..=max
    }

    /// Parses Kafka's syntax: `"none"`, `"N+"`, `"A-B"` or `"N"` (surrounding space is trimmed).
    pub fn parse(text: &str) -> Result<Self, VersionRangeError> {
        let s = text.trim();
        let bad = || VersionRangeError(text.to_owned());
        let num = |t: &str| -> Result<Version, VersionRangeError> {
            let t = t.trim();
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            t.parse::<Version>().map_err(|_| bad())
        };
        if s == "none" {
            Ok(VersionRange::NONE)
        } else if let Some(n) = s.strip_suffix('+') {
            Ok(VersionRange::at_least(num(n)?))
        } else if let Some((a, b)) = s.split_once('-') {
            Ok(VersionRange::new(num(a)?, num(b)?))
        } else {
            let n = num(s)?;
            Ok(VersionRange::new(n, n))
        }
    }
}

impl Default for VersionRange {
    fn default() -> Self {
        VersionRange::NONE
    }
}

/// A version range string that is not in Kafka's syntax.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid version range {0:?}: expected \"none\", \"N+\", \"A-B\" or \"N\" with N in 0..=32767"
)]
pub struct VersionRangeError(String);

impl core::str::FromStr for VersionRange {
    type Err = VersionRangeError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        VersionRange::parse(s)
    }
}

impl fmt::Display for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            f.write_str("none")
        } else if self.max == Version::MAX {
            write!(f, "{}+", self.min)
        } else if self.min == self.max {
            write!(f, "{}", self.min)
        } else {
            write!(f, "{}-{}", self.min, self.max)
        }
    }
}

impl fmt::Debug for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VersionRange({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kafka_syntax() {
        assert_eq!(
            VersionRange::parse("3+").unwrap(),
            VersionRange::at_least(3)
        );
        assert_eq!(
            VersionRange::parse(" 0-5 ").unwrap(),
            VersionRange::new(0, 5)
        );
        assert_eq!(VersionRange::parse("4").unwrap(), VersionRange::new(4, 4));
        assert!(VersionRange::parse("none").unwrap().is_empty());
        for bad in ["", "4+x", "-1", "a-b", "1-", "+", "40000", "1--2"] {
            assert!(
                VersionRange::parse(bad).is_err(),
                "{bad:?} should not parse"
            );
        }
    }

    #[test]
    fn displays_back() {
        for s in ["none", "3+", "0-5", "4"] {
            assert_eq!(VersionRange::parse(s).unwrap().to_string(), s);
        }
    }

    #[test]
    fn set_operations() {
        let a = VersionRange::new(0, 5);
        assert!(a.contains(0) && a.contains(5) && !a.contains(6) && !a.contains(-1));
        assert_eq!(
            a.intersect(VersionRange::at_least(3)),
            VersionRange::new(3, 5)
        );
        assert!(a.intersect(VersionRange::at_least(6)).is_empty());
        assert!(VersionRange::new(3, 4).is_subset_of(a));
        assert!(!VersionRange::at_least(3).is_subset_of(a));
        assert!(VersionRange::NONE.is_subset_of(VersionRange::NONE));
        assert_eq!(a.iter().count(), 6);
    }
}
