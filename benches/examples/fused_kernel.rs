//! The records builder's fused copy reduced to its kernel, on one contiguous buffer: 256-byte
//! steps loaded once, stored, and folded into four 512-bit CRC accumulators (two carry-less
//! multiplications and a three-way exclusive or per 64 bytes), against the copy alone and the
//! fold alone. It answers whether copying and folding overlap on this CPU when nothing else
//! is in the way (no record boundaries, no fields, no `Vec` bookkeeping); the records
//! benchmark's build then shows what the record-by-record stream costs on top. The fold's
//! constant is arbitrary (the result is not a CRC): only the instruction mix matters.
//!
//! `taskset -c 1 cargo run --profile bench -p kafka-wire-bench --example fused_kernel [BYTES...]`
//! (default 16 KiB, 256 KiB and 2 MiB: in L1/L2, in L2, through L3). Needs AVX-512F and
//! VPCLMULQDQ; prints SKIPPED otherwise.

use std::hint::black_box;
use std::time::Instant;

#[cfg(target_arch = "x86_64")]
mod kernel {
    use core::arch::x86_64::{
        __m512i, _mm512_clmulepi64_epi128, _mm512_set1_epi64, _mm512_ternarylogic_epi64,
        _mm512_xor_si512,
    };

    /// What a pass does with each 256-byte step.
    #[derive(Clone, Copy)]
    pub struct Mode {
        pub store: bool,
        pub fold: bool,
    }

    #[target_feature(enable = "avx512f,vpclmulqdq")]
    fn fold(acc: __m512i, keys: __m512i, data: __m512i) -> __m512i {
        let lo = _mm512_clmulepi64_epi128::<0x00>(acc, keys);
        let hi = _mm512_clmulepi64_epi128::<0x11>(acc, keys);
        _mm512_ternarylogic_epi64::<0x96>(lo, hi, data)
    }

    /// One pass over `src` (a multiple of 256 bytes), into `dst` when `mode.store`.
    #[target_feature(enable = "avx512f,vpclmulqdq")]
    pub fn pass(mode: Mode, src: &[u8], dst: &mut [u8]) -> [u64; 8] {
        let keys = _mm512_set1_epi64(0x1_2345_6789);
        let mut acc: [__m512i; 4] = bytemuck::Zeroable::zeroed();
        for (s, d) in src.chunks_exact(256).zip(dst.chunks_exact_mut(256)) {
            let (Some(s), Some(d)) = (s.first_chunk::<256>(), d.first_chunk_mut::<256>()) else {
                break;
            };
            let x: [__m512i; 4] = bytemuck::cast(*s);
            if mode.store {
                *d = bytemuck::cast(x);
            }
            for (a, x) in acc.iter_mut().zip(x) {
                *a = if mode.fold {
                    fold(*a, keys, x)
                } else {
                    _mm512_xor_si512(*a, x)
                };
            }
        }
        bytemuck::cast(_mm512_xor_si512(
            _mm512_xor_si512(acc[0], acc[1]),
            _mm512_xor_si512(acc[2], acc[3]),
        ))
    }

    pub fn detected() -> bool {
        std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("vpclmulqdq")
    }
}

#[cfg(target_arch = "x86_64")]
fn main() {
    use kernel::Mode;
    if !kernel::detected() {
        println!("SKIPPED: no AVX-512F with VPCLMULQDQ on this CPU");
        return;
    }
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![16 << 10, 256 << 10, 2 << 20]
    } else {
        sizes
    };
    for size in sizes {
        let size = size / 256 * 256;
        let src: Vec<u8> = (0..size).map(|i| i as u8).collect();
        let mut dst = vec![0u8; size];
        let iters = ((256 << 20) / size.max(256)).max(1);
        let mut line = format!("{size:>9} bytes, ns per KiB (GB/s):");
        for (name, mode) in [
            (
                "copy",
                Mode {
                    store: true,
                    fold: false,
                },
            ),
            (
                "fold",
                Mode {
                    store: false,
                    fold: true,
                },
            ),
            (
                "copy+fold",
                Mode {
                    store: true,
                    fold: true,
                },
            ),
        ] {
            let best = (0..7)
                .map(|_| {
                    let t = Instant::now();
                    for _ in 0..iters {
                        // SAFETY: `detected()` found every CPU feature `pass` is compiled for.
                        #[allow(unsafe_code)]
                        black_box(unsafe { kernel::pass(mode, black_box(&src), &mut dst) });
                    }
                    t.elapsed().as_secs_f64() * 1e9 / iters as f64
                })
                .fold(f64::INFINITY, f64::min);
            line += &format!(
                "  {name} {:.1} ({:.1})",
                best * 1024.0 / size as f64,
                size as f64 / best
            );
        }
        println!("{line}");
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("SKIPPED: x86-64 only");
}
