//! Runs the `kwire` binary itself: example frames and dumps against the seed pages, decode →
//! encode byte-exact, batch mode, and garbage input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use bytes::Bytes;
use kafka_wire::dynamic::{self, Frame, StructValue};
use kafka_wire::frame::DecodeOptions;
use kafka_wire::{ApiKind, Version};
use kafka_wire_messages::ApiKey;

#[path = "../../kafka-wire/tests/common/random.rs"]
mod random;

const SEED_FRAMES: &str = include_str!("fixtures/seed_frames.txt");

fn kwire(args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kwire"));
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("run kwire");
    // Written from a thread: with large input, kwire fills its stdout pipe before it has
    // read all of stdin, and writing everything first would deadlock.
    let mut input = child.stdin.take().expect("stdin");
    let text = stdin.unwrap_or_default().to_owned();
    let writer = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let out = child.wait_with_output().expect("kwire output");
    writer.join().expect("stdin writer").expect("write stdin");
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8 stderr")
}

/// `(kind, key, version, hex)` of the six seed frames.
fn seeds() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    SEED_FRAMES
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[0], w[1], w[2], w[3])
        })
        .collect()
}

#[test]
fn example_prints_the_seed_frames() {
    let s = seeds();
    assert_eq!(s.len(), 6);
    for (kind, key, version, hex) in s {
        let o = kwire(&["example", key, version, kind], None);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stdout(&o), format!("{hex}\n"), "{kind} {key} v{version}");
    }
}

