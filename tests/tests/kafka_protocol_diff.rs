//! Byte-exact differential against the `kafka-protocol` crate (0.18, generated from Kafka's
//! JSON schemas by other people) for every API and version both declare. The list of APIs is
//! our dispatch's (`ApiKey::ALL`), so it grows as APIs are declared; versions are those both
//! sides declare.
//!
//! * Generated values (non-default everywhere, nulls, tagged and unknown tagged fields at every
//!   level; see `kafka_wire_tests::gen`): our bytes decode with kafka-protocol, which encodes
//!   them back to exactly our bytes; those bytes decode with our typed codec, which encodes
//!   them back again, and decode to the generated value. Whole frames: kafka-protocol reads
//!   the header at the header version it computes itself (so header versions are compared
//!   too).
//! * kafka-protocol's own default values (`Default` of each of its messages) encode, at every
//!   shared version, to the bytes of our defaults, and decode with our codec to our defaults.
//!
//! Where the two disagree, who matches Kafka's Java code was checked and the case is listed
//! in [`DIVERGENCES`] with the reason; a listed case must still disagree (so the list cannot go
//! stale), every other case must agree. Every message version is checked whatever fails
//! before it (a panic in either codec counts as a failure of that version), and the test ends
//! with every failing API and version and each distinct error, not the first.

use bytes::{Buf, Bytes, BytesMut};
use kafka_protocol::messages::*;
use kafka_protocol::messages::{
    ApiKey as KpApiKey, RequestHeader as KpRequestHeader, RequestKind,
    ResponseHeader as KpResponseHeader, ResponseKind,
};
use kafka_protocol::protocol::{Decodable, Encodable, Message};
use kafka_wire::dynamic::{self, BodySpec};
use kafka_wire::frame::DecodeOptions;
use kafka_wire::{ApiKind, Version};
use kafka_wire_messages::{ApiKey, RequestBody, RequestFrame, ResponseBody, ResponseFrame};
use kafka_wire_tests::cases::{all_cases, generated_frame, Case};
use kafka_wire_tests::gen::Generator;

/// Generated values per message version.
const SEEDS: u64 = 6;

/// A known, reviewed disagreement with kafka-protocol: the API, side, versions and why (who
/// matches Kafka's Java code).
struct Divergence {
    api: i16,
    kind: ApiKind,
    versions: (Version, Version),
    reason: &'static str,
}

/// Every known disagreement. Empty means none was found.
const DIVERGENCES: &[Divergence] = &[];

fn divergence(case: Case) -> Option<&'static Divergence> {
    DIVERGENCES.iter().find(|d| {
        d.api == case.api.key()
            && d.kind == case.kind
            && (d.versions.0..=d.versions.1).contains(&case.version)
    })
}

/// kafka-protocol's default request and response of each of its APIs.
macro_rules! kp_defaults {
    ($( $variant:ident => $req:ident, $resp:ident; )*) => {
        fn kp_default_request(key: KpApiKey) -> RequestKind {
            match key {
                $( KpApiKey::$variant => RequestKind::$variant($req::default()), )*
            }
        }

        fn kp_default_response(key: KpApiKey) -> ResponseKind {
            match key {
                $( KpApiKey::$variant => ResponseKind::$variant($resp::default()), )*
            }
        }

        /// The versions kafka-protocol's message struct accepts (its `ApiKey::valid_versions`
        /// can be wider: it advertises versions its schema copy marks unstable, which the
        /// structs refuse).
        fn kp_versions(key: KpApiKey, kind: ApiKind) -> (i16, i16) {
            let r = match (key, kind) {
                $(
                    (KpApiKey::$variant, ApiKind::Request) => <$req as Message>::VERSIONS,
                    (KpApiKey::$variant, ApiKind::Response) => <$resp as Message>::VERSIONS,
                )*
            };
            (r.min, r.max)
        }
    };
}

