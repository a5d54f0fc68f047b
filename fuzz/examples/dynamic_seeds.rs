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

use kafka_wire::dynamic::{self, StructValue, Value};
use kafka_wire_messages::ApiKey;

fn main() {
    let out = std::env::args().nth(1).expect("usage: dynamic_seeds DIR");
    std::fs::create_dir_all(&out).expect("create the output directory");
    let mut rng = random::Rng::new(7);
    let (mut n, mut largest) = (0, 0);
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
                    largest = largest.max(b.len());
                    let side = if side == 0 { "req" } else { "resp" };
                    let name = format!("{}_{side}_v{v}_{k}", api.name());
                    std::fs::write(format!("{out}/{name}"), &b).expect("write a seed");
                    n += 1;
                }
            }
        }
    }
    eprintln!("{n} seeds, largest {largest} bytes");
}

/// Repeats the elements of every array `times` times (a third as often one level down).
fn grow(s: &mut StructValue, times: usize) {
    for f in &mut s.fields {
        grow_value(f, times);
    }
}

fn grow_value(v: &mut Value, times: usize) {
    match v {
        Value::Array(items) if !items.is_empty() => {
            for x in items.iter_mut() {
                grow_value(x, (times / 3).max(1));
            }
            let copy = items.clone();
            for _ in 1..times {
                items.extend(copy.iter().cloned());
            }
        }
        Value::Struct(s) => grow(s, times),
        _ => {}
    }
}
