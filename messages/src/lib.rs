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
//! (`vote::VoteRequestPartitionData`) and the Kafka name stays in the metadata. The page of
//! each struct the root does not re-export says so and gives its path.
//!
//! Each generated struct's page lists its valid and flexible versions, and each field's
//! documentation its versions, nullable versions, tag, default and whether it is ignorable.
//! The answering side (a broker's, or a test double's) is [`answer`] and
//! [`RequestFrame::respond`] / [`RequestFrame::error_response`]; topics named by name or by
//! id depending on the version are read and set with [`TopicRef`].
//!
//! The latest version of an API that Kafka marks unstable (`latestVersionUnstable`) is
//! declared and decoded, and left out of what [`ApiKey::usable_versions`] offers unless asked.
//!
//! Cargo features choose which APIs are compiled in: one per area (`producer`, `consumer`,
//! `client`, `admin`, `txn`, `share`, `streams`, `raft`, `cluster`), and `all`, the default.
//! [`features`] lists every API with its areas and says what happens to the others.
//!
//! When the API is not known in advance, [`ApiKey`], [`RequestBody`] / [`ResponseBody`] and
//! [`RequestFrame`] / [`ResponseFrame`] pick it at run time:
//!
//! ```
//! use kafka_wire::{Bytes, DecodeOptions};
//! use kafka_wire_messages::{ApiKey, ApiVersionsRequest, RequestBody, RequestFrame};
//!
//! let frame = RequestFrame::new(7, Some("me".into()), 3, ApiVersionsRequest::default());
//! let bytes = Bytes::from(frame.to_vec().unwrap());
//! let back = RequestFrame::decode(&bytes, &DecodeOptions::DEFAULT).unwrap().frame;
//! assert_eq!(back.api_key(), ApiKey::ApiVersions);
//! assert!(matches!(back.body, RequestBody::ApiVersions(_)));
//! assert_eq!(back, frame);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod answer;
mod dispatch;
#[doc = include_str!("generated/features.md")]
pub mod features {}
mod generated;
pub mod known;
pub mod negotiate;
mod passthrough;
mod topic;
mod version_prefixed;

pub use dispatch::{
    ApiKey, Apis, Listener, RequestBody, RequestFrame, ResponseBody, ResponseFrame,
};
pub use generated::*;
pub use passthrough::{AnyRequest, AnyResponse, Opaque};
pub use topic::TopicRef;
pub use version_prefixed::{decode_version_prefixed, encode_version_prefixed};

/// What [`apis!`] expands to refers to, so that callers need no imports of their own.
#[doc(hidden)]
pub mod __private {
    pub use bytes::{BufMut, Bytes, BytesMut};
    pub use core::default::Default;
    pub use core::fmt;
    pub use kafka_wire;
    pub use kafka_wire::frame::{self, DecodeOptions, DecodedFrame, DEFAULT_MAX_FRAME_SIZE};
    pub use kafka_wire::{
        DecodeError, DecodeErrorKind, DecodeLimits, EncodeError, EncodeErrorKind, KafkaMessage,
        Reader, RequestHeader, ResponseHeader, Str, StructMeta, Version, VersionRange,
    };

    /// `ApiNotCompiled` of the API `name`, which `features` would compile in, at `offset`.
    pub fn not_compiled(name: &'static str, features: &'static str, offset: usize) -> DecodeError {
        DecodeError::new(DecodeErrorKind::ApiNotCompiled { name, features }, offset)
    }

    /// What `ApiKey` says of an API whether its types are compiled in or not: taken from the
    /// structs' metadata when they are, written out by the generator when they are not.
    #[derive(Debug, Clone, Copy)]
    pub struct ApiFacts {
        /// Request versions.
        pub request: VersionRange,
        /// Response versions.
        pub response: VersionRange,
        /// Request flexible versions.
        pub request_flexible: VersionRange,
        /// Response flexible versions.
        pub response_flexible: VersionRange,
        /// The unstable (highest) request version, if Kafka marks one.
        pub unstable: Option<Version>,
        /// The cargo features that compile the API in, for the error when it is not (empty
        /// when it is).
        pub features: &'static str,
    }

    impl ApiFacts {
        /// The facts of an API compiled in, from its request's and response's metadata.
        pub fn of(request: &StructMeta, response: &StructMeta) -> ApiFacts {
            ApiFacts {
                request: request.versions,
                response: response.versions,
                request_flexible: request.flexible,
                response_flexible: response.flexible,
                unstable: request.unstable_version(),
                features: "",
            }
        }

        /// The facts of an API not compiled in, as the generator read them from its schemas.
        pub const fn known(
            request: VersionRange,
            response: VersionRange,
            request_flexible: VersionRange,
            response_flexible: VersionRange,
            unstable: Option<Version>,
            features: &'static str,
        ) -> ApiFacts {
            ApiFacts {
                request,
                response,
                request_flexible,
                response_flexible,
                unstable,
                features,
            }
        }
    }

    /// `UnsupportedVersion` of the API `name` at `version`, at `offset`.
    pub fn unsupported(name: &'static str, version: Version, offset: usize) -> DecodeError {
        DecodeError::new(
            DecodeErrorKind::UnsupportedVersion { name, version },
            offset,
        )
    }
}
