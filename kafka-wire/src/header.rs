//! Request and response headers (`RequestHeader.json`, `ResponseHeader.json`), declared with the derive itself.

use crate::{KafkaMessage, Str, UnknownTaggedFields};

/// The header in front of every request body (`RequestHeader.json`, versions 1-2).
///
/// Version 2 adds a tagged-field section; the client id stays a classic nullable string in
/// both. Pick the version with [`ApiMessage::header_version`](crate::ApiMessage::header_version).
#[derive(KafkaMessage, Debug, Clone, PartialEq, Eq)]
#[kafka(versions = "1-2", flexible = "2+")]
pub struct RequestHeader {
    /// The API key of this request.
    #[kafka(versions = "0+")]
    pub request_api_key: i16,
    /// The API version of this request.
    #[kafka(versions = "0+")]
    pub request_api_version: i16,
    /// The correlation ID of this request.
    #[kafka(versions = "0+")]
    pub correlation_id: i32,
    /// The client ID string.
    #[kafka(versions = "1+", nullable = "1+", flexible = "none")]
    pub client_id: Option<Str>,
    /// Tagged fields this version does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

impl RequestHeader {
    /// A header for `api_key` at `api_version`.
    pub fn new(
        api_key: i16,
        api_version: i16,
        correlation_id: i32,
        client_id: Option<Str>,
    ) -> Self {
        RequestHeader {
            request_api_key: api_key,
            request_api_version: api_version,
            correlation_id,
            client_id,
            unknown_tagged_fields: UnknownTaggedFields::new(),
        }
    }
}

/// The header in front of every response body (`ResponseHeader.json`, versions 0-1).
#[derive(KafkaMessage, Debug, Clone, PartialEq, Eq)]
#[kafka(versions = "0-1", flexible = "1+")]
pub struct ResponseHeader {
    /// The correlation ID of this response.
    #[kafka(versions = "0+")]
    pub correlation_id: i32,
    /// Tagged fields this version does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

impl ResponseHeader {
    /// A header answering `correlation_id`.
    pub fn new(correlation_id: i32) -> Self {
        ResponseHeader {
            correlation_id,
            unknown_tagged_fields: UnknownTaggedFields::new(),
        }
    }
}
