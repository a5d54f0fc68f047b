//! Every API key Kafka has assigned, declared in this crate or not: its name and from which
//! version it is flexible, which is all it takes to know the header versions of any request
//! or response, and so to read or pass along frames of APIs this crate does not declare.
//!
//! The table was taken from Apache Kafka's message schemas
//! (`clients/src/main/resources/common/message/*.json` on trunk, keys 0-94). Keys 4-7
//! (LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown) were removed from trunk
//! with ZooKeeper mode; their flexible versions are those of Kafka 3.x's schemas.

use kafka_wire::{Version, API_VERSIONS_KEY};

/// `(key, name, first flexible version)`: `None` for an API never flexible.
const APIS: &[(i16, &str, Option<Version>)] = &[
    (0, "Produce", Some(9)),
    (1, "Fetch", Some(12)),
    (2, "ListOffsets", Some(6)),
    (3, "Metadata", Some(9)),
    (4, "LeaderAndIsr", Some(4)),
    (5, "StopReplica", Some(2)),
    (6, "UpdateMetadata", Some(6)),
    (7, "ControlledShutdown", Some(3)),
    (8, "OffsetCommit", Some(8)),
    (9, "OffsetFetch", Some(6)),
    (10, "FindCoordinator", Some(3)),
    (11, "JoinGroup", Some(6)),
    (12, "Heartbeat", Some(4)),
    (13, "LeaveGroup", Some(4)),
    (14, "SyncGroup", Some(4)),
    (15, "DescribeGroups", Some(5)),
    (16, "ListGroups", Some(3)),
    (17, "SaslHandshake", None),
    (18, "ApiVersions", Some(3)),
    (19, "CreateTopics", Some(5)),
    (20, "DeleteTopics", Some(4)),
    (21, "DeleteRecords", Some(2)),
    (22, "InitProducerId", Some(2)),
    (23, "OffsetForLeaderEpoch", Some(4)),
    (24, "AddPartitionsToTxn", Some(3)),
    (25, "AddOffsetsToTxn", Some(3)),
    (26, "EndTxn", Some(3)),
    (27, "WriteTxnMarkers", Some(1)),
    (28, "TxnOffsetCommit", Some(3)),
    (29, "DescribeAcls", Some(2)),
    (30, "CreateAcls", Some(2)),
    (31, "DeleteAcls", Some(2)),
    (32, "DescribeConfigs", Some(4)),
    (33, "AlterConfigs", Some(2)),
    (34, "AlterReplicaLogDirs", Some(2)),
    (35, "DescribeLogDirs", Some(2)),
    (36, "SaslAuthenticate", Some(2)),
    (37, "CreatePartitions", Some(2)),
    (38, "CreateDelegationToken", Some(2)),
    (39, "RenewDelegationToken", Some(2)),
    (40, "ExpireDelegationToken", Some(2)),
    (41, "DescribeDelegationToken", Some(2)),
    (42, "DeleteGroups", Some(2)),
    (43, "ElectLeaders", Some(2)),
    (44, "IncrementalAlterConfigs", Some(1)),
    (45, "AlterPartitionReassignments", Some(0)),
    (46, "ListPartitionReassignments", Some(0)),
    (47, "OffsetDelete", None),
    (48, "DescribeClientQuotas", Some(1)),
    (49, "AlterClientQuotas", Some(1)),
    (50, "DescribeUserScramCredentials", Some(0)),
    (51, "AlterUserScramCredentials", Some(0)),
    (52, "Vote", Some(0)),
    (53, "BeginQuorumEpoch", Some(1)),
    (54, "EndQuorumEpoch", Some(1)),
    (55, "DescribeQuorum", Some(0)),
    (56, "AlterPartition", Some(0)),
    (57, "UpdateFeatures", Some(0)),
    (58, "Envelope", Some(0)),
    (59, "FetchSnapshot", Some(0)),
    (60, "DescribeCluster", Some(0)),
    (61, "DescribeProducers", Some(0)),
    (62, "BrokerRegistration", Some(0)),
    (63, "BrokerHeartbeat", Some(0)),
    (64, "UnregisterBroker", Some(0)),
    (65, "DescribeTransactions", Some(0)),
    (66, "ListTransactions", Some(0)),
    (67, "AllocateProducerIds", Some(0)),
    (68, "ConsumerGroupHeartbeat", Some(0)),
    (69, "ConsumerGroupDescribe", Some(0)),
    (70, "ControllerRegistration", Some(0)),
    (71, "GetTelemetrySubscriptions", Some(0)),
    (72, "PushTelemetry", Some(0)),
    (73, "AssignReplicasToDirs", Some(0)),
    (74, "ListConfigResources", Some(0)),
    (75, "DescribeTopicPartitions", Some(0)),
    (76, "ShareGroupHeartbeat", Some(0)),
    (77, "ShareGroupDescribe", Some(0)),
    (78, "ShareFetch", Some(0)),
    (79, "ShareAcknowledge", Some(0)),
    (80, "AddRaftVoter", Some(0)),
    (81, "RemoveRaftVoter", Some(0)),
    (82, "UpdateRaftVoter", Some(0)),
    (83, "InitializeShareGroupState", Some(0)),
    (84, "ReadShareGroupState", Some(0)),
    (85, "WriteShareGroupState", Some(0)),
    (86, "DeleteShareGroupState", Some(0)),
    (87, "ReadShareGroupStateSummary", Some(0)),
    (88, "StreamsGroupHeartbeat", Some(0)),
    (89, "StreamsGroupDescribe", Some(0)),
    (90, "DescribeShareGroupOffsets", Some(0)),
    (91, "AlterShareGroupOffsets", Some(0)),
    (92, "DeleteShareGroupOffsets", Some(0)),
    (93, "StreamsGroupTopologyDescriptionUpdate", Some(0)),
    (94, "UnregisterController", Some(0)),
];

