//! A seeded, deterministic value generator driven by the static metadata ([`StructMeta`]):
//! it fills any declared struct, at any version, with non-default values, without knowing its
//! Rust type. The values are [`dynamic`](kafka_wire::dynamic) trees, which the metadata-driven
//! codec encodes into the bytes the typed struct would read.
//!
//! Every field the version has (regular or tagged) gets a value different from its default
//! (so tagged fields are written), arrays have one to three elements, strings are non-empty
//! and mix ASCII with multi-byte UTF-8, numbers are non-zero and include the extremes; nullable
//! fields are null or not according to [`Nulls`]; every flexible struct with a holder for them
//! carries unknown tagged fields (tags above its declared ones, one of them needing a
//! multi-byte uvarint). Fields the version does not have keep their defaults, as Kafka's
//! encoders require.

use bytes::Bytes;
use kafka_wire::dynamic::{default_value, empty_record_batch, StructValue, Value};
use kafka_wire::records::{BatchBuilder, NewHeader};
use kafka_wire::{FieldMeta, KafkaType, Str, StructMeta, UnknownTaggedFields, Uuid, Version};

/// SplitMix64: small, seedable and the same on every machine.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x05ee_d0fc_af4a)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next_u64() % den < num
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        let i = self.next_u64() as usize % items.len();
        &items[i]
    }
}

/// Where nullable fields get null.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nulls {
    /// Never: every nullable field holds a value.
    Never,
    /// Always, at every version where the field is nullable.
    Always,
    /// At random, one time in three.
    Sometimes,
}

/// What to generate.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Nulls in nullable fields.
    pub nulls: Nulls,
    /// Unknown tagged fields in flexible structs.
    pub unknown_tagged: bool,
    /// Strings restricted to ASCII (for peers that cannot carry anything else).
    pub ascii_only: bool,
    /// Tagged fields inside the value of a tagged field (kafka-python writes the value of a
    /// tagged field with empty tagged sections, so it cannot carry them).
    pub tagged_in_tagged: bool,
    /// Wider values: some fields left at their default (so tagged fields are also unset),
    /// some strings long enough for a two-byte length varint, empty arrays, and record
    /// batches that hold records. Off by default, so peers that only carry the narrow form
    /// keep their seeds.
    pub varied: bool,
}

impl Options {
    /// Every seed picks its own mix: seed 0 has no null, seed 1 nulls everywhere they are
    /// allowed, later seeds nulls at random; unknown tagged fields always.
    pub fn for_seed(seed: u64) -> Self {
        Options {
            nulls: match seed {
                0 => Nulls::Never,
                1 => Nulls::Always,
                _ => Nulls::Sometimes,
            },
            unknown_tagged: true,
            ascii_only: false,
            tagged_in_tagged: true,
            varied: false,
        }
    }
}

/// Counts of what a generator wrote, to show the values are not trivial.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Fields given a non-default, non-null value.
    pub non_default: usize,
    /// Fields given null (where nullable).
    pub nulls: usize,
    /// Tagged fields given a non-default value (so written in the tagged section).
    pub tagged: usize,
    /// Unknown tagged fields added.
    pub unknown_tagged: usize,
    /// Fields left at their default because the version does not have them.
    pub absent: usize,
}

impl core::ops::AddAssign for Coverage {
    fn add_assign(&mut self, o: Coverage) {
        self.non_default += o.non_default;
        self.nulls += o.nulls;
        self.tagged += o.tagged;
        self.unknown_tagged += o.unknown_tagged;
        self.absent += o.absent;
    }
}

/// A value generator: seed, options and what it produced so far.
#[derive(Debug, Clone)]
pub struct Generator {
    rng: Rng,
    opts: Options,
    /// How many tagged fields the value being generated is inside.
    in_tagged: usize,
    /// What was generated so far.
    pub coverage: Coverage,
}

