//! Record batches written by librdkafka (2.12, through the `rdkafka` crate) with each
//! `compression.type`: a minimal broker in this test (ApiVersions, Metadata v0, Produce
//! v3-v7, hand-encoded so nothing of ours shapes what librdkafka sends) captures the Produce
//! requests, and every batch in them must read, with kafka-wire, to exactly the keys, values,
//! headers and timestamps the producer was given.
//!
//! librdkafka writes its own framings: snappy as one raw block (not snappy-java's xerial
//! stream), lz4 as a real LZ4F frame, zstd with the content size in the frame header.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use kafka_wire::records::{Batches, Compression, ReadOptions};
use rdkafka::config::ClientConfig;
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

const TOPIC: &str = "records-test";

/// The `records` of every Produce request received, in order.
type Captured = Arc<Mutex<Vec<Vec<u8>>>>;

struct Buf(Vec<u8>);

impl Buf {
    fn i16(&mut self, v: i16) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn i64(&mut self, v: i64) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn str(&mut self, s: &str) -> &mut Self {
        self.i16(s.len() as i16);
        self.0.extend_from_slice(s.as_bytes());
        self
    }
}

struct Cur<'a>(&'a [u8]);

impl Cur<'_> {
    fn take(&mut self, n: usize) -> &[u8] {
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        a
    }
    fn i16(&mut self) -> i16 {
        i16::from_be_bytes(self.take(2).try_into().unwrap())
    }
    fn i32(&mut self) -> i32 {
        i32::from_be_bytes(self.take(4).try_into().unwrap())
    }
    fn string(&mut self) -> String {
        let n = self.i16();
        if n < 0 {
            return String::new();
        }
        String::from_utf8(self.take(n as usize).to_vec()).unwrap()
    }
}

fn serve(mut s: TcpStream, port: u16, captured: Captured) {
    loop {
        let mut len = [0u8; 4];
        if s.read_exact(&mut len).is_err() {
            return;
        }
        let mut req = vec![0u8; i32::from_be_bytes(len) as usize];
        if s.read_exact(&mut req).is_err() {
            return;
        }
        let mut c = Cur(&req);
        let (key, version, correlation) = (c.i16(), c.i16(), c.i32());
        let _client_id = c.string();
        let mut body = Buf(Vec::new());
        match key {
            18 => {
                // Answered in the v0 layout whatever the version asked: UNSUPPORTED_VERSION
                // (35) above v0, which makes librdkafka retry with v0, as brokers do.
                body.i16(if version > 0 { 35 } else { 0 });
                // Fetch and FindCoordinator are never called: librdkafka only reads their
                // presence as broker features (message format v2 and zstd need Produce 3/7
                // with Fetch 4/10; lz4 needs FindCoordinator).
                let apis: [(i16, i16, i16); 5] =
                    [(18, 0, 0), (3, 0, 0), (0, 3, 7), (1, 4, 10), (10, 0, 0)];
                body.i32(apis.len() as i32);
                for (k, lo, hi) in apis {
                    body.i16(k).i16(lo).i16(hi);
                }
            }
            3 => {
                // Metadata v0: this broker (id 1) leads partition 0 of the topic.
                body.i32(1).i32(1).str("127.0.0.1").i32(i32::from(port));
                body.i32(1).i16(0).str(TOPIC).i32(1);
                body.i16(0).i32(0).i32(1).i32(1).i32(1).i32(1).i32(1);
            }
            0 => {
                // Produce v3-v7: transactional id, acks, timeout, then the topics.
                let _txn = c.string();
                let acks = c.i16();
                let _timeout = c.i32();
                let mut parts = Vec::new();
                for _ in 0..c.i32() {
                    let name = c.string();
                    for _ in 0..c.i32() {
                        let index = c.i32();
                        let n = c.i32();
                        captured.lock().unwrap().push(c.take(n as usize).to_vec());
                        parts.push((name.clone(), index));
                    }
                }
                if acks == 0 {
                    continue;
                }
                body.i32(parts.len() as i32);
                for (name, index) in parts {
                    body.str(&name).i32(1).i32(index).i16(0).i64(0).i64(-1);
                    if version >= 5 {
                        body.i64(0);
                    }
                }
                body.i32(0);
            }
            _ => panic!("unexpected request: api key {key} v{version}"),
        }
        let mut frame = Buf(Vec::new());
        frame.i32(body.0.len() as i32 + 4).i32(correlation);
        frame.0.extend_from_slice(&body.0);
        if s.write_all(&frame.0).is_err() {
            return;
        }
    }
}

