//! An in-process Kafka cluster for tests: brokers on 127.0.0.1 ephemeral ports, memory
//! storage, served through kafka-wire's answering side (`ServerCodec`, `RequestFrame::respond`,
//! `ServedApis`). Kafka's own clients (librdkafka, kafka-python, Java) connect to it as to a
//! real cluster.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use kafka_wire_mock::Cluster;
//!
//! let cluster = Cluster::builder().brokers(3).topic("orders", 6, 2).build().await.unwrap();
//! let bootstrap = cluster.bootstrap(); // "127.0.0.1:PORT,127.0.0.1:PORT,127.0.0.1:PORT"
//! assert_eq!(bootstrap.split(',').count(), 3);
//! assert_eq!(cluster.partition("orders", 0).unwrap().replicas.len(), 2);
//! # }
//! ```
//!
//! What is served, and how it differs from Kafka, is in the crate's README.

mod apis;
mod control;
mod group;
mod serve;
mod state;
mod txn;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kafka_wire::{Bytes, Str};
use kafka_wire_messages::answer::ServedApis;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub use control::{Intercept, Received};
pub use kafka_wire::{ErrorCode, VersionRange};
pub use kafka_wire_messages::{ApiKey, RequestFrame, ResponseFrame};
pub use state::PartitionInfo;

use state::{Options, Shared, State};

/// Errors of starting a cluster or changing its membership.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// A cluster's configuration, built up by [`Cluster::builder`].
#[derive(Debug, Clone)]
pub struct ClusterBuilder {
    brokers: usize,
    addresses: Vec<SocketAddr>,
    topics: Vec<(String, i32, i16)>,
    options: Options,
}

impl ClusterBuilder {
    /// `n` brokers (ids 0 to n-1), at least one. Default 1.
    pub fn brokers(mut self, n: usize) -> Self {
        self.brokers = n.max(1);
        self
    }

    /// Where the brokers listen, in broker order (default: `127.0.0.1:0`, a free port each).
    /// Brokers past the list's end get `127.0.0.1:0`.
    pub fn addresses(mut self, addresses: impl IntoIterator<Item = SocketAddr>) -> Self {
        self.addresses = addresses.into_iter().collect();
        self
    }

    /// A topic created at start: `partitions` partitions, each on `replication` brokers (its
    /// leader the first, spread round the brokers as Kafka's placement does).
    pub fn topic(mut self, name: &str, partitions: i32, replication: i16) -> Self {
        self.topics.push((name.to_owned(), partitions, replication));
        self
    }

    /// Whether Metadata creates the topics it is asked for (Kafka's
    /// `auto.create.topics.enable`, on in Kafka by default, off here by default).
    pub fn auto_create_topics(mut self, yes: bool) -> Self {
        self.options.auto_create = yes;
        self
    }

    /// Partitions of a topic created without a count (`num.partitions`, default 1).
    pub fn default_partitions(mut self, n: i32) -> Self {
        self.options.default_partitions = n.max(1);
        self
    }

    /// The smallest session timeout a group member may ask for
    /// (`group.min.session.timeout.ms`, Kafka's default 6 s); lower it to test expiry quickly.
    pub fn min_session_timeout(mut self, timeout: Duration) -> Self {
        self.options.min_session_timeout = timeout;
        self
    }

    /// The cluster id Metadata and DescribeCluster report.
    pub fn cluster_id(mut self, id: &str) -> Self {
        self.options.cluster_id = Str::from(id.to_owned());
        self
    }

    /// Starts the cluster on the current tokio runtime: binds every broker, creates the
    /// topics, and serves until the [`Cluster`] is dropped.
    pub async fn build(self) -> Result<Cluster, Error> {
        let mut state = State::new(self.options);
        let mut listeners = Vec::new();
        for id in 0..self.brokers {
            let addr = self
                .addresses
                .get(id)
                .copied()
                .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)));
            let listener = TcpListener::bind(addr).await?;
            state.add_broker(id as i32, listener.local_addr()?);
            listeners.push((id as i32, listener));
        }
        for (name, partitions, replication) in &self.topics {
            let name = Str::from(name.clone());
            state
                .create_topic(&name, *partitions, *replication)
                .map_err(|(code, message)| format!("topic {name}: {code:?} {message}"))?;
        }
        let shared = Arc::new(Shared::new(state));
        let brokers = listeners
            .into_iter()
            .map(|(id, l)| (id, tokio::spawn(serve::accept(l, shared.clone(), id))))
            .collect();
        let ticker = tokio::spawn(group::tick(shared.clone()));
        Ok(Cluster {
            shared,
            brokers: Mutex::new(brokers),
            ticker,
        })
    }

    /// [`build`](Self::build) on a runtime of its own, for tests that are not async.
    pub fn build_blocking(self) -> Result<BlockingCluster, Error> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let cluster = runtime.block_on(self.build())?;
        Ok(BlockingCluster {
            cluster,
            runtime: Some(runtime),
        })
    }
}

