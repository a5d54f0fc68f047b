//! Version negotiation: which version of each API to use with a broker, from its
//! ApiVersions response.
//!
//! A Kafka client sends ApiVersions first, then uses for each API the highest version both
//! sides support. [`negotiate`] does that over any list of APIs (the generated
//! [`ApiKey::negotiate`](crate::ApiKey::negotiate) passes the declared ones), and
//! [`api_versions_retry_version`] is the step before: a broker that does not support the
//! ApiVersions version it was asked answers with a v0 body (which
//! [`ResponseFrame::decode`](crate::ResponseFrame::decode) reads by default) listing
//! what it does support, and the client asks again at that version.
//!
//! ```
//! use kafka_wire::VersionRange;
//! use kafka_wire_messages::negotiate::negotiate;
//! use kafka_wire_messages::{ApiVersion, ApiVersionsResponse};
//!
//! let broker = ApiVersionsResponse {
//!     api_keys: vec![
//!         ApiVersion { api_key: 18, min_version: 0, max_version: 3, ..Default::default() },
//!         ApiVersion { api_key: 28, min_version: 0, max_version: 5, ..Default::default() },
//!         ApiVersion { api_key: 12, min_version: 7, max_version: 9, ..Default::default() },
//!     ],
//!     ..Default::default()
//! };
//! // We speak ApiVersions 0-4, TxnOffsetCommit 0-3, Heartbeat 0-4 and Metadata 0-12.
//! let ours = [
//!     (18, VersionRange::new(0, 4)),
//!     (28, VersionRange::new(0, 3)),
//!     (12, VersionRange::new(0, 4)),
//!     (3, VersionRange::new(0, 12)),
//! ];
//! let versions = negotiate(&broker, ours);
//! assert_eq!(versions.version(18), Some(3)); // the broker's highest
//! assert_eq!(versions.version(28), Some(3)); // ours
//! assert_eq!(versions.version(12), None); // no version in common
//! assert_eq!(versions.version(3), None); // the broker does not list it
//! ```

use kafka_wire::{ErrorCode, Version, VersionRange};

use crate::ApiVersionsResponse;

/// The version to use for each API both sides support, by API key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Negotiated {
    /// (API key, version), sorted by key, one entry per key.
    versions: Vec<(i16, Version)>,
}

impl Negotiated {
    /// The version to use for `api_key`, or `None` if the broker does not support a version
    /// this side does (or does not list the API).
    pub fn version(&self, api_key: i16) -> Option<Version> {
        self.versions
            .binary_search_by_key(&api_key, |&(k, _)| k)
            .ok()
            .and_then(|i| self.versions.get(i))
            .map(|&(_, v)| v)
    }

    /// Every (API key, version) pair, in ascending key order.
    pub fn iter(&self) -> impl Iterator<Item = (i16, Version)> + '_ {
        self.versions.iter().copied()
    }

    /// The number of APIs both sides can use.
    pub fn len(&self) -> usize {
        self.versions.len()
    }

    /// Whether no API is usable.
    pub fn is_empty(&self) -> bool {
        self.versions.is_empty()
    }
}

/// The highest version in both `ours` and the broker's `min..=max`, as Kafka's clients pick
/// it; `None` when the ranges do not meet.
pub fn highest_common(
    ours: VersionRange,
    broker_min: Version,
    broker_max: Version,
) -> Option<Version> {
    ours.intersect(VersionRange::new(broker_min, broker_max))
        .max()
}

/// For each `(api_key, versions)` of `ours`, the highest version the broker also supports.
///
/// APIs the broker does not list, or lists with no version in common, are left out. When
/// `ours` names a key twice, the later entry wins; when the broker lists a key twice, the
/// first listing is used.
pub fn negotiate(
    broker: &ApiVersionsResponse,
    ours: impl IntoIterator<Item = (i16, VersionRange)>,
) -> Negotiated {
    let mut versions: Vec<(i16, Version)> = Vec::new();
    for (key, range) in ours {
        versions.retain(|&(k, _)| k != key);
        let Some(b) = broker.api_keys.iter().find(|a| a.api_key == key) else {
            continue;
        };
        if let Some(v) = highest_common(range, b.min_version, b.max_version) {
            versions.push((key, v));
        }
    }
    versions.sort_unstable_by_key(|&(k, _)| k);
    Negotiated { versions }
}

