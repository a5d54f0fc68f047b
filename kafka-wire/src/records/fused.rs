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
//! On x86-64 CPUs with VPCLMULQDQ and AVX2 but no AVX-512 (AMD Zen 3, Intel Alder Lake) a
//! 256-bit variant does the same with 32-byte blocks (`copy_ymm`): the fields written before
//! each value are folded back from the batch, there is no composed first block. The fold
//! alone (two carry-less multiplies per 32 bytes, about 23 GB/s on a Zen 3) would be slower
//! than the copy it rides on, so the bulk of each value goes in 224-byte steps that split the
//! work as `crc32c_hybrid` does: 96 bytes through three `crc32` instruction streams (an
//! integer unit), 128 bytes folded (the carry-less multiplier), both while copying. The
//! builder does not take it: on a Zen 3 the copy and the CRC's work add up rather than
//! overlap, and a plain copy followed by one pass of the hybrid CRC at `build` is as fast
//! (1 MB of 1 KB records: 72.0-73.5 µs fused against 72.4 µs, BENCHMARKS.md's fourteenth
//! wave). It stays, tested through `force_ymm`, for CPUs where that balance differs.
//!
//! Elsewhere (other CPUs and architectures, compressed batches, batches with no long value)
//! the builder takes the portable path: it copies, and the checksum is one `crc-fast` pass at
//! `build`. That path is the same code on every architecture (x86-64 selects it at run time),
//! so the tests here run it on x86-64 too. Building with `--cfg kafka_wire_portable` compiles
//! the x86-64 path out, as on other architectures (CI checks and tests the records module
//! that way).

#[cfg(all(test, target_arch = "x86_64", not(kafka_wire_portable)))]
use x86::detected as x86_detected;

/// The running CRC-32C of a batch being built: the fused path where it is compiled in, the
/// CPU has it and it is enabled; else the portable path (plain copies, and `finish` leaves the
/// checksum to one pass over the finished batch).
#[derive(Debug, Clone, Copy)]
pub(super) struct Fused {
    #[cfg(all(target_arch = "x86_64", not(kafka_wire_portable)))]
    simd: x86::Fused,
}

impl Fused {
    /// Disabled until [`set_enabled`](Self::set_enabled).
    pub(super) fn new() -> Self {
        Fused {
            #[cfg(all(target_arch = "x86_64", not(kafka_wire_portable)))]
            simd: x86::Fused::new(),
        }
    }

    /// Turns the fused path on (when compiled in and the CPU has it) or off (compressed
    /// batches, whose CRC covers the compressed bytes instead).
    pub(super) fn set_enabled(&mut self, yes: bool) {
        #[cfg(all(target_arch = "x86_64", not(kafka_wire_portable)))]
        self.simd.set_enabled(yes);
        #[cfg(not(all(target_arch = "x86_64", not(kafka_wire_portable))))]
        let _ = yes;
    }

    /// Which fused path copies go through: 0 none (not compiled in, the CPU lacks it, or
    /// disabled), 1 the 512-bit one, 2 the 256-bit one.
    #[inline(always)]
    pub(super) fn enabled(&self) -> u8 {
        #[cfg(all(target_arch = "x86_64", not(kafka_wire_portable)))]
        return self.simd.mode();
        #[cfg(not(all(target_arch = "x86_64", not(kafka_wire_portable))))]
        0
    }

    /// Calls `f` (which must be `#[inline(always)]`), compiled for the CPU features of the
    /// fused path `mode` (what [`enabled`](Self::enabled) said); else plainly.
    #[inline(always)]
    pub(super) fn compiled_for_fused<R>(mode: u8, f: impl FnOnce() -> R) -> R {
        #[cfg(all(target_arch = "x86_64", not(kafka_wire_portable)))]
        match mode {
            // SAFETY: mode 1 is only reported when `detected()` found every CPU feature
            // `with_features` is compiled for; the function itself is safe code.
            #[allow(unsafe_code)]
            1 => return unsafe { x86::with_features(f) },
            // SAFETY: mode 2 is only reported when `ymm_capable()` found every CPU feature
            // `with_ymm_features` is compiled for; the function itself is safe code.
            #[allow(unsafe_code)]
            2 => return unsafe { x86::with_ymm_features(f) },
            _ => {}
        }
        #[cfg(not(all(target_arch = "x86_64", not(kafka_wire_portable))))]
        let _ = mode;
        f()
    }

    /// Where the batch starts in the buffer the copies go into (0 unless the batch is
    /// appended after other bytes). Set before the first copy.
    pub(super) fn set_base(&mut self, at: usize) {
        #[cfg(all(target_arch = "x86_64", not(kafka_wire_portable)))]
        self.simd.set_base(at);
        #[cfg(not(all(target_arch = "x86_64", not(kafka_wire_portable))))]
        let _ = at;
    }

    /// Tests: whether any bytes went through the fused path.
    #[cfg(test)]
    pub(super) fn used(&self) -> bool {
        #[cfg(all(target_arch = "x86_64", not(kafka_wire_portable)))]
        return self.simd.used();
        #[cfg(not(all(target_arch = "x86_64", not(kafka_wire_portable))))]
        false
    }