const ALPHABET: &[&str] = &[
    "a", "b", "k", "z", "Q", "0", "7", "-", "_", ".", " ", "é", "ß", "漢", "🦀", "ø",
];
const ASCII: &[&str] = &["a", "b", "k", "z", "Q", "0", "7", "-", "_", "."];

impl Generator {
    /// A generator for `seed` with [`Options::for_seed`].
    pub fn new(seed: u64) -> Self {
        Self::with_options(seed, Options::for_seed(seed))
    }

    /// A generator for `seed` with `opts`.
    pub fn with_options(seed: u64, opts: Options) -> Self {
        Generator {
            rng: Rng::new(seed),
            opts,
            in_tagged: 0,
            coverage: Coverage::default(),
        }
    }

    /// The random source, for callers that need a few more numbers.
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    /// A value of the struct `meta` at `version`.
    pub fn struct_value(&mut self, meta: &'static StructMeta, version: Version) -> StructValue {
        let fields = meta.fields.iter().map(|f| self.field(f, version)).collect();
        let mut unknown = UnknownTaggedFields::new();
        if self.opts.unknown_tagged
            && (self.in_tagged == 0 || self.opts.tagged_in_tagged)
            && meta.flexible.contains(version)
            && meta.unknown_tagged_field.is_some()
        {
            // Above every declared tag, so every encoder (ours writes known tags first, Java
            // and kafka-protocol interleave by tag) writes the same order.
            let top = meta
                .fields
                .iter()
                .filter_map(|f| f.tag)
                .max()
                .map_or(0, |t| t + 1);
            let first = top + self.rng.range(0, 3) as u32;
            unknown.push(first, self.bytes(0, 6));
            if self.rng.chance(1, 2) {
                // Tag and length both multi-byte uvarints.
                let n = self.rng.range(128, 140) as usize;
                unknown.push(
                    first + 200 + self.rng.range(0, 70_000) as u32,
                    self.bytes(n, n),
                );
            }
            self.coverage.unknown_tagged += unknown.len();
        }
        StructValue {
            meta,
            fields,
            unknown,
        }
    }

    fn field(&mut self, f: &'static FieldMeta, v: Version) -> Value {
        let tagged = f.tagged.contains(v);
        if !f.versions.contains(v) || (tagged && self.in_tagged > 0 && !self.opts.tagged_in_tagged)
        {
            self.coverage.absent += 1;
            return default_value(f);
        }
        if tagged {
            self.in_tagged += 1;
            let val = self.present_field(f, v);
            self.in_tagged -= 1;
            val
        } else {
            self.present_field(f, v)
        }
    }

    fn present_field(&mut self, f: &'static FieldMeta, v: Version) -> Value {
        let default = default_value(f);
        let nullable = f.nullable.contains(v);
        let null = nullable
            && match self.opts.nulls {
                Nulls::Never => false,
                Nulls::Always => true,
                Nulls::Sometimes => self.rng.chance(1, 3),
            };
        if null {
            self.coverage.nulls += 1;
            if f.tagged.contains(v) && default != Value::Null {
                self.coverage.tagged += 1;
            }
            return Value::Null;
        }
        // Left at its default, unless that is null where the version is not nullable (a
        // `records` field's default, as in Kafka's Java classes, which refuse to encode it).
        if self.opts.varied && (nullable || default != Value::Null) && self.rng.chance(1, 5) {
            return default;
        }
        // A few tries give a value other than the default (a bool has one other value).
        let mut val = self.value(&f.ty, v);
        for _ in 0..8 {
            if val != default {
                break;
            }
            val = self.value(&f.ty, v);
        }
        if val != default {
            self.coverage.non_default += 1;
            if f.tagged.contains(v) {
                self.coverage.tagged += 1;
            }
        }
        val
    }

    fn bytes(&mut self, lo: usize, hi: usize) -> Bytes {
        let n = self.rng.range(lo as u64, hi as u64) as usize;
        (0..n)
            .map(|_| self.rng.next_u64() as u8)
            .collect::<Vec<u8>>()
            .into()
    }

