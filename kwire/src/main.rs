//! `kwire`: inspect, decode and build Kafka frames from the command line.
//!
//! ```text
//! kwire apis
//! kwire example 24 5 request
//! kwire dump $(kwire example 24 5 request)
//! kwire decode --json [--response --api KEY --version V] HEX|-
//! kwire encode JSON|-
//! kwire proxy --listen ADDR --upstream ADDR [--verify] [--reencode] [--log json|summary]
//! ```
//!
//! Frames are hex, size prefix included. Batch mode (`-`) reads one item per line from
//! stdin and prints exactly one line per input line; the exit code is 1 if any line failed.
#![forbid(unsafe_code)]

mod dump;

use std::io::{self, BufRead, BufWriter, IsTerminal, Read, Write};
use std::process::ExitCode;

use bytes::Bytes;
use clap::{Parser, Subcommand, ValueEnum};
use kafka_wire::dynamic::{self, BodySpec, Sink, StructValue, WalkedFrame, WriteJsonError};
use kafka_wire::frame::DecodeOptions;
use kafka_wire::json::{frame_from_json, JsonError};
use kafka_wire::{ApiKind, DecodeError, StructMeta, Version, VersionRange};
use kafka_wire_messages::ApiKey;
use kwire::records;
use serde_json::{json, Value as Json};

/// Inspect, decode and build Kafka frames (hex, size prefix included).
#[derive(Parser)]
#[command(name = "kwire", version, about)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// List the declared APIs: key, name, versions, flexible versions, header versions.
    Apis,
    /// Print an example frame of an API as one line of hex: every field the version has set
    /// (numbers 0, strings empty, one element in every array), so that each shows in a dump;
    /// with --minimal, the smallest frame instead (every field at its schema default: arrays
    /// empty, null where the default is null, -1 where it is -1).
    Example {
        /// The API, by key or name (`1` or `Fetch`).
        #[arg(value_parser = parse_api)]
        key: i16,
        /// The API version.
        version: Version,
        /// Request or response.
        kind: KindArg,
        /// Every field at its default: the smallest frame.
        #[arg(long)]
        minimal: bool,
    },
    /// Print a frame as an object tree with offsets, sizes and field descriptions; record
    /// batches as subtrees. Streams: memory follows the nesting, not the frame (plus up to
    /// 64 MiB per compressed batch, decompressed whole).
    Dump {
        #[command(flatten)]
        target: Target,
        /// The frame in hex, or `-` to read it from stdin.
        hex: String,
    },
    /// Decode frames to JSON documents; `records` values as
    /// `{"batches": [{...header fields, "records": [{"offset", "timestamp", "key", "value",
    /// "headers", ...}]}]}`, keys and values as strings when UTF-8, else `{"base64": "..."}`
    /// (see kwire's README). Streams, as `dump` does.
    Decode {
        /// Print JSON (the only output form; accepted for clarity).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: Target,
        /// The frame in hex, or `-` for batch mode: lines of `request|response KEY VERSION
        /// HEX` (a bare `HEX` is a request) on stdin, one JSON line out per line in.
        hex: String,
    },
    /// Encode JSON documents (as `decode` prints them) to hex frames; uncompressed record
    /// batches byte for byte, compressed ones compressed again with their codec.
    Encode {
        /// The JSON document, or `-` for batch mode: one document per line on stdin.
        json: String,
    },
    /// Forward Kafka traffic to a broker, decoding every frame; Ctrl-C (or SIGTERM, or the end
    /// of --duration) prints a summary table.
    Proxy(ProxyArgs),
}