kp_defaults! {
    Produce => ProduceRequest, ProduceResponse;
    Fetch => FetchRequest, FetchResponse;
    ListOffsets => ListOffsetsRequest, ListOffsetsResponse;
    Metadata => MetadataRequest, MetadataResponse;
    OffsetCommit => OffsetCommitRequest, OffsetCommitResponse;
    OffsetFetch => OffsetFetchRequest, OffsetFetchResponse;
    FindCoordinator => FindCoordinatorRequest, FindCoordinatorResponse;
    JoinGroup => JoinGroupRequest, JoinGroupResponse;
    Heartbeat => HeartbeatRequest, HeartbeatResponse;
    LeaveGroup => LeaveGroupRequest, LeaveGroupResponse;
    SyncGroup => SyncGroupRequest, SyncGroupResponse;
    DescribeGroups => DescribeGroupsRequest, DescribeGroupsResponse;
    ListGroups => ListGroupsRequest, ListGroupsResponse;
    SaslHandshake => SaslHandshakeRequest, SaslHandshakeResponse;
    ApiVersions => ApiVersionsRequest, ApiVersionsResponse;
    CreateTopics => CreateTopicsRequest, CreateTopicsResponse;
    DeleteTopics => DeleteTopicsRequest, DeleteTopicsResponse;
    DeleteRecords => DeleteRecordsRequest, DeleteRecordsResponse;
    InitProducerId => InitProducerIdRequest, InitProducerIdResponse;
    OffsetForLeaderEpoch => OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse;
    AddPartitionsToTxn => AddPartitionsToTxnRequest, AddPartitionsToTxnResponse;
    AddOffsetsToTxn => AddOffsetsToTxnRequest, AddOffsetsToTxnResponse;
    EndTxn => EndTxnRequest, EndTxnResponse;
    WriteTxnMarkers => WriteTxnMarkersRequest, WriteTxnMarkersResponse;
    TxnOffsetCommit => TxnOffsetCommitRequest, TxnOffsetCommitResponse;
    DescribeAcls => DescribeAclsRequest, DescribeAclsResponse;
    CreateAcls => CreateAclsRequest, CreateAclsResponse;
    DeleteAcls => DeleteAclsRequest, DeleteAclsResponse;
    DescribeConfigs => DescribeConfigsRequest, DescribeConfigsResponse;
    AlterConfigs => AlterConfigsRequest, AlterConfigsResponse;
    AlterReplicaLogDirs => AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse;
    DescribeLogDirs => DescribeLogDirsRequest, DescribeLogDirsResponse;
    SaslAuthenticate => SaslAuthenticateRequest, SaslAuthenticateResponse;
    CreatePartitions => CreatePartitionsRequest, CreatePartitionsResponse;
    CreateDelegationToken => CreateDelegationTokenRequest, CreateDelegationTokenResponse;
    RenewDelegationToken => RenewDelegationTokenRequest, RenewDelegationTokenResponse;
    ExpireDelegationToken => ExpireDelegationTokenRequest, ExpireDelegationTokenResponse;
    DescribeDelegationToken => DescribeDelegationTokenRequest, DescribeDelegationTokenResponse;
    DeleteGroups => DeleteGroupsRequest, DeleteGroupsResponse;
    ElectLeaders => ElectLeadersRequest, ElectLeadersResponse;
    IncrementalAlterConfigs => IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse;
    AlterPartitionReassignments => AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse;
    ListPartitionReassignments => ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse;
    OffsetDelete => OffsetDeleteRequest, OffsetDeleteResponse;
    DescribeClientQuotas => DescribeClientQuotasRequest, DescribeClientQuotasResponse;
    AlterClientQuotas => AlterClientQuotasRequest, AlterClientQuotasResponse;
    DescribeUserScramCredentials => DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse;
    AlterUserScramCredentials => AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse;
    Vote => VoteRequest, VoteResponse;
    BeginQuorumEpoch => BeginQuorumEpochRequest, BeginQuorumEpochResponse;
    EndQuorumEpoch => EndQuorumEpochRequest, EndQuorumEpochResponse;
    DescribeQuorum => DescribeQuorumRequest, DescribeQuorumResponse;
    AlterPartition => AlterPartitionRequest, AlterPartitionResponse;
    UpdateFeatures => UpdateFeaturesRequest, UpdateFeaturesResponse;
    Envelope => EnvelopeRequest, EnvelopeResponse;
    FetchSnapshot => FetchSnapshotRequest, FetchSnapshotResponse;
    DescribeCluster => DescribeClusterRequest, DescribeClusterResponse;
    DescribeProducers => DescribeProducersRequest, DescribeProducersResponse;
    BrokerRegistration => BrokerRegistrationRequest, BrokerRegistrationResponse;
    BrokerHeartbeat => BrokerHeartbeatRequest, BrokerHeartbeatResponse;
    UnregisterBroker => UnregisterBrokerRequest, UnregisterBrokerResponse;
    DescribeTransactions => DescribeTransactionsRequest, DescribeTransactionsResponse;
    ListTransactions => ListTransactionsRequest, ListTransactionsResponse;
    AllocateProducerIds => AllocateProducerIdsRequest, AllocateProducerIdsResponse;
    ConsumerGroupHeartbeat => ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse;
    ConsumerGroupDescribe => ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse;
    ControllerRegistration => ControllerRegistrationRequest, ControllerRegistrationResponse;
    GetTelemetrySubscriptions => GetTelemetrySubscriptionsRequest, GetTelemetrySubscriptionsResponse;
    PushTelemetry => PushTelemetryRequest, PushTelemetryResponse;
    AssignReplicasToDirs => AssignReplicasToDirsRequest, AssignReplicasToDirsResponse;
    ListConfigResources => ListConfigResourcesRequest, ListConfigResourcesResponse;
    DescribeTopicPartitions => DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse;
    ShareGroupHeartbeat => ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse;
    ShareGroupDescribe => ShareGroupDescribeRequest, ShareGroupDescribeResponse;
    ShareFetch => ShareFetchRequest, ShareFetchResponse;
    ShareAcknowledge => ShareAcknowledgeRequest, ShareAcknowledgeResponse;
    AddRaftVoter => AddRaftVoterRequest, AddRaftVoterResponse;
    RemoveRaftVoter => RemoveRaftVoterRequest, RemoveRaftVoterResponse;
    UpdateRaftVoter => UpdateRaftVoterRequest, UpdateRaftVoterResponse;
    InitializeShareGroupState => InitializeShareGroupStateRequest, InitializeShareGroupStateResponse;
    ReadShareGroupState => ReadShareGroupStateRequest, ReadShareGroupStateResponse;
    WriteShareGroupState => WriteShareGroupStateRequest, WriteShareGroupStateResponse;
    DeleteShareGroupState => DeleteShareGroupStateRequest, DeleteShareGroupStateResponse;
    ReadShareGroupStateSummary => ReadShareGroupStateSummaryRequest, ReadShareGroupStateSummaryResponse;
    DescribeShareGroupOffsets => DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse;
    AlterShareGroupOffsets => AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse;
    DeleteShareGroupOffsets => DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse;
}

