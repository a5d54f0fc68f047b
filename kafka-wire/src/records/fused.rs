//! CRC-32C computed while a batch's long keys and values are copied into it.
//!
//! A built batch's checksum covers bytes 21.. (header fields from the attributes on, then the
//! records). Copying a 1 MB batch's values and then checksumming the batch reads every byte
//! twice, the second time from L2 or memory. On x86-64 with AVX-512 VPCLMULQDQ, the bulk of a
//! long value is instead loaded once, stored into the batch and folded into a running
//! CRC-32C from the same registers (carry-less multiplication, four 512-bit accumulators, the
//! usual CRC folding); the bytes written some other way (record fields, short values) are
//! folded from the batch just before the next fused copy, while still in L1. The header's
//! fields are only known at `build`, so the records' CRC is joined to the header's by
//! multiplying the header's CRC by x^(8·len) modulo the polynomial.
//!
//! The fused path is compiled only with the cargo feature `fused-crc` (off by default), on
//! x86-64; it holds all of the crate's `unsafe` (calls into `#[target_feature]` functions
//! after the CPU was checked). Measured side by side (`records_profile pair`, 1 MB of 1 KB
//! records, Zen 4): 39.1-39.8 µs with it, 49.9-50.2 µs with `crc-fast` at `build`.
//!
//! Elsewhere (without the feature, other CPUs and architectures, compressed batches, batches
//! with no long value) the builder takes the portable path: it copies, and the checksum is one
//! `crc-fast` pass at `build`. That path is the same code on every architecture (x86-64
//! selects it at run time), so the tests here run it on x86-64 too.

#[cfg(all(test, target_arch = "x86_64", feature = "fused-crc"))]
use x86::detected as x86_detected;

/// The running CRC-32C of a batch being built: the fused path where it is compiled in, the
/// CPU has it and it is enabled; else the portable path (plain copies, and `finish` leaves the
/// checksum to one pass over the finished batch).
#[derive(Debug, Clone, Copy)]
pub(super) struct Fused {
    #[cfg(all(target_arch = "x86_64", feature = "fused-crc"))]
    simd: x86::Fused,
}

impl Fused {
    /// Disabled until [`set_enabled`](Self::set_enabled).
    pub(super) fn new() -> Self {
        Fused {
            #[cfg(all(target_arch = "x86_64", feature = "fused-crc"))]
            simd: x86::Fused::new(),
        }
    }

    /// Turns the fused path on (when compiled in and the CPU has it) or off (compressed
    /// batches, whose CRC covers the compressed bytes instead).
    pub(super) fn set_enabled(&mut self, yes: bool) {
        #[cfg(all(target_arch = "x86_64", feature = "fused-crc"))]
        self.simd.set_enabled(yes);
        #[cfg(not(all(target_arch = "x86_64", feature = "fused-crc")))]
        let _ = yes;
    }

    /// Whether copies go through the fused path (false: not compiled in, the CPU lacks it, or
    /// disabled).
    #[inline(always)]
    pub(super) fn enabled(&self) -> bool {
        #[cfg(all(target_arch = "x86_64", feature = "fused-crc"))]
        return self.simd.is_enabled();
        #[cfg(not(all(target_arch = "x86_64", feature = "fused-crc")))]
        false
    }

    /// Calls `f` (which must be `#[inline(always)]`), compiled for the CPU features of the
    /// fused path if `fused` (what [`enabled`](Self::enabled) said); else plainly.
    #[inline(always)]
    pub(super) fn compiled_for_fused<R>(fused: bool, f: impl FnOnce() -> R) -> R {
        #[cfg(all(target_arch = "x86_64", feature = "fused-crc"))]
        if fused {
            // SAFETY: `enabled` is only true when `detected()` found every CPU feature
            // `with_features` is compiled for; the function itself is safe code.
            #[allow(unsafe_code)]
            return unsafe { x86::with_features(f) };
        }
        #[cfg(not(all(target_arch = "x86_64", feature = "fused-crc")))]
        let _ = fused;
        f()
    }

    /// Where the batch starts in the buffer the copies go into (0 unless the batch is
    /// appended after other bytes). Set before the first copy.
    pub(super) fn set_base(&mut self, at: usize) {
        #[cfg(all(target_arch = "x86_64", feature = "fused-crc"))]
        self.simd.set_base(at);
        #[cfg(not(all(target_arch = "x86_64", feature = "fused-crc")))]
        let _ = at;
    }

    /// Tests: whether any bytes went through the fused path.
    #[cfg(test)]
    pub(super) fn used(&self) -> bool {
        #[cfg(all(target_arch = "x86_64", feature = "fused-crc"))]
        return self.simd.used();
        #[cfg(not(all(target_arch = "x86_64", feature = "fused-crc")))]
        false
    }

    /// Appends `pre[..n]` (a record's fields, gathered in the builder's block) and then `src`
    /// to the batch `out`, folding both into the CRC when that is worth it: one call per
    /// record instead of a `memcpy` of the fields and then the fused copy.
    #[inline(always)]
    pub(super) fn copy_after(&mut self, out: &mut Vec<u8>, pre: &[u8], n: usize, src: &[u8]) {
        #[cfg(all(target_arch = "x86_64", feature = "fused-crc"))]
        if self.simd.takes(src.len()) {
            return self.simd.copy(out, pre, n, src);
        }
        // The portable path.
        out.extend_from_slice(pre.get(..n).unwrap_or_default());
        out.extend_from_slice(src);
    }

    /// The CRC-32C of the batch from its byte 21 on if the fused path folded anything, else
    /// `None` (the caller computes it in one pass). `batch` must be the buffer the copies went
    /// into, with the batch's header filled in (at the base set by [`set_base`](Self::set_base)).
    pub(super) fn finish(&mut self, batch: &[u8]) -> Option<u32> {
        #[cfg(all(target_arch = "x86_64", feature = "fused-crc"))]
        return self.simd.finish(batch);
        #[cfg(not(all(target_arch = "x86_64", feature = "fused-crc")))]
        {
            let _ = batch;
            None
        }
    }
}

