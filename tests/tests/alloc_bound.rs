//! Memory stays bounded by the input: a counting global allocator (this binary only) measures
//! the bytes allocated while one decode runs on this thread.
//!
//! The bound: decoding `n` bytes of a message allocates at most `k·n + c` bytes in total
//! (frees are not subtracted), where `k` is the message's allocation ratio at its version
//! (`Field::alloc_ratio`: the largest in-memory size per minimum wire byte over its element
//! types) and `c` is [`SLACK`]. Checked on the inputs that broke the earlier bound, on lying
//! counts at every nesting level of every declared request and response version (91 APIs),
//! and on the densest honest inputs, from 16 bytes to 1 MiB (in a debug build, 1 MiB for the
//! four hand-built APIs and 4 KiB, or 64 KiB on the deepest path, for the others). With
//! `--nocapture` the tests print the worst measured ratio per message version and per API
//! against its `k`.

mod hostile_support;

use kafka_wire_tests::hex;

use bytes::Bytes;
use hostile_support::*;
use kafka_wire::frame::DecodeOptions;
use kafka_wire::{
    Cx, DecodeErrorKind, Field, FieldMeta, KafkaMessage, KafkaType, Reader, RequestHeader,
    ResponseHeader, StructMeta, Version,
};
use kafka_wire_messages::*;

#[global_allocator]
static GLOBAL: kafka_wire_counting_alloc::Counting = kafka_wire_counting_alloc::Counting;

/// Runs `f`, returning its result and the bytes this thread allocated meanwhile.
fn measure<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let (out, counts) = kafka_wire_counting_alloc::measure(f);
    (out, counts.bytes)
}

/// An error allocates its box and a short field path: a few hundred bytes at most.
const ERROR_ALLOWANCE: usize = 512;

/// `c` of the bound: an error's box and path, and the few bytes per nesting level that an
/// element still being read has claimed twice (its trailing fields).
const SLACK: usize = 4096;

/// `k` for a request frame of `api` at `version`: the body's or the header's.
fn request_k(api: ApiKey, v: Version) -> usize {
    let hv = api.request_header_version(v);
    RequestBody::alloc_ratio(api, v).max(RequestHeader::alloc_ratio(Cx::new(hv)))
}

/// `k` for a response frame of `api` at `version`.
fn response_k(api: ApiKey, v: Version) -> usize {
    let hv = api.response_header_version(v);
    ResponseBody::alloc_ratio(api, v).max(ResponseHeader::alloc_ratio(Cx::new(hv)))
}

/// Fails unless `allocated` is within `k·n + c`.
#[track_caller]
fn assert_bound(what: &str, k: usize, n: usize, allocated: usize) {
    assert!(
        allocated <= k * n + SLACK,
        "{what}: {n} bytes allocated {allocated} > {k}·n + {SLACK}"
    );
}

#[test]
fn the_counter_counts() {
    let (v, n) = measure(|| vec![0u8; 1000]);
    assert_eq!(v.len(), 1000);
    assert!(n >= 1000, "{n}");
}

#[test]
fn huge_array_count_in_a_20_byte_body() {
    // TxnOffsetCommitRequest v0: two empty strings, producer id, epoch, then 2^31-1 topics,
    // and two bytes of the first topic: 20 bytes.
    let b = Bytes::from(hex("0000 0000 0000000000000001 0000 7fffffff 0000"));
    assert_eq!(b.len(), 20);
    let (res, n) = measure(|| TxnOffsetCommitRequest::decode_exact(&b, 0));
    let e = res.unwrap_err();
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::LengthExceedsInput {
            declared: 0x7fff_ffff,
            remaining: 2
        }
    );
    assert!(n <= ERROR_ALLOWANCE, "allocated {n} bytes");
    // The same in compact form (v3: uvarint 0x80000000 = 2^31 - 1 topics + 1).
    let b = Bytes::from(hex(
        "01 01 0000000000000001 0000 ffffffff 01 00 8080808008 00",
    ));
    let (res, n) = measure(|| TxnOffsetCommitRequest::decode_exact(&b, 3));
    assert!(matches!(
        res.unwrap_err().kind(),
        DecodeErrorKind::LengthExceedsInput {
            declared: 0x7fff_ffff,
            ..
        }
    ));
    assert!(n <= ERROR_ALLOWANCE, "allocated {n} bytes");
}