    fn string(&mut self) -> Str {
        // Past 127 bytes a compact length needs two varint bytes.
        let n = if self.opts.varied && self.rng.chance(1, 8) {
            self.rng.range(100, 300)
        } else {
            self.rng.range(1, 10)
        };
        let alphabet = if self.opts.ascii_only {
            ASCII
        } else {
            ALPHABET
        };
        let s: String = (0..n).map(|_| *self.rng.pick(alphabet)).collect();
        Str::from(s)
    }

    /// A non-zero number in `min..=max`, often an extreme.
    fn int(&mut self, min: i64, max: i64) -> i64 {
        let v = match self.rng.range(0, 5) {
            0 => min,
            1 => max,
            2 if min < 0 => -1,
            3 => self.rng.range(1, 127) as i64,
            _ => {
                let span = (max as i128 - min as i128 + 1) as u128;
                (min as i128 + (self.rng.next_u64() as u128 % span) as i128) as i64
            }
        };
        if v == 0 {
            1
        } else {
            v
        }
    }

    /// A magic-2 batch of one to three records with keys, values and headers, some null.
    fn record_batch(&mut self) -> Bytes {
        let mut b = BatchBuilder::new(self.rng.range(0, 1 << 40) as i64);
        for _ in 0..self.rng.range(1, 3) {
            let key = self.bytes(0, 8);
            let value = self.bytes(0, 40);
            let hkey = self.string();
            let hval = self.bytes(0, 4);
            let headers = [NewHeader::new(hkey.as_str(), Some(&hval[..]))];
            let n_headers = self.rng.range(0, 1) as usize;
            let ts = self.rng.range(0, 1 << 41) as i64;
            let key = self.rng.chance(3, 4).then_some(&key[..]);
            let value = self.rng.chance(7, 8).then_some(&value[..]);
            b.append(ts, key, value, &headers[..n_headers]);
        }
        b.build().expect("a generated batch builds")
    }

    /// A non-null value of type `ty` at `version` (numbers non-zero, containers non-empty).
    pub fn value(&mut self, ty: &KafkaType, v: Version) -> Value {
        match ty {
            KafkaType::Bool => Value::Bool(self.rng.chance(1, 2)),
            KafkaType::Int8 => Value::Int8(self.int(i8::MIN.into(), i8::MAX.into()) as i8),
            KafkaType::Int16 => Value::Int16(self.int(i16::MIN.into(), i16::MAX.into()) as i16),
            KafkaType::Uint16 => Value::Uint16(self.int(0, u16::MAX.into()) as u16),
            KafkaType::Int32 => Value::Int32(self.int(i32::MIN.into(), i32::MAX.into()) as i32),
            KafkaType::Uint32 => Value::Uint32(self.int(0, u32::MAX.into()) as u32),
            KafkaType::Int64 => Value::Int64(self.int(i64::MIN, i64::MAX)),
            KafkaType::Float64 => {
                let x = *self
                    .rng
                    .pick(&[1.5, -0.25, f64::MAX, f64::MIN_POSITIVE, 1e-300, -7.0]);
                Value::Float64(x)
            }
            KafkaType::String => Value::String(self.string()),
            KafkaType::Bytes => Value::Bytes(self.bytes(1, 12)),
            KafkaType::Uuid => Value::Uuid(Uuid::from_halves(
                self.rng.next_u64() | 1,
                self.rng.next_u64(),
            )),
            KafkaType::Records if self.opts.varied && self.rng.chance(1, 2) => {
                Value::Records(self.record_batch())
            }
            KafkaType::Records => {
                // An empty RecordBatch v2, as a real producer would send: some peers parse
                // records.
                Value::Records(Bytes::from(empty_record_batch()))
            }
            KafkaType::Array(t) => {
                let n = self.rng.range(u64::from(!self.opts.varied), 3);
                Value::Array((0..n).map(|_| self.value(t, v)).collect())
            }
            KafkaType::Struct(m) => Value::Struct(self.struct_value(m(), v)),
        }
    }
}