/// Tests: the size of the record fields written before a value that the tests give
/// [`Fused::copy_after`] room for (the builder's block is larger).
#[cfg(all(test, target_arch = "x86_64", feature = "fused-crc"))]
const PRE: usize = 272;

/// CRC-32C's polynomial, bit-reflected (bit 31 is the coefficient of x^0).
#[cfg_attr(
    not(any(all(target_arch = "x86_64", feature = "fused-crc"), test)),
    allow(dead_code)
)]
const POLY: u32 = 0x82F6_3B78;

/// a·b modulo the polynomial, both bit-reflected (bit 31 is x^0): used at compile time for
/// the folding and shifting constants.
#[cfg_attr(
    not(any(all(target_arch = "x86_64", feature = "fused-crc"), test)),
    allow(dead_code)
)]
const fn mul_mod(a: u32, mut b: u32) -> u32 {
    let mut p = 0u32;
    let mut i = 0;
    while i < 32 {
        if a & (1 << (31 - i)) != 0 {
            p ^= b;
        }
        // b·x: the reflected shift, reduced when x^31's coefficient moves out.
        b = if b & 1 != 0 { (b >> 1) ^ POLY } else { b >> 1 };
        i += 1;
    }
    p
}

/// x^e modulo the polynomial, bit-reflected, by square and multiply.
#[cfg_attr(
    not(any(all(target_arch = "x86_64", feature = "fused-crc"), test)),
    allow(dead_code)
)]
const fn x_pow(mut e: u64) -> u32 {
    let mut r = 1u32 << 31;
    let mut base = 1u32 << 30;
    while e > 0 {
        if e & 1 != 0 {
            r = mul_mod(r, base);
        }
        base = mul_mod(base, base);
        e >>= 1;
    }
    r
}

/// Bytes per accumulator step: 512 bits. Successive blocks go to four accumulators in turn,
/// so that four carry-less multiplications are in flight at a time.
#[cfg_attr(
    not(any(all(target_arch = "x86_64", feature = "fused-crc"), test)),
    allow(dead_code)
)]
const BLOCK: usize = 64;

/// Folding constants for one 128-bit lane moved forward by `bits`: the lane's first 64 bits
/// (the higher-degree half, reflected) are multiplied by x^(bits+32), the second by
/// x^(bits-32), each reflected and shifted left by one so that the 64×64 carry-less product
/// lands aligned with the lane `bits` further on.
#[cfg_attr(
    not(any(all(target_arch = "x86_64", feature = "fused-crc"), test)),
    allow(dead_code)
)]
const fn fold_keys(bits: u64) -> (i64, i64) {
    (
        ((x_pow(bits + 32) as u64) << 1) as i64,
        ((x_pow(bits - 32) as u64) << 1) as i64,
    )
}

/// Each accumulator folds forward past the other three's blocks: 2048 bits. Outside the
/// x86-64 path only the scalar model in the tests uses them.
#[cfg_attr(
    not(any(all(target_arch = "x86_64", feature = "fused-crc"), test)),
    allow(dead_code)
)]
const KEYS: (i64, i64) = fold_keys(8 * 4 * BLOCK as u64);

#[cfg(test)]
thread_local! {
    /// Tests: the fused path is off on this thread (see [`with_fused_off`]).
    static FUSED_OFF: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Tests: runs `f` with the fused path turned off for the builders it creates, so that the
/// plain copy and the single CRC pass at `build` are exercised on a machine that has AVX-512,
/// and the two paths' batches can be compared.
#[cfg(test)]
pub(super) fn with_fused_off<T>(f: impl FnOnce() -> T) -> T {
    FUSED_OFF.set(true);
    let r = f();
    FUSED_OFF.set(false);
    r
}

/// Whether a test turned the fused path off on this thread.
#[cfg_attr(
    not(all(target_arch = "x86_64", feature = "fused-crc")),
    allow(dead_code)
)]
fn fused_off() -> bool {
    #[cfg(test)]
    return FUSED_OFF.get();
    #[cfg(not(test))]
    false
}

/// Tests: whether a test that needs AVX-512 VPCLMULQDQ cannot run here. The skip is printed,
/// and it is a failure when `KAFKA_WIRE_REQUIRE_AVX512=1` (CI sets it on machines that have
/// the instructions, so that a lost detection cannot pass silently).
#[cfg(test)]
#[cfg_attr(
    not(all(target_arch = "x86_64", feature = "fused-crc")),
    allow(dead_code)
)]
fn skip_without_avx512(what: &str, have: bool) -> bool {
    if have {
        return false;
    }
    let why = format!("this CPU lacks AVX-512F/VPCLMULQDQ/PCLMULQDQ/SSE4.2: {what} is not tested");
    assert!(
        std::env::var_os("KAFKA_WIRE_REQUIRE_AVX512").is_none_or(|v| v != "1"),
        "KAFKA_WIRE_REQUIRE_AVX512=1 but {why}"
    );
    eprintln!("SKIPPED: {why}");
    true
}

#[cfg(all(target_arch = "x86_64", feature = "fused-crc"))]
mod x86 {
    use core::arch::x86_64::{
        __m512i, _mm512_add_epi8, _mm512_clmulepi64_epi128, _mm512_mask_blend_epi8,
        _mm512_permutex2var_epi8, _mm512_permutexvar_epi8, _mm512_set1_epi8, _mm512_set_epi64,
        _mm512_sub_epi8, _mm512_ternarylogic_epi64, _mm_clmulepi64_si128, _mm_crc32_u64,
        _mm_crc32_u8, _mm_cvtsi128_si64, _mm_cvtsi64_si128,
    };

