//! The four codecs, in the framings Kafka writes and accepts, with a hard output budget.
//!
//! Every decompressor writes into one [`Out`] per batch, which stops once the output would
//! pass `limit` bytes; block formats size each block before growing it (lz4 from the block's
//! sequences, snappy from its preamble, refused when it claims more than the block can hold).
//! Time and memory are linear in input plus output whatever the framing: the output grows
//! geometrically once per batch, is never re-zeroed per member, block or chunk, and one
//! decoder state serves all of a batch's gzip members (and a reader's zstd frames).

#[cfg(feature = "zstd")]
use std::io::Read;

use super::Compression;

/// Why a codec failed.
#[derive(Debug)]
#[cfg_attr(
    not(any(
        feature = "gzip",
        feature = "snappy",
        feature = "lz4",
        feature = "zstd"
    )),
    allow(dead_code)
)]
pub(crate) enum CodecError {
    /// The codec's feature is off.
    NotEnabled,
    /// Output would pass the limit.
    TooLarge,
    /// The codec rejected the input.
    Invalid(String),
}

#[cfg(feature = "zstd")]
fn io_err(e: std::io::Error) -> CodecError {
    CodecError::Invalid(e.to_string())
}

/// Decompression state one reader keeps for all its batches: a zstd context, made at the
/// reader's first zstd batch and shared (through an `Arc`) with the batches it yields, so a
/// record set of many zstd batches (a Fetch response) sets one up once instead of per batch.
/// At most one context per reader, dropped with the reader and the last of its batches; a
/// batch decompressed while another holds the context (on another thread) makes its own.
/// A context that grew past [`ZSTD_KEEP_MAX`] (a streamed frame declaring a wide window) is
/// dropped after its batch instead of kept, so what a reader holds between batches is
/// bounded by that, not by the widest window the decoder accepts.
#[derive(Clone, Default)]
pub(crate) struct Contexts {
    #[cfg(feature = "zstd")]
    zstd: Option<std::sync::Arc<std::sync::Mutex<Option<zstd::zstd_safe::DCtx<'static>>>>>,
}

impl Contexts {
    /// The contexts a batch of `codec` should share with its reader: the zstd slot for zstd
    /// (made now if this is the reader's first), nothing otherwise.
    pub(crate) fn for_batch(&mut self, codec: Option<Compression>) -> Contexts {
        #[cfg(feature = "zstd")]
        if codec == Some(Compression::Zstd) {
            let slot = self.zstd.get_or_insert_with(Default::default);
            return Contexts {
                zstd: Some(slot.clone()),
            };
        }
        let _ = codec;
        Contexts::default()
    }
}

impl core::fmt::Debug for Contexts {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Contexts")
    }
}

/// Contexts are a cache: two batches with the same bytes are equal whatever they hold.
impl PartialEq for Contexts {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Contexts {}

/// Decompresses a whole stream of `codec` written for `magic`, producing at most `limit` bytes.
pub(crate) fn decompress(
    codec: Compression,
    input: &[u8],
    magic: i8,
    limit: usize,
    ctx: &Contexts,
) -> Result<Vec<u8>, CodecError> {
    let _ = (input, magic, limit, ctx);
    match codec {
        Compression::None => Ok(input.to_vec()),
        #[cfg(feature = "gzip")]
        Compression::Gzip => gzip_decompress(input, limit),
        #[cfg(feature = "snappy")]
        Compression::Snappy => snappy_decompress(input, limit),
        #[cfg(feature = "lz4")]
        Compression::Lz4 => lz4_decompress(input, magic, limit),
        #[cfg(feature = "zstd")]
        Compression::Zstd => zstd_decompress(input, limit, ctx),
        #[allow(unreachable_patterns)]
        _ => Err(CodecError::NotEnabled),
    }
}

/// Compresses `input` the way Kafka's Java producer does for `magic`.
pub(crate) fn compress(
    codec: Compression,
    input: &[u8],
    magic: i8,
    level: Option<i32>,
) -> Result<Vec<u8>, CodecError> {
    let _ = (input, magic, level);
    match codec {
        Compression::None => Ok(input.to_vec()),
        #[cfg(feature = "gzip")]
        Compression::Gzip => gzip_compress(input, level),
        #[cfg(feature = "snappy")]
        Compression::Snappy => snappy_compress(input),
        #[cfg(feature = "lz4")]
        Compression::Lz4 => lz4_compress(input, magic),
        #[cfg(feature = "zstd")]
        Compression::Zstd => zstd_compress(input, level),
        #[allow(unreachable_patterns)]
        _ => Err(CodecError::NotEnabled),
    }
}

/// A batch's decompressed bytes as they come out, whatever the framing: one buffer for all
/// of a batch's gzip members, lz4 blocks, xerial chunks or zstd frames.
///
/// The decoders write into initialised memory, so the buffer is zero-filled as it grows, but
/// each byte only once: `buf` is the zeroed part, `len` the part written. It grows
/// geometrically (doubling, at least 32 KiB) and never past `limit + 1` bytes, so what a batch
/// allocates in all is at most about twice its output or the limit, and its zero-filling and
/// copying are linear in its output, however many members, blocks or chunks it has.
#[cfg(any(
    feature = "gzip",
    feature = "snappy",
    feature = "lz4",
    feature = "zstd"
))]
struct Out {
    buf: Vec<u8>,
    len: usize,
    limit: usize,
}

