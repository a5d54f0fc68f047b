//! Record batches in kwire: `dump` shows them as subtrees with byte offsets, `decode --json`
//! renders them readably, and `encode` takes that JSON back.
//!
//! Vectors: VEC_B is the hand-built batch of the runtime's records tests (Kafka's record
//! format: base offset 0, one record with a null key, value "hello" and header h=v); the two
//! three-record batches were written by kafka-python 3.0.12's `DefaultRecordBatchBuilder`,
//! uncompressed and gzip.

use std::process::{Command, Output};

use serde_json::Value as Json;

const VEC_B: &str = "000000000000000000000041ffffffff028292d2ce0000000000000000018bcfe568000000018bcfe56800ffffffffffffffffffffffffffff000000011e000000010a68656c6c6f0202680276";
const PY_NONE: &str = "00000000000000000000005b00000000023e5526070000000000020000018bcfe568000000018bcfe56809ffffffffffffffffffffffffffff0000000322000000046b310a68656c6c6f02026802761c000a020110ff0062696e6172790010001204046b330100";
const PY_GZIP: &str = "0000000000000000000000750000000002fefc51570001000000020000018bcfe568000000018bcfe56809ffffffffffffffffffffffffffff000000031f8b0800064c0e6b02ff0b62606060c936b4ca48cdc9c957c0413231653095b9317031315afd6748cacc4b2caa54c04631083008b1b0641b33320000614df97357000000";

fn kwire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(args)
        .output()
        .expect("run kwire")
}

fn ok(args: &[&str]) -> String {
    let o = kwire(args);
    assert!(
        o.status.success(),
        "kwire {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap().trim_end().to_owned()
}

fn b64(hex: &str) -> String {
    use base64::Engine as _;
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A Produce v3 request (the sample frame: one topic, one partition) whose records are the
/// concatenation of `batches` (hex).
fn produce_v3(batches: &[&str]) -> String {
    let sample = ok(&["example", "0", "3", "request"]);
    let mut j: Json = serde_json::from_str(&ok(&["decode", "--json", &sample])).unwrap();
    j["body"]["topicData"][0]["partitionData"][0]["records"] = Json::from(b64(&batches.concat()));
    ok(&["encode", &j.to_string()])
}

fn records_json(j: &Json) -> &Json {
    &j["body"]["topicData"][0]["partitionData"][0]["records"]
}

/// The row of `name` in a dump: its `[offset, size]` and value.
fn row<'a>(dump: &'a str, name: &str) -> &'a str {
    dump.lines()
        .find(|l| {
            l.trim_start_matches([' ', '|', '+', '-'])
                .starts_with(&format!("{name} "))
        })
        .unwrap_or_else(|| panic!("no row {name} in\n{dump}"))
}

#[test]
fn dump_shows_batch_and_record_offsets() {
    let frame = produce_v3(&[VEC_B]);
    let dump = ok(&["dump", &frame]);
    // The sample Produce v3 request puts the records' bytes at 0x28 (after the 4-byte
    // length at 0x24). The batch header's fields are at fixed offsets from the batch start
    // (base offset 0, length 8, epoch 12, magic 16, crc 17, attributes 21, last offset
    // delta 23, timestamps 27 and 35, producer id 43, epoch 51, base sequence 53, count 57),
    // and its first record at 61: 0x65, 16 bytes (length varint 0x1e = 15, then 15 bytes).
    let expect = [
        ("RecordBatch[0]", "[0x0028, 77B]", "1 record"),
        ("crc", "[0x0039, 4B]", "= 0x8292d2ce"),
        ("attributes", "[0x003d, 2B]", "= 0"),
        ("records_count", "[0x0061, 4B]", "= 1"),
        (
            "Record[0]",
            "[0x0065, 16B]",
            "offset 0, timestamp 1700000000000",
        ),
        // After the record's length byte: attributes, timestamp delta and offset delta (a
        // byte each), the key's length (-1: null), the value's length (5) and "hello".
        ("value", "[0x006a, 6B]", "\"hello\""),
        ("key", "[0x0069, 1B]", "null"),
        ("offset_delta", "[0x0068, 1B]", "= 0"),
        ("timestamp_delta", "[0x0067, 1B]", "= 0"),
        // Then the header count (1) and the header: key length, "h", value length, "v".
        ("header[0]", "[0x0071, 4B]", "\"h\" = \"v\""),
    ];
    for (name, span, value) in expect {
        let r = row(&dump, name);
        assert!(r.contains(span), "{name}: {r}");
        assert!(r.contains(value), "{name}: {r}");
    }
}

#[test]
fn json_round_trip_with_uncompressed_and_gzip_batches() {
    // Uncompressed: bytes -> JSON -> bytes is exact.
    let frame = produce_v3(&[PY_NONE, VEC_B]);
    let json = ok(&["decode", "--json", &frame]);
    assert_eq!(ok(&["encode", &json]), frame);
    let j: Json = serde_json::from_str(&json).unwrap();
    let batches = &records_json(&j)["batches"];
    let recs = &batches[0]["records"];
    assert_eq!(recs[0]["key"], "k1");
    assert_eq!(recs[0]["value"], "hello");
    assert_eq!(recs[0]["headers"][0]["key"], "h");
    assert_eq!(recs[1]["key"], Json::Null);
    assert_eq!(recs[1]["value"]["base64"], "/wBiaW5hcnk=");
    assert_eq!(recs[2]["value"], Json::Null);
    assert_eq!(recs[2]["offset"], 2);
    assert_eq!(batches[1]["records"][0]["value"], "hello");

    // gzip from kafka-python: decompressed and shown; re-encoding compresses again (other
    // bytes than Python's zlib, same records), and JSON -> bytes -> JSON keeps everything
    // but the CRC and length.
    let frame = produce_v3(&[PY_GZIP]);
    let json = ok(&["decode", "--json", &frame]);
    let j: Json = serde_json::from_str(&json).unwrap();
    let b = &records_json(&j)["batches"][0];
    assert_eq!(b["compression"], "gzip");
    assert_eq!(b["records"][0]["value"], "hello hello hello hello hello");
    assert_eq!(
        b["records"][1]["value"]["base64"],
        "/wBiaW5hcnkgYmluYXJ5IGJpbmFyeSBiaW5hcnk="
    );
    let again = ok(&["encode", &json]);
    let j2: Json = serde_json::from_str(&ok(&["decode", "--json", &again])).unwrap();
    let b2 = &records_json(&j2)["batches"][0];
    let strip = |b: &Json| {
        let mut b = b.clone();
        let o = b.as_object_mut().unwrap();
        o.remove("crc");
        o.remove("batchLength");
        b
    };
    assert_eq!(strip(b2), strip(b));
    assert_eq!(b2["crcValid"], true);
}

