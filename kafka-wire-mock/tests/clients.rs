//! The mock cluster served to real clients: librdkafka (confluent-kafka 2.16) and kafka-python
//! 3.0 from the virtual environment of `interop/setup.sh` and `examples/setup.sh`. Without it
//! these tests are skipped locally and fail in CI. Each client script checks what it reads
//! (`tests/clients/*.py`, `examples/clients/*.py`); these tests check what the cluster stored
//! and received.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use kafka_wire::ErrorCode;
use kafka_wire_mock::{ApiKey, BlockingCluster, Cluster, Intercept};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The venv's python if it has `module`; `None` (skip) locally, a panic in CI.
fn python_with(module: &str) -> Option<PathBuf> {
    let venv = std::env::var_os("KAFKA_WIRE_INTEROP_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/interop-venv"));
    let python = venv.join("bin/python");
    let import = format!("import {module}");
    let found = Command::new(&python).args(["-c", &import]).status();
    if found.is_ok_and(|s| s.success()) {
        return Some(python);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{} cannot import {module}: CI must run interop/setup.sh and examples/setup.sh",
        python.display()
    );
    eprintln!("note: no {module} in {}, skipping", venv.display());
    None
}

/// Runs `script` with `args` for at most two minutes; its output, checked for success and an
/// `OK` line.
fn run(python: &Path, script: &Path, args: &[&str]) -> String {
    let mut child = Command::new(python)
        .arg(script)
        .args(args)
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
            panic!("{} did not finish in two minutes", script.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut out = String::new();
    let mut stdout = child.stdout.take().expect("stdout");
    stdout.read_to_string(&mut out).expect("read output");
    println!("{out}");
    assert!(status.success(), "{} failed:\n{out}", script.display());
    assert!(out.lines().any(|l| l.starts_with("OK ")), "{out}");
    out
}

fn cluster(topic: &str, partitions: i32) -> BlockingCluster {
    Cluster::builder()
        .brokers(3)
        .topic(topic, partitions, 3)
        .build_blocking()
        .unwrap()
}

/// Records stored in a partition, counted from the batch headers.
fn stored(cluster: &Cluster, topic: &str, partition: i32) -> usize {
    cluster
        .batches(topic, partition)
        .unwrap()
        .iter()
        .map(|b| {
            let batch = kafka_wire::records::Batches::new(b.clone(), Default::default())
                .next()
                .unwrap()
                .unwrap();
            batch.record_count().unwrap()
        })
        .sum()
}

#[test]
fn librdkafka_group_of_three_rebalances_when_one_leaves() {
    let Some(python) = python_with("confluent_kafka") else {
        return;
    };
    let cluster = cluster("g3", 6);
    let script = root().join("kafka-wire-mock/tests/clients/group_of_three.py");
    run(&python, &script, &[&cluster.bootstrap(), "g3"]);
    for p in 0..6 {
        assert_eq!(stored(&cluster, "g3", p), 10, "partition {p}");
        assert_eq!(cluster.committed("three", "g3", p), Some(10));
    }
    // A generation per join (fewer when joins met at a barrier), one per leave; the script
    // closes every consumer at the end, each leaving the group.
    let (generation, members) = cluster.group_members("three").unwrap();
    assert!(generation >= 4, "{generation}");
    assert!(members.is_empty(), "{members:?}");
    let leaves = cluster
        .received()
        .iter()
        .filter(|r| r.api == ApiKey::LeaveGroup)
        .count();
    assert_eq!(leaves, 3);
}

#[test]
fn librdkafka_retries_through_injected_produce_errors() {
    let Some(python) = python_with("confluent_kafka") else {
        return;
    };
    let cluster = cluster("retried", 1);
    // The first two Produce requests: NOT_LEADER_OR_FOLLOWER, the next two REQUEST_TIMED_OUT.
    let seen = AtomicUsize::new(0);
    cluster.intercept(ApiKey::Produce, move |req| {
        match seen.fetch_add(1, Ordering::SeqCst) {
            0 | 1 => Intercept::Respond(Box::new(
                req.error_response(ErrorCode::NOT_LEADER_OR_FOLLOWER),
            )),
            2 | 3 => Intercept::Respond(Box::new(req.error_response(ErrorCode::REQUEST_TIMED_OUT))),
            _ => Intercept::Pass,
        }
    });
    let script = root().join("kafka-wire-mock/tests/clients/retries.py");
    run(&python, &script, &[&cluster.bootstrap(), "retried"]);
    let produces = cluster
        .received()
        .iter()
        .filter(|r| r.api == ApiKey::Produce)
        .count();
    assert!(produces >= 5, "{produces} Produce requests");
    // Each record stored once: the retries were not appended twice.
    assert_eq!(stored(&cluster, "retried", 0), 10);
}

#[test]
fn librdkafka_and_kafka_python_on_three_brokers() {
    for (module, script) in [
        ("confluent_kafka", "librdkafka_client.py"),
        ("kafka", "kafka_python_client.py"),
    ] {
        let Some(python) = python_with(module) else {
            continue;
        };
        // The scripts create their topic (one replica) through the admin API.
        let cluster = Cluster::builder().brokers(3).build_blocking().unwrap();
        let script = root().join("examples/clients").join(script);
        run(&python, &script, &[&cluster.bootstrap()]);
        let brokers: std::collections::BTreeSet<i32> =
            cluster.received().iter().map(|r| r.broker).collect();
        assert_eq!(brokers.len(), 3, "every broker was used");
    }
}

#[test]
fn librdkafka_transactions_committed_and_aborted() {
    let Some(python) = python_with("confluent_kafka") else {
        return;
    };
    let cluster = cluster("tx", 2);
    let script = root().join("kafka-wire-mock/tests/clients/transactions.py");
    run(&python, &script, &[&cluster.bootstrap(), "tx"]);
    // Three transactions wrote to both partitions: a marker each, commit or abort.
    let mut markers = 0;
    for p in 0..2 {
        for b in cluster.batches("tx", p).unwrap() {
            let batch = kafka_wire::records::Batches::new(b, Default::default())
                .next()
                .unwrap()
                .unwrap();
            if batch.header().is_control() {
                markers += 1;
            }
        }
    }
    assert_eq!(markers, 6);
    assert_eq!(cluster.committed("txc", "tx", 0), Some(3));
}
