//! What `kwire proxy` costs against a plain relay, in one run: the same Produce/Fetch
//! workload through a tokio copy loop with 1 MiB buffers and through the proxy in each mode
//! (default, `--verify`, `--reencode`, `--log json`), each middle in a process of its own whose
//! CPU time (user and system, every thread's, `CLOCK_PROCESS_CPUTIME_ID`) is divided by the
//! megabytes it forwarded in both directions.
//!
//! ```sh
//! cargo build --release -p kafka-wire-bench --example proxy_cost
//! target/release/examples/proxy_cost [REPETITIONS [ROUND_TRIPS [PATHS]]]
//! ```
//!
//! The client sends a Produce request of one batch of 1,000 records of 1 KB (uncompressed,
//! then lz4) and a Fetch request, which a fake broker answers with that batch: about 2 MB
//! forwarded per round trip. Paths are run in rotated order, `REPETITIONS` times (default 3);
//! the table gives each path's median CPU per MB at full speed (one request in flight, the
//! next sent when its answer is in), its ratio to the relay's, its throughput, and then the
//! latency of each request when the same round trips are paced (one every 10 ms), which is
//! what a proxy adds to an application that is not saturating it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::Instant;

use kafka_wire::frame::DecodeOptions;
use kafka_wire::records::{BatchBuilder, Compression};
use kafka_wire::{Bytes, Records};
use kafka_wire_messages::fetch::{
    FetchPartition, FetchRequest, FetchResponse, FetchTopic, FetchableTopicResponse, PartitionData,
};
use kafka_wire_messages::produce::{
    PartitionProduceData, PartitionProduceResponse, ProduceRequest, ProduceResponse,
    TopicProduceData, TopicProduceResponse,
};
use kafka_wire_messages::{RequestBody, RequestFrame};

const PATHS: [&str; 5] = ["relay", "default", "verify", "reencode", "log-json"];
const PRODUCE_V: i16 = 9;
const FETCH_V: i16 = 12;
/// The paced phase: this many round trips, one every `PACE`.
const PACED_TRIPS: usize = 100;
const PACE: std::time::Duration = std::time::Duration::from_millis(10);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--middle") {
        return middle(&args[1], &args[2]);
    }
    let reps: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(3);
    let trips: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(500);
    // A third argument names the paths to run besides the relay (`default,verify`), for a
    // profile of one of them.
    let only: Option<Vec<String>> = args
        .get(2)
        .map(|a| a.split(',').map(str::to_owned).collect());
    let wanted = |p: &str| p == "relay" || only.as_ref().is_none_or(|o| o.iter().any(|x| x == p));
    for codec in [Compression::None, Compression::Lz4] {
        let batch = one_batch(codec);
        let broker = fake_broker(batch.clone());
        let mut results: Vec<Vec<Run>> = vec![Vec::new(); PATHS.len()];
        for rep in 0..reps {
            for k in 0..PATHS.len() {
                let i = (k + rep) % PATHS.len();
                if wanted(PATHS[i]) {
                    results[i].push(run_path(PATHS[i], broker, &batch, trips));
                }
            }
        }
        let median = |v: &[Run], f: fn(&Run) -> f64| {
            let mut x: Vec<f64> = v.iter().map(f).collect();
            x.sort_by(f64::total_cmp);
            x[x.len() / 2]
        };
        let relay_cpu = median(&results[0], |r| r.cpu);
        let relay_tput = median(&results[0], |r| r.tput);
        println!(
            "{codec:?} batches of {} bytes, {trips} round trips x {reps} repetitions, then {PACED_TRIPS} paced ({} ms apart):",
            batch.len(),
            PACE.as_millis()
        );
        println!(
            "| path | CPU ms/MB | vs relay | throughput MB/s | vs relay | paced p50 ms | p99 ms |"
        );
        println!("| --- | --- | --- | --- | --- | --- | --- |");
        for (i, path) in PATHS.iter().enumerate() {
            if results[i].is_empty() {
                continue;
            }
            let cpu = median(&results[i], |r| r.cpu);
            let tput = median(&results[i], |r| r.tput);
            println!(
                "| {path} | {cpu:.3} | {:.2}x | {tput:.0} | {:.2} | {:.3} | {:.3} |",
                cpu / relay_cpu,
                tput / relay_tput,
                median(&results[i], |r| r.p50),
                median(&results[i], |r| r.p99),
            );
        }
    }
}