#[test]
fn huge_string_and_bytes_lengths() {
    // A compact string declaring 32766 bytes with 1 left; an unknown tagged field declaring
    // 2^31 bytes. Strings are never copied, so neither allocates more than the error.
    for (v, bytes) in [
        (3, "ffff01 00"),
        (
            3,
            "01 01 0000000000000001 0000 ffffffff 01 00 01 01 05 80808080 08",
        ),
    ] {
        let b = Bytes::from(hex(bytes));
        let (res, n) = measure(|| TxnOffsetCommitRequest::decode_exact(&b, v));
        let e = res.unwrap_err();
        assert!(
            matches!(e.kind(), DecodeErrorKind::LengthExceedsInput { .. }),
            "{e}"
        );
        assert!(n <= ERROR_ALLOWANCE, "allocated {n} bytes");
    }
}

#[test]
fn one_byte_request_header() {
    let b = Bytes::from_static(&[0x7f]);
    for v in 1..=2 {
        let (res, n) = measure(|| RequestHeader::decode_exact(&b, v));
        assert!(matches!(
            res.unwrap_err().kind(),
            DecodeErrorKind::Truncated { .. }
        ));
        assert!(n <= ERROR_ALLOWANCE, "allocated {n} bytes");
    }
}

#[test]
fn frame_size_above_the_maximum_is_rejected_from_the_prefix() {
    // 2 GiB - 1 announced, 4 bytes given; and a 1 MiB frame above a 1 KiB maximum.
    let b = Bytes::from_static(&[0x7f, 0xff, 0xff, 0xff]);
    let (res, n) = measure(|| RequestFrame::decode(&b, &DecodeOptions::DEFAULT).map(|d| d.frame));
    assert!(matches!(
        res.unwrap_err().kind(),
        DecodeErrorKind::LimitExceeded {
            limit: kafka_wire::Limit::FrameSize,
            ..
        }
    ));
    assert!(n <= ERROR_ALLOWANCE, "allocated {n} bytes");
    let mut big = vec![0u8; 1 << 20];
    big[..4].copy_from_slice(&((1u32 << 20) - 4).to_be_bytes());
    let big = Bytes::from(big);
    let (res, n) = measure(|| {
        RequestFrame::decode(&big, &DecodeOptions::from_max_frame_size(1024)).map(|d| d.frame)
    });
    assert!(matches!(
        res.unwrap_err().kind(),
        DecodeErrorKind::LimitExceeded {
            limit: kafka_wire::Limit::FrameSize,
            ..
        }
    ));
    assert!(n <= ERROR_ALLOWANCE, "allocated {n} bytes");
}

/// Found by the fuzzer: a count no larger than the bytes left, but whose elements are ~96
/// bytes each in memory, reserved ~100x the input before the first element failed.
#[test]
fn count_that_fits_the_input_reserves_a_small_multiple() {
    // TxnOffsetCommitRequest v0 declaring as many topics as there are bytes left, all junk
    // (each "topic" fails at once: a string length of 0xffff is negative).
    for len in [64usize, 1024, 65536] {
        let mut b = hex("0000 0000 0000000000000001 0000");
        b.extend((len as u32).to_be_bytes());
        b.resize(18 + len, 0xff);
        let input = b.len();
        let b = Bytes::from(b);
        let (res, n) = measure(|| TxnOffsetCommitRequest::decode_exact(&b, 0));
        assert!(matches!(
            res.unwrap_err().kind(),
            DecodeErrorKind::NegativeLength(-1) | DecodeErrorKind::UnexpectedNull { .. }
        ));
        // Before the fix: len x 96 bytes. Now the count is believed only as far as 6-byte
        // topics (two empty strings... an empty name and an empty partitions array) fit.
        let k = RequestBody::alloc_ratio(ApiKey::TxnOffsetCommit, 0);
        assert_bound("lying topic count", k, input, n);
    }
}

