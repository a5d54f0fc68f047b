//! Record batches: Kafka's own byte layouts, read and written.
//!
//! The three batch vectors were built by hand from the layout Kafka's `DefaultRecordBatch`
//! and `DefaultRecord` document (CRC-32C computed independently and cross-checked with the
//! JDK's `java.util.zip.CRC32C`), not produced by this crate: (a) one record with a null key
//! and value "hello"; (b) the same with one header `h` = `v`; (c) an ABORT transaction
//! marker for producer 7, epoch 1, coordinator epoch 0. All use base offset 0, partition
//! leader epoch -1 (what the Java producer writes) and timestamp 1700000000000.

use bytes::Bytes;
use kafka_wire::records::*;
use kafka_wire_tests::hex;

const TS: i64 = 1_700_000_000_000;

pub const VEC_A: &str = "00000000000000000000003dffffffff02e641a44b0000000000000000018bcfe568000000018bcfe56800ffffffffffffffffffffffffffff0000000116000000010a68656c6c6f00";
pub const VEC_B: &str = "000000000000000000000041ffffffff028292d2ce0000000000000000018bcfe568000000018bcfe56800ffffffffffffffffffffffffffff000000011e000000010a68656c6c6f0202680276";
pub const VEC_C: &str = "000000000000000000000042ffffffff023446d1e00030000000000000018bcfe568000000018bcfe5680000000000000000070001ffffffff000000012000000008000000000c00000000000000";

fn only_batch(bytes: &[u8]) -> Batch {
    let mut it = Batches::new(Bytes::copy_from_slice(bytes), ReadOptions::default());
    let b = it.next().unwrap().unwrap();
    assert!(it.next().is_none());
    assert_eq!(it.truncated(), None);
    b
}

#[test]
fn vector_a_reads() {
    let bytes = hex(VEC_A);
    assert_eq!(bytes.len(), 73);
    let b = only_batch(&bytes);
    let h = *b.header();
    assert_eq!(h.base_offset, 0);
    assert_eq!(h.batch_length, 61);
    assert_eq!(h.partition_leader_epoch, -1);
    assert_eq!(h.magic, 2);
    assert_eq!(h.crc, 0xe641a44b);
    assert_eq!(h.compression(), Ok(Compression::None));
    assert_eq!(h.timestamp_type(), TimestampType::CreateTime);
    assert!(!h.is_transactional() && !h.is_control());
    assert_eq!((h.base_timestamp, h.max_timestamp), (TS, TS));
    assert_eq!(
        (h.producer_id, h.producer_epoch, h.base_sequence),
        (-1, -1, -1)
    );
    assert_eq!(h.record_count, 1);
    let recs = b.records().unwrap();
    assert!(!recs.is_decompressed());
    let all: Vec<_> = recs.iter().collect::<Result<_, _>>().unwrap();
    assert_eq!(all.len(), 1);
    let r = all[0];
    assert_eq!((r.offset, r.timestamp, r.sequence), (0, TS, -1));
    assert_eq!(r.key, None);
    assert_eq!(r.value, Some(&b"hello"[..]));
    assert!(r.headers.is_empty());
    // Zero-copy: the value points into the input buffer.
    let input = b.as_bytes();
    let v = r.value.unwrap();
    assert!(input.as_ptr_range().contains(&v.as_ptr()));
}

#[test]
fn vector_b_reads_header() {
    let b = only_batch(&hex(VEC_B));
    assert_eq!(b.header().crc, 0x8292d2ce);
    let recs = b.records().unwrap();
    let r = recs.iter().next().unwrap().unwrap();
    assert_eq!(r.value, Some(&b"hello"[..]));
    let hs = r.headers_vec();
    assert_eq!(
        hs,
        vec![Header {
            key: b"h",
            value: Some(b"v")
        }]
    );
}

#[test]
fn vector_c_reads_abort_marker() {
    let b = only_batch(&hex(VEC_C));
    let h = b.header();
    assert!(h.is_control() && h.is_transactional());
    assert_eq!(
        (h.producer_id, h.producer_epoch, h.base_sequence),
        (7, 1, -1)
    );
    let recs = b.records().unwrap();
    let r = recs.iter().next().unwrap().unwrap();
    assert_eq!(
        ControlRecord::parse(&r).unwrap(),
        ControlRecord::Abort(EndTxnMarker {
            version: 0,
            coordinator_epoch: 0
        })
    );
}

#[test]
fn builder_writes_the_vectors() {
    let mut b = BatchBuilder::new(0);
    b.append(TS, None, Some(b"hello"), &[]);
    assert_eq!(b.build().unwrap().as_ref(), hex(VEC_A));

    let mut b = BatchBuilder::new(0);
    b.append(TS, None, Some(b"hello"), &[NewHeader::new("h", Some(b"v"))]);
    assert_eq!(b.build().unwrap().as_ref(), hex(VEC_B));

    let mut b = BatchBuilder::new(0);
    b.producer(7, 1, -1);
    b.append_end_txn_marker(TS, false, 0);
    assert_eq!(b.build().unwrap().as_ref(), hex(VEC_C));
}

/// The hand-assembled vectors (a) and (b) through `append_all` and `Extend`.
#[test]
fn append_all_writes_the_vectors() {
    let mut b = BatchBuilder::new(0);
    b.append_all([NewRecord::new(TS, None, Some(b"hello"))]);
    assert_eq!(b.build().unwrap().as_ref(), hex(VEC_A));

    let headers = [NewHeader::new("h", Some(b"v"))];
    let records = [NewRecord::new(TS, None, Some(b"hello")).with_headers(&headers)];
    let mut b = BatchBuilder::new(0);
    b.extend(&records);
    assert_eq!(b.build().unwrap().as_ref(), hex(VEC_B));

    let mut b = BatchBuilder::new(0);
    b.extend(records.iter().copied());
    assert_eq!(b.build().unwrap().as_ref(), hex(VEC_B));
}

/// `append_all` of nothing changes nothing: no batch, or the records appended before.
#[test]
fn append_all_of_nothing() {
    let mut b = BatchBuilder::new(5);
    b.append_all(std::iter::empty());
    assert_eq!((b.len(), b.next_offset()), (0, 5));
    assert!(b.build().unwrap().is_empty());

    let mut b = BatchBuilder::new(0);
    b.append(TS, None, Some(b"hello"), &[]);
    b.append_all([]);
    assert_eq!(b.next_offset(), 1);
    assert_eq!(b.build().unwrap().as_ref(), hex(VEC_A));
}

