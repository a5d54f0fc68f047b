//! A single-node, in-memory Kafka broker on the public API of kafka-wire: enough for Kafka's
//! clients to create topics, produce (any codec: batches are stored as they come, only their
//! offsets and leader epoch stamped), list offsets, fetch, and consume in a group with
//! committed offsets. Nothing is persisted; one partition leader (this node) for everything.
//!
//! ```sh
//! cargo run -p kafka-wire-examples --example mini_broker -- 127.0.0.1:9092
//! ```
//!
//! It prints `listening on ADDR` once bound (port 0 picks a free one) and serves until killed.
//! Served: ApiVersions, Metadata, CreateTopics, InitProducerId, Produce, ListOffsets, Fetch,
//! FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch,
//! every version this crate declares. A group rebalances on every join (its latest joiner
//! leads and sees every member).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use kafka_wire::codec::Framed;
use kafka_wire::records::assign_offsets;
use kafka_wire::typed::ServerCodec;
use kafka_wire::{Bytes, ErrorCode, Records, Str, Uuid, Version};
use kafka_wire_messages::answer::ServedApis;
use kafka_wire_messages::{
    create_topics as ct, fetch, find_coordinator as fc, join_group as jg, list_offsets as lo,
    metadata as md, offset_commit as oc, offset_fetch as of, produce, ApiKey, RequestBody,
    RequestFrame, ResponseBody, ResponseFrame, TopicRef,
};
use tokio::net::{TcpListener, TcpStream};

type Error = Box<dyn std::error::Error + Send + Sync>;

const NODE: i32 = 0;
const SERVED: [ApiKey; 14] = [
    ApiKey::ApiVersions,
    ApiKey::Metadata,
    ApiKey::CreateTopics,
    ApiKey::InitProducerId,
    ApiKey::Produce,
    ApiKey::ListOffsets,
    ApiKey::Fetch,
    ApiKey::FindCoordinator,
    ApiKey::JoinGroup,
    ApiKey::SyncGroup,
    ApiKey::Heartbeat,
    ApiKey::LeaveGroup,
    ApiKey::OffsetCommit,
    ApiKey::OffsetFetch,
];

/// One partition's log: record sets as stored (offsets assigned), by base offset.
#[derive(Default)]
struct Log {
    sets: Vec<(i64, Bytes)>,
    end: i64,
}

struct Topic {
    id: Uuid,
    partitions: Vec<Log>,
}

#[derive(Default)]
struct Group {
    generation: i32,
    protocol: Option<Str>,
    /// Member id → (its protocol metadata, its assignment).
    members: BTreeMap<Str, (Bytes, Bytes)>,
    /// (topic, partition) → committed offset.
    offsets: HashMap<(Str, i32), i64>,
}

#[derive(Default)]
struct State {
    topics: BTreeMap<Str, Topic>,
    groups: HashMap<Str, Group>,
    next_producer_id: i64,
    next_member: u64,
}

impl State {
    fn create(&mut self, name: &Str, partitions: i32) -> &Topic {
        let n = self.topics.len() as u128 + 1;
        self.topics.entry(name.clone()).or_insert_with(|| Topic {
            id: Uuid::from_u128(n << 64 | 0x6b77),
            partitions: (0..partitions.max(1)).map(|_| Log::default()).collect(),
        })
    }

    fn find(&self, topic: Option<TopicRef<'_>>) -> Option<(&Str, &Topic)> {
        match topic? {
            TopicRef::Name(n) => self.topics.get_key_value(n),
            TopicRef::Id(id) => self.topics.iter().find(|(_, t)| t.id == id),
        }
    }
}

/// Where clients reach this broker.
#[derive(Clone)]
struct Me {
    host: Str,
    port: i32,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:9092".to_owned());
    let listener = TcpListener::bind(&addr).await?;
    let local = listener.local_addr()?;
    println!("listening on {local}");
    let me = Me {
        host: local.ip().to_string().into(),
        port: i32::from(local.port()),
    };
    let state = Arc::new(Mutex::new(State::default()));
    let served = Arc::new(ServedApis::new(SERVED));
    loop {
        let (socket, peer) = listener.accept().await?;
        let (state, served, me) = (state.clone(), served.clone(), me.clone());
        tokio::spawn(async move {
            if let Err(e) = serve(socket, &state, &served, &me).await {
                eprintln!("{peer}: {e}");
            }
        });
    }
}