/// kafka-protocol's API for ours, and whether it declares `version`.
fn kp_api(case: Case) -> Option<KpApiKey> {
    let kp = KpApiKey::try_from(case.api.key()).ok()?;
    let (min, max) = kp_versions(kp, case.kind);
    (min..=max).contains(&case.version).then_some(kp)
}

/// Decodes a whole frame with kafka-protocol and encodes it again; the bytes, or what failed.
fn kp_reencode_frame(case: Case, kp: KpApiKey, frame: &[u8]) -> Result<Vec<u8>, String> {
    let mut buf = Bytes::copy_from_slice(frame);
    if buf.len() < 4 {
        return Err("short frame".into());
    }
    let size = buf.get_i32();
    if size as usize != buf.len() {
        return Err(format!("size prefix {size} for {} bytes", buf.len()));
    }
    let v = case.version;
    let mut out = BytesMut::new();
    match case.kind {
        ApiKind::Request => {
            let hv = kp.request_header_version(v);
            let h = KpRequestHeader::decode(&mut buf, hv).map_err(|e| format!("header: {e:#}"))?;
            let body = RequestKind::decode(kp, &mut buf, v).map_err(|e| format!("{e:#}"))?;
            if buf.has_remaining() {
                return Err(format!("{} bytes left over", buf.remaining()));
            }
            h.encode(&mut out, hv)
                .map_err(|e| format!("header: {e:#}"))?;
            body.encode(&mut out, v).map_err(|e| format!("{e:#}"))?;
        }
        ApiKind::Response => {
            let hv = kp.response_header_version(v);
            let h = KpResponseHeader::decode(&mut buf, hv).map_err(|e| format!("header: {e:#}"))?;
            let body = ResponseKind::decode(kp, &mut buf, v).map_err(|e| format!("{e:#}"))?;
            if buf.has_remaining() {
                return Err(format!("{} bytes left over", buf.remaining()));
            }
            h.encode(&mut out, hv)
                .map_err(|e| format!("header: {e:#}"))?;
            body.encode(&mut out, v).map_err(|e| format!("{e:#}"))?;
        }
    }
    let mut framed = (out.len() as i32).to_be_bytes().to_vec();
    framed.extend_from_slice(&out);
    Ok(framed)
}

