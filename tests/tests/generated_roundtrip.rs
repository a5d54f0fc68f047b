//! Round trips of every declared message (enumerated from the dispatch, so every API added
//! is covered without touching this file) at every version, with generated values: non-default
//! values in every field the version has, nulls where nullable, tagged fields present, and
//! unknown tagged fields at every level of flexible versions (see `kafka_wire_tests::gen`).
//!
//! For each whole frame: the bytes the metadata-driven codec writes for the value decode with
//! the typed codec (`RequestFrame` / `ResponseFrame`), re-encode byte for byte, with the exact
//! size predicted; and decode back (dynamically) to the generated value, unknown tagged fields
//! included.

use bytes::Bytes;
use kafka_wire::dynamic::{self, default_value, BodySpec, StructValue, Value};
use kafka_wire::frame::DecodeOptions;
use kafka_wire::{ApiKind, Version};
use kafka_wire_messages::{ApiKey, RequestFrame, ResponseFrame};
use kafka_wire_tests::cases::{all_cases, generated_frame, Case};
use kafka_wire_tests::gen::{Coverage, Generator};

/// Values per message version: seed 0 without nulls, seed 1 with every allowed null, the rest
/// mixed.
const SEEDS: u64 = 6;

/// Every field the version has holds a non-default value, at every depth.
fn assert_all_non_default(s: &StructValue, v: Version, path: &str) {
    for (f, val) in s.meta.fields.iter().zip(&s.fields) {
        let here = format!("{path}.{}", f.rust_name);
        if !f.versions.contains(v) {
            assert_eq!(*val, default_value(f), "{here}: absent at v{v} but set");
            continue;
        }
        assert_ne!(*val, default_value(f), "{here}: default at v{v}");
        walk(val, v, &here);
    }
    if s.meta.flexible.contains(v) && s.meta.unknown_tagged_field.is_some() {
        assert!(!s.unknown.is_empty(), "{path}: no unknown tagged field");
    }
}

fn walk(val: &Value, v: Version, path: &str) {
    match val {
        Value::Struct(s) => assert_all_non_default(s, v, path),
        Value::Array(items) => {
            assert!(!items.is_empty(), "{path}: empty array");
            for (i, item) in items.iter().enumerate() {
                walk(item, v, &format!("{path}[{i}]"));
            }
        }
        _ => {}
    }
}

fn roundtrip(case: Case, seed: u64, coverage: &mut Coverage) -> usize {
    let mut g = Generator::new(seed);
    let frame = generated_frame(case, &mut g);
    *coverage += g.coverage;
    if seed == 0 {
        assert_all_non_default(&frame.body, case.version, &case.to_string());
    }
    let bytes = dynamic::encode_frame(&frame).unwrap_or_else(|e| panic!("{case} seed {seed}: {e}"));
    let buf = Bytes::from(bytes.clone());
    let (again, size) = match case.kind {
        ApiKind::Request => {
            let typed = RequestFrame::decode(&buf, &DecodeOptions::DEFAULT)
                .unwrap_or_else(|e| panic!("{case} seed {seed}: typed decode: {e}"))
                .frame;
            assert_eq!(typed.api_key(), case.api);
            assert_eq!(typed.version(), case.version);
            (typed.to_vec(), typed.encoded_size())
        }
        ApiKind::Response => {
            let typed =
                ResponseFrame::decode(&buf, case.api, case.version, &DecodeOptions::DEFAULT)
                    .unwrap_or_else(|e| panic!("{case} seed {seed}: typed decode: {e}"))
                    .frame;
            (typed.to_vec(), typed.encoded_size())
        }
    };
    let again = again.unwrap_or_else(|e| panic!("{case} seed {seed}: typed encode: {e}"));
    assert_eq!(again, bytes, "{case} seed {seed}: typed re-encode differs");
    assert_eq!(size, bytes.len(), "{case} seed {seed}: encoded_size");

    let back = match case.kind {
        ApiKind::Request => dynamic::decode_request_frame(
            &buf,
            |k| ApiKey::from_i16(k).map(|a| a.request_meta()),
            None,
            &DecodeOptions::DEFAULT,
        )
        .map(|d| d.frame),
        ApiKind::Response => dynamic::decode_response_frame(
            &buf,
            BodySpec {
                api_key: case.api.key(),
                meta: case.meta(),
                version: case.version,
            },
            None,
            &DecodeOptions::DEFAULT,
        )
        .map(|d| d.frame),
    }
    .unwrap_or_else(|e| panic!("{case} seed {seed}: decode: {e}"));
    assert_eq!(back.body.unknown, frame.body.unknown, "{case} seed {seed}");
    assert_eq!(back, frame, "{case} seed {seed}: decoded value differs");
    bytes.len()
}

#[test]
fn every_message_every_version_generated_values() {
    let cases = all_cases();
    let mut coverage = Coverage::default();
    let mut frames = 0;
    let mut bytes = 0;
    for &case in &cases {
        for seed in 0..SEEDS {
            bytes += roundtrip(case, seed, &mut coverage);
            frames += 1;
        }
    }
    let apis = ApiKey::ALL.len();
    println!(
        "{apis} APIs, {} message versions, {frames} frames ({bytes} bytes) round-tripped; {coverage:?}",
        cases.len()
    );
    assert!(coverage.nulls > 0 && coverage.tagged > 0 && coverage.unknown_tagged > 0);
}
