//! The three seed pages (/work/shared/seeds), byte-exact.
//!
//! Each page shows the smallest legal request and response frame of one API as an object
//! tree with offsets and sizes. The frames below were transcribed by hand, field by field,
//! from those trees; the `*_TREE` tables are the trees' (node, offset, size) triples. The
//! tests encode the smallest instance and compare with the bytes, decode the bytes back, and
//! check that the encoder puts every node of the tree where the page says (offsets computed
//! from the encoder's own sizes, walked over the instance).

use bytes::Bytes;
use kafka_wire::frame::DecodeOptions;
use kafka_wire::{
    Cx, DecodeErrorKind, Field, KafkaMessage, RequestHeader, ResponseHeader, Str, Version,
};
use kafka_wire_messages::*;

// ---- the frames, transcribed from the object trees ----------------------------------------

/// AddPartitionsToTxnRequest v5, request header v2 (page 000), 38 bytes.
const APT_REQ: &[u8] = &[
    0, 0, 0, 34, // size = 34
    0, 24, // request_api_key = 24
    0, 5, // request_api_version = 5
    0, 0, 0, 0, // correlation_id = 0
    0, 0, // client_id = "" (int16 len 0)
    0, // header tagged_fields
    2, // Transactions length (n+1)
    1, // TransactionalId ""
    0, 0, 0, 0, 0, 0, 0, 0, // ProducerId
    0, 0, // ProducerEpoch
    0, // VerifyOnly = false
    2, // Topics length
    1, // Name ""
    2, // Partitions length
    0, 0, 0, 0, // int32[0]
    0, // AddPartitionsToTxnTopic tagged_fields
    0, // AddPartitionsToTxnTransaction tagged_fields
    0, // body tagged_fields
];

/// AddPartitionsToTxnResponse v5, response header v1 (page 000), 30 bytes.
const APT_RESP: &[u8] = &[
    0, 0, 0, 26, // size = 26
    0, 0, 0, 0, // correlation_id
    0, // header tagged_fields
    0, 0, 0, 0, // ThrottleTimeMs
    0, 0, // ErrorCode
    2, // ResultsByTransaction length
    1, // TransactionalId ""
    2, // TopicResults length
    1, // Name ""
    2, // ResultsByPartition length
    0, 0, 0, 0, // PartitionIndex
    0, 0, // PartitionErrorCode
    0, // AddPartitionsToTxnPartitionResult tagged_fields
    0, // AddPartitionsToTxnTopicResult tagged_fields
    0, // AddPartitionsToTxnResult tagged_fields
    0, // body tagged_fields
];

/// TxnOffsetCommitRequest v5, request header v2 (page 003), 56 bytes.
const TOC_REQ: &[u8] = &[
    0, 0, 0, 52, // size = 52
    0, 28, // request_api_key = 28
    0, 5, // request_api_version = 5
    0, 0, 0, 0, // correlation_id
    0, 0, // client_id ""
    0, // header tagged_fields
    1, // TransactionalId ""
    1, // GroupId ""
    0, 0, 0, 0, 0, 0, 0, 0, // ProducerId
    0, 0, // ProducerEpoch
    0, 0, 0, 0, // GenerationId = 0
    1, // MemberId ""
    1, // GroupInstanceId ""
    2, // Topics length
    1, // Name ""
    2, // Partitions length
    0, 0, 0, 0, // PartitionIndex
    0, 0, 0, 0, 0, 0, 0, 0, // CommittedOffset
    0, 0, 0, 0, // CommittedLeaderEpoch = 0
    1, // CommittedMetadata ""
    0, // TxnOffsetCommitRequestPartition tagged_fields
    0, // TxnOffsetCommitRequestTopic tagged_fields
    0, // body tagged_fields
];

/// TxnOffsetCommitResponse v5, response header v1 (page 003), 25 bytes.
const TOC_RESP: &[u8] = &[
    0, 0, 0, 21, // size = 21
    0, 0, 0, 0, // correlation_id
    0, // header tagged_fields
    0, 0, 0, 0, // ThrottleTimeMs
    2, // Topics length
    1, // Name ""
    2, // Partitions length
    0, 0, 0, 0, // PartitionIndex
    0, 0, // ErrorCode
    0, // TxnOffsetCommitResponsePartition tagged_fields
    0, // TxnOffsetCommitResponseTopic tagged_fields
    0, // body tagged_fields
];

/// InitializeShareGroupStateRequest v0, request header v2 (page 004), 53 bytes.
const ISGS_REQ: &[u8] = &[
    0, 0, 0, 49, // size = 49
    0, 83, // request_api_key = 83
    0, 0, // request_api_version = 0
    0, 0, 0, 0, // correlation_id
    0, 0, // client_id ""
    0, // header tagged_fields
    1, // GroupId ""
    2, // Topics length
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // TopicId
    2, // Partitions length
    0, 0, 0, 0, // Partition
    0, 0, 0, 0, // StateEpoch
    0, 0, 0, 0, 0, 0, 0, 0, // StartOffset
    0, // PartitionData tagged_fields
    0, // InitializeStateData tagged_fields
    0, // body tagged_fields
];