#[cfg(any(
    feature = "gzip",
    feature = "snappy",
    feature = "lz4",
    feature = "zstd"
))]
impl Out {
    fn new(limit: usize) -> Self {
        Out {
            buf: Vec::new(),
            len: 0,
            limit,
        }
    }

    /// Grows the zeroed part to at least `need` bytes (at most `limit + 1`): doubling, at
    /// least 32 KiB at a time.
    fn grow_to(&mut self, need: usize) {
        let have = self.buf.len();
        let new_len = have
            .saturating_mul(2)
            .max(have + 32 * 1024)
            .max(need)
            .min(self.limit.saturating_add(1))
            .max(have);
        self.buf.reserve_exact(new_len - have);
        self.buf.resize(new_len, 0);
    }

    /// The written bytes are followed by at least `n` writable ones; `TooLarge` if that
    /// would pass the limit.
    #[cfg(any(feature = "snappy", feature = "lz4"))]
    fn reserve(&mut self, n: usize) -> Result<(), CodecError> {
        if n > self.limit.saturating_sub(self.len) {
            return Err(CodecError::TooLarge);
        }
        if self.len + n > self.buf.len() {
            self.grow_to(self.len + n);
        }
        Ok(())
    }

    /// The writable bytes after the written ones, at least one, for a stream decoder;
    /// `TooLarge` once the output has passed the limit.
    #[cfg(any(feature = "gzip", feature = "zstd"))]
    fn spare(&mut self) -> Result<&mut [u8], CodecError> {
        if self.len > self.limit {
            return Err(CodecError::TooLarge);
        }
        if self.len == self.buf.len() {
            self.grow_to(self.len + 1);
        }
        Ok(self.buf.get_mut(self.len..).unwrap_or_default())
    }

    /// Marks `n` more bytes as written (by a decoder, into [`spare`](Self::spare)).
    fn advance(&mut self, n: usize) {
        self.len = (self.len + n).min(self.buf.len());
    }

    /// Appends `data` (a stored block).
    #[cfg(feature = "lz4")]
    fn extend(&mut self, data: &[u8]) -> Result<(), CodecError> {
        self.reserve(data.len())?;
        if let Some(dst) = self.buf.get_mut(self.len..self.len + data.len()) {
            dst.copy_from_slice(data);
        }
        self.len += data.len();
        Ok(())
    }

    /// The output, or `TooLarge` if it passed the limit.
    fn finish(mut self) -> Result<Vec<u8>, CodecError> {
        if self.len > self.limit {
            return Err(CodecError::TooLarge);
        }
        self.buf.truncate(self.len);
        Ok(self.buf)
    }
}

/// Reads `r` to its end into `out`.
#[cfg(feature = "zstd")]
fn read_into<R: Read>(mut r: R, out: &mut Out) -> Result<(), CodecError> {
    loop {
        match r.read(out.spare()?) {
            Ok(0) => return Ok(()),
            Ok(n) => out.advance(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_err(e)),
        }
    }
}

// ---- gzip ----------------------------------------------------------------------------------