    use super::{x_pow, BLOCK, KEYS};
    use crate::records::RECORD_BATCH_OVERHEAD;

    /// The first byte the CRC covers.
    const CRC_FROM: usize = 21;
    /// Values shorter than this are copied plainly (and folded later from the batch, still in
    /// L1): below it the fused path's set-up costs more than the second read it saves.
    const MIN_FUSED: usize = 4 * BLOCK;

    /// x^(8·2^k − 33) modulo the polynomial for k ≥ 3, for [`shift`]: a 32×32 carry-less
    /// product followed by the `crc32` instruction multiplies by an extra x^33, taken out here.
    const SHIFT: [u32; 32] = {
        let mut t = [0u32; 32];
        let mut k = 3;
        while k < 32 {
            t[k] = x_pow((8u64 << k) - 33);
            k += 1;
        }
        t
    };

    /// The running state of a batch's CRC-32C.
    #[derive(Debug, Clone, Copy)]
    pub(in crate::records) struct Fused {
        /// The CPU has every instruction used (checked once per builder) and the batch is not
        /// compressed.
        enabled: bool,
        /// Where the folded stream starts in the batch (0: nothing folded yet): at the
        /// records, moved up to the next 64-byte boundary of the buffer so that the fused
        /// stores are aligned (in a standalone copy loop of 1 MB: 36.6 µs unaligned, 32.3 µs
        /// aligned).
        start: usize,
        /// Bytes `start..from` of the batch are folded into `acc`.
        from: usize,
        /// Where the batch starts in the buffer (the CRC covers from `base + 21`).
        base: usize,
        /// The four accumulators, the next to fold into first. Zero at the start: a zero
        /// accumulator stands for leading zero bytes, which do not change the CRC, so the
        /// first blocks need no special case and the four always read, in order, as 256
        /// bytes congruent to everything folded.
        acc: [__m512i; 4],
        /// The last 64 bytes of the previous fused copy's source, whose last `out.len() -
        /// from` bytes are the batch's unfolded bytes while `out.len()` is still `tail_at`
        /// (nothing written since): the next copy then composes its first block from these,
        /// the record's fields and its value's head in registers instead of reading back
        /// bytes just stored (a load over several recent stores, which the CPU cannot
        /// forward).
        tail: __m512i,
        /// `out.len()` after the previous fused copy (`usize::MAX`: `tail` is not valid).
        tail_at: usize,
    }

    /// Byte `i` is `i`: the identity permutation, shifted to move bytes within a register.
    const IOTA: [u8; BLOCK] = {
        let mut t = [0u8; BLOCK];
        let mut i = 0;
        while i < BLOCK {
            t[i] = i as u8;
            i += 1;
        }
        t
    };

    /// How many bytes complete the pending block: `len` bytes are in the buffer and the
    /// stream is folded up to `from` (which may lie ahead of `len`, at the aligned start).
    #[inline(always)]
    fn to_block_end(len: usize, from: usize, block: usize) -> usize {
        if len <= from {
            from - len
        } else {
            block - (len - from)
        }
    }

    impl Fused {
        pub(in crate::records) fn new() -> Self {
            Fused {
                enabled: false,
                start: 0,
                from: 0,
                base: 0,
                acc: bytemuck::Zeroable::zeroed(),
                tail: bytemuck::Zeroable::zeroed(),
                tail_at: usize::MAX,
            }
        }

        /// Turns the fused path on (when the CPU has it) or off (compressed batches, whose
        /// CRC covers the compressed bytes instead). Folded state is kept: `finish` is only
        /// asked for it when the section was not replaced.
        pub(in crate::records) fn set_enabled(&mut self, yes: bool) {
            self.enabled = yes && detected() && !super::fused_off();
        }

        /// See the wrapper's `enabled`.
        #[inline(always)]
        pub(in crate::records) fn is_enabled(&self) -> bool {
            self.enabled
        }

        /// Tests: whether any bytes went through the fused path.
        #[cfg(test)]
        pub(in crate::records) fn used(&self) -> bool {
            self.enabled && self.from > self.start
        }

        /// See the wrapper's `set_base`.
        pub(in crate::records) fn set_base(&mut self, at: usize) {
            self.base = at;
        }

        /// Whether a copy of `len` bytes goes through [`copy`](Self::copy) (else the caller
        /// copies plainly).
        #[inline(always)]
        pub(in crate::records) fn takes(&self, len: usize) -> bool {
            self.enabled && len >= MIN_FUSED
        }

        /// Appends `src` to the batch `out`, folding it into the CRC; only when
        /// [`takes`](Self::takes) said so (else it is copied plainly).
        #[inline(always)]
        pub(in crate::records) fn copy(
            &mut self,
            out: &mut Vec<u8>,
            pre: &[u8],
            n: usize,
            src: &[u8],
        ) {
            if self.enabled {
                // SAFETY: `enabled` is only set when `detected()` found every
                // CPU feature `copy_simd` is compiled for; the function itself is safe code.
                #[allow(unsafe_code)]
                unsafe {
                    self.copy_simd(out, pre, n, src)
                }
            } else {
                out.extend_from_slice(pre.get(..n).unwrap_or_default());
                out.extend_from_slice(src);
            }
        }

        /// The CRC-32C of `batch[21..]` if anything was folded, else `None` (the caller
        /// computes it in one pass). `batch` must be the buffer the copies went into, with its
        /// header filled in.
        pub(in crate::records) fn finish(&mut self, batch: &[u8]) -> Option<u32> {
            if !self.enabled || self.from <= self.start || batch.len() < self.from {
                return None;
            }
            // SAFETY: as in `copy`.
            #[allow(unsafe_code)]
            unsafe {
                self.finish_simd(batch)
            }
        }