/// A running in-process cluster. Dropping it closes every listener and connection.
pub struct Cluster {
    shared: Arc<Shared>,
    /// Each live broker's accept task, which owns its connections' tasks.
    brokers: Mutex<Vec<(i32, JoinHandle<()>)>>,
    ticker: JoinHandle<()>,
}

impl Cluster {
    /// A builder: one broker, no topics.
    pub fn builder() -> ClusterBuilder {
        ClusterBuilder {
            brokers: 1,
            addresses: Vec::new(),
            topics: Vec::new(),
            options: Options::default(),
        }
    }

    /// The brokers' addresses, comma-separated: a client's `bootstrap.servers`.
    pub fn bootstrap(&self) -> String {
        let s = self.state();
        s.brokers
            .values()
            .map(|b| b.addr.to_string())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The live brokers: id and address.
    pub fn brokers(&self) -> Vec<(i32, SocketAddr)> {
        let s = self.state();
        s.brokers.iter().map(|(id, b)| (*id, b.addr)).collect()
    }

    /// The broker other brokers would call the controller (the lowest live id).
    pub fn controller(&self) -> Option<i32> {
        self.state().controller()
    }

    /// A partition's leader, epoch, replicas, in-sync replicas and offsets; `None` if there is
    /// no such partition.
    pub fn partition(&self, topic: &str, partition: i32) -> Option<PartitionInfo> {
        self.state().partition_info(topic, partition)
    }

    /// The record batches stored for a partition, as clients will fetch them (offsets and
    /// leader epoch stamped).
    pub fn batches(&self, topic: &str, partition: i32) -> Option<Vec<Bytes>> {
        let s = self.state();
        let p = s.partition(topic, partition)?;
        Some(p.log.batches.iter().map(|b| b.bytes.clone()).collect())
    }

    /// The committed offset of a group for a partition.
    pub fn committed(&self, group: &str, topic: &str, partition: i32) -> Option<i64> {
        let s = self.state();
        let g = s.groups.get(group.as_bytes())?;
        g.offsets
            .get(&(Str::from(topic.to_owned()), partition))
            .map(|c| c.offset)
    }

    /// The members of a group (member ids), and its generation.
    pub fn group_members(&self, group: &str) -> Option<(i32, Vec<String>)> {
        let s = self.state();
        let g = s.groups.get(group.as_bytes())?;
        Some((
            g.generation,
            g.members.keys().map(|m| m.to_string()).collect(),
        ))
    }

    /// Every request received so far (at most the last 100,000), oldest first.
    pub fn received(&self) -> Vec<Received> {
        self.state().control.received.iter().cloned().collect()
    }

    /// Answers the next `times` requests of `api` (on any broker) with `error`, as
    /// [`RequestFrame::error_response`] builds it, without serving them.
    pub fn fail_next(&self, api: ApiKey, error: ErrorCode, times: usize) {
        self.state().control.fail_next(api, error, times);
    }

    /// Advertises and serves `api` only at `versions` (an empty range: not at all); requests
    /// at other versions get UNSUPPORTED_VERSION.
    pub fn cap_versions(&self, api: ApiKey, versions: VersionRange) {
        let mut s = self.state();
        let cut = versions.intersect(api.usable_versions(false));
        s.served = std::mem::take(&mut s.served).with_versions(api, cut);
    }

    /// The APIs and versions the brokers advertise.
    pub fn served(&self) -> ServedApis {
        self.state().served.clone()
    }

    /// Calls `hook` with every request of `api` before it is served; its [`Intercept`] says
    /// what happens to the request. Replaces an earlier hook for `api`.
    pub fn intercept(
        &self,
        api: ApiKey,
        hook: impl Fn(&RequestFrame) -> Intercept + Send + Sync + 'static,
    ) {
        self.state().control.intercept(api, Arc::new(hook));
    }

    /// Removes the hook of `api`.
    pub fn clear_intercept(&self, api: ApiKey) {
        self.state().control.clear_intercept(api);
    }

    /// Responses that did not decode again with kafka-wire's own decoder, or did not encode
    /// (each frame the cluster sends is checked in debug builds): empty when all is well.
    pub fn frame_errors(&self) -> Vec<String> {
        self.state().control.frame_errors.clone()
    }

    /// Makes `broker` (one of the partition's replicas) the partition's leader, with a new
    /// leader epoch, as a controller's reassignment or election does.
    pub fn move_leader(&self, topic: &str, partition: i32, broker: i32) -> Result<(), Error> {
        self.state().move_leader(topic, partition, broker)?;
        self.shared.changed.notify_waiters();
        Ok(())
    }

    /// Starts a broker with the next free id on an ephemeral port; it leads nothing until
    /// topics are created or leaders moved to it. Returns its id.
    pub async fn add_broker(&self) -> Result<i32, Error> {
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let id = {
            let mut s = self.state();
            let id = s.brokers.keys().next_back().map_or(0, |i| i + 1);
            s.add_broker(id, listener.local_addr()?);
            id
        };
        let task = tokio::spawn(serve::accept(listener, self.shared.clone(), id));
        self.broker_tasks().push((id, task));
        Ok(id)
    }

    /// Stops a broker: its listener and connections close, it leaves every ISR, and each
    /// partition it led moves to the next in-sync replica (a new epoch), or has no leader
    /// (-1) if none is left.
    pub fn remove_broker(&self, broker: i32) -> Result<(), Error> {
        self.state().remove_broker(broker)?;
        let mut tasks = self.broker_tasks();
        if let Some(i) = tasks.iter().position(|(id, _)| *id == broker) {
            tasks.remove(i).1.abort();
        }
        self.shared.changed.notify_waiters();
        Ok(())
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.shared.lock()
    }

    /// The brokers' accept tasks (a poisoned lock still holds them: a test that panicked
    /// elsewhere must not make the cluster's drop panic as well).
    fn broker_tasks(&self) -> std::sync::MutexGuard<'_, Vec<(i32, JoinHandle<()>)>> {
        self.brokers.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Cluster {
    /// Aborts the brokers' and the ticker's tasks (again is harmless). Aborting an accept
    /// task drops its `JoinSet`, which aborts its connections.
    fn abort_tasks(&self) {
        for (_, task) in self.broker_tasks().drain(..) {
            task.abort();
        }
        self.ticker.abort();
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.abort_tasks();
        let errors = self.frame_errors();
        if !errors.is_empty() && !std::thread::panicking() {
            panic!("the mock cluster sent frames that do not decode: {errors:?}");
        }
    }
}

/// A [`Cluster`] on a runtime it owns, for tests that are not async: [`Deref`] gives the
/// cluster's methods; the async ones have blocking forms here.
///
/// [`Deref`]: std::ops::Deref
pub struct BlockingCluster {
    cluster: Cluster,
    /// Taken only by `drop`, which shuts it down.
    runtime: Option<tokio::runtime::Runtime>,
}

impl BlockingCluster {
    /// [`Cluster::add_broker`], waiting for it.
    pub fn add_broker(&self) -> Result<i32, Error> {
        let rt = self
            .runtime
            .as_ref()
            .ok_or("the cluster's runtime has stopped")?;
        rt.block_on(self.cluster.add_broker())
    }
}

impl std::ops::Deref for BlockingCluster {
    type Target = Cluster;
    fn deref(&self) -> &Cluster {
        &self.cluster
    }
}

impl Drop for BlockingCluster {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            // The cluster's tasks are aborted inside the runtime, then the runtime stops
            // without waiting for sockets to drain; the cluster itself (its frame check)
            // drops after this.
            let guard = rt.enter();
            self.cluster.abort_tasks();
            drop(guard);
            rt.shutdown_background();
        }
    }
}
