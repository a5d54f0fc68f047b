//! The codec framing targets (`gzip_members`, `lz4_blocks`, `snappy_chunks`, `zstd_frames`):
//! the fuzz input is a list of segments that a target lays out in its codec's framing, each
//! segment repeated up to 2^16 times, so that small inputs reach the framings that were slow
//! (tens of thousands of members, blocks, chunks or frames); the stream is decompressed once
//! and checked for time and memory.
//!
//! Segment: one control byte (bits 0-3: repeat `2^n` times; bits 4-7: for the target), one
//! length byte `l`, then `l` bytes (fewer if the input ends). The laid-out stream is capped
//! at [`MAX_STREAM`] bytes.

use kafka_wire::records::{compress, decompress, Compression, RecordsErrorKind};

use crate::measure;

/// The output limit the targets decompress with.
pub const LIMIT: usize = 8 << 20;
/// The largest stream a target lays out.
pub const MAX_STREAM: usize = 4 << 20;
/// CPU time allowed per byte of stream plus output: far above what any codec needs even
/// under the fuzzer's instrumentation (tens of nanoseconds per byte uninstrumented), far
/// below what the quadratic framings took (lz4's tiny blocks zero-filled 4 MiB each, about
/// 30 us per input byte; gzip's members re-zeroed the output, 8 us per byte in a debug build).
pub const CPU_NS_PER_BYTE: u64 = 2_000;
/// CPU time allowed whatever the size (thread start-up noise, first-use allocations).
pub const CPU_NS_SLACK: u64 = 20_000_000;

/// One segment of the input.
pub struct Segment<'a> {
    /// Bits 4-7 of the control byte.
    pub kind: u8,
    /// How many times to lay it out.
    pub repeat: usize,
    /// Its bytes.
    pub bytes: &'a [u8],
}

/// The input's segments.
pub fn segments(mut data: &[u8]) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    while let [control, len, rest @ ..] = data {
        let (bytes, after) = rest.split_at((*len as usize).min(rest.len()));
        out.push(Segment {
            kind: control >> 4,
            repeat: 1 << (control & 0x0f),
            bytes,
        });
        data = after;
    }
    out
}

/// Appends `piece` to `stream` `repeat` times, within [`MAX_STREAM`].
pub fn lay(stream: &mut Vec<u8>, piece: &[u8], repeat: usize) {
    for _ in 0..repeat {
        if stream.len() + piece.len() > MAX_STREAM {
            return;
        }
        stream.extend_from_slice(piece);
    }
}

/// This thread's CPU time in nanoseconds (Linux), or the wall clock elsewhere.
fn cpu_ns(start: std::time::Instant) -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| start.elapsed().as_nanos() as u64)
}

/// Decompresses `stream` once with [`LIMIT`] and checks: no panic; an error is one of the
/// codec's (never a panic or an abort); the output is at most the limit; the bytes
/// allocated are within the documented `4 × limit + 256 KiB`; and the CPU time is linear in
/// stream plus output ([`CPU_NS_PER_BYTE`], [`CPU_NS_SLACK`]).
pub fn check(codec: Compression, stream: &[u8]) {
    let clock = std::time::Instant::now();
    let t0 = cpu_ns(clock);
    let (r, allocated) = measure(|| decompress(codec, 2, stream, LIMIT));
    let ns = cpu_ns(clock).saturating_sub(t0);
    let out = match &r {
        Ok(v) => v.len(),
        Err(RecordsErrorKind::DecompressedTooLarge { limit }) => {
            assert_eq!(*limit, LIMIT);
            LIMIT
        }
        Err(e) => {
            let _ = e.to_string();
            0
        }
    };
    assert!(out <= LIMIT, "{codec}: {out} bytes out");
    assert!(
        allocated <= 4 * LIMIT + 256 * 1024 + 2 * stream.len(),
        "{codec}: {} stream bytes allocated {allocated}",
        stream.len()
    );
    let allowed = CPU_NS_PER_BYTE * (stream.len() + out) as u64 + CPU_NS_SLACK;
    assert!(
        ns <= allowed,
        "{codec}: {} stream bytes, {out} out, took {ns} ns of CPU (allowed {allowed})",
        stream.len()
    );
}

