//! Integration tests live in `tests/`; this library holds shared test helpers.
//!
//! The repository README is included below so that its Rust examples are compiled and run
//! as doctests: the README cannot drift from the API.
#![doc = include_str!("../../README.md")]

pub mod cases;
pub mod gen;

/// The bytes a hex dump spells, white space ignored (test vectors are written as hex, grouped
/// for reading). Panics on anything else: it reads test input only.
pub fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}
