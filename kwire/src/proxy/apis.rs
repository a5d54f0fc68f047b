//! The few places where the proxy looks inside particular APIs; everything else it does is
//! generic over the dispatch.
//!
//! - Broker addresses: brokers advertise their own host and port (Metadata, DescribeCluster,
//!   FindCoordinator, and the leader endpoints of Produce, Fetch, ShareFetch and
//!   ShareAcknowledge responses); the proxy replaces them by its own listeners. The group
//!   heartbeats (ConsumerGroupHeartbeat, ShareGroupHeartbeat) carry no endpoints.
//! - Produce with `acks = 0` gets no response, so it is not tracked.
//! - Record sets: Produce requests and Fetch/ShareFetch responses carry record batches.

use kafka_wire::{Records, Str};
use kafka_wire_messages::{RequestBody, ResponseBody};

/// Every broker address `body` advertises, as (host, port) to rewrite in place. Entries with
/// no address (an error answer's empty host, a FindCoordinator v4+ top-level placeholder) are
/// left out.
pub(super) fn broker_endpoints(body: &mut ResponseBody) -> Vec<(&mut Str, &mut i32)> {
    let mut out: Vec<(&mut Str, &mut i32)> = Vec::new();
    match body {
        ResponseBody::Metadata(m) => {
            out.extend(m.brokers.iter_mut().map(|b| (&mut b.host, &mut b.port)));
        }
        ResponseBody::DescribeCluster(m) => {
            out.extend(m.brokers.iter_mut().map(|b| (&mut b.host, &mut b.port)));
        }
        ResponseBody::FindCoordinator(m) => {
            // v0-3 answer at the top level, v4+ in `coordinators`.
            out.extend(
                m.coordinators
                    .iter_mut()
                    .map(|c| (&mut c.host, &mut c.port)),
            );
            out.push((&mut m.host, &mut m.port));
        }
        ResponseBody::Produce(m) => {
            out.extend(
                m.node_endpoints
                    .iter_mut()
                    .map(|e| (&mut e.host, &mut e.port)),
            );
        }
        ResponseBody::Fetch(m) => {
            out.extend(
                m.node_endpoints
                    .iter_mut()
                    .map(|e| (&mut e.host, &mut e.port)),
            );
        }
        ResponseBody::ShareFetch(m) => {
            out.extend(
                m.node_endpoints
                    .iter_mut()
                    .map(|e| (&mut e.host, &mut e.port)),
            );
        }
        ResponseBody::ShareAcknowledge(m) => {
            out.extend(
                m.node_endpoints
                    .iter_mut()
                    .map(|e| (&mut e.host, &mut e.port)),
            );
        }
        _ => {}
    }
    out.retain(|(host, port)| !host.is_empty() && **port > 0);
    out
}

/// Whether a request is one the broker never answers (Produce with `acks = 0`).
pub(super) fn expects_no_response(body: &RequestBody) -> bool {
    matches!(body, RequestBody::Produce(p) if p.acks == 0)
}

/// The record sets a request carries.
pub(super) fn request_records(body: &RequestBody) -> Vec<&Records> {
    match body {
        RequestBody::Produce(p) => p
            .topic_data
            .iter()
            .flat_map(|t| &t.partition_data)
            .filter_map(|p| p.records.as_ref())
            .collect(),
        _ => Vec::new(),
    }
}

/// The record sets a response carries.
pub(super) fn response_records(body: &ResponseBody) -> Vec<&Records> {
    match body {
        ResponseBody::Fetch(f) => f
            .responses
            .iter()
            .flat_map(|t| &t.partitions)
            .filter_map(|p| p.records.as_ref())
            .collect(),
        ResponseBody::ShareFetch(f) => f
            .responses
            .iter()
            .flat_map(|t| &t.partitions)
            .filter_map(|p| p.records.as_ref())
            .collect(),
        _ => Vec::new(),
    }
}
