//! Transaction APIs declared here by hand with `#[derive(KafkaMessage)]`, as a user of the
//! framework would: FindCoordinator (10), InitProducerId (22), AddOffsetsToTxn (25) and
//! EndTxn (26). `kafka_wire_messages` now ships generated declarations of them, which the
//! interop tests use; these stay as the example of a user's own declarations, and the key
//! type constants are used by the tests.
//!
//! Each struct mirrors Kafka's `clients/src/main/resources/common/message/<Name>.json`
//! (trunk), attribute for attribute: versions, flexible versions, nullable versions, defaults
//! and `ignorable`.

use kafka_wire::{KafkaMessage, Str, UnknownTaggedFields};

/// Coordinator key type of a consumer group (`FindCoordinatorRequest.KeyType`).
pub const KEY_TYPE_GROUP: i8 = 0;
/// Coordinator key type of a transactional id.
pub const KEY_TYPE_TRANSACTION: i8 = 1;

/// `FindCoordinatorRequest.json`: versions 0-6, flexible from 3; v4 batches keys (KIP-699).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 10, request, versions = "0-6", flexible = "3+")]
pub struct FindCoordinatorRequest {
    /// The coordinator key.
    #[kafka(versions = "0-3")]
    pub key: Str,
    /// The coordinator key type. (Group, transaction, etc.)
    #[kafka(versions = "1+", default = "0")]
    pub key_type: i8,
    /// The coordinator keys.
    #[kafka(versions = "4+")]
    pub coordinator_keys: Vec<Str>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `FindCoordinatorResponse.json`: versions 0-6, flexible from 3.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 10, response, versions = "0-6", flexible = "3+")]
pub struct FindCoordinatorResponse {
    /// The duration in milliseconds for which the request was throttled due to a quota
    /// violation, or zero if the request did not violate any quota.
    #[kafka(versions = "1+", ignorable)]
    pub throttle_time_ms: i32,
    /// The error code, or 0 if there was no error.
    #[kafka(versions = "0-3")]
    pub error_code: i16,
    /// The error message, or null if there was no error.
    #[kafka(versions = "1-3", nullable = "1-3", ignorable)]
    pub error_message: Option<Str>,
    /// The node id.
    #[kafka(versions = "0-3")]
    pub node_id: i32,
    /// The host name.
    #[kafka(versions = "0-3")]
    pub host: Str,
    /// The port.
    #[kafka(versions = "0-3")]
    pub port: i32,
    /// Each coordinator result in the response.
    #[kafka(versions = "4+")]
    pub coordinators: Vec<Coordinator>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// One coordinator of [`FindCoordinatorResponse::coordinators`] (inline struct, 4+).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "4+", flexible = "3+")]
pub struct Coordinator {
    /// The coordinator key.
    #[kafka(versions = "4+")]
    pub key: Str,
    /// The node id.
    #[kafka(versions = "4+")]
    pub node_id: i32,
    /// The host name.
    #[kafka(versions = "4+")]
    pub host: Str,
    /// The port.
    #[kafka(versions = "4+")]
    pub port: i32,
    /// The error code, or 0 if there was no error.
    #[kafka(versions = "4+")]
    pub error_code: i16,
    /// The error message, or null if there was no error.
    #[kafka(versions = "4+", nullable = "4+", ignorable)]
    pub error_message: Option<Str>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `InitProducerIdRequest.json`: versions 0-6, flexible from 2; v6 adds two-phase commit
/// (KIP-939).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 22, request, versions = "0-6", flexible = "2+")]
pub struct InitProducerIdRequest {
    /// The transactional id, or null if the producer is not transactional.
    #[kafka(versions = "0+", nullable = "0+")]
    pub transactional_id: Option<Str>,
    /// The time in ms to wait before aborting idle transactions sent by this producer.
    #[kafka(versions = "0+")]
    pub transaction_timeout_ms: i32,
    /// The producer id, to disambiguate requests if a transactional id is reused.
    #[kafka(versions = "3+", default = "-1")]
    pub producer_id: i64,
    /// The producer's current epoch.
    #[kafka(versions = "3+", default = "-1")]
    pub producer_epoch: i16,
    /// True if the client wants to enable two-phase commit (2PC) for transactions.
    #[kafka(versions = "6+", default = "false")]
    pub enable2_pc: bool,
    /// True if the client wants to keep the currently ongoing transaction.
    #[kafka(versions = "6+", default = "false")]
    pub keep_prepared_txn: bool,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `InitProducerIdResponse.json`: versions 0-6, flexible from 2.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 22, response, versions = "0-6", flexible = "2+")]
pub struct InitProducerIdResponse {
    /// The duration in milliseconds for which the request was throttled.
    #[kafka(versions = "0+", ignorable)]
    pub throttle_time_ms: i32,
    /// The error code, or 0 if there was no error.
    #[kafka(versions = "0+")]
    pub error_code: i16,
    /// The current producer id.
    #[kafka(versions = "0+", default = "-1")]
    pub producer_id: i64,
    /// The current epoch associated with the producer id.
    #[kafka(versions = "0+")]
    pub producer_epoch: i16,
    /// The producer id of the ongoing transaction when `keep_prepared_txn` was set.
    #[kafka(versions = "6+", default = "-1")]
    pub ongoing_txn_producer_id: i64,
    /// The producer epoch of the ongoing transaction when `keep_prepared_txn` was set.
    #[kafka(versions = "6+", default = "-1")]
    pub ongoing_txn_producer_epoch: i16,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `AddOffsetsToTxnRequest.json`: versions 0-4, flexible from 3.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 25, request, versions = "0-4", flexible = "3+")]
