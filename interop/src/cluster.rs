//! A real Apache Kafka 4.4.0 cluster for tests: one KRaft controller and one broker, each its
//! own JVM on 127.0.0.1, from the jars `interop/setup.sh` copies into
//! `target/kafka-4.4.0/libs` (see `interop/cluster/pom.xml`).
//!
//! The broker's one client listener is `SASL_PLAINTEXT` with PLAIN (users `admin`, the super
//! user, and `alice`) and SCRAM-SHA-256/512 (`alice`, created when the controller's storage
//! is formatted), and both nodes run `StandardAuthorizer`, so SASL, ACL and credential APIs
//! are real. The broker also offers the versions Kafka marks unstable (InitProducerId v6,
//! KIP-939). The controller listens in PLAINTEXT (the broker reaches it as `ANONYMOUS`, a
//! super user there). Ports are ephemeral, chosen here; logs and data go to
//! `target/tmp/cluster/<name>/`, emptied when a cluster of that name starts (the last run's
//! logs stay there to read). Both JVMs are killed when the [`Cluster`] is dropped.
//!
//! Starting is two steps so that something (a proxy) can be put between the broker and the
//! controller: [`Prepared`] has the controller's address and formatted storage,
//! [`Prepared::start`] takes the address the broker should use for the controller.

use std::fs;
use std::io;
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use kafka_wire_messages::{ApiKey, DescribeClusterRequest, DescribeClusterResponse};

use crate::client::{negotiate, Connection};

/// Kafka's version, as in `interop/cluster/pom.xml`.
pub const KAFKA_VERSION: &str = "4.4.0";
/// The PLAIN super user and password.
pub const ADMIN: (&str, &str) = ("admin", "admin-secret");
/// The unprivileged user (PLAIN and SCRAM-SHA-256) and password.
pub const ALICE: (&str, &str) = ("alice", "alice-secret");
/// The cluster id both nodes are formatted with (16 bytes in URL-safe base64).
pub const CLUSTER_ID: &str = "a2Fma2Etd2lyZS10ZXN0cw";
/// The broker's node id.
pub const BROKER_ID: i32 = 2;
/// The controller's node id.
pub const CONTROLLER_ID: i32 = 1;
/// The heap of the controller's and the broker's JVMs.
const NODE_HEAP_MB: u32 = 512;
/// How long one Java client flow may run before it is killed.
pub const FLOW_TIMEOUT: Duration = Duration::from_secs(150);
/// How long the broker may take to become ready.
pub const START_TIMEOUT: Duration = Duration::from_secs(120);

/// The workspace root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Where `interop/setup.sh` put Kafka (`KAFKA_WIRE_KAFKA_HOME` overrides):
/// `libs/` (the jars) and `classes/` (the compiled Java client flows).
pub fn kafka_home() -> PathBuf {
    std::env::var_os("KAFKA_WIRE_KAFKA_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target").join(format!("kafka-{KAFKA_VERSION}")))
}

/// `Ok` when the jars and the compiled flows are present; otherwise what is missing.
pub fn available() -> Result<(), String> {
    let home = kafka_home();
    let jar = home
        .join("libs")
        .join(format!("kafka_2.13-{KAFKA_VERSION}.jar"));
    if !jar.exists() {
        return Err(format!(
            "{} is missing: run interop/setup.sh",
            jar.display()
        ));
    }
    let flows = home.join("classes").join("KwireFlows.class");
    if !flows.exists() {
        return Err(format!(
            "{} is missing: run interop/setup.sh",
            flows.display()
        ));
    }
    if Command::new(java()).arg("-version").output().is_err() {
        return Err(format!("no `{}` to run", java().display()));
    }
    Ok(())
}

/// The `java` to run: `$JAVA_HOME/bin/java`, else the one on `PATH`.
pub fn java() -> PathBuf {
    std::env::var_os("JAVA_HOME")
        .map(|h| PathBuf::from(h).join("bin/java"))
        .filter(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("java"))
}