    /// Appends `pre[..n]` (a record's fields, gathered in the builder's block) and then `src`
    /// to the batch `out`, folding both into the CRC when that is worth it: one call per
    /// record instead of a `memcpy` of the fields and then the fused copy.
    #[inline(always)]
    pub(super) fn copy_after(&mut self, out: &mut Vec<u8>, pre: &[u8; PRE], n: usize, src: &[u8]) {
        #[cfg(all(target_arch = "x86_64", not(kafka_wire_portable)))]
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
        #[cfg(all(target_arch = "x86_64", not(kafka_wire_portable)))]
        return self.simd.finish(batch);
        #[cfg(not(all(target_arch = "x86_64", not(kafka_wire_portable))))]
        {
            let _ = batch;
            None
        }
    }
}

/// Values at least this long take [`x86::crc32c_ymm`] where it is the faster choice (below,
/// `crc-fast`'s set-up is the smaller).
#[cfg(all(target_arch = "x86_64", not(kafka_wire_portable)))]
const YMM_MIN: usize = 256;

/// Data at least this long take [`x86::crc32c_hybrid`] instead of [`x86::crc32c_ymm`]
/// (standalone loop on Zen 3: 1 KiB the same rate, 4 KiB 33 against 23 GB/s).
#[cfg(all(target_arch = "x86_64", not(kafka_wire_portable)))]
const HYBRID_MIN: usize = 2048;

/// CRC-32C of `data`, Kafka's batch checksum: `crc-fast` (AVX-512 VPCLMULQDQ, SSE
/// PCLMULQDQ or Arm NEON, chosen at run time), except on x86-64 CPUs with 256-bit VPCLMULQDQ
/// but no AVX-512 (AMD Zen 3, Intel Alder Lake), where `crc-fast` would fold 128 bits at a
/// time and this crate's 256-bit fold is faster, and from 2 KiB on its fold run together
/// with three `crc32` instruction streams faster still.
pub(super) fn crc32c(data: &[u8]) -> u32 {
    #[cfg(all(target_arch = "x86_64", not(kafka_wire_portable)))]
    if data.len() >= YMM_MIN && x86::ymm_detected() && !fused_off() {
        if data.len() >= HYBRID_MIN {
            // SAFETY: `ymm_detected()` found every CPU feature `crc32c_hybrid` is compiled
            // for; the function itself is safe code.
            #[allow(unsafe_code)]
            return unsafe { x86::crc32c_hybrid(data) };
        }
        // SAFETY: `ymm_detected()` found every CPU feature `crc32c_ymm` is compiled for; the
        // function itself is safe code.
        #[allow(unsafe_code)]
        return unsafe { x86::crc32c_ymm(data) };
    }
    crc_fast::crc32_iscsi(data)
}

/// The size of the builder's record block, whose first bytes [`Fused::copy_after`] writes
/// before a value.
pub(super) const PRE: usize = super::write::PRE;

/// CRC-32C's polynomial, bit-reflected (bit 31 is the coefficient of x^0).
#[cfg_attr(
    not(any(all(target_arch = "x86_64", not(kafka_wire_portable)), test)),
    allow(dead_code)
)]
const POLY: u32 = 0x82F6_3B78;

/// a·b modulo the polynomial, both bit-reflected (bit 31 is x^0): used at compile time for
/// the folding and shifting constants.
#[cfg_attr(
    not(any(all(target_arch = "x86_64", not(kafka_wire_portable)), test)),
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
    not(any(all(target_arch = "x86_64", not(kafka_wire_portable)), test)),
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
    not(any(all(target_arch = "x86_64", not(kafka_wire_portable)), test)),
    allow(dead_code)
)]
const BLOCK: usize = 64;

/// Folding constants for one 128-bit lane moved forward by `bits`: the lane's first 64 bits
/// (the higher-degree half, reflected) are multiplied by x^(bits+32), the second by
/// x^(bits-32), each reflected and shifted left by one so that the 64×64 carry-less product
/// lands aligned with the lane `bits` further on.
#[cfg_attr(
    not(any(all(target_arch = "x86_64", not(kafka_wire_portable)), test)),
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
    not(any(all(target_arch = "x86_64", not(kafka_wire_portable)), test)),
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
    not(all(target_arch = "x86_64", not(kafka_wire_portable))),
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
    not(all(target_arch = "x86_64", not(kafka_wire_portable))),
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

#[cfg(all(target_arch = "x86_64", not(kafka_wire_portable)))]
mod x86 {
    use core::arch::x86_64::{
        __m256i, __m512i, _mm256_clmulepi64_epi128, _mm256_set_epi64x, _mm256_setzero_si256,
        _mm256_xor_si256, _mm512_add_epi8, _mm512_clmulepi64_epi128, _mm512_mask_blend_epi8,
        _mm512_permutex2var_epi8, _mm512_permutexvar_epi8, _mm512_set1_epi8, _mm512_set_epi64,
        _mm512_sub_epi8, _mm512_ternarylogic_epi64, _mm_clmulepi64_si128, _mm_crc32_u64,
        _mm_crc32_u8, _mm_cvtsi128_si64, _mm_cvtsi64_si128, _mm_xor_si128,
    };

