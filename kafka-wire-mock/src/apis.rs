//! The APIs outside the group coordinator: cluster metadata, topic administration, producer
//! ids, Produce, Fetch and ListOffsets, each answering as a Kafka 4.4 broker does.

use std::time::{Duration, Instant};

use kafka_wire::records::{assign_offsets, Batches, ReadOptions};
use kafka_wire::{Bytes, ErrorCode, Records, Str, Uuid, Version};
use kafka_wire_messages::answer::ServedApis;
use kafka_wire_messages::{
    create_partitions as cp, create_topics as ct, delete_records as dr, delete_topics as dt,
    describe_cluster as dc, fetch, find_coordinator as fc, init_producer_id as ip,
    list_offsets as lo, metadata as md, produce, RequestBody, RequestFrame, ResponseBody,
    ResponseFrame, TopicRef,
};

use crate::group;
use crate::state::{Partition, ProducerEntry, Shared, State, Stored};

/// Kafka's `transaction.max.timeout.ms` default.
const MAX_TRANSACTION_TIMEOUT_MS: i32 = 900_000;
/// How many batches per producer and partition Kafka remembers for duplicate detection.
const PRODUCER_BATCHES_KEPT: usize = 5;

/// The answer to a request that was checked against the versions served; `None` for a
/// Produce with acks 0.
pub(crate) async fn answer(
    shared: &Shared,
    broker: i32,
    served: &ServedApis,
    req: &RequestFrame,
) -> Option<ResponseFrame> {
    let v = req.version();
    let body: ResponseBody = match &req.body {
        RequestBody::ApiVersions(_) => return served.answer(req),
        RequestBody::Fetch(f) => fetch_waiting(shared, broker, f, v).await.into(),
        RequestBody::JoinGroup(j) => group::join(shared, broker, req, j).await.into(),
        RequestBody::SyncGroup(g) => group::sync(shared, broker, v, g).await.into(),
        RequestBody::Produce(p) if p.acks == 0 => {
            produce(&mut shared.lock(), broker, p, v);
            return None;
        }
        _ => handle(&mut shared.lock(), broker, req),
    };
    Some(req.respond(body))
}

/// The APIs answered at once, under the state's lock.
fn handle(s: &mut State, broker: i32, req: &RequestFrame) -> ResponseBody {
    let v = req.version();
    match &req.body {
        RequestBody::Metadata(m) => metadata(s, m, v).into(),
        RequestBody::CreateTopics(c) => create_topics(s, c, v).into(),
        RequestBody::DeleteTopics(d) => delete_topics(s, d, v).into(),
        RequestBody::CreatePartitions(c) => create_partitions(s, c).into(),
        RequestBody::InitProducerId(i) => init_producer_id(s, broker, i).into(),
        RequestBody::Produce(p) => produce(s, broker, p, v).into(),
        RequestBody::ListOffsets(l) => list_offsets(s, broker, l).into(),
        RequestBody::DeleteRecords(d) => delete_records(s, broker, d).into(),
        RequestBody::SaslHandshake(h) => {
            // PLAIN only; the mechanisms are listed either way, as Kafka does.
            let error = if h.mechanism == "PLAIN" {
                ErrorCode::NONE
            } else {
                ErrorCode::UNSUPPORTED_SASL_MECHANISM
            };
            kafka_wire_messages::SaslHandshakeResponse {
                error_code: error.code(),
                mechanisms: vec![Str::from("PLAIN")],
            }
            .into()
        }
        RequestBody::SaslAuthenticate(a) => sasl_plain(&a.auth_bytes).into(),
        RequestBody::FindCoordinator(f) => find_coordinator(s, f, v).into(),
        RequestBody::DescribeCluster(d) => describe_cluster(s, d).into(),
        RequestBody::AddPartitionsToTxn(_)
        | RequestBody::AddOffsetsToTxn(_)
        | RequestBody::TxnOffsetCommit(_)
        | RequestBody::EndTxn(_) => crate::txn::handle(s, broker, req),
        _ => group::handle(s, broker, req),
    }
}

/// Partition errors every data-path API shares: unknown, or not led by this broker.
fn leader_check(p: Option<&Partition>, broker: i32) -> Result<&Partition, ErrorCode> {
    match p {
        None => Err(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION),
        Some(p) if p.leader != broker => Err(ErrorCode::NOT_LEADER_OR_FOLLOWER),
        Some(p) => Ok(p),
    }
}

/// The endpoints of `brokers` (KIP-951: where the leaders a client missed are), once each.
fn endpoints<T>(s: &State, mut brokers: Vec<i32>, make: impl Fn(i32, Str, i32) -> T) -> Vec<T> {
    brokers.sort_unstable();
    brokers.dedup();
    brokers
        .into_iter()
        .filter_map(|id| {
            let (host, port) = s.endpoint(id)?;
            Some(make(id, host, port))
        })
        .collect()
}