#[test]
fn example_works_for_every_api_and_version() {
    for api in ApiKey::ALL {
        for (kind, meta) in [
            ("request", api.request_meta()),
            ("response", api.response_meta()),
        ] {
            for v in meta.versions.iter() {
                let o = kwire(
                    &["example", &api.key().to_string(), &v.to_string(), kind],
                    None,
                );
                assert!(o.status.success(), "{} v{v}: {}", meta.name, stderr(&o));
                let hex = stdout(&o);
                let mut args = vec!["decode", "--json"];
                let (k, vs) = (api.key().to_string(), v.to_string());
                if kind == "response" {
                    args.extend(["--response", "--api", &k, "--version", &vs]);
                }
                args.push(hex.trim());
                let d = kwire(&args, None);
                assert!(d.status.success(), "{} v{v}: {}", meta.name, stderr(&d));
            }
        }
    }
    let o = kwire(&["example", "24", "9", "request"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unsupported version 9"),
        "{}",
        stderr(&o)
    );
    let o = kwire(&["example", "99", "0", "request"], None);
    assert!(stderr(&o).contains("unknown api key 99"), "{}", stderr(&o));
}

/// One node of an object tree: name, type, value, offset, size.
type TreeNode = (String, String, String, usize, usize);

/// Parses an object tree as the seed pages print it (one node per line, or the whole tree
/// on one line with the `+--` markers, as two of the pages were saved) or as `dump` prints it.
fn parse_tree(text: &str) -> Vec<TreeNode> {
    let flat = text.replace('\n', " +-- ");
    let mut out = Vec::new();
    for seg in flat.split("+-- ") {
        let seg = seg.trim_matches(|c: char| c == ' ' || c == '|');
        if seg.is_empty() {
            continue;
        }
        let Some(open) = seg.find("[0x") else {
            panic!("no [offset, size] in {seg:?}");
        };
        let close = seg[open..].find(']').expect("]") + open;
        let (off, size) = seg[open + 1..close].split_once(", ").expect("offset, size");
        let off = usize::from_str_radix(off.trim_start_matches("0x"), 16).expect("hex offset");
        let size: usize = size.trim_end_matches('B').parse().expect("size");
        let head = seg[..open].trim();
        let (name, rest) = head.split_once(char::is_whitespace).unwrap_or((head, ""));
        let (ty, value) = match rest.split_once("= ") {
            Some((t, v)) => (t, v),
            None => (rest, ""),
        };
        let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push((name.to_owned(), norm(ty), norm(value), off, size));
    }
    out
}

#[test]
fn dump_matches_the_seed_pages_object_trees() {
    for (kind, key, version, hex) in seeds() {
        let page = std::fs::read_to_string(format!(
            "{}/tests/fixtures/trees/{key}_v{version}_{kind}.txt",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect("tree fixture");
        let mut want = parse_tree(&page);
        for n in &mut want {
            // Kafka trunk renamed TxnOffsetCommit's GenerationId (KIP-1319's TxnOffsetCommit v6, `TxnOffsetCommitRequest.json`); the
            // messages crate follows trunk. Same bytes, same place.
            if n.0 == "GenerationId" {
                n.0 = "GenerationIdOrMemberEpoch".to_owned();
            }
        }
        let mut args = vec!["dump"];
        if kind == "response" {
            args.extend(["--response", "--api", key, "--version", version]);
        }
        args.push(hex);
        let o = kwire(&args, None);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(!out.contains('\x1b'), "no colours when piped");
        let got = parse_tree(&out);
        assert_eq!(got.len(), want.len(), "{kind} {key}:\n{out}");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "{kind} {key} v{version}:\n{out}");
        }
    }
}

#[test]
fn dump_of_the_formatted_page_has_the_same_indentation() {
    // Page 004 kept its layout: compare each node's depth too.
    let depth = |line: &str| {
        line.find(|c: char| c.is_alphanumeric() || c == '_')
            .unwrap_or(0)
    };
    for (kind, args) in [
        ("request", vec!["dump"]),
        (
            "response",
            vec!["dump", "--response", "--api", "83", "--version", "0"],
        ),
    ] {
        let page = std::fs::read_to_string(format!(
            "{}/tests/fixtures/trees/83_v0_{kind}.txt",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect("tree fixture");
        let hex = seeds()
            .into_iter()
            .find(|s| s.0 == kind && s.1 == "83")
            .expect("seed")
            .3;
        let mut a = args.clone();
        a.push(hex);
        let out = stdout(&kwire(&a, None));
        let want: Vec<usize> = page.lines().map(depth).collect();
        let got: Vec<usize> = out.lines().map(depth).collect();
        assert_eq!(got, want, "{out}");
    }
}

fn seed_batch_lines() -> String {
    seeds()
        .iter()
        .map(|(k, key, v, hex)| format!("{k} {key} {v} {hex}\n"))
        .collect()
}

#[test]
fn decode_then_encode_is_byte_exact_on_the_seeds() {
    let o = kwire(&["decode", "--json", "-"], Some(&seed_batch_lines()));
    assert!(o.status.success(), "{}", stderr(&o));
    let docs = stdout(&o);
    assert_eq!(docs.lines().count(), 6);
    let first: serde_json::Value = serde_json::from_str(docs.lines().next().unwrap()).unwrap();
    assert_eq!(first["kind"], "request");
    assert_eq!(first["apiKey"], 24);
    assert_eq!(first["apiName"], "AddPartitionsToTxn");
    assert_eq!(first["apiVersion"], 5);
    assert_eq!(first["header"]["clientId"], "");
    assert_eq!(
        first["body"]["transactions"][0]["topics"][0]["partitions"],
        serde_json::json!([0])
    );
    let e = kwire(&["encode", "-"], Some(&docs));
    assert!(e.status.success(), "{}", stderr(&e));
    let hexes: Vec<String> = e
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect();
    let want: Vec<&str> = seeds().iter().map(|s| s.3).collect();
    assert_eq!(hexes, want);
    // Single mode, and a bare HEX line is a request.
    let (_, _, _, hex) = seeds()[0];
    let one = kwire(&["decode", "--json", hex], None);
    let doc = stdout(&one);
    assert_eq!(doc.lines().count(), 1);
    assert_eq!(stdout(&kwire(&["encode", doc.trim()], None)).trim(), hex);
    assert_eq!(
        stdout(&kwire(
            &["decode", "--json", "-"],
            Some(&format!("{hex}\n"))
        )),
        doc
    );
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Random frames of every API and version (tagged fields, unknown tagged fields, nulls).
fn rich_frames() -> Vec<(String, Vec<u8>)> {
    let mut rng = random::Rng::new(2024);
    let mut out = Vec::new();
    for api in ApiKey::ALL {
        // The versions RequestFrame and ResponseFrame decode.
        for (kind, meta, versions) in [
            (ApiKind::Request, api.request_meta(), api.request_versions()),
            (
                ApiKind::Response,
                api.response_meta(),
                api.response_versions(),
            ),
        ] {
            for v in versions.iter() {
                for _ in 0..4 {
                    let mut f: Frame = dynamic::sample_frame(kind, api.key(), meta, v);
                    f.body = random::value_of(meta, v, &mut rng);
                    if let Some(c) = f.header.get_rust_mut("correlation_id") {
                        *c = dynamic::Value::Int32(rng.next() as i32);
                    }
                    let Ok(bytes) = dynamic::encode_frame(&f) else {
                        panic!("random frame of {} v{v} does not encode", meta.name);
                    };
                    let line = match kind {
                        ApiKind::Request => hex(&bytes),
                        ApiKind::Response => format!("response {} {v} {}", api.key(), hex(&bytes)),
                    };
                    out.push((line, bytes));
                }
            }
        }
    }
    out
}

#[test]
fn decode_then_encode_is_byte_exact_on_richer_frames() {
    let frames = rich_frames();
    let input: String = frames.iter().map(|(l, _)| format!("{l}\n")).collect();
    let d = kwire(&["decode", "--json", "-"], Some(&input));
    assert!(d.status.success(), "{}", stdout(&d));
    let docs = stdout(&d);
    assert_eq!(docs.lines().count(), frames.len());
    let e = kwire(&["encode", "-"], Some(&docs));
    assert!(e.status.success(), "{}", stdout(&e));
    for ((_, bytes), line) in frames.iter().zip(stdout(&e).lines()) {
        assert_eq!(line, hex(bytes));
    }
    // And the typed codec agrees with every frame.
    for (line, bytes) in &frames {
        let b = Bytes::from(bytes.clone());
        let ok = if line.starts_with("response") {
            let w: Vec<&str> = line.split_whitespace().collect();
            let v: Version = w[2].parse().unwrap();
            kafka_wire_messages::ResponseFrame::decode(
                &b,
                ApiKey::from_i16(w[1].parse().unwrap()).unwrap(),
                v,
                &DecodeOptions::DEFAULT,
            )
            .is_ok()
        } else {
            kafka_wire_messages::RequestFrame::decode(&b, &DecodeOptions::DEFAULT).is_ok()
        };
        assert!(ok, "{line}");
    }
    // Unknown tagged fields survive in JSON.
    assert!(docs.contains("_unknownTaggedFields"));
}

#[test]
fn batch_mode_prints_one_line_per_input_line() {
    let (_, _, _, good) = seeds()[0];
    let input = format!(
        "{good}\nnot hex\n\n{good}0\nresponse 24 5 00\nrequest 24 5 {good}\nrequest 28 5 {good}\nbogus 1 2 3 4\n\u{1F600}\nresponse 99 0 {good}\n{good}\n"
    );
    let o = kwire(&["decode", "--json", "-"], Some(&input));
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<String> = stdout(&o).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), input.lines().count(), "{lines:#?}");
    let ok: Vec<bool> = lines.iter().map(|l| !l.starts_with("{\"error\"")).collect();
    assert_eq!(
        ok,
        [true, false, false, false, false, true, false, false, false, false, true]
    );
    for l in &lines {
        let j: serde_json::Value = serde_json::from_str(l).expect("each line is JSON");
        if let Some(e) = j.get("error") {
            assert!(e.is_string());
            assert!(j.get("offset").is_some() && j.get("path").is_some(), "{l}");
        }
    }
    let trunc: serde_json::Value = serde_json::from_str(&lines[4]).unwrap();
    assert_eq!(trunc["offset"], 0);
    assert_eq!(trunc["path"], "size");
    // Encode batch: good, bad JSON, wrong shape, a field the version lacks.
    let doc = stdout(&kwire(&["decode", "--json", good], None));
    let input = format!(
        "{}\n{{\n[1]\n{{\"kind\":\"request\",\"apiKey\":24,\"apiVersion\":5,\"body\":{{\"v3AndBelowTopics\":[{{\"name\":\"x\"}}]}}}}\n",
        doc.trim()
    );
    let o = kwire(&["encode", "-"], Some(&input));
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<&str> = std::str::from_utf8(&o.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0], good);
    assert!(lines[3].contains("v3AndBelowTopics"), "{}", lines[3]);
    // All good: exit 0.
    let o = kwire(
        &["decode", "--json", "-"],
        Some(&format!("{good}\n{good}\n")),
    );
    assert!(o.status.success());
}

#[test]
fn garbage_never_crashes() {
    let huge = "7fffffff00000000";
    let cases: &[&str] = &[
        "",
        "zz",
        "abc",
        "0x",
        "00",
        "00000000",
        "ffffffff",
        huge,
        "00000001ff",
        "0000000400000000",
        "000000050018000500",
    ];
    for c in cases {
        for args in [
            vec!["decode", "--json", c],
            vec!["dump", c],
            vec![
                "decode",
                "--json",
                "--response",
                "--api",
                "18",
                "--version",
                "3",
                c,
            ],
            vec!["dump", "--response", "--api", "24", "--version", "5", c],
            vec!["encode", c],
        ] {
            let o = kwire(&args, None);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
            let err = stderr(&o);
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(err.starts_with("kwire: error: "), "{err}");
        }
    }
    // Random bytes and random corruptions of good frames, through batch mode.
    let mut rng = random::Rng::new(99);
    let mut input = String::new();
    for (_, _, _, h) in seeds() {
        for _ in 0..50 {
            let mut b: Vec<u8> = (0..h.len() / 2)
                .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap())
                .collect();
            let at = rng.below(b.len() as u64) as usize;
            b[at] = rng.next() as u8;
            b.truncate(b.len() - rng.below(3) as usize);
            input.push_str(&format!("{}\n", hex(&b)));
        }
    }
    let o = kwire(&["decode", "--json", "-"], Some(&input));
    assert!(matches!(o.status.code(), Some(0 | 1)));
    assert_eq!(stdout(&o).lines().count(), input.lines().count());
    let o = kwire(&["encode", "-"], Some("{\"kind\":\"request\",\"apiKey\":24,\"apiVersion\":5,\"body\":{\"transactions\":5}}\n\u{0}\nnull\n"));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o).lines().count(), 3);
}