        /// At the batch's first fused copy, places the stream's blocks on the buffer's
        /// `block`-byte boundaries (64-byte lines); only speed depends on it (a reallocation later moves the lines, not the
        /// results).
        #[inline(always)]
        fn align_start(&mut self, out: &[u8], block: usize) {
            if self.start == 0 {
                let records = self.base + RECORD_BATCH_OVERHEAD;
                let at = (out.as_ptr() as usize).wrapping_add(records);
                self.start = records + (at.wrapping_neg() & (block - 1));
                self.from = self.start;
            }
        }

        #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,vpclmulqdq,pclmulqdq,sse4.2")]
        fn copy_simd(&mut self, out: &mut Vec<u8>, pre: &[u8], n: usize, src: &[u8]) {
            let keys = keys();
            let (pre, n) = match pre.first_chunk::<BLOCK>() {
                Some(p) if n <= BLOCK => (bytemuck::cast(*p), n),
                _ => {
                    // More than a register: written plainly first.
                    out.extend_from_slice(pre.get(..n).unwrap_or_default());
                    (bytemuck::Zeroable::zeroed(), 0)
                }
            };
            // The common case (every record after the first with a long value and nothing
            // written in between): the block the value's head completes is composed in
            // registers from the previous value's tail, the fields and the value's head.
            let composed = match src.first_chunk::<BLOCK>() {
                Some(s)
                    if self.tail_at == out.len() && out.len().wrapping_sub(self.from) <= BLOCK =>
                {
                    Some(self.compose(out, pre, n, s, keys))
                }
                _ => None,
            };
            let (mut acc, entry, rest) = match composed {
                Some((acc, fill)) => (acc, out.len() - fill, src.get(fill..).unwrap_or_default()),
                None => {
                    self.tail_at = usize::MAX;
                    let len = out.len() + n;
                    out.extend_from_slice(&bytemuck::cast::<__m512i, [u8; BLOCK]>(pre));
                    out.truncate(len);
                    match self.top_up(out, src, keys) {
                        Some(r) => r,
                        None => return,
                    }
                }
            };
            let mut groups = rest.chunks_exact(4 * BLOCK);
            for g in &mut groups {
                let Some(g) = g.first_chunk::<{ 4 * BLOCK }>() else {
                    break;
                };
                let d: [__m512i; 4] = bytemuck::cast(*g);
                out.extend_from_slice(&bytemuck::cast::<[__m512i; 4], [u8; 4 * BLOCK]>(d));
                for (a, d) in acc.iter_mut().zip(d) {
                    *a = fold(*a, keys, d);
                }
            }
            let mut blocks = groups.remainder().chunks_exact(BLOCK);
            for b in &mut blocks {
                let Some(b) = b.first_chunk::<BLOCK>() else {
                    break;
                };
                let d: __m512i = bytemuck::cast(*b);
                out.extend_from_slice(&bytemuck::cast::<__m512i, [u8; BLOCK]>(d));
                acc = fold_next(acc, keys, d);
            }
            self.acc = acc;
            self.from = out.len();
            let tail = blocks.remainder();
            match src.last_chunk::<BLOCK>() {
                // All of `src` but the tail is in place, so the block before it is too.
                Some(last) if out.len() - entry + tail.len() == src.len() => {
                    if !tail.is_empty() {
                        out.truncate(out.len() + tail.len() - BLOCK);
                        out.extend_from_slice(last);
                    }
                    self.tail = bytemuck::cast(*last);
                    self.tail_at = out.len();
                }
                _ => out.extend_from_slice(tail),
            }
        }

        /// The start of [`copy_simd`](Self::copy_simd) from registers: stores the fields
        /// (`pre`'s first `n` bytes) and the value's head, and folds the pending bytes (the
        /// previous value's tail, in `self.tail`), the fields and the head without reading
        /// any of them back. Returns the accumulators and how many bytes of `src` it wrote.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,vpclmulqdq")]
        fn compose(
            &mut self,
            out: &mut Vec<u8>,
            pre: __m512i,
            n: usize,
            src: &[u8; BLOCK],
            keys: __m512i,
        ) -> ([__m512i; 4], usize) {
            let mut acc = self.acc;
            // Pending bytes: the last `t` of `tail` (t <= 64), then the `n` of `pre`.
            let t = out.len() - self.from;
            let len = out.len() + n;
            out.extend_from_slice(&bytemuck::cast::<__m512i, [u8; BLOCK]>(pre));
            out.truncate(len);
            let iota: __m512i = bytemuck::cast(IOTA);
            // Byte i of `tail ‖ pre` from i + 64 - t: the tail's last t bytes, then `pre`.
            let shift = _mm512_add_epi8(iota, _mm512_set1_epi8((BLOCK - t) as i8));
            let mut block = _mm512_permutex2var_epi8(self.tail, shift, pre);
            let mut k = t + n;
            if k >= BLOCK {
                // A whole block of tail and fields; the fields' rest (pre[64 - t..n]) starts
                // the next.
                acc = fold_next(acc, keys, block);
                block = _mm512_permutexvar_epi8(shift, pre);
                k -= BLOCK;
            }
            // The value's head after the k pending bytes.
            let fill = BLOCK - k;
            let s: __m512i = bytemuck::cast(*src);
            let head = _mm512_permutexvar_epi8(_mm512_sub_epi8(iota, _mm512_set1_epi8(k as i8)), s);
            block = _mm512_mask_blend_epi8(mask_from(k), block, head);
            acc = fold_next(acc, keys, block);
            let len = out.len() + fill;
            out.extend_from_slice(src);
            out.truncate(len);
            (acc, fill)
        }

