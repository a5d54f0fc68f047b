//! Record batches against kafka-python 3.0.12's record builders and readers (its own
//! pure-Python implementation of Kafka's formats, with python-snappy, lz4, zstandard):
//!
//! * batches kafka-python builds, for magic 0, 1 and 2 and every codec it has (zstd only in
//!   magic 2), read by us to the records kafka-python reads; its uncompressed magic-2
//!   batches re-encoded by us byte for byte;
//! * batches we build, uncompressed and with each codec, read by kafka-python to the records
//!   we wrote.
//!
//! Needs the virtual environment made by `interop/setup.sh`.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use bytes::Bytes;
use kafka_wire::records::{BatchBuilder, Batches, Compression, NewHeader, ReadOptions};
use serde_json::{json, Value};

fn python() -> Option<(PathBuf, PathBuf)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let venv = std::env::var_os("KAFKA_WIRE_INTEROP_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/interop-venv"));
    let python = venv.join("bin/python");
    if !python.exists() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!(
                "{} is missing: CI must run interop/setup.sh",
                python.display()
            );
        }
        eprintln!(
            "note: {} missing, skipping kafka-python record interop (run interop/setup.sh)",
            python.display()
        );
        return None;
    }
    Some((python, root.join("interop/py/records_peer.py")))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn opt_hex(b: Option<&[u8]>) -> Value {
    b.map_or(Value::Null, |b| Value::String(hex(b)))
}

/// Our reading of a record set, in the peer's JSON shape.
fn our_records(data: &[u8]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut batches = Batches::new(Bytes::copy_from_slice(data), ReadOptions::default());
    for batch in &mut batches {
        let batch = batch.unwrap();
        let recs = batch.records().unwrap();
        for r in &recs {
            let r = r.unwrap();
            let headers: Vec<Value> = r
                .headers
                .iter()
                .map(|h| json!([std::str::from_utf8(h.key).unwrap(), opt_hex(h.value)]))
                .collect();
            out.push(json!({
                "offset": r.offset, "timestamp": r.timestamp,
                "key": opt_hex(r.key), "value": opt_hex(r.value), "headers": headers,
            }));
        }
    }
    assert_eq!(batches.truncated(), None);
    out
}

#[cfg_attr(
    kw_no_kafka_python,
    ignore = "kafka-python venv missing (run interop/setup.sh)"
)]
#[test]
fn we_read_what_kafka_python_builds() {
    let Some((python, script)) = python() else {
        return;
    };
    let out = Command::new(python)
        .arg(script)
        .arg("generate")
        .output()
        .expect("run kafka-python peer");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut seen = std::collections::BTreeSet::new();
    let mut reencoded = 0;
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let data = unhex(v["hex"].as_str().unwrap());
        let (magic, codec) = (v["magic"].as_i64().unwrap(), v["codec"].as_str().unwrap());
        let want = v["records"].as_array().unwrap();
        assert!(!want.is_empty());
        assert_eq!(&our_records(&data), want, "magic {magic} codec {codec}");
        seen.insert((magic, codec.to_string()));

        let batch = Batches::new(Bytes::from(data.clone()), ReadOptions::default())
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(i64::from(batch.header().magic), magic);
        assert_eq!(batch.header().compression().unwrap().name(), codec);
        if let Some(p) = v.get("producer") {
            let h = batch.header();
            assert_eq!(
                json!([h.producer_id, h.producer_epoch, h.base_sequence]),
                *p
            );
            assert!(h.is_transactional());
        }
        if magic == 2 && codec == "none" {
            let recs = batch.records().unwrap();
            let mut w = BatchBuilder::from_header(batch.header());
            for r in &recs {
                let r = r.unwrap();
                let hs: Vec<_> = r
                    .headers
                    .iter()
                    .map(|h| NewHeader {
                        key: h.key,
                        value: h.value,
                    })
                    .collect();
                w.append_raw(
                    r.attributes,
                    r.timestamp_delta,
                    r.offset_delta,
                    r.key,
                    r.value,
                    &hs,
                );
            }
            assert_eq!(w.build().unwrap().as_ref(), &data[..]);
            reencoded += 1;
        }
    }
    // Magic 0 and 1 with four codecs each, magic 2 with five.
    assert_eq!(seen.len(), 13, "{seen:?}");
    assert!(reencoded >= 4);
}

#[cfg_attr(
    kw_no_kafka_python,
    ignore = "kafka-python venv missing (run interop/setup.sh)"
)]
#[test]
fn kafka_python_reads_what_we_build() {
    let Some((python, script)) = python() else {
        return;
    };
    let mut batches = Vec::new();
    for codec in Compression::ALL {
        for n in [1usize, 10, 200] {
            let mut b = BatchBuilder::new(1000);
            b.compression(codec);
            if n == 10 {
                b.producer(77, 2, 5).transactional(true);
            }
            for i in 0..n {
                let value = "record value ".repeat(i % 40).into_bytes();
                let key = format!("key-{i}");
                let hs = [
                    NewHeader::new("trace", Some(b"abc")),
                    NewHeader::new("empty", None),
                ];
                b.append(
                    1_700_000_000_000 + (i as i64 * 7) % 50,
                    (i % 3 != 0).then_some(key.as_bytes()),
                    (i % 5 != 0).then_some(&value[..]),
                    &hs[..i % 3],
                );
            }
            let bytes = b.build().unwrap();
            batches.push((codec, our_records(&bytes), bytes));
        }
    }
    let mut child = Command::new(python)
        .arg(script)
        .arg("decode")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("run kafka-python peer");
    {
        let mut stdin = child.stdin.take().unwrap();
        for (_, _, bytes) in &batches {
            writeln!(stdin, "{}", hex(bytes)).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let answers: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), batches.len());
    for ((codec, ours, _), theirs) in batches.iter().zip(&answers) {
        assert!(theirs.get("error").is_none(), "{codec}: {theirs}");
        assert_eq!(theirs["records"].as_array().unwrap(), ours, "{codec}");
    }
}
