//! # kafka-wire
//!
//! Apache Kafka's wire protocol for Rust: every message is a plain struct annotated with
//! [`#[derive(KafkaMessage)]`](derive@KafkaMessage), and gets encode, decode and exact size at
//! each of its versions, following the rules of Kafka's own Java generator.
//!
//! This crate is the runtime: primitives, framing ([`frame`]), headers, errors with byte
//! offsets and field paths, Kafka's error codes ([`ErrorCode`]), and, behind features, the
//! tokio codecs, record batches and a metadata-driven codec. Kafka's own APIs (every request
//! and response, every version, with request/response dispatch and the answering side) are in
//! the `kafkawire-messages` crate (`kafka_wire_messages`).
//!
//! # Features
//!
//! | feature | what |
//! |---|---|
//! | `tokio` | `codec`: `FrameCodec`, and the typed codecs `typed::ServerCodec` (a broker's side) and `typed::ClientCodec` (a client's) |
//! | `records` | `records`: read and build record batches, set a stored batch's offsets and leader epoch in place |
//! | `gzip`, `snappy`, `lz4`, `zstd` | each compression codec of record batches (each turns on `records`) |
//! | `json` | `dynamic` and `json`: a codec driven by the metadata alone, dumps, Kafka-style JSON |
//!
//! None is on by default. What each kind of program needs:
//!
//! - **a client**: `tokio` (or the blocking `frame::read_frame`/`write_request`), `records`
//!   and the codecs it produces or may fetch; `kafkawire-messages` with `client` (or
//!   `producer`, `consumer`, `admin`).
//! - **a broker** (or a test double of one): `tokio`, `records` and all four codecs (clients
//!   send batches in any of them); `kafkawire-messages` with the areas it serves, and its
//!   `answer` module (ApiVersions, error responses).
//! - **a proxy**: `tokio`; `kafkawire-messages`'s `AnyRequest`/`AnyResponse` forward APIs it
//!   does not decode byte for byte; `records` and the codecs only to look inside batches,
//!   `json` to log frames as Kafka-style JSON.
//!
//! docs.rs documents every feature; a local `cargo doc` documents the default (none): add
//! `--all-features` (or the features you use) to see the rest.
//!
//! # Declaring a message
//!
//! ```
//! use kafka_wire::Bytes;
//! use kafka_wire::{KafkaMessage, Str, UnknownTaggedFields};
//!
//! /// A made-up message, to show the attributes.
//! #[derive(KafkaMessage, Debug, Clone, PartialEq)]
//! #[kafka(versions = "0-3", flexible = "2+")]
//! struct Greeting {
//!     /// Who is greeted.
//!     #[kafka(versions = "0+")]
//!     name: Str,
//!     /// Retries so far; absent before v1.
//!     #[kafka(versions = "1+", default = "-1")]
//!     retries: i32,
//!     /// Tagged from v2 on.
//!     #[kafka(versions = "2+", tag = 0, tagged = "2+", nullable = "2+", default = "null")]
//!     note: Option<Str>,
//!     /// Tagged fields this struct does not declare, kept for re-encoding.
//!     unknown_tagged_fields: UnknownTaggedFields,
//! }
//!
//! let g = Greeting { name: "héllo".into(), retries: 2, note: Some("hi".into()), ..Default::default() };
//! let bytes = g.encode_to_vec(3).unwrap();
//! assert_eq!(bytes, b"\x07h\xc3\xa9llo\x00\x00\x00\x02\x01\x00\x03\x03hi");
//! assert_eq!(g.encoded_size(3), bytes.len());
//! assert_eq!(Greeting::decode_exact(&Bytes::from(bytes), 3).unwrap(), g);
//!
//! // Version 0 has no `retries`: a non-default value there is an error, as in Kafka.
//! assert!(g.encode_to_vec(0).is_err());
//! ```
//!
//! The crate holds Kafka's primitive encodings ([`primitives`], [`Reader`]), the [`Field`]
//! trait that maps Rust types to Kafka types, version ranges, typed errors with byte offsets
//! and field paths, the request and response headers, and framing.
// No `unsafe` anywhere, except the fused CRC-32C copy of `records` on x86-64
// (`records/fused.rs`; only with the feature `fused-crc`), which calls its AVX-512
// `#[target_feature]` functions after detecting the CPU. `forbid` cannot be relaxed by an inner `allow`, so every other build keeps it; that
// one build denies `unsafe` outside the `#[allow(unsafe_code)]` blocks of fused.rs, and
// `kafka-wire/tests/unsafe_code.rs` fails if `unsafe` appears in any other file.
#![cfg_attr(
    not(all(feature = "fused-crc", target_arch = "x86_64")),
    forbid(unsafe_code)
)]
#![cfg_attr(all(feature = "fused-crc", target_arch = "x86_64"), deny(unsafe_code))]
#![warn(
    clippy::undocumented_unsafe_blocks,
    clippy::multiple_unsafe_ops_per_block
)]
#![warn(missing_docs)]

// Lets this crate use its own derive (the headers are derived).
extern crate self as kafka_wire;

#[cfg(feature = "tokio")]
pub mod codec;
pub mod correlation;
#[cfg(feature = "json")]
pub mod dynamic;
mod error;
mod error_code;
mod field;
mod fixed_array;
pub mod frame;
mod header;
#[cfg(feature = "json")]
pub mod json;
mod limits;
mod message;
mod meta;
pub mod primitives;
mod reader;
mod reader_fields;
#[cfg(feature = "records")]
pub mod records;
mod rules;
mod small;
pub mod typed;
mod types;
mod vectored;
mod version;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use bytes::{self, Bytes};
pub use error::{
    DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, FieldPath, PathSegment,
};
pub use error_code::ErrorCode;
pub use field::context::Cx;
pub use field::traits::{Field, NullableField};
pub use fixed_array::{FixedArray, FixedArrayIter, FixedWidth};
pub use frame::{DecodeOptions, DecodedFrame};
pub use header::{RequestHeader, ResponseHeader};
pub use limits::{DecodeLimits, Limit, DEFAULT_MAX_DECOMPRESSED_BATCH, MAX_STRING_LEN};
pub use message::{
    request_header_version, response_header_version, ApiMessage, EncodeBuf, KafkaMessage, Rewind,
    API_VERSIONS_KEY,
};
pub use meta::{ApiKind, ApiMeta, DefaultValue, FieldMeta, KafkaType, StructMeta};
pub use reader::Reader;
pub use types::{RawTaggedField, Records, Str, UnknownTaggedFields, Uuid, UuidParseError};
pub use vectored::{Segments, Vectored, VECTORED_MIN};
pub use version::{Version, VersionRange, VersionRangeError};

#[doc = include_str!("docs/derive.md")]
pub use kafka_wire_derive::KafkaMessage;
