//! Writes seed inputs for the codec framing targets (`gzip_members`, `lz4_blocks`,
//! `snappy_chunks`, `zstd_frames`): the framings of issue 42 that were slow, as segments
//! (see `src/framing.rs`), and runs each target's check on them, so a run of this example
//! also shows the checks pass uninstrumented.
//!
//! ```sh
//! cargo run --manifest-path fuzz/Cargo.toml --no-default-features --example framing_seeds -- fuzz/seeds
//! ```

use kafka_wire::records::Compression;
use kafka_wire_fuzz::framing::{check, gzip_stream, lz4_stream, snappy_stream, zstd_stream};

/// One segment: control byte (kind << 4 | log2 repeat), length, bytes.
fn seg(kind: u8, log_repeat: u8, bytes: &[u8]) -> Vec<u8> {
    let mut s = vec![kind << 4 | log_repeat, bytes.len() as u8];
    s.extend_from_slice(bytes);
    s
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fuzz/seeds".into());
    let zeros = [0u8; 255];
    let seeds: [(
        &str,
        Compression,
        fn(&[u8]) -> Vec<u8>,
        Vec<(&str, Vec<u8>)>,
    ); 4] = [
        (
            "gzip_members",
            Compression::Gzip,
            gzip_stream,
            vec![
                // 32,768 members of 255 zeros, deflated at level 9.
                ("many_members", seg(0b1001, 15, &zeros)),
                // 32,768 empty members.
                ("empty_members", seg(0b1001, 15, b"")),
                // One member of 65,540 empty fixed-Huffman blocks (10 bits each, four in 5
                // bytes), never closed: an error after all of them.
                ("fixed_blocks", {
                    let mut s = seg(0, 0, &[0x02, 0x08, 0x20, 0x80, 0x00]);
                    s.extend(seg(2, 14, &[0x02, 0x08, 0x20, 0x80, 0x00]));
                    s
                }),
            ],
        ),
        (
            "lz4_blocks",
            Compression::Lz4,
            lz4_stream,
            vec![
                // 4 MiB maximum blocks, 32,768 blocks of one literal each (issue 42's 2-byte
                // blocks).
                ("tiny_blocks", seg(3, 15, &[0x10, b'x'])),
                ("stored_blocks", seg(1, 15, b"x")),
            ],
        ),
        (
            "snappy_chunks",
            Compression::Snappy,
            snappy_stream,
            vec![
                // 32,768 chunks, each a raw block of one literal.
                ("tiny_chunks", seg(0, 15, &[1, 0, b'x'])),
                // A raw block claiming 64 MiB in 6 bytes.
                (
                    "claiming_block",
                    seg(0, 0, &[0x80, 0x80, 0x80, 0x20, 0x00, b'x']),
                ),
                ("headers", seg(2, 15, &[0, 0])),
            ],
        ),
        (
            "zstd_frames",
            Compression::Zstd,
            zstd_stream,
            vec![
                ("empty_frames", seg(0, 15, b"")),
                ("skippable_frames", seg(4, 15, b"")),
                // A frame with a 128 MiB window and one RLE block of one byte, 32,768 times.
                (
                    "wide_windows",
                    seg(
                        8,
                        15,
                        &[0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x88, 0x0b, 0, 0, b'x'],
                    ),
                ),
            ],
        ),
    ];
    for (target, codec, lay, inputs) in seeds {
        let d = format!("{dir}/{target}");
        std::fs::create_dir_all(&d).expect("seed directory");
        for (name, input) in inputs {
            std::fs::write(format!("{d}/{name}"), &input).expect("write seed");
            let stream = lay(&input);
            let t = std::time::Instant::now();
            check(codec, &stream);
            println!(
                "{target}/{name}: {} stream bytes, checked in {:?}",
                stream.len(),
                t.elapsed()
            );
        }
    }
}
