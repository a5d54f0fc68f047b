//! A whole request frame (size prefix included) through the dispatch API
//! (`RequestFrame::decode`), with the round trip: decode Ok ⇒ encode ⇒ identical bytes (or
//! fewer, a tagged field at its default left out) ⇒ decode equal.
#![no_main]

use bytes::Bytes;
use kafka_wire_fuzz::{check_alloc, check_error, check_reencoded, measure, request_frame_k};
use kafka_wire_messages::RequestFrame;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let buf = Bytes::copy_from_slice(data);
    let (res, allocated) = measure(|| RequestFrame::decode(&buf));
    check_alloc(request_frame_k(data), data.len(), allocated);
    let frame = match res {
        Ok(f) => f,
        Err(e) => return check_error(&e, data.len()),
    };
    let out = match frame.to_vec() {
        Ok(out) => out,
        Err(e) => panic!("decoded frame does not encode: {e}: {frame:?}"),
    };
    assert_eq!(frame.encoded_size(), out.len(), "encoded_size of {frame:?}");
    check_reencoded(&out, data, &frame);
    match RequestFrame::decode(&Bytes::from(out)) {
        Ok(back) => assert_eq!(back, frame),
        Err(e) => panic!("re-encoded frame does not decode: {e}"),
    }
});
