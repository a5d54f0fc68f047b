//! Writes realistic seed inputs for the `request_frame` and `response_frame` targets into
//! `DIR/request_frame` and `DIR/response_frame`: for every API and every version, whole
//! frames (size prefix, header, body) of the smallest legal body, two random legal bodies
//! (tagged and unknown tagged fields, nulls, short arrays, random correlation and client
//! ids) and two with every array repeated (frames of a few KB to tens of KB), each framed as
//! the target reads it (a response frame after its API index and request version). The
//! frames come from our encoder, so they are legal by construction; the fuzzer mutates them.
//!
//! ```sh
//! cargo run --manifest-path fuzz/Cargo.toml --example frame_seeds -- fuzz/corpus
//! ```

#[path = "../../kafka-wire/tests/common/random.rs"]
mod random;

use kafka_wire::dynamic;
use kafka_wire_fuzz::seeds::{grow, SeedDir};
use kafka_wire::ApiKind;
use kafka_wire_messages::ApiKey;

/// Frames above this are left out: the targets run at `-max_len=65536`.
const MAX: usize = 65_000;

fn main() {
    let out = std::env::args().nth(1).expect("usage: frame_seeds DIR");
    let mut rng = random::Rng::new(11);
    for (target, kind) in [
        ("request_frame", ApiKind::Request),
        ("response_frame", ApiKind::Response),
    ] {
        let mut seeds = SeedDir::create(format!("{out}/{target}"));
        for (i, api) in ApiKey::ALL.iter().enumerate() {
            let (meta, versions) = match kind {
                ApiKind::Request => (api.request_meta(), api.request_versions()),
                ApiKind::Response => (api.response_meta(), api.response_versions()),
            };
            for v in versions.iter() {
                let sample = dynamic::sample_frame(kind, api.key(), meta, v);
                let mut frames = vec![sample.clone()];
                for k in 0..4 {
                    let mut f = sample.clone();
                    f.body = random::value_of(meta, v, &mut rng);
                    // Two with every array repeated: requests have few arrays, so the second
                    // takes them to tens of KB too.
                    match k {
                        2 => grow(&mut f.body, 12),
                        3 => grow(&mut f.body, 40),
                        _ => {}
                    }
                    let hv = dynamic::header_version(meta, kind, api.key(), v);
                    let mut header = random::value_of(dynamic::header_meta(kind), hv, &mut rng);
                    for name in ["request_api_key", "request_api_version"] {
                        if let (Some(x), Some(y)) =
                            (header.get_rust_mut(name), f.header.get_rust_mut(name))
                        {
                            *x = y.clone();
                        }
                    }
                    f.header = header;
                    frames.push(f);
                }
                for (k, f) in frames.iter().enumerate() {
                    let Ok(frame) = dynamic::encode_frame(f) else {
                        continue;
                    };
                    let mut b = Vec::new();
                    if kind == ApiKind::Response {
                        b.push(i as u8);
                        b.extend_from_slice(&v.to_be_bytes());
                    }
                    b.extend_from_slice(&frame);
                    if b.len() > MAX {
                        continue;
                    }
                    seeds.write(&format!("{}_v{v}_{k}", api.name()), &b);
                }
            }
        }
        seeds.report(target);
    }
}
