//! A single-node, in-memory Kafka broker: a one-broker `kafka_wire_mock::Cluster` (the
//! `kafka-wire-mock/` crate, which serves it) with topics created on demand. Kafka's clients
//! create topics, produce with any codec, list offsets, fetch, and consume in a group with
//! committed offsets; nothing is persisted.
//!
//! ```sh
//! cargo run -p kafka-wire-examples --example mini_broker -- 127.0.0.1:9092
//! ```
//!
//! It prints `listening on ADDR` once bound (port 0 picks a free one) and serves until killed.
//! A second argument asks for more brokers (on free ports after the first); the line then
//! lists every broker, comma-separated, as a client's bootstrap servers.

use kafka_wire_mock::{Cluster, Error};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:9092".to_owned())
        .parse()?;
    let brokers = std::env::args().nth(2).map_or(Ok(1), |n| n.parse())?;
    let cluster = Cluster::builder()
        .brokers(brokers)
        .addresses([addr])
        .auto_create_topics(true)
        .build()
        .await?;
    println!("listening on {}", cluster.bootstrap());
    std::future::pending::<()>().await;
    Ok(())
}
