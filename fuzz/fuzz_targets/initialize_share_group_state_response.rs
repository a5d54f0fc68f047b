//! `InitializeShareGroupStateResponse` at the version in the first two input bytes, from the rest of the input.
#![no_main]

use kafka_wire_fuzz::{check_message, split_version};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((version, body)) = split_version(data) {
        check_message::<kafka_wire_messages::InitializeShareGroupStateResponse>(version, body);
    }
});