/// A request's leader epoch against the partition's (`-1`: not checked).
fn epoch_check(p: &Partition, asked: i32) -> Result<(), ErrorCode> {
    match asked {
        a if a < 0 || a == p.epoch => Ok(()),
        a if a < p.epoch => Err(ErrorCode::FENCED_LEADER_EPOCH),
        _ => Err(ErrorCode::UNKNOWN_LEADER_EPOCH),
    }
}

/// The error for a topic not found: by id, UNKNOWN_TOPIC_ID.
pub(crate) fn unknown(topic: Option<TopicRef<'_>>) -> ErrorCode {
    match topic {
        Some(TopicRef::Id(_)) => ErrorCode::UNKNOWN_TOPIC_ID,
        _ => ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
    }
}

fn message(error: ErrorCode, text: String) -> Option<Str> {
    (error != ErrorCode::NONE).then(|| Str::from(text))
}

fn metadata(s: &mut State, m: &md::MetadataRequest, v: Version) -> md::MetadataResponse {
    // v0's empty list and later versions' null both mean every topic.
    let all = match &m.topics {
        None => true,
        Some(t) => t.is_empty() && v == 0,
    };
    let mut topics = Vec::new();
    if all {
        let names: Vec<Str> = s.topics.keys().cloned().collect();
        topics.extend(names.iter().map(|n| topic_metadata(s, n)));
    } else {
        for t in m.topics.iter().flatten() {
            let r = t.topic_ref(v);
            if let Some((name, _)) = s.find(r) {
                let name = name.clone();
                topics.push(topic_metadata(s, &name));
                continue;
            }
            let mut out = md::MetadataResponseTopic {
                error_code: unknown(r).code(),
                name: t.name.clone(),
                topic_id: t.topic_id,
                ..Default::default()
            };
            // Before v4 every request may create topics. Kafka answers LEADER_NOT_AVAILABLE
            // while it creates one, and the client asks again.
            if let (Some(TopicRef::Name(name)), true) = (
                r,
                s.options.auto_create && (m.allow_auto_topic_creation || v < 4),
            ) {
                out.error_code = match s.create_topic(name, -1, -1) {
                    Ok(_) => ErrorCode::LEADER_NOT_AVAILABLE.code(),
                    Err((e, _)) => e.code(),
                };
            }
            topics.push(out);
        }
    }
    md::MetadataResponse {
        brokers: endpoints(
            s,
            s.brokers.keys().copied().collect(),
            |node_id, host, port| md::MetadataResponseBroker {
                node_id,
                host,
                port,
                ..Default::default()
            },
        ),
        cluster_id: Some(s.options.cluster_id.clone()),
        controller_id: s.controller().unwrap_or(-1),
        topics,
        ..Default::default()
    }
}