/// The length of the gzip member header at the start of `input`, read as
/// `java.util.zip.GZIPInputStream.readHeader` reads it: magic, method 8 (deflate), and the
/// optional extra field, name, comment and header CRC (checked) that the flags announce;
/// the reserved flag bits are not checked, as Java does not.
#[cfg(feature = "gzip")]
fn gzip_header_len(input: &[u8]) -> Result<usize, &'static str> {
    let [0x1f, 0x8b, cm, flg, _, _, _, _, _, _, ..] = *input else {
        return Err(
            if input.len() < 10 && input.starts_with(&[0x1f, 0x8b][..input.len().min(2)]) {
                "truncated gzip header"
            } else {
                "not in gzip format"
            },
        );
    };
    if cm != 8 {
        return Err("unsupported gzip compression method");
    }
    let mut at = 10;
    if flg & 0x04 != 0 {
        let Some(&[lo, hi]) = input.get(at..at + 2) else {
            return Err("truncated gzip header");
        };
        at += 2 + usize::from(u16::from_le_bytes([lo, hi]));
    }
    for flag in [0x08, 0x10] {
        if flg & flag != 0 {
            let Some(nul) = input.get(at..).and_then(|r| r.iter().position(|&b| b == 0)) else {
                return Err("truncated gzip header");
            };
            at += nul + 1;
        }
    }
    if flg & 0x02 != 0 {
        let (Some(hdr), Some(&[lo, hi])) = (input.get(..at), input.get(at..at + 2)) else {
            return Err("truncated gzip header");
        };
        if crc32fast::hash(hdr) & 0xffff != u32::from(u16::from_le_bytes([lo, hi])) {
            return Err("corrupt gzip header");
        }
        at += 2;
    }
    if at > input.len() {
        return Err("truncated gzip header");
    }
    Ok(at)
}

/// One or more concatenated gzip members; bytes after the last member that do not start
/// another member's header are ignored, as `java.util.zip.GZIPInputStream` does.
///
/// All members inflate into one [`Out`] with one raw-deflate state (flate2 on zlib-rs,
/// whose fixed Huffman tables are static, so an empty block costs a few bits and no table
/// build), reset per member for a few fields' cost and keeping its window. Each member's
/// CRC-32 and length (mod 2^32) are checked against its trailer, as Java does.
#[cfg(feature = "gzip")]
fn gzip_decompress(input: &[u8], limit: usize) -> Result<Vec<u8>, CodecError> {
    use flate2::{Decompress, FlushDecompress, Status};
    let bad = |m: &str| CodecError::Invalid(m.to_string());
    let mut out = Out::new(limit);
    let mut dec = Decompress::new(false);
    let mut rest = input;
    let mut first = true;
    loop {
        let hdr = match gzip_header_len(rest) {
            Ok(n) => n,
            Err(m) if first => return Err(bad(m)),
            // Java reads a next member only if its header parses, and ends quietly otherwise.
            Err(_) => return out.finish(),
        };
        if !first {
            dec.reset(false);
        }
        first = false;
        rest = rest.get(hdr..).unwrap_or_default();
        let start = out.len;
        loop {
            let (in_before, out_before) = (dec.total_in(), dec.total_out());
            let status = dec
                .decompress(rest, out.spare()?, FlushDecompress::None)
                .map_err(|e| {
                    CodecError::Invalid(format!("invalid deflate data in gzip stream: {e}"))
                })?;
            let used = (dec.total_in() - in_before) as usize;
            let written = (dec.total_out() - out_before) as usize;
            rest = rest.get(used..).unwrap_or_default();
            out.advance(written);
            match status {
                Status::StreamEnd => break,
                // No progress with input left and room to write: the stream is cut short.
                _ if used == 0 && written == 0 && out.len < out.buf.len() => {
                    return Err(bad("unexpected end of gzip stream"))
                }
                _ => {}
            }
        }
        let Some((trailer, after)) = rest.split_first_chunk::<8>() else {
            return Err(bad("truncated gzip trailer"));
        };
        let member = out.buf.get(start..out.len).unwrap_or_default();
        let [c0, c1, c2, c3, s0, s1, s2, s3] = *trailer;
        if u32::from_le_bytes([c0, c1, c2, c3]) != crc32fast::hash(member)
            || u32::from_le_bytes([s0, s1, s2, s3]) != member.len() as u32
        {
            return Err(bad("corrupt gzip trailer"));
        }
        rest = after;
        if rest.is_empty() {
            return out.finish();
        }
    }
}

#[cfg(feature = "gzip")]
fn gzip_compress(input: &[u8], level: Option<i32>) -> Result<Vec<u8>, CodecError> {
    use std::io::Write;
    let level = match level {
        Some(l @ 1..=9) => flate2::Compression::new(l as u32),
        _ => flate2::Compression::default(),
    };
    // flate2's default header (MTIME 0, XFL 0, OS 255) is what JDK 17's GZIPOutputStream writes.
    let mut enc = flate2::write::GzEncoder::new(Vec::with_capacity(input.len() / 2 + 64), level);
    enc.write_all(input)
        .map_err(|e| CodecError::Invalid(e.to_string()))?;
    enc.finish().map_err(|e| CodecError::Invalid(e.to_string()))
}

