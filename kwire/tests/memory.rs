//! Memory per line: `kwire dump` and `kwire decode --json` stream the tree instead of
//! building it, so the peak resident memory of the real binary on a line of several MB stays
//! within 20 times the line (over the same command's peak on a tiny frame).
//!
//! The inputs are the worst shapes the schemas allow: arrays of one-byte elements (empty
//! compact strings) and of two-byte structs (an empty array and a tagged-field count), where
//! the output per input byte, and the number of tree nodes, is largest; and a record batch
//! of 100,000 records of 7 or 8 bytes, each a subtree in `dump` and an object in the JSON. The peak is read by
//! GNU time (`/usr/bin/time`, installed by `.ci/run`).

use std::io::Write;
use std::process::{Command, Stdio};

use kafka_wire::dynamic::{self, StructValue, Value};
use kafka_wire::ApiKind;
use kafka_wire::Str;
use kafka_wire_messages::ApiKey;

/// The bound the issue sets: memory held per line, over a tiny line's, at most this many
/// times the line's length.
const RATIO: u64 = 20;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Runs kwire under GNU time with `stdin`, output discarded; the peak RSS in bytes.
fn peak_rss(args: &[&str], stdin: &str) -> u64 {
    let dir = std::env::temp_dir().join(format!("kwire-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join(format!("{}.time", args.join("_").replace(['-', ' '], "")));
    let mut child = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&report)
        .arg(env!("CARGO_BIN_EXE_kwire"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run /usr/bin/time (GNU time; .ci/run installs it)");
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_owned();
    let writer = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "kwire {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kb: u64 = std::fs::read_to_string(&report)
        .unwrap()
        .trim()
        .lines()
        .last()
        .unwrap()
        .parse()
        .unwrap();
    kb * 1024
}

/// DescribeGroups v5 request whose `Groups` holds `n` empty strings: one byte each.
fn empty_strings(n: usize) -> Vec<u8> {
    let api = ApiKey::from_i16(15).unwrap();
    let mut f = dynamic::sample_frame(ApiKind::Request, 15, api.request_meta(), 5);
    *f.body.get_mut("Groups").unwrap() = Value::Array(vec![Value::String(Str::new()); n]);
    dynamic::encode_frame(&f).unwrap()
}

/// CreatePartitions v3 request whose one topic has `n` assignments with no broker id: two
/// bytes each (an empty compact array and an empty tagged section), two tree nodes with
/// children each.
fn empty_structs(n: usize) -> Vec<u8> {
    let api = ApiKey::from_i16(37).unwrap();
    let mut f = dynamic::sample_frame(ApiKind::Request, 37, api.request_meta(), 3);
    let Some(Value::Array(topics)) = f.body.get_mut("Topics") else {
        panic!("no Topics")
    };
    let Some(Value::Struct(topic)) = topics.first_mut() else {
        panic!("no topic")
    };
    let Some(Value::Array(assignments)) = topic.get_mut("Assignments") else {
        panic!("no Assignments")
    };
    let Some(Value::Struct(one)) = assignments.first() else {
        panic!("no assignment")
    };
    let mut one: StructValue = one.clone();
    *one.get_mut("BrokerIds").unwrap() = Value::Array(Vec::new());
    *assignments = vec![Value::Struct(one); n];
    dynamic::encode_frame(&f).unwrap()
}

/// Produce v3 request with one uncompressed batch of `n` records with a null key and an
/// empty value (7 or 8 bytes each): every record is a subtree in `dump` and an object in
/// the JSON.
fn tiny_records(n: usize) -> Vec<u8> {
    let mut b = kafka_wire::records::BatchBuilder::new(0);
    for _ in 0..n {
        b.append(1_700_000_000_000, None, Some(b""), &[]);
    }
    let batch = b.build().unwrap();
    let api = ApiKey::from_i16(0).unwrap();
    let mut f = dynamic::sample_frame(ApiKind::Request, 0, api.request_meta(), 3);
    let Some(Value::Array(topics)) = f.body.get_mut("TopicData") else {
        panic!("no TopicData")
    };
    let Some(Value::Struct(topic)) = topics.first_mut() else {
        panic!("no topic")
    };
    let Some(Value::Array(parts)) = topic.get_mut("PartitionData") else {
        panic!("no PartitionData")
    };
    let Some(Value::Struct(part)) = parts.first_mut() else {
        panic!("no partition")
    };
    *part.get_mut("Records").unwrap() = Value::Records(batch);
    dynamic::encode_frame(&f).unwrap()
}

#[test]
fn dump_and_decode_hold_at_most_20_times_the_line() {
    let small = hex(&empty_strings(1));
    let cases = [
        ("empty strings", hex(&empty_strings(1_000_000))),
        ("empty structs", hex(&empty_structs(500_000))),
        ("tiny records", hex(&tiny_records(100_000))),
    ];
    for (what, line) in &cases {
        let line = format!("{line}\n");
        for args in [&["dump", "-"][..], &["decode", "--json", "-"][..]] {
            let base = peak_rss(args, &format!("{small}\n"));
            let peak = peak_rss(args, &line);
            let held = peak.saturating_sub(base);
            let ratio = held as f64 / line.len() as f64;
            println!(
                "kwire {args:?}, {what}: line {} B, peak {} KiB, baseline {} KiB, ratio {ratio:.2}",
                line.len(),
                peak / 1024,
                base / 1024
            );
            assert!(
                held <= RATIO * line.len() as u64,
                "kwire {args:?} on {what}: {held} B held for a {} B line ({ratio:.1}x)",
                line.len()
            );
        }
    }
}
