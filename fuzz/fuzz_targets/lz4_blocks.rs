//! Lz4 blocks in Kafka's frame subset, laid out from the input's segments by
//! `framing::lz4_stream`, decompressed once and checked for time and memory (`framing::check`).
#![no_main]

use kafka_wire::records::Compression;
use kafka_wire_fuzz::framing::{check, lz4_stream};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check(Compression::Lz4, &lz4_stream(data));
});
