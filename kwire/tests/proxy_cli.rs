//! `kwire proxy` as a process: a client and a stand-in broker on loopback, frames laid out by
//! hand from Kafka's protocol guide, the per-frame JSON lines and the summary table checked.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::Duration;

/// ApiVersions v0 request: size 11, key 18, version 0, correlation id 1, client id "a".
const API_VERSIONS_REQ: &[u8] = b"\x00\x00\x00\x0b\x00\x12\x00\x00\x00\x00\x00\x01\x00\x01a";
/// Its v0 answer: correlation id 1, error 0, one entry (18, 0..3).
const API_VERSIONS_RESP: &[u8] =
    b"\x00\x00\x00\x10\x00\x00\x00\x01\x00\x00\x00\x00\x00\x01\x00\x12\x00\x00\x00\x03";
/// A request of an API key Kafka has not assigned (9999), correlation id 2: passed through.
const UNKNOWN_REQ: &[u8] = b"\x00\x00\x00\x0b\x27\x0f\x00\x00\x00\x00\x00\x02\xff\xff\x2a";
/// Its answer: correlation id 2 and one byte.
const UNKNOWN_RESP: &[u8] = b"\x00\x00\x00\x05\x00\x00\x00\x02\x07";

fn read_frame(s: &mut TcpStream) -> Vec<u8> {
    let mut len = [0u8; 4];
    s.read_exact(&mut len).expect("frame size");
    let mut rest = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut rest).expect("frame");
    [len.to_vec(), rest].concat()
}

#[test]
fn proxy_forwards_logs_and_summarises() {
    // The stand-in broker: answers the two requests above with the two answers, in order.
    let broker = TcpListener::bind("127.0.0.1:0").unwrap();
    let upstream = broker.local_addr().unwrap();
    let broker_thread = std::thread::spawn(move || {
        let (mut s, _) = broker.accept().unwrap();
        assert_eq!(read_frame(&mut s), API_VERSIONS_REQ);
        s.write_all(API_VERSIONS_RESP).unwrap();
        assert_eq!(read_frame(&mut s), UNKNOWN_REQ);
        s.write_all(UNKNOWN_RESP).unwrap();
    });

    // A free port for the proxy (bound and released; loopback ports are not reused at once).
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args([
            "proxy",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--upstream",
            &upstream.to_string(),
            "--reencode",
            "--log",
            "json",
            "--duration",
            "3",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kwire proxy");
    // Wait for "listening on" on stderr.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert!(line.contains("listening on"), "{line}");

    let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
    client
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    client.write_all(API_VERSIONS_REQ).unwrap();
    assert_eq!(read_frame(&mut client), API_VERSIONS_RESP);
    client.write_all(UNKNOWN_REQ).unwrap();
    assert_eq!(read_frame(&mut client), UNKNOWN_RESP);
    drop(client);
    broker_thread.join().unwrap();

    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    println!("{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    // Four JSON lines, in the order the frames crossed.
    let docs: Vec<serde_json::Value> = lines
        .iter()
        .take(4)
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(docs[0]["direction"], "request");
    assert_eq!(docs[0]["connection"], 1);
    assert_eq!(docs[0]["apiKey"], 18);
    assert_eq!(docs[0]["header"]["correlationId"], 1);
    assert_eq!(docs[0]["header"]["clientId"], "a");
    assert_eq!(docs[0]["outcome"], "byte-exact");
    assert_eq!(docs[1]["direction"], "response");
    assert_eq!(docs[1]["body"]["apiKeys"][0]["maxVersion"], 3);
    assert_eq!(docs[2]["apiKey"], 9999);
    assert_eq!(docs[2]["outcome"], "opaque");
    assert_eq!(docs[3]["correlationId"], 2);
    assert!(docs.iter().all(|d| d["timestampMs"].is_u64()));
    // The table: a header, ApiVersions both ways byte-exact, the unknown key passed through.
    let table: Vec<Vec<&str>> = lines[4..]
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        table[0],
        [
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
            "RECORDS"
        ]
    );
    let z = "0";
    assert_eq!(
        table[1],
        [
            "ApiVersions",
            "18",
            z,
            "request",
            "1",
            "1",
            "1",
            z,
            z,
            z,
            z,
            z
        ]
    );
    assert_eq!(
        table[2],
        [
            "ApiVersions",
            "18",
            z,
            "response",
            "1",
            "1",
            "1",
            z,
            z,
            z,
            z,
            z
        ]
    );
    assert_eq!(
        table[3],
        ["?", "9999", z, "request", "1", z, z, z, "1", z, z, z]
    );
    assert_eq!(
        table[4],
        ["?", "9999", z, "response", "1", z, z, z, "1", z, z, z]
    );
    assert_eq!(table[5], ["total", "4", "2", "2", z, "2", z, z, z]);
}

/// Metadata v0 request: size 15, key 3, version 0, correlation id 1, client id "a", all
/// topics (an empty array).
const METADATA_REQ: &[u8] =
    b"\x00\x00\x00\x0f\x00\x03\x00\x00\x00\x00\x00\x01\x00\x01a\x00\x00\x00\x00";
/// Its v0 answer: correlation id 1, one broker (node 1, "broker.example", port 9092), no
/// topics.
const METADATA_RESP: &[u8] = b"\x00\x00\x00\x24\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00\x0ebroker.example\x00\x00\x23\x84\x00\x00\x00\x00";

/// Starts `kwire proxy` in front of `upstream` with `--log json` and the given stdout; its
/// port once it listens.
fn start_proxy(upstream: &str, stdout: Stdio, duration: &str) -> (std::process::Child, u16) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args([
            "proxy",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--upstream",
            upstream,
            "--log",
            "json",
            "--duration",
            duration,
        ])
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kwire proxy");
    let mut line = String::new();
    BufReader::new(child.stderr.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("listening on"), "{line}");
    (child, port)
}

/// One Metadata exchange through `kwire proxy --log json`: a broker that expects
/// `METADATA_REQ` and sends `answer`, a client that sends the request. Returns what the
/// client received, the proxy's whole stdout and its response log line, parsed.
fn proxy_one_metadata(answer: &[u8]) -> (Vec<u8>, String, serde_json::Value) {
    let broker = TcpListener::bind("127.0.0.1:0").unwrap();
    let upstream = broker.local_addr().unwrap().to_string();
    let answer = answer.to_vec();
    let broker_thread = std::thread::spawn(move || {
        let (mut s, _) = broker.accept().unwrap();
        assert_eq!(read_frame(&mut s), METADATA_REQ);
        s.write_all(&answer).unwrap();
    });
    let (child, port) = start_proxy(&upstream, Stdio::piped(), "3");
    let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
    client
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    client.write_all(METADATA_REQ).unwrap();
    let got = read_frame(&mut client);
    drop(client);
    broker_thread.join().unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let line = stdout
        .lines()
        .find(|l| l.contains("\"direction\":\"response\""))
        .unwrap_or_else(|| panic!("no response line in {stdout}"));
    let j = serde_json::from_str(line).unwrap();
    (got, stdout, j)
}

#[test]
fn the_json_log_shows_the_response_the_client_receives() {
    let (got, _, j) = proxy_one_metadata(METADATA_RESP);
    let line = j.to_string();
    assert_eq!(j["rewritten"], true, "{line}");
    let broker = &j["body"]["brokers"][0];
    assert_eq!(broker["host"], "127.0.0.1", "{line}");
    assert_ne!(broker["port"], 9092, "{line}");
    assert_eq!(
        j["beforeRewrite"]["brokers"][0]["host"], "broker.example",
        "{line}"
    );
    assert_eq!(j["beforeRewrite"]["brokers"][0]["port"], 9092, "{line}");
    // The port logged is the one the client was sent (bytes 26..30 of the answer: after
    // size, correlation id, broker count, node id and the 11-byte host "127.0.0.1").
    let sent_port = i32::from_be_bytes(got[4 + 4 + 4 + 4 + 2 + 9..][..4].try_into().unwrap());
    assert_eq!(broker["port"], sent_port, "{line}");
}

#[test]
fn a_closed_stdout_ends_the_proxy_quietly_with_the_sigpipe_status() {
    let broker = TcpListener::bind("127.0.0.1:0").unwrap();
    let upstream = broker.local_addr().unwrap().to_string();
    // The broker accepts and then just holds the connection.
    let broker_thread = std::thread::spawn(move || broker.accept().map(|(s, _)| s));
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let (mut child, port) = start_proxy(&upstream, Stdio::from(writer), "60");
    let started = std::time::Instant::now();
    let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
    // Its log line cannot be written: the proxy ends then, not when --duration is over
    // (when its summary would fail to print too).
    client.write_all(METADATA_REQ).unwrap();
    let status = child.wait().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the proxy ran on with its log gone"
    );
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(141), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    drop(client);
    let _ = broker_thread.join();
}