        /// The start of [`copy_simd`](Self::copy_simd) from the batch (the fields already
        /// stored): folds what was written since the last copy, then tops the pending partial block up
        /// from `src` so that the rest of `src` starts on a block boundary. Returns the
        /// accumulators, where the head was written and the rest of `src`; `None` when `src`
        /// ran out first (then all of it is written and the state saved).
        #[inline]
        #[target_feature(enable = "avx512f,vpclmulqdq")]
        fn top_up<'s>(
            &mut self,
            out: &mut Vec<u8>,
            src: &'s [u8],
            keys: __m512i,
        ) -> Option<([__m512i; 4], usize, &'s [u8])> {
            self.align_start(out, BLOCK);
            let (acc, from) = fold_blocks(self.acc, keys, out, self.from);
            let fill = to_block_end(out.len(), from, BLOCK);
            let entry = out.len();
            let (head, rest) = src.split_at(fill.min(src.len()));
            // The head and the tail are shorter than a block: each goes as one fixed-size
            // move of a whole block of `src`, cut back (the tail's overlapping bytes just
            // written, with the same values), instead of a `memcpy` call of a varying length.
            // Measured: 1 MB of 1 KB records 44.1 -> 41.7 µs.
            match src.first_chunk::<BLOCK>() {
                Some(first) if head.len() < BLOCK => {
                    let len = out.len() + head.len();
                    out.extend_from_slice(first);
                    out.truncate(len);
                }
                _ => out.extend_from_slice(head),
            }
            let (acc, from) = fold_blocks(acc, keys, out, from);
            if out.len() != from {
                // Only when `src` ran out first, which MIN_FUSED rules out.
                self.acc = acc;
                self.from = from;
                out.extend_from_slice(rest);
                return None;
            }
            Some((acc, entry, rest))
        }