/// `append_all` refuses at build what `append` refuses: a negative timestamp other than -1,
/// offset deltas past an int32 (the record at base + 2^31 - 1 is the last that fits), and
/// the first error is the one reported.
#[test]
fn append_all_refuses_what_append_refuses() {
    let err = |f: &dyn Fn(&mut BatchBuilder)| {
        let mut b = BatchBuilder::new(10);
        f(&mut b);
        b.build().map(|_| ()).unwrap_err().to_string()
    };
    let bad_ts = err(&|b| {
        b.append_all([
            NewRecord::new(TS, None, None),
            NewRecord::new(-2, None, None),
        ]);
    });
    assert!(bad_ts.contains("invalid negative timestamp"), "{bad_ts}");
    let mut b = BatchBuilder::new(10);
    b.append_all([
        NewRecord::new(-1, None, None),
        NewRecord::new(0, None, None),
    ]);
    let bytes = b.build().unwrap();
    let h = *only_batch(&bytes).header();
    assert_eq!((h.base_timestamp, h.max_timestamp), (-1, 0));

    let last = 10 + i64::from(i32::MAX);
    let near = |b: &mut BatchBuilder, n: usize| {
        b.append_with_offset(last - 2, TS, None, Some(b"x"), &[]);
        b.append_all((0..n).map(|_| NewRecord::new(TS, None, Some(b"y"))));
    };
    let mut b = BatchBuilder::new(10);
    near(&mut b, 2);
    assert_eq!(b.next_offset(), last + 1);
    let bytes = b.build().unwrap();
    let h = *only_batch(&bytes).header();
    assert_eq!((h.last_offset_delta, h.record_count), (i32::MAX, 3));
    let past = err(&|b| near(b, 3));
    assert!(past.contains("offset delta"), "{past}");
    let first = err(&|b| {
        near(b, 3);
        b.append_all([NewRecord::new(-7, None, None)]);
    });
    assert_eq!(first, past);
}

#[test]
fn from_header_reencodes_exactly() {
    for v in [VEC_A, VEC_B, VEC_C] {
        let bytes = hex(v);
        let b = only_batch(&bytes);
        let recs = b.records().unwrap();
        let mut w = BatchBuilder::from_header(b.header());
        for r in &recs {
            let r = r.unwrap();
            let hs: Vec<_> = r
                .headers
                .iter()
                .map(|h| NewHeader {
                    key: h.key,
                    value: h.value,
                })
                .collect();
            w.append_raw(
                r.attributes,
                r.timestamp_delta,
                r.offset_delta,
                r.key,
                r.value,
                &hs,
            );
        }
        assert_eq!(w.build().unwrap().as_ref(), bytes);
    }
}

#[test]
fn every_truncation_is_reported_as_truncated() {
    for v in [VEC_A, VEC_B, VEC_C] {
        let bytes = hex(v);
        for n in 0..bytes.len() {
            let mut it = Batches::new(Bytes::copy_from_slice(&bytes[..n]), ReadOptions::default());
            assert!(it.next().is_none(), "prefix {n}");
            if n == 0 {
                assert_eq!(it.truncated(), None);
            } else {
                let t = it.truncated().unwrap();
                assert_eq!((t.offset, t.available), (0, n));
                assert_eq!(t.size, (n >= 12).then_some(bytes.len() as u64));
            }
        }
    }
}

#[test]
fn a_complete_batch_then_a_truncated_one() {
    let mut all = hex(VEC_A);
    all.extend_from_slice(&hex(VEC_B));
    all.extend_from_slice(&hex(VEC_C)[..40]);
    let mut it = Batches::new(Bytes::from(all), ReadOptions::default());
    assert_eq!(it.next().unwrap().unwrap().index(), 0);
    let b = it.next().unwrap().unwrap();
    assert_eq!((b.index(), b.offset()), (1, 73));
    assert!(it.next().is_none());
    assert_eq!(
        it.truncated(),
        Some(TruncatedBatch {
            offset: 150,
            available: 40,
            size: Some(78)
        })
    );
}

#[test]
fn truncated_tail_with_bad_size_or_magic_is_an_error() {
    let mut bytes = hex(VEC_A)[..20].to_vec();
    bytes[11] = 13; // size 13 < 14
    let e = Batches::new(Bytes::from(bytes), ReadOptions::default())
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind(), &RecordsErrorKind::BatchTooSmall(13));
    assert_eq!((e.offset(), e.batch()), (8, 0));

    let mut bytes = hex(VEC_A)[..20].to_vec();
    bytes[16] = 3;
    let e = Batches::new(Bytes::from(bytes), ReadOptions::default())
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind(), &RecordsErrorKind::InvalidMagic(3));
    assert_eq!(e.offset(), 16);
}

#[test]
fn crc_corruption_is_detected_and_can_be_ignored() {
    let mut bytes = hex(VEC_A);
    bytes[70] ^= 0x01; // inside "hello"
    let e = Batches::new(Bytes::from(bytes.clone()), ReadOptions::default())
        .next()
        .unwrap()
        .unwrap_err();
    assert!(matches!(
        e.kind(),
        RecordsErrorKind::CrcMismatch {
            stored: 0xe641a44b,
            ..
        }
    ));
    assert_eq!(e.offset(), 17);
    let opts = ReadOptions {
        verify_crc: false,
        ..Default::default()
    };
    let b = Batches::new(Bytes::from(bytes), opts)
        .next()
        .unwrap()
        .unwrap();
    assert!(!b.crc_is_valid());
    let recs = b.records().unwrap();
    let r = recs.iter().next().unwrap().unwrap();
    assert_eq!(r.value, Some(&b"helmo"[..]));
}

#[test]
fn fields_outside_the_crc_can_change() {
    // baseOffset, batchLength-free fields partitionLeaderEpoch: not covered by the CRC.
    let mut bytes = hex(VEC_A);
    bytes[7] = 9;
    bytes[12..16].copy_from_slice(&5i32.to_be_bytes());
    let b = only_batch(&bytes);
    assert_eq!(b.header().partition_leader_epoch, 5);
    let recs = b.records().unwrap();
    let r = recs.iter().next().unwrap().unwrap();
    assert_eq!(r.offset, 9);
}