#[test]
fn a_corrupt_batch_is_shown_not_fatal() {
    // Flip a byte of the value: the CRC no longer matches.
    let bad = VEC_B.replace("68656c6c6f", "68656c6c6e");
    let frame = produce_v3(&[&bad]);
    let dump = ok(&["dump", &frame]);
    assert!(row(&dump, "crc").contains("error: CRC mismatch"), "{dump}");
    let json = ok(&["decode", "--json", &frame]);
    let j: Json = serde_json::from_str(&json).unwrap();
    let b = &records_json(&j)["batches"][0];
    assert_eq!(b["crcValid"], false);
    assert!(b["raw"].is_string());
    // Written back from `raw`, unchanged.
    assert_eq!(ok(&["encode", &json]), frame);

    // A batch cut short: reported as truncated, kept as raw bytes.
    let cut = &VEC_B[..VEC_B.len() - 20];
    let frame = produce_v3(&[PY_NONE, cut]);
    let json = ok(&["decode", "--json", &frame]);
    let j: Json = serde_json::from_str(&json).unwrap();
    assert_eq!(records_json(&j)["truncated"]["offset"], 103);
    assert_eq!(ok(&["encode", &json]), frame);
    assert!(ok(&["dump", &frame]).contains("truncated_batch"));
}

/// A batch whose records do not read (it claims 4 records and holds 3): `kwire decode`
/// still prints the whole document, with the batch's `recordsError`, and exits 1 with a
/// message; in batch mode (`-`) the line is the document and the exit code is 1.
#[test]
fn a_batch_that_does_not_read_fails_decode() {
    assert_eq!(PY_NONE.matches("ffff00000003").count(), 1);
    let short = PY_NONE.replace("ffff00000003", "ffff00000004");
    let frame = produce_v3(&[&short]);
    let o = kwire(&["decode", "--json", &frame]);
    assert!(!o.status.success());
    let j: Json = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        records_json(&j)["batches"][0]["recordsError"].is_object(),
        "{j}"
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("record batch"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Batch mode: one line per input line, the exit code 1 for the line that failed.
    let good = produce_v3(&[PY_NONE]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(["decode", "--json", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{good}\n{frame}").unwrap();
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    assert!(!o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<Json> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(records_json(&lines[0])["batches"][0]["recordsError"].is_null());
    assert!(records_json(&lines[1])["batches"][0]["recordsError"].is_object());
    // Only the good frame: success.
    assert!(kwire(&["decode", "--json", &good]).status.success());
}

fn unhex(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn the_proxy_json_log_shows_records_readably() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::process::Stdio;

    let frame_hex = produce_v3(&[PY_NONE]);
    let frame = unhex(&frame_hex);
    // The stand-in broker reads the one request and hangs up.
    let broker = TcpListener::bind("127.0.0.1:0").unwrap();
    let upstream = broker.local_addr().unwrap().to_string();
    let want = frame.clone();
    let broker_thread = std::thread::spawn(move || {
        let (mut s, _) = broker.accept().unwrap();
        let mut got = vec![0u8; want.len()];
        s.read_exact(&mut got).unwrap();
        assert_eq!(got, want);
    });
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let listen = format!("127.0.0.1:{port}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(["proxy", "--listen", &listen, "--upstream", &upstream])
        // Every record in the log (by default each record set is a summary).
        .args(["--log", "json", "--log-records", "--duration", "3"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kwire proxy");
    let mut line = String::new();
    BufReader::new(child.stderr.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("listening on"), "{line}");
    let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
    client.write_all(&frame).unwrap();
    broker_thread.join().unwrap();
    drop(client);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let line = stdout
        .lines()
        .find(|l| l.contains("\"direction\":\"request\""))
        .unwrap_or_else(|| panic!("no request line in {stdout}"));
    let mut logged: Json = serde_json::from_str(line).unwrap();

    // kafka-python's records, readable: keys and values as text, binary as base64.
    let recs = &records_json(&logged)["batches"][0]["records"];
    assert_eq!(recs[0]["key"], "k1", "{line}");
    assert_eq!(recs[0]["value"], "hello", "{line}");
    assert_eq!(recs[0]["headers"][0]["key"], "h", "{line}");
    assert_eq!(recs[1]["value"]["base64"], "/wBiaW5hcnk=", "{line}");
    assert_eq!(recs[2]["offset"], 2, "{line}");
    // The same document as `kwire decode --json`, the proxy's own fields aside.
    let o = logged.as_object_mut().unwrap();
    for k in ["direction", "connection", "timestampMs", "outcome"] {
        o.remove(k);
    }
    let decoded: Json = serde_json::from_str(&ok(&["decode", "--json", &frame_hex])).unwrap();
    assert_eq!(logged, decoded);
}