/// InitializeShareGroupStateResponse v0, response header v1 (page 004), 37 bytes.
const ISGS_RESP: &[u8] = &[
    0, 0, 0, 33, // size = 33
    0, 0, 0, 0, // correlation_id
    0, // header tagged_fields
    2, // Results length
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // TopicId
    2, // Partitions length
    0, 0, 0, 0, // Partition
    0, 0, // ErrorCode
    1, // ErrorMessage ""
    0, // PartitionResult tagged_fields
    0, // InitializeStateResult tagged_fields
    0, // body tagged_fields
];

// ---- the object trees: (node, offset, size), in the pages' order ----------------------------

type Tree = &'static [(&'static str, usize, usize)];

const REQ_HEADER_V2: Tree = &[
    ("RequestHeader", 0x04, 11),
    ("request_api_key", 0x04, 2),
    ("request_api_version", 0x06, 2),
    ("correlation_id", 0x08, 4),
    ("client_id", 0x0c, 2),
    ("tagged_fields", 0x0e, 1),
];

const RESP_HEADER_V1: Tree = &[
    ("ResponseHeader", 0x04, 5),
    ("correlation_id", 0x04, 4),
    ("tagged_fields", 0x08, 1),
];

const APT_REQ_TREE: Tree = &[
    ("AddPartitionsToTxnRequest", 0x00, 38),
    ("Frame", 0x00, 4),
    ("size", 0x00, 4),
    // RequestHeader: REQ_HEADER_V2
    ("AddPartitionsToTxnRequest", 0x0f, 23),
    ("Transactions", 0x0f, 22),
    ("length", 0x0f, 1),
    ("AddPartitionsToTxnTransaction[0]", 0x10, 21),
    ("TransactionalId", 0x10, 1),
    ("ProducerId", 0x11, 8),
    ("ProducerEpoch", 0x19, 2),
    ("VerifyOnly", 0x1b, 1),
    ("Topics", 0x1c, 8),
    ("length", 0x1c, 1),
    ("AddPartitionsToTxnTopic[0]", 0x1d, 7),
    ("Name", 0x1d, 1),
    ("Partitions", 0x1e, 5),
    ("length", 0x1e, 1),
    ("int32[0]", 0x1f, 4),
    ("tagged_fields", 0x23, 1),
    ("tagged_fields", 0x24, 1),
    ("tagged_fields", 0x25, 1),
];

const APT_RESP_TREE: Tree = &[
    ("AddPartitionsToTxnResponse", 0x00, 30),
    ("Frame", 0x00, 4),
    ("size", 0x00, 4),
    // ResponseHeader: RESP_HEADER_V1
    ("AddPartitionsToTxnResponse", 0x09, 21),
    ("ThrottleTimeMs", 0x09, 4),
    ("ErrorCode", 0x0d, 2),
    ("ResultsByTransaction", 0x0f, 14),
    ("length", 0x0f, 1),
    ("AddPartitionsToTxnResult[0]", 0x10, 13),
    ("TransactionalId", 0x10, 1),
    ("TopicResults", 0x11, 11),
    ("length", 0x11, 1),
    ("AddPartitionsToTxnTopicResult[0]", 0x12, 10),
    ("Name", 0x12, 1),
    ("ResultsByPartition", 0x13, 8),
    ("length", 0x13, 1),
    ("AddPartitionsToTxnPartitionResult[0]", 0x14, 7),
    ("PartitionIndex", 0x14, 4),
    ("PartitionErrorCode", 0x18, 2),
    ("tagged_fields", 0x1a, 1),
    ("tagged_fields", 0x1b, 1),
    ("tagged_fields", 0x1c, 1),
    ("tagged_fields", 0x1d, 1),
];

const TOC_REQ_TREE: Tree = &[
    ("TxnOffsetCommitRequest", 0x00, 56),
    ("Frame", 0x00, 4),
    ("size", 0x00, 4),
    ("TxnOffsetCommitRequest", 0x0f, 41),
    ("TransactionalId", 0x0f, 1),
    ("GroupId", 0x10, 1),
    ("ProducerId", 0x11, 8),
    ("ProducerEpoch", 0x19, 2),
    // The page (an older schema) calls it GenerationId; trunk renamed it.
    ("GenerationId", 0x1b, 4),
    ("MemberId", 0x1f, 1),
    ("GroupInstanceId", 0x20, 1),
    ("Topics", 0x21, 22),
    ("length", 0x21, 1),
    ("TxnOffsetCommitRequestTopic[0]", 0x22, 21),
    ("Name", 0x22, 1),
    ("Partitions", 0x23, 19),
    ("length", 0x23, 1),
    ("TxnOffsetCommitRequestPartition[0]", 0x24, 18),
    ("PartitionIndex", 0x24, 4),
    ("CommittedOffset", 0x28, 8),
    ("CommittedLeaderEpoch", 0x30, 4),
    ("CommittedMetadata", 0x34, 1),
    ("tagged_fields", 0x35, 1),
    ("tagged_fields", 0x36, 1),
    ("tagged_fields", 0x37, 1),
];