pub struct AddOffsetsToTxnRequest {
    /// The transactional id corresponding to the transaction.
    #[kafka(versions = "0+")]
    pub transactional_id: Str,
    /// Current producer id in use by the transactional id.
    #[kafka(versions = "0+")]
    pub producer_id: i64,
    /// Current epoch associated with the producer id.
    #[kafka(versions = "0+")]
    pub producer_epoch: i16,
    /// The unique group identifier.
    #[kafka(versions = "0+")]
    pub group_id: Str,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `AddOffsetsToTxnResponse.json`: versions 0-4, flexible from 3.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 25, response, versions = "0-4", flexible = "3+")]
pub struct AddOffsetsToTxnResponse {
    /// Duration in milliseconds for which the request was throttled.
    #[kafka(versions = "0+")]
    pub throttle_time_ms: i32,
    /// The response error code, or 0 if there was no error.
    #[kafka(versions = "0+")]
    pub error_code: i16,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `EndTxnRequest.json`: versions 0-5, flexible from 3.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 26, request, versions = "0-5", flexible = "3+")]
pub struct EndTxnRequest {
    /// The ID of the transaction to end.
    #[kafka(versions = "0+")]
    pub transactional_id: Str,
    /// The producer ID.
    #[kafka(versions = "0+")]
    pub producer_id: i64,
    /// The current epoch associated with the producer.
    #[kafka(versions = "0+")]
    pub producer_epoch: i16,
    /// True if the transaction was committed, false if it was aborted.
    #[kafka(versions = "0+")]
    pub committed: bool,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `EndTxnResponse.json`: versions 0-5, flexible from 3; v5 returns the bumped producer id
/// and epoch (KIP-890).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 26, response, versions = "0-5", flexible = "3+")]
pub struct EndTxnResponse {
    /// The duration in milliseconds for which the request was throttled.
    #[kafka(versions = "0+")]
    pub throttle_time_ms: i32,
    /// The error code, or 0 if there was no error.
    #[kafka(versions = "0+")]
    pub error_code: i16,
    /// The producer ID.
    #[kafka(versions = "5+", default = "-1", ignorable)]
    pub producer_id: i64,
    /// The current epoch associated with the producer.
    #[kafka(versions = "5+", default = "-1", ignorable)]
    pub producer_epoch: i16,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}
