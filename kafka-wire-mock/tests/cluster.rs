//! The mock cluster spoken to with kafka-wire's own client codec: placement, Produce and its
//! errors, idempotence, Fetch waiting for data, ListOffsets, a classic group's barriers, and
//! the test controls. The expected codes are Kafka's (its protocol guide and the Java
//! broker's `ProducerAppendInfo`, `ClassicGroup`), not the mock's own output.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use kafka_wire::codec::Framed;
use kafka_wire::records::{BatchBuilder, Batches, ReadOptions};
use kafka_wire::typed::ClientCodec;
use kafka_wire::{Bytes, ErrorCode, Records, Str, Version, VersionRange};
use kafka_wire_messages::{
    fetch, heartbeat as hb, join_group as jg, list_offsets as lo, metadata as md, produce,
    sync_group as sg, ApiKey, RequestBody, RequestFrame, ResponseBody, ResponseFrame,
};
use kafka_wire_mock::{Cluster, Intercept};
use tokio::net::TcpStream;

/// A connection speaking the latest stable version of each API.
struct Client {
    conn: Framed<TcpStream, ClientCodec<RequestFrame, ResponseFrame>>,
    next: i32,
}

impl Client {
    async fn connect(addr: std::net::SocketAddr) -> Self {
        let socket = TcpStream::connect(addr).await.unwrap();
        Client {
            conn: Framed::new(socket, ClientCodec::new()),
            next: 0,
        }
    }

    async fn call_at(&mut self, version: Version, body: impl Into<RequestBody>) -> ResponseBody {
        self.next += 1;
        let req = RequestFrame::new(self.next, Some("test".into()), version, body);
        self.conn.send(req).await.unwrap();
        let answer = self.conn.next().await.expect("an answer").unwrap().unwrap();
        assert_eq!(answer.header.correlation_id, self.next);
        answer.body
    }

    async fn call(&mut self, body: impl Into<RequestBody>) -> ResponseBody {
        let body = body.into();
        let v = latest(body.api_key());
        self.call_at(v, body).await
    }
}

fn latest(api: ApiKey) -> Version {
    api.usable_versions(false).max().unwrap()
}

fn addr(cluster: &Cluster, broker: i32) -> std::net::SocketAddr {
    cluster
        .brokers()
        .into_iter()
        .find(|(id, _)| *id == broker)
        .unwrap()
        .1
}

fn batch(values: &[&str], producer: Option<(i64, i16, i32)>) -> Bytes {
    let mut b = BatchBuilder::new(0);
    if let Some((id, epoch, seq)) = producer {
        b.producer(id, epoch, seq);
    }
    for (i, v) in values.iter().enumerate() {
        b.append(
            1_700_000_000_000 + i as i64 * 10,
            None,
            Some(v.as_bytes()),
            &[],
        );
    }
    b.build().unwrap()
}