        #[target_feature(enable = "avx512f,vpclmulqdq,pclmulqdq,sse4.2")]
        fn finish_simd(&mut self, batch: &[u8]) -> Option<u32> {
            (self.acc, self.from) = fold_blocks(self.acc, keys(), batch, self.from);
            // The accumulators are 256 bytes congruent to everything folded, in its place:
            // the CRC of them followed by the unfolded tail is the records' CRC.
            let words: [u64; 4 * BLOCK / 8] = bytemuck::cast(self.acc);
            let mut c = 0u64;
            for w in words {
                c = _mm_crc32_u64(c, w);
            }
            let records = crc_bytes(c as u32, batch.get(self.from..)?);
            let head = crc_bytes(!0, batch.get(self.base + CRC_FROM..self.start)?);
            let len = (batch.len() - self.start) as u64;
            Some(!(shift(head, len) ^ records))
        }
    }

    /// Calls `f` compiled for the fused path's CPU features (`f` must be `#[inline(always)]`,
    /// else it may stay a call to code compiled without them). The fused copy itself is not
    /// inlined into it (LLVM finds `copy_simd` too large; `#[inline]` on it only made a copy
    /// per codegen unit). Call only when [`detected`] is true.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,vpclmulqdq,pclmulqdq,sse4.2")]
    pub(super) fn with_features<R>(f: impl FnOnce() -> R) -> R {
        f()
    }

    /// Folds every whole block of `out[from..]`; returns the accumulators and where the
    /// unfolded bytes start.
    #[inline]
    #[target_feature(enable = "avx512f,vpclmulqdq")]
    fn fold_blocks(
        mut acc: [__m512i; 4],
        keys: __m512i,
        out: &[u8],
        mut from: usize,
    ) -> ([__m512i; 4], usize) {
        if let Some(data) = out.get(from..) {
            for b in data.chunks_exact(BLOCK) {
                if let Some(b) = b.first_chunk::<BLOCK>() {
                    acc = fold_next(acc, keys, bytemuck::cast(*b));
                    from += BLOCK;
                }
            }
        }
        (acc, from)
    }

    /// Bits `at..64` set (none when `at` is 64 or more): the register bytes from `at` on.
    #[inline(always)]
    fn mask_from(at: usize) -> u64 {
        u64::MAX.checked_shl(at as u32).unwrap_or(0)
    }

    /// Whether this CPU has every instruction the fused path uses.
    pub(super) fn detected() -> bool {
        std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512vbmi")
            && std::is_x86_feature_detected!("vpclmulqdq")
            && std::is_x86_feature_detected!("pclmulqdq")
            && std::is_x86_feature_detected!("sse4.2")
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn keys() -> __m512i {
        let (lo, hi) = KEYS;
        _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo)
    }

    /// Folds `data` into the first accumulator, which becomes the last.
    #[inline]
    #[target_feature(enable = "avx512f,vpclmulqdq")]
    fn fold_next(acc: [__m512i; 4], keys: __m512i, data: __m512i) -> [__m512i; 4] {
        let [a, b, c, d] = acc;
        [b, c, d, fold(a, keys, data)]
    }

    /// `acc` moved forward by four blocks (modulo the polynomial), plus `data`.
    #[inline]
    #[target_feature(enable = "avx512f,vpclmulqdq")]
    fn fold(acc: __m512i, keys: __m512i, data: __m512i) -> __m512i {
        let lo = _mm512_clmulepi64_epi128::<0x00>(acc, keys);
        let hi = _mm512_clmulepi64_epi128::<0x11>(acc, keys);
        // Three-way exclusive or.
        _mm512_ternarylogic_epi64::<0x96>(lo, hi, data)
    }

    /// The `crc32` instruction over `data` from register `c` (no inversions).
    #[target_feature(enable = "sse4.2")]
    fn crc_bytes(c: u32, data: &[u8]) -> u32 {
        let mut c = u64::from(c);
        let mut words = data.chunks_exact(8);
        for w in &mut words {
            if let Some(w) = w.first_chunk::<8>() {
                c = _mm_crc32_u64(c, u64::from_le_bytes(*w));
            }
        }
        let mut c = c as u32;
        for &b in words.remainder() {
            c = _mm_crc32_u8(c, b);
        }
        c
    }

    /// The register `r` after `n` more zero bytes: r·x^(8n) modulo the polynomial.
    ///
    /// `n` must be below 2^32: the table stops at x^(8·2^31), so higher bits of `n` would be
    /// dropped silently. A batch is at most 2 GiB (`build_vec` refuses larger ones before the
    /// CRC), so `n` never gets there.
    #[target_feature(enable = "pclmulqdq,sse4.2")]
    fn shift(mut r: u32, n: u64) -> u32 {
        debug_assert!(n >> 32 == 0, "shift by {n} bytes: at most 2^32 - 1");
        for _ in 0..(n & 7) {
            r = _mm_crc32_u8(r, 0);
        }
        let mut n = n >> 3;
        for &k in SHIFT.iter().skip(3) {
            if n == 0 {
                break;
            }
            if n & 1 != 0 {
                let p = _mm_clmulepi64_si128::<0x00>(
                    _mm_cvtsi64_si128(i64::from(r)),
                    _mm_cvtsi64_si128(i64::from(k)),
                );
                r = _mm_crc32_u64(0, _mm_cvtsi128_si64(p) as u64) as u32;
            }
            n >>= 1;
        }
        r
    }

    #[cfg(test)]
    mod tests {
        use super::super::model::rng;
        use super::*;

        /// Builds a batch-shaped buffer (a 61-byte random header, then `body`) through
        /// `Fused`, copying `body` in pieces of random length, and returns its CRC-32C.
        fn fused_crc(header: &[u8; 61], body: &[u8], s: &mut u64) -> (Vec<u8>, Option<u32>) {
            let mut f = Fused::new();
            f.set_enabled(true);
            let mut out = header.to_vec();
            let mut rest = body;
            while !rest.is_empty() {
                let n = match rng(s) % 3 {
                    0 => rng(s) as usize % 40,
                    1 => rng(s) as usize % 1500,
                    _ => rng(s) as usize % 5000,
                }
                .min(rest.len());
                let (piece, tail) = rest.split_at(n);
                // Some of the piece's first bytes go as the record fields written before a
                // value (up to 79: past the fixed 64-byte move too).
                let k = (rng(s) as usize % 80).min(piece.len());
                let (head, body) = piece.split_at(k);
                if f.takes(body.len()) {
                    let mut pre = [0u8; super::super::PRE];
                    pre[..k].copy_from_slice(head);
                    f.copy(&mut out, &pre, k, body);
                } else {
                    out.extend_from_slice(piece);
                }
                rest = tail;
            }
            let crc = f.finish(&out);
            (out, crc)
        }

        #[test]
        fn fused_crc_matches_crc_fast_at_every_length() {
            if super::super::skip_without_avx512("the fused CRC", detected()) {
                return;
            }
            let mut s = 0x9e37_79b9_7f4a_7c15;
            let lengths = (0..4096).chain([65_536, 65_537, 1 << 20, 1_000_037, 3 << 20]);
            let mut fused = 0;
            for len in lengths {
                let mut header = [0u8; 61];
                header.iter_mut().for_each(|b| *b = rng(&mut s) as u8);
                let body: Vec<u8> = (0..len).map(|_| rng(&mut s) as u8).collect();
                let (out, crc) = fused_crc(&header, &body, &mut s);
                assert_eq!(&out[..61], &header[..]);
                assert_eq!(&out[61..], &body[..]);
                if let Some(crc) = crc {
                    fused += 1;
                    assert_eq!(crc, crc_fast::crc32_iscsi(&out[21..]), "length {len}");
                }
            }
            assert!(
                fused > 3000,
                "only {fused} lengths went through the fused path"
            );
        }

        /// The fused path against the table CRC (no shared code, no carry-less
        /// multiplication): every body length 0..4096 and random large ones, each body read
        /// from a random misaligned start of a larger buffer, after a random number of bytes
        /// written plainly (so the folded stream starts anywhere relative to the body).
        #[test]
        fn fused_crc_matches_the_table_crc_from_misaligned_starts() {
            if super::super::skip_without_avx512("the fused CRC", detected()) {
                return;
            }
            let mut s = 0x6a09_e667_f3bc_c908;
            let mut data = vec![0u8; (3 << 20) + 4096];
            data.iter_mut().for_each(|b| *b = rng(&mut s) as u8);
            let large: Vec<usize> = (0..6)
                .map(|_| 4096 + rng(&mut s) as usize % ((3 << 20) - 4096))
                .collect();
            let mut fused = 0;
            for len in (0..4096).chain([65_537, 1_000_037]).chain(large) {
                let mut header = [0u8; 61];
                header.iter_mut().for_each(|b| *b = rng(&mut s) as u8);
                let pre = rng(&mut s) as usize % 200;
                let at = rng(&mut s) as usize % 4096;
                let (lead, body) = data[at..at + pre + len].split_at(pre);
                let mut f = Fused::new();
                f.set_enabled(true);
                let mut out = header.to_vec();
                let mut p = [0u8; super::super::PRE];
                p[..pre].copy_from_slice(lead);
                f.copy(&mut out, &p, pre, body);
                assert_eq!(&out[61 + pre..], body, "length {len}");
                if let Some(crc) = f.finish(&out) {
                    fused += 1;
                    let want = super::super::model::crc32c(&out[21..]);
                    assert_eq!(crc, want, "length {len} after {pre} plain bytes from {at}");
                }
            }
            assert!(
                fused > 3800,
                "only {fused} lengths went through the fused path"
            );
        }

        /// Two fused copies in a row, the second composing its first block in registers
        /// from the first's tail: every tail length (the first value's length over 64 lengths)
        /// against every count of field bytes before the second value (0..=64, so that tail
        /// and fields fill less than, exactly or more than a block), against the table CRC.
        #[test]
        fn composed_blocks_at_every_tail_and_field_length() {
            if super::super::skip_without_avx512("the composed block", detected()) {
                return;
            }
            let mut s = 0x3c6e_f372_fe94_f82b;
            let mut data = vec![0u8; 4096];
            data.iter_mut().for_each(|b| *b = rng(&mut s) as u8);
            let mut composed = 0;
            for first in MIN_FUSED..MIN_FUSED + BLOCK {
                for n in 0..=BLOCK {
                    let mut f = Fused::new();
                    f.set_enabled(true);
                    let mut out = data[..61].to_vec();
                    let pre = [0u8; super::super::PRE];
                    f.copy(&mut out, &pre, 0, &data[100..100 + first]);
                    composed += usize::from(f.tail_at == out.len());
                    let mut pre = [0u8; super::super::PRE];
                    pre[..n].copy_from_slice(&data[1000..1000 + n]);
                    let second = &data[2000..2000 + MIN_FUSED + n];
                    f.copy(&mut out, &pre, n, second);
                    let crc = f.finish(&out).expect("folded");
                    let want = super::super::model::crc32c(&out[21..]);
                    assert_eq!(crc, want, "first value {first} bytes, {n} field bytes");
                    assert_eq!(out.len(), 61 + first + n + MIN_FUSED + n);
                    assert_eq!(&out[61 + first..61 + first + n], &pre[..n]);
                }
            }
            assert_eq!(
                composed,
                BLOCK * (BLOCK + 1),
                "the second copy did not compose"
            );
        }

        #[test]
        fn shift_is_zero_feeding() {
            if super::super::skip_without_avx512("`shift`", detected()) {
                return;
            }
            // SAFETY: the features `check_shift` is compiled for were just detected.
            #[allow(unsafe_code)]
            unsafe {
                check_shift()
            }
        }

        /// `shift` against feeding the `crc32` instruction zero bytes one at a time.
        #[target_feature(enable = "pclmulqdq,sse4.2")]
        fn check_shift() {
            for n in [0u64, 1, 7, 8, 9, 63, 64, 65, 255, 256, 1000, 4097] {
                let mut want = 0x1234_5678;
                for _ in 0..n {
                    want = _mm_crc32_u8(want, 0);
                }
                assert_eq!(shift(0x1234_5678, n), want, "n {n}");
            }
        }
    }
}

