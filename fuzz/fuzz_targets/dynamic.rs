//! The metadata-driven codec (`kafka_wire::dynamic`, `kafka_wire::json`), as `kwire decode
//! --json` and `kwire dump` use it: the first input byte picks the API (bits 1..) and the side
//! (bit 0: request or response), the next two the version; the rest is the body.
//!
//! Checks: no panic; the same result as the typed codec (equal errors, or values that encode
//! to the same bytes); decode `Ok` ⇒ encode gives the input back (or fewer bytes, a tagged
//! field carrying its default left out, decoding to the same value), and so does the
//! Kafka-style JSON of the value read back; the dump (a decode with a trace) never panics either; memory
//! within `K_DYN·n + c` for the decode and `K_DUMP·n + c` for the dump. The streaming paths
//! kwire takes agree with the tree ones: `walk_from` reports the same nodes and result as
//! `decode_from`, and `write_json` writes exactly `struct_to_json` of the decoded value.
#![no_main]

use bytes::Bytes;
use kafka_wire::dynamic::{self, Trace};
use kafka_wire::{json, Reader};
use kafka_wire_fuzz::{check_alloc, check_error, check_reencoded, measure, split_version};
use kafka_wire_messages::{ApiKey, RequestBody, ResponseBody};
use libfuzzer_sys::fuzz_target;

/// Bytes the metadata-driven decode allocates per input byte, at most: each value is a
/// `Value` (a 32-byte enum), each struct a vector of them, arrays reserve up to 8 bytes per
/// byte left; measured, not derived like the typed codec's `k`.
const K_DYN: usize = 256;
/// The dump also builds a node per value (names, type and value texts).
const K_DUMP: usize = 2048;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Some((version, body)) = split_version(rest) else {
        return;
    };
    let api = ApiKey::ALL[usize::from(pick >> 1) % ApiKey::ALL.len()];
    let request = pick & 1 == 0;
    let meta = if request {
        api.request_meta()
    } else {
        api.response_meta()
    };
    let buf = Bytes::copy_from_slice(body);
    let (res, allocated) = measure(|| dynamic::decode(meta, &buf, version));
    check_alloc(K_DYN, body.len(), allocated);

    // The typed codec on the same bytes.
    let mut r = Reader::new(&buf);
    let typed = if request {
        RequestBody::decode(api, version, &mut r).and_then(|b| {
            kafka_wire::frame::ensure_consumed(&r)?;
            Ok(b.to_vec(version).ok())
        })
    } else {
        ResponseBody::decode(api, version, &mut r).and_then(|b| {
            kafka_wire::frame::ensure_consumed(&r)?;
            Ok(b.to_vec(version).ok())
        })
    };
    match (res, typed) {
        (Ok(v), Ok(typed_bytes)) => {
            let mut streamed = Vec::new();
            dynamic::write_json(meta, &buf, 0, version, &mut streamed, None)
                .expect("a decodable body streams");
            assert_eq!(
                String::from_utf8(streamed).expect("UTF-8 JSON"),
                json::struct_to_json(&v, version).to_string(),
                "streamed JSON differs"
            );
            let out = dynamic::encode(&v, version).expect("decoded value encodes");
            // The input again, or fewer bytes if a tagged field carried its default; the
            // same value either way, and the same bytes from the typed codec.
            check_reencoded(&out, body, &v);
            let back = dynamic::decode(meta, &Bytes::from(out.clone()), version)
                .expect("re-encoded bytes decode");
            // By `Debug` when unequal: a float64 NaN is never equal to itself, and `Debug`
            // prints every NaN alike and every other float exactly.
            assert!(
                back == v || format!("{back:?}") == format!("{v:?}"),
                "re-encoded bytes decode differently: {back:?} vs {v:?}"
            );
            assert_eq!(
                typed_bytes.as_deref(),
                Some(&out[..]),
                "typed re-encoding differs"
            );
            let j = json::struct_to_json(&v, version);
            let back = json::struct_from_json(meta, &j, version).expect("JSON reads back");
            let again = dynamic::encode(&back, version).expect("JSON value encodes");
            // JSON names every NaN "NaN" (as Jackson does), so a NaN's payload bits are the
            // one thing its round trip may change: compare the values by `Debug` then. A
            // string that is not UTF-8 is written as Java reads it (U+FFFD for malformed
            // input), so it comes back as that text: the JSON must then be the same.
            if again != out {
                let v2 = dynamic::decode(meta, &Bytes::from(again.clone()), version)
                    .expect("JSON round trip decodes");
                if j.to_string().contains('\u{fffd}') {
                    assert_eq!(json::struct_to_json(&v2, version), j, "JSON round trip");
                } else {
                    assert_eq!(
                        format!("{v2:?}"),
                        format!("{v:?}"),
                        "JSON round trip differs: {j}"
                    );
                }
            }
        }
        (Err(d), Err(t)) => {
            check_error(&d, body.len());
            assert_eq!(d.kind(), t.kind(), "dynamic {d} vs typed {t}");
            assert_eq!(d.offset(), t.offset(), "dynamic {d} vs typed {t}");
        }
        (d, t) => panic!("dynamic {d:?} vs typed {t:?}"),
    }

    // The dump path: the same decode with a trace of every value.
    let (_, allocated) = measure(|| {
        let mut trace = Trace::new();
        let mut r = Reader::new(&buf);
        let res = dynamic::decode_from(meta, &mut r, version, Some(&mut trace));
        let roots = trace.into_roots();
        (res.is_ok(), roots.len())
    });
    check_alloc(K_DUMP, body.len(), allocated);

    // The streaming dump path: the same nodes and the same result without keeping values.
    let tree = |walk: bool| {
        let mut trace = Trace::new();
        let mut r = Reader::new(&buf);
        let res = if walk {
            dynamic::walk_from(meta, &mut r, version, Some(&mut trace)).map(drop)
        } else {
            dynamic::decode_from(meta, &mut r, version, Some(&mut trace)).map(drop)
        };
        (
            res.map_err(|e| e.to_string()),
            format!("{:?}", trace.into_roots()),
        )
    };
    assert_eq!(tree(true), tree(false), "walk and decode differ");
});
