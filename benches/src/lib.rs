//! Benchmarks live in `benches/`; this library builds the shared inputs.
