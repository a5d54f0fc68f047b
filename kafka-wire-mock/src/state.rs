//! The cluster's data: brokers, topics and their partitions (leader, epoch, replicas, ISR,
//! log), producer state, groups and the test controls, all behind one lock.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use kafka_wire::{Bytes, ErrorCode, Str, Uuid};
use kafka_wire_messages::answer::ServedApis;
use kafka_wire_messages::{ApiKey, TopicRef};
use tokio::sync::Notify;

use crate::control::Control;
use crate::group::Group;

/// The APIs served, each at every version this crate declares.
pub(crate) const SERVED: [ApiKey; 28] = [
    ApiKey::ApiVersions,
    ApiKey::Metadata,
    ApiKey::CreateTopics,
    ApiKey::DeleteTopics,
    ApiKey::CreatePartitions,
    ApiKey::InitProducerId,
    ApiKey::Produce,
    ApiKey::ListOffsets,
    ApiKey::DeleteRecords,
    ApiKey::Fetch,
    ApiKey::FindCoordinator,
    ApiKey::JoinGroup,
    ApiKey::SyncGroup,
    ApiKey::Heartbeat,
    ApiKey::LeaveGroup,
    ApiKey::OffsetCommit,
    ApiKey::OffsetFetch,
    ApiKey::DescribeGroups,
    ApiKey::ListGroups,
    ApiKey::DeleteGroups,
    ApiKey::OffsetDelete,
    ApiKey::AddPartitionsToTxn,
    ApiKey::AddOffsetsToTxn,
    ApiKey::TxnOffsetCommit,
    ApiKey::EndTxn,
    ApiKey::DescribeCluster,
    ApiKey::SaslHandshake,
    ApiKey::SaslAuthenticate,
];

/// Kafka's `offsets.topic.num.partitions` and `transaction.state.log.num.partitions`: a
/// coordinator is the leader of the internal partition the key hashes to.
const COORDINATOR_PARTITIONS: i32 = 50;

/// What the builder sets.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub auto_create: bool,
    pub default_partitions: i32,
    pub min_session_timeout: Duration,
    pub cluster_id: Str,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            auto_create: false,
            default_partitions: 1,
            min_session_timeout: Duration::from_secs(6),
            cluster_id: Str::from("kafka-wire-mock-cluster"),
        }
    }
}

/// The state and the notification of its changes (appends, group transitions), which
/// waiting Fetch, JoinGroup and SyncGroup requests watch.
pub(crate) struct Shared {
    state: Mutex<State>,
    pub changed: Notify,
}

impl Shared {
    pub fn new(state: State) -> Self {
        Shared {
            state: Mutex::new(state),
            changed: Notify::new(),
        }
    }

    /// The state; a panic in a holder (a bug) does not stop the others.
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A live broker.
#[derive(Debug, Clone)]
pub(crate) struct Broker {
    pub addr: SocketAddr,
}

/// One stored batch: its offsets and max timestamp from its header, its bytes as clients
/// fetch them.
#[derive(Debug, Clone)]
pub(crate) struct Stored {
    pub base: i64,
    pub last: i64,
    pub max_timestamp: i64,
    pub bytes: Bytes,
}

/// A partition's log.
#[derive(Debug, Default)]
pub(crate) struct Log {
    pub start: i64,
    pub end: i64,
    pub batches: Vec<Stored>,
}

impl Log {
    /// The index of the batch holding `offset` (or the first after it).
    pub fn batch_at(&self, offset: i64) -> usize {
        self.batches.partition_point(|b| b.last < offset)
    }
}

/// A producer's state on one partition (Java's `ProducerStateEntry`): its epoch and its last
/// five batches' (first sequence, last sequence, base offset).
#[derive(Debug, Default)]
pub(crate) struct ProducerEntry {
    pub epoch: i16,
    pub batches: VecDeque<(i32, i32, i64)>,
}

/// A partition: where it lives and what it holds.
#[derive(Debug)]
pub(crate) struct Partition {
    pub leader: i32,
    pub epoch: i32,
    pub replicas: Vec<i32>,
    pub isr: Vec<i32>,
    pub log: Log,
    pub producers: HashMap<i64, ProducerEntry>,
    /// Open transactions: producer id → the offset of its first batch here.
    pub open_txns: HashMap<i64, i64>,
    /// Aborted transactions: (producer id, first offset, the abort marker's offset).
    pub aborted: Vec<(i64, i64, i64)>,
}

impl Partition {
    /// The last stable offset: the first offset of the earliest open transaction, or the
    /// high watermark (the log end).
    pub fn last_stable(&self) -> i64 {
        self.open_txns
            .values()
            .copied()
            .min()
            .unwrap_or(self.log.end)
    }
}

/// A partition as the test sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionInfo {
    /// The leader's broker id, -1 if none.
    pub leader: i32,
    /// The leader epoch.
    pub leader_epoch: i32,
    /// The replicas, the preferred leader first.
    pub replicas: Vec<i32>,
    /// The in-sync replicas.
    pub isr: Vec<i32>,
    /// The log start offset.
    pub log_start: i64,
    /// The log end offset (the high watermark: every replica is in sync at once).
    pub log_end: i64,
}

