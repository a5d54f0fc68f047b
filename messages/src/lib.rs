//! Kafka API messages declared with [`#[derive(KafkaMessage)]`](kafka_wire::KafkaMessage), and
//! dispatch over them.
//!
//! Each API has a module with its request, its response and their nested structs, all
//! re-exported here:
//!
//! | API | key | versions | flexible |
//! | --- | --- | --- | --- |
//! | [`ApiVersions`](api_versions) | 18 | 0-5 | 3+ |
//! | [`AddPartitionsToTxn`](add_partitions_to_txn) | 24 | 0-5 | 3+ |
//! | [`TxnOffsetCommit`](txn_offset_commit) | 28 | 0-6 | 3+ |
//! | [`InitializeShareGroupState`](initialize_share_group_state) | 83 | 0 | 0+ |
//!
//! When the API is not known in advance, [`ApiKey`], [`RequestBody`] / [`ResponseBody`] and
//! [`RequestFrame`] / [`ResponseFrame`] pick it at run time:
//!
//! ```
//! use kafka_wire::Bytes;
//! use kafka_wire_messages::{ApiKey, ApiVersionsRequest, RequestBody, RequestFrame};
//!
//! let frame = RequestFrame::new(7, Some("me".into()), 3, ApiVersionsRequest::default());
//! let bytes = Bytes::from(frame.to_vec().unwrap());
//! let back = RequestFrame::decode(&bytes).unwrap();
//! assert_eq!(back.api_key(), ApiKey::ApiVersions);
//! assert!(matches!(back.body, RequestBody::ApiVersions(_)));
//! assert_eq!(back, frame);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod add_partitions_to_txn;
pub mod api_versions;
pub mod initialize_share_group_state;
pub mod txn_offset_commit;

mod dispatch;
pub mod known;
pub mod negotiate;
mod passthrough;

pub use add_partitions_to_txn::*;
pub use api_versions::*;
pub use dispatch::{ApiKey, RequestBody, RequestFrame, ResponseBody, ResponseFrame};

/// What [`apis!`] expands to refers to, so that callers need no imports of their own.
#[doc(hidden)]
pub mod __private {
    pub use bytes::{BufMut, Bytes, BytesMut};
    pub use core::fmt;
    pub use kafka_wire;
    pub use kafka_wire::frame::{self, DEFAULT_MAX_FRAME_SIZE};
    pub use kafka_wire::{
        DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, KafkaMessage, Reader,
        RequestHeader, ResponseHeader, Str, StructMeta, Version, VersionRange,
    };

    /// `UnsupportedVersion` of the API `name` at `version`, at `offset`.
    pub fn unsupported(name: &'static str, version: Version, offset: usize) -> DecodeError {
        DecodeError::new(
            DecodeErrorKind::UnsupportedVersion { name, version },
            offset,
        )
    }
}
pub use initialize_share_group_state::*;
pub use passthrough::{AnyRequest, AnyResponse, Opaque};
pub use txn_offset_commit::*;