/// The class path: the Kafka jars and the compiled flows.
pub fn class_path() -> String {
    let home = kafka_home();
    format!(
        "{}:{}/*",
        home.join("classes").display(),
        home.join("libs").display()
    )
}

/// A JVM command with the flags every process here uses: a small heap, the serial collector
/// (two shared cores), the quiet log4j2 configuration writing to `log`.
pub fn jvm(log: &Path, heap_mb: u32) -> Command {
    let mut c = Command::new(java());
    c.arg(format!("-Xmx{heap_mb}m"))
        .arg("-XX:+UseSerialGC")
        .arg("-XX:TieredStopAtLevel=1")
        .arg(format!(
            "-Dlog4j2.configurationFile={}",
            root().join("interop/cluster/log4j2.xml").display()
        ))
        .arg(format!("-Dkwire.log.file={}", log.display()))
        .arg("-cp")
        .arg(class_path());
    c
}

/// Two different free addresses on 127.0.0.1 (bound together, read, released: the JVMs bind
/// them a moment later).
fn free_addrs() -> io::Result<(SocketAddr, SocketAddr)> {
    let (a, b) = (
        TcpListener::bind("127.0.0.1:0")?,
        TcpListener::bind("127.0.0.1:0")?,
    );
    Ok((a.local_addr()?, b.local_addr()?))
}

/// Formatted storage and chosen ports; nothing running yet.
pub struct Prepared {
    dir: PathBuf,
    /// The controller's listener.
    pub controller: SocketAddr,
    /// The broker's SASL_PLAINTEXT listener.
    pub broker: SocketAddr,
    controller_child: Option<Child>,
}

/// The running cluster; dropping it kills both JVMs.
pub struct Cluster {
    /// Logs, configuration and data.
    pub dir: PathBuf,
    /// The controller's PLAINTEXT listener.
    pub controller: SocketAddr,
    /// The broker's SASL_PLAINTEXT listener.
    pub broker: SocketAddr,
    /// Where the broker reaches the controller (the controller itself, or a proxy).
    pub broker_to_controller: SocketAddr,
    /// How long from starting the controller until the broker answered DescribeCluster.
    pub startup: Duration,
    children: Vec<Child>,
}

/// What both nodes' properties share.
const COMMON_PROPS: &str = "\
listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT
controller.listener.names=CONTROLLER
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:admin;User:ANONYMOUS
delegation.token.secret.key=kwire-interop-delegation-secret
";

/// Runs `c` to completion, keeping its standard output and error in `out`; a failure is an
/// error carrying both.
fn run_checked(mut c: Command, what: &str, out_path: &Path) -> io::Result<()> {
    let out = c.output()?;
    fs::write(out_path, [&out.stdout[..], &out.stderr[..]].concat())?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "{what} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(())
}

/// Formats the storage of the node whose properties are `dir/<node>.properties`
/// (`kafka.tools.StorageTool format`, with the cluster id and `extra` arguments).
fn format_storage(dir: &Path, node: &str, extra: &[String]) -> io::Result<()> {
    let log = dir.join(format!("format-{node}.log"));
    let mut c = jvm(&log, 256);
    c.args(["kafka.tools.StorageTool", "format", "-t", CLUSTER_ID, "-c"])
        .arg(dir.join(format!("{node}.properties")))
        .args(extra);
    run_checked(
        c,
        "kafka.tools.StorageTool format",
        &dir.join(format!("format-{node}.out")),
    )
}

/// Starts the node whose properties are `dir/<node>.properties` (`kafka.Kafka`), its log,
/// standard output and standard error in `dir/<node>.{log,out,err}`.
fn spawn_node(dir: &Path, node: &str) -> io::Result<Child> {
    let file = |ext: &str| fs::File::create(dir.join(format!("{node}.{ext}")));
    jvm(&dir.join(format!("{node}.log")), NODE_HEAP_MB)
        .arg("kafka.Kafka")
        .arg(dir.join(format!("{node}.properties")))
        .stdout(Stdio::from(file("out")?))
        .stderr(Stdio::from(file("err")?))
        .spawn()
}