/// A topic.
#[derive(Debug)]
pub(crate) struct Topic {
    pub id: Uuid,
    pub partitions: Vec<Partition>,
}

/// The next producer ids and the transactional ids' producers.
#[derive(Debug, Default)]
pub(crate) struct Producers {
    pub next_id: i64,
    pub transactional: HashMap<Str, crate::txn::Txn>,
}

/// Everything, behind `Shared`'s lock.
pub(crate) struct State {
    pub options: Options,
    pub brokers: BTreeMap<i32, Broker>,
    pub topics: BTreeMap<Str, Topic>,
    next_topic: u128,
    pub groups: BTreeMap<Str, Group>,
    pub producers: Producers,
    pub served: ServedApis,
    pub control: Control,
    pub next_member: u64,
}

/// An error code with its message, as responses carry them.
pub(crate) type Refusal = (ErrorCode, String);

impl State {
    pub fn new(options: Options) -> Self {
        State {
            options,
            brokers: BTreeMap::new(),
            topics: BTreeMap::new(),
            next_topic: 0,
            groups: BTreeMap::new(),
            producers: Producers::default(),
            served: ServedApis::new(SERVED),
            control: Control::default(),
            next_member: 0,
        }
    }

    pub fn add_broker(&mut self, id: i32, addr: SocketAddr) {
        self.brokers.insert(id, Broker { addr });
    }

    /// A live broker's host and port as responses carry them.
    pub fn endpoint(&self, id: i32) -> Option<(Str, i32)> {
        let addr = self.brokers.get(&id)?.addr;
        Some((Str::from(addr.ip().to_string()), i32::from(addr.port())))
    }

    pub fn controller(&self) -> Option<i32> {
        self.brokers.keys().next().copied()
    }

    /// Creates a topic as the controller does: `partitions` (-1: the default) each on
    /// `replication` brokers (-1: Kafka's `default.replication.factor`, 1), leaders spread
    /// round the brokers.
    pub fn create_topic(
        &mut self,
        name: &Str,
        partitions: i32,
        replication: i16,
    ) -> Result<&Topic, Refusal> {
        self.check_new_topic(name, partitions, replication)?;
        let partitions = if partitions == -1 {
            self.options.default_partitions
        } else {
            partitions
        };
        let replication = if replication == -1 { 1 } else { replication };
        self.next_topic += 1;
        let id = Uuid::from_u128(self.next_topic << 64 | 0x6b77_6d6f_636b);
        let start = self.next_topic as usize;
        let mut topic = Topic {
            id,
            partitions: Vec::new(),
        };
        self.place(&mut topic, start, partitions, replication as usize);
        Ok(self.topics.entry(name.clone()).or_insert(topic))
    }

    /// Adds partitions to `topic` up to `count`, placed as at creation.
    pub fn place(&self, topic: &mut Topic, start: usize, count: i32, replication: usize) {
        let ids: Vec<i32> = self.brokers.keys().copied().collect();
        if ids.is_empty() {
            return;
        }
        for p in topic.partitions.len()..count.max(0) as usize {
            let replicas: Vec<i32> = (0..replication)
                .map(|r| ids[(start + p + r) % ids.len()])
                .collect();
            topic.partitions.push(Partition {
                leader: replicas.first().copied().unwrap_or(-1),
                epoch: 0,
                isr: replicas.clone(),
                replicas,
                log: Log::default(),
                producers: HashMap::new(),
                open_txns: HashMap::new(),
                aborted: Vec::new(),
            });
        }
    }