/// Honest frames: decoding allocates within the bound (structs are bigger than their wire
/// form; strings are not copied).
#[test]
fn honest_frames_allocate_within_the_bound() {
    for f in corpus_requests() {
        let bytes = Bytes::from(f.to_vec().unwrap());
        let (res, n) =
            measure(|| RequestFrame::decode(&bytes, &DecodeOptions::DEFAULT).map(|d| d.frame));
        assert_eq!(res.unwrap(), f);
        let what = format!("{} v{}", f.api_key(), f.version());
        assert_bound(&what, request_k(f.api_key(), f.version()), bytes.len(), n);
    }
    // Many tiny topics (3 bytes each at v3+, 96 in memory): the densest honest input.
    let m = TxnOffsetCommitRequest {
        topics: vec![Default::default(); 10_000],
        ..Default::default()
    };
    let bytes = Bytes::from(m.encode_to_vec(5).unwrap());
    let (res, n) = measure(|| TxnOffsetCommitRequest::decode_exact(&bytes, 5));
    assert_eq!(res.unwrap(), m);
    let k = RequestBody::alloc_ratio(ApiKey::TxnOffsetCommit, 5);
    assert_bound("10,000 empty topics", k, bytes.len(), n);
    // Exactly the vector of topics and the struct: no growth, nothing reserved twice.
    assert!(
        n <= 10_000 * size_of::<TxnOffsetCommitRequestTopic>() + 1024,
        "allocated {n}"
    );
}

/// Found by `txn_offset_commit_request` against a first version of the fix above, which
/// reserved at most one byte per input byte: 57 honest 3-byte topics then grew their vector
/// five times over (76 bytes allocated per input byte).
#[test]
fn fuzz_many_tiny_topics_allocate_within_the_bound() {
    let b = Bytes::from(hex(
        "0101290000000000000000000000000101013a010101010101010101010101010101010101010101\
         01010101010101010101010101010101010101010101010101010101010101010101010101010101\
         01010101010101010101010101010101010101010101010101010101010101010101010200010101\
         01010101010101010101010101010101010101010101010101010101010101010101010101050101\
         010101010101010101010101010101000101010101010101010101010101010101010101012a0101\
         01010101010101010101010101010101010101010101010101010101010101010101010101010101\
         01010101010101010101010101010101010101010101010101010101010101010101010101010101\
         01010101010101010101010101010204010101010101010101010101010101010101010101010101\
         010101010101010101010101010101010501010101010101010101010101010101010101",
    ));
    assert_eq!(b.len(), 356);
    let (res, n) = measure(|| TxnOffsetCommitRequest::decode_exact(&b, 5));
    assert!(res.is_err());
    let k = RequestBody::alloc_ratio(ApiKey::TxnOffsetCommit, 5);
    assert_bound("57 tiny topics", k, b.len(), n);
}

/// Found by `add_partitions_to_txn_request`: topics of 6 bytes on the wire, each with one
/// unknown tagged field, whose vector's first push reserved 4 entries (160 bytes): 81 bytes
/// allocated per input byte. The tagged-section reader reserves the entries the section
/// declares, as far as the bytes left could hold them.
#[test]
fn fuzz_unknown_tagged_fields_reserve_exactly() {
    let b = Bytes::from(hex(
        "41011f010101010101010101015d0101010101010101010101010101010101010101010101010101\
         01010101010101010101010101010101010101010101010101010101010101010101010101010101\
         0101010101010101010101010101015d010101010101010101010101010101010101010101010101\
         01010101010101010101010101010101010101010101010101010101010101010101010101010101\
         0101010101010101010101010101010101010101010101010101015d010101010101010101010101\
         01010101010101010101010101010101010101010101010101010101010000002800000036f00002",
    ));
    assert_eq!(b.len(), 240);
    let (res, n) = measure(|| AddPartitionsToTxnRequest::decode_exact(&b, 5));
    assert!(res.is_err());
    let k = RequestBody::alloc_ratio(ApiKey::AddPartitionsToTxn, 5);
    assert_bound("unknown tagged fields", k, b.len(), n);
}

