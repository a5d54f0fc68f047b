//! Integration tests live in `tests/`; this library holds shared test helpers.
//!
//! The repository README is included below so that its Rust examples are compiled and run
//! as doctests: the README cannot drift from the API.
#![doc = include_str!("../../README.md")]

pub mod cases;
pub mod gen;
