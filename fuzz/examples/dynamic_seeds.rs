//! Writes realistic seed inputs for the `dynamic` target into a directory: for every API,
//! both sides and every version, the smallest legal body, three random legal bodies (tagged
//! and unknown tagged fields, nulls, short arrays) and one with every array repeated (bodies
//! of a few KB to 46 KB), each framed as the target reads it (API index << 1 | side, version,
//! body). The bodies come from our encoder, so they are legal by construction; the fuzzer
//! mutates them.
//!
//! ```sh
//! cargo run --manifest-path fuzz/Cargo.toml --example dynamic_seeds -- fuzz/corpus/dynamic
//! ```

#[path = "../../kafka-wire/tests/common/random.rs"]
mod random;

use kafka_wire::dynamic::{self, StructValue};
use kafka_wire_fuzz::seeds::{grow, SeedDir};
use kafka_wire_messages::ApiKey;

fn main() {
    let out = std::env::args().nth(1).expect("usage: dynamic_seeds DIR");
    let mut seeds = SeedDir::create(out);
    let mut rng = random::Rng::new(7);
    for (i, api) in ApiKey::ALL.iter().enumerate() {
        for side in 0..2u8 {
            let (meta, versions) = if side == 0 {
                (api.request_meta(), api.request_versions())
            } else {
                (api.response_meta(), api.response_versions())
            };
            for v in versions.iter() {
                let mut values = vec![StructValue::sample(meta, v)];
                for _ in 0..3 {
                    values.push(random::value_of(meta, v, &mut rng));
                }
                let mut big = random::value_of(meta, v, &mut rng);
                grow(&mut big, 12);
                values.push(big);
                for (k, value) in values.iter().enumerate() {
                    let Ok(body) = dynamic::encode(value, v) else {
                        continue;
                    };
                    if body.len() > 65_000 {
                        continue;
                    }
                    let mut b = vec![((i as u8) << 1) | side];
                    b.extend_from_slice(&v.to_be_bytes());
                    b.extend_from_slice(&body);
                    let side = if side == 0 { "req" } else { "resp" };
                    seeds.write(&format!("{}_{side}_v{v}_{k}", api.name()), &b);
                }
            }
        }
    }
    seeds.report("dynamic");
}
