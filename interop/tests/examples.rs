//! The `client` and `broker` examples of the top-level `examples/` package, run as their own
//! processes: the client against librdkafka's mock cluster and against the broker stub, and
//! the stub's ApiVersions fallback read by a plain socket. `cargo test --workspace` builds
//! the examples; when they are missing (this package's tests alone), they are built first.

mod common;

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{mock_cluster, TOPIC};
use kafka_wire::frame;
use kafka_wire::frame::DecodeOptions;
use kafka_wire::RequestHeader;
use kafka_wire_messages::{ApiVersionsRequest, ApiVersionsResponse};

/// The compiled example `name`: `cargo test` builds examples next to the test binaries
/// (`target/<profile>/examples`); when only this test was asked for, build them first.
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps");
    let path = profile_dir.join("examples").join(name);
    if !path.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "-p", "kafka-wire-examples", "--examples"])
            .status()
            .expect("run cargo build --examples");
        assert!(status.success(), "building the examples failed");
    }
    path
}

/// Runs the client example against `addr` and returns what it printed.
fn run_client(addr: &str) -> String {
    let out = Command::new(example("client"))
        .arg(addr)
        .output()
        .expect("run the client example");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "client failed: {}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{stdout}");
    stdout
}

/// The broker stub, killed when dropped.
struct Broker {
    child: Child,
    addr: String,
}

impl Broker {
    fn start() -> Broker {
        let mut child = Command::new(example("broker"))
            .arg("127.0.0.1:0")
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the broker example");
        let mut lines = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut first = String::new();
        lines
            .read_line(&mut first)
            .expect("the broker's first line");
        // Keep reading (and echoing) what it prints, so its stdout stays open.
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                println!("broker: {line}");
            }
        });
        let addr = first
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
            .to_owned();
        Broker { child, addr }
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn client_example_against_the_mock_cluster() {
    let cluster = mock_cluster();
    let bootstrap = cluster.bootstrap_servers();
    let out = run_client(bootstrap.split(',').next().unwrap());
    // librdkafka 2.12's mock serves ApiVersions 0-2: it answers our v5 with UNSUPPORTED_VERSION
    // (35) in a layout that is neither v0 nor v5 and lists nothing readable, so the client asks
    // again at v0, where it learns of v2. Of the other APIs the mock has AddPartitionsToTxn
    // 0-1 and TxnOffsetCommit 0-3.
    assert!(
        out.contains("ApiVersions v5 -> undecodable answer, error code 35"),
        "{out}"
    );
    assert!(
        out.contains("ApiVersions v0 -> answered at v0, error code 0"),
        "{out}"
    );
    assert!(out.contains("use ApiVersions v2"), "{out}");
    assert!(out.contains("use AddPartitionsToTxn v1"), "{out}");
    assert!(out.contains("use TxnOffsetCommit v3"), "{out}");
    // Metadata: the mock serves 0-12, and its v12 answer carries one zero byte after a
    // correct body, which the client reads as Java's clients do (they never look past the
    // body), through the opt-in lenient decode.
    assert!(out.contains("use Metadata v12"), "{out}");
    assert!(
        out.contains("Metadata v12: ignored 1 byte(s) after the body"),
        "{out}"
    );
    assert!(out.contains("Metadata v12: 3 brokers"), "{out}");
    for id in 1..=3 {
        assert!(out.contains(&format!("broker {id} at ")), "{out}");
    }
    assert!(
        out.contains(&format!("topic {TOPIC}: 4 partitions, error code 0")),
        "{out}"
    );
}

#[test]
fn client_example_against_the_broker_example() {
    let broker = Broker::start();
    let out = run_client(&broker.addr);
    assert!(
        out.contains("ApiVersions v5 -> answered at v5, error code 0"),
        "{out}"
    );
    // The stub lists ApiVersions alone.
    assert!(out.contains("broker lists 1 APIs; 1 of the"), "{out}");
    assert!(out.contains("the broker does not offer Metadata"), "{out}");
}

#[test]
fn broker_example_answers_an_unsupported_api_versions_at_v0() {
    let broker = Broker::start();
    let mut s = TcpStream::connect(&broker.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    // ApiVersions v9 does not exist (yet): header v2, empty flexible body.
    let mut req = Vec::new();
    let header = RequestHeader::new(18, 9, 42, Some("probe".into()));
    req.extend_from_slice(&[0, 0, 0, 0]);
    // Header v2 by hand (the typed encoders refuse a version the API lacks): key, version,
    // correlation id, client id (classic string), no tags; then the body's empty tags twice
    // (two empty compact strings and an empty tagged section).
    req.extend_from_slice(&header.request_api_key.to_be_bytes());
    req.extend_from_slice(&header.request_api_version.to_be_bytes());
    req.extend_from_slice(&header.correlation_id.to_be_bytes());
    req.extend_from_slice(b"\x00\x05probe\x00\x01\x01\x00");
    let size = (req.len() - 4) as i32;
    req[..4].copy_from_slice(&size.to_be_bytes());
    std::io::Write::write_all(&mut s, &req).unwrap();

    let reply = frame::read_frame(&mut s, &DecodeOptions::DEFAULT).unwrap();
    let (h, body) =
        frame::decode_response::<ApiVersionsResponse>(&reply, 0, &DecodeOptions::DEFAULT)
            .unwrap()
            .frame;
    assert_eq!(h.correlation_id, 42);
    assert_eq!(body.error_code, 35);
    let api_versions = body.api_keys.iter().find(|a| a.api_key == 18).unwrap();
    assert_eq!(api_versions.min_version, 0);
    // The stub can still serve a supported version on the same connection.
    frame::write_request(
        &mut s,
        &RequestHeader::new(18, 0, 43, None),
        &ApiVersionsRequest::default(),
    )
    .unwrap();
    let reply = frame::read_frame(&mut s, &DecodeOptions::DEFAULT).unwrap();
    let (h, _) = frame::decode_response::<ApiVersionsResponse>(&reply, 0, &DecodeOptions::DEFAULT)
        .unwrap()
        .frame;
    assert_eq!(h.correlation_id, 43);
}
