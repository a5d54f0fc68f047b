//! TxnOffsetCommit (API key 28): commits consumer offsets as part of a transaction.
//!
//! Versions 0-6, flexible from 3. Version 6 (KIP-1319) identifies topics by
//! [`TopicId`](TxnOffsetCommitRequestTopic::topic_id) instead of name; both are ignorable, so
//! the one a version lacks is dropped silently on write.

use kafka_wire::{KafkaMessage, Str, UnknownTaggedFields, Uuid};

/// `TxnOffsetCommitRequest.json`.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 28, request, versions = "0-6", flexible = "3+")]
pub struct TxnOffsetCommitRequest {
    /// The ID of the transaction.
    #[kafka(versions = "0+")]
    pub transactional_id: Str,
    /// The ID of the group.
    #[kafka(versions = "0+")]
    pub group_id: Str,
    /// The current producer ID in use by the transactional ID.
    #[kafka(versions = "0+")]
    pub producer_id: i64,
    /// The current epoch associated with the producer ID.
    #[kafka(versions = "0+")]
    pub producer_epoch: i16,
    /// The generation of the group if using the classic group protocol or the member epoch if using the consumer protocol.
    #[kafka(versions = "3+", default = "-1")]
    pub generation_id_or_member_epoch: i32,
    /// The member ID assigned by the group coordinator.
    #[kafka(versions = "3+", default = "")]
    pub member_id: Str,
    /// The unique identifier of the consumer instance provided by end user.
    #[kafka(versions = "3+", nullable = "3+", default = "null")]
    pub group_instance_id: Option<Str>,
    /// Each topic that we want to commit offsets for.
    #[kafka(versions = "0+")]
    pub topics: Vec<TxnOffsetCommitRequestTopic>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// One topic of a [`TxnOffsetCommitRequest`] (inline struct, 0+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "3+")]
pub struct TxnOffsetCommitRequestTopic {
    /// The topic name.
    #[kafka(versions = "0-5", ignorable)]
    pub name: Str,
    /// The topic ID.
    #[kafka(versions = "6+", ignorable)]
    pub topic_id: Uuid,
    /// The partitions inside the topic that we want to commit offsets for.
    #[kafka(versions = "0+")]
    pub partitions: Vec<TxnOffsetCommitRequestPartition>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// One partition of a [`TxnOffsetCommitRequestTopic`] (inline struct, 0+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "3+")]
pub struct TxnOffsetCommitRequestPartition {
    /// The index of the partition within the topic.
    #[kafka(versions = "0+")]
    pub partition_index: i32,
    /// The message offset to be committed.
    #[kafka(versions = "0+")]
    pub committed_offset: i64,
    /// The leader epoch of the last consumed record.
    #[kafka(versions = "2+", default = "-1", ignorable)]
    pub committed_leader_epoch: i32,
    /// Any associated metadata the client wants to keep.
    #[kafka(versions = "0+", nullable = "0+")]
    pub committed_metadata: Option<Str>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `TxnOffsetCommitResponse.json`.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 28, response, versions = "0-6", flexible = "3+")]
pub struct TxnOffsetCommitResponse {
    /// The duration in milliseconds for which the request was throttled due to a quota violation, or zero if the request did not violate any quota.
    #[kafka(versions = "0+")]
    pub throttle_time_ms: i32,
    /// The responses for each topic.
    #[kafka(versions = "0+")]
    pub topics: Vec<TxnOffsetCommitResponseTopic>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// One topic of a [`TxnOffsetCommitResponse`] (inline struct, 0+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "3+")]
pub struct TxnOffsetCommitResponseTopic {
    /// The topic name.
    #[kafka(versions = "0-5", ignorable)]
    pub name: Str,
    /// The topic ID.
    #[kafka(versions = "6+", ignorable)]
    pub topic_id: Uuid,
    /// The responses for each partition in the topic.
    #[kafka(versions = "0+")]
    pub partitions: Vec<TxnOffsetCommitResponsePartition>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// One partition of a [`TxnOffsetCommitResponseTopic`] (inline struct, 0+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "3+")]
pub struct TxnOffsetCommitResponsePartition {
    /// The partition index.
    #[kafka(versions = "0+")]
    pub partition_index: i32,
    /// The error code, or 0 if there was no error.
    #[kafka(versions = "0+")]
    pub error_code: i16,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}
