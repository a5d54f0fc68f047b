//! Every API key Kafka has assigned, declared in this crate or not: its name and from which
//! version it is flexible, which is all it takes to know the header versions of any request
//! or response, and so to read or pass along frames of APIs this crate does not declare.
//!
//! The keys this crate declares come from [`ApiKey`], which is complete whatever the cargo
//! features (its names and flexible versions are generated from Kafka's message schemas), so
//! there is one table. Only the four keys Kafka removed from trunk with ZooKeeper mode (4-7:
//! LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown), which `ApiKey` does not
//! declare, are listed here, with the flexible versions of Kafka 3.x's schemas, so that a
//! proxy between older peers still names them and reads their headers.

use kafka_wire::{Version, VersionRange};

use crate::ApiKey;

/// `(key, name, first flexible version)` of the keys Kafka removed, which [`ApiKey`] lacks.
const REMOVED: &[(i16, &str, Version)] = &[
    (4, "LeaderAndIsr", 4),
    (5, "StopReplica", 2),
    (6, "UpdateMetadata", 6),
    (7, "ControlledShutdown", 3),
];

/// Kafka's name for `api_key` (`"Metadata"`, `"ConsumerGroupHeartbeat"`), declared in this
/// crate or not; `None` for a key Kafka has not assigned.
pub fn api_name(api_key: i16) -> Option<&'static str> {
    match ApiKey::from_i16(api_key) {
        Some(api) => Some(api.name()),
        None => removed(api_key).map(|(_, name, _)| *name),
    }
}

/// The first flexible version of `api_key` (its requests and responses agree), `None` if the
/// API is never flexible or the key unknown.
pub fn flexible_since(api_key: i16) -> Option<Version> {
    flexible(api_key)?.min()
}

/// The request header version of `api_key` at `version`: 2 if flexible, else 1; `None` for
/// a key Kafka has not assigned.
pub fn request_header_version(api_key: i16, version: Version) -> Option<Version> {
    Some(kafka_wire::request_header_version(
        flexible(api_key)?,
        version,
    ))
}

/// The response header version of `api_key` at `version`: 1 if flexible, else 0, and always
/// 0 for ApiVersions (so that a client can read the error of a version the broker does not
/// know); `None` for a key Kafka has not assigned.
pub fn response_header_version(api_key: i16, version: Version) -> Option<Version> {
    Some(kafka_wire::response_header_version(
        api_key,
        flexible(api_key)?,
        version,
    ))
}

/// Every API key Kafka has assigned, in ascending order.
pub fn all_api_keys() -> impl Iterator<Item = i16> {
    let mut keys: Vec<i16> = ApiKey::ALL.iter().map(|a| a.key()).collect();
    keys.extend(REMOVED.iter().map(|(k, _, _)| *k));
    keys.sort_unstable();
    keys.into_iter()
}

/// The flexible versions of `api_key`, from [`ApiKey`] or the removed keys' table; `None`
/// for a key Kafka has not assigned.
fn flexible(api_key: i16) -> Option<VersionRange> {
    match ApiKey::from_i16(api_key) {
        Some(api) => Some(api.request_flexible_versions()),
        None => removed(api_key).map(|(_, _, f)| VersionRange::at_least(*f)),
    }
}

fn removed(api_key: i16) -> Option<&'static (i16, &'static str, Version)> {
    REMOVED.iter().find(|(k, _, _)| *k == api_key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ApiKey;

    #[test]
    fn the_table_is_sorted_and_agrees_with_the_declared_apis() {
        let keys: Vec<i16> = all_api_keys().collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
        // Kafka has assigned every key from 0 to the highest one.
        assert_eq!(keys, (0..keys.len() as i16).collect::<Vec<_>>());
        for (k, _, _) in REMOVED {
            assert!(ApiKey::from_i16(*k).is_none(), "{k} is declared");
        }
        for api in ApiKey::ALL {
            assert_eq!(api_name(api.key()), Some(api.name()));
            for v in api.request_versions().iter() {
                assert_eq!(
                    request_header_version(api.key(), v),
                    Some(api.request_header_version(v))
                );
                assert_eq!(
                    response_header_version(api.key(), v),
                    Some(api.response_header_version(v))
                );
            }
        }
    }

    // Values from Kafka's schemas: Metadata flexible from 9, SaslHandshake never.
    #[test]
    fn undeclared_apis_have_names_and_header_versions() {
        assert_eq!(api_name(3), Some("Metadata"));
        assert_eq!(api_name(68), Some("ConsumerGroupHeartbeat"));
        assert_eq!(api_name(-1), None);
        assert_eq!(api_name(10_000), None);
        assert_eq!(request_header_version(3, 8), Some(1));
        assert_eq!(request_header_version(3, 9), Some(2));
        // "9+": a version above the highest this crate declares is flexible too.
        assert_eq!(request_header_version(3, 100), Some(2));
        assert_eq!(flexible_since(3), Some(9));
        assert_eq!(flexible_since(17), None);
        // A key Kafka removed: named, flexible from Kafka 3.x's version.
        assert_eq!(api_name(6), Some("UpdateMetadata"));
        assert_eq!(request_header_version(6, 5), Some(1));
        assert_eq!(request_header_version(6, 6), Some(2));
        assert_eq!(response_header_version(3, 9), Some(1));
        assert_eq!(response_header_version(17, 1), Some(0));
        assert_eq!(response_header_version(18, 4), Some(0));
        assert_eq!(response_header_version(999, 0), None);
        assert_eq!(all_api_keys().count(), 95);
    }
}