/// Tests: an obviously correct CRC-32C (a byte table built bit by bit from the polynomial)
/// and a scalar model of the 4×512-bit fold, to check the fused path and the folding scheme
/// against something that shares no code with them.
#[cfg(test)]
pub(super) mod model {
    use super::{BLOCK, KEYS, POLY};

    /// A xorshift generator: reproducible test data.
    pub(in crate::records) fn rng(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    /// The byte table of the reflected CRC-32C, one bit at a time.
    fn table() -> [u32; 256] {
        let mut t = [0u32; 256];
        for (i, e) in t.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            }
            *e = c;
        }
        t
    }

    /// The CRC register `c` after `data` (no inversions), as the `crc32` instruction.
    pub(in crate::records) fn register(mut c: u32, data: &[u8]) -> u32 {
        let t = table();
        for &b in data {
            c = t[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8);
        }
        c
    }

    /// CRC-32C (Castagnoli) of `data`, as Kafka's batches carry it.
    pub(in crate::records) fn crc32c(data: &[u8]) -> u32 {
        !register(!0, data)
    }

    /// 64×64-bit carry-less product: `a` shifted by each set bit of `b`, exclusive-ored.
    fn clmul(a: u64, mut b: u64) -> u128 {
        let mut p = 0u128;
        while b != 0 {
            p ^= u128::from(a) << b.trailing_zeros();
            b &= b - 1;
        }
        p
    }

    /// A 512-bit accumulator as four 128-bit lanes, lane 0 first (the bytes' order in memory).
    type Acc = [u128; 4];

    /// `_mm512_clmulepi64_epi128` with selectors 0x00 and 0x11 against the keys, then the
    /// exclusive or with `data`, lane by lane: the fused path's `fold`.
    fn fold(acc: Acc, data: Acc) -> Acc {
        let (lo, hi) = (KEYS.0 as u64, KEYS.1 as u64);
        let mut r = [0u128; 4];
        for ((r, a), d) in r.iter_mut().zip(acc).zip(data) {
            *r = clmul(a as u64, lo) ^ clmul((a >> 64) as u64, hi) ^ d;
        }
        r
    }

    /// The CRC-32C of `head ‖ stream` computed as the fused path does: `stream`'s whole
    /// 64-byte blocks go to four accumulators in turn, each moved forward past the other
    /// three's blocks; the accumulators' 256 bytes then stand for the folded blocks, the CRC
    /// register runs over them and the unfolded tail, and `head`'s register is moved forward
    /// past the stream and joined.
    pub(in crate::records) fn fold_crc(head: &[u8], stream: &[u8]) -> u32 {
        let mut acc = [[0u128; 4]; 4];
        let mut blocks = stream.chunks_exact(BLOCK);
        for b in &mut blocks {
            let mut d = [0u128; 4];
            for (d, lane) in d.iter_mut().zip(b.chunks_exact(16)) {
                let mut w = [0u8; 16];
                w.copy_from_slice(lane);
                *d = u128::from_le_bytes(w);
            }
            let [a, b, c, e] = acc;
            acc = [b, c, e, fold(a, d)];
        }
        let folded: Vec<u8> = acc
            .iter()
            .flatten()
            .flat_map(|lane| lane.to_le_bytes())
            .collect();
        let records = register(register(0, &folded), blocks.remainder());
        // The head's register moved past the stream: fed that many zero bytes.
        let moved = register(register(!0, head), &vec![0u8; stream.len()]);
        !(moved ^ records)
    }
}