/// Our typed codec on a whole frame: decode, encode again.
fn ours_reencode_frame(case: Case, frame: &Bytes) -> Result<Vec<u8>, String> {
    match case.kind {
        ApiKind::Request => RequestFrame::decode(frame, &DecodeOptions::DEFAULT)
            .map(|d| d.frame)
            .map_err(|e| e.to_string())?
            .to_vec()
            .map_err(|e| e.to_string()),
        ApiKind::Response => {
            ResponseFrame::decode(frame, case.api, case.version, &DecodeOptions::DEFAULT)
                .map(|d| d.frame)
                .map_err(|e| e.to_string())?
                .to_vec()
                .map_err(|e| e.to_string())
        }
    }
}

/// One generated frame through both codecs; `Err` describes the first disagreement.
fn generated(case: Case, kp: KpApiKey, seed: u64) -> Result<(), String> {
    let mut g = Generator::new(seed);
    let frame = generated_frame(case, &mut g);
    let ours = dynamic::encode_frame(&frame).map_err(|e| format!("our encode: {e}"))?;
    let theirs = kp_reencode_frame(case, kp, &ours).map_err(|e| format!("kafka-protocol: {e}"))?;
    if theirs != ours {
        return Err(format!(
            "kafka-protocol re-encodes differently (first difference at byte {})",
            first_difference(&ours, &theirs)
        ));
    }
    // Their bytes through our typed codec, and back to the generated value.
    let theirs = Bytes::from(theirs);
    let again = ours_reencode_frame(case, &theirs).map_err(|e| format!("ours on theirs: {e}"))?;
    if again != theirs {
        return Err("our typed codec re-encodes kafka-protocol's bytes differently".into());
    }
    let back = match case.kind {
        ApiKind::Request => dynamic::decode_request_frame(
            &theirs,
            |k| ApiKey::from_i16(k).map(|a| a.request_meta()),
            None,
            &DecodeOptions::DEFAULT,
        )
        .map(|d| d.frame),
        ApiKind::Response => dynamic::decode_response_frame(
            &theirs,
            BodySpec {
                api_key: case.api.key(),
                meta: case.meta(),
                version: case.version,
            },
            None,
            &DecodeOptions::DEFAULT,
        )
        .map(|d| d.frame),
    }
    .map_err(|e| format!("ours on theirs: {e}"))?;
    if back != frame {
        return Err("kafka-protocol's bytes decode to another value".into());
    }
    Ok(())
}

/// kafka-protocol's default body against ours.
fn defaults(case: Case, kp: KpApiKey) -> Result<(), String> {
    let v = case.version;
    let mut theirs = BytesMut::new();
    let ours = match case.kind {
        ApiKind::Request => {
            kp_default_request(kp)
                .encode(&mut theirs, v)
                .map_err(|e| format!("kafka-protocol encode: {e:#}"))?;
            RequestBody::default_for(case.api).to_vec(v)
        }
        ApiKind::Response => {
            kp_default_response(kp)
                .encode(&mut theirs, v)
                .map_err(|e| format!("kafka-protocol encode: {e:#}"))?;
            ResponseBody::default_for(case.api).to_vec(v)
        }
    }
    .map_err(|e| format!("our encode: {e}"))?;
    if theirs[..] != ours[..] {
        return Err(format!(
            "default bodies differ: theirs {:02x?}, ours {:02x?}",
            &theirs[..],
            ours
        ));
    }
    let theirs = theirs.freeze();
    let mut r = kafka_wire::Reader::new(&theirs);
    let decoded_ok = match case.kind {
        ApiKind::Request => RequestBody::decode(case.api, v, &mut r)
            .map(|b| b == RequestBody::default_for(case.api)),
        ApiKind::Response => ResponseBody::decode(case.api, v, &mut r)
            .map(|b| b == ResponseBody::default_for(case.api)),
    }
    .map_err(|e| format!("ours on their default: {e}"))?;
    if !decoded_ok || !r.is_empty() {
        return Err("their default decodes to something other than our default".into());
    }
    Ok(())
}

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

