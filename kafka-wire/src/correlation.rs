//! Matching responses to the requests they answer.
//!
//! A Kafka response does not say which API or version it is: only its correlation id ties it
//! to a request, and the request's API and version decide how the response is decoded. A
//! client, or a proxy that decodes both directions, keeps a [`CorrelationTracker`] per
//! connection.
//!
//! Record a request **before** it is written to the socket: once the bytes leave, the answer
//! can come back (and be read by another task) before the writer runs again.
//!
//! ```
//! use kafka_wire::correlation::CorrelationTracker;
//! use kafka_wire::Bytes;
//!
//! let mut tracker = CorrelationTracker::new();
//! // ApiVersions v0 request, correlation id 1, client id "a".
//! let request = Bytes::from_static(b"\x00\x00\x00\x0b\x00\x12\x00\x00\x00\x00\x00\x01\x00\x01a");
//! tracker.track_frame(&request).unwrap();
//! // ... forward the request; then its response arrives:
//! let response = Bytes::from_static(b"\x00\x00\x00\x04\x00\x00\x00\x01");
//! let sent = tracker.complete_frame(&response).unwrap();
//! assert_eq!((sent.api_key, sent.api_version), (18, 0));
//! assert!(tracker.is_empty());
//! ```
//!
//! Requests that get no response must not be tracked: a Produce request with `acks = 0` is
//! the only one in Kafka's protocol.

use std::collections::HashMap;

use bytes::Bytes;

use crate::error::DecodeError;
use crate::frame::{peek_request_header, peek_response, RequestPeek};

/// Why a request could not be tracked or a response matched.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TrackError {
    /// The frame is too short to hold the header fields that were peeked.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// A request reused the correlation id of one still waiting for its answer; the responses
    /// could not be told apart.
    #[error("correlation id {0} is already in flight")]
    Duplicate(i32),
    /// A response answers no request in flight.
    #[error("response with correlation id {0} answers no request in flight")]
    Unmatched(i32),
}

/// The requests of one connection still waiting for a response, by correlation id, each with
/// a value of the caller's (by default the request's API key and version).
#[derive(Debug, Clone)]
pub struct CorrelationTracker<T = RequestPeek> {
    in_flight: HashMap<i32, T>,
}

impl<T> Default for CorrelationTracker<T> {
    fn default() -> Self {
        CorrelationTracker {
            in_flight: HashMap::new(),
        }
    }
}

impl<T> CorrelationTracker<T> {
    /// An empty tracker.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that a request with `correlation_id` is about to be sent.
    ///
    /// A correlation id already in flight is refused (the tracker is left unchanged): Kafka
    /// clients never reuse one before its answer arrives, and if one did, the two responses
    /// could not be told apart.
    pub fn track(&mut self, correlation_id: i32, value: T) -> Result<(), TrackError> {
        match self.in_flight.entry(correlation_id) {
            std::collections::hash_map::Entry::Occupied(_) => {
                Err(TrackError::Duplicate(correlation_id))
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(value);
                Ok(())
            }
        }
    }

    /// Takes the request `correlation_id` answers, or `None` if none is in flight.
    pub fn complete(&mut self, correlation_id: i32) -> Option<T> {
        self.in_flight.remove(&correlation_id)
    }

    /// The value of the request `correlation_id` answers, left in flight.
    pub fn get(&self, correlation_id: i32) -> Option<&T> {
        self.in_flight.get(&correlation_id)
    }

    /// Number of requests waiting for an answer.
    pub fn len(&self) -> usize {
        self.in_flight.len()
    }

    /// Whether no request is waiting for an answer.
    pub fn is_empty(&self) -> bool {
        self.in_flight.is_empty()
    }

    /// Forgets every request in flight (the connection closed), returning them.
    pub fn drain(&mut self) -> impl Iterator<Item = (i32, T)> + '_ {
        self.in_flight.drain()
    }
}

impl CorrelationTracker<RequestPeek> {
    /// Peeks a request frame (prefix included) and records its API key and version under its
    /// correlation id. Call it before sending the frame.
    pub fn track_frame(&mut self, request: &Bytes) -> Result<RequestPeek, TrackError> {
        let peek = peek_request_header(request)?;
        self.track(peek.correlation_id, peek)?;
        Ok(peek)
    }

    /// Peeks a response frame's correlation id and takes the request it answers.
    pub fn complete_frame(&mut self, response: &Bytes) -> Result<RequestPeek, TrackError> {
        let id = peek_response(response)?;
        self.complete(id).ok_or(TrackError::Unmatched(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request header v1 frame with an empty body: key, version, correlation id, null
    /// client id.
    fn request(key: i16, version: i16, id: i32) -> Bytes {
        let mut f = vec![0, 0, 0, 10];
        f.extend_from_slice(&key.to_be_bytes());
        f.extend_from_slice(&version.to_be_bytes());
        f.extend_from_slice(&id.to_be_bytes());
        f.extend_from_slice(&[0xff, 0xff]);
        Bytes::from(f)
    }

    fn response(id: i32) -> Bytes {
        let mut f = vec![0, 0, 0, 4];
        f.extend_from_slice(&id.to_be_bytes());
        Bytes::from(f)
    }

    #[test]
    fn responses_in_any_order_find_their_requests() {
        let mut t = CorrelationTracker::new();
        t.track_frame(&request(3, 12, 7)).unwrap();
        t.track_frame(&request(0, 9, 8)).unwrap();
        t.track_frame(&request(1, 13, -5)).unwrap();
        assert_eq!(t.len(), 3);
        let got = t.complete_frame(&response(8)).unwrap();
        assert_eq!(
            (got.api_key, got.api_version, got.correlation_id),
            (0, 9, 8)
        );
        let got = t.complete_frame(&response(-5)).unwrap();
        assert_eq!((got.api_key, got.api_version), (1, 13));
        assert_eq!(
            t.complete_frame(&response(8)),
            Err(TrackError::Unmatched(8))
        );
        assert_eq!(t.get(7).map(|p| p.api_key), Some(3));
        assert_eq!(t.drain().count(), 1);
        assert!(t.is_empty());
    }

    #[test]
    fn a_reused_id_in_flight_is_refused_and_the_first_kept() {
        let mut t = CorrelationTracker::new();
        t.track_frame(&request(3, 12, 7)).unwrap();
        assert_eq!(
            t.track_frame(&request(18, 3, 7)),
            Err(TrackError::Duplicate(7))
        );
        assert_eq!(t.complete(7).map(|p| p.api_key), Some(3));
        // Once answered, the id can be used again.
        t.track_frame(&request(18, 3, 7)).unwrap();
    }

    #[test]
    fn short_frames_are_decode_errors() {
        let mut t: CorrelationTracker = CorrelationTracker::new();
        assert!(matches!(
            t.track_frame(&request(3, 12, 7).slice(..9)),
            Err(TrackError::Decode(_))
        ));
        assert!(matches!(
            t.complete_frame(&Bytes::from_static(b"\0\0\0\x01\0")),
            Err(TrackError::Decode(_))
        ));
        assert!(t.is_empty());
    }

    #[test]
    fn any_value_can_ride_along() {
        let mut t: CorrelationTracker<&str> = CorrelationTracker::new();
        t.track(1, "metadata").unwrap();
        assert_eq!(t.complete(1), Some("metadata"));
    }
}
