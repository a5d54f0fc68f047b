//! Writes realistic seed inputs for the `records` target into a directory: record sets of a
//! few hundred bytes to about 60 KB in every codec and every magic, as the target reads them
//! (a mode byte, then the set; see `fuzz_targets/records.rs`).
//!
//! - magic 2 batches from our builder: each codec, 1 to 400 records of 0 B to 4 KB values,
//!   with keys, headers and nulls, idempotent, transactional, LogAppendTime and
//!   delete-horizon batches, several batches in one set, a truncated final batch;
//! - control batches: commit and abort markers, and each KRaft control record;
//! - legacy magic 0 and 1 message sets, plain and as compressed wrapper messages, laid out
//!   by hand from the message format (Kafka's `LegacyRecord`);
//! - the same record sections in the wrapped mode (bit 3), so mutations reach the
//!   decompressors and the record parser behind a valid header and CRC.
//!
//! Each set goes in twice: with the CRC check on (mode bit 4) and off. The committed seeds in
//! `seeds/records/` (kafka-python's and librdkafka's batches, the reference vectors) are
//! independent of this writer; these add size and variety for the mutator to work from.
//!
//! ```sh
//! cargo run --manifest-path fuzz/Cargo.toml --no-default-features --example records_seeds -- fuzz/corpus/records
//! ```

use kafka_wire::records::{
    compress, crc32, BatchBuilder, Compression, ControlRecordType, KRaftVersionRecord,
    LeaderChangeMessage, LeaderChangeVoter, NewHeader, SnapshotFooterRecord, SnapshotHeaderRecord,
};
use kafka_wire::{KafkaMessage, UnknownTaggedFields, Uuid};
use kafka_wire_fuzz::seeds::SeedDir;

const TS: i64 = 1_700_000_000_000;

/// Text-like bytes (so the codecs have something to compress), varying with `seed`.
fn text(seed: usize, len: usize) -> Vec<u8> {
    format!("value {seed} of the seed corpus, ")
        .bytes()
        .cycle()
        .take(len)
        .collect()
}

/// A magic-2 batch of `n` records of `value_len` bytes (every seventh key null, every fifth
/// value null, every third record with two headers).
fn batch(codec: Compression, base: i64, n: usize, value_len: usize, flavour: u8) -> Vec<u8> {
    let mut b = BatchBuilder::new(base);
    b.compression(codec);
    match flavour {
        1 => {
            b.producer(4000, 3, 17);
        }
        2 => {
            b.producer(4001, 0, 0).transactional(true);
        }
        3 => {
            b.log_append_time(TS + 5000);
        }
        4 => {
            b.delete_horizon(TS - 1000);
        }
        _ => {}
    }
    for i in 0..n {
        let key = format!("key-{i}");
        let value = text(i, value_len);
        let h1 = format!("h{i}");
        let headers = [
            NewHeader::new("trace", Some(h1.as_bytes())),
            NewHeader::new("empty", None),
        ];
        b.append(
            TS + (i as i64 * 37) % 1000,
            (i % 7 != 0).then_some(key.as_bytes()),
            (i % 5 != 0).then_some(&value[..]),
            if i % 3 == 0 { &headers[..] } else { &[] },
        );
    }
    b.build().expect("seed batch").to_vec()
}

/// A control batch holding one control record of `kind` with `value`.
fn control(kind: ControlRecordType, value: &[u8]) -> Vec<u8> {
    let mut b = BatchBuilder::new(100);
    b.producer(4001, 0, -1).transactional(true);
    b.append_control(TS, kind, value);
    b.build().expect("control batch").to_vec()
}

/// One legacy message (magic 0 or 1) at `offset`, laid out as Kafka's `LegacyRecord`:
/// offset, size, CRC-32 of the rest, magic, attributes, [timestamp,] key, value.
fn legacy(magic: u8, offset: i64, codec: u8, key: Option<&[u8]>, value: Option<&[u8]>) -> Vec<u8> {
    let mut body = vec![magic, codec];
    if magic == 1 {
        body.extend_from_slice(&TS.to_be_bytes());
    }
    for part in [key, value] {
        match part {
            None => body.extend_from_slice(&(-1i32).to_be_bytes()),
            Some(p) => {
                body.extend_from_slice(&(p.len() as i32).to_be_bytes());
                body.extend_from_slice(p);
            }
        }
    }
    let mut m = offset.to_be_bytes().to_vec();
    m.extend_from_slice(&(body.len() as i32 + 4).to_be_bytes());
    m.extend_from_slice(&crc32(&body).to_be_bytes());
    m.extend_from_slice(&body);
    m
}

/// A legacy set of `n` messages, or (codec not none) one wrapper message whose value is the
/// compressed set (inner offsets relative from 0 in magic 1, absolute in magic 0).
fn legacy_set(magic: u8, codec: Compression, n: usize, value_len: usize) -> Vec<u8> {
    let mut inner = Vec::new();
    for i in 0..n {
        let key = format!("k{i}");
        inner.extend(legacy(
            magic,
            i as i64,
            0,
            (i % 4 != 0).then_some(key.as_bytes()),
            Some(&text(i, value_len)),
        ));
    }
    if codec == Compression::None {
        return inner;
    }
    let packed = compress(codec, magic as i8, &inner, None).expect("compress legacy");
    let last = if magic == 0 {
        n as i64 - 1
    } else {
        n as i64 - 1 + 500
    };
    legacy(magic, last, codec.id(), None, Some(&packed))
}

