//! The four codecs, in the framings Kafka writes and accepts, with a hard output budget.
//!
//! Every decompressor stops once its output would pass `limit` bytes: streams are read
//! through `Read::take(limit + 1)`, and block formats check each block's declared size
//! against what is left of the budget before allocating it.

#[cfg(any(feature = "gzip", feature = "zstd"))]
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

#[cfg(any(feature = "gzip", feature = "zstd"))]
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

/// Reads `r` to its end, failing once more than `limit` bytes come out.
///
/// The buffer grows geometrically but never past `limit + 1` bytes of capacity (plain
/// `read_to_end` would double a full buffer to twice the limit just to see one more byte).
#[cfg(any(feature = "gzip", feature = "zstd"))]
fn read_bounded<R: Read>(mut r: R, out: &mut Vec<u8>, limit: usize) -> Result<(), CodecError> {
    let cap = limit.saturating_add(1);
    let mut len = out.len();
    loop {
        if len > limit {
            out.truncate(len);
            return Err(CodecError::TooLarge);
        }
        if len == out.len() {
            // Full: double, at least 32 KiB, at most the cap.
            let new_len = len.saturating_mul(2).max(len + 32 * 1024).min(cap);
            out.reserve_exact(new_len - len);
            out.resize(new_len, 0);
        }
        let dst = out.get_mut(len..).unwrap_or_default();
        match r.read(dst) {
            Ok(0) => {
                out.truncate(len);
                return Ok(());
            }
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                out.truncate(len);
                return Err(io_err(e));
            }
        }
    }
}

// ---- gzip ----------------------------------------------------------------------------------

/// One or more concatenated gzip members; bytes after the last member that do not start
/// another member are ignored, as `java.util.zip.GZIPInputStream` does.
#[cfg(feature = "gzip")]
fn gzip_decompress(input: &[u8], limit: usize) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    let mut rest = input;
    let mut first = true;
    loop {
        if !first && !rest.starts_with(&[0x1f, 0x8b]) {
            return Ok(out);
        }
        let mut dec = flate2::bufread::GzDecoder::new(rest);
        read_bounded(&mut dec, &mut out, limit)?;
        rest = dec.into_inner();
        first = false;
        if rest.is_empty() {
            return Ok(out);
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

#[cfg(feature = "snappy")]
fn snappy_raw_into(block: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<(), CodecError> {
    let len = snap::raw::decompress_len(block).map_err(|e| CodecError::Invalid(e.to_string()))?;
    if len > limit.saturating_sub(out.len()) {
        return Err(CodecError::TooLarge);
    }
    let start = out.len();
    out.resize(start + len, 0);
    let tail = out.get_mut(start..).unwrap_or_default();
    let n = snap::raw::Decoder::new()
        .decompress(block, tail)
        .map_err(|e| CodecError::Invalid(e.to_string()))?;
    out.truncate(start + n);
    Ok(())
}

/// A xerial stream (what Java writes), or a single raw block (what librdkafka writes): Java
/// takes the raw form whenever the input does not start with the xerial magic.
#[cfg(feature = "snappy")]
fn snappy_decompress(input: &[u8], limit: usize) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    if input.is_empty() {
        return Err(CodecError::Invalid("cannot decompress empty stream".into()));
    }
    let magic = XERIAL_HEADER.get(..8).unwrap_or_default();
    if input.len() < XERIAL_HEADER.len() || !input.starts_with(magic) {
        snappy_raw_into(input, &mut out, limit)?;
        return Ok(out);
    }
    let mut rest = input.get(16..).unwrap_or_default();
    loop {
        let Some((len, tail)) = rest.split_first_chunk::<4>() else {
            // snappy-java stops when fewer than 4 bytes remain.
            return Ok(out);
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
        snappy_raw_into(block, &mut out, limit)?;
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
    let mut out = Vec::new();
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
            return Ok(out);
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
        let room = limit.saturating_sub(out.len());
        if stored {
            if block.len() > room {
                return Err(CodecError::TooLarge);
            }
            out.extend_from_slice(block);
        } else {
            let cap = max_block.min(room);
            let start = out.len();
            out.resize(start + cap, 0);
            let dst = out.get_mut(start..).unwrap_or_default();
            match lz4_flex::block::decompress_into(block, dst) {
                Ok(n) => out.truncate(start + n),
                Err(lz4_flex::block::DecompressError::OutputTooSmall { .. }) if cap < max_block => {
                    return Err(CodecError::TooLarge)
                }
                Err(e) => return Err(CodecError::Invalid(e.to_string())),
            }
        }
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
    let mut out = Vec::new();
    read_bounded(dec, &mut out, limit)?;
    Ok(out)
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