/// Kafka's name for `api_key` (`"Metadata"`, `"ConsumerGroupHeartbeat"`), declared in this
/// crate or not; `None` for a key Kafka has not assigned.
pub fn api_name(api_key: i16) -> Option<&'static str> {
    find(api_key).map(|(_, name, _)| *name)
}

/// The first flexible version of `api_key` (its requests and responses agree), `None` if the
/// API is never flexible or the key unknown.
pub fn flexible_since(api_key: i16) -> Option<Version> {
    find(api_key).and_then(|(_, _, f)| *f)
}

/// The request header version of `api_key` at `version`: 2 if flexible, else 1; `None` for
/// a key Kafka has not assigned.
pub fn request_header_version(api_key: i16, version: Version) -> Option<Version> {
    let (_, _, flexible) = find(api_key)?;
    Some(if flexible.is_some_and(|f| version >= f) {
        2
    } else {
        1
    })
}

/// The response header version of `api_key` at `version`: 1 if flexible, else 0, and always
/// 0 for ApiVersions (so that a client can read the error of a version the broker does not
/// know); `None` for a key Kafka has not assigned.
pub fn response_header_version(api_key: i16, version: Version) -> Option<Version> {
    let (_, _, flexible) = find(api_key)?;
    Some(
        if api_key != API_VERSIONS_KEY && flexible.is_some_and(|f| version >= f) {
            1
        } else {
            0
        },
    )
}

/// Every API key Kafka has assigned, in ascending order.
pub fn all_api_keys() -> impl Iterator<Item = i16> {
    APIS.iter().map(|(k, _, _)| *k)
}

fn find(api_key: i16) -> Option<&'static (i16, &'static str, Option<Version>)> {
    APIS.binary_search_by_key(&api_key, |(k, _, _)| *k)
        .ok()
        .and_then(|i| APIS.get(i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ApiKey;

    #[test]
    fn the_table_is_sorted_and_agrees_with_the_declared_apis() {
        assert!(APIS.windows(2).all(|w| w[0].0 < w[1].0));
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
        assert_eq!(response_header_version(3, 9), Some(1));
        assert_eq!(response_header_version(17, 1), Some(0));
        assert_eq!(response_header_version(18, 4), Some(0));
        assert_eq!(response_header_version(999, 0), None);
        assert_eq!(all_api_keys().count(), 95);
    }
}