/// Expands the hex notation: `|` is ignored, `(x)×n` is `x` n times and `xx×n` is
/// the byte `xx` n times.
fn expand(s: &str) -> Vec<u8> {
    let mut out = String::new();
    for word in s.split_whitespace().filter(|w| *w != "|") {
        match word.split_once('×') {
            Some((unit, n)) => {
                let unit = unit.trim_start_matches('(').trim_end_matches(')');
                out.push_str(&unit.repeat(n.parse().unwrap()));
            }
            None => out.push_str(word),
        }
    }
    hex(&out)
}

/// The two inputs that exceeded the fuzz targets' earlier bound (64·n + 4 KiB), as the
/// issue that reported them gives them.
#[test]
fn the_reported_inputs_stay_within_the_bound() {
    // `response_frame`: selector `01 0004` (AddPartitionsToTxn v4), then the frame.
    let data = expand(
        "01 0004 | 0000016c 00000007 00 | 00000000 0000 e002 (010100)×71 01 8801 (010100)×27 01 35 00×52",
    );
    assert_eq!(data.len(), 371);
    let frame = Bytes::copy_from_slice(&data[3..]);
    let (res, n) = measure(|| {
        ResponseFrame::decode(
            &frame,
            ApiKey::AddPartitionsToTxn,
            4,
            &DecodeOptions::DEFAULT,
        )
        .map(|d| d.frame)
    });
    assert!(res.is_err());
    let k = response_k(ApiKey::AddPartitionsToTxn, 4);
    assert_bound("reported response frame", k, frame.len(), n);
    assert!(n <= 64 * frame.len(), "{n}");

    // `request_frame`, 4,096 bytes.
    let data = expand(
        "00000ffc 0018 0005 00000007 ffff 00 | f01f 01 00×7 01 0000 00 e21f (010100)×813 01 d80c 00×1623",
    );
    assert_eq!(data.len(), 4096);
    let frame = Bytes::from(data);
    let (res, n) =
        measure(|| RequestFrame::decode(&frame, &DecodeOptions::DEFAULT).map(|d| d.frame));
    assert!(res.is_err());
    let k = request_k(ApiKey::AddPartitionsToTxn, 5);
    assert_bound("reported request frame", k, frame.len(), n);
    assert!(n <= 64 * frame.len(), "{n}");
}

// ---- every declared message, from its metadata -----------------------------------------------

/// The declared bodies: API, request or response, version, metadata, `k`, and a decoder that
/// returns the bytes allocated.
struct Body {
    api: ApiKey,
    request: bool,
    v: Version,
    meta: &'static StructMeta,
    k: usize,
}

impl Body {
    fn all() -> Vec<Body> {
        let mut out = Vec::new();
        for &api in ApiKey::ALL {
            for (request, meta) in [(true, api.request_meta()), (false, api.response_meta())] {
                for v in meta.versions.min().unwrap()..=meta.versions.max().unwrap() {
                    let k = if request {
                        RequestBody::alloc_ratio(api, v)
                    } else {
                        ResponseBody::alloc_ratio(api, v)
                    };
                    out.push(Body {
                        api,
                        request,
                        v,
                        meta,
                        k,
                    });
                }
            }
        }
        out
    }

    /// The input sizes this message is walked at. Every declared request and response
    /// version is walked; in a debug build (CI's `cargo test`) only the four hand-built APIs
    /// go up to 1 MiB, the others stop at 4 KiB, with 64 KiB on their deepest path (see
    /// [`walk_sizes`]): the full range over all 600-odd message versions took tens of minutes
    /// in debug. A release build (`cargo test --release`) walks the full range everywhere.
    fn full_range(&self) -> bool {
        HAND_BUILT.contains(&self.api) || !cfg!(debug_assertions)
    }

    fn name(&self) -> String {
        format!("{} v{}", self.meta.name, self.v)
    }

    /// Decodes `bytes` (not necessarily all of them): whether it succeeded, and the bytes
    /// allocated.
    fn decode(&self, bytes: &Bytes) -> (bool, usize) {
        let (api, v) = (self.api, self.v);
        let (ok, n) = if self.request {
            measure(|| {
                let mut r = Reader::new(bytes);
                RequestBody::decode(api, v, &mut r).is_ok() && r.is_empty()
            })
        } else {
            measure(|| {
                let mut r = Reader::new(bytes);
                ResponseBody::decode(api, v, &mut r).is_ok() && r.is_empty()
            })
        };
        (ok, n)
    }
}

