//! What a test controls and inspects: errors injected for the next requests of an API, hooks
//! per API, the log of requests received, and the check of every frame sent.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use kafka_wire::{Bytes, DecodeOptions, ErrorCode, Version};
use kafka_wire_messages::{ApiKey, RequestFrame, ResponseFrame};

/// What an intercept hook decides for a request.
#[derive(Debug, Clone)]
pub enum Intercept {
    /// Serve it as usual.
    Pass,
    /// Send this answer instead (build it with [`RequestFrame::respond`] or
    /// [`RequestFrame::error_response`]; boxed, as a frame is large).
    Respond(Box<ResponseFrame>),
    /// Send nothing and close the connection, as a broker that crashed.
    Drop,
    /// Wait this long, then serve it as usual.
    Delay(Duration),
}

/// A request as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// The broker that received it.
    pub broker: i32,
    /// Its API.
    pub api: ApiKey,
    /// Its version.
    pub version: Version,
    /// Its correlation id.
    pub correlation_id: i32,
    /// The header's client id.
    pub client_id: Option<String>,
}

/// A test's hook.
pub(crate) type Hook = Arc<dyn Fn(&RequestFrame) -> Intercept + Send + Sync>;

/// How many received requests are kept.
const RECEIVED_KEPT: usize = 100_000;

/// The controls, inside the state.
#[derive(Default)]
pub(crate) struct Control {
    failing: Vec<(ApiKey, ErrorCode, usize)>,
    hooks: Vec<(ApiKey, Hook)>,
    pub received: VecDeque<Received>,
    pub frame_errors: Vec<String>,
}

impl Control {
    pub fn fail_next(&mut self, api: ApiKey, error: ErrorCode, times: usize) {
        self.failing.retain(|(a, _, _)| *a != api);
        if times > 0 {
            self.failing.push((api, error, times));
        }
    }

    pub fn intercept(&mut self, api: ApiKey, hook: Hook) {
        self.clear_intercept(api);
        self.hooks.push((api, hook));
    }

    pub fn clear_intercept(&mut self, api: ApiKey) {
        self.hooks.retain(|(a, _)| *a != api);
    }

    /// Records `req` and returns what was set for it: an injected error (counted down) and
    /// the hook to call (outside the lock).
    pub fn on_request(
        &mut self,
        broker: i32,
        req: &RequestFrame,
    ) -> (Option<ErrorCode>, Option<Hook>) {
        if self.received.len() == RECEIVED_KEPT {
            self.received.pop_front();
        }
        self.received.push_back(Received {
            broker,
            api: req.api_key(),
            version: req.version(),
            correlation_id: req.header.correlation_id,
            client_id: req
                .header
                .client_id
                .as_ref()
                .map(|c| c.to_string_lossy().into_owned()),
        });
        let api = req.api_key();
        let error = self
            .failing
            .iter_mut()
            .find(|(a, _, n)| *a == api && *n > 0)
            .map(|(_, e, n)| {
                *n -= 1;
                *e
            });
        self.failing.retain(|(_, _, n)| *n > 0);
        let hook = self
            .hooks
            .iter()
            .find(|(a, _)| *a == api)
            .map(|(_, h)| h.clone());
        (error, hook)
    }
}

/// Decodes `bytes`, the encoding of `answer`, again with the library's response decoder at
/// the request's API and version: the error, if it fails or the result does not encode back
/// to the same bytes.
pub(crate) fn check_frame(answer: &ResponseFrame, bytes: &Bytes) -> Result<(), String> {
    // At exactly that version: no ApiVersions fallback to v0, which would hide a wrong one.
    let options = DecodeOptions::new().with_api_versions_fallback(false);
    let back = ResponseFrame::decode(bytes, answer.api_key, answer.version, &options)
        .map_err(|e| format!("{} v{}: decode: {e}", answer.api_key, answer.version))?;
    // Decoded (bytes after the body refused, as `DecodeOptions` does by default) and
    // encoded again, the frame must be the same bytes.
    match back.frame.to_bytes() {
        Ok(again) if again == bytes => {}
        _ => {
            return Err(format!(
                "{} v{}: the decoded frame does not encode back to the bytes sent",
                answer.api_key, answer.version
            ))
        }
    }
    Ok(())
}