#[test]
fn errors_name_the_offset_and_field_path() {
    // A TxnOffsetCommit v5 request cut inside its first partition.
    let (_, _, _, h) = seeds()[2];
    let cut = &h[..h.len() - 16];
    let mut b: Vec<u8> = (0..cut.len() / 2)
        .map(|i| u8::from_str_radix(&cut[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    let size = (b.len() - 4) as u32;
    b[..4].copy_from_slice(&size.to_be_bytes());
    let o = kwire(&["decode", "--json", &hex(&b)], None);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("at byte 48")
            && err.contains(
                "body.TxnOffsetCommitRequest.topics[0].partitions[0].committed_leader_epoch"
            ),
        "{err}"
    );
    // The dump shows everything up to the failing field, with the error there.
    let o = kwire(&["dump", &hex(&b)], None);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let last = out
        .lines()
        .filter(|l| l.contains("<-- error"))
        .collect::<Vec<_>>();
    assert_eq!(last.len(), 1, "{out}");
    assert!(
        last[0].contains("CommittedLeaderEpoch") && last[0].contains("truncated"),
        "{out}"
    );
    assert!(out.contains("CommittedOffset"), "{out}");
    // A response without --api/--version.
    let o = kwire(&["decode", "--json", "--response", h], None);
    assert!(stderr(&o).contains("needs --api"), "{}", stderr(&o));
}

#[test]
fn apis_lists_every_api_with_versions_and_headers() {
    let o = kwire(&["apis"], None);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.lines().next().unwrap().starts_with("KEY"));
    for api in ApiKey::ALL {
        let line = out
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(api.name()))
            .unwrap_or_else(|| panic!("{}", api.name()));
        assert!(line.starts_with(&api.key().to_string()));
        assert!(line.contains(&api.request_meta().versions.to_string()));
    }
    let av = out.lines().find(|l| l.contains("ApiVersions")).unwrap();
    assert!(
        av.ends_with("v0 (0-5)"),
        "ApiVersions responses always use header v0: {av}"
    );
    let apt = out
        .lines()
        .find(|l| l.contains("AddPartitionsToTxn"))
        .unwrap();
    assert!(
        apt.contains("v1 (0-2), v2 (3-5)") && apt.contains("v0 (0-2), v1 (3-5)"),
        "{apt}"
    );
}

