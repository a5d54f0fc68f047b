//! The messages to test, enumerated from the dispatch (every [`ApiKey`], request and response,
//! every version), and whole frames with generated values for them.

use kafka_wire::dynamic::{self, Frame, StructValue, Value};
use kafka_wire::{ApiKind, StructMeta, Version};
use kafka_wire_messages::ApiKey;

use crate::gen::Generator;

/// One message at one version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Case {
    /// The API.
    pub api: ApiKey,
    /// Request or response.
    pub kind: ApiKind,
    /// The message version.
    pub version: Version,
}

impl Case {
    /// The body's metadata.
    pub fn meta(&self) -> &'static StructMeta {
        body_meta(self.api, self.kind)
    }
}

impl core::fmt::Display for Case {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let kind = match self.kind {
            ApiKind::Request => "Request",
            ApiKind::Response => "Response",
        };
        write!(f, "{}{kind} v{}", self.api.name(), self.version)
    }
}

/// The request or response metadata of `api`.
pub fn body_meta(api: ApiKey, kind: ApiKind) -> &'static StructMeta {
    match kind {
        ApiKind::Request => api.request_meta(),
        ApiKind::Response => api.response_meta(),
    }
}

/// Every declared message at every version it has, requests then responses per API, in key
/// order. Grows by itself as APIs are declared.
pub fn all_cases() -> Vec<Case> {
    let mut out = Vec::new();
    for &api in ApiKey::ALL {
        for kind in [ApiKind::Request, ApiKind::Response] {
            for version in body_meta(api, kind).versions.iter() {
                out.push(Case { api, kind, version });
            }
        }
    }
    out
}

/// A whole frame of `case` with generated values in the header and the body (the header's
/// API key and version set to match).
pub fn generated_frame(case: Case, g: &mut Generator) -> Frame {
    let body_meta = case.meta();
    let key = case.api.key();
    let hv = dynamic::header_version(body_meta, case.kind, key, case.version);
    let mut header: StructValue = g.struct_value(dynamic::header_meta(case.kind), hv);
    if case.kind == ApiKind::Request {
        if let Some(k) = header.get_rust_mut("request_api_key") {
            *k = Value::Int16(key);
        }
        if let Some(k) = header.get_rust_mut("request_api_version") {
            *k = Value::Int16(case.version);
        }
    }
    Frame {
        kind: case.kind,
        api_key: key,
        api_version: case.version,
        header,
        body: g.struct_value(body_meta, case.version),
    }
}
