//! Kafka's Java clients against kafka-wire-mock: the flows the real-cluster test runs
//! (`interop/cluster/src/main/java/KwireFlows.java`, SASL/PLAIN included) on a 3-broker mock
//! cluster. Their outcomes are Kafka's: 100 idempotent and 100 committed records, 25 aborted;
//! a read_committed classic-group consumer reads the 200 and commits offsets summing to 255
//! (the 225 records plus a commit and an abort marker per codec and partition, 30, as Kafka
//! writes them). Needs the JDK and the jars of `interop/setup.sh`: skipped locally without
//! them, a failure in CI.

use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

use kafka_wire_interop::cluster::{available, jvm};

#[test]
fn java_clients_produce_transactionally_and_consume_in_a_group() {
    if let Err(missing) = available() {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{missing}");
        eprintln!("note: {missing}; skipping");
        return;
    }
    let cluster = kafka_wire_mock::Cluster::builder()
        .brokers(3)
        .topic("java", 3, 3)
        .build_blocking()
        .unwrap();
    let dir = std::env::temp_dir().join(format!("kwire-mock-java-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (flow, expected) in [
        (
            "produce",
            r#"{"aborted":25,"committed":100,"idempotent":100}"#,
        ),
        (
            "consume-classic",
            r#"{"committed_offsets_sum":255,"consumed":200,"protocol":"classic"}"#,
        ),
    ] {
        let mut child = jvm(&dir.join(format!("{flow}.log")), 256)
            .args(["KwireFlows", &cluster.bootstrap(), flow, "java"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run java");
        let deadline = Instant::now() + Duration::from_secs(180);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("{flow} did not finish in 3 minutes");
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let (mut out, mut err) = (String::new(), String::new());
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let result = out.lines().find_map(|l| l.strip_prefix("RESULT "));
        assert!(status.success(), "{flow} failed: {out}{err}");
        assert_eq!(result, Some(expected), "{flow}: {out}{err}");
        println!("{flow}: {}", result.unwrap_or_default());
    }
    assert!(cluster.frame_errors().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
