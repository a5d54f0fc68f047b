//! AddPartitionsToTxn (API key 24): adds partitions to a transaction.
//!
//! Versions 0-5, flexible from 3. Version 4 reshapes the request: brokers batch several
//! transactions in [`AddPartitionsToTxnRequest::transactions`], while clients keep using the
//! `v3_and_below_*` fields at versions 0-3.

use kafka_wire::{KafkaMessage, Str, UnknownTaggedFields};

/// `AddPartitionsToTxnRequest.json`.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 24, request, versions = "0-5", flexible = "3+")]
pub struct AddPartitionsToTxnRequest {
    /// List of transactions to add partitions to.
    #[kafka(versions = "4+")]
    pub transactions: Vec<AddPartitionsToTxnTransaction>,
    /// The transactional id corresponding to the transaction.
    #[kafka(versions = "0-3")]
    pub v3_and_below_transactional_id: Str,
    /// Current producer id in use by the transactional id.
    #[kafka(versions = "0-3")]
    pub v3_and_below_producer_id: i64,
    /// Current epoch associated with the producer id.
    #[kafka(versions = "0-3")]
    pub v3_and_below_producer_epoch: i16,
    /// The partitions to add to the transaction.
    #[kafka(versions = "0-3")]
    pub v3_and_below_topics: Vec<AddPartitionsToTxnTopic>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// One transaction of [`AddPartitionsToTxnRequest::transactions`] (inline struct, 4+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "4+", flexible = "3+")]
pub struct AddPartitionsToTxnTransaction {
    /// The transactional id corresponding to the transaction.
    #[kafka(versions = "4+")]
    pub transactional_id: Str,
    /// Current producer id in use by the transactional id.
    #[kafka(versions = "4+")]
    pub producer_id: i64,
    /// Current epoch associated with the producer id.
    #[kafka(versions = "4+")]
    pub producer_epoch: i16,
    /// Boolean to signify if we want to check if the partition is in the transaction rather than add it.
    #[kafka(versions = "4+", default = "false")]
    pub verify_only: bool,
    /// The partitions to add to the transaction.
    #[kafka(versions = "4+")]
    pub topics: Vec<AddPartitionsToTxnTopic>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// A topic and its partitions (common struct, 0+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "3+")]
pub struct AddPartitionsToTxnTopic {
    /// The name of the topic.
    #[kafka(versions = "0+")]
    pub name: Str,
    /// The partition indexes to add to the transaction.
    #[kafka(versions = "0+")]
    pub partitions: Vec<i32>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `AddPartitionsToTxnResponse.json`.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 24, response, versions = "0-5", flexible = "3+")]
pub struct AddPartitionsToTxnResponse {
    /// Duration in milliseconds for which the request was throttled due to a quota violation, or zero if the request did not violate any quota.
    #[kafka(versions = "0+")]
    pub throttle_time_ms: i32,
    /// The response top level error code.
    #[kafka(versions = "4+", ignorable)]
    pub error_code: i16,
    /// Results categorized by transactional ID.
    #[kafka(versions = "4+")]
    pub results_by_transaction: Vec<AddPartitionsToTxnResult>,
    /// The results for each topic.
    #[kafka(versions = "0-3")]
    pub results_by_topic_v3_and_below: Vec<AddPartitionsToTxnTopicResult>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// The results of one transaction (inline struct, 4+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "4+", flexible = "3+")]
pub struct AddPartitionsToTxnResult {
    /// The transactional id corresponding to the transaction.
    #[kafka(versions = "4+")]
    pub transactional_id: Str,
    /// The results for each topic.
    #[kafka(versions = "4+")]
    pub topic_results: Vec<AddPartitionsToTxnTopicResult>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// The results for one topic (common struct, 0+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "3+")]
pub struct AddPartitionsToTxnTopicResult {
    /// The topic name.
    #[kafka(versions = "0+")]
    pub name: Str,
    /// The results for each partition.
    #[kafka(versions = "0+")]
    pub results_by_partition: Vec<AddPartitionsToTxnPartitionResult>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// The result for one partition (common struct, 0+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "3+")]
pub struct AddPartitionsToTxnPartitionResult {
    /// The partition indexes.
    #[kafka(versions = "0+")]
    pub partition_index: i32,
    /// The response error code.
    #[kafka(versions = "0+")]
    pub partition_error_code: i16,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}
