//! Kafka API messages declared with [`#[derive(KafkaMessage)]`](kafka_wire::KafkaMessage), and
//! dispatch over them.
//!
//! Every API of Apache Kafka's protocol is here, request and response, at every version: the
//! 91 API keys whose schemas declare versions (Kafka's four removed keys, 4-7, are left
//! out), and the 11 non-API schemas (the consumer protocol's subscription and assignment,
//! the KRaft control records, and the rest; see [`encode_version_prefixed`] for how they
//! travel). They are generated from Kafka's own JSON schemas by the project's generator
//! (`cargo run -p xtask -- codegen`) into plain `#[derive(KafkaMessage)]` declarations, one
//! module per API (`kafka_wire_messages::fetch`, `…::metadata`, …).
//!
//! The crate root re-exports every message and every nested struct whose name no other API
//! uses. Names that several APIs use (`PartitionData`, `TopicData`, …) are reached through
//! the API's module; where Kafka gives a request's and a response's nested structs the same
//! name but different fields, the Rust names carry the message name as a prefix
//! (`vote::VoteRequestPartitionData`) and the Kafka name stays in the metadata.
//!
//! The latest version of an API that Kafka marks unstable (`latestVersionUnstable`) is
//! declared and decoded, and left out of what [`ApiKey::usable_versions`] offers unless asked.
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

mod dispatch;
mod generated;
pub mod known;
pub mod negotiate;
mod passthrough;
mod version_prefixed;

pub use dispatch::{ApiKey, Listener, RequestBody, RequestFrame, ResponseBody, ResponseFrame};
pub use generated::*;
pub use passthrough::{AnyRequest, AnyResponse, Opaque};
pub use version_prefixed::{decode_version_prefixed, encode_version_prefixed};

/// What [`apis!`] expands to refers to, so that callers need no imports of their own.
#[doc(hidden)]
pub mod __private {
    pub use bytes::{BufMut, Bytes, BytesMut};
    pub use core::fmt;
    pub use kafka_wire;
    pub use kafka_wire::frame::{self, DecodeOptions, DecodedFrame, DEFAULT_MAX_FRAME_SIZE};
    pub use kafka_wire::{
        DecodeError, DecodeErrorKind, DecodeLimits, EncodeError, EncodeErrorKind, KafkaMessage,
        Reader, RequestHeader, ResponseHeader, Str, StructMeta, Version, VersionRange,
    };

    /// `UnsupportedVersion` of the API `name` at `version`, at `offset`.
    pub fn unsupported(name: &'static str, version: Version, offset: usize) -> DecodeError {
        DecodeError::new(
            DecodeErrorKind::UnsupportedVersion { name, version },
            offset,
        )
    }
}
