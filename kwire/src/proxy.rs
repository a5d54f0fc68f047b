//! `kwire proxy`: a Kafka proxy that decodes every frame it forwards, built on the library's
//! async API.
//!
//! Each client connection gets its own upstream connection. Both sockets are split into whole
//! frames by [`FrameCodec`]; a [`CorrelationTracker`] per connection remembers each request's
//! API key and version (recorded *before* the request is forwarded, so that its response
//! cannot arrive first), which is what it takes to decode the response. Frames of declared APIs
//! are decoded with [`AnyRequest`]/[`AnyResponse`] and, on request, re-encoded and compared
//! byte for byte; frames of other APIs or versions pass through untouched and are counted.
//! Each frame is decoded, checked and logged on tokio's blocking pool (`Shared::off_io`), so
//! a frame that is slow to decode (many compressed batches) delays only its own direction of
//! its own connection.
//!
//! Brokers advertise their own addresses (Metadata, FindCoordinator, DescribeCluster, and the
//! leader endpoints of Produce and Fetch responses). The proxy rewrites each advertised
//! broker to a listener of its own, opened on first sight, whose connections go to that
//! broker, so clients keep talking through the proxy after bootstrap.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::StreamExt;
use kafka_wire::codec::{CodecError, FrameCodec};
use kafka_wire::correlation::{CorrelationTracker, TrackError};
use kafka_wire::dynamic::{self, BodySpec};
use kafka_wire::frame::{self, DecodeOptions, RequestPeek};
use kafka_wire::records::ReadOptions;
use kafka_wire::{ApiKind, Bytes, EncodeError, Reader, Records, Str, Vectored, Version};
use kafka_wire_messages::{known, AnyRequest, AnyResponse, ApiKey, ResponseBody};
use serde_json::Value as Json;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_util::codec::FramedRead;

mod apis;

/// What to print for each frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// Nothing per frame (the summary table only).
    #[default]
    None,
    /// One JSON document per frame: `kwire decode --json`'s, plus direction, connection and
    /// timestamp.
    Json,
    /// One short line per frame.
    Summary,
}

/// How the proxy runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where clients connect (the bootstrap address they are given).
    pub listen: SocketAddr,
    /// The broker behind it (`host:port`).
    pub upstream: String,
    /// The host written into rewritten broker addresses; the listen address when `None`
    /// (127.0.0.1 if that is unspecified).
    pub advertise: Option<String>,
    /// Re-encode every decoded frame and count those whose bytes differ.
    pub verify: bool,
    /// Forward our re-encoding of each decoded frame instead of the original bytes (implies
    /// `verify`).
    pub reencode: bool,
    /// Per-frame output.
    pub log: LogFormat,
    /// Read every record of every batch (decompressing, checking CRCs) and report those that
    /// fail; otherwise batches and records are counted from the batch headers alone.
    pub check_records: bool,
    /// Write every record into `--log json` documents (otherwise each record set is a
    /// summary: batches, records, bytes).
    pub log_records: bool,
    /// The largest frame accepted in either direction.
    pub max_frame_size: usize,
}

impl Config {
    /// A proxy from `listen` to `upstream`, verifying nothing and printing no frames.
    pub fn new(listen: SocketAddr, upstream: impl Into<String>) -> Self {
        Config {
            listen,
            upstream: upstream.into(),
            advertise: None,
            verify: false,
            reencode: false,
            log: LogFormat::None,
            check_records: false,
            log_records: false,
            max_frame_size: kafka_wire::frame::DEFAULT_MAX_FRAME_SIZE,
        }
    }
}

/// Which way a frame went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    /// Client to broker.
    Request,
    /// Broker to client.
    Response,
}

impl Direction {
    fn as_str(self) -> &'static str {
        match self {
            Direction::Request => "request",
            Direction::Response => "response",
        }
    }
}

/// Counts for one (API, version, direction).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Frames seen.
    pub frames: u64,
    /// Frames of a declared API and version that decoded.
    pub decoded: u64,
    /// Decoded frames whose re-encoding was identical (counted only when verifying).
    pub byte_exact: u64,
    /// Decoded frames whose re-encoding differed.
    pub mismatched: u64,
    /// Frames of a declared API and version that failed to decode or to encode again.
    pub errors: u64,
    /// Frames of APIs or versions not declared, passed through untouched.
    pub opaque: u64,
    /// Responses whose broker addresses were rewritten.
    pub rewritten: u64,
    /// Record batches parsed in the frames' record sets (Produce requests, Fetch responses).
    pub batches: u64,
    /// Records read from those batches (decompressed where compressed).
    pub records: u64,
}

/// A frame whose re-encoding differed from what arrived.
#[derive(Debug, Clone)]
pub struct Mismatch {
    /// API key.
    pub api_key: i16,
    /// API version.
    pub version: Version,
    /// Which way it went.
    pub direction: Direction,
    /// The bytes that arrived.
    pub original: Bytes,
    /// Our re-encoding.
    pub reencoded: Vec<u8>,
}

/// A frame of a declared API that failed to decode or encode.
#[derive(Debug, Clone)]
pub struct FrameError {
    /// API key.
    pub api_key: i16,
    /// API version.
    pub version: Version,
    /// Which way it went.
    pub direction: Direction,
    /// What went wrong.
    pub message: String,
    /// The frame.
    pub frame: Bytes,
}