impl Prepared {
    /// Chooses ports, writes both nodes' properties, formats both storage directories (the
    /// controller's with the SCRAM credential of `alice`), and starts the controller.
    pub fn new(name: &str) -> io::Result<Prepared> {
        available().map_err(io::Error::other)?;
        let dir = root().join("target/tmp/cluster").join(name);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir)?;
        let (controller, broker) = free_addrs()?;
        let ctrl_props = format!(
            "process.roles=controller\n\
             node.id={CONTROLLER_ID}\n\
             controller.quorum.voters={CONTROLLER_ID}@{controller}\n\
             listeners=CONTROLLER://{controller}\n\
             log.dirs={}\n\
             num.partitions=1\n\
             {COMMON_PROPS}",
            dir.join("controller-data").display()
        );
        fs::write(dir.join("controller.properties"), &ctrl_props)?;
        format_storage(
            &dir,
            "controller",
            &[
                "--add-scram".into(),
                format!("SCRAM-SHA-256=[name={},password={}]", ALICE.0, ALICE.1),
                "--add-scram".into(),
                format!("SCRAM-SHA-512=[name={},password={}]", ALICE.0, ALICE.1),
            ],
        )?;
        let child = spawn_node(&dir, "controller")?;
        Ok(Prepared {
            dir,
            controller,
            broker,
            controller_child: Some(child),
        })
    }

    /// Formats and starts the broker, reaching the controller at `controller` (the
    /// controller's own address or a proxy in front of it), and waits until it answers
    /// DescribeCluster over SASL/PLAIN with itself as a broker.
    pub fn start(mut self, controller: SocketAddr) -> io::Result<Cluster> {
        let started = Instant::now();
        let dir = self.dir.clone();
        let broker = self.broker;
        let props = format!(
            "process.roles=broker\n\
             node.id={BROKER_ID}\n\
             controller.quorum.voters={CONTROLLER_ID}@{controller}\n\
             listeners=SASL_PLAINTEXT://{broker}\n\
             advertised.listeners=SASL_PLAINTEXT://{broker}\n\
             inter.broker.listener.name=SASL_PLAINTEXT\n\
             sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512\n\
             sasl.mechanism.inter.broker.protocol=PLAIN\n\
             listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"{a}\" password=\"{ap}\" user_{a}=\"{ap}\" user_{b}=\"{bp}\";\n\
             listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;\n\
             listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;\n\
             log.dirs={logs}\n\
             offsets.topic.replication.factor=1\n\
             offsets.topic.num.partitions=3\n\
             transaction.state.log.replication.factor=1\n\
             transaction.state.log.min.isr=1\n\
             transaction.state.log.num.partitions=3\n\
             share.coordinator.state.topic.replication.factor=1\n\
             share.coordinator.state.topic.min.isr=1\n\
             share.coordinator.state.topic.num.partitions=3\n\
             group.initial.rebalance.delay.ms=0\n\
             metric.reporters=KwireTelemetry\n\
             unstable.api.versions.enable=true\n\
             {COMMON_PROPS}",
            a = ADMIN.0,
            ap = ADMIN.1,
            b = ALICE.0,
            bp = ALICE.1,
            logs = dir.join("broker-data").display(),
        );
        fs::write(dir.join("broker.properties"), &props)?;
        format_storage(&dir, "broker", &[])?;
        let child = spawn_node(&dir, "broker")?;
        let mut children = vec![self.controller_child.take().expect("controller")];
        children.push(child);
        let mut cluster = Cluster {
            dir,
            controller: self.controller,
            broker,
            broker_to_controller: controller,
            startup: Duration::ZERO,
            children,
        };
        cluster.wait_ready(started)?;
        Ok(cluster)
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if let Some(mut c) = self.controller_child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Cluster {
    /// Starts both nodes, the broker reaching the controller directly.
    pub fn start(name: &str) -> io::Result<Cluster> {
        let p = Prepared::new(name)?;
        let c = p.controller;
        p.start(c)
    }

    /// A connection to the broker, authenticated as `admin` over SASL/PLAIN, with the
    /// broker's ApiVersions answer.
    pub fn admin_connection(
        &self,
        id: usize,
    ) -> io::Result<(Connection, kafka_wire_messages::ApiVersionsResponse)> {
        let mut conn = Connection::connect(self.broker, id)?;
        let v = conn
            .api_versions(ApiKey::ApiVersions.max_version())
            .map_err(io::Error::other)?
            .accepted
            .body;
        conn.authenticate(&v, "PLAIN", ADMIN.0, ADMIN.1)
            .map_err(io::Error::other)?;
        Ok((conn, v))
    }

    fn wait_ready(&mut self, started: Instant) -> io::Result<()> {
        let mut last = String::from("not tried");
        while started.elapsed() < START_TIMEOUT {
            for (i, c) in self.children.iter_mut().enumerate() {
                if let Some(status) = c.try_wait()? {
                    return Err(io::Error::other(format!(
                        "the {} exited ({status}) while starting; see {}",
                        ["controller", "broker"][i],
                        self.dir.display()
                    )));
                }
            }
            match self.describe_cluster() {
                Ok(n) if n >= 1 => {
                    self.startup = started.elapsed();
                    return Ok(());
                }
                Ok(n) => last = format!("DescribeCluster lists {n} brokers"),
                Err(e) => last = e.to_string(),
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        Err(io::Error::other(format!(
            "the broker was not ready within {START_TIMEOUT:?} (last: {last}); see {}",
            self.dir.display()
        )))
    }

    fn describe_cluster(&self) -> io::Result<usize> {
        let (mut conn, v) = self.admin_connection(0)?;
        let req = DescribeClusterRequest::default();
        let version = negotiate(&v, &req).ok_or_else(|| io::Error::other("no DescribeCluster"))?;
        let x = conn
            .call::<_, DescribeClusterResponse>(version, &req)
            .map_err(io::Error::other)?;
        if x.body.error_code != 0 {
            return Err(io::Error::other(format!(
                "DescribeCluster error {}",
                x.body.error_code
            )));
        }
        Ok(x.body.brokers.len())
    }

    /// Runs one of the Java client flows of `interop/cluster/src/main/java/KwireFlows.java`
    /// against `bootstrap`, and returns its `RESULT` JSON, or what went wrong with its output.
    pub fn java_flow(&self, bootstrap: &str, flow: &str, topic: &str) -> Result<String, String> {
        let log = self.dir.join(format!("flow-{flow}.log"));
        let (out_path, err_path) = (
            self.dir.join(format!("flow-{flow}.out")),
            self.dir.join(format!("flow-{flow}.err")),
        );
        let file = |p: &Path| fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
        let mut child = jvm(&log, 256)
            .args(["KwireFlows", bootstrap, flow, topic])
            .stdout(Stdio::from(file(&out_path)?))
            .stderr(Stdio::from(file(&err_path)?))
            .spawn()
            .map_err(|e| format!("cannot run java: {e}"))?;
        let start = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) if start.elapsed() < FLOW_TIMEOUT => {
                    std::thread::sleep(Duration::from_millis(100))
                }
                Ok(None) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!(
                        "flow {flow} still running after {FLOW_TIMEOUT:?}; killed"
                    ));
                }
                Err(e) => return Err(format!("waiting for flow {flow}: {e}")),
            }
        };
        let stdout = fs::read_to_string(&out_path).unwrap_or_default();
        match stdout.lines().find_map(|l| l.strip_prefix("RESULT ")) {
            Some(r) if status.success() => Ok(r.to_owned()),
            _ => Err(format!(
                "flow {flow} failed ({status}): {stdout}{}",
                fs::read_to_string(&err_path).unwrap_or_default()
            )),
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // The broker first, so that it does not spend its shutdown waiting for the controller.
        for c in self.children.iter_mut().rev() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