// ---- snappy --------------------------------------------------------------------------------

/// snappy-java's stream header: magic, version 1, minimum compatible version 1.
#[cfg(feature = "snappy")]
pub(crate) const XERIAL_HEADER: [u8; 16] = [
    0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1,
];

/// snappy-java's default block size: each chunk holds at most this much input.
#[cfg(feature = "snappy")]
const XERIAL_BLOCK: usize = 32 * 1024;

/// The most bytes a raw snappy block can decode to per byte of it: a 3-byte copy element
/// writes at most 64 bytes (every other element less per byte), so a preamble claiming more
/// than this is a lie the decoder would refuse after filling the claimed length; it is
/// refused before anything is allocated for it.
#[cfg(feature = "snappy")]
const SNAPPY_MAX_RATIO: usize = 22;

#[cfg(feature = "snappy")]
fn snappy_raw_into(block: &[u8], out: &mut Out) -> Result<(), CodecError> {
    let len = snap::raw::decompress_len(block).map_err(|e| CodecError::Invalid(e.to_string()))?;
    if len > out.limit.saturating_sub(out.len) {
        return Err(CodecError::TooLarge);
    }
    if len / SNAPPY_MAX_RATIO > block.len() {
        return Err(CodecError::Invalid(format!(
            "snappy block of {} bytes claims {len} bytes",
            block.len()
        )));
    }
    out.reserve(len)?;
    let tail = out.buf.get_mut(out.len..out.len + len).unwrap_or_default();
    let n = snap::raw::Decoder::new()
        .decompress(block, tail)
        .map_err(|e| CodecError::Invalid(e.to_string()))?;
    out.advance(n);
    Ok(())
}

/// A xerial stream (what Java writes), or a single raw block (what librdkafka writes): Java
/// takes the raw form whenever the input does not start with the xerial magic.
#[cfg(feature = "snappy")]
fn snappy_decompress(input: &[u8], limit: usize) -> Result<Vec<u8>, CodecError> {
    let mut out = Out::new(limit);
    if input.is_empty() {
        return Err(CodecError::Invalid("cannot decompress empty stream".into()));
    }
    let magic = XERIAL_HEADER.get(..8).unwrap_or_default();
    if input.len() < XERIAL_HEADER.len() || !input.starts_with(magic) {
        snappy_raw_into(input, &mut out)?;
        return out.finish();
    }
    let mut rest = input.get(16..).unwrap_or_default();
    loop {
        let Some((len, tail)) = rest.split_first_chunk::<4>() else {
            // snappy-java stops when fewer than 4 bytes remain.
            return out.finish();
        };
        let len = i32::from_be_bytes(*len);
        if len as u32 == 0x8253_4E41 {
            // A concatenated stream: its header must be complete with a version >= 1.
            let Some((hdr, after)) = rest.split_first_chunk::<16>() else {
                return Err(CodecError::Invalid("truncated snappy stream header".into()));
            };
            if !hdr.starts_with(magic) {
                return Err(CodecError::Invalid("bad snappy stream header".into()));
            }
            let version = i32::from_be_bytes([hdr[8], hdr[9], hdr[10], hdr[11]]);
            if version < 1 {
                return Err(CodecError::Invalid(
                    "unsupported snappy stream version".into(),
                ));
            }
            rest = after;
            continue;
        }
        if !(0..=512 * 1024 * 1024).contains(&len) {
            return Err(CodecError::Invalid(format!(
                "invalid snappy chunk length {len}"
            )));
        }
        let Some((block, after)) = tail.split_at_checked(len as usize) else {
            return Err(CodecError::Invalid("truncated snappy chunk".into()));
        };
        snappy_raw_into(block, &mut out)?;
        rest = after;
    }
}

/// snappy-java's framing: the 16-byte header, then (i32 BE length, raw block) per 32 KiB of input.
#[cfg(feature = "snappy")]
fn snappy_compress(input: &[u8]) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::with_capacity(16 + snap::raw::max_compress_len(input.len()) + 16);
    out.extend_from_slice(&XERIAL_HEADER);
    let mut enc = snap::raw::Encoder::new();
    for chunk in input.chunks(XERIAL_BLOCK) {
        let at = out.len();
        out.extend_from_slice(&[0; 4]);
        let max = snap::raw::max_compress_len(chunk.len());
        out.resize(at + 4 + max, 0);
        let dst = out.get_mut(at + 4..).unwrap_or_default();
        let n = enc
            .compress(chunk, dst)
            .map_err(|e| CodecError::Invalid(e.to_string()))?;
        out.truncate(at + 4 + n);
        if let Some(len) = out.get_mut(at..at + 4) {
            len.copy_from_slice(&(n as u32).to_be_bytes());
        }
    }
    Ok(out)
}

