//! The answering side: what a broker (or a proxy answering for one) serves, its ApiVersions
//! response, and the answer Kafka gives to a request at a version it does not serve.
//!
//! A request that decodes is answered with [`RequestFrame::respond`] (its correlation id,
//! API and version carried over) or [`RequestFrame::error_response`] (every error code set,
//! the rest at its defaults, as Java's `getErrorResponse`). [`ServedApis`] covers the rest:
//!
//! ```
//! use kafka_wire::{Bytes, DecodeOptions, ErrorCode, VersionRange};
//! use kafka_wire_messages::answer::ServedApis;
//! use kafka_wire_messages::{ApiKey, ApiVersionsRequest, RequestFrame, ResponseBody};
//!
//! let served = ServedApis::new([ApiKey::ApiVersions, ApiKey::Metadata, ApiKey::Produce])
//!     .with_versions(ApiKey::Produce, VersionRange::new(3, 9));
//!
//! // ApiVersions v3 from a client: the APIs served, at the request's version.
//! let request = RequestFrame::new(7, None, 3, ApiVersionsRequest::default());
//! let answer = served.answer(&request).unwrap();
//! assert_eq!(answer.header.correlation_id, 7);
//! let ResponseBody::ApiVersions(body) = &answer.body else { unreachable!() };
//! assert_eq!(body.api_keys.len(), 3);
//!
//! // Produce v2 is declared but not served: UNSUPPORTED_VERSION, at v2.
//! let produce = RequestFrame::new(8, None, 2, kafka_wire_messages::ProduceRequest::default());
//! assert!(served.check(&produce).is_err());
//!
//! // An ApiVersions request at v9, which nothing declares: it does not decode, and Kafka
//! // answers UNSUPPORTED_VERSION at v0, listing the ApiVersions versions served (KIP-511).
//! let frame = Bytes::from_static(b"\0\0\0\x0a\0\x12\0\x09\0\0\0\x05\xff\xff");
//! assert!(RequestFrame::decode(&frame, &DecodeOptions::DEFAULT).is_err());
//! let answer = served.answer_undecodable(&frame).unwrap();
//! assert_eq!((answer.version, answer.header.correlation_id), (0, 5));
//! let ResponseBody::ApiVersions(body) = &answer.body else { unreachable!() };
//! assert_eq!(body.error_code, ErrorCode::UNSUPPORTED_VERSION);
//! ```

use kafka_wire::frame::peek_request_header;
use kafka_wire::{Bytes, ErrorCode, Version, VersionRange};

use crate::{ApiKey, ApiVersion, ApiVersionsResponse, RequestBody, RequestFrame, ResponseFrame};

/// The APIs a server answers, each with the versions it answers: what its ApiVersions
/// response lists, and what it refuses with `UNSUPPORTED_VERSION`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServedApis {
    /// (API, versions), sorted by key, one entry per API.
    apis: Vec<(ApiKey, VersionRange)>,
}

impl ServedApis {
    /// `apis`, each at every stable version this crate declares
    /// ([`ApiKey::usable_versions`] without the unstable latest one). ApiVersions should be
    /// among them: every client starts with it.
    pub fn new(apis: impl IntoIterator<Item = ApiKey>) -> Self {
        let mut s = ServedApis::default();
        for api in apis {
            s = s.with_versions(api, api.usable_versions(false));
        }
        s
    }

    /// Serves `api` at `versions` (replacing what was set for it), cut to the versions this
    /// crate declares for it; an empty range stops serving it.
    pub fn with_versions(mut self, api: ApiKey, versions: VersionRange) -> Self {
        let versions = versions.intersect(api.request_versions());
        self.apis.retain(|(a, _)| *a != api);
        if !versions.is_empty() {
            self.apis.push((api, versions));
            self.apis.sort_by_key(|(a, _)| a.key());
        }
        self
    }