/// The records section of a magic-2 batch (after the 61-byte header): what wrapped mode takes.
fn section(b: &[u8]) -> &[u8] {
    &b[61..]
}

fn main() {
    let out = std::env::args().nth(1).expect("usage: records_seeds DIR");
    let mut seeds = SeedDir::create(out.as_str());
    let mut sets: Vec<(String, Vec<u8>)> = Vec::new();
    let mut wrapped: Vec<(String, u8, u16, Vec<u8>)> = Vec::new();

    for codec in Compression::ALL {
        for (n, len) in [
            (1, 0),
            (3, 10),
            (40, 100),
            (200, 20),
            (60, 1000),
            (14, 4000),
            (400, 120),
        ] {
            for flavour in 0..5u8 {
                if flavour != 0 && n != 40 {
                    continue;
                }
                let b = batch(codec, 1000 + n as i64, n, len, flavour);
                wrapped.push((
                    format!("m2_{codec}_{n}x{len}_f{flavour}"),
                    codec.id(),
                    n as u16,
                    section(&b).to_vec(),
                ));
                sets.push((format!("m2_{codec}_{n}x{len}_f{flavour}"), b));
            }
        }
        // Several batches in one set, the last one cut short (as a Fetch response may end).
        let mut several = Vec::new();
        for (i, n) in [5usize, 30, 12].into_iter().enumerate() {
            several.extend(batch(codec, several.len() as i64, n, 300, i as u8));
        }
        sets.push((format!("m2_{codec}_three"), several.clone()));
        let cut = several.len() - 100;
        several.truncate(cut);
        sets.push((format!("m2_{codec}_truncated_tail"), several));
    }

    // Control batches: transaction markers and the KRaft control records.
    let tagged = UnknownTaggedFields::default;
    let voter = |id| LeaderChangeVoter {
        voter_id: id,
        voter_directory_id: Uuid::default(),
        unknown_tagged_fields: tagged(),
    };
    let leader = LeaderChangeMessage {
        version: 0,
        leader_id: 2,
        voters: vec![voter(1), voter(2), voter(3)],
        granting_voters: vec![voter(2), voter(3)],
        unknown_tagged_fields: tagged(),
    };
    let header = SnapshotHeaderRecord {
        version: 0,
        last_contained_log_timestamp: TS,
        unknown_tagged_fields: tagged(),
    };
    let footer = SnapshotFooterRecord {
        version: 0,
        unknown_tagged_fields: tagged(),
    };
    let kraft = KRaftVersionRecord {
        version: 0,
        kraft_version: 1,
        unknown_tagged_fields: tagged(),
    };
    let values: Vec<(ControlRecordType, Vec<u8>)> = vec![
        (ControlRecordType::Commit, vec![0, 0, 0, 0, 0, 7]),
        (ControlRecordType::Abort, vec![0, 0, 0, 0, 0, 9]),
        (
            ControlRecordType::LeaderChange,
            leader.encode_to_vec(0).expect("leader change"),
        ),
        (
            ControlRecordType::SnapshotHeader,
            header.encode_to_vec(0).expect("snapshot header"),
        ),
        (
            ControlRecordType::SnapshotFooter,
            footer.encode_to_vec(0).expect("snapshot footer"),
        ),
        (
            ControlRecordType::KRaftVersion,
            kraft.encode_to_vec(0).expect("kraft version"),
        ),
    ];
    let mut markers = Vec::new();
    for (kind, value) in &values {
        let c = control(*kind, value);
        markers.extend_from_slice(&c);
        sets.push((format!("control_{}", kind.id()), c));
    }
    // A data batch followed by every control batch, as a transactional partition reads.
    let mut mixed = batch(Compression::None, 0, 20, 50, 2);
    mixed.extend(markers);
    sets.push(("control_mixed".into(), mixed));

    // Legacy message sets, plain and compressed (magic 0 and 1 support gzip, snappy, lz4).
    for magic in [0u8, 1] {
        for codec in &Compression::ALL[..4] {
            for (n, len) in [(1, 10), (30, 100), (50, 1000)] {
                sets.push((
                    format!("m{magic}_{codec}_{n}x{len}"),
                    legacy_set(magic, *codec, n, len),
                ));
            }
        }
    }

    for (name, set) in sets {
        for (mode, tag) in [(0x00u8, "nocrc"), (0x10, "crc")] {
            let mut input = vec![mode];
            input.extend_from_slice(&set);
            seeds.write(&format!("{name}_{tag}"), &input);
        }
    }
    for (name, codec, n, sec) in wrapped {
        let mut input = vec![0x08 | codec];
        input.extend_from_slice(&n.to_be_bytes());
        input.extend_from_slice(&sec);
        seeds.write(&format!("wrapped_{name}"), &input);
    }
    seeds.report(&out);
}