// ---- lz4 -----------------------------------------------------------------------------------

#[cfg(feature = "lz4")]
const LZ4_MAGIC: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];

/// Kafka's subset of the LZ4 frame format, read the way `Lz4BlockInputStream` reads it:
/// independent blocks only, header checksum ignored for magic 0 (Kafka once hashed the wrong
/// bytes), content checksum read but not checked, bytes after the end mark ignored.
#[cfg(feature = "lz4")]
fn lz4_decompress(input: &[u8], magic: i8, limit: usize) -> Result<Vec<u8>, CodecError> {
    let bad = |m: &str| CodecError::Invalid(m.to_string());
    let [0x04, 0x22, 0x4d, 0x18, flg, bd, ..] = *input else {
        return Err(bad("stream too short or wrong lz4 frame magic"));
    };
    if flg & 0x03 != 0 || flg >> 6 != 1 {
        return Err(bad("unsupported lz4 frame flags"));
    }
    if flg & 0x20 == 0 {
        return Err(bad("dependent block stream is unsupported"));
    }
    let block_checksum = flg & 0x10 != 0;
    let has_content_size = flg & 0x08 != 0;
    let content_checksum = flg & 0x04 != 0;
    let size_code = (bd >> 4) & 0x07;
    if bd & 0x8f != 0 || !(4..=7).contains(&size_code) {
        return Err(bad("invalid lz4 block descriptor"));
    }
    let max_block = 1usize << (8 + 2 * size_code as usize);
    let hdr_len = if has_content_size { 14 } else { 6 };
    let Some(hdr) = input.get(4..hdr_len) else {
        return Err(bad("truncated lz4 frame header"));
    };
    let Some(&hc) = input.get(hdr_len) else {
        return Err(bad("truncated lz4 frame header"));
    };
    if magic != 0 {
        let want = (twox_hash::XxHash32::oneshot(0, hdr) >> 8) as u8;
        if hc != want {
            return Err(bad("lz4 frame header checksum mismatch"));
        }
    }
    let mut rest = input.get(hdr_len + 1..).unwrap_or_default();
    let mut out = Out::new(limit);
    loop {
        let Some((size, tail)) = rest.split_first_chunk::<4>() else {
            return Err(bad("truncated lz4 block size"));
        };
        let size = u32::from_le_bytes(*size);
        if size == 0 {
            // End mark. A content checksum follows when flagged; Java skips it unchecked,
            // and ignores whatever comes after.
            if content_checksum && tail.len() < 4 {
                return Err(bad("truncated lz4 content checksum"));
            }
            return out.finish();
        }
        let stored = size & 0x8000_0000 != 0;
        let len = (size & 0x7fff_ffff) as usize;
        if len > max_block {
            return Err(bad("lz4 block larger than the maximum block size"));
        }
        let Some((block, after)) = tail.split_at_checked(len) else {
            return Err(bad("truncated lz4 block"));
        };
        rest = after;
        if block_checksum {
            let Some((sum, after)) = rest.split_first_chunk::<4>() else {
                return Err(bad("truncated lz4 block checksum"));
            };
            if u32::from_le_bytes(*sum) != twox_hash::XxHash32::oneshot(0, block) {
                return Err(bad("lz4 block checksum mismatch"));
            }
            rest = after;
        }
        if stored {
            out.extend(block)?;
        } else {
            // The block's exact output, from its sequences' lengths, so the output grows by
            // what the block holds, never by the frame's maximum block size.
            let Some(n) = lz4_block_output_len(block) else {
                return Err(bad("malformed lz4 block: its sequences run past its end"));
            };
            if n > max_block {
                return Err(bad("lz4 block larger than the maximum block size"));
            }
            out.reserve(n)?;
            let dst = out.buf.get_mut(out.len..out.len + n).unwrap_or_default();
            match lz4_flex::block::decompress_into(block, dst) {
                Ok(m) => out.advance(m),
                Err(e) => return Err(CodecError::Invalid(e.to_string())),
            }
        }
    }
}

