//! The transaction coordinator (Kafka's transaction protocol v1, KIP-98): AddPartitionsToTxn,
//! AddOffsetsToTxn, TxnOffsetCommit and EndTxn, which writes the commit or abort markers.
//! Partitions track each open transaction's first offset (the last stable offset is the
//! earliest of them) and the aborted transactions `read_committed` fetches skip.

use std::collections::BTreeSet;
use std::time::{SystemTime, UNIX_EPOCH};

use kafka_wire::records::{assign_offsets, BatchBuilder};
use kafka_wire::{ErrorCode, Str, Version};
use kafka_wire_messages::{
    add_offsets_to_txn as ao, add_partitions_to_txn as ap, end_txn as et, txn_offset_commit as to,
    RequestBody, RequestFrame, ResponseBody,
};

use crate::group::{check_commit, Committed, Group};
use crate::state::{Partition, State, Stored};

/// A transactional id's producer and its open transaction.
#[derive(Debug, Default)]
pub(crate) struct Txn {
    pub producer_id: i64,
    pub epoch: i16,
    /// A transaction is open (a partition or a group was added).
    ongoing: bool,
    partitions: BTreeSet<(Str, i32)>,
    /// Offsets committed in the transaction: (group, topic, partition, offset).
    offsets: Vec<(Str, Str, i32, Committed)>,
}

/// The coordinator's checks of a transactional request: NOT_COORDINATOR,
/// INVALID_PRODUCER_ID_MAPPING for an unknown id or another producer id, PRODUCER_FENCED for
/// another epoch.
fn check<'a>(
    s: &'a mut State,
    broker: i32,
    id: &Str,
    producer_id: i64,
    epoch: i16,
) -> Result<&'a mut Txn, ErrorCode> {
    if s.coordinator(id) != Some(broker) {
        return Err(ErrorCode::NOT_COORDINATOR);
    }
    let txn = s
        .producers
        .transactional
        .get_mut(id)
        .filter(|t| t.producer_id == producer_id)
        .ok_or(ErrorCode::INVALID_PRODUCER_ID_MAPPING)?;
    if txn.epoch != epoch {
        return Err(ErrorCode::PRODUCER_FENCED);
    }
    Ok(txn)
}

/// The transaction APIs, under the state's lock.
pub(crate) fn handle(s: &mut State, broker: i32, req: &RequestFrame) -> ResponseBody {
    let v = req.version();
    match &req.body {
        RequestBody::AddPartitionsToTxn(a) => add_partitions(s, broker, a, v).into(),
        RequestBody::AddOffsetsToTxn(a) => {
            let error = match check(
                s,
                broker,
                &a.transactional_id,
                a.producer_id,
                a.producer_epoch,
            ) {
                Ok(txn) => {
                    txn.ongoing = true;
                    ErrorCode::NONE
                }
                Err(e) => e,
            };
            ao::AddOffsetsToTxnResponse {
                error_code: error.code(),
                ..Default::default()
            }
            .into()
        }
        RequestBody::TxnOffsetCommit(t) => offset_commit(s, broker, t, v).into(),
        RequestBody::EndTxn(e) => {
            let error = match check(
                s,
                broker,
                &e.transactional_id,
                e.producer_id,
                e.producer_epoch,
            ) {
                Ok(txn) if !txn.ongoing => ErrorCode::INVALID_TXN_STATE,
                Ok(_) => {
                    end(s, &e.transactional_id, e.committed);
                    ErrorCode::NONE
                }
                Err(e) => e,
            };
            et::EndTxnResponse {
                error_code: error.code(),
                producer_id: e.producer_id,
                producer_epoch: e.producer_epoch,
                ..Default::default()
            }
            .into()
        }
        _ => req.body.error_response(v, ErrorCode::UNSUPPORTED_VERSION),
    }
}