#[cfg(test)]
mod tests {
    use super::model::rng;
    use super::*;

    #[test]
    fn table_crc_is_crc32c() {
        // The catalogue's check value of CRC-32C ("123456789") and RFC 3720's test vectors
        // (32 zero bytes, 32 bytes of 0xFF), independent of any code here.
        assert_eq!(model::crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(model::crc32c(&[0u8; 32]), 0x8A91_36AA);
        assert_eq!(model::crc32c(&[0xFFu8; 32]), 0x62A8_AB43);
    }

    /// The folding scheme and its constants, on every machine (no AVX-512 needed): the scalar
    /// model of the fold gives the table CRC for every stream length 0..4096 (after heads of
    /// varying length) and for random large ones.
    #[test]
    fn scalar_fold_model_matches_the_table_crc() {
        let mut s = 0x853c_49e6_748f_ea9b;
        let mut data = vec![0u8; 3 << 20];
        data.iter_mut().for_each(|b| *b = rng(&mut s) as u8);
        let large: Vec<usize> = (0..3)
            .map(|_| 4096 + rng(&mut s) as usize % ((3 << 20) - 8192))
            .collect();
        let lengths = (0..4096)
            .chain([65_536, 65_537, 1 << 20, 1_000_037])
            .chain(large);
        for len in lengths {
            let head_len = rng(&mut s) as usize % 100;
            let at = rng(&mut s) as usize % (data.len() - len - head_len).max(1);
            let (head, stream) = data[at..at + head_len + len].split_at(head_len);
            let mut whole = head.to_vec();
            whole.extend_from_slice(stream);
            assert_eq!(
                model::fold_crc(head, stream),
                model::crc32c(&whole),
                "stream length {len}, head {head_len}"
            );
        }
    }

    #[test]
    fn constants_from_the_polynomial() {
        // x^32 ≡ the polynomial's low terms: 0x1EDC6F41 without x^32, reflected.
        assert_eq!(x_pow(32), POLY);
        assert_eq!(x_pow(0), 1 << 31);
        assert_eq!(mul_mod(x_pow(100), x_pow(23)), x_pow(123));
        // x^(2^32·8) by squaring agrees with the product of its halves.
        assert_eq!(mul_mod(x_pow(1 << 34), x_pow(1 << 34)), x_pow(1 << 35));
    }

    /// A builder's batch with values long enough for the fused path, built once with it and
    /// once without: the same bytes, and the CRC is Kafka's (checked by the decoder).
    #[test]
    fn builder_batches_identical_with_and_without_the_fused_path() {
        use crate::records::{BatchBuilder, NewHeader, NewRecord};

        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || rng(&mut s);
        let records: Vec<(Vec<u8>, Vec<u8>)> = (0..200)
            .map(|i| {
                let len = match i % 4 {
                    0 => 3,
                    1 => 255,
                    2 => 256 + next() as usize % 3000,
                    _ => 70_000 + next() as usize % 100,
                };
                let key = (0..i % 20).map(|_| next() as u8).collect();
                (key, (0..len).map(|_| next() as u8).collect())
            })
            .collect();
        // Built alone, and appended after 0-69 other bytes (the fused stream's blocks then
        // start elsewhere relative to the batch).
        let headers: Vec<[NewHeader<'_>; 1]> = records
            .iter()
            .map(|(_, v)| [NewHeader::new("h", Some(&v[..v.len().min(300)]))])
            .collect();
        for pre in [None].into_iter().chain((0..70).map(Some)) {
            // One `append` per record, or (`at_once`) the records in three `append_all`
            // runs, the last one with headers and a third of the records.
            let build = |at_once: bool| {
                let mut b = match pre {
                    None => BatchBuilder::new(1000),
                    Some(n) => BatchBuilder::appending_to(1000, vec![0xA5; n]),
                };
                b.producer(7, 1, 0);
                let record = |i: usize| {
                    let (k, v) = &records[i];
                    let r = NewRecord::new(1_700_000_000_000 + i as i64, Some(k), Some(v));
                    r.with_headers(&headers[i])
                };
                if at_once {
                    let n = records.len();
                    b.append_all((0..1).map(|i| record(i).with_headers(&[])));
                    b.append_all((1..n / 2).map(|i| record(i).with_headers(&[])));
                    b.append_all((n / 2..n).map(record));
                } else {
                    for (i, (k, v)) in records.iter().enumerate() {
                        let h = if i < records.len() / 2 {
                            &[][..]
                        } else {
                            &headers[i]
                        };
                        b.append(1_700_000_000_000 + i as i64, Some(k), Some(v), h);
                    }
                }
                let used = b.fused_used();
                (b.build_vec().expect("a valid batch"), used)
            };
            let (fused, used) = build(false);
            let (plain, plain_used) = with_fused_off(|| build(false));
            let (fused_all, used_all) = build(true);
            let (plain_all, plain_used_all) = with_fused_off(|| build(true));
            assert!(
                !plain_used && !plain_used_all,
                "with_fused_off left the fused path on"
            );
            #[cfg(all(target_arch = "x86_64", feature = "fused-crc"))]
            if !skip_without_avx512("the builder's fused path", x86_detected()) {
                assert!(used && used_all, "the fused path was not taken");
            }
            let _ = (used, used_all);
            assert_eq!(fused.len(), plain.len());
            assert!(
                fused == plain,
                "the two paths' batches differ (prefix {pre:?})"
            );
            assert!(
                fused_all == plain && plain_all == plain,
                "append_all's batches differ from append's (prefix {pre:?})"
            );
            // Kafka's CRC-32C of bytes 21.., from an independent implementation.
            let batch = &plain[pre.unwrap_or(0)..];
            let crc = model::crc32c(&batch[21..]);
            assert_eq!(batch[17..21], crc.to_be_bytes());
        }
    }
}