/// One batch of 1,000 records of 1 KB (16-byte keys, values with some repetition, as the
/// records benchmarks use).
fn one_batch(codec: Compression) -> Bytes {
    let mut b = BatchBuilder::new(0);
    b.compression(codec);
    let mut seed = 0x9e37_79b9_u64;
    for i in 0..1000u64 {
        let key = format!("key-{i:012}");
        let value: Vec<u8> = (0..1000)
            .map(|j| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                if j % 4 == 0 {
                    (seed >> 56) as u8
                } else {
                    b'a' + (j % 26) as u8
                }
            })
            .collect();
        b.append(
            1_700_000_000_000 + i as i64,
            Some(key.as_bytes()),
            Some(&value),
            &[],
        );
    }
    b.build().expect("batch")
}

fn read_frame(s: &mut impl Read) -> Option<Bytes> {
    let mut len = [0u8; 4];
    s.read_exact(&mut len).ok()?;
    let mut f = vec![0u8; 4 + u32::from_be_bytes(len) as usize];
    f[..4].copy_from_slice(&len);
    s.read_exact(&mut f[4..]).ok()?;
    Some(Bytes::from(f))
}

/// A broker that answers Produce with success and Fetch with `batch`, one thread per
/// connection.
fn fake_broker(batch: Bytes) -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().unwrap();
    std::thread::spawn(move || {
        for conn in l.incoming() {
            let Ok(mut s) = conn else { continue };
            let batch = batch.clone();
            std::thread::spawn(move || {
                let _ = s.set_nodelay(true);
                while let Some(f) = read_frame(&mut s) {
                    let req = RequestFrame::decode(&f, &DecodeOptions::DEFAULT)
                        .expect("a request the client sent")
                        .frame;
                    let resp = match &req.body {
                        RequestBody::Produce(p) => req.respond(ProduceResponse {
                            responses: p
                                .topic_data
                                .iter()
                                .map(|t| TopicProduceResponse {
                                    name: t.name.clone(),
                                    partition_responses: vec![PartitionProduceResponse {
                                        index: 0,
                                        ..Default::default()
                                    }],
                                    ..Default::default()
                                })
                                .collect(),
                            ..Default::default()
                        }),
                        _ => req.respond(FetchResponse {
                            responses: vec![FetchableTopicResponse {
                                topic: "bench".into(),
                                partitions: vec![PartitionData {
                                    high_watermark: 1000,
                                    last_stable_offset: 1000,
                                    records: Some(Records(batch.clone())),
                                    ..Default::default()
                                }],
                                ..Default::default()
                            }],
                            ..Default::default()
                        }),
                    };
                    if s.write_all(&resp.to_vec().expect("encodes")).is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}

/// Runs the workload through one path: at full speed for the CPU time and throughput, then
/// paced for the latency.
fn run_path(path: &str, broker: SocketAddr, batch: &Bytes, trips: usize) -> Run {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--middle", path, &broker.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the middle");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let addr: SocketAddr = line.trim().parse().expect("the middle's address");
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_nodelay(true).unwrap();
    let produce = |corr: i32| {
        RequestFrame::new(
            corr,
            Some("bench".into()),
            PRODUCE_V,
            ProduceRequest {
                acks: 1,
                timeout_ms: 30_000,
                topic_data: vec![TopicProduceData {
                    name: "bench".into(),
                    partition_data: vec![PartitionProduceData {
                        index: 0,
                        records: Some(Records(batch.clone())),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            },
        )
        .to_vec()
        .unwrap()
    };
    let fetch = |corr: i32| {
        RequestFrame::new(
            corr,
            Some("bench".into()),
            FETCH_V,
            FetchRequest {
                max_bytes: 64 << 20,
                topics: vec![FetchTopic {
                    topic: "bench".into(),
                    partitions: vec![FetchPartition {
                        partition_max_bytes: 64 << 20,
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            },
        )
        .to_vec()
        .unwrap()
    };
    let started = Instant::now();
    let mut bytes = 0usize;
    for i in 0..trips as i32 {
        for req in [produce(2 * i), fetch(2 * i + 1)] {
            s.write_all(&req).unwrap();
            let resp = read_frame(&mut s).expect("an answer through the middle");
            bytes += req.len() + resp.len();
        }
    }
    let secs = started.elapsed().as_secs_f64();
    // The CPU time so far: the middle prints it for each line it reads.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"\n").unwrap();
    line.clear();
    out.read_line(&mut line).unwrap();
    let cpu_ns: f64 = line.trim().parse().expect("the middle's CPU time");
    // Paced: the same round trips, one every PACE, each request's time to its answer.
    let mut times = Vec::with_capacity(2 * PACED_TRIPS);
    let mut next = Instant::now();
    for i in 0..PACED_TRIPS as i32 {
        next += PACE;
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
        for req in [produce(2 * i), fetch(2 * i + 1)] {
            let t = Instant::now();
            s.write_all(&req).unwrap();
            read_frame(&mut s).expect("an answer through the middle");
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    times.sort_by(f64::total_cmp);
    drop(s);
    drop(stdin);
    let _ = child.wait();
    let mb = bytes as f64 / 1e6;
    Run {
        cpu: cpu_ns / 1e6 / mb,
        tput: mb / secs,
        p50: times[times.len() / 2],
        p99: times[times.len() * 99 / 100],
    }
}

/// One path's figures from one run.
#[derive(Clone, Copy)]
struct Run {
    /// CPU milliseconds of the middle per MB forwarded (both directions), at full speed.
    cpu: f64,
    /// MB forwarded per second at full speed, one request in flight.
    tput: f64,
    /// Median and 99th percentile of a request's time to its answer, paced (ms).
    p50: f64,
    p99: f64,
}

/// The middle process: prints its address, forwards until stdin closes, printing its CPU time
/// for each line it reads.
fn middle(path: &str, upstream: &str) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let upstream = upstream.to_owned();
    rt.block_on(async move {
        let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let proxy = if path == "relay" {
            let l = tokio::net::TcpListener::bind(addr).await.unwrap();
            println!("{}", l.local_addr().unwrap());
            tokio::spawn(async move {
                while let Ok((c, _)) = l.accept().await {
                    let upstream = upstream.clone();
                    tokio::spawn(async move { relay(c, &upstream).await });
                }
            });
            None
        } else {
            use kwire::proxy::{Config, LogFormat, Proxy};
            let mut cfg = Config::new(addr, upstream);
            cfg.verify = path == "verify" || path == "reencode";
            cfg.reencode = path == "reencode";
            if path == "log-json" {
                cfg.log = LogFormat::Json;
            }
            let sink = std::fs::File::create("/dev/null").unwrap();
            let p = Proxy::start(cfg, Box::new(sink)).await.unwrap();
            println!("{}", p.local_addr());
            Some(p)
        };
        std::io::stdout().flush().unwrap();
        // The CPU time so far for each line read, until the parent closes stdin.
        tokio::task::spawn_blocking(|| {
            for _ in std::io::stdin().lines() {
                println!("{}", cpu_ns());
            }
        })
        .await
        .unwrap();
        if let Some(p) = proxy {
            let _ = p.stop();
        }
    });
}

/// The plain relay: bytes copied both ways with 1 MiB buffers.
async fn relay(client: tokio::net::TcpStream, upstream: &str) {
    use tokio::io::{copy_buf, BufReader as TokioBufReader};
    let server = tokio::net::TcpStream::connect(upstream).await.unwrap();
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (cr, mut cw) = client.into_split();
    let (sr, mut sw) = server.into_split();
    let mut cr = TokioBufReader::with_capacity(1 << 20, cr);
    let mut sr = TokioBufReader::with_capacity(1 << 20, sr);
    let _ = tokio::join!(copy_buf(&mut cr, &mut sw), copy_buf(&mut sr, &mut cw));
}

/// The CPU time of this process so far (user and system, every thread, those that ended
/// too), in nanoseconds (`CLOCK_PROCESS_CPUTIME_ID`).
fn cpu_ns() -> u64 {
    cpu_time::ProcessTime::now().as_duration().as_nanos() as u64
}