/// Produce v12 (topics by name) of one batch to one partition: (error, base offset).
async fn produce(c: &mut Client, topic: &str, partition: i32, records: Bytes) -> (ErrorCode, i64) {
    let req = produce::ProduceRequest {
        acks: -1,
        timeout_ms: 1000,
        topic_data: vec![produce::TopicProduceData {
            name: Str::from(topic.to_owned()),
            partition_data: vec![produce::PartitionProduceData {
                index: partition,
                records: Some(Records(records)),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::Produce(r) = c.call_at(12, req).await else {
        panic!("not a Produce response")
    };
    let p = &r.responses[0].partition_responses[0];
    (ErrorCode::from(p.error_code), p.base_offset)
}

/// Metadata for every topic (the default request asks for none).
fn all_topics() -> md::MetadataRequest {
    md::MetadataRequest {
        topics: None,
        ..Default::default()
    }
}

/// Fetch v12 (topics by name).
fn fetch_request(topic: &str, partition: i32, offset: i64, wait_ms: i32) -> fetch::FetchRequest {
    fetch::FetchRequest {
        replica_id: -1,
        max_wait_ms: wait_ms,
        min_bytes: 1,
        max_bytes: 1 << 20,
        session_epoch: -1,
        topics: vec![fetch::FetchTopic {
            topic: Str::from(topic.to_owned()),
            partitions: vec![fetch::FetchPartition {
                partition,
                fetch_offset: offset,
                partition_max_bytes: 1 << 20,
                current_leader_epoch: -1,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[tokio::test]
async fn three_brokers_start_quickly_and_spread_leaders() {
    let started = Instant::now();
    let cluster = Cluster::builder()
        .brokers(3)
        .topic("t", 6, 3)
        .build()
        .await
        .unwrap();
    let took = started.elapsed();
    println!("3-broker cluster with a 6-partition topic started in {took:?}");
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert_eq!(cluster.bootstrap().split(',').count(), 3);

    let mut c = Client::connect(addr(&cluster, 0)).await;
    let ResponseBody::Metadata(m) = c.call(all_topics()).await else {
        panic!()
    };
    assert_eq!(m.brokers.len(), 3);
    assert_eq!(m.controller_id, 0);
    let t = &m.topics[0];
    assert_eq!(t.partitions.len(), 6);
    let mut leaders: Vec<i32> = t.partitions.iter().map(|p| p.leader_id).collect();
    leaders.sort_unstable();
    assert_eq!(leaders, [0, 0, 1, 1, 2, 2]);
    for p in &t.partitions {
        assert_eq!(p.replica_nodes.len(), 3);
        assert_eq!(p.isr_nodes.len(), 3);
        assert_eq!(p.replica_nodes.first(), Some(p.leader_id));
    }
    // Unknown topic, no auto-creation.
    let ResponseBody::Metadata(m) = c
        .call(md::MetadataRequest {
            topics: Some(vec![md::MetadataRequestTopic {
                name: Some("nope".into()),
                ..Default::default()
            }]),
            ..Default::default()
        })
        .await
    else {
        panic!()
    };
    assert_eq!(
        m.topics[0].error_code,
        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.code()
    );
    assert!(cluster.frame_errors().is_empty());
}

#[tokio::test]
async fn produce_goes_to_the_leader_and_checks_sequences() {
    let cluster = Cluster::builder()
        .brokers(2)
        .topic("t", 2, 2)
        .build()
        .await
        .unwrap();
    let leader = cluster.partition("t", 0).unwrap().leader;
    let follower = 1 - leader;
    let mut to_leader = Client::connect(addr(&cluster, leader)).await;
    let mut to_follower = Client::connect(addr(&cluster, follower)).await;

    let (e, _) = produce(&mut to_follower, "t", 0, batch(&["a"], None)).await;
    assert_eq!(e, ErrorCode::NOT_LEADER_OR_FOLLOWER);
    let (e, base) = produce(&mut to_leader, "t", 0, batch(&["a", "b"], None)).await;
    assert_eq!((e, base), (ErrorCode::NONE, 0));
    let (e, _) = produce(&mut to_leader, "t", 9, batch(&["a"], None)).await;
    assert_eq!(e, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);

    // Idempotence: sequences 0-1, then 2-2; a retry of 0-1 is acknowledged with its first
    // offset and not stored again; a gap and an older epoch are refused.
    let pid = 7;
    let (e, first) = produce(
        &mut to_leader,
        "t",
        0,
        batch(&["x", "y"], Some((pid, 0, 0))),
    )
    .await;
    assert_eq!((e, first), (ErrorCode::NONE, 2));
    let (e, second) = produce(&mut to_leader, "t", 0, batch(&["z"], Some((pid, 0, 2)))).await;
    assert_eq!((e, second), (ErrorCode::NONE, 4));
    let (e, again) = produce(
        &mut to_leader,
        "t",
        0,
        batch(&["x", "y"], Some((pid, 0, 0))),
    )
    .await;
    assert_eq!((e, again), (ErrorCode::NONE, 2));
    let (e, _) = produce(&mut to_leader, "t", 0, batch(&["gap"], Some((pid, 0, 9)))).await;
    assert_eq!(e, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
    let (e, _) = produce(&mut to_leader, "t", 0, batch(&["new"], Some((pid, 1, 5)))).await;
    assert_eq!(e, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
    let (e, _) = produce(&mut to_leader, "t", 0, batch(&["new"], Some((pid, 1, 0)))).await;
    assert_eq!(e, ErrorCode::NONE);
    let (e, _) = produce(&mut to_leader, "t", 0, batch(&["old"], Some((pid, 0, 3)))).await;
    assert_eq!(e, ErrorCode::INVALID_PRODUCER_EPOCH);

    let info = cluster.partition("t", 0).unwrap();
    assert_eq!(info.log_end, 6);
    // The stored batches carry the offsets assigned and are the bytes produced otherwise.
    let stored = cluster.batches("t", 0).unwrap();
    let bases: Vec<i64> = stored
        .iter()
        .map(|b| {
            let batch = Batches::new(b.clone(), ReadOptions::default())
                .next()
                .unwrap()
                .unwrap();
            assert!(batch.crc_is_valid());
            batch.header().base_offset
        })
        .collect();
    assert_eq!(bases, [0, 2, 4, 5]);
    assert!(cluster.frame_errors().is_empty());
}

#[tokio::test]
async fn fetch_waits_for_data_and_reports_out_of_range() {
    let cluster = Cluster::builder().topic("t", 1, 1).build().await.unwrap();
    let a = addr(&cluster, 0);
    let mut consumer = Client::connect(a).await;
    let mut producer = Client::connect(a).await;

    let waiting = tokio::spawn(async move {
        let started = Instant::now();
        let body = consumer.call_at(12, fetch_request("t", 0, 0, 5_000)).await;
        (started.elapsed(), body, consumer)
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    produce(&mut producer, "t", 0, batch(&["late"], None)).await;
    let (took, body, mut consumer) = waiting.await.unwrap();
    let ResponseBody::Fetch(f) = body else {
        panic!()
    };
    assert!(
        took >= Duration::from_millis(150) && took < Duration::from_secs(3),
        "{took:?}"
    );
    let p = &f.responses[0].partitions[0];
    assert_eq!((p.error_code, p.high_watermark), (0, 1));
    let records = p.records.clone().unwrap();
    let values: Vec<Vec<u8>> = records
        .batches()
        .flat_map(|b| {
            let b = b.unwrap();
            let r = b.records().unwrap();
            r.iter()
                .map(|r| r.unwrap().value.unwrap().to_vec())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(values, [b"late".to_vec()]);

    // Nothing new and a short wait: an empty answer after the wait.
    let started = Instant::now();
    let ResponseBody::Fetch(f) = consumer.call_at(12, fetch_request("t", 0, 1, 300)).await else {
        panic!()
    };
    assert!(started.elapsed() >= Duration::from_millis(250));
    assert_eq!(
        f.responses[0].partitions[0]
            .records
            .as_ref()
            .map(|r| r.0.len()),
        Some(0)
    );

    let ResponseBody::Fetch(f) = consumer.call_at(12, fetch_request("t", 0, 5, 300)).await else {
        panic!()
    };
    assert_eq!(
        f.responses[0].partitions[0].error_code,
        ErrorCode::OFFSET_OUT_OF_RANGE.code()
    );
}

#[tokio::test]
async fn list_offsets_by_spec_and_time() {
    let cluster = Cluster::builder().topic("t", 1, 1).build().await.unwrap();
    let mut c = Client::connect(addr(&cluster, 0)).await;
    // Timestamps 1_700_000_000_000 + 0, 10, 20 then + 0, 10.
    produce(&mut c, "t", 0, batch(&["a", "b", "c"], None)).await;
    produce(&mut c, "t", 0, batch(&["d", "e"], None)).await;
    let ask = |timestamp: i64| lo::ListOffsetsRequest {
        replica_id: -1,
        topics: vec![lo::ListOffsetsTopic {
            name: "t".into(),
            partitions: vec![lo::ListOffsetsPartition {
                partition_index: 0,
                current_leader_epoch: -1,
                timestamp,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let mut got = Vec::new();
    for t in [
        -2,
        -1,
        -3,
        1_700_000_000_005,
        1_700_000_000_020,
        1_800_000_000_000,
    ] {
        let ResponseBody::ListOffsets(r) = c.call(ask(t)).await else {
            panic!()
        };
        let p = &r.topics[0].partitions[0];
        assert_eq!(p.error_code, 0);
        got.push((p.offset, p.timestamp));
    }
    assert_eq!(
        got,
        [
            (0, -1),
            (5, -1),
            (2, 1_700_000_000_020),
            (1, 1_700_000_000_010),
            (2, 1_700_000_000_020),
            (-1, -1),
        ]
    );
}

async fn join(c: &mut Client, member: &str) -> jg::JoinGroupResponse {
    let req = jg::JoinGroupRequest {
        group_id: "g".into(),
        session_timeout_ms: 1000,
        rebalance_timeout_ms: 3000,
        member_id: Str::from(member.to_owned()),
        protocol_type: "consumer".into(),
        protocols: vec![jg::JoinGroupRequestProtocol {
            name: "range".into(),
            metadata: Bytes::from_static(b"m"),
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::JoinGroup(r) = c.call(req).await else {
        panic!()
    };
    r
}

async fn heartbeat(c: &mut Client, member: &Str, generation: i32) -> ErrorCode {
    let ResponseBody::Heartbeat(r) = c
        .call(hb::HeartbeatRequest {
            group_id: "g".into(),
            generation_id: generation,
            member_id: member.clone(),
            ..Default::default()
        })
        .await
    else {
        panic!()
    };
    ErrorCode::from(r.error_code)
}

#[tokio::test]
async fn a_group_rebalances_at_its_barriers() {
    let cluster = Cluster::builder()
        .min_session_timeout(Duration::from_millis(500))
        .build()
        .await
        .unwrap();
    let a = addr(&cluster, 0);
    let (mut one, mut two) = (Client::connect(a).await, Client::connect(a).await);

    // KIP-394: the first join only hands out a member id.
    let first = join(&mut one, "").await;
    assert_eq!(first.error_code, ErrorCode::MEMBER_ID_REQUIRED.code());
    let id1 = first.member_id.clone();
    let r1 = join(&mut one, &id1).await;
    assert_eq!(
        (r1.error_code, r1.generation_id, r1.leader.clone()),
        (0, 1, id1.clone())
    );

    // A second member: its join waits at the barrier until the first rejoins, which it
    // learns from its heartbeat.
    let id2 = join(&mut two, "").await.member_id;
    let second = tokio::spawn(async move {
        let r = join(&mut two, &id2).await;
        (r, two)
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        heartbeat(&mut one, &id1, 1).await,
        ErrorCode::REBALANCE_IN_PROGRESS
    );
    let r1 = join(&mut one, &id1).await;
    let (r2, mut two) = second.await.unwrap();
    assert_eq!((r1.generation_id, r2.generation_id), (2, 2));
    assert_eq!(r1.leader, id1);
    assert_eq!(r1.members.len(), 2);
    assert!(r2.members.is_empty());

    // SyncGroup: the follower waits for the leader's assignments.
    let (id2, gen) = (r2.member_id.clone(), 2);
    let follower = tokio::spawn(async move {
        let req = sg::SyncGroupRequest {
            group_id: "g".into(),
            generation_id: gen,
            member_id: id2.clone(),
            protocol_type: Some("consumer".into()),
            protocol_name: Some("range".into()),
            ..Default::default()
        };
        let ResponseBody::SyncGroup(r) = two.call(req).await else {
            panic!()
        };
        (r, two, id2)
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let ResponseBody::SyncGroup(s1) = one
        .call(sg::SyncGroupRequest {
            group_id: "g".into(),
            generation_id: gen,
            member_id: id1.clone(),
            protocol_type: Some("consumer".into()),
            protocol_name: Some("range".into()),
            assignments: vec![
                sg::SyncGroupRequestAssignment {
                    member_id: id1.clone(),
                    assignment: Bytes::from_static(b"p0"),
                    ..Default::default()
                },
                sg::SyncGroupRequestAssignment {
                    member_id: r2.member_id.clone(),
                    assignment: Bytes::from_static(b"p1"),
                    ..Default::default()
                },
            ],
            ..Default::default()
        })
        .await
    else {
        panic!()
    };
    let (s2, mut two, id2) = follower.await.unwrap();
    assert_eq!((s1.error_code, &s1.assignment[..]), (0, &b"p0"[..]));
    assert_eq!((s2.error_code, &s2.assignment[..]), (0, &b"p1"[..]));
    assert_eq!(heartbeat(&mut two, &id2, gen).await, ErrorCode::NONE);
    assert_eq!(
        heartbeat(&mut two, &id2, 1).await,
        ErrorCode::ILLEGAL_GENERATION
    );

    // The first member stops heartbeating: its session (1 s) expires, the group rebalances.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let e = heartbeat(&mut two, &id2, gen).await;
        if e == ErrorCode::REBALANCE_IN_PROGRESS {
            break;
        }
        assert_eq!(e, ErrorCode::NONE);
        assert!(Instant::now() < deadline, "the session never expired");
    }
    let r = join(&mut two, &id2).await;
    assert_eq!((r.generation_id, r.members.len()), (3, 1));
    assert_eq!(cluster.group_members("g").unwrap().1, vec![id2.to_string()]);

    // DeleteGroups: refused while a member is in, done once it left.
    let delete = || kafka_wire_messages::DeleteGroupsRequest {
        groups_names: vec!["g".into(), "never".into()],
        ..Default::default()
    };
    let ResponseBody::DeleteGroups(d) = two.call(delete()).await else {
        panic!()
    };
    let codes: Vec<i16> = d.results.iter().map(|r| r.error_code).collect();
    assert_eq!(
        codes,
        [
            ErrorCode::NON_EMPTY_GROUP.code(),
            ErrorCode::GROUP_ID_NOT_FOUND.code()
        ]
    );
    let ResponseBody::LeaveGroup(l) = two
        .call(kafka_wire_messages::LeaveGroupRequest {
            group_id: "g".into(),
            members: vec![kafka_wire_messages::leave_group::MemberIdentity {
                member_id: id2.clone(),
                ..Default::default()
            }],
            ..Default::default()
        })
        .await
    else {
        panic!()
    };
    assert_eq!((l.error_code, l.members[0].error_code), (0, 0));
    let ResponseBody::DeleteGroups(d) = two.call(delete()).await else {
        panic!()
    };
    assert_eq!(d.results[0].error_code, 0);
    assert!(cluster.group_members("g").is_none());
    assert!(cluster.frame_errors().is_empty());
}

#[tokio::test]
async fn controls_inject_errors_cap_versions_and_intercept() {
    let cluster = Cluster::builder()
        .brokers(3)
        .topic("t", 1, 3)
        .build()
        .await
        .unwrap();
    let leader = cluster.partition("t", 0).unwrap().leader;
    let mut c = Client::connect(addr(&cluster, leader)).await;

    cluster.fail_next(ApiKey::Produce, ErrorCode::REQUEST_TIMED_OUT, 2);
    for _ in 0..2 {
        let (e, _) = produce(&mut c, "t", 0, batch(&["a"], None)).await;
        assert_eq!(e, ErrorCode::REQUEST_TIMED_OUT);
    }
    let (e, base) = produce(&mut c, "t", 0, batch(&["a"], None)).await;
    assert_eq!((e, base), (ErrorCode::NONE, 0));

    cluster.cap_versions(ApiKey::Fetch, VersionRange::new(4, 11));
    let ResponseBody::ApiVersions(v) = c
        .call(kafka_wire_messages::ApiVersionsRequest::default())
        .await
    else {
        panic!()
    };
    let fetch = v
        .api_keys
        .iter()
        .find(|k| k.api_key == ApiKey::Fetch.key())
        .unwrap();
    assert_eq!((fetch.min_version, fetch.max_version), (4, 11));
    let ResponseBody::Fetch(f) = c.call_at(12, fetch_request("t", 0, 0, 0)).await else {
        panic!()
    };
    assert_eq!(f.error_code, ErrorCode::UNSUPPORTED_VERSION.code());

    cluster.intercept(ApiKey::Metadata, |req| {
        Intercept::Respond(Box::new(
            req.error_response(ErrorCode::CLUSTER_AUTHORIZATION_FAILED),
        ))
    });
    let ResponseBody::Metadata(m) = c.call(all_topics()).await else {
        panic!()
    };
    assert_eq!(m.error_code, ErrorCode::CLUSTER_AUTHORIZATION_FAILED.code());
    cluster.intercept(ApiKey::Metadata, |_| Intercept::Drop);
    c.next += 1;
    let req = RequestFrame::new(c.next, None, 12, md::MetadataRequest::default());
    c.conn.send(req).await.unwrap();
    let after = c.conn.next().await;
    assert!(
        !matches!(after, Some(Ok(Ok(_)))),
        "the connection closes: {after:?}"
    );
    cluster.clear_intercept(ApiKey::Metadata);

    // Leadership: moved (a new epoch), then its broker removed (the next ISR member leads).
    let other = (leader + 1) % 3;
    cluster.move_leader("t", 0, other).unwrap();
    let p = cluster.partition("t", 0).unwrap();
    assert_eq!((p.leader, p.leader_epoch), (other, 1));
    cluster.remove_broker(other).unwrap();
    let p = cluster.partition("t", 0).unwrap();
    assert_ne!(p.leader, other);
    assert_eq!((p.leader_epoch, p.isr.len()), (2, 2));
    let mut c = Client::connect(addr(&cluster, p.leader)).await;
    let ResponseBody::Metadata(m) = c.call(all_topics()).await else {
        panic!()
    };
    assert_eq!(m.brokers.len(), 2);
    assert_eq!(m.topics[0].partitions[0].offline_replicas.to_vec(), [other]);

    let received = cluster.received();
    let produces = received.iter().filter(|r| r.api == ApiKey::Produce).count();
    assert_eq!(produces, 3);
    assert!(received.iter().all(|r| r.client_id.as_deref() != Some("")));
    assert!(cluster.frame_errors().is_empty());
}

/// JoinGroup of a static member (KIP-345): no MEMBER_ID_REQUIRED round.
async fn join_static(
    c: &mut Client,
    instance: &str,
    metadata: &'static [u8],
) -> jg::JoinGroupResponse {
    let req = jg::JoinGroupRequest {
        group_id: "s".into(),
        session_timeout_ms: 6000,
        rebalance_timeout_ms: 3000,
        group_instance_id: Some(Str::from(instance.to_owned())),
        protocol_type: "consumer".into(),
        protocols: vec![jg::JoinGroupRequestProtocol {
            name: "range".into(),
            metadata: Bytes::from_static(metadata),
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::JoinGroup(r) = c.call(req).await else {
        panic!()
    };
    r
}

#[tokio::test]
async fn a_restarted_static_member_keeps_its_place_and_fences_its_old_id() {
    let cluster = Cluster::builder().build().await.unwrap();
    let mut c = Client::connect(addr(&cluster, 0)).await;
    let first = join_static(&mut c, "app-1", b"m").await;
    assert_eq!((first.error_code, first.generation_id), (0, 1));
    let old = first.member_id.clone();
    let sync = |member: &Str, assignments| sg::SyncGroupRequest {
        group_id: "s".into(),
        generation_id: 1,
        member_id: member.clone(),
        group_instance_id: Some("app-1".into()),
        assignments,
        ..Default::default()
    };
    let mine = vec![sg::SyncGroupRequestAssignment {
        member_id: old.clone(),
        assignment: Bytes::from_static(b"all"),
        ..Default::default()
    }];
    let ResponseBody::SyncGroup(s) = c.call(sync(&old, mine)).await else {
        panic!()
    };
    assert_eq!(&s.assignment[..], b"all");

    // The leader restarting rebalances (a new generation); a second member joins it.
    let mut other = Client::connect(addr(&cluster, 0)).await;
    let joining = tokio::spawn(async move {
        let r = join_static(&mut other, "app-2", b"m").await;
        (r, other)
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let leader = join_static(&mut c, "app-1", b"m").await;
    let (second, mut other) = joining.await.unwrap();
    assert_eq!((leader.generation_id, second.generation_id), (2, 2));
    assert_ne!(leader.member_id, old);
    assert_eq!(leader.leader, leader.member_id);
    let fenced = heartbeat_static(&mut c, &old, "app-1", 2).await;
    assert_eq!(fenced, ErrorCode::FENCED_INSTANCE_ID);
    let assignments = vec![
        sg::SyncGroupRequestAssignment {
            member_id: leader.member_id.clone(),
            assignment: Bytes::from_static(b"p0"),
            ..Default::default()
        },
        sg::SyncGroupRequestAssignment {
            member_id: second.member_id.clone(),
            assignment: Bytes::from_static(b"p1"),
            ..Default::default()
        },
    ];
    let mut req = sync(&leader.member_id, assignments);
    req.generation_id = 2;
    let ResponseBody::SyncGroup(s) = c.call(req).await else {
        panic!()
    };
    assert_eq!(&s.assignment[..], b"p0");

    // The follower restarting, same protocols, stable group: no rebalance, same generation,
    // and its SyncGroup gets the assignment it had.
    let again = join_static(&mut other, "app-2", b"m").await;
    assert_eq!((again.error_code, again.generation_id), (0, 2));
    assert_ne!(again.member_id, second.member_id);
    let mut req = sync(&again.member_id, Vec::new());
    (req.generation_id, req.group_instance_id) = (2, Some("app-2".into()));
    let ResponseBody::SyncGroup(s) = other.call(req).await else {
        panic!()
    };
    assert_eq!((s.error_code, &s.assignment[..]), (0, &b"p1"[..]));
    assert_eq!(
        heartbeat_static(&mut other, &second.member_id, "app-2", 2).await,
        ErrorCode::FENCED_INSTANCE_ID
    );
    assert_eq!(cluster.group_members("s").unwrap().0, 2);
}

async fn heartbeat_static(
    c: &mut Client,
    member: &Str,
    instance: &str,
    generation: i32,
) -> ErrorCode {
    let ResponseBody::Heartbeat(r) = c
        .call(hb::HeartbeatRequest {
            group_id: "s".into(),
            generation_id: generation,
            member_id: member.clone(),
            group_instance_id: Some(Str::from(instance.to_owned())),
            ..Default::default()
        })
        .await
    else {
        panic!()
    };
    ErrorCode::from(r.error_code)
}

#[tokio::test]
async fn transactions_are_checked_and_end_in_markers() {
    use kafka_wire_messages::{add_partitions_to_txn as ap, end_txn as et, init_producer_id as ip};
    let cluster = Cluster::builder()
        .brokers(3)
        .topic("t", 1, 3)
        .build()
        .await
        .unwrap();
    // The transactional id's coordinator, found as a client finds it.
    let mut any = Client::connect(addr(&cluster, 0)).await;
    let ResponseBody::FindCoordinator(f) = any
        .call(kafka_wire_messages::FindCoordinatorRequest {
            key_type: 1,
            coordinator_keys: vec!["tx".into()],
            ..Default::default()
        })
        .await
    else {
        panic!()
    };
    let coordinator = f.coordinators[0].node_id;
    let elsewhere = (coordinator + 1) % 3;
    let init = || ip::InitProducerIdRequest {
        transactional_id: Some("tx".into()),
        transaction_timeout_ms: 60_000,
        producer_id: -1,
        producer_epoch: -1,
        ..Default::default()
    };
    let mut wrong = Client::connect(addr(&cluster, elsewhere)).await;
    let ResponseBody::InitProducerId(r) = wrong.call(init()).await else {
        panic!()
    };
    assert_eq!(r.error_code, ErrorCode::NOT_COORDINATOR.code());
    let mut c = Client::connect(addr(&cluster, coordinator)).await;
    let ResponseBody::InitProducerId(r) = c.call(init()).await else {
        panic!()
    };
    let (pid, epoch) = (r.producer_id, r.producer_epoch);
    assert_eq!((r.error_code, epoch), (0, 0));

    let leader = cluster.partition("t", 0).unwrap().leader;
    let mut to_leader = Client::connect(addr(&cluster, leader)).await;
    let txn_batch = |seq: i32| {
        let mut b = BatchBuilder::new(0);
        b.producer(pid, epoch, seq).transactional(true);
        b.append(1_700_000_000_000, None, Some(b"v"), &[]);
        b.build().unwrap()
    };
    // Not added to a transaction yet.
    let (e, _) = produce(&mut to_leader, "t", 0, txn_batch(0)).await;
    assert_eq!(e, ErrorCode::INVALID_TXN_STATE);

    let add = |epoch: i16| ap::AddPartitionsToTxnRequest {
        v3_and_below_transactional_id: "tx".into(),
        v3_and_below_producer_id: pid,
        v3_and_below_producer_epoch: epoch,
        v3_and_below_topics: vec![ap::AddPartitionsToTxnTopic {
            name: "t".into(),
            partitions: [0].into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let code = |r: &ap::AddPartitionsToTxnResponse| {
        r.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code
    };
    let ResponseBody::AddPartitionsToTxn(r) = c.call_at(3, add(epoch + 1)).await else {
        panic!()
    };
    assert_eq!(code(&r), ErrorCode::PRODUCER_FENCED.code());
    let ResponseBody::AddPartitionsToTxn(r) = c.call_at(3, add(epoch)).await else {
        panic!()
    };
    assert_eq!(code(&r), 0);
    let (e, base) = produce(&mut to_leader, "t", 0, txn_batch(0)).await;
    assert_eq!((e, base), (ErrorCode::NONE, 0));
    // Open: the last stable offset stays at the transaction's first offset.
    let ResponseBody::Fetch(f) = to_leader
        .call_at(12, {
            let mut f = fetch_request("t", 0, 0, 0);
            f.isolation_level = 1;
            f
        })
        .await
    else {
        panic!()
    };
    let p = &f.responses[0].partitions[0];
    assert_eq!((p.high_watermark, p.last_stable_offset), (1, 0));
    assert_eq!(p.records.as_ref().map(|r| r.0.len()), Some(0));

    let end = |committed| et::EndTxnRequest {
        transactional_id: "tx".into(),
        producer_id: pid,
        producer_epoch: epoch,
        committed,
        ..Default::default()
    };
    let ResponseBody::EndTxn(r) = c.call(end(false)).await else {
        panic!()
    };
    assert_eq!(r.error_code, 0);
    let ResponseBody::EndTxn(r) = c.call(end(true)).await else {
        panic!()
    };
    assert_eq!(r.error_code, ErrorCode::INVALID_TXN_STATE.code());
    // Aborted: a marker at offset 1, the LSO at the end, the transaction listed as aborted.
    let ResponseBody::Fetch(f) = to_leader
        .call_at(12, {
            let mut f = fetch_request("t", 0, 0, 0);
            f.isolation_level = 1;
            f
        })
        .await
    else {
        panic!()
    };
    let p = &f.responses[0].partitions[0];
    assert_eq!((p.high_watermark, p.last_stable_offset), (2, 2));
    let aborted: Vec<(i64, i64)> = p
        .aborted_transactions
        .iter()
        .flatten()
        .map(|a| (a.producer_id, a.first_offset))
        .collect();
    assert_eq!(aborted, [(pid, 0)]);
    let headers: Vec<(bool, bool)> = p
        .records
        .clone()
        .unwrap()
        .batches()
        .map(|b| {
            let h = *b.unwrap().header();
            (h.is_transactional(), h.is_control())
        })
        .collect();
    assert_eq!(headers, [(true, false), (true, true)]);
}

#[tokio::test]
async fn offset_delete_keeps_the_offsets_of_subscribed_topics() {
    use kafka_wire_messages::{offset_commit as oc, offset_delete as od};
    let cluster = Cluster::builder()
        .topic("t", 1, 1)
        .topic("u", 1, 1)
        .build()
        .await
        .unwrap();
    let mut c = Client::connect(addr(&cluster, 0)).await;
    let commit = |topic: &str| oc::OffsetCommitRequest {
        group_id: "od".into(),
        generation_id_or_member_epoch: -1,
        topics: vec![oc::OffsetCommitRequestTopic {
            name: Str::from(topic.to_owned()),
            partitions: vec![oc::OffsetCommitRequestPartition {
                partition_index: 0,
                committed_offset: 5,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    for topic in ["t", "u"] {
        let ResponseBody::OffsetCommit(r) = c.call_at(8, commit(topic)).await else {
            panic!()
        };
        assert_eq!(r.topics[0].partitions[0].error_code, 0);
    }
    // A member subscribed to "t" (the consumer protocol's subscription as its metadata).
    let subscription = kafka_wire_messages::encode_version_prefixed(
        &kafka_wire_messages::ConsumerProtocolSubscription {
            topics: vec!["t".into()],
            ..Default::default()
        },
        0,
    )
    .unwrap();
    let join = jg::JoinGroupRequest {
        group_id: "od".into(),
        session_timeout_ms: 10_000,
        rebalance_timeout_ms: 1000,
        group_instance_id: Some("i".into()),
        protocol_type: "consumer".into(),
        protocols: vec![jg::JoinGroupRequestProtocol {
            name: "range".into(),
            metadata: subscription.into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::JoinGroup(j) = c.call(join).await else {
        panic!()
    };
    assert_eq!(j.error_code, 0);
    let delete = |group: &str| od::OffsetDeleteRequest {
        group_id: Str::from(group.to_owned()),
        topics: ["t", "u", "gone"]
            .into_iter()
            .map(|t| od::OffsetDeleteRequestTopic {
                name: t.into(),
                partitions: vec![od::OffsetDeleteRequestPartition { partition_index: 0 }],
            })
            .collect(),
    };
    let ResponseBody::OffsetDelete(r) = c.call(delete("od")).await else {
        panic!()
    };
    let codes: Vec<i16> = r
        .topics
        .iter()
        .map(|t| t.partitions[0].error_code)
        .collect();
    assert_eq!(
        codes,
        [
            ErrorCode::GROUP_SUBSCRIBED_TO_TOPIC.code(),
            0,
            ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.code()
        ]
    );
    assert_eq!(cluster.committed("od", "t", 0), Some(5));
    assert_eq!(cluster.committed("od", "u", 0), None);
    let ResponseBody::OffsetDelete(r) = c.call(delete("none")).await else {
        panic!()
    };
    assert_eq!(r.error_code, ErrorCode::GROUP_ID_NOT_FOUND.code());
}

#[tokio::test]
async fn delete_records_moves_the_log_start() {
    use kafka_wire_messages::delete_records as dr;
    let cluster = Cluster::builder().topic("t", 1, 1).build().await.unwrap();
    let mut c = Client::connect(addr(&cluster, 0)).await;
    produce(&mut c, "t", 0, batch(&["a", "b", "c"], None)).await;
    produce(&mut c, "t", 0, batch(&["d", "e"], None)).await;
    let mut delete = async |offset: i64| {
        let ResponseBody::DeleteRecords(r) = c
            .call(dr::DeleteRecordsRequest {
                topics: vec![dr::DeleteRecordsTopic {
                    name: "t".into(),
                    partitions: vec![dr::DeleteRecordsPartition {
                        partition_index: 0,
                        offset,
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            })
            .await
        else {
            panic!()
        };
        let p = &r.topics[0].partitions[0];
        (ErrorCode::from(p.error_code), p.low_watermark)
    };
    assert_eq!(delete(3).await, (ErrorCode::NONE, 3));
    assert_eq!(delete(1).await, (ErrorCode::NONE, 3));
    assert_eq!(delete(9).await, (ErrorCode::OFFSET_OUT_OF_RANGE, -1));
    assert_eq!(cluster.partition("t", 0).unwrap().log_start, 3);
    assert_eq!(cluster.batches("t", 0).unwrap().len(), 1);
    let ResponseBody::Fetch(f) = c.call_at(12, fetch_request("t", 0, 0, 0)).await else {
        panic!()
    };
    let p = &f.responses[0].partitions[0];
    assert_eq!(
        (p.error_code, p.log_start_offset),
        (ErrorCode::OFFSET_OUT_OF_RANGE.code(), 3)
    );
    let mut c2 = Client::connect(addr(&cluster, 0)).await;
    let ResponseBody::DeleteRecords(r) = c2
        .call(dr::DeleteRecordsRequest {
            topics: vec![dr::DeleteRecordsTopic {
                name: "t".into(),
                partitions: vec![dr::DeleteRecordsPartition {
                    partition_index: 0,
                    offset: -1,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        })
        .await
    else {
        panic!()
    };
    assert_eq!(r.topics[0].partitions[0].low_watermark, 5);
    assert!(cluster.batches("t", 0).unwrap().is_empty());
}