    /// What Kafka's controller refuses in a CreateTopics entry, with its messages.
    pub fn check_new_topic(
        &self,
        name: &Str,
        partitions: i32,
        replication: i16,
    ) -> Result<(), Refusal> {
        let text = name.to_string_lossy();
        if text.is_empty()
            || text == "."
            || text == ".."
            || text.len() > 249
            || !text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        {
            return Err((
                ErrorCode::INVALID_TOPIC_EXCEPTION,
                format!("Topic name is invalid: '{text}'"),
            ));
        }
        if self.topics.contains_key(name) {
            return Err((
                ErrorCode::TOPIC_ALREADY_EXISTS,
                format!("Topic '{text}' already exists."),
            ));
        }
        if partitions == 0 || partitions < -1 {
            return Err((
                ErrorCode::INVALID_PARTITIONS,
                "Number of partitions was set to an invalid non-positive value.".into(),
            ));
        }
        if replication == 0 || replication < -1 {
            return Err((
                ErrorCode::INVALID_REPLICATION_FACTOR,
                "Replication factor must be larger than 0, or -1 to use the default value.".into(),
            ));
        }
        let rf = if replication == -1 { 1 } else { replication };
        if rf as usize > self.brokers.len() {
            return Err((
                ErrorCode::INVALID_REPLICATION_FACTOR,
                format!(
                    "Unable to replicate the partition {rf} time(s): The target replication \
                     factor of {rf} cannot be reached because only {} broker(s) are registered.",
                    self.brokers.len()
                ),
            ));
        }
        Ok(())
    }

    pub fn find(&self, topic: Option<TopicRef<'_>>) -> Option<(&Str, &Topic)> {
        match topic? {
            TopicRef::Name(n) => self.topics.get_key_value(n),
            TopicRef::Id(id) => self.topics.iter().find(|(_, t)| t.id == id),
        }
    }

    pub fn partition(&self, topic: &str, partition: i32) -> Option<&Partition> {
        self.topics
            .get(topic.as_bytes())?
            .partitions
            .get(usize::try_from(partition).ok()?)
    }

    pub fn partition_info(&self, topic: &str, partition: i32) -> Option<PartitionInfo> {
        let p = self.partition(topic, partition)?;
        Some(PartitionInfo {
            leader: p.leader,
            leader_epoch: p.epoch,
            replicas: p.replicas.clone(),
            isr: p.isr.clone(),
            log_start: p.log.start,
            log_end: p.log.end,
        })
    }

    pub fn move_leader(&mut self, topic: &str, partition: i32, broker: i32) -> Result<(), String> {
        if !self.brokers.contains_key(&broker) {
            return Err(format!("no broker {broker}"));
        }
        let p = self
            .topics
            .get_mut(topic.as_bytes())
            .and_then(|t| t.partitions.get_mut(usize::try_from(partition).ok()?))
            .ok_or_else(|| format!("no partition {topic}-{partition}"))?;
        if !p.replicas.contains(&broker) {
            return Err(format!(
                "broker {broker} is not a replica of {topic}-{partition}"
            ));
        }
        if !p.isr.contains(&broker) {
            p.isr.push(broker);
        }
        p.leader = broker;
        p.epoch += 1;
        Ok(())
    }

    pub fn remove_broker(&mut self, broker: i32) -> Result<(), String> {
        if self.brokers.remove(&broker).is_none() {
            return Err(format!("no broker {broker}"));
        }
        for p in self.topics.values_mut().flat_map(|t| &mut t.partitions) {
            p.isr.retain(|b| *b != broker);
            if p.leader == broker {
                p.leader = p.isr.first().copied().unwrap_or(-1);
                p.epoch += 1;
            }
        }
        Ok(())
    }

    /// The coordinator of a group or transactional id: the leader of the internal partition
    /// its key hashes to (Java's `Utils.abs(key.hashCode()) % partitions`), placed round the
    /// brokers.
    pub fn coordinator(&self, key: &Str) -> Option<i32> {
        let hash = key
            .to_string_lossy()
            .encode_utf16()
            .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)));
        let partition = (hash & 0x7fff_ffff) % COORDINATOR_PARTITIONS;
        let ids: Vec<i32> = self.brokers.keys().copied().collect();
        (!ids.is_empty()).then(|| ids[partition as usize % ids.len()])
    }
}
