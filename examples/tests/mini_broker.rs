//! The `mini_broker` example served to real clients: kafka-python 3.0.12 and librdkafka
//! (confluent-kafka 2.16.2) create a topic, produce with every codec (librdkafka also
//! idempotently), consume everything in a consumer group and commit
//! (`examples/clients/*.py`, which check what they read). They run from the virtual
//! environment of `interop/setup.sh` and `examples/setup.sh`; without it the test is skipped
//! locally and fails in CI.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The venv's python if it has `module`; `None` (skip) locally, a panic in CI.
fn python_with(module: &str) -> Option<PathBuf> {
    let venv = std::env::var_os("KAFKA_WIRE_INTEROP_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/interop-venv"));
    let python = venv.join("bin/python");
    let ok = python.exists()
        && Command::new(&python)
            .args(["-c", &format!("import {module}")])
            .status()
            .is_ok_and(|s| s.success());
    if ok {
        return Some(python);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{} cannot import {module}: CI must run interop/setup.sh and examples/setup.sh",
            python.display()
        );
    }
    eprintln!(
        "note: {module} not in {}, skipping (run interop/setup.sh and examples/setup.sh)",
        venv.display()
    );
    None
}

/// The compiled example: `cargo test` builds examples next to the test binaries; when they
/// are missing, build them first.
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let path = profile.join("examples").join(name);
    if !path.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "-p", "kafka-wire-examples", "--example", name])
            .status()
            .expect("run cargo build");
        assert!(status.success(), "building {name} failed");
    }
    path
}

/// The broker, killed when dropped.
struct Broker(Child);

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the broker on a free port and returns it with its address.
fn start() -> (Broker, String) {
    let mut child = Command::new(example("mini_broker"))
        .arg("127.0.0.1:0")
        .stdout(Stdio::piped())
        .spawn()
        .expect("start mini_broker");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("read the listening line");
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    (Broker(child), addr)
}

/// Runs a client script against a fresh broker, for at most two minutes.
fn run_client(python: &Path, script: &str) {
    let (_broker, addr) = start();
    let mut child = Command::new(python)
        .arg(root().join("examples/clients").join(script))
        .arg(&addr)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the client");
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for the client") {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{script} did not finish in two minutes");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut out = String::new();
    use std::io::Read;
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("read output");
    println!("{out}");
    assert!(status.success(), "{script} failed:\n{out}");
    assert!(
        out.lines().any(|l| l.starts_with("OK ")),
        "{script}:\n{out}"
    );
}

#[test]
fn kafka_python_produces_and_consumes_in_a_group() {
    if let Some(python) = python_with("kafka") {
        run_client(&python, "kafka_python_client.py");
    }
}

#[test]
fn librdkafka_produces_and_consumes_in_a_group() {
    if let Some(python) = python_with("confluent_kafka") {
        run_client(&python, "librdkafka_client.py");
    }
}
