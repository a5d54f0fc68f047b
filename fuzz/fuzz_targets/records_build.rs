//! The batch builder's CRC, which is computed while long keys and values are copied (see
//! `records::fused`), against one `crc32c` pass over the finished batch and one `crc-fast`
//! pass; and every record read back from the batch as appended. First, `crc32c` over the
//! raw input (from each of its first 8 bytes) against `crc-fast`.
//!
//! With option bit 5 the batch is built in place after a prefix (`BatchBuilder::appending_to`,
//! as a request's own fields come before its records): the prefix must come back unchanged
//! and the batch after it must be byte for byte the batch built on its own.
//!
//! With bits 5 and 6 the prefix is a frame the batch ends (`BatchBuilder::ending_frame`, a
//! Produce v3-v8 request whose last field is an empty int32-length records value): its first
//! 4 bytes are set to its size and its last 4 to zero, unless bit 7 keeps the input's bytes
//! as they are. The builder must take exactly the frames of at least 8 bytes whose size
//! field is their length less 4 and whose last 4 bytes are zero, refuse the others, and give
//! back the frame unchanged but for its size (the whole length less 4) and its records
//! length (the batch's length), followed by the batch built on its own.
//!
//! Input: one byte of options (bits 0-3: the capacity the builder's buffer starts with, in
//! 2^n bytes, so the buffer's alignment and its reallocations vary; bit 4: the first value is
//! appended before any short record; bit 5: a prefix of 17·n bytes, n the next byte; bit 6:
//! the prefix is a frame; bit 7: the frame's size and last bytes as the input has them), then
//! records, each `[u16 value length][u8 key length]
//! [u8 header count]` followed by the value's bytes, taken from the input while it lasts and
//! then generated from it, so a short input can still describe megabyte values. Bit 7 of the
//! header count byte puts the record in a run of consecutive such records appended by one
//! `BatchBuilder::append_all` (the others by `append`); the batch must then be byte for byte
//! the one the same records build with one `append` each.
#![no_main]

use bytes::Bytes;
use kafka_wire::records::{crc32c, BatchBuilder, Batches, NewHeader, NewRecord, ReadOptions};
use libfuzzer_sys::fuzz_target;

/// `len` bytes for a value: the input's next bytes, then a pattern derived from them.
fn take(data: &mut &[u8], len: usize, salt: u8) -> Vec<u8> {
    let n = len.min(data.len());
    let (now, rest) = data.split_at(n);
    *data = rest;
    let mut v = now.to_vec();
    let seed = now.first().copied().unwrap_or(salt);
    v.extend((n..len).map(|i| (i as u8).wrapping_mul(31) ^ seed ^ (i >> 8) as u8));
    v
}

