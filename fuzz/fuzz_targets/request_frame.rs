//! A whole request frame (size prefix included) through the dispatch API
//! (`RequestFrame::decode`), with the round trip: decode Ok ⇒ encode ⇒ identical bytes (or
//! fewer, a tagged field at its default left out) ⇒ decode equal. The metadata-driven frame
//! decoder (`dynamic::decode_request_frame`, as `kwire` uses it) gives the same error (kind,
//! offset, path) or a frame whose `dynamic::encode_frame_into` writes the typed frame's bytes.
#![no_main]

use bytes::Bytes;
use kafka_wire::dynamic;
use kafka_wire::frame::DecodeOptions;
use kafka_wire_fuzz::{
    check_alloc, check_error, check_reencoded, measure, request_frame_k, same_frame,
};
use kafka_wire_messages::{ApiKey, RequestFrame};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let buf = Bytes::copy_from_slice(data);
    let (res, allocated) = measure(|| RequestFrame::decode(&buf, &DecodeOptions::DEFAULT).map(|d| d.frame));
    check_alloc(request_frame_k(data), data.len(), allocated);
    let dynamic = dynamic::decode_request_frame(
        &buf,
        |k| ApiKey::from_i16(k).and_then(|a| a.try_request_meta()),
        None,
        &DecodeOptions::DEFAULT,
    ).map(|d| d.frame);
    let frame = match (res, dynamic) {
        (Ok(f), Ok(d)) => {
            same_frame(&d, f.to_vec().as_deref());
            f
        }
        (Err(e), Err(d)) => {
            kafka_wire_fuzz::same_error(&d, &e);
            return check_error(&e, data.len());
        }
        (t, d) => panic!("typed {t:?} vs dynamic {d:?}"),
    };
    let out = match frame.to_vec() {
        Ok(out) => out,
        Err(e) => panic!("decoded frame does not encode: {e}: {frame:?}"),
    };
    assert_eq!(frame.encoded_size(), out.len(), "encoded_size of {frame:?}");
    check_reencoded(&out, data, &frame);
    match RequestFrame::decode(&Bytes::from(out), &DecodeOptions::DEFAULT).map(|d| d.frame) {
        Ok(back) => kafka_wire_fuzz::same_value(&back, &frame),
        Err(e) => panic!("re-encoded frame does not decode: {e}"),
    }
});