#[test]
fn sample_frames_encode_like_the_typed_frames() {
    // The smallest instance built from metadata equals the one built from types.
    let f = dynamic::sample_frame(
        ApiKind::Request,
        83,
        ApiKey::InitializeShareGroupState.request_meta(),
        0,
    );
    let typed = StructValue::sample(ApiKey::InitializeShareGroupState.request_meta(), 0);
    assert_eq!(f.body, typed);
}

#[test]
fn dump_names_error_codes() {
    // ApiVersions v0 response, correlation id 7: error 35, no APIs.
    let o = kwire(
        &[
            "dump",
            "--response",
            "--api",
            "18",
            "--version",
            "0",
            "0000000a00000007002300000000",
        ],
        None,
    );
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("= 35 (UNSUPPORTED_VERSION)"), "{out}");
    // A code Kafka does not define keeps its bare number.
    let o = kwire(
        &[
            "dump",
            "--response",
            "--api",
            "18",
            "--version",
            "0",
            "0000000a00000007100000000000",
        ],
        None,
    );
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("= 4096 "), "{out}");
}

#[test]
fn apis_by_name_minimal_examples_and_response_hints() {
    // `--api` and `example` take a name as well as a number.
    let by_key = kwire(&["example", "1", "4", "request"], None);
    let by_name = kwire(&["example", "fetch", "4", "request"], None);
    assert!(by_name.status.success(), "{}", stderr(&by_name));
    assert_eq!(stdout(&by_key), stdout(&by_name));
    let bad = kwire(&["example", "Fetchh", "4", "request"], None);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("neither an API key nor the name"));

    // --minimal: every field at its schema default (Fetch v4: replica id -1, max bytes
    // 0x7fffffff from FetchRequest.json, no topics), the typed Default encoded.
    let o = kwire(&["example", "Fetch", "4", "request", "--minimal"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let hex = stdout(&o).trim().to_owned();
    let frame = Bytes::from(
        (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect::<Vec<u8>>(),
    );
    let decoded = kafka_wire_messages::RequestFrame::decode(&frame, &DecodeOptions::DEFAULT)
        .unwrap()
        .frame;
    let kafka_wire_messages::RequestBody::Fetch(body) = &decoded.body else {
        panic!("not Fetch")
    };
    assert_eq!(*body, kafka_wire_messages::FetchRequest::default());
    assert_eq!((body.replica_id, body.max_bytes), (-1, i32::MAX));

    // A response given as a request: the error says how to read it.
    let o = kwire(&["dump", "0000000a00000007002300000000"], None);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("--response"), "{err}");
    let o = kwire(
        &[
            "decode",
            "--json",
            "--response",
            "--api",
            "ApiVersions",
            "--version",
            "0",
            "0000000a00000007002300000000",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("\"errorCode\":35"), "{}", stdout(&o));
}

#[test]
fn dump_shows_the_consumer_protocol_inside_join_group() {
    // JoinGroup v5 (header v1, client id "c"): group "g", timeouts 10000/30000, member id "",
    // no instance id, protocol type "consumer", one protocol "range" whose metadata is
    // ConsumerProtocolSubscription v0: version 0, topics ["t1"], user data null (-1).
    const JOIN: &str = "00000041000b00050000000100016300016700002710000075300000ffff0008636f6e73756d657200000001000572616e67650000000e00000000000100027431ffffffff";
    let o = kwire(&["dump", JOIN], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let tree = parse_tree(&out);
    let names: Vec<&str> = tree.iter().map(|n| n.0.as_str()).collect();
    let i = names
        .iter()
        .position(|n| *n == "Metadata")
        .expect("Metadata");
    assert_eq!(
        &names[i + 1..],
        [
            "Version",
            "ConsumerProtocolSubscription",
            "Topics",
            "length",
            "string[0]",
            "UserData"
        ]
    );
    // Offsets are the frame's: the topic "t1" at byte 0x3d, 4 bytes.
    assert_eq!(tree[i + 5].2, "\"t1\" (int16 len=2)");
    assert_eq!((tree[i + 5].3, tree[i + 5].4), (0x3d, 4));
    // Another protocol type: the bytes stay bytes.
    let other = JOIN.replace("636f6e73756d6572", "636f6e6e6563745f");
    let o = kwire(&["dump", &other], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stdout(&o).contains("ConsumerProtocolSubscription"));
}