/// How many bytes an lz4 block decodes to: the sum of its sequences' literal and match
/// lengths, read without decoding (tokens and length bytes only, skipping literals and
/// offsets). `None` when the lengths run past the block; the decoder then refuses it.
#[cfg(feature = "lz4")]
fn lz4_block_output_len(block: &[u8]) -> Option<usize> {
    // A 4-bit length of 15 continues in bytes, each added, until one below 255.
    fn extended(block: &[u8], at: &mut usize, mut len: usize) -> Option<usize> {
        if len == 15 {
            loop {
                let b = *block.get(*at)?;
                *at += 1;
                len += usize::from(b);
                if b != 255 {
                    break;
                }
            }
        }
        Some(len)
    }
    let mut at = 0;
    let mut total = 0usize;
    loop {
        let token = *block.get(at)?;
        at += 1;
        let literals = extended(block, &mut at, usize::from(token >> 4))?;
        at = at.checked_add(literals).filter(|&a| a <= block.len())?;
        total += literals;
        if at == block.len() {
            // The last sequence has literals only.
            return Some(total);
        }
        at += 2; // the match offset
        total += 4 + extended(block, &mut at, usize::from(token & 0x0f))?;
    }
}

/// The frame Java's `Lz4BlockOutputStream` writes: FLG 0x60, BD 0x40 (64 KiB independent
/// blocks), no checksums; a block that does not shrink is stored; the header checksum of
/// magic 0 is Kafka's historical one (over the magic too).
#[cfg(feature = "lz4")]
fn lz4_compress(input: &[u8], magic: i8) -> Result<Vec<u8>, CodecError> {
    const BLOCK: usize = 64 * 1024;
    let mut out = Vec::with_capacity(input.len() + input.len() / 255 + 32);
    out.extend_from_slice(&LZ4_MAGIC);
    out.extend_from_slice(&[0x60, 0x40]);
    let hashed = if magic == 0 {
        out.get(..6)
    } else {
        out.get(4..6)
    };
    let hc = (twox_hash::XxHash32::oneshot(0, hashed.unwrap_or_default()) >> 8) as u8;
    out.push(hc);
    for chunk in input.chunks(BLOCK) {
        let at = out.len();
        out.extend_from_slice(&[0; 4]);
        let max = lz4_flex::block::get_maximum_output_size(chunk.len());
        out.resize(at + 4 + max, 0);
        let dst = out.get_mut(at + 4..).unwrap_or_default();
        let n = lz4_flex::block::compress_into(chunk, dst)
            .map_err(|e| CodecError::Invalid(e.to_string()))?;
        let size = if n >= chunk.len() {
            out.truncate(at + 4);
            out.extend_from_slice(chunk);
            chunk.len() as u32 | 0x8000_0000
        } else {
            out.truncate(at + 4 + n);
            n as u32
        };
        if let Some(len) = out.get_mut(at..at + 4) {
            len.copy_from_slice(&size.to_le_bytes());
        }
    }
    out.extend_from_slice(&[0; 4]);
    Ok(out)
}

// ---- zstd ----------------------------------------------------------------------------------

/// The window the streaming decoder accepts: libzstd's default limit (2^27 = 128 MiB), which
/// zstd-jni keeps for Java.
#[cfg(feature = "zstd")]
const ZSTD_WINDOW_LOG_MAX: u32 = 27;

/// The most memory (libzstd's own count, `ZSTD_sizeof_DCtx`: the context, its input block
/// buffer and its window buffer) a reader's shared zstd context keeps between batches: room
/// for the streaming buffers of windows up to 4 MiB and a little over (Java's producer writes
/// level 3 streams with a 2 MiB window: 2.4 MiB kept). A streamed frame with a wider window
/// (up to [`ZSTD_WINDOW_LOG_MAX`]) is still decoded, with the context dropped afterwards.
#[cfg(feature = "zstd")]
const ZSTD_KEEP_MAX: usize = 8 << 20;

/// The most bytes a zstd frame can decode to per byte of input: an RLE block is a 3-byte
/// header and 1 byte for up to 128 KiB.
#[cfg(feature = "zstd")]
const ZSTD_MAX_RATIO: usize = 32 * 1024;