/// `kwire proxy`'s options.
#[derive(clap::Args)]
struct ProxyArgs {
    /// Where clients connect (give them this as their bootstrap address).
    #[arg(long)]
    listen: std::net::SocketAddr,
    /// The broker to forward to (`host:port`).
    #[arg(long)]
    upstream: String,
    /// The host written into rewritten broker addresses (default: the listen address).
    #[arg(long)]
    advertise: Option<String>,
    /// Re-encode every decoded frame and report those whose bytes differ.
    #[arg(long)]
    verify: bool,
    /// Forward our re-encoding of each decoded frame instead of the original bytes.
    #[arg(long)]
    reencode: bool,
    /// Print every frame: `json` (kwire decode --json's document plus direction, connection,
    /// timestamp) or `summary` (one short line).
    #[arg(long, value_enum)]
    log: Option<LogArg>,
    /// With --log json: every record of every batch in the documents (default: a summary of
    /// each record set, counted from the batch headers).
    #[arg(long)]
    log_records: bool,
    /// Read every record of every batch (decompressing, checking CRCs) and report those that
    /// fail (default: batches and records counted from the batch headers).
    #[arg(long)]
    check_records: bool,
    /// Stop after this many seconds.
    #[arg(long)]
    duration: Option<f64>,
}

#[derive(ValueEnum, Clone, Copy)]
enum LogArg {
    Json,
    Summary,
}

/// Which frame a response is (a response does not say its API or version).
#[derive(clap::Args, Clone, Copy)]
struct Target {
    /// The frame is a response (needs --api and --version).
    #[arg(long)]
    response: bool,
    /// The API, by key or name (`1` or `Fetch`; required for a response; checked against a
    /// request's header).
    #[arg(long, value_parser = parse_api)]
    api: Option<i16>,
    /// The API version (required for a response; checked against a request's header).
    #[arg(long)]
    version: Option<Version>,
}

#[derive(ValueEnum, Clone, Copy, PartialEq, Eq)]
enum KindArg {
    Request,
    Response,
}

impl From<KindArg> for ApiKind {
    fn from(k: KindArg) -> Self {
        match k {
            KindArg::Request => ApiKind::Request,
            KindArg::Response => ApiKind::Response,
        }
    }
}

/// A failure to report: the message, and for frames the offset and field path.
struct Failure {
    message: String,
    offset: Option<usize>,
    path: Option<String>,
    /// What the user may have meant, after the error.
    hint: Option<String>,
}

impl Failure {
    fn msg(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            offset: None,
            path: None,
            hint: None,
        }
    }

    fn to_json(&self) -> Json {
        let mut j = json!({"error": self.message, "offset": self.offset, "path": self.path});
        if let Some(h) = &self.hint {
            j["hint"] = json!(h);
        }
        j
    }

    fn line(&self) -> String {
        let mut s = self.message.clone();
        if let Some(o) = self.offset {
            s.push_str(&format!(" at byte {o}"));
        }
        if let Some(p) = self.path.as_deref().filter(|p| !p.is_empty()) {
            s.push_str(&format!(" in `{p}`"));
        }
        if let Some(h) = &self.hint {
            s.push_str(&format!(" ({h})"));
        }
        s
    }
}

impl From<DecodeError> for Failure {
    fn from(e: DecodeError) -> Self {
        Failure {
            message: e.kind().to_string(),
            offset: Some(e.offset()),
            path: Some(e.path().to_string()),
            hint: None,
        }
    }
}

impl From<JsonError> for Failure {
    fn from(e: JsonError) -> Self {
        Failure {
            message: e.message(),
            offset: None,
            path: Some(e.path()),
            hint: None,
        }
    }
}

/// The status a shell reports for a process killed by SIGPIPE (128 + 13): what `kwire apis |
/// head -1` ends with once `head` has gone, as the standard tools do.
const BROKEN_PIPE_STATUS: i32 = 141;

/// Writes `text` to stdout. A closed stdout (its reader went away) ends the program quietly
/// with [`BROKEN_PIPE_STATUS`]; any other write error ends it with status 1. `print!` would
/// panic instead.
fn write_out(text: &str) {
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        write_failed(&e);
    }
}

/// Ends the program after a failed write to stdout (see [`write_out`]).
fn write_failed(e: &io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(BROKEN_PIPE_STATUS);
    }
    warn(&format!("kwire: error: cannot write to stdout: {e}"));
    std::process::exit(1);
}

/// A line to stderr; a closed stderr is ignored (`eprintln!` would panic).
fn warn(line: &str) {
    let _ = writeln!(io::stderr(), "{line}");
}

/// `print!` through [`write_out`].
macro_rules! out {
    ($($t:tt)*) => { write_out(&format!($($t)*)) };
}

