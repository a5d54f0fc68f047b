//! Record batches across magics and codecs. The first input byte picks the mode:
//!
//! - bits 0-2: a codec id (only used by the wrapped mode);
//! - bit 3: 0 = the rest is a whole record set; 1 = the rest is the records section of a
//!   magic-2 batch with that codec, wrapped in a valid header (so the fuzzer reaches the
//!   decompressors and the record parser without having to find a CRC);
//! - bit 4: verify CRCs (otherwise off, so mutated batches get past the checksum).
//!
//! Checks: no panic; errors with an offset inside the input (or the decompressed records)
//! and a working `Display`; allocation bounded by the input plus the decompression limit;
//! every uncompressed magic-2 batch whose records all read is re-encoded from its decoded
//! header and records; the re-encoding reads back to the same header and records, and
//! re-encoding that gives the same bytes again (bytes differ from the input only where Kafka
//! allows more than one encoding: overlong varints, negative lengths other than -1).
#![no_main]

use bytes::Bytes;
use kafka_wire::records::{BatchBuilder, Batches, ControlRecord, NewHeader, ReadOptions, Record};
use kafka_wire_fuzz::{measure, ALLOC_FACTOR, ALLOC_SLACK};
use libfuzzer_sys::fuzz_target;

const LIMIT: usize = 256 * 1024;

#[derive(Debug, PartialEq)]
struct Owned {
    attributes: i8,
    timestamp_delta: i64,
    offset_delta: i32,
    offset: i64,
    timestamp: i64,
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

fn owned(r: &Record<'_>) -> Owned {
    Owned {
        attributes: r.attributes,
        timestamp_delta: r.timestamp_delta,
        offset_delta: r.offset_delta,
        offset: r.offset,
        timestamp: r.timestamp,
        key: r.key.map(<[u8]>::to_vec),
        value: r.value.map(<[u8]>::to_vec),
        headers: r
            .headers
            .iter()
            .map(|h| (h.key.to_vec(), h.value.map(<[u8]>::to_vec)))
            .collect(),
    }
}

fn rebuild(header: &kafka_wire::records::BatchHeader, recs: &[Owned]) -> Bytes {
    let mut w = BatchBuilder::from_header(header);
    for r in recs {
        let hs: Vec<_> = r
            .headers
            .iter()
            .map(|(k, v)| NewHeader {
                key: k,
                value: v.as_deref(),
            })
            .collect();
        w.append_raw(
            r.attributes,
            r.timestamp_delta,
            r.offset_delta,
            r.key.as_deref(),
            r.value.as_deref(),
            &hs,
        );
    }
    w.build().expect("a decoded batch re-encodes")
}

fn read_all(input: Bytes, opts: ReadOptions, check_reencode: bool) {
    let len = input.len();
    let mut batches = Batches::new(input, opts);
    for batch in &mut batches {
        let batch = match batch {
            Ok(b) => b,
            Err(e) => {
                assert!(e.offset() <= len, "{e}");
                let _ = e.to_string();
                return;
            }
        };
        let recs = match batch.records() {
            Ok(r) => r,
            Err(e) => {
                let bound = if e.in_decompressed() { LIMIT } else { len };
                assert!(e.offset() <= bound, "{e}");
                let _ = e.to_string();
                continue;
            }
        };
        let mut all = Vec::new();
        let mut ok = true;
        for r in &recs {
            match r {
                Ok(r) => {
                    if batch.header().is_control() {
                        let _ = ControlRecord::parse(&r);
                    }
                    all.push(owned(&r));
                }
                Err(e) => {
                    let bound = if e.in_decompressed() { LIMIT } else { len };
                    assert!(e.offset() <= bound, "{e}");
                    let _ = e.to_string();
                    ok = false;
                }
            }
        }
        let h = *batch.header();
        if check_reencode && ok && h.magic == 2 && !recs.is_decompressed() {
            let once = rebuild(&h, &all);
            let back = Batches::new(once.clone(), ReadOptions::default())
                .next()
                .expect("one batch")
                .expect("re-encoded batch reads");
            let mut h2 = *back.header();
            // Only these three are computed rather than copied.
            h2.crc = h.crc;
            h2.batch_length = h.batch_length;
            h2.record_count = h.record_count;
            assert_eq!(h2, h);
            let recs2 = back.records().expect("records of the re-encoding");
            let all2: Vec<_> = recs2.iter().map(|r| owned(&r.expect("record"))).collect();
            // Negative lengths other than -1 read as null, so compare what was read.
            assert_eq!(all2, all);
            assert_eq!(rebuild(back.header(), &all2), once);
        }
    }
    let _ = batches.truncated();
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let opts = ReadOptions {
        verify_crc: mode & 0x10 != 0,
        max_decompressed_size: LIMIT,
    };
    let input = if mode & 0x08 == 0 {
        Bytes::copy_from_slice(rest)
    } else {
        let codec = mode & 0x07;
        let Some((count, section)) = rest.split_first_chunk::<2>() else {
            return;
        };
        let mut b = vec![0u8; 61];
        b[16] = 2;
        b[22] = codec;
        b[43..53].copy_from_slice(&[0xff; 10]);
        b[57..61].copy_from_slice(&i32::from(u16::from_be_bytes(*count)).to_be_bytes());
        b.extend_from_slice(section);
        let l = (b.len() - 12) as i32;
        b[8..12].copy_from_slice(&l.to_be_bytes());
        let crc = kafka_wire::records::crc32c(&b[21..]);
        b[17..21].copy_from_slice(&crc.to_be_bytes());
        Bytes::from(b)
    };
    let len = input.len();
    let ((), allocated) = measure(|| read_all(input, opts, true));
    // The re-encoding check allocates its own copies: bound generously, but far below what
    // an unbounded decompression (or a pre-size from a count) would take.
    assert!(
        allocated <= 4 * ALLOC_FACTOR * len + 8 * LIMIT + ALLOC_SLACK,
        "{len} input bytes allocated {allocated}"
    );
});