/// Everything counted so far.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Counts by API key, version and direction.
    pub rows: BTreeMap<(i16, Version, Direction), Counts>,
    /// Frames whose re-encoding differed (the first 100).
    pub mismatches: Vec<Mismatch>,
    /// Frames that failed to decode or encode (the first 100).
    pub errors: Vec<FrameError>,
    /// Client connections accepted.
    pub connections: u64,
    /// Connection-level failures (upstream unreachable, bad framing, unmatched responses).
    pub connection_errors: Vec<String>,
    /// Per-frame log lines dropped because the writer fell behind (its queue was full).
    pub log_dropped: u64,
}

const KEEP: usize = 100;

impl Summary {
    /// The counts of all rows added up.
    pub fn totals(&self) -> Counts {
        self.rows.values().fold(Counts::default(), |mut t, c| {
            t.frames += c.frames;
            t.decoded += c.decoded;
            t.byte_exact += c.byte_exact;
            t.mismatched += c.mismatched;
            t.errors += c.errors;
            t.opaque += c.opaque;
            t.rewritten += c.rewritten;
            t.batches += c.batches;
            t.records += c.records;
            t
        })
    }

    /// The summary as an aligned text table: API, version, direction, frames, decoded,
    /// byte-exact, errors (decode, encode, mismatch, record batch), then the frames passed
    /// through undecoded, those rewritten, and the record batches and records parsed.
    pub fn table(&self) -> String {
        let mut rows: Vec<Vec<String>> = vec![[
            "API",
            "KEY",
            "VERSION",
            "DIRECTION",
            "FRAMES",
            "DECODED",
            "BYTE-EXACT",
            "ERRORS",
            "OPAQUE",
            "REWRITTEN",
            "BATCHES",
            "RECORDS",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()];
        let line = |name: String, key: String, v: String, d: &str, c: &Counts| {
            vec![
                name,
                key,
                v,
                d.to_owned(),
                c.frames.to_string(),
                c.decoded.to_string(),
                c.byte_exact.to_string(),
                (c.errors + c.mismatched).to_string(),
                c.opaque.to_string(),
                c.rewritten.to_string(),
                c.batches.to_string(),
                c.records.to_string(),
            ]
        };
        for ((key, version, dir), c) in &self.rows {
            let name = known::api_name(*key).unwrap_or("?").to_owned();
            rows.push(line(
                name,
                key.to_string(),
                version.to_string(),
                dir.as_str(),
                c,
            ));
        }
        rows.push(line(
            "total".into(),
            String::new(),
            String::new(),
            "",
            &self.totals(),
        ));
        render_table(&rows)
    }
}

fn render_table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(String::len)
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            let w = widths.get(c).copied().unwrap_or(0);
            // Names left-aligned, numbers right-aligned.
            if c < 4 {
                line.push_str(&format!("{cell:<w$}  "));
            } else {
                line.push_str(&format!("{cell:>w$}  "));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Where per-frame lines go.
pub type Sink = Box<dyn Write + Send>;

/// State shared by every connection of one proxy.
struct Shared {
    cfg: Config,
    advertise: String,
    summary: Mutex<Summary>,
    /// Advertised broker address (host, port) to the listener standing in for it.
    /// A plain lock: it is taken from the blocking pool, where frames are decoded.
    brokers: Mutex<HashMap<(String, i32), SocketAddr>>,
    next_connection: AtomicU64,
    /// Per-frame lines to the writer thread (`None` once stopped, or with no per-frame log).
    log: Mutex<Option<SyncSender<Vec<u8>>>>,
    /// The writer thread, joined on stop so that every line sent is written.
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
    /// This state's own Arc, for the listeners opened from inside a connection.
    me: Weak<Shared>,
}

/// A running proxy; dropping it does not stop it, [`Proxy::stop`] does.
pub struct Proxy {
    shared: Arc<Shared>,
    local_addr: SocketAddr,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking task cannot leave the counters half-written in a way that matters more
    // than losing them, so a poisoned lock is used as is.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Proxy {
    /// Binds the listen address and starts accepting clients (on the current tokio runtime).
    pub async fn start(cfg: Config, sink: Sink) -> std::io::Result<Proxy> {
        let listener = TcpListener::bind(cfg.listen).await?;
        let local_addr = listener.local_addr()?;
        let advertise = cfg.advertise.clone().unwrap_or_else(|| {
            if local_addr.ip().is_unspecified() {
                IpAddr::from([127, 0, 0, 1]).to_string()
            } else {
                local_addr.ip().to_string()
            }
        });
        let upstream = cfg.upstream.clone();
        let (log, writer) = match cfg.log {
            LogFormat::None => (None, None),
            _ => {
                let (tx, rx) = sync_channel::<Vec<u8>>(LOG_QUEUE);
                (
                    Some(tx),
                    Some(std::thread::spawn(move || write_lines(rx, sink))),
                )
            }
        };
        let shared = Arc::new_cyclic(|me| Shared {
            me: me.clone(),
            cfg,
            advertise,
            summary: Mutex::new(Summary::default()),
            brokers: Mutex::new(HashMap::new()),
            next_connection: AtomicU64::new(1),
            log: Mutex::new(log),
            writer: Mutex::new(writer),
            tasks: Mutex::new(Vec::new()),
        });
        // The bootstrap address maps to this listener too, so a broker advertising the address
        // the proxy was given is not given a second listener.
        if let Some((host, port)) = split_host_port(&upstream) {
            lock(&shared.brokers).insert((host.to_owned(), port), local_addr);
        }
        shared.spawn_accept(listener, upstream);
        Ok(Proxy { shared, local_addr })
    }

    /// The address clients bootstrap from.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The counts so far.
    pub fn summary(&self) -> Summary {
        lock(&self.shared.summary).clone()
    }

    /// Stops accepting, closes every connection and returns the final counts.
    pub fn stop(self) -> Summary {
        for t in lock(&self.shared.tasks).drain(..) {
            t.abort();
        }
        // Closing the queue ends the writer once it has written what was queued.
        drop(lock(&self.shared.log).take());
        if let Some(w) = lock(&self.shared.writer).take() {
            let _ = w.join();
        }
        self.summary()
    }
}

/// Frames up to this size are decoded on the I/O task itself (unless records are checked).
/// The hand-off to the blocking pool costs two thread wake-ups per frame, which was most of
/// what the proxy spent beyond a plain relay on 1 MB Produce and Fetch frames; a frame whose
/// bytes are mostly records decodes in microseconds, since records are not read. The
/// densest frame of this size (a Produce request of 350,000 empty topics) takes 15-30 ms,
/// the most one frame holds up its I/O worker; larger frames, whose hand-off is a smaller
/// part of their cost, still go to the pool.
const INLINE_MAX: usize = 1024 * 1024;

/// Lines queued for the log's writer thread at most; past that, lines are dropped (and
/// counted in the summary) rather than slowing the traffic down.
const LOG_QUEUE: usize = 4096;

/// The log's writer thread: every line, buffered, flushed whenever the queue is empty.
fn write_lines(rx: Receiver<Vec<u8>>, sink: Sink) {
    let mut w = std::io::BufWriter::with_capacity(1 << 16, sink);
    while let Ok(line) = rx.recv() {
        if w.write_all(&line).is_err() {
            return;
        }
        let mut next = rx.try_recv();
        while let Ok(line) = next {
            if w.write_all(&line).is_err() {
                return;
            }
            next = rx.try_recv();
        }
        if w.flush().is_err() {
            return;
        }
    }
    let _ = w.flush();
}

fn split_host_port(addr: &str) -> Option<(&str, i32)> {
    let (host, port) = addr.rsplit_once(':')?;
    Some((
        host.trim_start_matches('[').trim_end_matches(']'),
        port.parse().ok()?,
    ))
}

/// What else was done with a frame besides decoding it.
#[derive(Default)]
struct Extra {
    /// Its broker addresses were rewritten.
    rewritten: bool,
    /// What its record sets held.
    records: RecordCounts,
}

/// Batches and records in the record sets of one frame, and why any failed to parse.
#[derive(Default)]
struct RecordCounts {
    batches: u64,
    records: u64,
    errors: Vec<String>,
}

/// Counts the batches and records of every record set. With `check`, parses every batch and
/// every record in them (decompressing as needed, checking CRCs) and keeps why any failed;
/// otherwise takes each batch's record count from its header, decompressing nothing (a
/// compressed legacy message, whose count only its inner messages give, is read). A Fetch
/// response may end a partition's records with a partial batch; that is not an error (the
/// reader stops there, as Kafka's does).
fn count_records<'a>(sets: impl IntoIterator<Item = &'a Records>, check: bool) -> RecordCounts {
    let mut c = RecordCounts::default();
    let opts = ReadOptions {
        verify_crc: check,
        ..ReadOptions::default()
    };
    for set in sets {
        for batch in set.batches_with(opts) {
            let batch = match batch {
                Ok(b) => b,
                Err(e) => {
                    c.errors.push(e.to_string());
                    continue;
                }
            };
            if !check {
                if let Some(n) = batch.record_count() {
                    c.batches += 1;
                    c.records += n as u64;
                    continue;
                }
            }
            match batch.records() {
                Ok(records) => {
                    c.batches += 1;
                    for r in &records {
                        match r {
                            Ok(_) => c.records += 1,
                            Err(e) => c.errors.push(e.to_string()),
                        }
                    }
                }
                Err(e) => c.errors.push(e.to_string()),
            }
        }
    }
    c
}

/// Whether `v` stands for exactly `original`'s bytes. A referenced value that is a slice of
/// `original` at its own position (a record set decoded from the frame and encoded again) is
/// equal without being read.
fn same_bytes(v: &Vectored, original: &[u8]) -> bool {
    if v.len() != original.len() {
        return false;
    }
    let mut at = 0;
    for seg in v.segments() {
        let Some(o) = original.get(at..at + seg.len()) else {
            return false;
        };
        if o.as_ptr() != seg.as_ptr() && o != seg {
            return false;
        }
        at += seg.len();
    }
    at == original.len()
}

/// `frame` (a whole frame) with `tail` appended and its size prefix grown to match.
fn append_to_frame(mut frame: Vec<u8>, tail: &[u8]) -> Bytes {
    frame.extend_from_slice(tail);
    let size = u32::try_from(frame.len().saturating_sub(4)).unwrap_or(u32::MAX);
    if let Some(prefix) = frame.get_mut(..4) {
        prefix.copy_from_slice(&size.to_be_bytes());
    }
    Bytes::from(frame)
}

/// What became of one frame.
enum Outcome {
    Opaque,
    Exact,
    /// Decoded, not re-encoded (not verifying).
    Decoded,
    Mismatch(Vec<u8>),
    Error(String),
}

impl Shared {
    fn spawn_accept(self: &Arc<Self>, listener: TcpListener, upstream: String) {
        let me = Arc::clone(self);
        let task = tokio::spawn(async move {
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    continue;
                };
                let conn = Arc::clone(&me);
                let upstream = upstream.clone();
                let t = tokio::spawn(async move { conn.serve(client, upstream).await });
                lock(&me.tasks).push(t);
            }
        });
        lock(&self.tasks).push(task);
    }

    fn connection_error(&self, msg: String) {
        let mut s = lock(&self.summary);
        if s.connection_errors.len() < KEEP {
            s.connection_errors.push(msg);
        }
    }

    /// One client connection: its own upstream connection, requests one way, responses the
    /// other, until either side closes.
    async fn serve(self: Arc<Self>, client: TcpStream, upstream: String) {
        let id = self.next_connection.fetch_add(1, Ordering::Relaxed);
        lock(&self.summary).connections += 1;
        let server = match TcpStream::connect(&upstream).await {
            Ok(s) => s,
            Err(e) => return self.connection_error(format!("c{id}: connect {upstream}: {e}")),
        };
        let _ = client.set_nodelay(true);
        let _ = server.set_nodelay(true);
        let codec = FrameCodec::with_max_frame_size(self.cfg.max_frame_size);
        let (client_rx, mut to_client) = client.into_split();
        let (server_rx, mut to_server) = server.into_split();
        let mut from_client = FramedRead::new(client_rx, codec);
        let mut from_server = FramedRead::new(server_rx, codec);
        let tracker = Arc::new(Mutex::new(CorrelationTracker::new()));

        let requests = async {
            while let Some(frame) = from_client.next().await {
                let (me, tracker) = (Arc::clone(&self), Arc::clone(&tracker));
                let work = move |f| me.on_request(id, &tracker, f);
                // Written as it is (the bytes received, or ours), not copied into a buffer.
                let out = self.off_io(id, frame?, work).await;
                to_server.write_all(&out).await?;
            }
            // The client is done sending: pass the half-close on, and let the answers drain.
            to_server.shutdown().await?;
            Ok::<(), CodecError>(())
        };
        let responses = async {
            while let Some(frame) = from_server.next().await {
                let (me, tracker) = (Arc::clone(&self), Arc::clone(&tracker));
                let work = move |f| me.on_response(id, &tracker, f);
                let out = self.off_io(id, frame?, work).await;
                to_client.write_all(&out).await?;
            }
            to_client.shutdown().await?;
            Ok::<(), CodecError>(())
        };
        if let Err(e) = tokio::try_join!(requests, responses) {
            self.connection_error(format!("c{id}: {e}"));
        }
    }

    /// Runs `work` (decoding, checking and logging one frame) on tokio's blocking pool, off
    /// the I/O tasks (a frame of at most [`INLINE_MAX`] bytes, whose records are not read,
    /// on the I/O task itself): a frame that takes long to decode (a batch of many compressed members,
    /// say) holds up only its own connection's direction, never the others'. The frames of
    /// one direction of a connection are still handled one at a time, in order. Should `work`
    /// panic, the frame is forwarded as it came and the failure counted.
    async fn off_io(
        &self,
        conn: u64,
        frame: Bytes,
        work: impl FnOnce(Bytes) -> Bytes + Send + 'static,
    ) -> Bytes {
        // No record is read unless `check_records` or `log_records` asks (see `INLINE_MAX`).
        let original = frame.clone();
        let reads_records = self.cfg.check_records || self.cfg.log_records;
        if frame.len() <= INLINE_MAX && !reads_records {
            let run = std::panic::AssertUnwindSafe(move || work(frame));
            return match std::panic::catch_unwind(run) {
                Ok(out) => out,
                Err(_) => {
                    self.connection_error(format!("c{conn}: handling a frame panicked"));
                    original
                }
            };
        }
        match tokio::task::spawn_blocking(move || work(frame)).await {
            Ok(out) => out,
            Err(e) => {
                self.connection_error(format!("c{conn}: handling a frame failed: {e}"));
                original
            }
        }
    }

    fn on_request(&self, conn: u64, tracker: &Mutex<CorrelationTracker>, frame: Bytes) -> Bytes {
        let options = DecodeOptions::from_max_frame_size(self.cfg.max_frame_size);
        let decoded = AnyRequest::decode(&frame, &options).map(|d| d.frame);
        // What to track comes from the header as decoded (an opaque frame's fixed fields, read
        // once by the decode); only a frame that does not decode is peeked for it.
        let peek = match &decoded {
            Ok(any) => Ok(any.peek()),
            Err(_) => frame::peek_request_header(&frame),
        };
        // Track before forwarding: once the bytes leave, the answer can come back at once.
        let tracked = peek
            .map_err(TrackError::from)
            .and_then(|p| lock(tracker).track(p.correlation_id, p).map(|()| p));
        let peek = match tracked {
            Ok(p) => p,
            Err(e) => {
                self.connection_error(format!("c{conn}: request not tracked: {e}"));
                return frame;
            }
        };
        let mut extra = Extra::default();
        let (out, outcome) = match decoded {
            Ok(AnyRequest::Decoded(f)) => {
                if apis::expects_no_response(&f.body) {
                    lock(tracker).complete(peek.correlation_id);
                }
                extra.records =
                    count_records(apis::request_records(&f.body), self.cfg.check_records);
                self.check(&frame, |v| f.encode_vectored(v))
            }
            Ok(AnyRequest::Opaque(_)) => (frame.clone(), Outcome::Opaque),
            Err(e) => (frame.clone(), Outcome::Error(e.to_string())),
        };
        self.record(
            conn,
            Direction::Request,
            peek,
            peek.api_version,
            &frame,
            outcome,
            extra,
            None,
        );
        out
    }

    fn on_response(&self, conn: u64, tracker: &Mutex<CorrelationTracker>, frame: Bytes) -> Bytes {
        let peek = match lock(tracker).complete_frame(&frame) {
            Ok(p) => p,
            Err(e) => {
                self.connection_error(format!("c{conn}: {e}"));
                return frame;
            }
        };
        // Read as Java's clients read: bytes after a body are ignored (librdkafka's mock
        // appends one to its Metadata v12 answers), so such a frame is still understood.
        let options =
            DecodeOptions::from_max_frame_size(self.cfg.max_frame_size).with_trailing_bytes(true);
        let decoded = AnyResponse::decode(&frame, peek.api_key, peek.api_version, &options);
        let mut extra = Extra::default();
        let (mut out, outcome, version, mut rewritten) = match decoded {
            Ok(d) if d.trailing_bytes > 0 => {
                // Still an error to report: the strict reading's, since such a frame cannot
                // be re-encoded to the bytes that came. Its broker addresses are rewritten
                // all the same (the extra bytes kept after our encoding), or a client would
                // leave the proxy.
                let tail = frame.slice(frame.len() - d.trailing_bytes..);
                let strict = frame::ensure_consumed(&Reader::at(&frame, frame.len() - tail.len()));
                let outcome =
                    Outcome::Error(strict.err().map(|e| e.to_string()).unwrap_or_default());
                if let AnyResponse::Decoded(mut f) = d.frame {
                    if self.rewrite(&mut f.body) {
                        extra.rewritten = true;
                        match f.to_vec().map(|v| append_to_frame(v, &tail)) {
                            Ok(bytes) => {
                                self.record(
                                    conn,
                                    Direction::Response,
                                    peek,
                                    peek.api_version,
                                    &frame,
                                    outcome,
                                    extra,
                                    Some(&bytes),
                                );
                                return bytes;
                            }
                            Err(e) => {
                                self.connection_error(format!("c{conn}: rewritten response: {e}"))
                            }
                        }
                        extra = Extra::default();
                    }
                }
                (frame.clone(), outcome, peek.api_version, None)
            }
            Ok(d) => match d.frame {
                AnyResponse::Decoded(mut f) => {
                    let version = f.version;
                    extra.records =
                        count_records(apis::response_records(&f.body), self.cfg.check_records);
                    let (out, outcome) = self.check(&frame, |v| f.encode_vectored(v));
                    // Broker addresses are rewritten after the check, which is about the
                    // bytes that arrived.
                    let rewritten = self.rewrite(&mut f.body);
                    (out, outcome, version, rewritten.then_some(f))
                }
                AnyResponse::Opaque(_) => (frame.clone(), Outcome::Opaque, peek.api_version, None),
            },
            Err(e) => (
                frame.clone(),
                Outcome::Error(e.to_string()),
                peek.api_version,
                None,
            ),
        };
        if let Some(f) = rewritten.take() {
            extra.rewritten = true;
            match f.to_vec() {
                Ok(bytes) => out = Bytes::from(bytes),
                Err(e) => self.connection_error(format!("c{conn}: rewritten response: {e}")),
            }
        }
        let sent = extra.rewritten.then(|| out.clone());
        self.record(
            conn,
            Direction::Response,
            peek,
            version,
            &frame,
            outcome,
            extra,
            sent.as_ref(),
        );
        out
    }

    /// Compares our encoding of a decoded frame with the bytes that arrived, and picks what to
    /// forward. Our encoding is made only when a mode asks for it, vectored: a record set
    /// decoded from the frame is referenced, not copied, and compares equal without being
    /// read. When ours equals what arrived, what arrived is forwarded (the same bytes, in
    /// either mode); otherwise, with `reencode`, ours.
    fn check(
        &self,
        original: &Bytes,
        ours: impl FnOnce(&mut Vectored) -> Result<(), EncodeError>,
    ) -> (Bytes, Outcome) {
        if !(self.cfg.verify || self.cfg.reencode) {
            return (original.clone(), Outcome::Decoded);
        }
        let mut v = Vectored::new();
        if let Err(e) = ours(&mut v) {
            return (original.clone(), Outcome::Error(format!("re-encode: {e}")));
        }
        if same_bytes(&v, original) {
            return (original.clone(), Outcome::Exact);
        }
        let ours = v.to_vec();
        let out = if self.cfg.reencode {
            Bytes::from(ours.clone())
        } else {
            original.clone()
        };
        (out, Outcome::Mismatch(ours))
    }

    /// Replaces every broker address in `body` by the proxy's listener for that broker;
    /// whether anything was replaced.
    ///
    /// Called on the blocking pool (see [`off_io`](Self::off_io)), which has the runtime's
    /// context, so a new broker's listener is bound here and its accept task spawned.
    fn rewrite(&self, body: &mut ResponseBody) -> bool {
        let endpoints = apis::broker_endpoints(body);
        if endpoints.is_empty() {
            return false;
        }
        let mut brokers = lock(&self.brokers);
        let mut changed = false;
        for (host, port) in endpoints {
            // A host that is not UTF-8 names no address this proxy could connect to (and
            // `as_str` would give them all one key, ""): left as it came, and reported.
            let Ok(h) = host.to_str() else {
                self.connection_error(format!(
                    "broker host {host:?}:{port} is not UTF-8: left unrewritten"
                ));
                continue;
            };
            let key = (h.to_owned(), *port);
            let local = match brokers.get(&key) {
                Some(a) => *a,
                None => {
                    let bind = SocketAddr::new(self.cfg.listen.ip(), 0);
                    let listener = match std::net::TcpListener::bind(bind).and_then(|l| {
                        l.set_nonblocking(true)?;
                        TcpListener::from_std(l)
                    }) {
                        Ok(l) => l,
                        Err(e) => {
                            self.connection_error(format!("listen for {}:{}: {e}", key.0, key.1));
                            continue;
                        }
                    };
                    let Ok(local) = listener.local_addr() else {
                        continue;
                    };
                    // The new listener's task needs its own handle on this state.
                    let Some(me) = self.me.upgrade() else {
                        continue;
                    };
                    me.spawn_accept(listener, format!("{}:{}", key.0, key.1));
                    brokers.insert(key, local);
                    local
                }
            };
            *host = Str::from(self.advertise.clone());
            *port = i32::from(local.port());
            changed = true;
        }
        changed
    }

    /// Counts a frame and logs it. `sent` is what was forwarded when it differs from
    /// `frame` (a response with broker addresses rewritten): the log shows what the client
    /// receives, and the body as it arrived under `beforeRewrite`.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        conn: u64,
        direction: Direction,
        peek: RequestPeek,
        version: Version,
        frame: &Bytes,
        outcome: Outcome,
        extra: Extra,
        sent: Option<&Bytes>,
    ) {
        let key = peek.api_key;
        {
            let mut s = lock(&self.summary);
            let c = s.rows.entry((key, version, direction)).or_default();
            c.frames += 1;
            c.rewritten += u64::from(extra.rewritten);
            c.batches += extra.records.batches;
            c.records += extra.records.records;
            c.errors += extra.records.errors.len() as u64;
            for m in extra.records.errors {
                if s.errors.len() < KEEP {
                    s.errors.push(FrameError {
                        api_key: key,
                        version,
                        direction,
                        message: format!("record batch: {m}"),
                        frame: frame.clone(),
                    });
                }
            }
            let c = s.rows.entry((key, version, direction)).or_default();
            match &outcome {
                Outcome::Opaque => c.opaque += 1,
                Outcome::Decoded => c.decoded += 1,
                Outcome::Exact => {
                    c.decoded += 1;
                    c.byte_exact += 1;
                }
                Outcome::Mismatch(ours) => {
                    c.decoded += 1;
                    c.mismatched += 1;
                    if s.mismatches.len() < KEEP {
                        s.mismatches.push(Mismatch {
                            api_key: key,
                            version,
                            direction,
                            original: frame.clone(),
                            reencoded: ours.clone(),
                        });
                    }
                }
                Outcome::Error(m) => {
                    c.errors += 1;
                    if s.errors.len() < KEEP {
                        s.errors.push(FrameError {
                            api_key: key,
                            version,
                            direction,
                            message: m.clone(),
                            frame: frame.clone(),
                        });
                    }
                }
            }
        }
        let mut line = match self.cfg.log {
            LogFormat::None => return,
            LogFormat::Summary => {
                summary_line(conn, direction, peek, version, frame, &outcome).into_bytes()
            }
            LogFormat::Json => json_line(
                conn,
                direction,
                peek,
                version,
                frame,
                &outcome,
                sent,
                self.cfg.log_records,
            ),
        };
        line.push(b'\n');
        let tx = lock(&self.log).clone();
        if let Some(tx) = tx {
            if let Err(TrySendError::Full(_)) = tx.try_send(line) {
                lock(&self.summary).log_dropped += 1;
            }
        }
    }
}