/// `println!` through [`write_out`].
macro_rules! outln {
    ($($t:tt)*) => { write_out(&format!("{}\n", format_args!($($t)*))) };
}

/// Parses one line of JSON; an object with the same key twice is an error naming the key's
/// path (serde_json would keep the last one silently).
fn parse_json(text: &str) -> Result<Json, Failure> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_str(text);
    let j = Unique { path: "$" }
        .deserialize(&mut de)
        .and_then(|j| de.end().map(|()| j))
        .map_err(|e| Failure::msg(format!("invalid JSON: {e}")))?;
    Ok(j)
}

/// Reads a JSON value rejecting duplicate object keys; `path` is where the value sits
/// (`$.header.clientId`, `$.body.topics[0]`), for the error.
struct Unique<'p> {
    path: &'p str,
}

impl<'de> serde::de::DeserializeSeed<'de> for Unique<'_> {
    type Value = Json;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Unique<'_> {
    type Value = Json;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Json::Null, Json::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut out = Vec::new();
        loop {
            let path = format!("{}[{}]", self.path, out.len());
            match seq.next_element_seed(Unique { path: &path })? {
                Some(v) => out.push(v),
                None => return Ok(Json::Array(out)),
            }
        }
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = format!("{}.{key}", self.path);
            if out.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "duplicate key `{key}` at {path}"
                )));
            }
            let v = map.next_value_seed(Unique { path: &path })?;
            out.insert(key, v);
        }
        Ok(Json::Object(out))
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let res = match cli.cmd {
        Cmd::Apis => {
            out!("{}", apis_table());
            Ok(())
        }
        Cmd::Example {
            key,
            version,
            kind,
            minimal,
        } => example(key, version, kind.into(), minimal).map(|hex| outln!("{hex}")),
        Cmd::Dump { target, hex } => return dump(target, &hex),
        Cmd::Decode { target, hex, .. } if hex == "-" => return batch(decode_line, target),
        Cmd::Decode { target, hex, .. } => {
            let stdout = io::stdout();
            let mut out = BufWriter::new(stdout.lock());
            decode_one(&hex, target, &mut out).and_then(|all_read| {
                if let Err(e) = out.write_all(b"\n").and_then(|()| out.flush()) {
                    write_failed(&e);
                }
                batches_read(all_read)
            })
        }
        Cmd::Encode { json } if json == "-" => {
            return batch(
                |l, _, out| {
                    let h = encode_line(l)?;
                    out.write_all(h.as_bytes()).map_err(io_failure)?;
                    Ok(true)
                },
                Target::none(),
            )
        }
        Cmd::Encode { json } => encode_line(&json).map(|h| outln!("{h}")),
        Cmd::Proxy(args) => proxy(args),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            warn(&format!("kwire: error: {}", f.line()));
            ExitCode::FAILURE
        }
    }
}

impl Target {
    fn none() -> Self {
        Target {
            response: false,
            api: None,
            version: None,
        }
    }
}

// ---- apis ---------------------------------------------------------------------------------