fuzz_target!(|input: &[u8]| {
    // `crc32c` over the raw input from each of its first 8 bytes on: random data at every
    // length and start alignment through whichever kernel the CPU takes (from 2 KiB on the
    // hybrid fold and `crc32` streams on CPUs with 256-bit VPCLMULQDQ but no AVX-512),
    // against `crc-fast`.
    for at in 0..input.len().min(8) {
        let d = &input[at..];
        assert_eq!(crc32c(d), crc_fast::crc32_iscsi(d), "CRC of {} input bytes", d.len());
    }
    let Some((&opts, mut data)) = input.split_first() else {
        return;
    };
    let cap = 1usize << (opts & 0x0f);
    let mut prefix = if opts & 0x20 != 0 {
        let Some((&n, rest)) = data.split_first() else {
            return;
        };
        data = rest;
        take(&mut data, usize::from(n) * 17, n)
    } else {
        Vec::new()
    };
    let frame = opts & 0x60 == 0x60;
    let n = prefix.len();
    if frame && opts & 0x80 == 0 && n >= 8 {
        prefix[..4].copy_from_slice(&((n - 4) as u32).to_be_bytes());
        prefix[n - 4..].fill(0);
    }
    let mut b = if opts & 0x20 != 0 {
        let mut buf = Vec::with_capacity(cap.max(prefix.len()));
        buf.extend_from_slice(&prefix);
        if frame {
            let valid = n >= 8
                && prefix[..4] == ((n - 4) as u32).to_be_bytes()
                && prefix[n - 4..] == [0; 4];
            match BatchBuilder::ending_frame(7, buf) {
                Ok(b) => {
                    assert!(
                        valid,
                        "a frame not ending in an empty records field was taken"
                    );
                    b
                }
                Err(_) => {
                    assert!(
                        !valid,
                        "a frame ending in an empty records field was refused"
                    );
                    return;
                }
            }
        } else {
            BatchBuilder::appending_to(7, buf)
        }
    } else {
        BatchBuilder::with_buffer(7, Vec::with_capacity(cap))
    };
    let mut want = Vec::new();
    if opts & 0x10 != 0 {
        let v = take(&mut data, 300, 1);
        b.append(1, None, Some(&v), &[]);
        want.push((None, Some(v), Vec::new()));
    }
    let mut salt = 0u8;
    // Whether each record goes through `append_all`, in runs of consecutive ones.
    let mut at_once = Vec::new();
    while data.len() >= 4 && want.len() < 200 {
        let value_len = usize::from(u16::from_le_bytes([data[0], data[1]])) * 4;
        let key_len = data[2];
        let header_count = data[3] % 4;
        at_once.push(data[3] & 0x80 != 0);
        data = &data[4..];
        salt = salt.wrapping_add(1);
        let key = (key_len != 255).then(|| take(&mut data, usize::from(key_len) * 3, salt));
        let value = (value_len != 4 * 0xffff).then(|| take(&mut data, value_len, salt));
        let headers: Vec<(String, Option<Vec<u8>>)> = (0..header_count)
            .map(|i| {
                (
                    format!("h{i}"),
                    Some(take(&mut data, usize::from(key_len) * 2, i)),
                )
            })
            .collect();
        want.push((key, value, headers));
    }
    let skip = usize::from(opts & 0x10 != 0);
    let headers: Vec<Vec<NewHeader<'_>>> = want
        .iter()
        .map(|(_, _, h)| {
            h.iter()
                .map(|(k, v)| NewHeader::new(k, v.as_deref()))
                .collect()
        })
        .collect();
    let record = |i: usize| {
        let (k, v, _) = &want[i];
        NewRecord::new(1_700_000_000_000, k.as_deref(), v.as_deref()).with_headers(&headers[i])
    };
    let mut i = skip;
    while i < want.len() {
        if at_once[i - skip] {
            let end = (i..want.len())
                .find(|&j| !at_once[j - skip])
                .unwrap_or(want.len());
            b.append_all((i..end).map(record));
            i = end;
        } else {
            let r = record(i);
            b.append(r.timestamp, r.key, r.value, r.headers);
            i += 1;
        }
    }
    let any_at_once = at_once.contains(&true);
    let whole = match b.build_vec() {
        Ok(whole) => whole,
        Err(e) => panic!("build failed: {e}"),
    };
    if frame {
        // Only the size and the records length change: the whole less its size field, and
        // the batch after the frame.
        assert!(
            whole[4..n - 4] == prefix[4..n - 4],
            "the frame's fields changed"
        );
        assert_eq!(
            whole[..4],
            ((whole.len() - 4) as u32).to_be_bytes(),
            "frame size"
        );
        assert_eq!(
            whole[n - 4..n],
            ((whole.len() - n) as u32).to_be_bytes(),
            "records length"
        );
    } else {
        assert!(whole.starts_with(&prefix), "the prefix changed");
    }
    let batch = Bytes::from(whole).slice(prefix.len()..);
    if opts & 0x20 != 0 || any_at_once {
        // The same records built on their own (a fresh buffer: another alignment, so the
        // fused CRC's blocks fall elsewhere) must give the same bytes.
        let mut alone = BatchBuilder::new(7);
        if opts & 0x10 != 0 {
            if let Some((_, v, _)) = want.first() {
                alone.append(1, None, v.as_deref(), &[]);
            }
        }
        for (k, v, h) in want.iter().skip(skip) {
            let hs: Vec<NewHeader<'_>> = h
                .iter()
                .map(|(k, v)| NewHeader::new(k, v.as_deref()))
                .collect();
            alone.append(1_700_000_000_000, k.as_deref(), v.as_deref(), &hs);
        }
        let alone = alone.build().expect("the same records build on their own");
        assert!(
            alone == batch,
            "in place or through append_all differs from one append each on its own"
        );
    }
    if want.is_empty() {
        assert!(batch.is_empty());
        return;
    }
    let stored = u32::from_be_bytes([batch[17], batch[18], batch[19], batch[20]]);
    assert_eq!(
        stored,
        crc32c(&batch[21..]),
        "CRC of a {}-byte batch",
        batch.len()
    );
    // `crc32c` may be this crate's own 256-bit fold (CPUs with VPCLMULQDQ but no AVX-512):
    // `crc-fast` is the independent check.
    assert_eq!(
        stored,
        crc_fast::crc32_iscsi(&batch[21..]),
        "CRC by crc-fast"
    );
    let mut got = Vec::new();
    for batch in Batches::new(Bytes::clone(&batch), ReadOptions::default()) {
        let batch = batch.expect("the built batch reads");
        for r in &batch.records().expect("its records read") {
            let r = r.expect("each record reads");
            let headers: Vec<(String, Option<Vec<u8>>)> = r
                .headers
                .iter()
                .map(|h| {
                    (
                        String::from_utf8_lossy(h.key).into_owned(),
                        h.value.map(<[u8]>::to_vec),
                    )
                })
                .collect();
            got.push((
                r.key.map(<[u8]>::to_vec),
                r.value.map(<[u8]>::to_vec),
                headers,
            ));
        }
    }
    assert!(got == want, "records read back differ");
});