    /// The versions of `api` served; `None` if it is not.
    pub fn versions(&self, api: ApiKey) -> Option<VersionRange> {
        self.apis.iter().find(|(a, _)| *a == api).map(|(_, v)| *v)
    }

    /// The APIs served, by key.
    pub fn apis(&self) -> impl Iterator<Item = (ApiKey, VersionRange)> + '_ {
        self.apis.iter().copied()
    }

    /// The ApiVersions response listing every API served (error code 0).
    pub fn api_versions_response(&self) -> ApiVersionsResponse {
        ApiVersionsResponse {
            api_keys: self
                .apis
                .iter()
                .map(|(api, v)| ApiVersion {
                    api_key: api.key(),
                    min_version: v.min().unwrap_or(0),
                    max_version: v.max().unwrap_or(0),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    /// `Ok` if `request`'s API is served at its version; otherwise its
    /// [`error_response`](RequestFrame::error_response) with `UNSUPPORTED_VERSION` (an
    /// ApiVersions request is answered at v0 listing the ApiVersions versions served, as Kafka
    /// does).
    #[allow(clippy::result_large_err)]
    pub fn check(&self, request: &RequestFrame) -> Result<(), ResponseFrame> {
        let api = request.api_key();
        match self.versions(api) {
            Some(v) if v.contains(request.version()) => Ok(()),
            _ if api == ApiKey::ApiVersions => {
                Err(self.unsupported_api_versions(request.header.correlation_id))
            }
            _ => Err(request.error_response(ErrorCode::UNSUPPORTED_VERSION)),
        }
    }

    /// The answer to an ApiVersions request, or `None` for any other request: the APIs served
    /// at the request's version, or, at a version not served, `UNSUPPORTED_VERSION` at v0
    /// (see [`check`](Self::check)).
    pub fn answer(&self, request: &RequestFrame) -> Option<ResponseFrame> {
        if !matches!(request.body, RequestBody::ApiVersions(_)) {
            return None;
        }
        Some(match self.check(request) {
            Ok(()) => request.respond(self.api_versions_response()),
            Err(refused) => refused,
        })
    }

    /// The answer to a request frame that does not decode, as Kafka gives it: for an
    /// ApiVersions request (at a version this crate does not declare, or with a body it cannot
    /// read), `UNSUPPORTED_VERSION` at v0 with the request's correlation id, listing the
    /// ApiVersions versions served, so the client retries at one of them (KIP-511). `None`
    /// for any other request, and for a frame whose header cannot be read: Kafka closes the
    /// connection.
    pub fn answer_undecodable(&self, frame: &Bytes) -> Option<ResponseFrame> {
        let peek = peek_request_header(frame).ok()?;
        (peek.api_key == ApiKey::ApiVersions.key())
            .then(|| self.unsupported_api_versions(peek.correlation_id))
    }

    /// `UNSUPPORTED_VERSION` at ApiVersions v0, listing ApiVersions alone at the versions
    /// served: Java's `ApiVersionsRequest.getErrorResponse`.
    fn unsupported_api_versions(&self, correlation_id: i32) -> ResponseFrame {
        const V0: Version = 0;
        let versions = self
            .versions(ApiKey::ApiVersions)
            .unwrap_or(VersionRange::new(0, 0));
        let body = ApiVersionsResponse {
            error_code: ErrorCode::UNSUPPORTED_VERSION.code(),
            api_keys: vec![ApiVersion {
                api_key: ApiKey::ApiVersions.key(),
                min_version: versions.min().unwrap_or(0),
                max_version: versions.max().unwrap_or(0),
                ..Default::default()
            }],
            ..Default::default()
        };
        ResponseFrame::new(correlation_id, V0, body)
    }
}

/// What Java's `getErrorResponse` of some APIs sets beyond the error codes, for the response
/// `body` of an error response to `request` at `version` (called by
/// `RequestBody::error_response` with any request and response types; the shipped types below
/// are recognised, every other left as it is): the request's topics and partitions for six
/// data-path APIs, the `-1` of an unknown coordinator or producer, the anonymous principal,
/// and an `error_message` that is either null or the error's message. Found by comparing with
/// Java's own output for every API and version (`messages/tests/error_responses.rs`).
#[doc(hidden)]
pub fn java_error_fill(
    request: &dyn core::any::Any,
    body: &mut dyn core::any::Any,
    version: Version,
    error: ErrorCode,
) {
    if java_error_entries(request, body, version, error) {
        return;
    }
    let message = || error.message().map(kafka_wire::Str::from);
    // The error message Java sets to the error's.
    macro_rules! message {
        ($feature:meta, $ty:ident, $from:expr) => {
            #[cfg($feature)]
            if let Some(r) = body.downcast_mut::<crate::$ty>() {
                if version >= $from {
                    r.error_message = message();
                }
                return;
            }
        };
    }
    // The error message Java leaves null (its default here is "").
    macro_rules! null_message {
        ($feature:meta, $ty:ident) => {
            #[cfg($feature)]
            if let Some(r) = body.downcast_mut::<crate::$ty>() {
                r.error_message = None;
                return;
            }
        };
    }
    #[cfg(any(feature = "producer", feature = "admin", feature = "txn"))]
    if let Some(r) = body.downcast_mut::<crate::InitProducerIdResponse>() {
        r.producer_epoch = -1;
        return;
    }
    #[cfg(feature = "consumer")]
    if let Some(r) = body.downcast_mut::<crate::JoinGroupResponse>() {
        if version >= 7 {
            r.protocol_name = None;
        }
        return;
    }
    #[cfg(feature = "admin")]
    if let Some(r) = body.downcast_mut::<crate::CreateDelegationTokenResponse>() {
        // Java's `KafkaPrincipal.ANONYMOUS`, and no timestamps.
        r.principal_type = "User".into();
        r.principal_name = "ANONYMOUS".into();
        if version >= 3 {
            r.token_requester_principal_type = "User".into();
            r.token_requester_principal_name = "ANONYMOUS".into();
        }
        r.issue_timestamp_ms = -1;
        r.expiry_timestamp_ms = -1;
        r.max_timestamp_ms = -1;
        return;
    }
    #[cfg(feature = "admin")]
    if let Some(r) = body.downcast_mut::<crate::DescribeClientQuotasResponse>() {
        r.error_message = None;
        r.entries = None;
        return;
    }
    null_message!(
        any(
            feature = "producer",
            feature = "consumer",
            feature = "admin"
        ),
        SaslAuthenticateResponse
    );
    null_message!(feature = "admin", AlterPartitionReassignmentsResponse);
    null_message!(feature = "admin", ListPartitionReassignmentsResponse);
    null_message!(feature = "admin", DescribeUserScramCredentialsResponse);
    null_message!(
        any(feature = "admin", feature = "cluster"),
        UpdateFeaturesResponse
    );
    message!(
        any(feature = "admin", feature = "raft", feature = "cluster"),
        DescribeQuorumResponse,
        2
    );
    message!(feature = "admin", UnregisterBrokerResponse, 0);
    message!(feature = "cluster", ControllerRegistrationResponse, 0);
    message!(
        any(feature = "admin", feature = "raft"),
        AddRaftVoterResponse,
        0
    );
    message!(
        any(feature = "admin", feature = "raft"),
        RemoveRaftVoterResponse,
        0
    );
    message!(
        any(feature = "admin", feature = "share"),
        AlterShareGroupOffsetsResponse,
        0
    );
    message!(
        any(feature = "admin", feature = "share"),
        DeleteShareGroupOffsetsResponse,
        0
    );
    message!(feature = "admin", UnregisterControllerResponse, 0);
    let _ = (body, version, message);
}

/// The entries Java's `getErrorResponse` lists for a request that names topics and
/// partitions (Produce, Fetch below v13, Metadata, ListOffsets, OffsetCommit, OffsetFetch
/// v1 and v8+), coordinator keys (FindCoordinator v4+), groups (DescribeGroups) or topics
/// (CreateTopics, DeleteTopics): each with the error, and -1 for its offsets, node or counts.
/// Whether `request` was one.
fn java_error_entries(
    request: &dyn core::any::Any,
    body: &mut dyn core::any::Any,
    version: Version,
    error: ErrorCode,
) -> bool {
    let code = error.code();
    #[cfg(feature = "producer")]
    if let (Some(req), Some(r)) = (
        request.downcast_ref::<crate::ProduceRequest>(),
        body.downcast_mut::<crate::ProduceResponse>(),
    ) {
        use crate::produce::{PartitionProduceResponse, TopicProduceResponse};
        r.responses = req
            .topic_data
            .iter()
            .map(|t| TopicProduceResponse {
                name: t.name.clone(),
                topic_id: t.topic_id,
                partition_responses: t
                    .partition_data
                    .iter()
                    .map(|p| PartitionProduceResponse {
                        index: p.index,
                        error_code: code,
                        base_offset: -1,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect();
        return true;
    }
    #[cfg(any(feature = "consumer", feature = "raft"))]
    if let (Some(req), Some(r)) = (
        request.downcast_ref::<crate::FetchRequest>(),
        body.downcast_mut::<crate::FetchResponse>(),
    ) {
        use crate::fetch::{FetchableTopicResponse, PartitionData};
        // From v13 the top-level error code alone says it.
        if version < 13 {
            r.responses = req
                .topics
                .iter()
                .map(|t| FetchableTopicResponse {
                    topic: t.topic.clone(),
                    topic_id: t.topic_id,
                    partitions: t
                        .partitions
                        .iter()
                        .map(|p| PartitionData {
                            partition_index: p.partition,
                            error_code: code,
                            high_watermark: -1,
                            records: Some(kafka_wire::Records::default()),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect();
        }
        return true;
    }
    #[cfg(any(feature = "producer", feature = "consumer", feature = "admin"))]
    if let (Some(req), Some(r)) = (
        request.downcast_ref::<crate::MetadataRequest>(),
        body.downcast_mut::<crate::MetadataResponse>(),
    ) {
        r.topics = req
            .topics
            .iter()
            .flatten()
            .map(|t| crate::MetadataResponseTopic {
                error_code: code,
                name: t.name.clone(),
                topic_id: t.topic_id,
                ..Default::default()
            })
            .collect();
        return true;
    }
    #[cfg(any(feature = "consumer", feature = "admin"))]
    {
        if let (Some(req), Some(r)) = (
            request.downcast_ref::<crate::ListOffsetsRequest>(),
            body.downcast_mut::<crate::ListOffsetsResponse>(),
        ) {
            use crate::list_offsets::{ListOffsetsPartitionResponse, ListOffsetsTopicResponse};
            r.topics = req
                .topics
                .iter()
                .map(|t| ListOffsetsTopicResponse {
                    name: t.name.clone(),
                    partitions: t
                        .partitions
                        .iter()
                        .map(|p| ListOffsetsPartitionResponse {
                            partition_index: p.partition_index,
                            error_code: code,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect();
            return true;
        }
        if let (Some(req), Some(r)) = (
            request.downcast_ref::<crate::OffsetCommitRequest>(),
            body.downcast_mut::<crate::OffsetCommitResponse>(),
        ) {
            use crate::offset_commit::{OffsetCommitResponsePartition, OffsetCommitResponseTopic};
            r.topics = req
                .topics
                .iter()
                .map(|t| OffsetCommitResponseTopic {
                    name: t.name.clone(),
                    topic_id: t.topic_id,
                    partitions: t
                        .partitions
                        .iter()
                        .map(|p| OffsetCommitResponsePartition {
                            partition_index: p.partition_index,
                            error_code: code,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect();
            return true;
        }
        if let (Some(req), Some(r)) = (
            request.downcast_ref::<crate::OffsetFetchRequest>(),
            body.downcast_mut::<crate::OffsetFetchResponse>(),
        ) {
            use crate::offset_fetch::{
                OffsetFetchResponseGroup, OffsetFetchResponsePartition, OffsetFetchResponseTopic,
            };
            if version < 2 {
                // v0-1 have no top-level error code: each partition carries it.
                r.topics = req
                    .topics
                    .iter()
                    .flatten()
                    .map(|t| OffsetFetchResponseTopic {
                        name: t.name.clone(),
                        partitions: t
                            .partition_indexes
                            .iter()
                            .map(|p| OffsetFetchResponsePartition {
                                partition_index: p,
                                committed_offset: -1,
                                metadata: Some(kafka_wire::Str::default()),
                                error_code: code,
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    })
                    .collect();
            } else if version >= 8 {
                r.groups = req
                    .groups
                    .iter()
                    .map(|g| OffsetFetchResponseGroup {
                        group_id: g.group_id.clone(),
                        error_code: code,
                        ..Default::default()
                    })
                    .collect();
            }
            return true;
        }
    }
    #[cfg(any(feature = "producer", feature = "consumer", feature = "admin"))]
    if let (Some(req), Some(r)) = (
        request.downcast_ref::<crate::FindCoordinatorRequest>(),
        body.downcast_mut::<crate::FindCoordinatorResponse>(),
    ) {
        let message = error.message().map(kafka_wire::Str::from);
        if version >= 4 {
            // One coordinator per key asked, none known (-1).
            r.coordinators = req
                .coordinator_keys
                .iter()
                .map(|key| crate::find_coordinator::Coordinator {
                    key: key.clone(),
                    node_id: -1,
                    port: -1,
                    error_code: code,
                    error_message: message.clone(),
                    ..Default::default()
                })
                .collect();
        } else {
            (r.node_id, r.port) = (-1, -1);
            if version >= 1 {
                r.error_message = message;
            }
        }
        return true;
    }
    #[cfg(feature = "admin")]
    {
        if let (Some(req), Some(r)) = (
            request.downcast_ref::<crate::DescribeGroupsRequest>(),
            body.downcast_mut::<crate::DescribeGroupsResponse>(),
        ) {
            r.groups = req
                .groups
                .iter()
                .map(|g| crate::describe_groups::DescribedGroup {
                    error_code: code,
                    group_id: g.clone(),
                    ..Default::default()
                })
                .collect();
            return true;
        }
        if let (Some(req), Some(r)) = (
            request.downcast_ref::<crate::CreateTopicsRequest>(),
            body.downcast_mut::<crate::CreateTopicsResponse>(),
        ) {
            r.topics = req
                .topics
                .iter()
                .map(|t| crate::create_topics::CreatableTopicResult {
                    name: t.name.clone(),
                    error_code: code,
                    error_message: None,
                    num_partitions: -1,
                    replication_factor: -1,
                    configs: Some(Vec::new()),
                    ..Default::default()
                })
                .collect();
            return true;
        }
        if let (Some(req), Some(r)) = (
            request.downcast_ref::<crate::DeleteTopicsRequest>(),
            body.downcast_mut::<crate::DeleteTopicsResponse>(),
        ) {
            use crate::delete_topics::DeletableTopicResult;
            // Names (v0-5) or topics by name or id (v6+).
            let by_name = req.topic_names.iter().map(|n| DeletableTopicResult {
                name: Some(n.clone()),
                error_code: code,
                ..Default::default()
            });
            let by_state = req.topics.iter().map(|t| DeletableTopicResult {
                name: t.name.clone(),
                topic_id: t.topic_id,
                error_code: code,
                ..Default::default()
            });
            r.responses = by_name.chain(by_state).collect();
            return true;
        }
    }
    let _ = (request, body, version, code);
    false
}