/// "v1 (0-2), v2 (3-5)": the header version for each run of API versions.
fn header_runs(meta: &StructMeta, kind: ApiKind, key: i16) -> String {
    let mut runs: Vec<(Version, Version, Version)> = Vec::new();
    for v in meta.versions.iter() {
        let hv = dynamic::header_version(meta, kind, key, v);
        match runs.last_mut() {
            Some((_, end, h)) if *h == hv && *end + 1 == v => *end = v,
            _ => runs.push((v, v, hv)),
        }
    }
    runs.iter()
        .map(|(a, b, h)| format!("v{h} ({})", VersionRange::new(*a, *b)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn apis_table() -> String {
    let header = [
        "KEY",
        "NAME",
        "REQUEST",
        "RESPONSE",
        "FLEXIBLE",
        "REQUEST HEADER",
        "RESPONSE HEADER",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for api in ApiKey::ALL {
        let (req, resp) = (api.request_meta(), api.response_meta());
        rows.push(vec![
            api.key().to_string(),
            api.name().to_owned(),
            versions_text(api, req),
            versions_text(api, resp),
            req.flexible.to_string(),
            header_runs(req, ApiKind::Request, api.key()),
            header_runs(resp, ApiKind::Response, api.key()),
        ]);
    }
    table(&rows)
}

/// The declared versions, with the latest marked when Kafka says it is unstable.
fn versions_text(api: &ApiKey, meta: &StructMeta) -> String {
    // The request schema carries the flag; the response shares its versions.
    match api.request_meta().unstable_version() {
        Some(v) => format!("{} ({v} unstable)", meta.versions),
        None => meta.versions.to_string(),
    }
}

fn table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            let w = widths.get(c).copied().unwrap_or(0);
            line.push_str(&format!("{cell:<w$}  "));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

// ---- lookups ------------------------------------------------------------------------------

/// An API key from its number or its name (`Fetch`, `fetch`, `ApiVersions`).
fn parse_api(text: &str) -> Result<i16, String> {
    if let Ok(key) = text.parse::<i16>() {
        return Ok(key);
    }
    ApiKey::ALL
        .iter()
        .find(|k| k.name().eq_ignore_ascii_case(text))
        .map(|k| k.key())
        .ok_or_else(|| {
            format!("{text:?} is neither an API key nor the name of one (see `kwire apis`)")
        })
}

fn api(key: i16) -> Result<ApiKey, Failure> {
    ApiKey::from_i16(key).ok_or_else(|| {
        let known: Vec<String> = ApiKey::ALL.iter().map(|k| k.key().to_string()).collect();
        Failure::msg(format!(
            "unknown api key {key} (declared: {})",
            known.join(", ")
        ))
    })
}

fn body_meta(key: ApiKey, kind: ApiKind) -> &'static StructMeta {
    match kind {
        ApiKind::Request => key.request_meta(),
        ApiKind::Response => key.response_meta(),
    }
}

fn example(key: i16, version: Version, kind: ApiKind, minimal: bool) -> Result<String, Failure> {
    let k = api(key)?;
    let meta = body_meta(k, kind);
    if !meta.versions.contains(version) {
        return Err(Failure::msg(format!(
            "unsupported version {version} of {} (valid: {})",
            meta.name, meta.versions
        )));
    }
    let mut frame = dynamic::sample_frame(kind, key, meta, version);
    if minimal {
        frame.body = StructValue::default_of(meta);
    }
    let bytes = dynamic::encode_frame(&frame).map_err(|e| Failure {
        message: e.kind().to_string(),
        offset: None,
        path: Some(e.path().to_string()),
        hint: None,
    })?;
    Ok(hex_encode(&bytes))
}

// ---- hex ----------------------------------------------------------------------------------

fn hex_encode(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Hex to bytes: whitespace is ignored, a leading `0x` is allowed. Reads `text` in place
/// (no copy without the whitespace): the bytes are all a line costs beyond itself.
fn hex_decode(text: &str) -> Result<Bytes, Failure> {
    let mut digits = text.chars().filter(|c| !c.is_whitespace()).peekable();
    // A leading `0x` (after any whitespace) is not part of the frame.
    let mut skipped = 0;
    let mut probe = text.chars().filter(|c| !c.is_whitespace());
    if probe.next() == Some('0') && probe.next() == Some('x') {
        digits.next();
        digits.next();
        skipped = 2;
    }
    if digits.peek().is_none() {
        return Err(Failure::msg("empty input: expected a frame in hex"));
    }
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut high: Option<u8> = None;
    let mut count = 0usize;
    for (i, c) in digits.enumerate() {
        let Some(d) = c.to_digit(16).filter(|_| c.is_ascii_hexdigit()) else {
            return Err(Failure::msg(format!(
                "invalid hex: {c:?} at character {}",
                i + skipped
            )));
        };
        let d = d as u8;
        match high.take() {
            None => high = Some(d),
            Some(h) => out.push(h << 4 | d),
        }
        count += 1;
    }
    if high.is_some() {
        return Err(Failure::msg(format!(
            "invalid hex: odd number of digits ({count})"
        )));
    }
    Ok(Bytes::from(out))
}

fn read_stdin() -> Result<String, Failure> {
    let mut s = String::new();
    io::stdin()
        .read_to_string(&mut s)
        .map_err(|e| Failure::msg(format!("cannot read stdin: {e}")))?;
    Ok(s)
}

// ---- decode -------------------------------------------------------------------------------

/// Checks a frame, reporting its nodes to `sink` if given; keeps no body value.
fn walk_frame(
    bytes: &Bytes,
    target: Target,
    sink: Option<&mut dyn Sink>,
) -> Result<WalkedFrame, Failure> {
    if target.response {
        let (Some(key), Some(version)) = (target.api, target.version) else {
            return Err(Failure::msg(
                "a response frame needs --api KEY and --version V",
            ));
        };
        let k = api(key)?;
        let spec = BodySpec {
            api_key: key,
            meta: k.response_meta(),
            version,
        };
        return Ok(dynamic::walk_response_frame(bytes, spec, sink, &DecodeOptions::DEFAULT)?.frame);
    }
    let frame = dynamic::walk_request_frame(
        bytes,
        |key| ApiKey::from_i16(key).map(ApiKey::request_meta),
        sink,
        &DecodeOptions::DEFAULT,
    )
    .map(|d| d.frame)
    .map_err(|e| {
        let mut f = Failure::from(e);
        if target.api.is_none() && target.version.is_none() {
            f.hint = Some(response_hint(bytes));
        }
        f
    })?;
    if let Some(k) = target.api.filter(|k| *k != frame.spec.api_key) {
        return Err(Failure::msg(format!(
            "the frame is api key {}, not {k}",
            frame.spec.api_key
        )));
    }
    if let Some(v) = target.version.filter(|v| *v != frame.spec.version) {
        return Err(Failure::msg(format!(
            "the frame is version {}, not {v}",
            frame.spec.version
        )));
    }
    Ok(frame)
}

/// What to say when a frame given as a request does not decode: a response does not carry
/// its API or version, so it reads as a request whose header is the correlation id and the
/// first body bytes. A small frame is tried as the response of every declared API and
/// version, and the ones it decodes as are named.
fn response_hint(bytes: &Bytes) -> String {
    const TRY_UP_TO: usize = 64 * 1024;
    let generic = "a response? give --response --api KEY --version V, as a response does not say its API or version";
    if bytes.len() > TRY_UP_TO {
        return generic.to_owned();
    }
    let mut fits = Vec::new();
    for api in ApiKey::ALL {
        let meta = api.response_meta();
        for version in meta.versions.iter() {
            let spec = BodySpec {
                api_key: api.key(),
                meta,
                version,
            };
            if dynamic::walk_response_frame(bytes, spec, None, &DecodeOptions::DEFAULT).is_ok() {
                fits.push(format!("--api {} --version {version}", api.name()));
            }
        }
    }
    match fits.len() {
        0 => generic.to_owned(),
        1..=4 => format!(
            "it decodes as a response: --response {}",
            fits.join(", or --response ")
        ),
        n => format!(
            "{generic}; it decodes as the response of {n} API versions, e.g. {}",
            fits[0]
        ),
    }
}

fn kind_of(target: Target) -> ApiKind {
    if target.response {
        ApiKind::Response
    } else {
        ApiKind::Request
    }
}

/// A write to stdout failed: end as [`write_failed`] does.
fn io_failure(e: io::Error) -> Failure {
    write_failed(&e)
}

/// Decodes one frame and writes its JSON document to `out` (no newline). The frame is
/// checked whole first, so a frame that does not decode writes nothing; then the document
/// is written straight from the bytes, never held. Returns whether every record batch in
/// it read (a batch that did not is in the document, as `error` or `recordsError`).
fn decode_one(hex: &str, target: Target, out: &mut dyn Write) -> Result<bool, Failure> {
    let bytes = hex_decode(hex)?;
    let walked = walk_frame(&bytes, target, None)?;
    let mut all_read = true;
    let mut hook = |data: &Bytes, _at: usize, w: &mut dyn Write| {
        all_read &= records::write_json(data, w)?;
        Ok(())
    };
    match dynamic::write_frame_json(&bytes, &walked, kind_of(target), out, Some(&mut hook)) {
        Ok(()) => Ok(all_read),
        Err(WriteJsonError::Io(e)) => Err(io_failure(e)),
        Err(WriteJsonError::Decode(e)) => Err(e.into()),
    }
}

/// The frame decoded but a record batch in it did not read: a failure (exit code 1), after
/// the document that shows it.
fn batches_read(all_read: bool) -> Result<(), Failure> {
    if all_read {
        Ok(())
    } else {
        Err(Failure::msg(
            "a record batch in the frame did not read (see `error` / `recordsError`)",
        ))
    }
}

/// One batch line: `request|response KEY VERSION HEX`, or a bare `HEX` (a request). Whether
/// its record batches all read, as [`decode_one`].
fn decode_line(line: &str, _t: Target, out: &mut dyn Write) -> Result<bool, Failure> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        [hex] => decode_one(hex, Target::none(), out),
        [kind, key, version, hex] => {
            let response = match *kind {
                "request" => false,
                "response" => true,
                other => {
                    return Err(Failure::msg(format!(
                        "expected `request` or `response`, got {other:?}"
                    )))
                }
            };
            let key: i16 = parse_api(key).map_err(Failure::msg)?;
            let version: Version = version
                .parse()
                .map_err(|_| Failure::msg(format!("invalid version {version:?}")))?;
            decode_one(
                hex,
                Target {
                    response,
                    api: Some(key),
                    version: Some(version),
                },
                out,
            )
        }
        [] => Err(Failure::msg("empty line")),
        _ => Err(Failure::msg(
            "expected `request|response KEY VERSION HEX` or `HEX`",
        )),
    }
}

fn encode_line(text: &str) -> Result<String, Failure> {
    if text.trim().is_empty() {
        return Err(Failure::msg("empty line"));
    }
    let mut j = parse_json(text)?;
    records_to_base64(&mut j)?;
    let frame = frame_from_json(&j, |key, kind| {
        ApiKey::from_i16(key).map(|k| body_meta(k, kind))
    })?;
    let bytes = dynamic::encode_frame(&frame).map_err(|e| Failure {
        message: e.kind().to_string(),
        offset: None,
        path: Some(e.path().to_string()),
        hint: None,
    })?;
    Ok(hex_encode(&bytes))
}

/// Turns the `records` values of a document given in kwire's records JSON form into the
/// base64 bytes the library's JSON reader takes.
fn records_to_base64(j: &mut Json) -> Result<(), Failure> {
    let kind = match j.get("kind").and_then(Json::as_str) {
        Some("response") => ApiKind::Response,
        _ => ApiKind::Request,
    };
    let Some(key) = j.get("apiKey").and_then(Json::as_i64) else {
        return Ok(());
    };
    let Some(k) = i16::try_from(key).ok().and_then(ApiKey::from_i16) else {
        return Ok(());
    };
    if let Some(body) = j.get_mut("body") {
        records::encode_in(body_meta(k, kind), body, "body").map_err(Failure::msg)?;
    }
    Ok(())
}

/// Runs `f` on each stdin line; exactly one output line per input line. `f` writes its
/// output line (without the newline) or fails having written nothing.
/// Runs `f` on each line of stdin. `f` writes the line's output and returns whether the
/// line fully succeeded (a decoded frame whose record batch failed wrote its document but
/// did not); a line that failed or did not fully succeed makes the exit code 1.
fn batch(
    f: impl Fn(&str, Target, &mut dyn Write) -> Result<bool, Failure>,
    target: Target,
) -> ExitCode {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut ok = true;
    for line in stdin.lock().split(b'\n') {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                warn(&format!("kwire: error: cannot read stdin: {e}"));
                return ExitCode::FAILURE;
            }
        };
        // A line that is not UTF-8 is still one line, and an error.
        let text = String::from_utf8_lossy(&line);
        let text = text.strip_suffix('\r').unwrap_or(&text);
        let res = match f(text, target, &mut out) {
            Ok(all) => {
                ok &= all;
                writeln!(out)
            }
            Err(e) => {
                ok = false;
                writeln!(out, "{}", e.to_json())
            }
        };
        if let Err(e) = res {
            write_failed(&e);
        }
    }
    if let Err(e) = out.flush() {
        write_failed(&e);
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

// ---- dump ---------------------------------------------------------------------------------

/// Prints the tree of one frame, streaming: the frame is read twice (see [`dump::Dump`]) and
/// no tree is held.
fn dump(target: Target, hex: &str) -> ExitCode {
    let bytes = {
        let text = if hex == "-" {
            match read_stdin() {
                Ok(t) => t,
                Err(f) => {
                    warn(&format!("kwire: error: {}", f.line()));
                    return ExitCode::FAILURE;
                }
            }
        } else {
            hex.to_owned()
        };
        match hex_decode(&text) {
            Ok(b) => b,
            Err(f) => {
                warn(&format!("kwire: error: {}", f.line()));
                return ExitCode::FAILURE;
            }
        }
    };
    let kind = kind_of(target);
    let mut measure = dump::Dump::measure(kind).with_frame(&bytes);
    // The first pass's result is the same as the second's.
    let _ = walk_frame(&bytes, target, Some(&mut measure));
    let color =
        io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut print = dump::Dump::print(measure, &mut out, color);
    let res = walk_frame(&bytes, target, Some(&mut print));
    if let Some(e) = print.write_error() {
        write_failed(&e);
    }
    if let Err(e) = out.flush() {
        write_failed(&e);
    }
    drop(out);
    match res {
        Ok(_) => ExitCode::SUCCESS,
        Err(f) => {
            warn(&format!("kwire: error: {}", f.line()));
            ExitCode::FAILURE
        }
    }
}

// ---- proxy --------------------------------------------------------------------------------

fn proxy(args: ProxyArgs) -> Result<(), Failure> {
    use kwire::proxy::{Config, LogFormat, Proxy};
    let mut cfg = Config::new(args.listen, args.upstream);
    cfg.advertise = args.advertise;
    cfg.verify = args.verify || args.reencode;
    cfg.reencode = args.reencode;
    cfg.check_records = args.check_records;
    cfg.log_records = args.log_records;
    cfg.log = match args.log {
        None => LogFormat::None,
        Some(LogArg::Json) => LogFormat::Json,
        Some(LogArg::Summary) => LogFormat::Summary,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::msg(format!("cannot start the runtime: {e}")))?;
    let summary = runtime.block_on(async {
        let proxy = Proxy::start(cfg, Box::new(LogOut))
            .await
            .map_err(|e| Failure::msg(format!("cannot listen on {}: {e}", args.listen)))?;
        warn(&format!("kwire: proxy listening on {}", proxy.local_addr()));
        let duration = args.duration.map(std::time::Duration::from_secs_f64);
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminated() => {}
            _ = async {
                match duration {
                    Some(d) => tokio::time::sleep(d).await,
                    None => std::future::pending().await,
                }
            } => {}
        }
        Ok::<_, Failure>(proxy.stop())
    })?;
    runtime.shutdown_background();
    out!("{}", summary.table());
    for m in &summary.mismatches {
        outln!(
            "re-encoding differs: api {} v{} {:?}\n  original {}\n  ours     {}",
            m.api_key,
            m.version,
            m.direction,
            hex_encode(&m.original),
            hex_encode(&m.reencoded)
        );
    }
    for e in &summary.errors {
        outln!(
            "error: api {} v{} {:?}: {}\n  frame {}",
            e.api_key,
            e.version,
            e.direction,
            e.message,
            hex_encode(&e.frame)
        );
    }
    for e in &summary.connection_errors {
        outln!("connection: {e}");
    }
    if summary.log_dropped > 0 {
        outln!(
            "log: {} frame line(s) dropped (the output fell behind)",
            summary.log_dropped
        );
    }
    Ok(())
}

/// The proxy's log: stdout, whose reader going away ends the program as it does every
/// other command (quietly, status 141), instead of the log being lost in silence.
struct LogOut;

impl Write for LogOut {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        io::stdout().write(buf).map_err(|e| write_failed(&e))
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stdout().flush().map_err(|e| write_failed(&e))
    }
}

/// SIGTERM, where there is such a thing.
async fn terminated() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut s) = signal(SignalKind::terminate()) {
            s.recv().await;
            return;
        }
    }
    std::future::pending::<()>().await
}
