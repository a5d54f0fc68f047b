//! InitializeShareGroupState (API key 83): initializes the state of share-partitions.
//!
//! Version 0 only, flexible from 0.

use kafka_wire::{KafkaMessage, Str, UnknownTaggedFields, Uuid};

/// `InitializeShareGroupStateRequest.json`.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 83, request, versions = "0", flexible = "0+")]
pub struct InitializeShareGroupStateRequest {
    /// The group identifier.
    #[kafka(versions = "0+")]
    pub group_id: Str,
    /// The data for the topics.
    #[kafka(versions = "0+")]
    pub topics: Vec<InitializeStateData>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// One topic of an [`InitializeShareGroupStateRequest`] (inline struct, 0+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "0+")]
pub struct InitializeStateData {
    /// The topic identifier.
    #[kafka(versions = "0+")]
    pub topic_id: Uuid,
    /// The data for the partitions.
    #[kafka(versions = "0+")]
    pub partitions: Vec<PartitionData>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// One partition of an [`InitializeStateData`] (inline struct, 0+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "0+")]
pub struct PartitionData {
    /// The partition index.
    #[kafka(versions = "0+")]
    pub partition: i32,
    /// The state epoch for this share-partition.
    #[kafka(versions = "0+")]
    pub state_epoch: i32,
    /// The share-partition start offset, or -1 if the start offset is not being initialized.
    #[kafka(versions = "0+")]
    pub start_offset: i64,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `InitializeShareGroupStateResponse.json`.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 83, response, versions = "0", flexible = "0+")]
pub struct InitializeShareGroupStateResponse {
    /// The initialization results.
    #[kafka(versions = "0+")]
    pub results: Vec<InitializeStateResult>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// The result for one topic (inline struct, 0+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "0+")]
pub struct InitializeStateResult {
    /// The topic identifier.
    #[kafka(versions = "0+")]
    pub topic_id: Uuid,
    /// The results for the partitions.
    #[kafka(versions = "0+")]
    pub partitions: Vec<PartitionResult>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// The result for one partition (inline struct, 0+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "0+")]
pub struct PartitionResult {
    /// The partition index.
    #[kafka(versions = "0+")]
    pub partition: i32,
    /// The error code, or 0 if there was no error.
    #[kafka(versions = "0+")]
    pub error_code: i16,
    /// The error message, or null if there was no error.
    #[kafka(versions = "0+", nullable = "0+", default = "null")]
    pub error_message: Option<Str>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}