fn add_partitions(
    s: &mut State,
    broker: i32,
    a: &ap::AddPartitionsToTxnRequest,
    v: Version,
) -> ap::AddPartitionsToTxnResponse {
    // v4+ batches transactions (brokers verifying for themselves); v0-3 is one, the client's.
    let asked: Vec<(Str, i64, i16, bool, &Vec<ap::AddPartitionsToTxnTopic>)> = if v >= 4 {
        a.transactions
            .iter()
            .map(|t| {
                let topics = &t.topics;
                (
                    t.transactional_id.clone(),
                    t.producer_id,
                    t.producer_epoch,
                    t.verify_only,
                    topics,
                )
            })
            .collect()
    } else {
        vec![(
            a.v3_and_below_transactional_id.clone(),
            a.v3_and_below_producer_id,
            a.v3_and_below_producer_epoch,
            false,
            &a.v3_and_below_topics,
        )]
    };
    let mut results = Vec::new();
    for (id, pid, epoch, verify_only, topics) in asked {
        // Unknown partitions fail the request's partitions with UNKNOWN_TOPIC_OR_PARTITION,
        // the others with OPERATION_NOT_ATTEMPTED, as Kafka answers.
        let unknown = |t: &Str, p: i32| s.partition(t.as_str(), p).is_none();
        let any_unknown = topics
            .iter()
            .any(|t| t.partitions.iter().any(|p| unknown(&t.name, p)));
        let outcome = if any_unknown {
            None
        } else {
            Some(check(s, broker, &id, pid, epoch).map(|txn| {
                if !verify_only {
                    txn.ongoing = true;
                    for t in topics {
                        for p in t.partitions.iter() {
                            txn.partitions.insert((t.name.clone(), p));
                        }
                    }
                }
            }))
        };
        let topic_results = topics
            .iter()
            .map(|t| ap::AddPartitionsToTxnTopicResult {
                name: t.name.clone(),
                results_by_partition: t
                    .partitions
                    .iter()
                    .map(|p| {
                        let error = match &outcome {
                            None if s.partition(t.name.as_str(), p).is_none() => {
                                ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
                            }
                            None => ErrorCode::OPERATION_NOT_ATTEMPTED,
                            Some(Ok(())) => ErrorCode::NONE,
                            Some(Err(e)) => *e,
                        };
                        ap::AddPartitionsToTxnPartitionResult {
                            partition_index: p,
                            partition_error_code: error.code(),
                            ..Default::default()
                        }
                    })
                    .collect(),
                ..Default::default()
            })
            .collect();
        results.push((id, topic_results));
    }
    if v >= 4 {
        ap::AddPartitionsToTxnResponse {
            results_by_transaction: results
                .into_iter()
                .map(|(id, topic_results)| ap::AddPartitionsToTxnResult {
                    transactional_id: id,
                    topic_results,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    } else {
        ap::AddPartitionsToTxnResponse {
            results_by_topic_v3_and_below: results.pop().map(|(_, r)| r).unwrap_or_default(),
            ..Default::default()
        }
    }
}

fn offset_commit(
    s: &mut State,
    broker: i32,
    t: &to::TxnOffsetCommitRequest,
    v: Version,
) -> to::TxnOffsetCommitResponse {
    let coordinator = s.coordinator(&t.group_id) == Some(broker);
    let txn = s
        .producers
        .transactional
        .get(&t.transactional_id)
        .filter(|x| x.producer_id == t.producer_id);
    let group_error = match txn {
        _ if !coordinator => ErrorCode::NOT_COORDINATOR,
        None => ErrorCode::INVALID_PRODUCER_ID_MAPPING,
        Some(x) if x.epoch != t.producer_epoch => ErrorCode::PRODUCER_FENCED,
        Some(_) => ErrorCode::NONE,
    };
    let mut pending = Vec::new();
    let topics = t
        .topics
        .iter()
        .map(|topic| {
            let partitions = topic.partitions.iter().map(|p| {
                let c = Committed {
                    offset: p.committed_offset,
                    leader_epoch: p.committed_leader_epoch,
                    metadata: p.committed_metadata.clone(),
                };
                (p.partition_index, c)
            });
            let checked = check_commit(s, topic.topic_ref(v), group_error, partitions);
            let mut out = to::TxnOffsetCommitResponseTopic::default();
            let (name, id) = checked
                .topic
                .unwrap_or((topic.name.clone(), topic.topic_id));
            out.set_topic_ref(v, &name, id);
            out.partitions = checked
                .errors
                .iter()
                .map(|(p, e)| to::TxnOffsetCommitResponsePartition {
                    partition_index: *p,
                    error_code: e.code(),
                    ..Default::default()
                })
                .collect();
            for (p, c) in checked.accepted {
                pending.push((t.group_id.clone(), name.clone(), p, c));
            }
            out
        })
        .collect();
    if let Some(x) = s.producers.transactional.get_mut(&t.transactional_id) {
        x.offsets.extend(pending);
    }
    to::TxnOffsetCommitResponse {
        topics,
        ..Default::default()
    }
}

/// Ends `id`'s open transaction: a marker in every partition it wrote to, its offsets
/// committed (or dropped), an aborted transaction recorded where it aborted.
pub(crate) fn end(s: &mut State, id: &Str, commit: bool) {
    let Some(txn) = s.producers.transactional.get_mut(id) else {
        return;
    };
    let (pid, epoch) = (txn.producer_id, txn.epoch);
    let partitions = std::mem::take(&mut txn.partitions);
    let offsets = std::mem::take(&mut txn.offsets);
    txn.ongoing = false;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    for (topic, p) in partitions {
        let Some(part) = s
            .topics
            .get_mut(&topic)
            .and_then(|t| t.partitions.get_mut(usize::try_from(p).ok()?))
        else {
            continue;
        };
        write_marker(part, pid, epoch, commit, now);
    }
    if commit {
        // A group that only ever committed in transactions exists from its first commit.
        for (group, topic, p, c) in offsets {
            let g = s.groups.entry(group).or_insert_with(Group::new);
            g.offsets.insert((topic, p), c);
        }
    }
}

/// Appends a commit or abort marker for `pid`, closing its open transaction in `part`.
fn write_marker(part: &mut Partition, pid: i64, epoch: i16, commit: bool, now: i64) {
    let mut b = BatchBuilder::new(0);
    b.producer(pid, epoch, -1);
    b.append_end_txn_marker(now, commit, 0);
    let Ok(mut set) = b.build_vec() else { return };
    let base = part.log.end;
    let Ok(end) = assign_offsets(&mut set, base, part.epoch) else {
        return;
    };
    part.log.batches.push(Stored {
        base,
        last: end - 1,
        max_timestamp: now,
        bytes: set.into(),
    });
    part.log.end = end;
    if let Some(first) = part.open_txns.remove(&pid) {
        if !commit {
            part.aborted.push((pid, first, base));
        }
    }
}

/// Whether a transactional batch of `pid` at `epoch` may go to `topic`-`partition`: the
/// partition was added to the producer's open transaction (INVALID_TXN_STATE otherwise) at
/// its current epoch (INVALID_PRODUCER_EPOCH otherwise).
pub(crate) fn may_write(
    s: &State,
    topic: &Str,
    partition: i32,
    pid: i64,
    epoch: i16,
) -> Result<(), ErrorCode> {
    let txn = s
        .producers
        .transactional
        .values()
        .find(|t| t.producer_id == pid)
        .ok_or(ErrorCode::INVALID_TXN_STATE)?;
    if epoch < txn.epoch {
        return Err(ErrorCode::INVALID_PRODUCER_EPOCH);
    }
    if !txn.ongoing || !txn.partitions.contains(&(topic.clone(), partition)) {
        return Err(ErrorCode::INVALID_TXN_STATE);
    }
    Ok(())
}