const TOC_RESP_TREE: Tree = &[
    ("TxnOffsetCommitResponse", 0x00, 25),
    ("Frame", 0x00, 4),
    ("size", 0x00, 4),
    ("TxnOffsetCommitResponse", 0x09, 16),
    ("ThrottleTimeMs", 0x09, 4),
    ("Topics", 0x0d, 11),
    ("length", 0x0d, 1),
    ("TxnOffsetCommitResponseTopic[0]", 0x0e, 10),
    ("Name", 0x0e, 1),
    ("Partitions", 0x0f, 8),
    ("length", 0x0f, 1),
    ("TxnOffsetCommitResponsePartition[0]", 0x10, 7),
    ("PartitionIndex", 0x10, 4),
    ("ErrorCode", 0x14, 2),
    ("tagged_fields", 0x16, 1),
    ("tagged_fields", 0x17, 1),
    ("tagged_fields", 0x18, 1),
];

const ISGS_REQ_TREE: Tree = &[
    ("InitializeShareGroupStateRequest", 0x00, 53),
    ("Frame", 0x00, 4),
    ("size", 0x00, 4),
    ("InitializeShareGroupStateRequest", 0x0f, 38),
    ("GroupId", 0x0f, 1),
    ("Topics", 0x10, 36),
    ("length", 0x10, 1),
    ("InitializeStateData[0]", 0x11, 35),
    ("TopicId", 0x11, 16),
    ("Partitions", 0x21, 18),
    ("length", 0x21, 1),
    ("PartitionData[0]", 0x22, 17),
    ("Partition", 0x22, 4),
    ("StateEpoch", 0x26, 4),
    ("StartOffset", 0x2a, 8),
    ("tagged_fields", 0x32, 1),
    ("tagged_fields", 0x33, 1),
    ("tagged_fields", 0x34, 1),
];

const ISGS_RESP_TREE: Tree = &[
    ("InitializeShareGroupStateResponse", 0x00, 37),
    ("Frame", 0x00, 4),
    ("size", 0x00, 4),
    ("InitializeShareGroupStateResponse", 0x09, 28),
    ("Results", 0x09, 27),
    ("length", 0x09, 1),
    ("InitializeStateResult[0]", 0x0a, 26),
    ("TopicId", 0x0a, 16),
    ("Partitions", 0x1a, 9),
    ("length", 0x1a, 1),
    ("PartitionResult[0]", 0x1b, 8),
    ("Partition", 0x1b, 4),
    ("ErrorCode", 0x1f, 2),
    ("ErrorMessage", 0x21, 1),
    ("tagged_fields", 0x22, 1),
    ("tagged_fields", 0x23, 1),
    ("tagged_fields", 0x24, 1),
];

/// The page's tree with the header's nodes spliced in after the frame's: the expected layout
/// of `frame`, the transcribed bytes. The transcription is checked on the way (every leaf
/// covers bytes, the leaves tile the frame with no gap or overlap, the size prefix counts the
/// rest), so that a typo in a tree fails as such rather than as a product mismatch.
fn full_tree(tree: Tree, header: Tree, frame: &[u8]) -> Vec<(String, usize, usize)> {
    let own = |n: &(&str, usize, usize)| (n.0.to_owned(), n.1, n.2);
    let mut out: Vec<_> = tree[..3].iter().map(own).collect();
    out.extend(header.iter().map(own));
    out.extend(tree[3..].iter().map(own));
    let mut pos = 0;
    for (i, (name, off, size)) in out.iter().enumerate() {
        // A group's first child starts where the group does; a leaf has no child.
        let is_leaf = out.get(i + 1).is_none_or(|next| next.1 != *off);
        if is_leaf {
            assert_eq!(*off, pos, "transcribed tree {}: {name}", tree[0].0);
            assert!(*size > 0, "transcribed tree {}: {name} is empty", tree[0].0);
            pos += size;
        }
    }
    assert_eq!(pos, frame.len(), "transcribed tree {}", tree[0].0);
    assert_eq!(
        i32::from_be_bytes(frame[..4].try_into().unwrap()) as usize,
        frame.len() - 4,
        "transcribed frame of {}: size prefix",
        tree[0].0
    );
    out
}

// ---- the smallest legal instances ----------------------------------------------------------