/// A response with a byte after its body (as librdkafka's mock sends Metadata v12): read as
/// Java's clients read it, so its broker address is still rewritten and the extra byte
/// passed on after it, but reported as the strict decoder's error.
#[test]
fn a_response_with_trailing_bytes_is_rewritten_and_reported() {
    let mut padded = METADATA_RESP.to_vec();
    padded.push(0);
    padded[3] += 1;
    let (got, _, j) = proxy_one_metadata(&padded);
    let line = j.to_string();
    // The host "broker.example" (14 bytes) became "127.0.0.1" (9): 5 bytes fewer, the
    // extra zero byte still last, the prefix fitted.
    assert_eq!(got.len(), padded.len() - 5, "{got:?}");
    assert_eq!(&got[18..27], b"127.0.0.1");
    assert_eq!(got.last(), Some(&0));
    assert_eq!(
        u32::from_be_bytes(got[..4].try_into().unwrap()) as usize,
        got.len() - 4
    );
    assert_eq!(j["outcome"], "ERROR", "{line}");
    assert_eq!(j["rewritten"], true, "{line}");
    // The body ends at byte 40 of the 41-byte frame.
    assert_eq!(
        j["error"], "1 trailing byte(s) after the end of the message at byte 40 in `frame`",
        "{line}"
    );
}

/// A broker host that is not UTF-8 names no address the proxy could connect to: the
/// response goes to the client as it came, and the summary says why.
#[test]
fn a_broker_host_that_is_not_utf8_is_left_unrewritten() {
    let mut answer = METADATA_RESP.to_vec();
    // The host "broker.example" is bytes 18..32: "broker\xffexample".
    assert_eq!(&answer[18..32], b"broker.example");
    answer[24] = 0xff;
    let (got, stdout, j) = proxy_one_metadata(&answer);
    let line = j.to_string();
    assert_eq!(got, answer);
    assert_ne!(j["rewritten"], true, "{line}");
    assert!(
        stdout.contains(r#"connection: broker host "broker\xFFexample":9092 is not UTF-8"#),
        "{stdout}"
    );
}