fn now_millis() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_millis()
}

fn outcome_word(o: &Outcome) -> &'static str {
    match o {
        Outcome::Opaque => "opaque",
        Outcome::Exact => "byte-exact",
        Outcome::Decoded => "decoded",
        Outcome::Mismatch(_) => "MISMATCH",
        Outcome::Error(_) => "ERROR",
    }
}

fn summary_line(
    conn: u64,
    direction: Direction,
    peek: RequestPeek,
    version: Version,
    frame: &Bytes,
    outcome: &Outcome,
) -> String {
    let arrow = match direction {
        Direction::Request => "->",
        Direction::Response => "<-",
    };
    let name = known::api_name(peek.api_key).unwrap_or("?");
    let mut s = format!(
        "c{conn} {arrow} {name}({}) v{version} corr={} {}B {}",
        peek.api_key,
        peek.correlation_id,
        frame.len(),
        outcome_word(outcome)
    );
    if let Outcome::Error(m) = outcome {
        s.push_str(&format!(": {m}"));
    }
    s
}

/// `kwire decode --json`'s document for the frame, with direction, connection and timestamp
/// in front; frames that document cannot describe get the peeked fields instead. Written
/// straight from the frame's bytes (`dynamic::write_frame_json`), each `records` value as a
/// summary (batches and records counted from the batch headers, bytes), or with
/// `log_records` every record as `kwire decode --json` writes them.
#[allow(clippy::too_many_arguments)]
fn json_line(
    conn: u64,
    direction: Direction,
    peek: RequestPeek,
    version: Version,
    frame: &Bytes,
    outcome: &Outcome,
    sent: Option<&Bytes>,
    log_records: bool,
) -> Vec<u8> {
    let mut w = Vec::with_capacity(512);
    let _ = write!(
        w,
        "{{\"direction\":\"{}\",\"connection\":{conn},\"timestampMs\":{},\"outcome\":\"{}\"",
        direction.as_str(),
        now_millis(),
        outcome_word(outcome)
    );
    let kind = match direction {
        Direction::Request => ApiKind::Request,
        Direction::Response => ApiKind::Response,
    };
    let walk = |frame: &Bytes| match (ApiKey::from_i16(peek.api_key), outcome) {
        (_, Outcome::Opaque | Outcome::Error(_)) | (None, _) => None,
        (Some(_), _) if kind == ApiKind::Request => dynamic::walk_request_frame(
            frame,
            |k| ApiKey::from_i16(k).map(ApiKey::request_meta),
            None,
            &DecodeOptions::DEFAULT,
        )
        .ok()
        .map(|d| d.frame),
        (Some(api), _) => dynamic::walk_response_frame(
            frame,
            BodySpec {
                api_key: peek.api_key,
                meta: api.response_meta(),
                version,
            },
            None,
            &DecodeOptions::DEFAULT,
        )
        .ok()
        .map(|d| d.frame),
    };
    let mut records = |data: &Bytes, _at: usize, w: &mut dyn Write| -> std::io::Result<()> {
        if log_records {
            crate::records::write_json(data, w).map(|_| ())
        } else {
            records_summary(data, w)
        }
    };
    // With a rewrite, the body as it arrived as well as what the client receives.
    if let Some(walked) = sent.and(walk(frame)) {
        w.extend_from_slice(b",\"rewritten\":true,\"beforeRewrite\":");
        let at = w.len();
        let body = dynamic::write_json(
            walked.spec.meta,
            frame,
            walked.body_at,
            walked.spec.version,
            &mut w,
            Some(&mut records),
        );
        if body.is_err() {
            w.truncate(at);
            w.extend_from_slice(b"null");
        }
    } else if sent.is_some() {
        w.extend_from_slice(b",\"rewritten\":true");
    }
    let sent_frame = sent.unwrap_or(frame);
    let at = w.len();
    let document = walk(sent_frame).is_some_and(|walked| {
        dynamic::write_frame_json(sent_frame, &walked, kind, &mut w, Some(&mut records)).is_ok()
    });
    if document {
        // The frame's document is an object: its keys join the envelope's.
        if let Some(brace) = w.get_mut(at) {
            *brace = b',';
        }
    } else {
        w.truncate(at);
        let _ = write!(
            w,
            ",\"apiKey\":{},\"apiName\":{},\"apiVersion\":{version},\"correlationId\":{},\"size\":{}",
            peek.api_key,
            Json::from(known::api_name(peek.api_key)),
            peek.correlation_id,
            frame.len()
        );
        if let Outcome::Error(m) = outcome {
            let _ = write!(w, ",\"error\":{}", Json::from(m.as_str()));
        }
        w.push(b'}');
    }
    w
}

