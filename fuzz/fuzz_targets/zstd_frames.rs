//! Zstd frames and skippable frames, laid out from the input's segments by
//! `framing::zstd_stream`, decompressed once and checked for time and memory (`framing::check`).
#![no_main]

use kafka_wire::records::Compression;
use kafka_wire_fuzz::framing::{check, zstd_stream};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check(Compression::Zstd, &zstd_stream(data));
});
