//! Interop tests of kafka-wire against Kafka implementations written by others (see
//! `tests/` and `README.md`): librdkafka's mock cluster over TCP, Wireshark's Kafka
//! dissector, and kafka-python's protocol classes.
//!
//! The helpers here are what a user of the framework would write: a blocking client on the
//! public frame API ([`client`]) and a pcap writer ([`pcap`]). The APIs come from
//! `kafka_wire_messages`, which declares every Kafka API.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod client;
pub mod cluster;
pub mod pcap;
pub mod scram;