/// Writes the bytes of Kafka's encodings independently of the codec (from the wire rules:
/// big-endian fixed widths; int16 string and int32 bytes/array lengths, or uvarint n+1 when
/// compact; an int8 marker before a nullable struct; a tagged-field count when flexible).
struct Wire {
    out: Vec<u8>,
    v: Version,
    /// Every tagged section carries one empty unknown tagged field (tag one above the
    /// struct's declared tags, no payload: 3 bytes instead of 1), the fewest bytes that make
    /// a struct allocate its list of unknown fields.
    unknown_tags: bool,
}

impl Wire {
    fn uvarint(&mut self, mut n: u32) {
        while n >= 0x80 {
            self.out.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.out.push(n as u8);
    }

    fn len(&mut self, n: usize, compact: bool, int16: bool) {
        if compact {
            self.uvarint(n as u32 + 1);
        } else if int16 {
            self.out.extend((n as i16).to_be_bytes());
        } else {
            self.out.extend((n as i32).to_be_bytes());
        }
    }

    /// The smallest value of `ty`.
    fn min_value(&mut self, ty: &KafkaType, compact: bool, nullable: bool) {
        let zeros = match ty {
            KafkaType::Bool | KafkaType::Int8 => 1,
            KafkaType::Int16 | KafkaType::Uint16 => 2,
            KafkaType::Int32 | KafkaType::Uint32 => 4,
            KafkaType::Int64 | KafkaType::Float64 => 8,
            KafkaType::Uuid => 16,
            KafkaType::String => return self.len(0, compact, true),
            KafkaType::Bytes | KafkaType::Records | KafkaType::Array(_) => {
                return self.len(0, compact, false)
            }
            KafkaType::Struct(m) if nullable => {
                let _ = m;
                return self.out.push(0xff);
            }
            KafkaType::Struct(m) => return self.min_struct(m()),
        };
        self.out.extend(std::iter::repeat_n(0, zeros));
    }

    fn compact(&self, m: &StructMeta, f: &FieldMeta) -> bool {
        m.flexible.contains(self.v) && f.flexible.is_none_or(|fl| fl.contains(self.v))
    }

    fn fields(&self, m: &'static StructMeta) -> Vec<&'static FieldMeta> {
        m.fields
            .iter()
            .filter(|f| f.mandatory().contains(self.v))
            .collect()
    }

    fn tagged_section(&mut self, m: &StructMeta) {
        if m.flexible.contains(self.v) && m.unknown_tagged_field.is_some() {
            if self.unknown_tags {
                let tag = m
                    .fields
                    .iter()
                    .filter_map(|f| f.tag)
                    .max()
                    .map_or(0, |t| t + 1);
                assert!(tag < 0x80, "{}: a one-byte unknown tag", m.name);
                self.out.extend_from_slice(&[1, tag as u8, 0]);
            } else {
                self.out.push(0);
            }
        }
    }

    fn min_struct(&mut self, m: &'static StructMeta) {
        for f in self.fields(m) {
            let c = self.compact(m, f);
            self.min_value(&f.ty, c, f.nullable.contains(self.v));
        }
        self.tagged_section(m);
    }

    /// The smallest element of an array field.
    fn min_element(&mut self, m: &StructMeta, f: &FieldMeta) {
        let c = self.compact(m, f);
        self.min_value(f.ty.element().unwrap(), c, false);
    }

    /// A struct whose array fields along `path` (indices into the fields present at the
    /// version) hold one element each, the last `leaf` elements of the smallest kind; every
    /// other field is at its smallest. With `lie`, every array along the path declares as
    /// many elements as there are bytes left in `size`, and writing stops after the last
    /// count (the caller fills the rest).
    fn path_struct(
        &mut self,
        m: &'static StructMeta,
        path: &[usize],
        leaf: usize,
        lie: Option<usize>,
    ) -> bool {
        for (i, f) in self.fields(m).into_iter().enumerate() {
            let c = self.compact(m, f);
            if path.first() != Some(&i) {
                self.min_value(&f.ty, c, f.nullable.contains(self.v));
                continue;
            }
            let count = match lie {
                Some(size) => size.saturating_sub(self.out.len() + 5),
                None if path.len() == 1 => leaf,
                None => 1,
            };
            self.len(count, c, false);
            if path.len() == 1 {
                if lie.is_some() {
                    return true;
                }
                for _ in 0..leaf {
                    self.min_element(m, f);
                }
            } else {
                let elem = f.ty.element().unwrap().as_struct().unwrap();
                if self.path_struct(elem, &path[1..], leaf, lie) {
                    return true;
                }
            }
        }
        self.tagged_section(m);
        false
    }
}

/// Every path of nested arrays in `m` at `v`, as indices into the fields present.
fn array_paths(
    m: &'static StructMeta,
    v: Version,
    prefix: &mut Vec<usize>,
    out: &mut Vec<Vec<usize>>,
) {
    let fields = m.fields.iter().filter(|f| f.mandatory().contains(v));
    for (i, f) in fields.enumerate() {
        let Some(elem) = f.ty.element() else { continue };
        prefix.push(i);
        out.push(prefix.clone());
        if let Some(s) = elem.as_struct() {
            array_paths(s, v, prefix, out);
        }
        prefix.pop();
    }
}

/// The leaf array's smallest element, alone.
fn leaf_element(body: &Body, path: &[usize], unknown_tags: bool) -> Vec<u8> {
    let mut m = body.meta;
    let mut w = Wire {
        out: Vec::new(),
        v: body.v,
        unknown_tags,
    };
    for (depth, &i) in path.iter().enumerate() {
        let f = w.fields(m)[i];
        if depth + 1 == path.len() {
            w.min_element(m, f);
        } else {
            m = f.ty.element().unwrap().as_struct().unwrap();
        }
    }
    w.out
}

/// The full range of input sizes.
const SIZES: [usize; 5] = [16, 256, 4096, 65536, 1 << 20];

/// The sizes to walk `path` of `body` at (see [`Body::full_range`]): the full range, or up
/// to 4 KiB plus 64 KiB on the message's deepest path, where nested counts multiply most.
fn walk_sizes(body: &Body, path: &[usize], deepest: usize) -> &'static [usize] {
    if body.full_range() {
        &SIZES
    } else if path.len() == deepest {
        &SIZES[..4]
    } else {
        &SIZES[..3]
    }
}

/// The worst ratio of allocated bytes to input bytes measured for each message version
/// (inputs of 4 KiB and more, where the constant no longer hides the ratio), printed per
/// message version and per API with `k`.
#[derive(Default)]
struct Worst(Vec<(ApiKey, String, usize, f64)>);

impl Worst {
    fn print(&self, what: &str) {
        for (_, name, k, w) in &self.0 {
            eprintln!("{what} {name:<48} k = {k:>3}  worst allocated/n = {w:.2}");
        }
        // Per API: the message version whose measured ratio comes closest to its k.
        let mut apis: Vec<ApiKey> = self.0.iter().map(|w| w.0).collect();
        apis.dedup();
        for api in apis {
            let worst = self
                .0
                .iter()
                .filter(|w| w.0 == api)
                .max_by(|a, b| (a.3 / a.2.max(1) as f64).total_cmp(&(b.3 / b.2.max(1) as f64)));
            match worst {
                Some((_, _, k, w)) if *w == 0.0 => {
                    eprintln!("{what} per API {api:<34} no arrays (k = {k:>3}: unknown tags)")
                }
                Some((_, name, k, w)) => {
                    eprintln!("{what} per API {api:<34} {name:<48} {w:>6.2} of k = {k:>3}")
                }
                None => {}
            }
        }
    }
}

/// Lying counts at every level of every path of every declared message (every request and
/// response version of the 91 APIs; sizes per [`walk_sizes`]): every array along
/// the path declares as many elements as there are bytes left, the first element of each
/// holding the next; after the last count come zeros, 0xff, 0x01 or honest smallest
/// elements of the leaf type. Each decode stays within `k·n + c`.
#[test]
fn lying_nested_counts_stay_within_the_bound() {
    let mut worst = Worst::default();
    let unknown_tags = false;
    for body in Body::all() {
        let mut paths = Vec::new();
        array_paths(body.meta, body.v, &mut Vec::new(), &mut paths);
        let deepest = paths.iter().map(Vec::len).max().unwrap_or(0);
        let mut body_worst = 0f64;
        for path in &paths {
            let leaf = leaf_element(&body, path, unknown_tags);
            for &size in walk_sizes(&body, path, deepest) {
                let mut w = Wire {
                    out: Vec::new(),
                    v: body.v,
                    unknown_tags,
                };
                w.path_struct(body.meta, path, 0, Some(size));
                let head = w.out;
                if head.len() >= size {
                    continue;
                }
                let fills: [&[u8]; 4] = [&[0], &[0xff], &[1], &leaf];
                for fill in fills {
                    let mut b = head.clone();
                    while b.len() < size {
                        b.extend_from_slice(fill);
                    }
                    b.truncate(size);
                    let b = Bytes::from(b);
                    let (_, n) = body.decode(&b);
                    let what = format!(
                        "{} path {path:?} {size} B fill {:02x?}",
                        body.name(),
                        &fill[..fill.len().min(4)]
                    );
                    assert_bound(&what, body.k, size, n);
                    if size >= 4096 {
                        body_worst = body_worst.max(n as f64 / size as f64);
                    }
                }
            }
        }
        worst.0.push((body.api, body.name(), body.k, body_worst));
    }
    worst.print("lying ");
}

/// The densest honest inputs: along every path, one element per level and as many of the
/// smallest leaf elements as fit in 16 B to 1 MiB. Each decodes, within `k·n + c`.
#[test]
fn densest_honest_inputs_stay_within_the_bound() {
    densest_honest_inputs(false);
}

/// The densest honest inputs again, with one empty unknown tagged field in every tagged
/// section of every struct at every level (the element structs included): every struct then
/// allocates its list of unknown fields, 64 bytes for 2 more wire bytes.
#[test]
fn densest_honest_inputs_with_unknown_tags_stay_within_the_bound() {
    densest_honest_inputs(true);
}

fn densest_honest_inputs(unknown_tags: bool) {
    let mut worst = Worst::default();
    for body in Body::all() {
        let mut paths = Vec::new();
        array_paths(body.meta, body.v, &mut Vec::new(), &mut paths);
        let deepest = paths.iter().map(Vec::len).max().unwrap_or(0);
        let mut body_worst = 0f64;
        for path in &paths {
            let elem = leaf_element(&body, path, unknown_tags).len().max(1);
            let mut w = Wire {
                out: Vec::new(),
                v: body.v,
                unknown_tags,
            };
            w.path_struct(body.meta, path, 0, None);
            let overhead = w.out.len() + 5;
            for &size in walk_sizes(&body, path, deepest) {
                let leaf = size.saturating_sub(overhead) / elem;
                let mut w = Wire {
                    out: Vec::new(),
                    v: body.v,
                    unknown_tags,
                };
                w.path_struct(body.meta, path, leaf, None);
                let b = Bytes::from(w.out);
                let (ok, n) = body.decode(&b);
                let what = format!(
                    "{} path {path:?} {} B, {leaf} elements",
                    body.name(),
                    b.len()
                );
                assert!(ok, "{what} does not decode");
                assert_bound(&what, body.k, b.len(), n);
                if b.len() >= 4096 {
                    body_worst = body_worst.max(n as f64 / b.len() as f64);
                }
            }
        }
        worst.0.push((body.api, body.name(), body.k, body_worst));
    }
    worst.print(if unknown_tags {
        "honest+tags"
    } else {
        "honest"
    });
}

/// `k` for every declared message and version, as the derive computes it; the table goes to
/// the test's output. A struct element takes at least one byte on the wire, so no ratio is
/// unbounded, and none is 0 for a message with arrays.
#[test]
fn k_for_every_declared_message() {
    for body in Body::all() {
        let mut paths = Vec::new();
        array_paths(body.meta, body.v, &mut Vec::new(), &mut paths);
        eprintln!(
            "{:<40} k = {:>3}  ({} array paths)",
            body.name(),
            body.k,
            paths.len()
        );
        if !paths.is_empty() {
            assert!(body.k >= 1, "{}", body.name());
        }
        assert!(body.k <= 128, "{}: k = {}", body.name(), body.k);
    }
}

/// The worst case of the unknown-tagged-fields bound at a realistic size: every one of 10,000
/// partitions (TxnOffsetCommit v5) carries one empty unknown tagged field, the fewest bytes
/// that make a struct allocate its list (the boxed vector, 24 bytes) and one entry (40
/// bytes): 64 bytes for 3 input bytes, on top of the partition itself. Bytes assembled by
/// hand from Kafka's schema (flexible since v3: compact strings and arrays, a tagged section
/// per struct), not by our encoder.
#[test]
fn one_unknown_tagged_field_per_partition_at_10000_partitions() {
    const N: usize = 10_000;
    let mut b = Vec::new();
    b.extend_from_slice(&[0x02, b't', 0x02, b'g']); // transactional id, group id
    b.extend_from_slice(&7i64.to_be_bytes()); // producer id
    b.extend_from_slice(&1i16.to_be_bytes()); // producer epoch
    b.extend_from_slice(&3i32.to_be_bytes()); // generation id
    b.extend_from_slice(&[0x01, 0x00]); // member id "", group instance id null
    b.push(0x02); // one topic
    b.extend_from_slice(&[0x06, b't', b'o', b'p', b'i', b'c']);
    let mut count = N + 1; // compact array: uvarint(N + 1)
    while count >= 0x80 {
        b.push((count as u8 & 0x7f) | 0x80);
        count >>= 7;
    }
    b.push(count as u8);
    for i in 0..N {
        b.extend_from_slice(&(i as i32).to_be_bytes()); // partition index
        b.extend_from_slice(&(i as i64 * 10).to_be_bytes()); // committed offset
        b.extend_from_slice(&(-1i32).to_be_bytes()); // committed leader epoch
        b.push(0x01); // committed metadata ""
        b.extend_from_slice(&[0x01, 0x05, 0x00]); // one tagged field: tag 5, 0 bytes
    }
    b.extend_from_slice(&[0x00, 0x00]); // the topic's and the request's tagged sections
    let b = Bytes::from(b);
    assert_eq!(b.len(), 20 + 7 + 2 + N * 20 + 2);
    let (res, n) = measure(|| TxnOffsetCommitRequest::decode_exact(&b, 5));
    let req = res.unwrap();
    let parts = &req.topics[0].partitions;
    assert_eq!(parts.len(), N);
    assert!(parts.iter().all(|p| p.unknown_tagged_fields.len() == 1));
    let k = RequestBody::alloc_ratio(ApiKey::TxnOffsetCommit, 5);
    eprintln!(
        "one unknown tagged field per partition: {} input bytes, {n} allocated ({:.2} per byte, k = {k})",
        b.len(),
        n as f64 / b.len() as f64
    );
    assert_bound("one unknown tagged field per partition", k, b.len(), n);
}

/// The densest input for the per-byte bound that `Str`'s inline storage raised (an
/// `Option<Str>` is 40 bytes since short strings are stored inline, 32 before): Metadata v0
/// with 100,000 topics, each an empty name (an int16 zero, 2 bytes) that decodes to a whole
/// 64-byte topic struct. Bytes assembled by hand from Kafka's schema (v0: an int32 array count,
/// then each topic's int16-length name), not by our encoder.
#[test]
fn empty_topic_names_at_100000_topics() {
    const N: usize = 100_000;
    let mut b = Vec::with_capacity(4 + 2 * N);
    b.extend_from_slice(&(N as i32).to_be_bytes());
    for _ in 0..N {
        b.extend_from_slice(&0i16.to_be_bytes());
    }
    let b = Bytes::from(b);
    let (res, n) = measure(|| MetadataRequest::decode_exact(&b, 0));
    let req = res.unwrap();
    let topics = req.topics.as_deref().unwrap_or_default();
    assert_eq!(topics.len(), N);
    assert!(topics.iter().all(|t| t.name.as_deref() == Some("")));
    let k = RequestBody::alloc_ratio(ApiKey::Metadata, 0);
    eprintln!(
        "empty topic names: {} input bytes, {n} allocated ({:.2} per byte, k = {k})",
        b.len(),
        n as f64 / b.len() as f64
    );
    assert_bound("empty topic names at 100,000 topics", k, b.len(), n);
}