    use super::{fold_keys, x_pow, BLOCK, KEYS, PRE};
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
        /// The 256-bit path instead (CPUs with VPCLMULQDQ and AVX2 but no AVX-512, see
        /// [`ymm_detected`]): blocks of 32 bytes into `yacc`, no composed first block.
        ymm: bool,
        /// The 256-bit path's four accumulators, as `acc`.
        yacc: [__m256i; 4],
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
                ymm: false,
                yacc: bytemuck::Zeroable::zeroed(),
            }
        }

        /// Turns the fused path on (when the CPU has it) or off (compressed batches, whose
        /// CRC covers the compressed bytes instead). Folded state is kept: `finish` is only
        /// asked for it when the section was not replaced.
        pub(in crate::records) fn set_enabled(&mut self, yes: bool) {
            let zmm = detected();
            self.ymm = !zmm;
            // The 512-bit path only: where only the 256-bit one exists, copying plainly and
            // then the hybrid CRC at `build` is as fast (see the module's documentation).
            self.enabled = yes && zmm && !super::fused_off();
        }

        /// Tests: the 256-bit path on a CPU that has the 512-bit one too (when it has the
        /// 256-bit one's instructions); returns whether it is on.
        #[cfg(test)]
        pub(in crate::records) fn force_ymm(&mut self) -> bool {
            self.ymm = true;
            self.enabled = ymm_capable();
            self.enabled
        }

        /// See the wrapper's `enabled`.
        #[inline(always)]
        pub(in crate::records) fn mode(&self) -> u8 {
            match (self.enabled, self.ymm) {
                (false, _) => 0,
                (true, false) => 1,
                (true, true) => 2,
            }
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
            pre: &[u8; PRE],
            n: usize,
            src: &[u8],
        ) {
            if self.enabled && self.ymm {
                // SAFETY: `enabled` with `ymm` is only set when `ymm_capable()` found every
                // CPU feature `copy_ymm` is compiled for; the function itself is safe code.
                #[allow(unsafe_code)]
                unsafe {
                    self.copy_ymm(out, pre, n, src)
                }
            } else if self.enabled {
                // SAFETY: `enabled` without `ymm` is only set when `detected()` found every
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
            if self.ymm {
                // SAFETY: as in `copy`.
                #[allow(unsafe_code)]
                unsafe {
                    self.finish_ymm(batch)
                }
            } else {
                // SAFETY: as in `copy`.
                #[allow(unsafe_code)]
                unsafe {
                    self.finish_simd(batch)
                }
            }
        }

        /// At the batch's first fused copy, places the stream's blocks on the buffer's
        /// `block`-byte boundaries (64-byte lines for the 512-bit path, 32 for the 256-bit
        /// one); only speed depends on it (a reallocation later moves the lines, not the
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

        /// [`copy_simd`](Self::copy_simd) with 256-bit registers: folds what was written since
        /// the last copy (the record's fields, short values) from the batch, tops the pending
        /// block up from `src`, then copies the rest 224 bytes at a time (96 bytes through
        /// three `crc32` streams, 128 folded into the four accumulators, both reading the
        /// source as it is copied, from L1), then 128 and 32 at a time, folded.
        #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.2")]
        fn copy_ymm(&mut self, out: &mut Vec<u8>, pre: &[u8; PRE], n: usize, src: &[u8]) {
            let keys = keys_ymm();
            // The fields, the value's head and its tail are each shorter than a block: each
            // goes as one fixed-size move of a whole block, cut back (the tail's overlapping
            // bytes just written, with the same values), instead of a `memcpy` call of a
            // varying length, as `copy_simd` does with 64-byte blocks.
            match pre.first_chunk::<YMM_BLOCK>() {
                Some(p) if n <= YMM_BLOCK => {
                    let len = out.len() + n;
                    out.extend_from_slice(p);
                    out.truncate(len);
                }
                _ => out.extend_from_slice(pre.get(..n).unwrap_or_default()),
            }
            self.align_start(out, YMM_BLOCK);
            let (acc, from) = fold_blocks_ymm(self.yacc, keys, out, self.from);
            let fill = to_block_end(out.len(), from, YMM_BLOCK);
            let entry = out.len();
            let (head, rest) = src.split_at(fill.min(src.len()));
            match src.first_chunk::<YMM_BLOCK>() {
                Some(first) if head.len() < YMM_BLOCK => {
                    let len = out.len() + head.len();
                    out.extend_from_slice(first);
                    out.truncate(len);
                }
                _ => out.extend_from_slice(head),
            }
            let (mut acc, from) = fold_blocks_ymm(acc, keys, out, from);
            if out.len() != from {
                // Only when `src` ran out first, which MIN_FUSED rules out.
                self.yacc = acc;
                self.from = from;
                out.extend_from_slice(rest);
                return;
            }
            // The bulk in steps of 224 bytes, as `crc32c_hybrid` splits its work between the
            // two units: the step's first 96 bytes go through three `crc32` streams of 32
            // bytes, the last 128 are folded. The streams' bytes count as zeros in the fold
            // (its constants move the accumulators 224 bytes per step) and their register,
            // the CRC of the 96 bytes from a zero register, is exclusive-ored into the group's
            // first four bytes: the same register after the step. The three streams are
            // joined before that: the first two registers shifted past the bytes after them
            // by one carry-less multiply each, their product exclusive-ored into the last
            // word of the third stream, whose `crc32` reduces it.
            let step_keys = keys_step();
            let mut steps = rest.chunks_exact(HYBRID_STEP);
            for st in &mut steps {
                let Some(st) = st.first_chunk::<HYBRID_STEP>() else {
                    break;
                };
                out.extend_from_slice(st);
                acc = hybrid_step(acc, step_keys, st);
            }
            let mut groups = steps.remainder().chunks_exact(YMM_GROUP);
            for g in &mut groups {
                let Some(g) = g.first_chunk::<YMM_GROUP>() else {
                    break;
                };
                let d: [__m256i; 4] = bytemuck::cast(*g);
                out.extend_from_slice(&bytemuck::cast::<[__m256i; 4], [u8; YMM_GROUP]>(d));
                for (a, d) in acc.iter_mut().zip(d) {
                    *a = fold_ymm(*a, keys, d);
                }
            }
            let mut blocks = groups.remainder().chunks_exact(YMM_BLOCK);
            for b in &mut blocks {
                let Some(b) = b.first_chunk::<YMM_BLOCK>() else {
                    break;
                };
                let d: __m256i = bytemuck::cast(*b);
                out.extend_from_slice(&bytemuck::cast::<__m256i, [u8; YMM_BLOCK]>(d));
                let [a, b, c, e] = acc;
                acc = [b, c, e, fold_ymm(a, keys, d)];
            }
            self.yacc = acc;
            self.from = out.len();
            let tail = blocks.remainder();
            match src.last_chunk::<YMM_BLOCK>() {
                // All of `src` but the tail is in place, so the block before it is too.
                Some(last) if !tail.is_empty() && out.len() - entry + tail.len() == src.len() => {
                    out.truncate(out.len() + tail.len() - YMM_BLOCK);
                    out.extend_from_slice(last);
                }
                _ => out.extend_from_slice(tail),
            }
        }

        /// [`finish_simd`](Self::finish_simd) for the 256-bit path.
        #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.2")]
        fn finish_ymm(&mut self, batch: &[u8]) -> Option<u32> {
            (self.yacc, self.from) = fold_blocks_ymm(self.yacc, keys_ymm(), batch, self.from);
            let words: [u64; YMM_GROUP / 8] = bytemuck::cast(self.yacc);
            let mut c = 0u64;
            for w in words {
                c = _mm_crc32_u64(c, w);
            }
            let records = crc_bytes(c as u32, batch.get(self.from..)?);
            let head = crc_bytes(!0, batch.get(self.base + CRC_FROM..self.start)?);
            let len = (batch.len() - self.start) as u64;
            Some(!(shift(head, len) ^ records))
        }

        #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,vpclmulqdq,pclmulqdq,sse4.2")]
        fn copy_simd(&mut self, out: &mut Vec<u8>, pre: &[u8; PRE], n: usize, src: &[u8]) {
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

    /// [`with_features`] for the 256-bit path. Call only when [`ymm_capable`] is true.
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.2")]
    pub(super) fn with_ymm_features<R>(f: impl FnOnce() -> R) -> R {
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

    /// Bytes per 256-bit register.
    const YMM_BLOCK: usize = 32;

    /// Bytes per step of [`crc32c_ymm`] and the 256-bit fused path: four 256-bit
    /// accumulators.
    const YMM_GROUP: usize = 4 * YMM_BLOCK;

    #[inline]
    #[target_feature(enable = "avx2")]
    fn keys_ymm() -> __m256i {
        let (lo, hi) = KEYS_YMM;
        _mm256_set_epi64x(hi, lo, hi, lo)
    }

    /// `acc` moved forward by four 32-byte blocks (modulo the polynomial), plus `data`.
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq")]
    fn fold_ymm(acc: __m256i, keys: __m256i, data: __m256i) -> __m256i {
        let lo = _mm256_clmulepi64_epi128::<0x00>(acc, keys);
        let hi = _mm256_clmulepi64_epi128::<0x11>(acc, keys);
        _mm256_xor_si256(_mm256_xor_si256(lo, hi), data)
    }

    /// Folds every whole 32-byte block of `out[from..]` into the 256-bit accumulators (the
    /// first next, then rotated to the last); returns them and where the unfolded bytes
    /// start.
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq")]
    fn fold_blocks_ymm(
        mut acc: [__m256i; 4],
        keys: __m256i,
        out: &[u8],
        mut from: usize,
    ) -> ([__m256i; 4], usize) {
        if let Some(data) = out.get(from..) {
            for b in data.chunks_exact(YMM_BLOCK) {
                if let Some(b) = b.first_chunk::<YMM_BLOCK>() {
                    let [a, c, d, e] = acc;
                    acc = [c, d, e, fold_ymm(a, keys, bytemuck::cast(*b))];
                    from += YMM_BLOCK;
                }
            }
        }
        (acc, from)
    }

    /// [`crc32c_ymm`]'s folding constants: each accumulator folds forward past a group.
    const KEYS_YMM: (i64, i64) = fold_keys(8 * YMM_GROUP as u64);

    /// One 224-byte step of the fused copy (see `copy_ymm`): the first 96 bytes of `st`
    /// through three `crc32` streams, joined, their register exclusive-ored into the first
    /// four bytes of the last 128, which are folded into `acc` moved forward by 224 bytes.
    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.2")]
    fn hybrid_step(acc: [__m256i; 4], step_keys: __m256i, st: &[u8; HYBRID_STEP]) -> [__m256i; 4] {
        let (k64, k32) = (
            _mm_cvtsi64_si128(i64::from(SHIFT[6])),
            _mm_cvtsi64_si128(i64::from(SHIFT[5])),
        );
        let (Some(w), Some(g)) = (
            st.first_chunk::<{ 3 * HYBRID_STREAM }>(),
            st.last_chunk::<YMM_GROUP>(),
        ) else {
            return acc;
        };
        let [wa, wb, wc]: [[u64; HYBRID_WORDS]; 3] = bytemuck::cast(*w);
        let [d0, d1, d2, d3]: [__m256i; 4] = bytemuck::cast(*g);
        let [x0, x1, x2, x3] = acc;
        // A fold after each word of the streams, as in `crc32c_hybrid`; the first
        // accumulator's last, as its block waits for the streams' register.
        let ra = _mm_crc32_u64(0, u64::from_le(wa[0]));
        let rb = _mm_crc32_u64(0, u64::from_le(wb[0]));
        let rc = _mm_crc32_u64(0, u64::from_le(wc[0]));
        let x1 = fold_ymm(x1, step_keys, d1);
        let ra = _mm_crc32_u64(ra, u64::from_le(wa[1]));
        let rb = _mm_crc32_u64(rb, u64::from_le(wb[1]));
        let rc = _mm_crc32_u64(rc, u64::from_le(wc[1]));
        let x2 = fold_ymm(x2, step_keys, d2);
        let ra = _mm_crc32_u64(ra, u64::from_le(wa[2]));
        let rb = _mm_crc32_u64(rb, u64::from_le(wb[2]));
        let rc = _mm_crc32_u64(rc, u64::from_le(wc[2]));
        let x3 = fold_ymm(x3, step_keys, d3);
        let ra = _mm_crc32_u64(ra, u64::from_le(wa[3]));
        let rb = _mm_crc32_u64(rb, u64::from_le(wb[3]));
        let p = _mm_xor_si128(
            _mm_clmulepi64_si128::<0x00>(_mm_cvtsi64_si128(ra as i64), k64),
            _mm_clmulepi64_si128::<0x00>(_mm_cvtsi64_si128(rb as i64), k32),
        );
        let last = u64::from_le(wc[3]) ^ _mm_cvtsi128_si64(p) as u64;
        let rc = _mm_crc32_u64(rc, last);
        let d0 = _mm256_xor_si256(d0, _mm256_set_epi64x(0, 0, 0, rc as i64));
        [fold_ymm(x0, step_keys, d0), x1, x2, x3]
    }

    /// The fused copy's folding constants for its 224-byte steps (96 bytes taken by `crc32`
    /// streams, then the group): each accumulator folds forward past a whole step.
    const KEYS_STEP: (i64, i64) = fold_keys(8 * HYBRID_STEP as u64);

    #[inline]
    #[target_feature(enable = "avx2")]
    fn keys_step() -> __m256i {
        let (lo, hi) = KEYS_STEP;
        _mm256_set_epi64x(hi, lo, hi, lo)
    }

    /// Whether [`crc32c_ymm`] runs here and is the faster choice: the CPU has 256-bit
    /// VPCLMULQDQ but not AVX-512VL, with which `crc-fast` folds 512 bits at a time itself
    /// (without it, `crc-fast` folds 128 bits at a time).
    pub(super) fn ymm_detected() -> bool {
        ymm_capable() && !std::is_x86_feature_detected!("avx512vl")
    }

    /// Whether the CPU has every instruction [`crc32c_ymm`] uses.
    fn ymm_capable() -> bool {
        std::is_x86_feature_detected!("vpclmulqdq")
            && std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("pclmulqdq")
            && std::is_x86_feature_detected!("sse4.2")
    }

    /// The CRC-32C of `data` (Kafka's checksum: initial register and result inverted) by
    /// 256-bit carry-less folding: each 128-byte group is folded into four accumulators,
    /// which end up 128 bytes congruent to everything folded; the `crc32` instruction then
    /// takes them and the last bytes from a zero register, and the initial register's
    /// contribution is added by shifting it past the whole length. Call only when
    /// [`ymm_detected`] is true.
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.2")]
    pub(super) fn crc32c_ymm(data: &[u8]) -> u32 {
        let keys = keys_ymm();
        let mut acc = [_mm256_setzero_si256(); 4];
        let mut groups = data.chunks_exact(YMM_GROUP);
        for g in &mut groups {
            let Some(g) = g.first_chunk::<YMM_GROUP>() else {
                break;
            };
            let d: [__m256i; 4] = bytemuck::cast(*g);
            for (a, d) in acc.iter_mut().zip(d) {
                *a = fold_ymm(*a, keys, d);
            }
        }
        let words: [u64; YMM_GROUP / 8] = bytemuck::cast(acc);
        let mut c = 0u64;
        for w in words {
            c = _mm_crc32_u64(c, w);
        }
        let reg = crc_bytes(c as u32, groups.remainder());
        !(shift(!0, data.len() as u64) ^ reg)
    }

    /// 64-bit words of each `crc32` stream per step of [`crc32c_hybrid`]: one from each of
    /// the three streams after each of the step's four 32-byte folds.
    const HYBRID_WORDS: usize = 4;

    // The fused copy's step is written out for four words per stream.
    const _: () = assert!(HYBRID_WORDS == 4);

    /// Bytes of each `crc32` stream per step of [`crc32c_hybrid`].
    const HYBRID_STREAM: usize = 8 * HYBRID_WORDS;

    /// Bytes per step of [`crc32c_hybrid`]: a 128-byte group folded, and 32 bytes of each of
    /// three `crc32` streams.
    const HYBRID_STEP: usize = YMM_GROUP + 3 * HYBRID_STREAM;

    /// The CRC-32C of `data` with two kinds of execution unit at once: the first part of
    /// `data` is folded by 256-bit carry-less multiplication as in [`crc32c_ymm`] while the
    /// `crc32` instruction (an integer unit, 8 bytes per instruction, 3 cycles of latency:
    /// three independent streams keep it busy) runs over the three equal parts after it, in
    /// the same loop; each unit alone is at its limit near 20 GB/s here (Zen 3), together
    /// about 38 GB/s (`crc32c_ymm` 23-24, the `crc32c` crate 20-23; standalone loop, 64 KiB
    /// and 1 MiB). The four partial registers are then joined: the register after a part
    /// `A` followed by `B` is reg(A)·x^(8·|B|) ⊕ reg₀(B) (CRCs are linear), the multiplication
    /// by one constant computed once per call (the parts are the same length); the initial
    /// register is the first four bytes inverted, and the last bytes (under a step) go
    /// through `crc32` after the joins. Under two steps it is [`crc32c_ymm`]. Call only when
    /// [`ymm_capable`] is true.
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.2")]
    pub(in crate::records) fn crc32c_hybrid(data: &[u8]) -> u32 {
        let steps = data.len() / HYBRID_STEP;
        if steps < 2 {
            return crc32c_ymm(data);
        }
        let (folded, rest) = data.split_at(steps * YMM_GROUP);
        let (a, rest) = rest.split_at(steps * HYBRID_STREAM);
        let (b, rest) = rest.split_at(steps * HYBRID_STREAM);
        let (c, tail) = rest.split_at(steps * HYBRID_STREAM);
        let keys = keys_ymm();
        let mut acc = [_mm256_setzero_si256(); 4];
        // The initial register !0, as the first four bytes inverted (in the first step only).
        let mut init = _mm256_set_epi64x(0, 0, 0, 0xFFFF_FFFF);
        let (mut ra, mut rb, mut rc) = (0u64, 0u64, 0u64);
        let parts = folded
            .chunks_exact(YMM_GROUP)
            .zip(a.chunks_exact(HYBRID_STREAM))
            .zip(b.chunks_exact(HYBRID_STREAM))
            .zip(c.chunks_exact(HYBRID_STREAM));
        for (((g, wa), wb), wc) in parts {
            let (Some(g), Some(wa), Some(wb), Some(wc)) = (
                g.first_chunk::<YMM_GROUP>(),
                wa.first_chunk::<HYBRID_STREAM>(),
                wb.first_chunk::<HYBRID_STREAM>(),
                wc.first_chunk::<HYBRID_STREAM>(),
            ) else {
                break;
            };
            let mut d: [__m256i; 4] = bytemuck::cast(*g);
            d[0] = _mm256_xor_si256(d[0], init);
            init = _mm256_setzero_si256();
            let wa: [u64; HYBRID_WORDS] = bytemuck::cast(*wa);
            let wb: [u64; HYBRID_WORDS] = bytemuck::cast(*wb);
            let wc: [u64; HYBRID_WORDS] = bytemuck::cast(*wc);
            // Interleaved in the source (a fold, then a word of each stream): with the folds
            // first and the `crc32`s after, the same loop ran at 35 instead of 38 GB/s.
            for (((x, d), (&wa, &wb)), &wc) in
                acc.iter_mut().zip(d).zip(wa.iter().zip(&wb)).zip(&wc)
            {
                *x = fold_ymm(*x, keys, d);
                ra = _mm_crc32_u64(ra, u64::from_le(wa));
                rb = _mm_crc32_u64(rb, u64::from_le(wb));
                rc = _mm_crc32_u64(rc, u64::from_le(wc));
            }
        }
        let words: [u64; YMM_GROUP / 8] = bytemuck::cast(acc);
        let mut r = 0u64;
        for w in words {
            r = _mm_crc32_u64(r, w);
        }
        let k = shift_key(steps * HYBRID_STREAM);
        let r = mul_x33(r as u32, k) ^ ra as u32;
        let r = mul_x33(r, k) ^ rb as u32;
        let r = mul_x33(r, k) ^ rc as u32;
        !crc_bytes(r, tail)
    }

    /// a·b·x^33 modulo the polynomial (bit-reflected): the 32×32 carry-less product, then
    /// the `crc32` instruction over it (see [`SHIFT`]).
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.2")]
    fn mul_x33(a: u32, b: u32) -> u32 {
        let p = _mm_clmulepi64_si128::<0x00>(
            _mm_cvtsi64_si128(i64::from(a)),
            _mm_cvtsi64_si128(i64::from(b)),
        );
        _mm_crc32_u64(0, _mm_cvtsi128_si64(p) as u64) as u32
    }

    /// x^(8·len − 33) modulo the polynomial, for [`mul_x33`] to shift a register past `len`
    /// more bytes; `len` a multiple of 8, at least 8 and below 2^32 (0 otherwise). The
    /// product of [`SHIFT`]'s entries for `len`'s bits: x^(a−33)·x^(b−33)·x^33 = x^(a+b−33).
    #[target_feature(enable = "pclmulqdq,sse4.2")]
    fn shift_key(len: usize) -> u32 {
        let mut n = len >> 3;
        let mut k: Option<u32> = None;
        for &s in SHIFT.iter().skip(3) {
            if n == 0 {
                break;
            }
            if n & 1 != 0 {
                k = Some(match k {
                    None => s,
                    Some(k) => mul_x33(k, s),
                });
            }
            n >>= 1;
        }
        k.unwrap_or(0)
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
        fn fused_crc(
            header: &[u8; 61],
            body: &[u8],
            s: &mut u64,
            ymm: bool,
        ) -> (Vec<u8>, Option<u32>) {
            let mut f = Fused::new();
            f.set_enabled(true);
            if ymm {
                f.force_ymm();
            }
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
                    let mut pre = [0u8; PRE];
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
            for_each_path(fused_crc_matches_crc_fast_at_every_length_on);
        }

        /// Runs `check` on the 512-bit path and on the 256-bit one, each where the CPU has it.
        fn for_each_path(check: fn(bool)) {
            if !super::super::skip_without_avx512("the fused CRC", detected()) {
                check(false);
            }
            if ymm_capable() {
                check(true);
            } else {
                eprintln!("SKIPPED: this CPU lacks VPCLMULQDQ/AVX2: the 256-bit fused CRC");
            }
        }

        fn fused_crc_matches_crc_fast_at_every_length_on(ymm: bool) {
            let mut s = 0x9e37_79b9_7f4a_7c15;
            let lengths = (0..4096).chain([65_536, 65_537, 1 << 20, 1_000_037, 3 << 20]);
            let mut fused = 0;
            for len in lengths {
                let mut header = [0u8; 61];
                header.iter_mut().for_each(|b| *b = rng(&mut s) as u8);
                let body: Vec<u8> = (0..len).map(|_| rng(&mut s) as u8).collect();
                let (out, crc) = fused_crc(&header, &body, &mut s, ymm);
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
            for_each_path(misaligned_starts_on);
        }

        fn misaligned_starts_on(ymm: bool) {
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
                if ymm {
                    f.force_ymm();
                }
                let mut out = header.to_vec();
                let mut p = [0u8; PRE];
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
                    let pre = [0u8; PRE];
                    f.copy(&mut out, &pre, 0, &data[100..100 + first]);
                    composed += usize::from(f.tail_at == out.len());
                    let mut pre = [0u8; PRE];
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

        /// The 256-bit fold against the bitwise CRC-32C at every length to 4 KiB, from every
        /// alignment to 64, and at large random lengths; and `crc32c` (which picks it here)
        /// against `crc-fast`.
        #[test]
        fn ymm_crc_matches_the_table_crc() {
            if !ymm_capable() {
                eprintln!("SKIPPED: this CPU lacks VPCLMULQDQ/AVX2: the 256-bit CRC-32C");
                return;
            }
            let mut s = 0x9e37_79b9_7f4a_7c15u64;
            let data: Vec<u8> = (0..(1 << 20) + 64).map(|_| rng(&mut s) as u8).collect();
            for len in 0..4096 {
                let at = len % 64;
                let d = &data[at..at + len];
                // SAFETY: ymm_capable() is true.
                #[allow(unsafe_code)]
                let got = unsafe { crc32c_ymm(d) };
                assert_eq!(got, super::super::model::crc32c(d), "length {len}");
            }
            for _ in 0..20 {
                let len = rng(&mut s) as usize % (1 << 20);
                let d = &data[64 - len % 64..][..len];
                assert_eq!(super::super::crc32c(d), crc_fast::crc32_iscsi(d), "{len}");
            }
        }

        /// The hybrid fold against the bitwise CRC-32C at every length 0..=4096 (under two
        /// steps it is the 256-bit fold; from 448 bytes on the hybrid loop), from every
        /// alignment to 64, the catalogue's check value, lengths around whole steps, and
        /// random lengths and alignments up to 4 MiB against `crc-fast`.
        #[test]
        fn hybrid_crc_matches_the_table_crc() {
            if !ymm_capable() {
                eprintln!("SKIPPED: this CPU lacks VPCLMULQDQ/AVX2: the hybrid CRC-32C");
                return;
            }
            #[allow(unsafe_code)]
            let hybrid = |d: &[u8]| {
                // SAFETY: ymm_capable() is true.
                unsafe { crc32c_hybrid(d) }
            };
            assert_eq!(hybrid(b"123456789"), 0xE306_9283);
            let mut s = 0xbb67_ae85_84ca_a73bu64;
            let data: Vec<u8> = (0..(4 << 20) + 64).map(|_| rng(&mut s) as u8).collect();
            for len in 0..=4096 {
                let at = (len * 7) % 64;
                let d = &data[at..at + len];
                assert_eq!(hybrid(d), super::super::model::crc32c(d), "length {len}");
            }
            let steps = (2..40).flat_map(|k| {
                let n = k * HYBRID_STEP;
                [n - 1, n, n + 1, n + 8, n + HYBRID_STEP - 1]
            });
            for len in steps {
                let d = &data[3..3 + len];
                assert_eq!(hybrid(d), super::super::model::crc32c(d), "length {len}");
            }
            for _ in 0..40 {
                let len = rng(&mut s) as usize % (4 << 20);
                let at = rng(&mut s) as usize % 64;
                let d = &data[at..at + len];
                assert_eq!(hybrid(d), crc_fast::crc32_iscsi(d), "length {len} at {at}");
            }
        }

        /// Random data shared by the property test below: 4 MiB and 64 bytes.
        fn random_data() -> &'static [u8] {
            static DATA: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
            DATA.get_or_init(|| {
                let mut s = 0x3c6e_f372_fe94_f82bu64;
                (0..(4 << 20) + 64).map(|_| rng(&mut s) as u8).collect()
            })
        }

        proptest::proptest! {
            #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

            /// The hybrid kernel and the 256-bit fold, each called directly, and `crc32c`'s
            /// dispatch, against `crc-fast` at random lengths up to 4 MiB from random
            /// alignments.
            #[test]
            fn crc_kernels_at_random_lengths_and_alignments(
                len in 0usize..(4 << 20),
                at in 0usize..64,
            ) {
                if !ymm_capable() {
                    eprintln!("SKIPPED: this CPU lacks VPCLMULQDQ/AVX2: the 256-bit kernels");
                    return Ok(());
                }
                let d = &random_data()[at..at + len];
                let want = crc_fast::crc32_iscsi(d);
                // SAFETY: ymm_capable() is true.
                #[allow(unsafe_code)]
                let hybrid = unsafe { crc32c_hybrid(d) };
                // SAFETY: as above.
                #[allow(unsafe_code)]
                let ymm = unsafe { crc32c_ymm(d) };
                proptest::prop_assert_eq!(hybrid, want, "hybrid, length {} at {}", len, at);
                proptest::prop_assert_eq!(ymm, want, "256-bit fold, length {} at {}", len, at);
                proptest::prop_assert_eq!(super::super::crc32c(d), want, "crc32c");
            }
        }

        /// `shift_key` gives the constant `shift` multiplies by: a register moved by it is the
        /// register fed that many zero bytes.
        #[test]
        fn shift_key_is_zero_feeding() {
            if !ymm_capable() {
                eprintln!("SKIPPED: this CPU lacks PCLMULQDQ/SSE4.2: shift_key");
                return;
            }
            for len in [8usize, 16, 24, 32, 64, 96, 224, 1000, 4096, 65_536, 1 << 20] {
                let want = super::super::model::register(0x1234_5678, &vec![0u8; len]);
                // SAFETY: ymm_capable() found PCLMULQDQ and SSE4.2.
                #[allow(unsafe_code)]
                let key = unsafe { shift_key(len) };
                // SAFETY: as above.
                #[allow(unsafe_code)]
                let got = unsafe { mul_x33(0x1234_5678, key) };
                assert_eq!(got, want, "len {len}");
            }
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
            #[cfg(all(target_arch = "x86_64", not(kafka_wire_portable)))]
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