/// gzip: each segment is a member (kind bit 0: the segment's bytes deflated by our writer at
/// level `kind >> 1` + 1; else, kind bit 1 clear, a gzip header followed by the segment as
/// the member's body, deflate data and trailer as the fuzzer makes them; kind bit 1 set, the
/// segment alone, continuing the member before it: many deflate blocks in one member).
pub fn gzip_stream(data: &[u8]) -> Vec<u8> {
    let mut stream = Vec::new();
    for s in segments(data) {
        let member = if s.kind & 1 == 1 {
            let level = i32::from(s.kind >> 1) + 1;
            compress(Compression::Gzip, 2, s.bytes, Some(level)).unwrap_or_default()
        } else if s.kind & 2 == 0 {
            let mut m = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
            m.extend_from_slice(s.bytes);
            m
        } else {
            s.bytes.to_vec()
        };
        lay(&mut stream, &member, s.repeat);
    }
    stream
}

/// FLG 0x60 and BD 0x40..0x70 with their header checksum (xxhash32 >> 8), as the lz4 CLI
/// writes them.
const LZ4_HEADERS: [[u8; 3]; 4] = [
    [0x60, 0x40, 0x82],
    [0x60, 0x50, 0xfb],
    [0x60, 0x60, 0x51],
    [0x60, 0x70, 0x73],
];

/// lz4 (Kafka's frame subset): the first segment's kind picks the maximum block size (64 KiB
/// to 4 MiB); each segment is a block (kind bit 1: the segment's bytes compressed by our
/// writer, its blocks; else the segment as one block as the fuzzer makes it, stored when
/// kind bit 0 is set), then the end mark.
pub fn lz4_stream(data: &[u8]) -> Vec<u8> {
    let segs = segments(data);
    let bd = segs.first().map_or(0, |s| usize::from(s.kind & 3));
    let mut stream = vec![0x04, 0x22, 0x4d, 0x18];
    stream.extend_from_slice(&LZ4_HEADERS[bd]);
    for s in segs {
        let block = if s.kind & 2 != 0 {
            let f = compress(Compression::Lz4, 2, s.bytes, None).unwrap_or_default();
            f.get(7..f.len().saturating_sub(4))
                .unwrap_or_default()
                .to_vec()
        } else {
            let stored = if s.kind & 1 == 1 { 0x8000_0000u32 } else { 0 };
            let mut b = (s.bytes.len() as u32 | stored).to_le_bytes().to_vec();
            b.extend_from_slice(s.bytes);
            b
        };
        lay(&mut stream, &block, s.repeat);
    }
    stream.extend_from_slice(&[0; 4]);
    stream
}

/// snappy-java's stream header.
const XERIAL: [u8; 16] = [
    0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1,
];

/// snappy (snappy-java's xerial stream): the header, then each segment as chunks (kind bit
/// 0: the segment's bytes compressed by our writer; else the segment as one raw block as the
/// fuzzer makes it; kind bit 1: a concatenated stream's header first).
pub fn snappy_stream(data: &[u8]) -> Vec<u8> {
    let mut stream = XERIAL.to_vec();
    for s in segments(data) {
        let mut chunk = if s.kind & 2 != 0 {
            XERIAL.to_vec()
        } else {
            Vec::new()
        };
        if s.kind & 1 == 1 {
            let c = compress(Compression::Snappy, 2, s.bytes, None).unwrap_or_default();
            chunk.extend_from_slice(c.get(16..).unwrap_or_default());
        } else {
            chunk.extend_from_slice(&(s.bytes.len() as u32).to_be_bytes());
            chunk.extend_from_slice(s.bytes);
        }
        lay(&mut stream, &chunk, s.repeat);
    }
    stream
}

/// zstd: each segment is a frame (kind 0-3: the segment's bytes compressed by our writer at
/// level kind + 1; kind 4-7: a skippable frame holding the segment; kind 8 and up: the
/// segment as it is, a frame as the fuzzer makes it).
pub fn zstd_stream(data: &[u8]) -> Vec<u8> {
    let mut stream = Vec::new();
    for s in segments(data) {
        let frame = match s.kind {
            0..=3 => compress(Compression::Zstd, 2, s.bytes, Some(i32::from(s.kind) + 1))
                .unwrap_or_default(),
            4..=7 => {
                let mut f = vec![0x50 | (s.kind & 0x0f), 0x2a, 0x4d, 0x18];
                f.extend_from_slice(&(s.bytes.len() as u32).to_le_bytes());
                f.extend_from_slice(s.bytes);
                f
            }
            _ => s.bytes.to_vec(),
        };
        lay(&mut stream, &frame, s.repeat);
    }
    stream
}