/// One or more zstd frames, with libzstd's default window limit (128 MiB), as Java reads them.
///
/// A single frame that declares its content size within `limit` (and a window the streaming
/// decoder would accept) is decoded in one shot into a buffer of exactly that size: no copy
/// out of a stream window and no zero-filled output. libzstd refuses such a frame if it
/// decodes to more (the buffer is full) or fewer bytes than it declares, so a frame that lies
/// about its size never gets more than the size it declared. Anything else (several frames,
/// no declared size, over the limit) goes through the bounded streaming decoder.
#[cfg(feature = "zstd")]
fn zstd_decompress(input: &[u8], limit: usize, ctx: &Contexts) -> Result<Vec<u8>, CodecError> {
    if let Some(Ok(mut slot)) = ctx.zstd.as_ref().map(|s| s.try_lock()) {
        let dctx = match &mut *slot {
            Some(dctx) => dctx,
            None => slot.insert(zstd_context()?),
        };
        let out = zstd_decompress_with(dctx, input, limit);
        // libzstd keeps a streamed frame's window buffer for the next frame: kept only up to
        // the bound, so one batch declaring a 128 MiB window does not pin it to the reader.
        if dctx.sizeof() > ZSTD_KEEP_MAX {
            *slot = None;
        }
        return out;
    }
    zstd_decompress_with(&mut zstd_context()?, input, limit)
}

/// A decompression context with the streaming decoder's window limit.
#[cfg(feature = "zstd")]
fn zstd_context() -> Result<zstd::zstd_safe::DCtx<'static>, CodecError> {
    use zstd::zstd_safe;
    let mut dctx = zstd_safe::DCtx::try_create()
        .ok_or_else(|| CodecError::Invalid("zstd: no memory for a context".into()))?;
    dctx.set_parameter(zstd_safe::DParameter::WindowLogMax(ZSTD_WINDOW_LOG_MAX))
        .map_err(|code| CodecError::Invalid(zstd_safe::get_error_name(code).into()))?;
    Ok(dctx)
}

/// [`zstd_decompress`] with `dctx` (each use starts a new session on it).
#[cfg(feature = "zstd")]
fn zstd_decompress_with(
    dctx: &mut zstd::zstd_safe::DCtx<'static>,
    input: &[u8],
    limit: usize,
) -> Result<Vec<u8>, CodecError> {
    if let Some(size) = zstd_one_shot_size(input, limit) {
        let mut out = Vec::with_capacity(size);
        dctx.decompress(&mut out, input)
            .map_err(|code| CodecError::Invalid(zstd::zstd_safe::get_error_name(code).into()))?;
        // libzstd checks the frame's declared size, and the output cannot outgrow the
        // capacity it was given; checked again so the limit never rests on that alone.
        if out.len() > limit {
            return Err(CodecError::TooLarge);
        }
        return Ok(out);
    }
    // The streaming decoder, its output bounded by `limit`; `with_context` resets the
    // session, so whatever a failed batch left in the context is dropped.
    let dec = zstd::stream::read::Decoder::with_context(input, dctx);
    let mut out = Out::new(limit);
    read_into(dec, &mut out)?;
    out.finish()
}

/// The declared content size of `input` when it is exactly one zstd frame that can be
/// decoded in one shot: size declared, at most `limit` and no more than the frame's length
/// can hold ([`ZSTD_MAX_RATIO`]), window within
/// [`ZSTD_WINDOW_LOG_MAX`] (the one-shot decoder has no window limit of its own).
#[cfg(feature = "zstd")]
fn zstd_one_shot_size(input: &[u8], limit: usize) -> Option<usize> {
    use zstd::zstd_safe;
    let size = zstd_safe::get_frame_content_size(input).ok()??;
    // No frame decodes to more than 32 KiB per input byte (the densest block is 4 bytes of
    // RLE for 128 KiB), so a larger claim is a lie: it takes the streaming path, where memory
    // follows the output, rather than reserving what a few bytes claim.
    let size = usize::try_from(size)
        .ok()
        .filter(|&s| s <= limit && s / ZSTD_MAX_RATIO <= input.len())?;
    // The frame header: magic (4 bytes), descriptor, then a window descriptor unless the
    // frame is a single segment (whose window is its content size).
    let [0x28, 0xb5, 0x2f, 0xfd, fhd, wd, ..] = *input else {
        return None;
    };
    let window = if fhd & 0x20 != 0 {
        size as u64
    } else {
        let log = 10 + u64::from(wd >> 3);
        let base = 1u64 << log;
        base + (base >> 3) * u64::from(wd & 7)
    };
    if window > 1 << ZSTD_WINDOW_LOG_MAX {
        return None;
    }
    // Exactly one frame: concatenated frames (or trailing bytes) take the streaming path.
    let frame = zstd_safe::find_frame_compressed_size(input).ok()?;
    (frame == input.len()).then_some(size)
}