thread_local! {
    /// Where the last panic on this thread happened, recorded by [`quiet_panics`]' hook.
    static PANIC_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with a panic hook that records the location instead of printing a backtrace
/// for every failing case; the previous hook is restored afterwards.
fn quiet_panics<R>(f: impl FnOnce() -> R) -> R {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        let at = info.location().map(|l| l.to_string());
        PANIC_AT.with(|p| *p.borrow_mut() = at);
    }));
    let result = f();
    std::panic::set_hook(previous);
    result
}

/// Runs one check, turning a panic (in either codec or in the generator) into an error, so
/// that one case's panic does not hide every case after it.
fn checked(check: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)).unwrap_or_else(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a non-string payload".into());
        let at = PANIC_AT
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| "an unknown place".into());
        Err(format!("panicked at {at}: {msg}"))
    })
}

/// Every distinct error of one message version, each with the checks that produced it
/// (`defaults`, `seed 0`, ...), in the order first seen.
fn case_errors(case: Case, kp: KpApiKey) -> Vec<String> {
    let mut errors: Vec<(String, Vec<String>)> = Vec::new();
    let mut record = |check: String, result: Result<(), String>| {
        if let Err(e) = result {
            match errors.iter_mut().find(|(seen, _)| *seen == e) {
                Some((_, checks)) => checks.push(check),
                None => errors.push((e, vec![check])),
            }
        }
    };
    record("defaults".into(), checked(|| defaults(case, kp)));
    for seed in 0..SEEDS {
        record(
            format!("seed {seed}"),
            checked(|| generated(case, kp, seed)),
        );
    }
    errors
        .into_iter()
        .map(|(e, checks)| format!("{}: {e}", checks.join(", ")))
        .collect()
}

#[test]
fn differential_against_kafka_protocol() {
    let mut compared = Vec::new();
    let mut skipped = Vec::new();
    // Every failing message version with all its distinct errors; nothing stops at the first.
    let mut failures: Vec<(Case, Vec<String>)> = Vec::new();
    let mut expected = Vec::new();
    for case in all_cases() {
        let Some(kp) = kp_api(case) else {
            skipped.push(case.to_string());
            continue;
        };
        compared.push(case);
        let errors = quiet_panics(|| case_errors(case, kp));
        match (divergence(case), errors.is_empty()) {
            (None, true) => {}
            (None, false) => failures.push((case, errors)),
            (Some(d), false) => expected.push(format!(
                "{case}: {} (known: {})",
                errors.join("; "),
                d.reason
            )),
            (Some(d), true) => failures.push((
                case,
                vec![format!(
                    "agrees now: remove it from DIVERGENCES ({})",
                    d.reason
                )],
            )),
        }
    }
    let apis: std::collections::BTreeSet<_> = compared.iter().map(|c| c.api).collect();
    println!(
        "kafka-protocol: {} APIs, {} message versions, {} generated frames and {} default bodies compared",
        apis.len(),
        compared.len(),
        compared.len() as u64 * SEEDS,
        compared.len()
    );
    println!(
        "not in kafka-protocol 0.18 ({}): {}",
        skipped.len(),
        skipped.join(", ")
    );
    for e in &expected {
        println!("known divergence: {e}");
    }
    let failing_apis: std::collections::BTreeSet<String> = failures
        .iter()
        .map(|(c, _)| format!("{:?}", c.api))
        .collect();
    let report: Vec<String> = failures
        .iter()
        .flat_map(|(case, errors)| errors.iter().map(move |e| format!("{case}: {e}")))
        .collect();
    assert!(
        failures.is_empty(),
        "{} message versions of {} APIs disagree ({}):\n{}",
        failures.len(),
        failing_apis.len(),
        failing_apis.into_iter().collect::<Vec<_>>().join(", "),
        report.join("\n")
    );
}
