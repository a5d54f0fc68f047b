//! A whole response frame (size prefix included) through the dispatch API
//! (`ResponseFrame::decode`, without ApiVersions' fallback to v0): the first input byte picks the API (index into `ApiKey::ALL`),
//! the next two the request version; the rest is the frame. Round trip as for requests, and
//! the same comparison with the metadata-driven frame decoder and encoder.
#![no_main]

use bytes::Bytes;
use kafka_wire::dynamic::{self, BodySpec};
use kafka_wire::frame::DecodeOptions;
use kafka_wire_fuzz::{
    check_alloc, check_error, measure, response_k, same_error, same_frame, split_version,
};
use kafka_wire_messages::{ApiKey, ResponseFrame};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Some((version, frame_bytes)) = split_version(rest) else {
        return;
    };
    let api = ApiKey::ALL[usize::from(pick) % ApiKey::ALL.len()];
    let buf = Bytes::copy_from_slice(frame_bytes);
    // The metadata-driven decoder reads at the version given: the typed one is compared
    // without ApiVersions' fallback to v0.
    let options = DecodeOptions::DEFAULT.with_api_versions_fallback(false);
    let (res, allocated) = measure(|| ResponseFrame::decode(&buf, api, version, &options).map(|d| d.frame));
    // An unsupported version fails before the body: the header's ratio (v1) covers it.
    let k = if api.response_versions().contains(version) {
        response_k(api, version)
    } else {
        kafka_wire_fuzz::ratio::<kafka_wire::ResponseHeader>(1)
    };
    check_alloc(k, frame_bytes.len(), allocated);
    let spec = BodySpec {
        api_key: api.key(),
        meta: api.response_meta(),
        version,
    };
    let frame = match (res, dynamic::decode_response_frame(&buf, spec, None, &DecodeOptions::DEFAULT).map(|d| d.frame)) {
        (Ok(f), Ok(d)) => {
            same_frame(&d, f.to_vec().as_deref());
            f
        }
        (Err(e), Err(d)) => {
            same_error(&d, &e);
            return check_error(&e, frame_bytes.len());
        }
        (t, d) => panic!("typed {t:?} vs dynamic {d:?}"),
    };
    let out = match frame.to_vec() {
        Ok(out) => out,
        Err(e) => panic!("decoded frame does not encode: {e}: {frame:?}"),
    };
    assert_eq!(frame.encoded_size(), out.len(), "encoded_size of {frame:?}");
    kafka_wire_fuzz::check_reencoded(&out, frame_bytes, &frame);
    match ResponseFrame::decode(&Bytes::from(out), api, version, &options).map(|d| d.frame) {
        Ok(back) => kafka_wire_fuzz::same_value(&back, &frame),
        Err(e) => panic!("re-encoded frame does not decode: {e}"),
    }
});
