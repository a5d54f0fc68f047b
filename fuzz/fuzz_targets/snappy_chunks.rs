//! Snappy-java's xerial chunks, laid out from the input's segments by
//! `framing::snappy_stream`, decompressed once and checked for time and memory (`framing::check`).
#![no_main]

use kafka_wire::records::Compression;
use kafka_wire_fuzz::framing::{check, snappy_stream};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check(Compression::Snappy, &snappy_stream(data));
});
