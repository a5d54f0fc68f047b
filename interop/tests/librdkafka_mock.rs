//! A whole transaction against librdkafka's mock cluster (a broker implementation written in
//! C by others) over real TCP sockets, every frame encoded and decoded by kafka-wire.

mod common;

use common::*;
use kafka_wire::frame;
use kafka_wire::frame::DecodeOptions;
use kafka_wire::{Bytes, RequestHeader};
use kafka_wire_interop::client::{CallError, Connection};
use kafka_wire_messages::{AddPartitionsToTxnRequest, AddPartitionsToTxnTopic};

#[test]
fn transaction_against_the_mock_cluster() {
    let cluster = mock_cluster();
    let run = run_transaction(&cluster);
    let versions: Vec<(&str, i16)> = run.versions.iter().map(|(k, v)| (*k, *v)).collect();
    println!("negotiated: {versions:?}; {} exchanges", run.exchanges);
    // librdkafka 2.12's mock serves ApiVersions 0-2, FindCoordinator 0-3, InitProducerId 0-4,
    // AddPartitionsToTxn 0-1, AddOffsetsToTxn 0-1, TxnOffsetCommit 0-3 and EndTxn 0-1; ours
    // are wider, so negotiation lands on the mock's maximum — flexible for three of them.
    assert_eq!(
        versions,
        vec![
            ("AddOffsetsToTxn", 1),
            ("AddPartitionsToTxn", 1),
            ("ApiVersions", 2),
            ("EndTxn", 1),
            ("FindCoordinator", 3),
            ("InitProducerId", 4),
            ("TxnOffsetCommit", 3),
        ]
    );
    assert_eq!(run.frames.len(), 2 * run.exchanges);
}

/// A request the mock cannot parse makes it close the connection; the client reports that
/// clearly instead of hanging or mis-reading.
#[test]
fn unparsable_request_is_reported_as_a_closed_connection() {
    let cluster = mock_cluster();
    let bootstrap = cluster.bootstrap_servers();
    let mut conn = Connection::connect(bootstrap.split(',').next().unwrap(), 0).unwrap();
    let req = AddPartitionsToTxnRequest {
        v3_and_below_transactional_id: TXN_ID.into(),
        v3_and_below_topics: vec![AddPartitionsToTxnTopic {
            name: TOPIC.into(),
            partitions: [0].into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    // A well-formed v1 request, cut short: the topics array promises more than is there.
    let header = RequestHeader::new(24, 1, 1, Some("x".into()));
    let mut good = Vec::new();
    frame::encode_request(&mut good, &header, &req).unwrap();
    let cut = good.len() - 6;
    let mut bad = good[..cut].to_vec();
    bad[..4].copy_from_slice(&((cut - 4) as i32).to_be_bytes());
    let err = conn.send_raw(24, 1, Bytes::from(bad)).unwrap_err();
    assert!(
        matches!(
            err,
            CallError::Closed {
                api_key: 24,
                version: 1,
                ..
            }
        ),
        "{err}"
    );
    let msg = err.to_string();
    assert!(msg.contains("closed the connection"), "{msg}");
    println!("{msg}");

    // The same request whole is answered, on a new connection.
    let mut conn = Connection::connect(bootstrap.split(',').next().unwrap(), 1).unwrap();
    let response = conn.send_raw(24, 1, Bytes::from(good)).unwrap();
    let (h, body) = frame::decode_response::<kafka_wire_messages::AddPartitionsToTxnResponse>(
        &response,
        1,
        &DecodeOptions::DEFAULT,
    )
    .unwrap()
    .frame;
    assert_eq!(h.correlation_id, 1);
    assert_eq!(body.results_by_topic_v3_and_below.len(), 1);
}

/// `kafka_wire::codec::FrameCodec` (feature `tokio`) splits the mock's byte stream into
/// frames, fed in small uneven reads from the socket; no runtime needed.
#[test]
fn frame_codec_splits_the_mock_stream() {
    use kafka_wire::bytes::BytesMut;
    use kafka_wire::codec::{Decoder, Encoder, FrameCodec};
    use kafka_wire_messages::{ApiVersionsRequest, ApiVersionsResponse};
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::{Duration, Instant};

    let cluster = mock_cluster();
    let bootstrap = cluster.bootstrap_servers();
    let mut stream = TcpStream::connect(bootstrap.split(',').next().unwrap()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut codec = FrameCodec::new();
    // Two pipelined requests in one write: ApiVersions v0 and v2.
    let mut out = BytesMut::new();
    for (corr, v) in [(1, 0), (2, 2)] {
        let mut f = Vec::new();
        frame::encode_request(
            &mut f,
            &RequestHeader::new(18, v, corr, Some("codec".into())),
            &ApiVersionsRequest::default(),
        )
        .unwrap();
        codec.encode(Bytes::from(f), &mut out).unwrap();
    }
    stream.write_all(&out).unwrap();

    let mut buf = BytesMut::new();
    let mut frames = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut chunk = [0u8; 7];
    while frames.len() < 2 {
        assert!(
            Instant::now() < deadline,
            "no two frames from the mock in time"
        );
        let n = stream.read(&mut chunk).expect("read from the mock");
        assert!(n > 0, "the mock closed the connection");
        buf.extend_from_slice(&chunk[..n]);
        while let Some(f) = codec.decode(&mut buf).unwrap() {
            frames.push(f);
        }
    }
    assert!(buf.is_empty());
    for (f, (corr, v)) in frames.iter().zip([(1, 0), (2, 2)]) {
        let (h, body) =
            frame::decode_response::<ApiVersionsResponse>(f, v, &DecodeOptions::DEFAULT)
                .unwrap()
                .frame;
        assert_eq!(h.correlation_id, corr);
        assert_eq!(body.error_code, 0);
        assert!(body
            .api_keys
            .iter()
            .any(|k| k.api_key == 28 && k.max_version == 3));
    }
}