/// A `records` value in a log line: `{"batches":N,"records":M,"sizeInBytes":B}`, counted as
/// the summary table counts them (`count_records`, from the batch headers).
fn records_summary(data: &Bytes, w: &mut dyn Write) -> std::io::Result<()> {
    let c = count_records([&Records(data.clone())], false);
    write!(
        w,
        "{{\"batches\":{},\"records\":{},\"sizeInBytes\":{}}}",
        c.batches,
        c.records,
        data.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kafka_wire::records::Compression;

    #[test]
    fn bytes_appended_to_a_frame_grow_its_prefix() {
        // Size 5: correlation id 1 and a body byte 0x2a; then one extra 0x00.
        let frame = b"\x00\x00\x00\x05\x00\x00\x00\x01\x2a".to_vec();
        let grown = append_to_frame(frame, b"\x00");
        assert_eq!(&grown[..], b"\x00\x00\x00\x06\x00\x00\x00\x01\x2a\x00");
    }

    #[test]
    fn the_table_adds_up_the_rows() {
        let mut s = Summary::default();
        s.rows.insert(
            (0, 9, Direction::Request),
            Counts {
                frames: 3,
                decoded: 3,
                byte_exact: 3,
                batches: 2,
                records: 7,
                ..Counts::default()
            },
        );
        s.rows.insert(
            (3, 12, Direction::Response),
            Counts {
                frames: 2,
                errors: 1,
                opaque: 1,
                rewritten: 1,
                ..Counts::default()
            },
        );
        let t = s.totals();
        assert_eq!((t.frames, t.decoded, t.errors, t.batches), (5, 3, 1, 2));
        let table = s.table();
        let lines: Vec<Vec<&str>> = table
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(
            lines[1],
            ["Produce", "0", "9", "request", "3", "3", "3", "0", "0", "0", "2", "7"]
        );
        assert_eq!(
            lines[2],
            ["Metadata", "3", "12", "response", "2", "0", "0", "1", "1", "1", "0", "0"]
        );
        assert_eq!(lines[3], ["total", "5", "3", "3", "1", "1", "1", "2", "7"]);
    }

    /// A magic-2 batch whose header claims `count` records over a records section that is
    /// not the codec's data at all: only decompressing it can tell.
    fn lying_batch(count: i32) -> Records {
        let mut b = vec![0u8; 61];
        b[16] = 2;
        b[22] = Compression::Lz4.id();
        b[43..53].copy_from_slice(&[0xff; 10]);
        b[57..61].copy_from_slice(&count.to_be_bytes());
        b.extend_from_slice(&[0x5a; 40]);
        let len = (b.len() - 12) as i32;
        b[8..12].copy_from_slice(&len.to_be_bytes());
        let crc = kafka_wire::records::crc32c(&b[21..]);
        b[17..21].copy_from_slice(&crc.to_be_bytes());
        Records(Bytes::from(b))
    }

    #[test]
    fn records_are_counted_from_headers_unless_checked() {
        let set = lying_batch(166_000);
        // Default: the header's count, nothing decompressed, so nothing found wrong.
        let c = count_records([&set], false);
        assert_eq!((c.batches, c.records, c.errors.len()), (1, 166_000, 0));
        // Checked: decompressing fails, and says so.
        let c = count_records([&set], true);
        assert_eq!((c.batches, c.records), (0, 0));
        assert_eq!(c.errors.len(), 1, "{:?}", c.errors);
    }

    /// A Produce v9 request frame carrying `records`.
    fn produce_frame(records: Records) -> Bytes {
        use kafka_wire_messages::{
            PartitionProduceData, ProduceRequest, RequestFrame, TopicProduceData,
        };
        let body = ProduceRequest {
            acks: 1,
            topic_data: vec![TopicProduceData {
                name: "t".into(),
                partition_data: vec![PartitionProduceData {
                    index: 0,
                    records: Some(records),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        Bytes::from(RequestFrame::new(7, None, 9, body).to_vec().unwrap())
    }

    #[test]
    fn log_lines_are_the_frame_document_with_a_records_summary() {
        let mut b = kafka_wire::records::BatchBuilder::new(0);
        for i in 0..3 {
            b.append(i, Some(b"k"), Some(b"value"), &[]);
        }
        let records = Records(b.build().unwrap());
        let frame = produce_frame(records.clone());
        let peek = frame::peek_request_header(&frame).unwrap();
        let line = |log_records| {
            let l = json_line(
                3,
                Direction::Request,
                peek,
                9,
                &frame,
                &Outcome::Decoded,
                None,
                log_records,
            );
            serde_json::from_slice::<Json>(&l).expect("a JSON document")
        };
        let j = line(false);
        assert_eq!(j["direction"], "request");
        assert_eq!(j["connection"], 3);
        assert_eq!(j["outcome"], "decoded");
        assert_eq!(j["apiName"], "Produce");
        assert_eq!(j["header"]["correlationId"], 7);
        let summary = &j["body"]["topicData"][0]["partitionData"][0]["records"];
        assert_eq!(
            *summary,
            serde_json::json!({"batches": 1, "records": 3, "sizeInBytes": records.0.len()})
        );
        // Every record when asked, as `kwire decode --json` writes them.
        let j = line(true);
        let full = &j["body"]["topicData"][0]["partitionData"][0]["records"];
        assert_eq!(
            full["batches"][0]["records"].as_array().map(Vec::len),
            Some(3)
        );
    }

    #[test]
    fn a_log_line_for_an_undecodable_frame_names_what_was_peeked() {
        let frame = produce_frame(lying_batch(2));
        let peek = frame::peek_request_header(&frame).unwrap();
        let l = json_line(
            1,
            Direction::Request,
            peek,
            9,
            &frame,
            &Outcome::Error("bad".into()),
            None,
            false,
        );
        let j: Json = serde_json::from_slice(&l).unwrap();
        assert_eq!(j["apiKey"], 0);
        assert_eq!(j["apiName"], "Produce");
        assert_eq!(j["correlationId"], 7);
        assert_eq!(j["error"], "bad");
        assert_eq!(j["size"], frame.len());
    }

    #[test]
    fn same_bytes_reads_only_what_is_not_shared() {
        let mut b = kafka_wire::records::BatchBuilder::new(0);
        b.append(1, None, Some(&[7u8; 3000]), &[]);
        let frame = produce_frame(Records(b.build().unwrap()));
        let req = kafka_wire_messages::RequestFrame::decode(&frame, &DecodeOptions::DEFAULT)
            .unwrap()
            .frame;
        let mut v = Vectored::new();
        req.encode_vectored(&mut v).unwrap();
        // The batch is referenced (it is long), and it is the frame's own bytes.
        assert_eq!(v.referenced_count(), 1);
        assert!(same_bytes(&v, &frame));
        assert_eq!(v.to_vec(), frame.to_vec());
        // A difference anywhere, in a copied byte or in a referenced value, is seen.
        let mut other = frame.to_vec();
        let last = other.len() - 1;
        other[last] ^= 1;
        assert!(!same_bytes(&v, &other));
        other[last] ^= 1;
        other[20] ^= 1;
        assert!(!same_bytes(&v, &other));
        assert!(!same_bytes(&v, &frame[..frame.len() - 1]));
    }
}
