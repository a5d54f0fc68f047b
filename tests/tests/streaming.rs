//! The streaming paths of the metadata-driven codec against the tree-building ones, on
//! generated frames of every declared message at every version (tagged fields present and
//! unknown tagged fields at every level), whole, truncated and mutated:
//!
//! - `dynamic::walk_*_frame` reports the same nodes (names, types, values, offsets, sizes,
//!   errors) as `dynamic::decode_*_frame` records in a `Trace`, and fails the same way;
//! - `dynamic::write_frame_json` writes exactly `json::frame_to_json` of the decoded frame.

use bytes::Bytes;
use kafka_wire::dynamic::{self, BodySpec, Trace};
use kafka_wire::frame::DecodeOptions;
use kafka_wire::json::frame_to_json;
use kafka_wire::ApiKind;
use kafka_wire_messages::ApiKey;
use kafka_wire_tests::cases::{all_cases, generated_frame, Case};
use kafka_wire_tests::gen::Generator;

fn decode(case: Case, buf: &Bytes, trace: &mut Trace) -> Result<dynamic::Frame, String> {
    match case.kind {
        ApiKind::Request => dynamic::decode_request_frame(
            buf,
            |k| ApiKey::from_i16(k).map(ApiKey::request_meta),
            Some(trace),
            &DecodeOptions::DEFAULT,
        )
        .map(|d| d.frame),
        ApiKind::Response => {
            dynamic::decode_response_frame(buf, spec(case), Some(trace), &DecodeOptions::DEFAULT)
                .map(|d| d.frame)
        }
    }
    .map_err(|e| e.to_string())
}

fn spec(case: Case) -> BodySpec {
    BodySpec {
        api_key: case.api.key(),
        meta: case.meta(),
        version: case.version,
    }
}

fn walk(case: Case, buf: &Bytes, trace: &mut Trace) -> Result<dynamic::WalkedFrame, String> {
    match case.kind {
        ApiKind::Request => dynamic::walk_request_frame(
            buf,
            |k| ApiKey::from_i16(k).map(ApiKey::request_meta),
            Some(trace),
            &DecodeOptions::DEFAULT,
        )
        .map(|d| d.frame),
        ApiKind::Response => {
            dynamic::walk_response_frame(buf, spec(case), Some(trace), &DecodeOptions::DEFAULT)
                .map(|d| d.frame)
        }
    }
    .map_err(|e| e.to_string())
}

fn check(case: Case, what: &str, buf: &Bytes) {
    let (mut t1, mut t2) = (Trace::new(), Trace::new());
    let decoded = decode(case, buf, &mut t1);
    let walked = walk(case, buf, &mut t2);
    assert_eq!(
        format!("{:?}", t1.into_roots()),
        format!("{:?}", t2.into_roots()),
        "{case} {what}: trees differ"
    );
    match (decoded, walked) {
        (Ok(frame), Ok(w)) => {
            assert_eq!(w.header, frame.header, "{case} {what}");
            let mut out = Vec::new();
            dynamic::write_frame_json(buf, &w, case.kind, &mut out, None)
                .unwrap_or_else(|e| panic!("{case} {what}: {e}"));
            assert_eq!(
                String::from_utf8(out).unwrap(),
                frame_to_json(&frame).to_string(),
                "{case} {what}: JSON differs"
            );
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{case} {what}"),
        (a, b) => panic!("{case} {what}: decode {:?}, walk {:?}", a.err(), b.err()),
    }
}

#[test]
fn walking_and_streamed_json_match_the_tree_on_every_message() {
    let mut frames = 0;
    for case in all_cases() {
        for seed in 0..3u64 {
            let mut g = Generator::new(seed);
            let frame = generated_frame(case, &mut g);
            let bytes = dynamic::encode_frame(&frame).unwrap();
            check(case, &format!("seed {seed}"), &Bytes::from(bytes.clone()));
            frames += 1;
            // A few truncations (size prefix kept consistent) and byte flips.
            let n = bytes.len();
            for k in 1..4u64 {
                let cut = 4 + (g.rng().next_u64() as usize) % (n - 4);
                let mut t = ((cut - 4) as u32).to_be_bytes().to_vec();
                t.extend_from_slice(&bytes[4..cut]);
                check(case, &format!("seed {seed} cut {cut}"), &Bytes::from(t));
                let i = 4 + (g.rng().next_u64() as usize + k as usize) % (n - 4);
                let mut m = bytes.clone();
                m[i] ^= 0x5a;
                check(case, &format!("seed {seed} flip {i}"), &Bytes::from(m));
            }
        }
    }
    assert!(frames > 1000, "{frames}");
}