#[cfg(feature = "zstd")]
fn zstd_compress(input: &[u8], level: Option<i32>) -> Result<Vec<u8>, CodecError> {
    // Kafka's default level is 3; no checksum, no dictionary.
    zstd::bulk::compress(input, level.unwrap_or(3)).map_err(io_err)
}

#[cfg(all(test, feature = "zstd"))]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    /// A zstd frame as a streaming compressor writes it (no declared content size, so the
    /// decoder sizes its buffers from the window alone): window 2^`window_log`, `data` in raw
    /// blocks of at most 128 KiB.
    fn streamed(window_log: u8, data: &[u8]) -> Vec<u8> {
        // Magic; frame header descriptor 0 (no content size, not a single segment, no
        // checksum); window descriptor: exponent `window_log - 10`, mantissa 0.
        let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, (window_log - 10) << 3];
        // An empty frame still has one (empty, last) block.
        let mut blocks = data.chunks(128 * 1024).peekable();
        if data.is_empty() {
            f.extend_from_slice(&[1, 0, 0]);
        }
        while let Some(b) = blocks.next() {
            let last = u32::from(blocks.peek().is_none());
            let h = ((b.len() as u32) << 3) | last; // raw block
            f.extend_from_slice(&h.to_le_bytes()[..3]);
            f.extend_from_slice(b);
        }
        f
    }

    /// What the reader's slot holds between batches: the context's size, if one is kept.
    fn kept(ctx: &Contexts) -> Option<usize> {
        let slot = ctx.zstd.as_ref()?.lock().ok()?;
        slot.as_ref().map(|d| d.sizeof())
    }

    /// A reader's shared zstd context keeps at most `ZSTD_KEEP_MAX` between batches, whatever
    /// window the frames declared: after the widest window the decoder accepts (2^27), at a
    /// batch's realistic size (1 MiB of records) and as a 12-byte frame, the big context is
    /// dropped; after a frame like Java's (2 MiB window) it is kept for the next batch.
    #[test]
    fn shared_zstd_context_is_bounded() {
        let data: Vec<u8> = b"record 17 of the zstd bound; "
            .iter()
            .copied()
            .cycle()
            .take(MIB)
            .collect();
        let limit = crate::DEFAULT_MAX_DECOMPRESSED_BATCH;
        let mut reader = Contexts::default();
        let ctx = reader.for_batch(Some(Compression::Zstd));
        let run = |frame: &[u8]| decompress(Compression::Zstd, frame, 2, limit, &ctx);

        // Java's shape: kept, and big enough to hold its window (so kept() measures buffers).
        assert_eq!(run(&streamed(21, &data)).unwrap(), data);
        let java = kept(&ctx).expect("a 2 MiB-window context is kept");
        assert!((2 * MIB..=ZSTD_KEEP_MAX).contains(&java), "{java}");

        // The worst input: the widest window accepted. A context decoding it on its own
        // holds the whole window (so this is the input the bound is about)...
        let worst = streamed(27, &data);
        let mut own = zstd_context().unwrap();
        assert_eq!(zstd_decompress_with(&mut own, &worst, limit).unwrap(), data);
        assert!(own.sizeof() > 1 << 27, "{}", own.sizeof());
        drop(own);
        // ... and through the reader's slot it decodes the same, with nothing over the bound
        // kept: at 1 MiB of records and as a frame of one empty block.
        assert_eq!(run(&worst).unwrap(), data);
        assert_eq!(kept(&ctx), None);
        let tiny = streamed(27, b"");
        assert!(tiny.len() <= 12);
        assert_eq!(run(&tiny).unwrap(), b"");
        assert_eq!(kept(&ctx), None);
        // A wider window is refused, as by Java's reader; nothing is kept over the bound.
        assert!(run(&streamed(28, b"x")).is_err());
        assert!(kept(&ctx).is_none_or(|k| k <= ZSTD_KEEP_MAX));
        // The worst window stopped at the limit (a bomb): refused and not kept either.
        let bomb = streamed(27, &vec![0u8; 3 * MIB]);
        assert!(matches!(
            decompress(Compression::Zstd, &bomb, 2, MIB, &ctx),
            Err(CodecError::TooLarge)
        ));
        assert!(kept(&ctx).is_none_or(|k| k <= ZSTD_KEEP_MAX));
        // After those, the next ordinary batch gets a context again and keeps it.
        assert_eq!(run(&streamed(21, &data)).unwrap(), data);
        assert!(kept(&ctx).is_some_and(|k| k <= ZSTD_KEEP_MAX));
    }
}