async fn serve(
    socket: TcpStream,
    state: &Mutex<State>,
    served: &ServedApis,
    me: &Me,
) -> Result<(), Error> {
    let mut conn = Framed::new(socket, ServerCodec::<RequestFrame, ResponseFrame>::new());
    while let Some(item) = conn.next().await {
        let req = match item? {
            Ok(req) => req,
            // ApiVersions at a version we do not know: UNSUPPORTED_VERSION at v0 (KIP-511).
            Err(bad) => match served.answer_undecodable(&bad.frame) {
                Some(answer) => {
                    conn.send(answer).await?;
                    continue;
                }
                None => return Err(bad.error.into()),
            },
        };
        if let Err(refused) = served.check(&req) {
            conn.send(refused).await?;
            continue;
        }
        let answer = match &req.body {
            RequestBody::ApiVersions(_) => served.answer(&req),
            RequestBody::Fetch(f) => {
                Some(req.respond(fetch_waiting(state, f, req.version()).await))
            }
            RequestBody::Produce(p) if p.acks == 0 => {
                produce(&mut state.lock().unwrap(), p, req.version());
                None
            }
            _ => Some(req.respond(handle(&mut state.lock().unwrap(), &req, me))),
        };
        if let Some(answer) = answer {
            conn.send(answer).await?;
        }
    }
    Ok(())
}

/// Every API but ApiVersions and Fetch, under the state's lock.
fn handle(s: &mut State, req: &RequestFrame, me: &Me) -> ResponseBody {
    let v = req.version();
    match &req.body {
        RequestBody::Metadata(m) => metadata(s, m, v, me).into(),
        RequestBody::CreateTopics(c) => ct::CreateTopicsResponse {
            topics: c
                .topics
                .iter()
                .map(|t| {
                    let exists = s.topics.contains_key(&t.name);
                    let topic = s.create(&t.name, t.num_partitions);
                    ct::CreatableTopicResult {
                        name: t.name.clone(),
                        topic_id: topic.id,
                        error_code: if exists {
                            ErrorCode::TOPIC_ALREADY_EXISTS.code()
                        } else {
                            0
                        },
                        num_partitions: topic.partitions.len() as i32,
                        replication_factor: 1,
                        ..Default::default()
                    }
                })
                .collect(),
            ..Default::default()
        }
        .into(),
        RequestBody::InitProducerId(_) => {
            s.next_producer_id += 1;
            kafka_wire_messages::InitProducerIdResponse {
                producer_id: s.next_producer_id,
                producer_epoch: 0,
                ..Default::default()
            }
            .into()
        }
        RequestBody::Produce(p) => produce(s, p, v).into(),
        RequestBody::ListOffsets(l) => list_offsets(s, l).into(),
        RequestBody::FindCoordinator(f) => {
            let keys = if v >= 4 {
                f.coordinator_keys.clone()
            } else {
                vec![f.key.clone()]
            };
            let coordinator = |key: Str| fc::Coordinator {
                key,
                node_id: NODE,
                host: me.host.clone(),
                port: me.port,
                ..Default::default()
            };
            if v >= 4 {
                fc::FindCoordinatorResponse {
                    coordinators: keys.into_iter().map(coordinator).collect(),
                    ..Default::default()
                }
            } else {
                fc::FindCoordinatorResponse {
                    node_id: NODE,
                    host: me.host.clone(),
                    port: me.port,
                    ..Default::default()
                }
            }
            .into()
        }
        RequestBody::JoinGroup(j) => join(s, j).into(),
        RequestBody::SyncGroup(g) => {
            let group = s.groups.entry(g.group_id.clone()).or_default();
            if g.generation_id != group.generation || !group.members.contains_key(&g.member_id) {
                return req.body.error_response(v, ErrorCode::REBALANCE_IN_PROGRESS);
            }
            for a in &g.assignments {
                if let Some(m) = group.members.get_mut(&a.member_id) {
                    m.1 = a.assignment.clone();
                }
            }
            kafka_wire_messages::SyncGroupResponse {
                protocol_type: Some("consumer".into()),
                protocol_name: group.protocol.clone(),
                assignment: group.members[&g.member_id].1.clone(),
                ..Default::default()
            }
            .into()
        }
        RequestBody::Heartbeat(h) => {
            let group = s.groups.entry(h.group_id.clone()).or_default();
            let stale =
                h.generation_id != group.generation || !group.members.contains_key(&h.member_id);
            req.body.error_response(
                v,
                if stale {
                    ErrorCode::REBALANCE_IN_PROGRESS
                } else {
                    ErrorCode::NONE
                },
            )
        }
        RequestBody::LeaveGroup(l) => {
            let group = s.groups.entry(l.group_id.clone()).or_default();
            group.members.remove(&l.member_id);
            for m in &l.members {
                group.members.remove(&m.member_id);
            }
            group.generation += 1;
            req.body.error_response(v, ErrorCode::NONE)
        }
        RequestBody::OffsetCommit(c) => commit(s, c, v).into(),
        RequestBody::OffsetFetch(f) => offset_fetch(s, f, v).into(),
        _ => req.body.error_response(v, ErrorCode::UNSUPPORTED_VERSION),
    }
}

