//! ApiVersions (API key 18): which APIs and versions the broker supports.
//!
//! Versions 0-5, flexible from 3. The response header is always version 0, even in flexible
//! versions (KIP-511), so that a client can read it whatever version it asked for.

use kafka_wire::{KafkaMessage, Str, UnknownTaggedFields};

/// `ApiVersionsRequest.json`.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 18, request, versions = "0-5", flexible = "3+")]
pub struct ApiVersionsRequest {
    /// The name of the client.
    #[kafka(versions = "3+", ignorable)]
    pub client_software_name: Str,
    /// The version of the client.
    #[kafka(versions = "3+", ignorable)]
    pub client_software_version: Str,
    /// The cluster ID the client intends to connect to. Provide both ClusterId and NodeId, if known.
    #[kafka(versions = "5+", nullable = "5+", default = "null", ignorable)]
    pub cluster_id: Option<Str>,
    /// The node ID the client intends to connect to. Provide both ClusterId and NodeId, if known.
    #[kafka(versions = "5+", default = "-1", ignorable)]
    pub node_id: i32,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `ApiVersionsResponse.json`.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 18, response, versions = "0-5", flexible = "3+")]
pub struct ApiVersionsResponse {
    /// The top-level error code.
    #[kafka(versions = "0+")]
    pub error_code: i16,
    /// The APIs supported by the broker.
    #[kafka(versions = "0+")]
    pub api_keys: Vec<ApiVersion>,
    /// The duration in milliseconds for which the request was throttled due to a quota violation, or zero if the request did not violate any quota.
    #[kafka(versions = "1+", ignorable)]
    pub throttle_time_ms: i32,
    /// Features supported by the broker. Note: in v0-v3, features with MinSupportedVersion = 0 are omitted.
    #[kafka(versions = "3+", tag = 0, tagged = "3+", ignorable)]
    pub supported_features: Vec<SupportedFeatureKey>,
    /// The monotonically increasing epoch for the finalized features information. Valid values are >= 0. A value of -1 is special and represents unknown epoch.
    #[kafka(versions = "3+", tag = 1, tagged = "3+", default = "-1", ignorable)]
    pub finalized_features_epoch: i64,
    /// List of cluster-wide finalized features. The information is valid only if FinalizedFeaturesEpoch >= 0.
    #[kafka(versions = "3+", tag = 2, tagged = "3+", ignorable)]
    pub finalized_features: Vec<FinalizedFeatureKey>,
    /// Set by a KRaft controller if the required configurations for ZK migration are present.
    #[kafka(versions = "3+", tag = 3, tagged = "3+", default = "false", ignorable)]
    pub zk_migration_ready: bool,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// One API the broker supports (inline struct, 0+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "3+")]
pub struct ApiVersion {
    /// The API index.
    #[kafka(versions = "0+")]
    pub api_key: i16,
    /// The minimum supported version, inclusive.
    #[kafka(versions = "0+")]
    pub min_version: i16,
    /// The maximum supported version, inclusive.
    #[kafka(versions = "0+")]
    pub max_version: i16,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// One feature the broker supports (inline struct, 3+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "3+", flexible = "3+")]
pub struct SupportedFeatureKey {
    /// The name of the feature.
    #[kafka(versions = "3+")]
    pub name: Str,
    /// The minimum supported version for the feature.
    #[kafka(versions = "3+")]
    pub min_version: i16,
    /// The maximum supported version for the feature.
    #[kafka(versions = "3+")]
    pub max_version: i16,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// One cluster-wide finalized feature (inline struct, 3+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "3+", flexible = "3+")]
pub struct FinalizedFeatureKey {
    /// The name of the feature.
    #[kafka(versions = "3+")]
    pub name: Str,
    /// The cluster-wide finalized max version level for the feature.
    #[kafka(versions = "3+")]
    pub max_version_level: i16,
    /// The cluster-wide finalized min version level for the feature.
    #[kafka(versions = "3+")]
    pub min_version_level: i16,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}