fn apt_request() -> AddPartitionsToTxnRequest {
    AddPartitionsToTxnRequest {
        transactions: vec![AddPartitionsToTxnTransaction {
            topics: vec![AddPartitionsToTxnTopic {
                partitions: [0].into(),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn apt_response() -> AddPartitionsToTxnResponse {
    AddPartitionsToTxnResponse {
        results_by_transaction: vec![AddPartitionsToTxnResult {
            topic_results: vec![AddPartitionsToTxnTopicResult {
                results_by_partition: vec![AddPartitionsToTxnPartitionResult::default()],
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn toc_request() -> TxnOffsetCommitRequest {
    TxnOffsetCommitRequest {
        generation_id_or_member_epoch: 0,
        group_instance_id: Some(Str::new()),
        topics: vec![TxnOffsetCommitRequestTopic {
            partitions: vec![TxnOffsetCommitRequestPartition {
                committed_leader_epoch: 0,
                committed_metadata: Some(Str::new()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn toc_response() -> TxnOffsetCommitResponse {
    TxnOffsetCommitResponse {
        topics: vec![TxnOffsetCommitResponseTopic {
            partitions: vec![TxnOffsetCommitResponsePartition::default()],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn isgs_request() -> InitializeShareGroupStateRequest {
    InitializeShareGroupStateRequest {
        topics: vec![InitializeStateData {
            partitions: vec![PartitionData::default()],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn isgs_response() -> InitializeShareGroupStateResponse {
    InitializeShareGroupStateResponse {
        results: vec![InitializeStateResult {
            partitions: vec![PartitionResult {
                error_message: Some(Str::new()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn req_frame(version: Version, body: impl Into<RequestBody>) -> RequestFrame {
    RequestFrame::new(0, Some(Str::new()), version, body)
}

fn resp_frame(version: Version, body: impl Into<ResponseBody>) -> ResponseFrame {
    ResponseFrame::new(0, version, body)
}

// ---- byte-exact encode and decode -----------------------------------------------------------

fn check_request(frame: RequestFrame, bytes: &[u8]) {
    assert_eq!(frame.encoded_size(), bytes.len());
    assert_eq!(frame.to_vec().unwrap(), bytes, "{:?}", frame.api_key());
    let decoded = RequestFrame::decode(&Bytes::copy_from_slice(bytes), &DecodeOptions::DEFAULT)
        .unwrap()
        .frame;
    assert_eq!(decoded, frame);
}

fn check_response(frame: ResponseFrame, bytes: &[u8]) {
    assert_eq!(frame.encoded_size(), bytes.len());
    assert_eq!(frame.to_vec().unwrap(), bytes, "{:?}", frame.api_key);
    let decoded = ResponseFrame::decode(
        &Bytes::copy_from_slice(bytes),
        frame.api_key,
        frame.version,
        &DecodeOptions::DEFAULT,
    )
    .unwrap()
    .frame;
    assert_eq!(decoded, frame);
}

#[test]
fn add_partitions_to_txn_v5_byte_exact() {
    assert_eq!(APT_REQ.len(), 38);
    assert_eq!(APT_RESP.len(), 30);
    check_request(req_frame(5, apt_request()), APT_REQ);
    check_response(resp_frame(5, apt_response()), APT_RESP);
}

#[test]
fn txn_offset_commit_v5_byte_exact() {
    assert_eq!(TOC_REQ.len(), 56);
    assert_eq!(TOC_RESP.len(), 25);
    check_request(req_frame(5, toc_request()), TOC_REQ);
    check_response(resp_frame(5, toc_response()), TOC_RESP);
}

#[test]
fn initialize_share_group_state_v0_byte_exact() {
    assert_eq!(ISGS_REQ.len(), 53);
    assert_eq!(ISGS_RESP.len(), 37);
    check_request(req_frame(0, isgs_request()), ISGS_REQ);
    check_response(resp_frame(0, isgs_response()), ISGS_RESP);
}

#[test]
fn bodies_alone_match_the_pages() {
    // The body bytes start after prefix (4) + header (11 for request v2, 5 for response v1).
    assert_eq!(apt_request().encode_to_vec(5).unwrap(), &APT_REQ[15..]);
    assert_eq!(apt_response().encode_to_vec(5).unwrap(), &APT_RESP[9..]);
    assert_eq!(toc_request().encode_to_vec(5).unwrap(), &TOC_REQ[15..]);
    assert_eq!(toc_response().encode_to_vec(5).unwrap(), &TOC_RESP[9..]);
    assert_eq!(isgs_request().encode_to_vec(0).unwrap(), &ISGS_REQ[15..]);
    assert_eq!(isgs_response().encode_to_vec(0).unwrap(), &ISGS_RESP[9..]);
    let body = Bytes::copy_from_slice(&TOC_REQ[15..]);
    assert_eq!(
        TxnOffsetCommitRequest::decode_exact(&body, 5).unwrap(),
        toc_request()
    );
}

// ---- where the encoder puts every node of the tree -------------------------------------------

/// Walks an instance in wire order, sizing every node with the encoder's own `size`, and
/// lists (node, offset, size) like the pages' trees.
struct Layout {
    pos: usize,
    nodes: Vec<(String, usize, usize)>,
    version: Version,
    compact: bool,
}

impl Layout {
    fn new(version: Version, compact: bool) -> Self {
        Layout {
            pos: 0,
            nodes: Vec::new(),
            version,
            compact,
        }
    }

    fn cx(&self) -> Cx {
        Cx {
            version: self.version,
            compact: self.compact,
            nullable: false,
            tagged: false,
        }
    }

    fn leaf(&mut self, name: &str, size: usize) {
        self.nodes.push((name.to_owned(), self.pos, size));
        self.pos += size;
    }

    fn field<T: Field>(&mut self, name: &str, v: &T) {
        let n = v.size(self.cx());
        self.leaf(name, n);
    }

    /// A group whose size is the sum of its children.
    fn group(&mut self, name: &str, f: impl FnOnce(&mut Self)) {
        let (i, start) = (self.nodes.len(), self.pos);
        self.nodes.push((name.to_owned(), start, 0));
        f(self);
        self.nodes[i].2 = self.pos - start;
    }

    /// A struct: its fields, then the tagged-field section, which is what is left of the
    /// struct's encoded size.
    fn strukt<S: KafkaMessage>(&mut self, name: &str, s: &S, f: impl FnOnce(&mut Self)) {
        let (start, total) = (self.pos, s.size(self.cx()));
        self.group(name, |l| {
            f(l);
            let rest = start + total - l.pos;
            l.leaf("tagged_fields", rest);
        });
        assert_eq!(self.pos, start + total, "{name}");
    }

    /// An array: the length prefix (what is left of the array's size after its elements),
    /// then each element.
    fn array<T: Field>(&mut self, name: &str, items: &Vec<T>, each: impl Fn(&mut Self, &T)) {
        let cx = self.cx();
        let total = items.size(cx);
        let elems: usize = items.iter().map(|x| x.size(cx.element())).sum();
        self.group(name, |l| {
            l.leaf("length", total - elems);
            for x in items {
                each(l, x);
            }
        });
    }
}

fn request_header_layout(l: &mut Layout, h: &RequestHeader) {
    let hv = 2;
    let (v, c) = (l.version, l.compact);
    l.version = hv;
    l.compact = true;
    l.strukt("RequestHeader", h, |l| {
        l.field("request_api_key", &h.request_api_key);
        l.field("request_api_version", &h.request_api_version);
        l.field("correlation_id", &h.correlation_id);
        // ClientId has flexibleVersions "none": always classic.
        l.compact = false;
        l.field("client_id", &h.client_id);
        l.compact = true;
    });
    (l.version, l.compact) = (v, c);
}

fn response_header_layout(l: &mut Layout, h: &ResponseHeader) {
    let (v, c) = (l.version, l.compact);
    l.version = 1;
    l.compact = true;
    l.strukt("ResponseHeader", h, |l| {
        l.field("correlation_id", &h.correlation_id);
    });
    (l.version, l.compact) = (v, c);
}

fn frame_layout(
    name: &str,
    version: Version,
    header: impl FnOnce(&mut Layout),
    body: impl FnOnce(&mut Layout),
) -> Layout {
    let mut l = Layout::new(version, true);
    l.group(name, |l| {
        l.group("Frame", |l| l.field("size", &0i32));
        header(l);
        body(l);
    });
    l
}

#[test]
fn add_partitions_to_txn_tree_offsets() {
    let f = req_frame(5, apt_request());
    let RequestBody::AddPartitionsToTxn(m) = &f.body else {
        unreachable!()
    };
    let name = "AddPartitionsToTxnRequest";
    let l = frame_layout(
        name,
        5,
        |l| request_header_layout(l, &f.header),
        |l| {
            l.strukt(name, m, |l| {
                l.array("Transactions", &m.transactions, |l, t| {
                    l.strukt("AddPartitionsToTxnTransaction[0]", t, |l| {
                        l.field("TransactionalId", &t.transactional_id);
                        l.field("ProducerId", &t.producer_id);
                        l.field("ProducerEpoch", &t.producer_epoch);
                        l.field("VerifyOnly", &t.verify_only);
                        l.array("Topics", &t.topics, |l, tp| {
                            l.strukt("AddPartitionsToTxnTopic[0]", tp, |l| {
                                l.field("Name", &tp.name);
                                l.array("Partitions", &tp.partitions.to_vec(), |l, p| {
                                    l.field("int32[0]", p)
                                });
                            });
                        });
                    });
                });
            });
        },
    );
    assert_eq!(l.nodes, full_tree(APT_REQ_TREE, REQ_HEADER_V2, APT_REQ));
    assert_eq!(l.pos, f.to_vec().unwrap().len());

    let f = resp_frame(5, apt_response());
    let ResponseBody::AddPartitionsToTxn(m) = &f.body else {
        unreachable!()
    };
    let name = "AddPartitionsToTxnResponse";
    let l = frame_layout(
        name,
        5,
        |l| response_header_layout(l, &f.header),
        |l| {
            l.strukt(name, m, |l| {
                l.field("ThrottleTimeMs", &m.throttle_time_ms);
                l.field("ErrorCode", &m.error_code);
                l.array("ResultsByTransaction", &m.results_by_transaction, |l, r| {
                    l.strukt("AddPartitionsToTxnResult[0]", r, |l| {
                        l.field("TransactionalId", &r.transactional_id);
                        l.array("TopicResults", &r.topic_results, |l, t| {
                            l.strukt("AddPartitionsToTxnTopicResult[0]", t, |l| {
                                l.field("Name", &t.name);
                                l.array("ResultsByPartition", &t.results_by_partition, |l, p| {
                                    l.strukt("AddPartitionsToTxnPartitionResult[0]", p, |l| {
                                        l.field("PartitionIndex", &p.partition_index);
                                        l.field("PartitionErrorCode", &p.partition_error_code);
                                    });
                                });
                            });
                        });
                    });
                });
            });
        },
    );
    assert_eq!(l.nodes, full_tree(APT_RESP_TREE, RESP_HEADER_V1, APT_RESP));
    assert_eq!(l.pos, f.to_vec().unwrap().len());
}

#[test]
fn txn_offset_commit_tree_offsets() {
    let f = req_frame(5, toc_request());
    let RequestBody::TxnOffsetCommit(m) = &f.body else {
        unreachable!()
    };
    let name = "TxnOffsetCommitRequest";
    let l = frame_layout(
        name,
        5,
        |l| request_header_layout(l, &f.header),
        |l| {
            l.strukt(name, m, |l| {
                l.field("TransactionalId", &m.transactional_id);
                l.field("GroupId", &m.group_id);
                l.field("ProducerId", &m.producer_id);
                l.field("ProducerEpoch", &m.producer_epoch);
                l.field("GenerationId", &m.generation_id_or_member_epoch);
                l.field("MemberId", &m.member_id);
                l.field("GroupInstanceId", &m.group_instance_id);
                l.array("Topics", &m.topics, |l, t| {
                    l.strukt("TxnOffsetCommitRequestTopic[0]", t, |l| {
                        // v5: Name (0-5) is on the wire, TopicId (6+) is not.
                        l.field("Name", &t.name);
                        l.array("Partitions", &t.partitions, |l, p| {
                            l.strukt("TxnOffsetCommitRequestPartition[0]", p, |l| {
                                l.field("PartitionIndex", &p.partition_index);
                                l.field("CommittedOffset", &p.committed_offset);
                                l.field("CommittedLeaderEpoch", &p.committed_leader_epoch);
                                l.field("CommittedMetadata", &p.committed_metadata);
                            });
                        });
                    });
                });
            });
        },
    );
    assert_eq!(l.nodes, full_tree(TOC_REQ_TREE, REQ_HEADER_V2, TOC_REQ));
    assert_eq!(l.pos, f.to_vec().unwrap().len());

    let f = resp_frame(5, toc_response());
    let ResponseBody::TxnOffsetCommit(m) = &f.body else {
        unreachable!()
    };
    let name = "TxnOffsetCommitResponse";
    let l = frame_layout(
        name,
        5,
        |l| response_header_layout(l, &f.header),
        |l| {
            l.strukt(name, m, |l| {
                l.field("ThrottleTimeMs", &m.throttle_time_ms);
                l.array("Topics", &m.topics, |l, t| {
                    l.strukt("TxnOffsetCommitResponseTopic[0]", t, |l| {
                        l.field("Name", &t.name);
                        l.array("Partitions", &t.partitions, |l, p| {
                            l.strukt("TxnOffsetCommitResponsePartition[0]", p, |l| {
                                l.field("PartitionIndex", &p.partition_index);
                                l.field("ErrorCode", &p.error_code);
                            });
                        });
                    });
                });
            });
        },
    );
    assert_eq!(l.nodes, full_tree(TOC_RESP_TREE, RESP_HEADER_V1, TOC_RESP));
    assert_eq!(l.pos, f.to_vec().unwrap().len());
}

#[test]
fn initialize_share_group_state_tree_offsets() {
    let f = req_frame(0, isgs_request());
    let RequestBody::InitializeShareGroupState(m) = &f.body else {
        unreachable!()
    };
    let name = "InitializeShareGroupStateRequest";
    let l = frame_layout(
        name,
        0,
        |l| request_header_layout(l, &f.header),
        |l| {
            l.strukt(name, m, |l| {
                l.field("GroupId", &m.group_id);
                l.array("Topics", &m.topics, |l, t| {
                    l.strukt("InitializeStateData[0]", t, |l| {
                        l.field("TopicId", &t.topic_id);
                        l.array("Partitions", &t.partitions, |l, p| {
                            l.strukt("PartitionData[0]", p, |l| {
                                l.field("Partition", &p.partition);
                                l.field("StateEpoch", &p.state_epoch);
                                l.field("StartOffset", &p.start_offset);
                            });
                        });
                    });
                });
            });
        },
    );
    assert_eq!(l.nodes, full_tree(ISGS_REQ_TREE, REQ_HEADER_V2, ISGS_REQ));
    assert_eq!(l.pos, f.to_vec().unwrap().len());

    let f = resp_frame(0, isgs_response());
    let ResponseBody::InitializeShareGroupState(m) = &f.body else {
        unreachable!()
    };
    let name = "InitializeShareGroupStateResponse";
    let l = frame_layout(
        name,
        0,
        |l| response_header_layout(l, &f.header),
        |l| {
            l.strukt(name, m, |l| {
                l.array("Results", &m.results, |l, r| {
                    l.strukt("InitializeStateResult[0]", r, |l| {
                        l.field("TopicId", &r.topic_id);
                        l.array("Partitions", &r.partitions, |l, p| {
                            l.strukt("PartitionResult[0]", p, |l| {
                                l.field("Partition", &p.partition);
                                l.field("ErrorCode", &p.error_code);
                                l.field("ErrorMessage", &p.error_message);
                            });
                        });
                    });
                });
            });
        },
    );
    assert_eq!(
        l.nodes,
        full_tree(ISGS_RESP_TREE, RESP_HEADER_V1, ISGS_RESP)
    );
    assert_eq!(l.pos, f.to_vec().unwrap().len());
}

// ---- whole-frame dispatch --------------------------------------------------------------------

#[test]
fn request_frames_dispatch_on_the_peeked_key() {
    for (bytes, key, version) in [
        (APT_REQ, ApiKey::AddPartitionsToTxn, 5),
        (TOC_REQ, ApiKey::TxnOffsetCommit, 5),
        (ISGS_REQ, ApiKey::InitializeShareGroupState, 0),
    ] {
        let f = RequestFrame::decode(&Bytes::copy_from_slice(bytes), &DecodeOptions::DEFAULT)
            .unwrap()
            .frame;
        assert_eq!(f.api_key(), key);
        assert_eq!(f.body.api_key(), key);
        assert_eq!(f.version(), version);
        assert_eq!(f.header.client_id.as_deref(), Some(""));
        assert_eq!(f.body.meta().name, key.request_meta().name);
    }
}

fn with_key_and_version(bytes: &[u8], key: i16, version: i16) -> Bytes {
    let mut b = bytes.to_vec();
    b[4..6].copy_from_slice(&key.to_be_bytes());
    b[6..8].copy_from_slice(&version.to_be_bytes());
    Bytes::from(b)
}

#[test]
fn unknown_api_key_is_a_typed_error() {
    // 4-7: APIs removed from Kafka; 95 and up: not assigned.
    for key in [4, 5, 6, 7, 95, -1, i16::MAX] {
        let e = RequestFrame::decode(
            &with_key_and_version(APT_REQ, key, 5),
            &DecodeOptions::DEFAULT,
        )
        .unwrap_err();
        assert_eq!(e.kind(), &DecodeErrorKind::UnknownApiKey(key));
        assert_eq!(e.offset(), 4);
        assert_eq!(e.path().to_string(), "header.request_api_key");
    }
    assert_eq!(ApiKey::from_i16(7), None);
    assert!(matches!(
        ApiKey::try_from(7).unwrap_err().kind(),
        DecodeErrorKind::UnknownApiKey(7)
    ));
}

#[test]
fn unsupported_version_is_a_typed_error() {
    for (bytes, key, version) in [
        (APT_REQ, 24, 6),
        (TOC_REQ, 28, 7),
        (ISGS_REQ, 83, 1),
        (ISGS_REQ, 83, -1),
    ] {
        let e = RequestFrame::decode(
            &with_key_and_version(bytes, key, version),
            &DecodeOptions::DEFAULT,
        )
        .unwrap_err();
        assert!(
            matches!(e.kind(), DecodeErrorKind::UnsupportedVersion { version: v, .. } if *v == version),
            "{e}"
        );
        assert_eq!(e.offset(), 6);
    }
    let e = ResponseFrame::decode(
        &Bytes::from_static(TOC_RESP),
        ApiKey::TxnOffsetCommit,
        7,
        &DecodeOptions::DEFAULT,
    )
    .unwrap_err();
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::UnsupportedVersion {
            name: "TxnOffsetCommit",
            version: 7
        }
    ));
    let empty = Bytes::new();
    let mut r = kafka_wire::Reader::new(&empty);
    let e = RequestBody::decode(ApiKey::ApiVersions, 9, &mut r).unwrap_err();
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::UnsupportedVersion { version: 9, .. }
    ));
}

#[test]
fn trailing_bytes_are_an_error() {
    // One byte more than the prefix says.
    let mut b = TOC_REQ.to_vec();
    b.push(0);
    let e = RequestFrame::decode(&Bytes::from(b), &DecodeOptions::DEFAULT).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::TrailingBytes(1));
    // A prefix that counts one byte more than the body uses.
    let mut b = TOC_REQ.to_vec();
    b[3] += 1;
    b.push(0);
    let e = RequestFrame::decode(&Bytes::from(b), &DecodeOptions::DEFAULT).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::TrailingBytes(1));
    assert_eq!(e.offset(), TOC_REQ.len());
    let mut b = ISGS_RESP.to_vec();
    b[3] += 2;
    b.extend([0, 0]);
    let e = ResponseFrame::decode(
        &Bytes::from(b),
        ApiKey::InitializeShareGroupState,
        0,
        &DecodeOptions::DEFAULT,
    )
    .unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::TrailingBytes(2));
}

#[test]
fn truncated_and_oversized_frames_are_errors() {
    let e = RequestFrame::decode(
        &Bytes::copy_from_slice(&APT_REQ[..20]),
        &DecodeOptions::DEFAULT,
    )
    .unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::Truncated { .. }), "{e}");
    let e = RequestFrame::decode(
        &Bytes::copy_from_slice(&APT_REQ[..2]),
        &DecodeOptions::DEFAULT,
    )
    .unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::Truncated { .. }), "{e}");
    // A prefix above the maximum is rejected from the prefix alone.
    let e = RequestFrame::decode(
        &Bytes::from_static(APT_REQ),
        &DecodeOptions::from_max_frame_size(33),
    )
    .unwrap_err();
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::LimitExceeded {
            limit: kafka_wire::Limit::FrameSize,
            value: 34,
            max: 33
        }
    );
    assert!(RequestFrame::decode(
        &Bytes::from_static(APT_REQ),
        &DecodeOptions::from_max_frame_size(34)
    )
    .is_ok());
    let huge = Bytes::from_static(&[0x7f, 0xff, 0xff, 0xff, 0, 18]);
    let e = RequestFrame::decode(&huge, &DecodeOptions::DEFAULT).unwrap_err();
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::LimitExceeded {
            limit: kafka_wire::Limit::FrameSize,
            ..
        }
    ));
    let e = ResponseFrame::decode(
        &Bytes::from_static(APT_RESP),
        ApiKey::AddPartitionsToTxn,
        5,
        &DecodeOptions::from_max_frame_size(25),
    )
    .unwrap_err();
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::LimitExceeded {
            limit: kafka_wire::Limit::FrameSize,
            value: 26,
            max: 25
        }
    );
    let e = RequestFrame::decode(
        &Bytes::from_static(&[0xff, 0xff, 0xff, 0xff]),
        &DecodeOptions::DEFAULT,
    )
    .unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::NegativeFrameSize(-1));
}

#[test]
fn mismatched_header_key_does_not_encode() {
    let mut f = req_frame(5, apt_request());
    f.header.request_api_key = 28;
    assert!(f.to_vec().is_err());
    let mut f = resp_frame(5, apt_response());
    f.api_key = ApiKey::TxnOffsetCommit;
    assert!(f.to_vec().is_err());
}

#[test]
fn api_key_table() {
    let keys: Vec<i16> = ApiKey::ALL.iter().map(|k| k.key()).collect();
    // Every key of Kafka's schemas but the four removed ones (4-7), in order.
    let expected: Vec<i16> = (0..=94).filter(|k| !(4..=7).contains(k)).collect();
    assert_eq!(keys, expected);
    for &k in ApiKey::ALL {
        assert_eq!(ApiKey::from_i16(k.key()), Some(k));
        assert_eq!(k.to_string(), k.name());
        assert_eq!(k.request_meta().name, format!("{}Request", k.name()));
        assert_eq!(k.response_meta().name, format!("{}Response", k.name()));
    }
    // From the pages and schemas.
    let t = ApiKey::TxnOffsetCommit;
    assert_eq!(t.request_versions().to_string(), "0-6");
    assert_eq!(t.response_versions().to_string(), "0-6");
    assert_eq!(t.request_flexible_versions().to_string(), "3+");
    assert_eq!(
        (t.request_header_version(2), t.request_header_version(3)),
        (1, 2)
    );
    assert_eq!(
        (t.response_header_version(2), t.response_header_version(3)),
        (0, 1)
    );
    let s = ApiKey::InitializeShareGroupState;
    assert_eq!(s.request_versions().to_string(), "0");
    assert_eq!(
        (s.request_header_version(0), s.response_header_version(0)),
        (2, 1)
    );
    assert_eq!(
        ApiKey::AddPartitionsToTxn
            .response_flexible_versions()
            .to_string(),
        "3+"
    );
    // ApiVersions: request header follows flexibility, the response header is always v0.
    let a = ApiKey::ApiVersions;
    assert_eq!(
        (a.request_header_version(2), a.request_header_version(3)),
        (1, 2)
    );
    assert_eq!(
        (a.response_header_version(0), a.response_header_version(3)),
        (0, 0)
    );
    assert_eq!(ApiKey::ApiVersions.name(), "ApiVersions");
}

#[test]
fn api_versions_response_header_is_v0_even_when_flexible() {
    // ApiVersionsResponse v3 with nothing set: header v0 = correlation_id only (KIP-511).
    // error_code, api_keys (compact, empty = 1), throttle_time_ms, tagged section (0).
    let expected: &[u8] = &[0, 0, 0, 12, 0, 0, 0, 9, 0, 0, 1, 0, 0, 0, 0, 0];
    let f = ResponseFrame::new(9, 3, ApiVersionsResponse::default());
    // finalized_features_epoch defaults to -1 and zk_migration_ready to false: no tags.
    assert_eq!(f.to_vec().unwrap(), expected);
    let back = ResponseFrame::decode(
        &Bytes::from_static(expected),
        ApiKey::ApiVersions,
        3,
        &DecodeOptions::DEFAULT,
    )
    .unwrap()
    .frame;
    assert_eq!(back, f);
}