fn metadata(s: &mut State, m: &md::MetadataRequest, v: Version, me: &Me) -> md::MetadataResponse {
    let names: Vec<Str> = match &m.topics {
        None => s.topics.keys().cloned().collect(),
        Some(ts) => ts
            .iter()
            .filter_map(|t| match t.topic_ref(v)? {
                // Before v4 every request could create topics.
                TopicRef::Name(n) if m.allow_auto_topic_creation || v < 4 => {
                    s.create(n, 1);
                    Some(n.clone())
                }
                r => s
                    .find(Some(r))
                    .map(|(n, _)| n.clone())
                    .or_else(|| t.name.clone()),
            })
            .collect(),
    };
    let topics = names
        .into_iter()
        .map(|name| match s.topics.get(&name) {
            None => md::MetadataResponseTopic {
                error_code: ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.code(),
                name: Some(name),
                ..Default::default()
            },
            Some(t) => md::MetadataResponseTopic {
                name: Some(name),
                topic_id: t.id,
                partitions: (0..t.partitions.len() as i32)
                    .map(|i| md::MetadataResponsePartition {
                        partition_index: i,
                        leader_id: NODE,
                        leader_epoch: 0,
                        replica_nodes: vec![NODE].into(),
                        isr_nodes: vec![NODE].into(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            },
        })
        .collect();
    md::MetadataResponse {
        brokers: vec![md::MetadataResponseBroker {
            node_id: NODE,
            host: me.host.clone(),
            port: me.port,
            ..Default::default()
        }],
        cluster_id: Some("kafka-wire-mini".into()),
        controller_id: NODE,
        topics,
        ..Default::default()
    }
}

fn produce(s: &mut State, p: &produce::ProduceRequest, v: Version) -> produce::ProduceResponse {
    let responses = p
        .topic_data
        .iter()
        .map(|t| {
            let topic = s.find(t.topic_ref(v)).map(|(n, _)| n.clone());
            let mut r = produce::TopicProduceResponse::default();
            let id = topic.as_ref().map_or(t.topic_id, |n| s.topics[n].id);
            r.set_topic_ref(v, topic.as_ref().unwrap_or(&t.name), id);
            r.partition_responses = t
                .partition_data
                .iter()
                .map(|pd| {
                    let mut out = produce::PartitionProduceResponse {
                        index: pd.index,
                        ..Default::default()
                    };
                    let log = topic
                        .as_ref()
                        .and_then(|n| s.topics.get_mut(n)?.partitions.get_mut(pd.index as usize));
                    let Some(log) = log else {
                        out.error_code = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.code();
                        return out;
                    };
                    // The batches stored as they came: only their base offsets and leader
                    // epoch change, in place.
                    let mut set = pd.records.as_ref().map_or_else(Vec::new, |r| r.0.to_vec());
                    match assign_offsets(&mut set, log.end, 0) {
                        Ok(end) => {
                            out.base_offset = log.end;
                            log.sets.push((log.end, set.into()));
                            log.end = end;
                        }
                        Err(_) => out.error_code = ErrorCode::CORRUPT_MESSAGE.code(),
                    }
                    out
                })
                .collect();
            r
        })
        .collect();
    produce::ProduceResponse {
        responses,
        ..Default::default()
    }
}

fn list_offsets(s: &State, l: &lo::ListOffsetsRequest) -> lo::ListOffsetsResponse {
    let topics = l
        .topics
        .iter()
        .map(|t| lo::ListOffsetsTopicResponse {
            name: t.name.clone(),
            partitions: t
                .partitions
                .iter()
                .map(|p| {
                    let log = s
                        .topics
                        .get(&t.name)
                        .and_then(|t| t.partitions.get(p.partition_index as usize));
                    lo::ListOffsetsPartitionResponse {
                        partition_index: p.partition_index,
                        error_code: if log.is_some() {
                            0
                        } else {
                            ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.code()
                        },
                        // -2 is the earliest offset; anything else the latest.
                        offset: if p.timestamp == -2 {
                            0
                        } else {
                            log.map_or(-1, |l| l.end)
                        },
                        ..Default::default()
                    }
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    lo::ListOffsetsResponse {
        topics,
        ..Default::default()
    }
}

/// Fetch: what the logs hold from each offset asked; if nothing yet, waits (up to the
/// request's max wait, at most 200 ms) once for a producer.
async fn fetch_waiting(
    state: &Mutex<State>,
    f: &fetch::FetchRequest,
    v: Version,
) -> fetch::FetchResponse {
    let (response, bytes) = read(&state.lock().unwrap(), f, v);
    if bytes > 0 || f.max_wait_ms <= 0 {
        return response;
    }
    tokio::time::sleep(Duration::from_millis(f.max_wait_ms.min(200) as u64)).await;
    read(&state.lock().unwrap(), f, v).0
}

fn read(s: &State, f: &fetch::FetchRequest, v: Version) -> (fetch::FetchResponse, usize) {
    let mut total = 0;
    let responses = f
        .topics
        .iter()
        .map(|t| {
            let found = s.find(t.topic_ref(v));
            let mut r = fetch::FetchableTopicResponse::default();
            r.set_topic_ref(v, found.map_or(&t.topic, |(n, _)| n), t.topic_id);
            r.partitions = t
                .partitions
                .iter()
                .map(|p| {
                    let mut out = fetch::PartitionData {
                        partition_index: p.partition,
                        ..Default::default()
                    };
                    let Some(log) = found.and_then(|(_, t)| t.partitions.get(p.partition as usize))
                    else {
                        out.error_code = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.code();
                        return out;
                    };
                    if p.fetch_offset > log.end {
                        out.error_code = ErrorCode::OFFSET_OUT_OF_RANGE.code();
                    }
                    (
                        out.high_watermark,
                        out.last_stable_offset,
                        out.log_start_offset,
                    ) = (log.end, log.end, 0);
                    // Whole stored sets from the one holding the offset asked, up to the
                    // partition's byte limit (at least one, as Kafka does).
                    let mut data = Vec::new();
                    let first = log
                        .sets
                        .partition_point(|(base, _)| *base <= p.fetch_offset)
                        .saturating_sub(1);
                    for (_, set) in log.sets.iter().skip(first) {
                        if !data.is_empty()
                            && data.len() + set.len() > p.partition_max_bytes.max(0) as usize
                        {
                            break;
                        }
                        data.extend_from_slice(set);
                    }
                    total += data.len();
                    out.records = Some(Records(data.into()));
                    out
                })
                .collect();
            r
        })
        .collect();
    (
        fetch::FetchResponse {
            responses,
            ..Default::default()
        },
        total,
    )
}

/// Every join completes at once: a new generation, led by this joiner, who sees every member.
fn join(s: &mut State, j: &jg::JoinGroupRequest) -> jg::JoinGroupResponse {
    let member_id = if j.member_id.is_empty() {
        s.next_member += 1;
        Str::from(format!("member-{}", s.next_member))
    } else {
        j.member_id.clone()
    };
    let group = s.groups.entry(j.group_id.clone()).or_default();
    let Some(protocol) = j.protocols.first() else {
        return jg::JoinGroupResponse {
            error_code: ErrorCode::INCONSISTENT_GROUP_PROTOCOL.code(),
            ..Default::default()
        };
    };
    group.generation += 1;
    group.protocol = Some(protocol.name.clone());
    group
        .members
        .insert(member_id.clone(), (protocol.metadata.clone(), Bytes::new()));
    jg::JoinGroupResponse {
        generation_id: group.generation,
        protocol_type: Some(j.protocol_type.clone()),
        protocol_name: Some(protocol.name.clone()),
        leader: member_id.clone(),
        member_id,
        members: group
            .members
            .iter()
            .map(|(id, (metadata, _))| jg::JoinGroupResponseMember {
                member_id: id.clone(),
                metadata: metadata.clone(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn commit(s: &mut State, c: &oc::OffsetCommitRequest, v: Version) -> oc::OffsetCommitResponse {
    let mut topics = Vec::new();
    for t in &c.topics {
        let name = s.find(t.topic_ref(v)).map(|(n, _)| n.clone());
        let group = s.groups.entry(c.group_id.clone()).or_default();
        let mut r = oc::OffsetCommitResponseTopic::default();
        r.set_topic_ref(v, name.as_ref().unwrap_or(&t.name), t.topic_id);
        r.partitions = t
            .partitions
            .iter()
            .map(|p| {
                let error = match &name {
                    Some(n) => {
                        group
                            .offsets
                            .insert((n.clone(), p.partition_index), p.committed_offset);
                        ErrorCode::NONE
                    }
                    None => ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                };
                oc::OffsetCommitResponsePartition {
                    partition_index: p.partition_index,
                    error_code: error.code(),
                    ..Default::default()
                }
            })
            .collect();
        topics.push(r);
    }
    oc::OffsetCommitResponse {
        topics,
        ..Default::default()
    }
}

fn offset_fetch(s: &State, f: &of::OffsetFetchRequest, v: Version) -> of::OffsetFetchResponse {
    let committed = |group: &Str, topic: &Str, partition: i32| {
        s.groups
            .get(group)
            .and_then(|g| g.offsets.get(&(topic.clone(), partition)))
            .copied()
            .unwrap_or(-1)
    };
    if v < 8 {
        let topics = f
            .topics
            .iter()
            .flatten()
            .map(|t| of::OffsetFetchResponseTopic {
                name: t.name.clone(),
                partitions: t
                    .partition_indexes
                    .iter()
                    .map(|p| of::OffsetFetchResponsePartition {
                        partition_index: p,
                        committed_offset: committed(&f.group_id, &t.name, p),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            });
        return of::OffsetFetchResponse {
            topics: topics.collect(),
            ..Default::default()
        };
    }
    let groups = f.groups.iter().map(|g| of::OffsetFetchResponseGroup {
        group_id: g.group_id.clone(),
        topics: g
            .topics
            .iter()
            .flatten()
            .map(|t| {
                let name = s
                    .find(t.topic_ref(v))
                    .map_or_else(|| t.name.clone(), |(n, _)| n.clone());
                let mut r = of::OffsetFetchResponseTopics {
                    partitions: t
                        .partition_indexes
                        .iter()
                        .map(|p| of::OffsetFetchResponsePartitions {
                            partition_index: p,
                            committed_offset: committed(&g.group_id, &name, p),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                };
                r.set_topic_ref(v, &name, t.topic_id);
                r
            })
            .collect(),
        ..Default::default()
    });
    of::OffsetFetchResponse {
        groups: groups.collect(),
        ..Default::default()
    }
}