/// Every single-byte change of every vector: a typed error or a successful read, never a
/// panic; with CRC checks on, a change in the covered range is always caught.
#[test]
fn every_single_byte_mutation() {
    for v in [VEC_A, VEC_B, VEC_C] {
        let orig = hex(v);
        for i in 0..orig.len() {
            for x in [0x01u8, 0x80, 0xff, 0x40, 0x7f] {
                let mut m = orig.clone();
                m[i] ^= x;
                for verify_crc in [true, false] {
                    let opts = ReadOptions {
                        verify_crc,
                        max_decompressed_size: 1 << 20,
                    };
                    let mut errs = 0;
                    for b in Batches::new(Bytes::from(m.clone()), opts) {
                        let Ok(b) = b else {
                            errs += 1;
                            continue;
                        };
                        match b.records() {
                            Err(_) => errs += 1,
                            Ok(rs) => {
                                for r in &rs {
                                    match r {
                                        Err(_) => errs += 1,
                                        Ok(r) => {
                                            let _ = r.headers_vec();
                                            if b.header().is_control() {
                                                let _ = ControlRecord::parse(&r);
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                    if verify_crc && i >= 21 {
                        assert!(errs > 0, "mutation {x:#x} at {i} of {v} went unnoticed");
                    }
                }
            }
        }
    }
}

fn v2_errors(bytes: Vec<u8>) -> RecordsError {
    let opts = ReadOptions {
        verify_crc: false,
        ..Default::default()
    };
    let b = Batches::new(Bytes::from(bytes), opts)
        .next()
        .unwrap()
        .unwrap();
    let recs = match b.records() {
        Ok(r) => r,
        Err(e) => return e,
    };
    let e = recs.iter().find_map(Result::err).unwrap();
    e
}

#[test]
fn java_record_checks() {
    // Record count 2 with one record: premature EOF at the second record (offset 73).
    let mut m = hex(VEC_A);
    m[60] = 2;
    let e = v2_errors(m);
    assert_eq!(e.kind(), &RecordsErrorKind::PrematureEof);
    assert_eq!((e.offset(), e.batch(), e.record()), (73, 0, Some(1)));

    // Count 0: the records are never looked at.
    let mut m = hex(VEC_A);
    m[60] = 0;
    let opts = ReadOptions {
        verify_crc: false,
        ..Default::default()
    };
    let b = Batches::new(Bytes::from(m), opts).next().unwrap().unwrap();
    assert_eq!(b.records().unwrap().iter().count(), 0);

    // Negative count.
    let mut m = hex(VEC_A);
    m[57..61].copy_from_slice(&(-1i32).to_be_bytes());
    let opts = ReadOptions {
        verify_crc: false,
        ..Default::default()
    };
    let b = Batches::new(Bytes::from(m), opts).next().unwrap().unwrap();
    assert_eq!(
        b.records().unwrap_err().kind(),
        &RecordsErrorKind::NegativeRecordCount(-1)
    );

    // A trailing byte after the last record (batch length grown by one).
    let mut m = hex(VEC_A);
    m.push(0);
    m[11] += 1;
    let e = v2_errors(m);
    assert_eq!(e.kind(), &RecordsErrorKind::RecordsRemaining);
    assert_eq!(e.offset(), 73);

    // Record length 12 instead of 11: it runs past the batch.
    let mut m = hex(VEC_A);
    m[61] = 0x18;
    let e = v2_errors(m);
    assert_eq!(
        e.kind(),
        &RecordsErrorKind::RecordSizeExceeds {
            declared: 12,
            remaining: 11
        }
    );

    // Record length 10 instead of 11: the fields take more than declared.
    let mut m = hex(VEC_A);
    m[61] = 0x14;
    assert!(matches!(
        v2_errors(m).kind(),
        RecordsErrorKind::InvalidRecordStructure(_)
    ));

    // Negative header count / header key size in vector (b).
    let mut m = hex(VEC_B);
    m[72] = 0x01; // headers count -1
    assert_eq!(
        v2_errors(m).kind(),
        &RecordsErrorKind::InvalidHeaderCount(-1)
    );
    let mut m = hex(VEC_B);
    m[73] = 0x01; // header key length -1
    let e = v2_errors(m);
    assert_eq!(e.kind(), &RecordsErrorKind::NegativeHeaderKeySize(-1));
    assert_eq!((e.offset(), e.record()), (73, Some(0)));

    // Any negative key length reads as null (Java accepts -2 just like -1)... with the
    // record length adjusted: key length -2 is `03`.
    let mut m = hex(VEC_A);
    m[65] = 0x03;
    let opts = ReadOptions {
        verify_crc: false,
        ..Default::default()
    };
    let b = Batches::new(Bytes::from(m), opts).next().unwrap().unwrap();
    let recs = b.records().unwrap();
    let r = recs.iter().next().unwrap().unwrap();
    assert_eq!(r.key, None);

    // Unknown compression id 5.
    let mut m = hex(VEC_A);
    m[22] = 5;
    let opts = ReadOptions {
        verify_crc: false,
        ..Default::default()
    };
    let b = Batches::new(Bytes::from(m), opts).next().unwrap().unwrap();
    assert_eq!(
        b.records().unwrap_err().kind(),
        &RecordsErrorKind::UnknownCompression(5)
    );
}

#[test]
fn varints_follow_java() {
    // Offset delta written as a 5-byte varint with the continuation bit on the 5th byte.
    let mut b = BatchBuilder::new(0);
    b.append(TS, None, Some(b"x"), &[]);
    let mut m = b.build().unwrap().to_vec();
    // record: len, attrs, tsΔ(00), offΔ(00) -> replace offΔ by 80 80 80 80 80 00 (too long)
    let mut rec = vec![
        0u8, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01, 0x02, b'x', 0,
    ];
    rec[0] = ((rec.len() - 1) as u8) << 1;
    m.truncate(61);
    m.extend_from_slice(&rec);
    let len = (m.len() - 12) as i32;
    m[8..12].copy_from_slice(&len.to_be_bytes());
    assert!(matches!(
        v2_errors(m.clone()).kind(),
        RecordsErrorKind::InvalidRecordStructure("varint is too long")
    ));
    // The same with an overlong but terminated encoding (80 80 80 80 00 = 0) is accepted.
    let rec = [
        0x16u8, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01, 0x02, b'x', 0,
    ];
    m.truncate(61);
    m.extend_from_slice(&rec);
    let len = (m.len() - 12) as i32;
    m[8..12].copy_from_slice(&len.to_be_bytes());
    let opts = ReadOptions {
        verify_crc: false,
        ..Default::default()
    };
    let b = Batches::new(Bytes::from(m), opts).next().unwrap().unwrap();
    let recs = b.records().unwrap();
    let r = recs.iter().next().unwrap().unwrap();
    assert_eq!((r.offset_delta, r.value), (0, Some(&b"x"[..])));
}

#[test]
fn kraft_control_records() {
    // LeaderChange v0: leader 1, voters [1], granting [1], worked out from the schema.
    let v = hex("0000 00000001 02 00000001 00 02 00000001 00 00");
    let mut b = BatchBuilder::new(0);
    b.partition_leader_epoch(3);
    b.append_control(TS, ControlRecordType::LeaderChange, &v);
    let bytes = b.build().unwrap();
    let batch = only_batch(&bytes);
    assert!(batch.header().is_control() && !batch.header().is_transactional());
    let recs = batch.records().unwrap();
    let r = recs.iter().next().unwrap().unwrap();
    let ControlRecord::LeaderChange(lc) = ControlRecord::parse(&r).unwrap() else {
        panic!()
    };
    assert_eq!(lc.leader_id, 1);
    assert_eq!(lc.voters.len(), 1);
    assert_eq!(lc.voters[0].voter_id, 1);
    assert_eq!(lc.granting_voters[0].voter_id, 1);

    // Snapshot header/footer, kraft version: fixed layouts plus an empty tagged section.
    let mk = |t: ControlRecordType, v: &[u8]| {
        let mut b = BatchBuilder::new(0);
        b.append_control(TS, t, v);
        let bytes = b.build().unwrap();
        let batch = only_batch(&bytes);
        let recs = batch.records().unwrap();
        let r = recs.iter().next().unwrap().unwrap();
        ControlRecord::parse(&r)
    };
    let ControlRecord::SnapshotHeader(h) = mk(
        ControlRecordType::SnapshotHeader,
        &hex("0000 0000018bcfe56800 00"),
    )
    .unwrap() else {
        panic!()
    };
    assert_eq!(h.last_contained_log_timestamp, TS);
    assert!(matches!(
        mk(ControlRecordType::SnapshotFooter, &hex("0000 00")).unwrap(),
        ControlRecord::SnapshotFooter(_)
    ));
    let ControlRecord::KRaftVersion(k) =
        mk(ControlRecordType::KRaftVersion, &hex("0000 0001 00")).unwrap()
    else {
        panic!()
    };
    assert_eq!(k.kraft_version, 1);
    // Voters: one voter 1, directory id all-ones, endpoint CONTROLLER localhost:9093, kraft 0..1.
    let voters = hex(
        "0000 02 00000001 ffffffffffffffffffffffffffffffff 02 0b434f4e54524f4c4c4552 0a6c6f63616c686f7374 2385 00 0000 0001 00 00 00 00",
    );
    let ControlRecord::KRaftVoters(vr) = mk(ControlRecordType::KRaftVoters, &voters).unwrap()
    else {
        panic!()
    };
    assert_eq!(vr.voters[0].endpoints[0].host.as_str(), "localhost");
    assert_eq!(vr.voters[0].endpoints[0].port, 9093);
    assert_eq!(vr.voters[0].kraft_version_feature.max_supported_version, 1);
    // Unknown types are kept, short keys are errors.
    assert!(matches!(
        mk(ControlRecordType::Unknown(42), b"zz").unwrap(),
        ControlRecord::Unknown { type_id: 42, .. }
    ));
    assert_eq!(
        ControlRecordType::from_key(&[0, 0, 1])
            .map(|_| ())
            .unwrap_err(),
        RecordsErrorKind::InvalidControlRecord("control record key is shorter than 4 bytes")
    );
}

#[test]
fn builder_fields() {
    let mut b = BatchBuilder::new(100);
    b.producer(42, 3, 7)
        .transactional(true)
        .partition_leader_epoch(9);
    b.append(TS + 5, Some(b"k1"), Some(b"v1"), &[]);
    b.append(TS, Some(b"k2"), None, &[NewHeader::new("a", None)]);
    b.append_with_offset(110, TS + 2, None, Some(b"v3"), &[]);
    let bytes = b.build().unwrap();
    let batch = only_batch(&bytes);
    let h = *batch.header();
    assert_eq!(h.base_offset, 100);
    assert_eq!(h.last_offset_delta, 10);
    assert_eq!(h.last_offset(), 110);
    assert_eq!((h.base_timestamp, h.max_timestamp), (TS + 5, TS + 5));
    assert_eq!(
        (h.producer_id, h.producer_epoch, h.base_sequence),
        (42, 3, 7)
    );
    assert_eq!(h.last_sequence(), 17);
    assert!(h.is_transactional());
    assert_eq!(h.record_count, 3);
    let recs = batch.records().unwrap();
    let rs: Vec<_> = recs.iter().map(Result::unwrap).collect();
    assert_eq!(
        rs.iter().map(|r| r.offset).collect::<Vec<_>>(),
        [100, 101, 110]
    );
    assert_eq!(
        rs.iter().map(|r| r.timestamp).collect::<Vec<_>>(),
        [TS + 5, TS, TS + 2]
    );
    assert_eq!(
        rs.iter().map(|r| r.sequence).collect::<Vec<_>>(),
        [7, 8, 17]
    );
    assert_eq!(
        rs[1].headers_vec(),
        [Header {
            key: b"a",
            value: None
        }]
    );
    // Zero-copy out of the iteration.
    let v: Bytes = recs.share(rs[0].value.unwrap());
    assert_eq!(v, &b"v1"[..]);

    // LogAppendTime: every record reports the append time.
    let mut b = BatchBuilder::new(0);
    b.log_append_time(TS + 99);
    b.append(TS, None, Some(b"a"), &[]);
    b.append(TS + 1, None, Some(b"b"), &[]);
    let bytes = b.build().unwrap();
    let batch = only_batch(&bytes);
    assert_eq!(batch.header().max_timestamp, TS + 99);
    assert!(batch
        .records()
        .unwrap()
        .iter()
        .all(|r| r.unwrap().timestamp == TS + 99));

    // Java's refusals.
    let mut b = BatchBuilder::new(0);
    b.transactional(true);
    b.append(TS, None, None, &[]);
    assert!(b.build().is_err());
    let mut b = BatchBuilder::new(0);
    b.producer(1, 0, -1);
    b.append(TS, None, None, &[]);
    assert!(b.build().is_err());
    let mut b = BatchBuilder::new(0);
    b.append(-5, None, None, &[]);
    assert!(b.build().is_err());
    let mut b = BatchBuilder::new(0);
    b.append(TS, None, None, &[]);
    b.append_with_offset(0, TS, None, None, &[]);
    assert!(b.build().is_err());
    // No record: no batch, as in Java.
    assert!(BatchBuilder::new(0).build().unwrap().is_empty());
}

#[test]
fn records_type_iterates() {
    let r = kafka_wire::Records(Bytes::from(hex(VEC_A)));
    assert_eq!(r.batches().count(), 1);
}

/// The builder against an independent encoder: kafka-protocol 0.18's `RecordBatchEncoder`
/// writes the same bytes for any records (keys, values and headers of every length class,
/// null or not, varint lengths of one to three bytes). Timestamps never decrease: that crate
/// takes the smallest as the base, Java (and this crate) the first.
mod versus_kafka_protocol {
    use super::*;
    use kafka_protocol::indexmap::IndexMap;
    use kafka_protocol::protocol::StrBytes;
    use kafka_protocol::records as kp;
    use kafka_wire_bench::records::kp_record;
    use proptest::collection::vec;
    use proptest::option;
    use proptest::prelude::*;

    type Rec = (
        i64,
        Option<Vec<u8>>,
        Option<Vec<u8>>,
        Vec<(String, Option<Vec<u8>>)>,
    );

    fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![vec(any::<u8>(), 0..=17), vec(any::<u8>(), 0..=max)]
    }

    fn record() -> impl Strategy<Value = Rec> {
        (
            prop_oneof![0i64..3, 0i64..100_000],
            option::of(bytes(200)),
            option::of(bytes(9000)),
            vec(("[a-z]{0,20}", option::of(bytes(40))), 0..4),
        )
    }

    /// A record without headers: timestamp, key, value.
    type Plain = (i64, Option<Vec<u8>>, Option<Vec<u8>>);

    fn theirs_batch(base: i64, recs: &[Plain]) -> Vec<u8> {
        let theirs: Vec<kp::Record> = recs
            .iter()
            .enumerate()
            .map(|(i, (ts, k, v))| {
                let (k, v) = (k.clone().map(Bytes::from), v.clone().map(Bytes::from));
                kp_record(base, i, *ts, k, v, IndexMap::new())
            })
            .collect();
        let mut want = bytes::BytesMut::new();
        let opts = kp::RecordEncodeOptions {
            version: 2,
            compression: kp::Compression::None,
        };
        kp::RecordBatchEncoder::encode(&mut want, &theirs, &opts).unwrap();
        want.to_vec()
    }

    /// `recs` as records for `append_all`.
    fn plain(recs: &[Plain]) -> impl Iterator<Item = NewRecord<'_>> {
        recs.iter()
            .map(|(ts, k, v)| NewRecord::new(*ts, k.as_deref(), v.as_deref()))
    }

    /// A Produce request v3-v8 whose last partition's batch is built in place at the end of
    /// the encoded frame (`BatchBuilder::ending_frame`): kafka-protocol reads the frame's
    /// size, header and request, and its record decoder reads both partitions' batches to the
    /// records appended (long values through the fused CRC path, short ones beside them). An
    /// empty batch leaves the frame as encoded; frames not ending in an empty records field
    /// are refused.
    #[test]
    fn produce_frame_with_the_batch_built_in_place() {
        use kafka_protocol::protocol::Decodable;
        use kafka_wire::frame;
        use kafka_wire::{Records, RequestHeader};
        use kafka_wire_messages::{PartitionProduceData, ProduceRequest, TopicProduceData};

        let value = |i: usize| -> Vec<u8> { (0..100 + i * 37).map(|j| (j ^ i) as u8).collect() };
        let mut apart = BatchBuilder::new(0);
        apart.append(1_700_000_000_000, Some(b"first"), Some(b"apart"), &[]);
        let apart = apart.build().unwrap();
        let request = |last: Option<Records>| ProduceRequest {
            transactional_id: Some("txn-1".into()),
            acks: -1,
            timeout_ms: 30_000,
            topic_data: vec![TopicProduceData {
                name: "orders".into(),
                partition_data: vec![
                    PartitionProduceData {
                        index: 0,
                        records: Some(Records(apart.clone())),
                        ..Default::default()
                    },
                    PartitionProduceData {
                        index: 1,
                        records: last,
                        ..Default::default()
                    },
                ],
                ..Default::default()
            }],
            ..Default::default()
        };
        for version in 3..=8i16 {
            let header = RequestHeader::new(0, version, 77, Some("producer-1".into()));
            let mut prefix = Vec::new();
            frame::encode_request(&mut prefix, &header, &request(Some(Records::default())))
                .unwrap();
            let mut b = BatchBuilder::ending_frame(500, prefix.clone()).unwrap();
            b.producer(9, 0, 500);
            for i in 0..40 {
                let key = format!("key-{i}");
                b.append(
                    1_700_000_000_000 + i as i64,
                    Some(key.as_bytes()),
                    Some(&value(i)),
                    &[],
                );
            }
            let frame_bytes = b.build_vec().unwrap();
            assert_eq!(
                &frame_bytes[4..prefix.len() - 4],
                &prefix[4..prefix.len() - 4]
            );
            // kafka-protocol reads it.
            let mut buf = Bytes::from(frame_bytes.clone());
            let size = bytes::Buf::get_i32(&mut buf);
            assert_eq!(size as usize, buf.len(), "v{version}");
            let h = kafka_protocol::messages::RequestHeader::decode(&mut buf, 1).unwrap();
            assert_eq!((h.request_api_version, h.correlation_id), (version, 77));
            let req = kafka_protocol::messages::ProduceRequest::decode(&mut buf, version).unwrap();
            assert!(buf.is_empty(), "v{version}: {} bytes left", buf.len());
            assert_eq!(req.acks, -1);
            let parts = &req.topic_data[0].partition_data;
            let read = |r: &Option<Bytes>| {
                let mut r = r.clone().unwrap();
                kp::RecordBatchDecoder::decode(&mut r).unwrap().records
            };
            let first = read(&parts[0].records);
            assert_eq!(first.len(), 1);
            assert_eq!(first[0].value.as_deref(), Some(&b"apart"[..]));
            let last = read(&parts[1].records);
            assert_eq!(last.len(), 40, "v{version}");
            for (i, r) in last.iter().enumerate() {
                assert_eq!(r.offset, 500 + i as i64);
                assert_eq!(r.sequence, 500 + i as i32);
                assert_eq!(r.key.as_deref(), Some(format!("key-{i}").as_bytes()));
                assert_eq!(
                    r.value.as_deref(),
                    Some(&value(i)[..]),
                    "v{version} record {i}"
                );
            }
            // The same request encoded whole, its batch built apart: the same bytes.
            let records = Bytes::from(frame_bytes[prefix.len()..].to_vec());
            let mut whole = Vec::new();
            frame::encode_request(&mut whole, &header, &request(Some(Records(records)))).unwrap();
            assert_eq!(whole, frame_bytes, "v{version}");
            // No record: the frame as encoded, its records empty.
            let empty = BatchBuilder::ending_frame(0, prefix.clone()).unwrap();
            assert_eq!(empty.build_vec().unwrap(), prefix);
            // Not ending in an empty records field (null records: length -1), or a size that
            // does not match: refused.
            let mut null = Vec::new();
            frame::encode_request(&mut null, &header, &request(None)).unwrap();
            assert!(BatchBuilder::ending_frame(0, null).is_err());
            let mut short = prefix.clone();
            short.remove(5);
            assert!(BatchBuilder::ending_frame(0, short).is_err());
        }
        assert!(BatchBuilder::ending_frame(0, vec![0, 0, 0, 4, 0, 0, 0, 0]).is_ok());
        assert!(BatchBuilder::ending_frame(0, vec![0, 0, 0, 0]).is_err());
    }

    /// Batches whose CRC the builder folds while copying long values (on CPUs with AVX-512
    /// VPCLMULQDQ): values of every length around the 64-byte blocks, starting at every
    /// alignment of the buffer and across its reallocations, and a 1 MB batch of 1 KB values,
    /// byte for byte as kafka-protocol (`crc32c` crate) writes them.
    #[test]
    fn long_values_match_kafka_protocol() {
        let pattern = |n: usize, salt: usize| -> Vec<u8> {
            (0..n).map(|i| (i.wrapping_mul(131) ^ salt) as u8).collect()
        };
        let mut cases: Vec<Vec<Plain>> = Vec::new();
        for first in 0..70usize {
            cases.push(
                (0..6)
                    .map(|i| {
                        let len = 250 + first * 7 + i * 61;
                        let key = (i % 2 == 0).then(|| pattern(first % 20, i));
                        (
                            1_700_000_000_000 + i as i64,
                            key,
                            Some(pattern(len, first + i)),
                        )
                    })
                    .collect(),
            );
        }
        cases.push(
            (0..1000)
                .map(|i| {
                    (
                        1_700_000_000_000,
                        Some(pattern(16, i)),
                        Some(pattern(1000, i)),
                    )
                })
                .collect(),
        );
        for (n, recs) in cases.iter().enumerate() {
            for cap in [0usize, 64, 4096, 1 << 21] {
                let mut ours = BatchBuilder::with_buffer(n as i64, Vec::with_capacity(cap + n));
                for (ts, k, v) in recs {
                    ours.append(*ts, k.as_deref(), v.as_deref(), &[]);
                }
                let got = ours.build().unwrap();
                let want = theirs_batch(n as i64, recs);
                assert_eq!(&got[..], &want[..], "case {n} capacity {cap}");
                let mut all = BatchBuilder::with_buffer(n as i64, Vec::with_capacity(cap + n));
                all.append_all(plain(recs));
                let got = all.build().unwrap();
                assert!(got[..] == want[..], "append_all: case {n} capacity {cap}");
            }
        }
    }

    /// The builder's one-store path for a record with a value (no headers, a key of at most
    /// 16 bytes, timestamp and offset deltas whose varints take one or two bytes, a value
    /// under 8,000 bytes) and the general path beside it, at each edge between them: deltas
    /// whose zigzag varint grows from one to two to three bytes (63/64, 8191/8192; rising
    /// only, as kafka-protocol takes the smallest timestamp as the base), offsets
    /// past 8,191, keys of 0, 16 and 17 bytes or none, values of 17 bytes to past 8,000;
    /// and our reader reads kafka-protocol's batches back to those records.
    #[test]
    fn record_path_edges_match_kafka_protocol() {
        let value =
            |n: usize, salt: usize| -> Vec<u8> { (0..n).map(|i| (i ^ salt) as u8).collect() };
        let keys = [None, Some(0usize), Some(16), Some(17)];
        let lens = [17usize, 255, 256, 1000, 7940, 7960, 7999, 8000, 8191];
        let mut recs: Vec<Plain> = Vec::new();
        for (i, delta) in [0i64, 63, 64, 8191, 8192, 1 << 20].into_iter().enumerate() {
            for (j, &k) in keys.iter().enumerate() {
                for (l, &len) in lens.iter().enumerate() {
                    let salt = i * 100 + j * 10 + l;
                    let key = k.map(|n| value(n, salt + 1));
                    recs.push((1_700_000_000_000 + delta, key, Some(value(len, salt))));
                }
            }
        }
        // Offset deltas past 8,191 (a three-byte varint), values long and short.
        let mut many: Vec<Plain> = (0..8300usize)
            .map(|i| {
                (
                    1_700_000_000_000,
                    Some(value(16, i)),
                    Some(value(20 + i % 300, i)),
                )
            })
            .collect();
        many.extend(recs.iter().take(40).cloned());
        for (n, recs) in [recs, many].iter().enumerate() {
            let mut ours = BatchBuilder::new(n as i64);
            for (ts, k, v) in recs {
                ours.append(*ts, k.as_deref(), v.as_deref(), &[]);
            }
            let got = ours.build().unwrap();
            let want = theirs_batch(n as i64, recs);
            assert!(got[..] == want[..], "case {n}");
            let mut all = BatchBuilder::new(n as i64);
            all.append_all(plain(recs));
            assert!(all.build().unwrap()[..] == want[..], "append_all: case {n}");
            // Our reader, on what kafka-protocol wrote, gives back the records it was given
            // (one- to three-byte varints in each leading field: the 8-byte fast path of the
            // record walk and the byte-by-byte path it falls back to).
            let batch = Batches::new(Bytes::from(want), ReadOptions::default())
                .next()
                .unwrap()
                .unwrap();
            let read: Vec<Plain> = batch
                .records()
                .unwrap()
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let r = r.unwrap();
                    assert_eq!(r.offset, n as i64 + i as i64, "case {n}");
                    (
                        r.timestamp,
                        r.key.map(<[u8]>::to_vec),
                        r.value.map(<[u8]>::to_vec),
                    )
                })
                .collect();
            assert!(&read == recs, "read: case {n}");
        }
    }

    /// A batch appended after other bytes (`appending_to`) is those bytes followed by what
    /// kafka-protocol's encoder writes, for prefixes of every length around the 64-byte
    /// lines (the fused CRC aligns its blocks to them) and values short and long; with no
    /// record, nothing is added.
    #[test]
    fn batch_appended_in_place_after_a_prefix() {
        let recs: Vec<Plain> = (0..40usize)
            .map(|i| {
                let len = [3, 255, 256, 1000, 5000][i % 5] + i;
                let key = (i % 3 != 0).then(|| vec![i as u8; i % 20]);
                let value = (0..len).map(|j| (j * 7 + i) as u8).collect();
                (1_700_000_000_000 + i as i64, key, Some(value))
            })
            .collect();
        let want = theirs_batch(9, &recs);
        for pre in (0..130).chain([1000, 4097]) {
            let prefix: Vec<u8> = (0..pre).map(|i| (i * 13) as u8).collect();
            let mut b = BatchBuilder::appending_to(9, prefix.clone());
            for (ts, k, v) in &recs {
                b.append(*ts, k.as_deref(), v.as_deref(), &[]);
            }
            let got = b.build_vec().unwrap();
            assert_eq!(&got[..pre], &prefix[..], "prefix {pre}");
            assert!(got[pre..] == want[..], "prefix {pre}: batch differs");
            let empty = BatchBuilder::appending_to(9, prefix.clone());
            assert_eq!(empty.build_vec().unwrap(), prefix);
            // Compressed: the prefix is kept and the batch is the one built apart.
            let build = |mut b: BatchBuilder| {
                b.compression(Compression::Gzip);
                for (ts, k, v) in &recs {
                    b.append(*ts, k.as_deref(), v.as_deref(), &[]);
                }
                b.build_vec().unwrap()
            };
            let apart = build(BatchBuilder::new(9));
            let got = build(BatchBuilder::appending_to(9, prefix.clone()));
            assert_eq!(&got[..pre], &prefix[..], "gzip, prefix {pre}");
            assert!(got[pre..] == apart[..], "gzip, prefix {pre}: batch differs");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn builder_writes_what_kafka_protocol_writes(
            base in 0i64..1 << 40,
            first_ts in 0i64..1 << 42,
            recs in vec(record(), 1..60),
        ) {
            let mut ours = BatchBuilder::new(base);
            let mut theirs = Vec::new();
            let mut ts = first_ts;
            for (i, (step, key, value, headers)) in recs.iter().enumerate() {
                ts += step;
                // Unique header keys: kafka-protocol keeps headers in a map.
                let headers: Vec<(String, Option<Vec<u8>>)> = headers
                    .iter()
                    .enumerate()
                    .map(|(j, (k, v))| (format!("{j}{k}"), v.clone()))
                    .collect();
                let ours_h: Vec<NewHeader<'_>> = headers
                    .iter()
                    .map(|(k, v)| NewHeader::new(k, v.as_deref()))
                    .collect();
                ours.append(ts, key.as_deref(), value.as_deref(), &ours_h);
                let mut map = IndexMap::new();
                for (k, v) in &headers {
                    map.insert(StrBytes::from_string(k.clone()), v.clone().map(Bytes::from));
                }
                let (key, value) = (key.clone().map(Bytes::from), value.clone().map(Bytes::from));
                theirs.push(kp_record(base, i, ts, key, value, map));
            }
            let mut want = bytes::BytesMut::new();
            let opts = kp::RecordEncodeOptions { version: 2, compression: kp::Compression::None };
            kp::RecordBatchEncoder::encode(&mut want, &theirs, &opts).unwrap();
            let got = ours.build().unwrap();
            prop_assert_eq!(&got[..], &want[..]);
        }

        /// `append_all` (with headers, null keys and values, values long enough for the fused
        /// CRC path) writes what kafka-protocol's encoder writes, and kafka-protocol's decoder
        /// reads it back to the records given.
        #[test]
        fn append_all_writes_what_kafka_protocol_writes(
            base in 0i64..1 << 40,
            first_ts in 0i64..1 << 42,
            recs in vec(record(), 0..60),
        ) {
            let mut theirs = Vec::new();
            let mut ts = first_ts;
            let mut owned = Vec::new();
            for (i, (step, key, value, headers)) in recs.iter().enumerate() {
                ts += step;
                let headers: Vec<(String, Option<Vec<u8>>)> = headers
                    .iter()
                    .enumerate()
                    .map(|(j, (k, v))| (format!("{j}{k}"), v.clone()))
                    .collect();
                let mut map = IndexMap::new();
                for (k, v) in &headers {
                    map.insert(StrBytes::from_string(k.clone()), v.clone().map(Bytes::from));
                }
                let (k, v) = (key.clone().map(Bytes::from), value.clone().map(Bytes::from));
                theirs.push(kp_record(base, i, ts, k, v, map));
                owned.push((ts, key.clone(), value.clone(), headers));
            }
            let hs: Vec<Vec<NewHeader<'_>>> = owned
                .iter()
                .map(|(_, _, _, h)| h.iter().map(|(k, v)| NewHeader::new(k, v.as_deref())).collect())
                .collect();
            let news: Vec<NewRecord<'_>> = owned
                .iter()
                .zip(&hs)
                .map(|((ts, k, v, _), h)| {
                    NewRecord::new(*ts, k.as_deref(), v.as_deref()).with_headers(h)
                })
                .collect();
            let mut ours = BatchBuilder::new(base);
            ours.append_all(news.iter().copied());
            let got = ours.build().unwrap();
            if theirs.is_empty() {
                prop_assert!(got.is_empty());
                return Ok(());
            }
            let mut want = bytes::BytesMut::new();
            let opts = kp::RecordEncodeOptions { version: 2, compression: kp::Compression::None };
            kp::RecordBatchEncoder::encode(&mut want, &theirs, &opts).unwrap();
            prop_assert_eq!(&got[..], &want[..]);
            let mut buf = got.clone();
            let read = kp::RecordBatchDecoder::decode(&mut buf).unwrap().records;
            prop_assert_eq!(read.len(), theirs.len());
            for (r, t) in read.iter().zip(&theirs) {
                prop_assert_eq!(r.offset, t.offset);
                prop_assert_eq!(r.timestamp, t.timestamp);
                prop_assert_eq!(&r.key, &t.key);
                prop_assert_eq!(&r.value, &t.value);
                prop_assert_eq!(&r.headers, &t.headers);
            }
        }
    }
}

/// CRC-32C against published values (the CRC catalogue's check value; RFC 3720 appendix B.4)
/// and against the bitwise definition (reflected polynomial 0x82F63B78) at lengths around
/// every block size an accelerated implementation switches at; CRC-32 (IEEE) check value.
#[test]
fn checksums_match_their_definitions() {
    assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
    assert_eq!(crc32c(&[0xffu8; 32]), 0x62A8_AB43);
    let up: Vec<u8> = (0..32).collect();
    assert_eq!(crc32c(&up), 0x46DD_794E);
    let down: Vec<u8> = (0..32).rev().collect();
    assert_eq!(crc32c(&down), 0x113F_DB5C);
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);

    fn bitwise(data: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in data {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    (c >> 1) ^ 0x82F6_3B78
                } else {
                    c >> 1
                };
            }
        }
        !c
    }
    let data: Vec<u8> = (0u32..70_000)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut lens: Vec<usize> = (0..=300).collect();
    for k in [512usize, 1024, 2048, 4096, 8192, 16384, 65536] {
        lens.extend([k - 1, k, k + 1, k + 63]);
    }
    for len in lens {
        for start in [0usize, 1, 7] {
            let d = &data[start..start + len];
            assert_eq!(crc32c(d), bitwise(d), "length {len} at {start}");
        }
    }
}

/// `append_all` against one `append` per record, on random records around every edge: empty
/// and single-record runs, runs between per-record appends, headers, null keys and values,
/// values on both sides of the fused CRC path's 256 bytes, timestamps -1 and invalid
/// negative ones, offsets wrapping past i64::MAX and offset deltas up to and past an int32
/// (after an `append_with_offset` near base + 2^31 - 1), every codec. The two builders must
/// give the same bytes, or the same error.
mod append_all_equals_append {
    use super::*;
    use proptest::collection::vec;
    use proptest::option;
    use proptest::prelude::*;

    type Rec = (
        i64,
        Option<Vec<u8>>,
        Option<Vec<u8>>,
        Vec<(String, Option<Vec<u8>>)>,
    );

    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            vec(any::<u8>(), 0..=17),
            vec(any::<u8>(), 240..=300),
            vec(any::<u8>(), 0..=5000),
        ]
    }

    fn record() -> impl Strategy<Value = Rec> {
        (
            prop_oneof![
                8 => TS..TS + 1000,
                1 => Just(-1i64),
                1 => Just(0i64),
                1 => -3i64..-1,
                1 => Just(i64::MAX),
            ],
            option::of(bytes()),
            option::of(bytes()),
            prop_oneof![
                3 => Just(Vec::new()),
                1 => vec(("[a-z]{0,5}", option::of(vec(any::<u8>(), 0..40))), 1..3),
            ],
        )
    }

    fn append(b: &mut BatchBuilder, (ts, k, v, h): &Rec) {
        let hs: Vec<NewHeader<'_>> = h
            .iter()
            .map(|(k, v)| NewHeader::new(k, v.as_deref()))
            .collect();
        b.append(*ts, k.as_deref(), v.as_deref(), &hs);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn same_bytes_or_same_error(
            base in prop_oneof![0i64..1000, i64::MAX - 20..=i64::MAX, -1000i64..0],
            jump in option::of(0i64..4),
            codec in 0usize..5,
            recs in vec(record(), 0..24),
            split in (0usize..24, 0usize..24),
        ) {
            let codec = Compression::ALL[codec];
            let n = recs.len();
            let (a, b) = (split.0.min(n), split.1.min(n));
            let (from, to) = (a.min(b), a.max(b));
            let start = |b: &mut BatchBuilder| {
                b.compression(codec);
                if let Some(k) = jump {
                    // The next offsets' deltas reach an int32's maximum k + 1 records on.
                    let at = base.wrapping_add(i64::from(i32::MAX) - k - 1);
                    b.append_with_offset(at, TS, None, Some(b"jump"), &[]);
                }
            };
            let mut one = BatchBuilder::new(base);
            start(&mut one);
            for r in &recs {
                append(&mut one, r);
            }
            let mut all = BatchBuilder::new(base);
            start(&mut all);
            for r in &recs[..from] {
                append(&mut all, r);
            }
            let hs: Vec<Vec<NewHeader<'_>>> = recs[from..to]
                .iter()
                .map(|(_, _, _, h)| h.iter().map(|(k, v)| NewHeader::new(k, v.as_deref())).collect())
                .collect();
            all.append_all(recs[from..to].iter().zip(&hs).map(|((ts, k, v, _), h)| {
                NewRecord::new(*ts, k.as_deref(), v.as_deref()).with_headers(h)
            }));
            for r in &recs[to..] {
                append(&mut all, r);
            }
            prop_assert_eq!(all.len(), one.len());
            prop_assert_eq!(all.next_offset(), one.next_offset());
            let (all, one) = (all.build(), one.build());
            match (&all, &one) {
                (Ok(x), Ok(y)) => prop_assert!(x == y, "{codec}: batches differ"),
                _ => prop_assert_eq!(all, one),
            }
        }
    }
}