/// The ApiVersions version to ask again at, after `response` answered a request with
/// `UNSUPPORTED_VERSION`: the highest ApiVersions version the broker lists (0 if it lists
/// none), capped by `ours`, as Kafka's Java client does. `None` when `response` is not that
/// error (there is nothing to retry), or when no version of `ours` is at or below the
/// broker's.
pub fn api_versions_retry_version(
    response: &ApiVersionsResponse,
    ours: VersionRange,
) -> Option<Version> {
    if response.error_code != ErrorCode::UNSUPPORTED_VERSION {
        return None;
    }
    let broker_max = response
        .api_keys
        .iter()
        .find(|a| a.api_key == kafka_wire::API_VERSIONS_KEY)
        .map_or(0, |a| a.max_version);
    highest_common(ours, 0, broker_max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ApiVersion;

    fn api(api_key: i16, min_version: i16, max_version: i16) -> ApiVersion {
        ApiVersion {
            api_key,
            min_version,
            max_version,
            ..Default::default()
        }
    }

    #[test]
    fn highest_common_is_the_top_of_the_overlap() {
        assert_eq!(highest_common(VersionRange::new(0, 5), 2, 9), Some(5));
        assert_eq!(highest_common(VersionRange::new(3, 5), 0, 4), Some(4));
        assert_eq!(highest_common(VersionRange::new(3, 5), 6, 9), None);
        assert_eq!(highest_common(VersionRange::new(3, 5), 4, 2), None);
        assert_eq!(highest_common(VersionRange::NONE, 0, 9), None);
    }

    #[test]
    fn retry_after_unsupported_version() {
        // A broker serving ApiVersions 0-2 answers a v3 request (error 35).
        let resp = ApiVersionsResponse {
            error_code: ErrorCode::UNSUPPORTED_VERSION.code(),
            api_keys: vec![api(18, 0, 2)],
            ..Default::default()
        };
        assert_eq!(
            api_versions_retry_version(&resp, VersionRange::new(0, 4)),
            Some(2)
        );
        // Capped by ours.
        assert_eq!(
            api_versions_retry_version(&resp, VersionRange::new(0, 1)),
            Some(1)
        );
        // No ApiVersions entry: v0.
        let bare = ApiVersionsResponse {
            error_code: ErrorCode::UNSUPPORTED_VERSION.code(),
            ..Default::default()
        };
        assert_eq!(
            api_versions_retry_version(&bare, VersionRange::new(0, 4)),
            Some(0)
        );
        // Not an error: nothing to retry.
        let ok = ApiVersionsResponse {
            api_keys: vec![api(18, 0, 2)],
            ..Default::default()
        };
        assert_eq!(
            api_versions_retry_version(&ok, VersionRange::new(0, 4)),
            None
        );
    }

    #[test]
    fn negotiate_skips_unlisted_and_disjoint() {
        let broker = ApiVersionsResponse {
            api_keys: vec![api(28, 0, 5), api(18, 0, 3), api(24, 4, 5), api(18, 0, 1)],
            ..Default::default()
        };
        let n = negotiate(
            &broker,
            [
                (18, VersionRange::new(0, 4)),
                (24, VersionRange::new(0, 3)),
                (83, VersionRange::new(0, 0)),
                (28, VersionRange::new(0, 6)),
            ],
        );
        assert_eq!(n.iter().collect::<Vec<_>>(), vec![(18, 3), (28, 5)]);
        assert_eq!(n.len(), 2);
    }

    #[cfg(feature = "all")]
    #[test]
    fn declared_apis_negotiate() {
        // A broker listing ApiVersions 0-3 and TxnOffsetCommit 0-4 (Kafka 2.x-like), and
        // InitializeShareGroupState at 1+ only.
        let broker = ApiVersionsResponse {
            api_keys: vec![api(18, 0, 3), api(28, 0, 4), api(83, 1, 1)],
            ..Default::default()
        };
        let n = crate::ApiKey::negotiate(&broker, false);
        assert_eq!(n.iter().collect::<Vec<_>>(), vec![(18, 3), (28, 4)]);
    }
}