/// Starts the broker; returns its address and the captured records.
fn broker() -> (String, Captured) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let captured: Captured = Arc::default();
    let c = captured.clone();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(s) = s else { return };
            let c = c.clone();
            std::thread::spawn(move || serve(s, port, c));
        }
    });
    (format!("127.0.0.1:{port}"), captured)
}

#[derive(Debug, Clone, PartialEq)]
struct Msg {
    timestamp: i64,
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    headers: Vec<(String, Option<Vec<u8>>)>,
}

fn messages(n: usize) -> Vec<Msg> {
    (0..n)
        .map(|i| Msg {
            timestamp: 1_700_000_000_000 + i as i64,
            key: (i % 4 != 0).then(|| format!("key-{i}").into_bytes()),
            value: (i % 7 != 3).then(|| format!("value {i} ").repeat(i % 50).into_bytes()),
            headers: (0..i % 3)
                .map(|h| (format!("h{h}"), (h != 1).then(|| vec![b'x'; h + i % 5])))
                .collect(),
        })
        .collect()
}

fn produce_and_capture(codec: &str, msgs: &[Msg]) -> Vec<Vec<u8>> {
    let (bootstrap, captured) = broker();
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", &bootstrap)
        .set("compression.type", codec)
        .set("linger.ms", "50")
        .set("enable.idempotence", "false")
        .set("message.timeout.ms", "20000")
        .create()
        .expect("producer");
    for m in msgs {
        let mut headers = OwnedHeaders::new();
        for (k, v) in &m.headers {
            headers = headers.insert(Header {
                key: k,
                value: v.as_deref(),
            });
        }
        let mut rec: BaseRecord<'_, [u8], [u8]> = BaseRecord::to(TOPIC)
            .partition(0)
            .timestamp(m.timestamp)
            .headers(headers);
        if let Some(k) = &m.key {
            rec = rec.key(&k[..]);
        }
        if let Some(v) = &m.value {
            rec = rec.payload(&v[..]);
        }
        producer.send(rec).map_err(|(e, _)| e).expect("enqueue");
        producer.poll(Duration::ZERO);
    }
    producer.flush(Duration::from_secs(30)).expect("flush");
    let out = captured.lock().unwrap().clone();
    out
}

fn check_codec(codec: &str, want: Compression) {
    let msgs = messages(300);
    let sets = produce_and_capture(codec, &msgs);
    assert!(!sets.is_empty(), "{codec}: no Produce request captured");
    let mut got = Vec::new();
    let mut batches = 0;
    let mut compressed = 0;
    for set in sets {
        let mut it = Batches::new(Bytes::from(set), ReadOptions::default());
        for batch in &mut it {
            let batch = batch.unwrap_or_else(|e| panic!("{codec}: {e}"));
            batches += 1;
            let h = *batch.header();
            assert_eq!(h.magic, 2);
            // librdkafka sends a batch uncompressed when compressing does not shrink it.
            let c = h.compression().unwrap();
            assert!(c == want || c == Compression::None, "{codec}: {c}");
            compressed += usize::from(c == want);
            let recs = batch.records().unwrap_or_else(|e| panic!("{codec}: {e}"));
            assert_eq!(recs.is_decompressed(), c != Compression::None);
            for r in &recs {
                let r = r.unwrap_or_else(|e| panic!("{codec}: {e}"));
                got.push(Msg {
                    timestamp: r.timestamp,
                    key: r.key.map(<[u8]>::to_vec),
                    value: r.value.map(<[u8]>::to_vec),
                    headers: r
                        .headers
                        .iter()
                        .map(|h| {
                            (
                                String::from_utf8(h.key.to_vec()).unwrap(),
                                h.value.map(<[u8]>::to_vec),
                            )
                        })
                        .collect(),
                });
            }
        }
        assert_eq!(it.truncated(), None);
    }
    assert!(batches >= 1);
    assert!(compressed >= 1, "{codec}: no batch used the codec");
    assert_eq!(got.len(), msgs.len(), "{codec}: record count");
    for (i, (g, m)) in got.iter().zip(&msgs).enumerate() {
        assert_eq!(g, m, "{codec}: message {i}");
    }
}

#[test]
fn librdkafka_uncompressed() {
    check_codec("none", Compression::None);
}

#[test]
fn librdkafka_gzip() {
    check_codec("gzip", Compression::Gzip);
}

#[test]
fn librdkafka_snappy() {
    check_codec("snappy", Compression::Snappy);
}

#[test]
fn librdkafka_lz4() {
    check_codec("lz4", Compression::Lz4);
}

#[test]
fn librdkafka_zstd() {
    check_codec("zstd", Compression::Zstd);
}
