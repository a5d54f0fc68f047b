//! Random legal values of any derived struct, from its metadata alone (shared by the
//! dynamic-codec tests here and the kwire tests).
#![allow(dead_code)]

use bytes::Bytes;
use kafka_wire::dynamic::{default_value, StructValue, Value};
use kafka_wire::{KafkaType, Str, StructMeta, UnknownTaggedFields, Uuid, Version};

/// A small deterministic generator (xorshift64*), so failures reproduce.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
}

/// A random struct value that is legal at `version`: fields the version lacks keep their
/// defaults, null only where nullable, unknown tagged fields only where flexible.
pub fn value_of(meta: &'static StructMeta, version: Version, rng: &mut Rng) -> StructValue {
    let mut s = StructValue::default_of(meta);
    for (f, slot) in meta.fields.iter().zip(s.fields.iter_mut()) {
        let present = f.mandatory().contains(version) || f.tagged.contains(version);
        if present && !(f.tagged.contains(version) && rng.chance(3)) {
            *slot = random_value(&f.ty, version, f.nullable.contains(version), rng);
        } else {
            *slot = default_value(f);
        }
    }
    if meta.flexible.contains(version) && rng.chance(3) {
        let mut unknown = UnknownTaggedFields::new();
        let mut tag = 10 + rng.below(3) as u32;
        for _ in 0..1 + rng.below(2) {
            unknown.push(tag, random_bytes(rng));
            tag += 1 + rng.below(200) as u32;
        }
        s.unknown = unknown;
    }
    s
}

fn random_bytes(rng: &mut Rng) -> Bytes {
    let n = rng.below(6) as usize;
    Bytes::from((0..n).map(|_| rng.next() as u8).collect::<Vec<u8>>())
}

fn random_str(rng: &mut Rng) -> Str {
    const CHARS: &[char] = &['a', 'Z', '0', ' ', 'é', '"', '\\', '\n', '日'];
    let n = rng.below(6) as usize;
    Str::from(
        (0..n)
            .map(|_| CHARS[rng.below(CHARS.len() as u64) as usize])
            .collect::<String>(),
    )
}

/// A random value of `ty` (null sometimes, if `nullable`).
pub fn random_value(ty: &KafkaType, version: Version, nullable: bool, rng: &mut Rng) -> Value {
    if nullable && rng.chance(5) {
        return Value::Null;
    }
    let r = rng.next();
    match ty {
        KafkaType::Bool => Value::Bool(r & 1 == 1),
        KafkaType::Int8 => Value::Int8(r as i8),
        KafkaType::Int16 => Value::Int16(r as i16),
        KafkaType::Uint16 => Value::Uint16(r as u16),
        KafkaType::Int32 => Value::Int32(if rng.chance(2) {
            r as i32
        } else {
            (r % 5) as i32 - 1
        }),
        KafkaType::Uint32 => Value::Uint32(r as u32),
        KafkaType::Int64 => Value::Int64(r as i64),
        KafkaType::Float64 => {
            let f = f64::from_bits(r);
            Value::Float64(if f.is_finite() {
                f
            } else {
                (r % 1000) as f64 / 8.0
            })
        }
        KafkaType::String => Value::String(random_str(rng)),
        KafkaType::Bytes => Value::Bytes(random_bytes(rng)),
        KafkaType::Uuid => Value::Uuid(Uuid::from_halves(r, rng.next())),
        KafkaType::Records => Value::Records(random_bytes(rng)),
        KafkaType::Array(t) => {
            let n = rng.below(4);
            Value::Array(
                (0..n)
                    .map(|_| random_value(t, version, false, rng))
                    .collect(),
            )
        }
        KafkaType::Struct(m) => Value::Struct(value_of(m(), version, rng)),
    }
}
