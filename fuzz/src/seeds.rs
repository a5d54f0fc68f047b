//! What the seed-writing examples (`examples/*_seeds.rs`) share: a directory that counts the
//! seeds written to it, and realistic sizes by repeating a value's arrays.

use kafka_wire::dynamic::{StructValue, Value};

/// A directory of seeds, created on first use, counting what was written.
pub struct SeedDir {
    dir: String,
    /// Seeds written.
    pub count: usize,
    /// The largest seed, in bytes.
    pub largest: usize,
}

impl SeedDir {
    /// Creates `dir` (and its parents).
    pub fn create(dir: impl Into<String>) -> Self {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).expect("create the output directory");
        SeedDir {
            dir,
            count: 0,
            largest: 0,
        }
    }

    /// Writes one seed as `DIR/name`.
    pub fn write(&mut self, name: &str, bytes: &[u8]) {
        std::fs::write(format!("{}/{name}", self.dir), bytes).expect("write a seed");
        self.count += 1;
        self.largest = self.largest.max(bytes.len());
    }

    /// Prints `what: N seeds, largest B bytes` on stderr.
    pub fn report(&self, what: &str) {
        eprintln!("{what}: {} seeds, largest {} bytes", self.count, self.largest);
    }
}

/// Repeats the elements of every array `times` times (a third as often one level down).
pub fn grow(s: &mut StructValue, times: usize) {
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