fn topic_metadata(s: &State, name: &Str) -> md::MetadataResponseTopic {
    let t = &s.topics[name];
    md::MetadataResponseTopic {
        name: Some(name.clone()),
        topic_id: t.id,
        partitions: t
            .partitions
            .iter()
            .enumerate()
            .map(|(i, p)| md::MetadataResponsePartition {
                error_code: if p.leader < 0 {
                    ErrorCode::LEADER_NOT_AVAILABLE.code()
                } else {
                    0
                },
                partition_index: i as i32,
                leader_id: p.leader,
                leader_epoch: p.epoch,
                replica_nodes: p.replicas.clone().into(),
                isr_nodes: p.isr.clone().into(),
                offline_replicas: p
                    .replicas
                    .iter()
                    .copied()
                    .filter(|r| !s.brokers.contains_key(r))
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn create_topics(
    s: &mut State,
    c: &ct::CreateTopicsRequest,
    v: Version,
) -> ct::CreateTopicsResponse {
    let topics = c
        .topics
        .iter()
        .map(|t| {
            let mut out = ct::CreatableTopicResult {
                name: t.name.clone(),
                ..Default::default()
            };
            let result = if c.topics.iter().filter(|o| o.name == t.name).count() > 1 {
                Err((
                    ErrorCode::INVALID_REQUEST,
                    format!("Create topics request from client contains multiple entries for the following topics: {}", t.name),
                ))
            } else if t.assignments.is_empty() {
                s.check_new_topic(&t.name, t.num_partitions, t.replication_factor)
                    .and_then(|()| {
                        if c.validate_only {
                            return Ok(None);
                        }
                        s.create_topic(&t.name, t.num_partitions, t.replication_factor)
                            .map(|_| Some(()))
                    })
                    .map(|_| ())
            } else {
                create_assigned(s, t, c.validate_only)
            };
            match result {
                Ok(()) => {
                    if let Some(topic) = s.topics.get(&t.name) {
                        out.topic_id = topic.id;
                        out.num_partitions = topic.partitions.len() as i32;
                        out.replication_factor =
                            topic.partitions.first().map_or(0, |p| p.replicas.len() as i16);
                    } else {
                        // validate_only: what would have been created.
                        out.num_partitions = if t.num_partitions == -1 {
                            s.options.default_partitions
                        } else {
                            t.num_partitions
                        };
                        out.replication_factor = t.replication_factor.max(1);
                    }
                    if v >= 5 {
                        out.configs = Some(Vec::new());
                    }
                }
                Err((e, text)) => {
                    out.error_code = e.code();
                    out.error_message = message(e, text);
                    out.num_partitions = -1;
                    out.replication_factor = -1;
                }
            }
            out
        })
        .collect();
    ct::CreateTopicsResponse {
        topics,
        ..Default::default()
    }
}

/// A CreateTopics entry with explicit replica assignments.
fn create_assigned(
    s: &mut State,
    t: &ct::CreatableTopic,
    validate_only: bool,
) -> Result<(), (ErrorCode, String)> {
    if t.num_partitions != -1 || t.replication_factor != -1 {
        return Err((
            ErrorCode::INVALID_REQUEST,
            "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.".into(),
        ));
    }
    let first = t.assignments.first().map_or(0, |a| a.broker_ids.len());
    s.check_new_topic(&t.name, t.assignments.len() as i32, first as i16)?;
    for a in &t.assignments {
        if a.broker_ids.is_empty() || a.broker_ids.iter().any(|b| !s.brokers.contains_key(&b)) {
            return Err((
                ErrorCode::INVALID_REPLICA_ASSIGNMENT,
                format!("The manual partition assignment includes a broker that is not registered: {:?}", a.broker_ids.to_vec()),
            ));
        }
    }
    if validate_only {
        return Ok(());
    }
    s.create_topic(&t.name, t.assignments.len() as i32, first as i16)?;
    if let Some(topic) = s.topics.get_mut(&t.name) {
        for (p, a) in topic.partitions.iter_mut().zip(&t.assignments) {
            p.replicas = a.broker_ids.to_vec();
            p.isr = p.replicas.clone();
            p.leader = p.replicas.first().copied().unwrap_or(-1);
        }
    }
    Ok(())
}

fn delete_topics(
    s: &mut State,
    d: &dt::DeleteTopicsRequest,
    v: Version,
) -> dt::DeleteTopicsResponse {
    let asked: Vec<(Option<Str>, Uuid)> = if v >= 6 {
        d.topics
            .iter()
            .map(|t| (t.name.clone(), t.topic_id))
            .collect()
    } else {
        d.topic_names
            .iter()
            .map(|n| (Some(n.clone()), Uuid::ZERO))
            .collect()
    };
    let responses = asked
        .into_iter()
        .map(|(name, id)| {
            let r = if id != Uuid::ZERO {
                Some(TopicRef::Id(id))
            } else {
                name.as_ref().map(TopicRef::Name)
            };
            let found = s.find(r).map(|(n, t)| (n.clone(), t.id));
            let mut out = dt::DeletableTopicResult {
                name: found
                    .as_ref()
                    .map(|(n, _)| n.clone())
                    .or_else(|| name.clone()),
                topic_id: found.as_ref().map_or(id, |(_, i)| *i),
                ..Default::default()
            };
            match found {
                Some((n, _)) => {
                    s.topics.remove(&n);
                    for g in s.groups.values_mut() {
                        g.offsets.retain(|(t, _), _| *t != n);
                    }
                }
                None => out.error_code = unknown(r).code(),
            }
            out
        })
        .collect();
    dt::DeleteTopicsResponse {
        responses,
        ..Default::default()
    }
}

fn create_partitions(
    s: &mut State,
    c: &cp::CreatePartitionsRequest,
) -> cp::CreatePartitionsResponse {
    let results = c
        .topics
        .iter()
        .map(|t| {
            let result = (|| {
                let Some(topic) = s.topics.get(&t.name) else {
                    return Err((
                        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                        format!("The topic '{}' does not exist.", t.name),
                    ));
                };
                let have = topic.partitions.len() as i32;
                if t.count < have {
                    return Err((
                        ErrorCode::INVALID_PARTITIONS,
                        format!("The topic {} currently has {have} partition(s); {} would not be an increase.", t.name, t.count),
                    ));
                }
                if t.count == have {
                    return Err((
                        ErrorCode::INVALID_PARTITIONS,
                        format!("Topic already has {have} partition(s)."),
                    ));
                }
                if let Some(a) = &t.assignments {
                    let unknown = a.iter().find(|a| {
                        a.broker_ids.is_empty()
                            || a.broker_ids.iter().any(|b| !s.brokers.contains_key(&b))
                    });
                    if let Some(a) = unknown {
                        return Err((
                            ErrorCode::INVALID_REPLICA_ASSIGNMENT,
                            format!(
                                "The manual partition assignment includes a broker that is not registered: {:?}",
                                a.broker_ids.to_vec()
                            ),
                        ));
                    }
                    if a.len() as i32 != t.count - have {
                        return Err((
                            ErrorCode::INVALID_REPLICA_ASSIGNMENT,
                            format!(
                                "Attempted to add {} additional partition(s), but only {} assignment(s) were specified.",
                                t.count - have,
                                a.len()
                            ),
                        ));
                    }
                }
                if c.validate_only {
                    return Ok(());
                }
                let rf = topic.partitions.first().map_or(1, |p| p.replicas.len());
                // Found above under the same lock; an error rather than a panic all the same.
                let Some(mut topic) = s.topics.remove(&t.name) else {
                    return Err((ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, String::new()));
                };
                s.place(&mut topic, have as usize, t.count, rf);
                for (p, a) in topic
                    .partitions
                    .get_mut(have as usize..)
                    .unwrap_or_default()
                    .iter_mut()
                    .zip(t.assignments.iter().flatten())
                {
                    if !a.broker_ids.is_empty() {
                        p.replicas = a.broker_ids.to_vec();
                        p.isr = p.replicas.clone();
                        p.leader = p.replicas.first().copied().unwrap_or(-1);
                    }
                }
                s.topics.insert(t.name.clone(), topic);
                Ok(())
            })();
            let (e, text) = result.err().unwrap_or((ErrorCode::NONE, String::new()));
            cp::CreatePartitionsTopicResult {
                name: t.name.clone(),
                error_code: e.code(),
                error_message: message(e, text),
                ..Default::default()
            }
        })
        .collect();
    cp::CreatePartitionsResponse {
        results,
        ..Default::default()
    }
}

fn init_producer_id(
    s: &mut State,
    broker: i32,
    i: &ip::InitProducerIdRequest,
) -> ip::InitProducerIdResponse {
    let fail = |e: ErrorCode| ip::InitProducerIdResponse {
        error_code: e.code(),
        producer_id: -1,
        producer_epoch: -1,
        ..Default::default()
    };
    let Some(txn) = i.transactional_id.as_ref() else {
        // Without a transactional id Kafka hands out a new id at epoch 0, whatever was asked.
        s.producers.next_id += 1;
        return ip::InitProducerIdResponse {
            producer_id: s.producers.next_id,
            producer_epoch: 0,
            ..Default::default()
        };
    };
    if s.coordinator(txn) != Some(broker) {
        return fail(ErrorCode::NOT_COORDINATOR);
    }
    if i.transaction_timeout_ms <= 0 || i.transaction_timeout_ms > MAX_TRANSACTION_TIMEOUT_MS {
        return fail(ErrorCode::INVALID_TRANSACTION_TIMEOUT);
    }
    let next = s.producers.next_id + 1;
    let entry = s.producers.transactional.entry(txn.clone()).or_default();
    let (id, epoch) = match (entry.producer_id, entry.epoch) {
        // A new epoch of the same id; a fresh id once the epoch is exhausted.
        (id, epoch) if id > 0 && epoch < i16::MAX - 1 => (id, epoch + 1),
        _ => {
            s.producers.next_id = next;
            (next, 0)
        }
    };
    (entry.producer_id, entry.epoch) = (id, epoch);
    // The open transaction of the fenced epoch is aborted, its markers at the new epoch.
    crate::txn::end(s, txn, false);
    ip::InitProducerIdResponse {
        producer_id: id,
        producer_epoch: epoch,
        ..Default::default()
    }
}

fn produce(
    s: &mut State,
    broker: i32,
    p: &produce::ProduceRequest,
    v: Version,
) -> produce::ProduceResponse {
    let mut leaders = Vec::new();
    let responses = p
        .topic_data
        .iter()
        .map(|t| {
            let r = t.topic_ref(v);
            let found = s.find(r).map(|(n, t)| (n.clone(), t.id));
            let mut out = produce::TopicProduceResponse::default();
            let (name, id) = found
                .clone()
                .unwrap_or_else(|| (t.name.clone(), t.topic_id));
            out.set_topic_ref(v, &name, id);
            out.partition_responses = t
                .partition_data
                .iter()
                .map(|pd| {
                    let mut res = produce::PartitionProduceResponse {
                        index: pd.index,
                        base_offset: -1,
                        log_append_time_ms: -1,
                        log_start_offset: -1,
                        ..Default::default()
                    };
                    // A transactional batch must go to a partition of its open transaction.
                    let txn_error = pd.records.as_ref().and_then(|r| {
                        let b = r.batches().next()?.ok()?;
                        let h = b.header();
                        let (n, _) = found.as_ref()?;
                        if !h.is_transactional() {
                            return None;
                        }
                        crate::txn::may_write(s, n, pd.index, h.producer_id, h.producer_epoch).err()
                    });
                    let partition = found.as_ref().and_then(|(n, _)| {
                        s.topics
                            .get_mut(n)?
                            .partitions
                            .get_mut(usize::try_from(pd.index).ok()?)
                    });
                    let result = match (&found, partition) {
                        (None, _) => Err(unknown(r)),
                        (_, None) => Err(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION),
                        (_, Some(part)) if part.leader != broker => {
                            res.current_leader.leader_id = part.leader;
                            res.current_leader.leader_epoch = part.epoch;
                            leaders.push(part.leader);
                            Err(ErrorCode::NOT_LEADER_OR_FOLLOWER)
                        }
                        _ if ![0, 1, -1].contains(&p.acks) => Err(ErrorCode::INVALID_REQUIRED_ACKS),
                        (_, Some(_)) if txn_error.is_some() => {
                            Err(txn_error.unwrap_or(ErrorCode::INVALID_TXN_STATE))
                        }
                        (_, Some(part)) => append(part, pd.records.as_ref()),
                    };
                    match result {
                        Ok((base, start)) => {
                            res.base_offset = base;
                            res.log_start_offset = start;
                        }
                        Err(e) => res.error_code = e.code(),
                    }
                    res
                })
                .collect();
            out
        })
        .collect();
    produce::ProduceResponse {
        responses,
        node_endpoints: endpoints(s, leaders, |node_id, host, port| produce::NodeEndpoint {
            node_id,
            host,
            port,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Appends one Produce partition's records as Kafka's log does: exactly one magic-2 batch
/// with a valid CRC (Produce v3+), idempotence checked, offsets and leader epoch stamped.
/// The base offset and log start, or the error.
fn append(part: &mut Partition, records: Option<&Records>) -> Result<(i64, i64), ErrorCode> {
    let bytes = records.map_or_else(Bytes::new, |r| r.0.clone());
    let mut batches = Batches::new(bytes.clone(), ReadOptions::default());
    let header = match batches.next() {
        None => return Err(ErrorCode::INVALID_RECORD),
        Some(Err(_)) => return Err(ErrorCode::CORRUPT_MESSAGE),
        Some(Ok(b)) if b.header().magic != 2 => return Err(ErrorCode::INVALID_RECORD),
        Some(Ok(b)) if !b.crc_is_valid() => return Err(ErrorCode::CORRUPT_MESSAGE),
        Some(Ok(b)) => *b.header(),
    };
    if batches.next().is_some() || batches.truncated().is_some() {
        return Err(ErrorCode::INVALID_RECORD);
    }
    if header.producer_id >= 0 {
        if let Some(base) = check_sequence(part, &header)? {
            // A retried batch: acknowledged again with its first offset, not appended.
            return Ok((base, part.log.start));
        }
    }
    let mut set = bytes.to_vec();
    let base = part.log.end;
    let end = assign_offsets(&mut set, base, part.epoch).map_err(|_| ErrorCode::CORRUPT_MESSAGE)?;
    part.log.batches.push(Stored {
        base,
        last: end - 1,
        max_timestamp: header.max_timestamp,
        bytes: set.into(),
    });
    part.log.end = end;
    if header.is_transactional() {
        part.open_txns.entry(header.producer_id).or_insert(base);
    }
    if header.producer_id >= 0 {
        let entry = part.producers.entry(header.producer_id).or_default();
        if entry.epoch != header.producer_epoch {
            entry.batches.clear();
        }
        entry.epoch = header.producer_epoch;
        if entry.batches.len() == PRODUCER_BATCHES_KEPT {
            entry.batches.pop_front();
        }
        entry
            .batches
            .push_back((header.base_sequence, header.last_sequence(), base));
    }
    Ok((base, part.log.start))
}

/// Java's `ProducerAppendInfo` checks: an older epoch is INVALID_PRODUCER_EPOCH; a batch
/// matching one of the last five is a duplicate (its base offset returned); a new epoch must
/// start at sequence 0, and within an epoch each batch must follow the last one's sequence,
/// else OUT_OF_ORDER_SEQUENCE_NUMBER. A producer the partition has no state for may start
/// anywhere.
fn check_sequence(
    part: &Partition,
    h: &kafka_wire::records::BatchHeader,
) -> Result<Option<i64>, ErrorCode> {
    let Some(entry) = part.producers.get(&h.producer_id) else {
        return Ok(None);
    };
    let ProducerEntry { epoch, batches } = entry;
    if h.producer_epoch < *epoch {
        return Err(ErrorCode::INVALID_PRODUCER_EPOCH);
    }
    if h.producer_epoch > *epoch {
        return if h.base_sequence == 0 {
            Ok(None)
        } else {
            Err(ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER)
        };
    }
    if let Some((_, _, base)) = batches
        .iter()
        .find(|(first, last, _)| *first == h.base_sequence && *last == h.last_sequence())
    {
        return Ok(Some(*base));
    }
    let last = batches.back().map_or(-1, |(_, l, _)| *l);
    let next = if last == i32::MAX { 0 } else { last + 1 };
    if h.base_sequence == next {
        Ok(None)
    } else {
        Err(ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER)
    }
}

fn list_offsets(s: &State, broker: i32, l: &lo::ListOffsetsRequest) -> lo::ListOffsetsResponse {
    let topics = l
        .topics
        .iter()
        .map(|t| lo::ListOffsetsTopicResponse {
            name: t.name.clone(),
            partitions: t
                .partitions
                .iter()
                .map(|lp| {
                    let mut out = lo::ListOffsetsPartitionResponse {
                        partition_index: lp.partition_index,
                        timestamp: -1,
                        offset: -1,
                        leader_epoch: -1,
                        ..Default::default()
                    };
                    let p = leader_check(s.partition(t.name.as_str(), lp.partition_index), broker)
                        .and_then(|p| epoch_check(p, lp.current_leader_epoch).map(|()| p));
                    match p {
                        Err(e) => out.error_code = e.code(),
                        Ok(p) => {
                            let (offset, timestamp, epoch) = match lp.timestamp {
                                // Latest, read_committed: the last stable offset.
                                -1 if l.isolation_level == 1 => (p.last_stable(), -1, p.epoch),
                                t => offset_for(p, t),
                            };
                            (out.offset, out.timestamp, out.leader_epoch) =
                                (offset, timestamp, epoch);
                        }
                    }
                    out
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

/// SASL/PLAIN (RFC 4616): `[authzid] NUL authcid NUL password`. Any user and password are
/// accepted; a message of another shape is SASL_AUTHENTICATION_FAILED with Kafka's message.
fn sasl_plain(auth: &[u8]) -> kafka_wire_messages::SaslAuthenticateResponse {
    let parts: Vec<&[u8]> = auth.split(|b| *b == 0).collect();
    let ok = parts.len() == 3 && !parts[1].is_empty() && !parts[2].is_empty();
    let mut out = kafka_wire_messages::SaslAuthenticateResponse::default();
    if !ok {
        out.error_code = ErrorCode::SASL_AUTHENTICATION_FAILED.code();
        out.error_message = Some(Str::from(
            "Authentication failed: Invalid SASL/PLAIN response: expected 3 tokens",
        ));
    }
    out
}

/// DeleteRecords: moves each partition's log start up to the offset asked (-1: the high
/// watermark), dropping the batches wholly before it; OFFSET_OUT_OF_RANGE past the high
/// watermark, NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION.
fn delete_records(
    s: &mut State,
    broker: i32,
    d: &dr::DeleteRecordsRequest,
) -> dr::DeleteRecordsResponse {
    let topics = d
        .topics
        .iter()
        .map(|t| dr::DeleteRecordsTopicResult {
            name: t.name.clone(),
            partitions: t
                .partitions
                .iter()
                .map(|dp| {
                    let part = s.topics.get_mut(&t.name).and_then(|tp| {
                        tp.partitions
                            .get_mut(usize::try_from(dp.partition_index).ok()?)
                    });
                    let result = match part {
                        None => Err(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION),
                        Some(p) if p.leader != broker => Err(ErrorCode::NOT_LEADER_OR_FOLLOWER),
                        Some(p) => {
                            let log = &mut p.log;
                            let to = if dp.offset == -1 { log.end } else { dp.offset };
                            if to < 0 || to > log.end {
                                Err(ErrorCode::OFFSET_OUT_OF_RANGE)
                            } else {
                                if to > log.start {
                                    log.start = to;
                                    log.batches.retain(|b| b.last >= to);
                                }
                                Ok(log.start)
                            }
                        }
                    };
                    dr::DeleteRecordsPartitionResult {
                        partition_index: dp.partition_index,
                        low_watermark: *result.as_ref().unwrap_or(&-1),
                        error_code: result.err().unwrap_or(ErrorCode::NONE).code(),
                        ..Default::default()
                    }
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    dr::DeleteRecordsResponse {
        topics,
        ..Default::default()
    }
}

/// ListOffsets' answer for one partition: (offset, timestamp, leader epoch).
fn offset_for(p: &Partition, timestamp: i64) -> (i64, i64, i32) {
    let log = &p.log;
    match timestamp {
        // Earliest, earliest local (KIP-1005): the log start.
        -2 | -4 => (log.start, -1, p.epoch),
        // Latest: the high watermark, which is the end here.
        -1 => (log.end, -1, p.epoch),
        // Max timestamp (KIP-734): the first record with the largest timestamp.
        -3 => {
            let best = log
                .batches
                .iter()
                .filter(|b| b.base >= log.start)
                .max_by_key(|b| (b.max_timestamp, std::cmp::Reverse(b.base)));
            best.and_then(|b| first_record_at(b, b.max_timestamp))
                .unwrap_or((-1, -1, -1))
        }
        t if t >= 0 => log.batches[log.batch_at(log.start)..]
            .iter()
            .filter(|b| b.max_timestamp >= t)
            .find_map(|b| first_record_at(b, t))
            .unwrap_or((-1, -1, -1)),
        // Earliest pending upload (KIP-1023) and unknown specs: no offset, as a broker
        // without tiered storage answers.
        _ => (-1, -1, -1),
    }
}

/// The first record of a stored batch with a timestamp of at least `t`: (offset, timestamp,
/// the batch's leader epoch).
fn first_record_at(b: &Stored, t: i64) -> Option<(i64, i64, i32)> {
    let batch = Batches::new(b.bytes.clone(), ReadOptions::default())
        .next()?
        .ok()?;
    let epoch = batch.header().partition_leader_epoch;
    let records = batch.records().ok()?;
    records
        .iter()
        .filter_map(Result::ok)
        .find(|r| r.timestamp >= t)
        .map(|r| (r.offset, r.timestamp, epoch))
}

fn find_coordinator(
    s: &State,
    f: &fc::FindCoordinatorRequest,
    v: Version,
) -> fc::FindCoordinatorResponse {
    let keys = if v >= 4 {
        f.coordinator_keys.clone()
    } else {
        vec![f.key.clone()]
    };
    let coordinators: Vec<fc::Coordinator> = keys
        .into_iter()
        .map(|key| {
            let mut c = fc::Coordinator {
                key,
                node_id: -1,
                host: Str::from(""),
                port: -1,
                ..Default::default()
            };
            let found = s
                .coordinator(&c.key)
                .and_then(|id| Some((id, s.endpoint(id)?)));
            let error = match (f.key_type, found) {
                (0 | 1, Some((id, (host, port)))) => {
                    (c.node_id, c.host, c.port) = (id, host, port);
                    ErrorCode::NONE
                }
                (0 | 1, None) => ErrorCode::COORDINATOR_NOT_AVAILABLE,
                _ => ErrorCode::INVALID_REQUEST,
            };
            c.error_code = error.code();
            c.error_message = error.message().map(Str::from);
            if error == ErrorCode::NONE {
                c.error_message = None;
            }
            c
        })
        .collect();
    if v >= 4 {
        return fc::FindCoordinatorResponse {
            coordinators,
            ..Default::default()
        };
    }
    let c = coordinators.into_iter().next().unwrap_or_default();
    fc::FindCoordinatorResponse {
        error_code: c.error_code,
        error_message: c.error_message,
        node_id: c.node_id,
        host: c.host,
        port: c.port,
        ..Default::default()
    }
}

fn describe_cluster(s: &State, d: &dc::DescribeClusterRequest) -> dc::DescribeClusterResponse {
    // Endpoint type 2 asks for controllers, which a broker's listener does not describe.
    if d.endpoint_type == 2 {
        return dc::DescribeClusterResponse {
            error_code: ErrorCode::UNSUPPORTED_ENDPOINT_TYPE.code(),
            error_message: Some(Str::from(
                "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER",
            )),
            endpoint_type: d.endpoint_type,
            cluster_id: s.options.cluster_id.clone(),
            controller_id: -1,
            ..Default::default()
        };
    }
    dc::DescribeClusterResponse {
        endpoint_type: 1,
        cluster_id: s.options.cluster_id.clone(),
        controller_id: s.controller().unwrap_or(-1),
        brokers: endpoints(
            s,
            s.brokers.keys().copied().collect(),
            |broker_id, host, port| dc::DescribeClusterBroker {
                broker_id,
                host,
                port,
                ..Default::default()
            },
        ),
        ..Default::default()
    }
}

/// Fetch: reads at once; if fewer than `min_bytes` came back and no partition has an error,
/// waits for appends until `max_wait_ms` has passed, then reads again.
async fn fetch_waiting(
    shared: &Shared,
    broker: i32,
    f: &fetch::FetchRequest,
    v: Version,
) -> fetch::FetchResponse {
    let deadline = Instant::now() + Duration::from_millis(f.max_wait_ms.max(0) as u64);
    loop {
        let notified = shared.changed.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let (response, bytes, errors) = read(&shared.lock(), broker, f, v);
        let now = Instant::now();
        if bytes >= f.min_bytes.max(0) as usize || errors || now >= deadline {
            return response;
        }
        let _ = tokio::time::timeout(deadline - now, notified).await;
    }
}

/// One read of every partition asked: (response, bytes of records, whether any partition
/// has an error).
fn read(
    s: &State,
    broker: i32,
    f: &fetch::FetchRequest,
    v: Version,
) -> (fetch::FetchResponse, usize, bool) {
    // Sessions (KIP-227) are not kept: a full fetch is answered with session id 0, "no
    // session created", as a broker whose session cache is full; clients then send full
    // fetches. An incremental fetch names a session that does not exist.
    if f.session_id > 0 {
        return (
            fetch::FetchResponse {
                error_code: ErrorCode::FETCH_SESSION_ID_NOT_FOUND.code(),
                ..Default::default()
            },
            0,
            true,
        );
    }
    if f.session_id == 0 && f.session_epoch > 0 {
        return (
            fetch::FetchResponse {
                error_code: ErrorCode::INVALID_FETCH_SESSION_EPOCH.code(),
                ..Default::default()
            },
            0,
            true,
        );
    }
    let mut total = 0usize;
    let mut errors = false;
    let mut leaders = Vec::new();
    let max_bytes = if f.max_bytes <= 0 {
        usize::MAX
    } else {
        f.max_bytes as usize
    };
    let responses = f
        .topics
        .iter()
        .map(|t| {
            let r = t.topic_ref(v);
            let found = s.find(r);
            let mut out = fetch::FetchableTopicResponse::default();
            out.set_topic_ref(v, found.map_or(&t.topic, |(n, _)| n), t.topic_id);
            out.partitions = t
                .partitions
                .iter()
                .map(|fp| {
                    let mut pd = fetch::PartitionData {
                        partition_index: fp.partition,
                        high_watermark: -1,
                        last_stable_offset: -1,
                        log_start_offset: -1,
                        ..Default::default()
                    };
                    let p = match found {
                        None => Err(unknown(r)),
                        Some((_, topic)) => {
                            let p = usize::try_from(fp.partition)
                                .ok()
                                .and_then(|i| topic.partitions.get(i));
                            leader_check(p, broker)
                        }
                    };
                    let p = p.and_then(|p| epoch_check(p, fp.current_leader_epoch).map(|()| p));
                    let p = match p {
                        Ok(p) => p,
                        Err(e) => {
                            if e == ErrorCode::NOT_LEADER_OR_FOLLOWER {
                                if let Some(p) =
                                    found.and_then(|(_, t)| t.partitions.get(fp.partition as usize))
                                {
                                    pd.current_leader.leader_id = p.leader;
                                    pd.current_leader.leader_epoch = p.epoch;
                                    leaders.push(p.leader);
                                }
                            }
                            errors = true;
                            pd.error_code = e.code();
                            return pd;
                        }
                    };
                    let log = &p.log;
                    let stable = p.last_stable();
                    (
                        pd.high_watermark,
                        pd.last_stable_offset,
                        pd.log_start_offset,
                    ) = (log.end, stable, log.start);
                    // read_committed reads up to the last stable offset, and is told which
                    // transactions in that range aborted (their batches are skipped by the
                    // client).
                    let committed_only = f.isolation_level == 1;
                    let upto = if committed_only { stable } else { log.end };
                    if committed_only {
                        pd.aborted_transactions = Some(
                            p.aborted
                                .iter()
                                .filter(|(_, first, last)| {
                                    *last >= fp.fetch_offset && *first < upto
                                })
                                .map(|(pid, first, _)| fetch::AbortedTransaction {
                                    producer_id: *pid,
                                    first_offset: *first,
                                    ..Default::default()
                                })
                                .collect(),
                        );
                    }
                    if fp.fetch_offset < log.start || fp.fetch_offset > log.end {
                        errors = true;
                        pd.error_code = ErrorCode::OFFSET_OUT_OF_RANGE.code();
                        return pd;
                    }
                    // Whole stored batches from the one holding the offset, within the
                    // partition's and the response's limits; the first batch of the response
                    // goes whatever its size (KIP-74), so a consumer always progresses.
                    let limit = (fp.partition_max_bytes.max(0) as usize)
                        .min(max_bytes.saturating_sub(total));
                    let mut data = Vec::new();
                    for b in &log.batches[log.batch_at(fp.fetch_offset)..] {
                        if b.base >= upto {
                            break;
                        }
                        let first = total == 0 && data.is_empty();
                        if !first && data.len() + b.bytes.len() > limit {
                            break;
                        }
                        data.extend_from_slice(&b.bytes);
                    }
                    total += data.len();
                    pd.records = Some(Records(data.into()));
                    pd
                })
                .collect();
            out
        })
        .collect();
    let response = fetch::FetchResponse {
        responses,
        node_endpoints: endpoints(s, leaders, |node_id, host, port| fetch::NodeEndpoint {
            node_id,
            host,
            port,
            ..Default::default()
        }),
        ..Default::default()
    };
    (response, total, errors)
}
