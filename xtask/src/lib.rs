//! The generator of `messages/src/generated/`: reads Kafka's JSON message schemas
//! (`schemas/kafka/`) and writes one module per API (request and response together), one per
//! non-API schema, the crate's re-exports and the list of APIs that drives the dispatch.
//!
//! Every key of the schema format is handled on purpose (see [`Field`] and [`Schema`]); a key
//! this generator does not know is an error, so a new upstream key cannot slip through
//! unnoticed.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Map, Value};

pub mod errors;

/// The runtime's generated error table ([`errors::ERRORS_RS`]) from the error data file under
/// `root`, formatted with rustfmt.
pub fn generate_error_table(root: &Path) -> Result<String, Error> {
    let path = root.join(errors::ERRORS_JSON);
    let json = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    rustfmt(&errors::error_table_source(&json)?).map_err(|e| format!("{}: {e}", errors::ERRORS_RS))
}

/// The command that regenerates the checked-in files.
pub const REGENERATE: &str = "cargo run -p xtask -- codegen";

/// Where the generated files go, relative to the workspace root.
pub const OUT_DIR: &str = "messages/src/generated";

/// Where the schemas are, relative to the workspace root.
pub const SCHEMA_DIR: &str = "schemas/kafka";

/// Whether the derive's metadata-only attributes (`entity_type`, `map_key`, `zero_copy`,
/// `latest_version_unstable`) are written.
const METADATA_ATTRS: bool = true;

/// The modules of the four APIs the crate declared by hand before this generator: where one
/// of their nested struct names is also used by other APIs, the crate root keeps exporting
/// theirs, so existing code keeps compiling.
const LEGACY_MODULES: &[&str] = &[
    "add_partitions_to_txn",
    "api_versions",
    "initialize_share_group_state",
    "txn_offset_commit",
];

/// A generator error: which file, and what.
pub type Error = String;

/// Removes `//` comments outside strings: Kafka's schemas use them, JSON does not allow them.
pub fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let (mut in_str, mut escaped) = (false, false);
        let mut cut = line.len();
        let bytes = line.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if in_str {
                match b {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => in_str = false,
                    _ => {}
                }
            } else if b == b'"' {
                in_str = true;
            } else if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
                cut = i;
                break;
            }
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out
}

/// Kafka `PascalCase` (or `camelCase`) → Rust `snake_case`: `V3AndBelowTopics` →
/// `v3_and_below_topics`, `KRaftVersion` → `k_raft_version`.
pub fn snake_case(name: &str) -> String {
    let cs: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in cs.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = cs[i - 1];
            let next_lower = cs.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The derive's default Kafka name of a Rust field: `PascalCase` of the snake case name.
fn pascal_case(s: &str) -> String {
    let s = s.strip_prefix("r#").unwrap_or(s);
    s.split('_')
        .map(|p| {
            let mut cs = p.chars();
            cs.next()
                .map(|c| c.to_uppercase().collect::<String>() + cs.as_str())
                .unwrap_or_default()
        })
        .collect()
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "abstract", "become", "box", "do", "final", "gen", "macro", "override",
    "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// The Rust field name of a Kafka field: snake case, a raw identifier for a keyword (`Type` →
/// `r#type`, whose Kafka name the derive still reads as `Type`).
fn field_ident(kafka: &str) -> String {
    let s = snake_case(kafka);
    if KEYWORDS.contains(&s.as_str()) {
        format!("r#{s}")
    } else {
        s
    }
}

/// One parsed schema file.
#[derive(Debug, Clone)]
pub struct Schema {
    /// The file name (`FetchRequest.json`).
    pub file: String,
    /// `name`.
    pub name: String,
    /// `type`: `request`, `response`, `header` or `data`.
    pub kind: String,
    /// `apiKey`.
    pub api_key: Option<i16>,
    /// `validVersions`.
    pub valid_versions: String,
    /// `flexibleVersions` (`"none"` when absent, as Kafka reads it).
    pub flexible_versions: String,
    /// `latestVersionUnstable`.
    pub latest_version_unstable: bool,
    /// `listeners` (requests only).
    pub listeners: Vec<String>,
    /// `fields`.
    pub fields: Vec<Field>,
    /// `commonStructs`: name, versions, fields.
    pub common_structs: Vec<(String, String, Vec<Field>)>,
}

/// One field of a schema.
#[derive(Debug, Clone)]
pub struct Field {
    /// `name`.
    pub name: String,
    /// `type`: a primitive, a struct name, or `[]` and either.
    pub ty: String,
    /// `versions` (Kafka: defaults to `taggedVersions`).
    pub versions: Option<String>,
    /// `nullableVersions`.
    pub nullable_versions: Option<String>,
    /// `tag`.
    pub tag: Option<u32>,
    /// `taggedVersions`.
    pub tagged_versions: Option<String>,
    /// `default`, as text (Kafka reads numbers and booleans as their text).
    pub default: Option<String>,
    /// `ignorable`.
    pub ignorable: bool,
    /// `flexibleVersions` on a field (string and bytes only).
    pub flexible_versions: Option<String>,
    /// `mapKey`.
    pub map_key: bool,
    /// `entityType`.
    pub entity_type: Option<String>,
    /// `zeroCopy`.
    pub zero_copy: bool,
    /// `about`.
    pub about: String,
    /// `fields` of an inline struct.
    pub fields: Option<Vec<Field>>,
}

fn get_str(o: &Map<String, Value>, key: &str, file: &str) -> Result<Option<String>, Error> {
    match o.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(format!("{file}: {key} is not a string: {v}")),
    }
}

fn get_bool(o: &Map<String, Value>, key: &str, file: &str) -> Result<bool, Error> {
    match o.get(key) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(format!("{file}: {key} is not a boolean: {v}")),
    }
}

fn check_keys(o: &Map<String, Value>, known: &[&str], file: &str, what: &str) -> Result<(), Error> {
    for k in o.keys() {
        if !known.contains(&k.as_str()) {
            return Err(format!("{file}: {what}: unknown key {k:?}"));
        }
    }
    Ok(())
}

fn parse_fields(v: &Value, file: &str) -> Result<Vec<Field>, Error> {
    let arr = v
        .as_array()
        .ok_or_else(|| format!("{file}: fields is not an array"))?;
    arr.iter().map(|f| parse_field(f, file)).collect()
}

fn parse_field(v: &Value, file: &str) -> Result<Field, Error> {
    let o = v
        .as_object()
        .ok_or_else(|| format!("{file}: a field is not an object"))?;
    let name = get_str(o, "name", file)?.ok_or_else(|| format!("{file}: field without name"))?;
    let what = format!("field {name}");
    check_keys(
        o,
        &[
            "name",
            "type",
            "versions",
            "nullableVersions",
            "tag",
            "taggedVersions",
            "default",
            "ignorable",
            "flexibleVersions",
            "mapKey",
            "entityType",
            "zeroCopy",
            "about",
            "fields",
        ],
        file,
        &what,
    )?;
    let default = match o.get("default") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::Bool(b)) => Some(b.to_string()),
        Some(d) => return Err(format!("{file}: {what}: default {d}")),
    };
    let tag = match o.get("tag") {
        None => None,
        Some(t) => Some(
            t.as_u64()
                .and_then(|t| u32::try_from(t).ok())
                .ok_or_else(|| format!("{file}: {what}: tag {t}"))?,
        ),
    };
    Ok(Field {
        ty: get_str(o, "type", file)?.ok_or_else(|| format!("{file}: {what}: no type"))?,
        versions: get_str(o, "versions", file)?,
        nullable_versions: get_str(o, "nullableVersions", file)?,
        tag,
        tagged_versions: get_str(o, "taggedVersions", file)?,
        default,
        ignorable: get_bool(o, "ignorable", file)?,
        flexible_versions: get_str(o, "flexibleVersions", file)?,
        map_key: get_bool(o, "mapKey", file)?,
        entity_type: get_str(o, "entityType", file)?,
        zero_copy: get_bool(o, "zeroCopy", file)?,
        about: get_str(o, "about", file)?.unwrap_or_default(),
        fields: o.get("fields").map(|f| parse_fields(f, file)).transpose()?,
        name,
    })
}

/// Parses one schema file's text.
pub fn parse_schema(file: &str, text: &str) -> Result<Schema, Error> {
    let v: Value =
        serde_json::from_str(&strip_comments(text)).map_err(|e| format!("{file}: {e}"))?;
    let o = v
        .as_object()
        .ok_or_else(|| format!("{file}: not an object"))?;
    check_keys(
        o,
        &[
            "apiKey",
            "type",
            "listeners",
            "name",
            "validVersions",
            "flexibleVersions",
            "latestVersionUnstable",
            "fields",
            "commonStructs",
        ],
        file,
        "top level",
    )?;
    let mut common_structs = Vec::new();
    if let Some(cs) = o.get("commonStructs") {
        for c in cs
            .as_array()
            .ok_or_else(|| format!("{file}: commonStructs is not an array"))?
        {
            let co = c
                .as_object()
                .ok_or_else(|| format!("{file}: a common struct is not an object"))?;
            check_keys(co, &["name", "versions", "fields"], file, "common struct")?;
            common_structs.push((
                get_str(co, "name", file)?.unwrap_or_default(),
                get_str(co, "versions", file)?.unwrap_or_else(|| "0+".into()),
                parse_fields(co.get("fields").unwrap_or(&Value::Null), file)?,
            ));
        }
    }
    let listeners = match o.get("listeners") {
        None => Vec::new(),
        Some(l) => l
            .as_array()
            .ok_or_else(|| format!("{file}: listeners is not an array"))?
            .iter()
            .map(|x| x.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| format!("{file}: a listener is not a string"))?,
    };
    Ok(Schema {
        file: file.to_owned(),
        name: get_str(o, "name", file)?.ok_or_else(|| format!("{file}: no name"))?,
        kind: get_str(o, "type", file)?.ok_or_else(|| format!("{file}: no type"))?,
        api_key: o
            .get("apiKey")
            .map(|k| k.as_i64().and_then(|k| i16::try_from(k).ok()))
            .map(|k| k.ok_or_else(|| format!("{file}: bad apiKey")))
            .transpose()?,
        valid_versions: get_str(o, "validVersions", file)?
            .ok_or_else(|| format!("{file}: no validVersions"))?,
        flexible_versions: get_str(o, "flexibleVersions", file)?.unwrap_or_else(|| "none".into()),
        latest_version_unstable: get_bool(o, "latestVersionUnstable", file)?,
        listeners,
        fields: match o.get("fields") {
            Some(f) => parse_fields(f, file)?,
            None => Vec::new(),
        },
        common_structs,
    })
}

/// Reads every `*.json` schema in `dir`, in file name order.
pub fn read_schemas(dir: &Path) -> Result<Vec<Schema>, Error> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            parse_schema(&name, &text)
        })
        .collect()
}

/// The element type of a field type (`[]Foo` → `Foo`) and whether it is an array.
fn element(ty: &str) -> (&str, bool) {
    match ty.strip_prefix("[]") {
        Some(e) => (e, true),
        None => (ty, false),
    }
}

fn primitive(ty: &str) -> Option<&'static str> {
    Some(match ty {
        "bool" => "bool",
        "int8" => "i8",
        "int16" => "i16",
        "uint16" => "u16",
        "int32" => "i32",
        "uint32" => "u32",
        "int64" => "i64",
        "float64" => "f64",
        "string" => "Str",
        "bytes" => "Bytes",
        "records" => "Records",
        "uuid" => "Uuid",
        _ => return None,
    })
}

/// A struct to declare: its Kafka name, versions, fields, the message it belongs to and how
/// it is introduced (for its doc comment).
#[derive(Debug, Clone)]
struct StructDef {
    kafka_name: String,
    versions: String,
    fields: Vec<Field>,
    /// The top-level message (`FetchRequest`) that declares it.
    message: String,
    /// A doc line: where it comes from.
    origin: String,
}

/// Collects the nested structs of a message, depth first in declaration order, common
/// structs after the inline ones.
fn collect_structs(s: &Schema, out: &mut Vec<StructDef>) -> Result<(), Error> {
    fn walk(
        s: &Schema,
        parent: &str,
        fields: &[Field],
        out: &mut Vec<StructDef>,
    ) -> Result<(), Error> {
        for f in fields {
            let (elem, _) = element(&f.ty);
            if let Some(sub) = &f.fields {
                if primitive(elem).is_some() {
                    return Err(format!(
                        "{}: {}: fields on a primitive type",
                        s.file, f.name
                    ));
                }
                let versions = f
                    .versions
                    .clone()
                    .or_else(|| f.tagged_versions.clone())
                    .unwrap_or_default();
                out.push(StructDef {
                    kafka_name: elem.to_owned(),
                    versions,
                    fields: sub.clone(),
                    message: s.name.clone(),
                    origin: format!("`{}` of `{parent}`", f.name),
                });
                walk(s, elem, sub, out)?;
            } else if primitive(elem).is_none()
                && !s.common_structs.iter().any(|(n, _, _)| n == elem)
            {
                return Err(format!("{}: {}: unknown type {}", s.file, f.name, f.ty));
            }
        }
        Ok(())
    }
    walk(s, &s.name, &s.fields, out)?;
    for (name, versions, fields) in &s.common_structs {
        out.push(StructDef {
            kafka_name: name.clone(),
            versions: versions.clone(),
            fields: fields.clone(),
            message: s.name.clone(),
            origin: format!("a common struct of `{}`", s.name),
        });
        walk(s, name, fields, out)?;
    }
    Ok(())
}

/// One generated module: an API (request and response) or a non-API schema.
#[derive(Debug)]
struct Module {
    name: String,
    schemas: Vec<Schema>,
}

/// Everything the generator writes: file name (relative to [`OUT_DIR`]) → contents.
pub type Output = BTreeMap<String, String>;

/// Generates every file from the schemas in `dir`, formatted with rustfmt.
pub fn generate(dir: &Path) -> Result<Output, Error> {
    let schemas = read_schemas(dir)?;
    let raw = generate_unformatted(&schemas)?;
    raw.into_iter()
        .map(|(name, text)| {
            if !name.ends_with(".rs") {
                return Ok((name, text));
            }
            Ok((
                name.clone(),
                rustfmt(&text).map_err(|e| format!("{name}: {e}"))?,
            ))
        })
        .collect()
}

/// Formats Rust source with `rustfmt` (edition 2021, the workspace's), as `cargo fmt` would.
fn rustfmt(text: &str) -> Result<String, Error> {
    let mut child = Command::new(std::env::var("RUSTFMT").unwrap_or_else(|_| "rustfmt".into()))
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("running rustfmt: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("rustfmt: no stdin")?;
    let input = text.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("rustfmt: {e}"))?;
    writer
        .join()
        .map_err(|_| "rustfmt: writer panicked".to_owned())?
        .map_err(|e| format!("rustfmt: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "rustfmt failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("rustfmt: {e}"))
}

/// Generates every file, unformatted.
pub fn generate_unformatted(schemas: &[Schema]) -> Result<Output, Error> {
    // Group: one module per API key (request + response), one per data schema. Headers are
    // the runtime's (`RequestHeader`, `ResponseHeader`), APIs without versions are left out.
    let mut apis: BTreeMap<i16, Vec<Schema>> = BTreeMap::new();
    let mut data = Vec::new();
    let mut left_out = Vec::new();
    for s in schemas {
        match s.kind.as_str() {
            "request" | "response" => {
                let key = s.api_key.ok_or_else(|| format!("{}: no apiKey", s.file))?;
                if s.valid_versions == "none" {
                    left_out.push(s.clone());
                } else {
                    apis.entry(key).or_default().push(s.clone());
                }
            }
            "data" => data.push(s.clone()),
            "header" => {}
            other => return Err(format!("{}: unknown type {other}", s.file)),
        }
    }
    let mut modules = Vec::new();
    for (key, mut pair) in apis {
        pair.sort_by_key(|s| s.kind != "request");
        let [req, resp] = &pair[..] else {
            return Err(format!(
                "api key {key}: expected one request and one response"
            ));
        };
        if req.kind != "request" || resp.kind != "response" {
            return Err(format!(
                "api key {key}: expected one request and one response"
            ));
        }
        modules.push(Module {
            name: snake_case(api_name(req)),
            schemas: pair,
        });
    }
    for s in data {
        modules.push(Module {
            name: snake_case(&s.name),
            schemas: vec![s],
        });
    }

    let api_names: BTreeSet<String> = modules
        .iter()
        .filter(|m| m.schemas.len() == 2)
        .map(|m| api_name(&m.schemas[0]).to_owned())
        .collect();
    let data_names: BTreeSet<String> = modules
        .iter()
        .filter(|m| m.schemas.len() == 1)
        .map(|m| m.schemas[0].name.clone())
        .collect();
    check_area_tables(&api_names, &data_names)?;

    let mut out = Output::new();
    // Rust names of every module's structs, for the crate root's re-exports; then the
    // modules again, each nested struct the root does not re-export saying so.
    let mut exports: BTreeMap<String, Vec<(String, bool)>> = BTreeMap::new();
    for m in &modules {
        let (_, names) = module_source(m, &BTreeSet::new())?;
        for (n, top) in names {
            exports.entry(n).or_default().push((m.name.clone(), top));
        }
    }
    let not_at_root: BTreeSet<(String, String)> = exports
        .iter()
        .flat_map(|(name, owners)| {
            let root = root_module(owners);
            owners
                .iter()
                .filter(move |(m, _)| Some(m) != root)
                .map(move |(m, _)| (m.clone(), name.clone()))
        })
        .collect();
    for m in &modules {
        let (text, _) = module_source(m, &not_at_root)?;
        out.insert(format!("{}.rs", m.name), text);
    }
    out.insert("mod.rs".into(), mod_source(&modules, &exports, &left_out)?);
    out.insert("apis.rs".into(), apis_source(&modules)?);
    out.insert("shipped.rs".into(), shipped_source(&modules)?);
    out.insert("features.md".into(), features_doc(&modules)?);
    Ok(out)
}

/// One cargo feature of the messages crate that compiles a group of APIs in: a name a user
/// picks, and what it is for.
#[derive(Debug, Clone, Copy)]
pub struct Area {
    /// The feature's name.
    pub name: &'static str,
    /// What it is for (one line of the generated documentation).
    pub about: &'static str,
}

/// The areas, in the order the documentation lists them. Each API is in every area whose
/// rule picks it ([`areas_of`]); an API in several areas is compiled in by any of them.
pub const AREAS: &[Area] = &[
    Area {
        name: "producer",
        about: "what Java's producer (`clients/producer`) sends, idempotent and transactional, plus what every Java client sends (SASL, telemetry)",
    },
    Area {
        name: "consumer",
        about: "what Java's consumer (`clients/consumer`) sends in classic and consumer groups, plus what every Java client sends, and the consumer protocol's payloads",
    },
    Area {
        name: "admin",
        about: "what Java's admin client (`clients/admin`) sends, plus what every Java client sends, the APIs a broker forwards to the controller, and the consumer protocol's payloads",
    },
    Area {
        name: "txn",
        about: "transactions: the producer's, the coordinator's markers, the admin's listings, and the transaction control records",
    },
    Area {
        name: "share",
        about: "share groups (KIP-932): the share consumer's, the admin's and the share coordinator's APIs",
    },
    Area {
        name: "streams",
        about: "Kafka Streams groups (KIP-1071)",
    },
    Area {
        name: "raft",
        about: "the KRaft quorum's RPCs (Fetch included) and its control records",
    },
    Area {
        name: "cluster",
        about: "what brokers and controllers send each other: Java's cluster actions and the controller-only APIs",
    },
];

/// Features that only switch on other areas: (name, areas, what for).
pub const ALIASES: &[(&str, &[&str], &str)] = &[(
    "client",
    &["producer", "consumer"],
    "a producing and consuming client: `producer` and `consumer`",
)];

/// APIs compiled in whatever the features: ApiVersions is the handshake every peer starts
/// with, and version negotiation reads its response.
pub const CORE: &[&str] = &["ApiVersions"];

// The request builders each package of Java's client library references (Apache Kafka trunk,
// `clients/src/main/java/org/apache/kafka/clients/{producer,consumer,admin}`), and what every
// Java client sends through `NetworkClient` (ApiVersions), `SaslClientAuthenticator` and
// `ClientTelemetryReporter`. A name that is not an API of the schemas fails the generator.
const JAVA_PRODUCER: &[&str] = &[
    "AddOffsetsToTxn",
    "AddPartitionsToTxn",
    "EndTxn",
    "FindCoordinator",
    "InitProducerId",
    "Metadata",
    "Produce",
    "TxnOffsetCommit",
];
const JAVA_CONSUMER: &[&str] = &[
    "ConsumerGroupHeartbeat",
    "Fetch",
    "FindCoordinator",
    "Heartbeat",
    "JoinGroup",
    "LeaveGroup",
    "ListOffsets",
    "Metadata",
    "OffsetCommit",
    "OffsetFetch",
    "OffsetForLeaderEpoch",
    "ShareAcknowledge",
    "ShareFetch",
    "ShareGroupHeartbeat",
    "StreamsGroupHeartbeat",
    "StreamsGroupTopologyDescriptionUpdate",
    "SyncGroup",
];
const JAVA_ADMIN: &[&str] = &[
    "AddRaftVoter",
    "AlterClientQuotas",
    "AlterPartitionReassignments",
    "AlterReplicaLogDirs",
    "AlterShareGroupOffsets",
    "AlterUserScramCredentials",
    "ApiVersions",
    "ConsumerGroupDescribe",
    "CreateAcls",
    "CreateDelegationToken",
    "CreatePartitions",
    "CreateTopics",
    "DeleteAcls",
    "DeleteGroups",
    "DeleteRecords",
    "DeleteShareGroupOffsets",
    "DeleteTopics",
    "DescribeAcls",
    "DescribeClientQuotas",
    "DescribeCluster",
    "DescribeConfigs",
    "DescribeDelegationToken",
    "DescribeGroups",
    "DescribeLogDirs",
    "DescribeProducers",
    "DescribeQuorum",
    "DescribeShareGroupOffsets",
    "DescribeTopicPartitions",
    "DescribeTransactions",
    "DescribeUserScramCredentials",
    "ElectLeaders",
    "ExpireDelegationToken",
    "FindCoordinator",
    "IncrementalAlterConfigs",
    "InitProducerId",
    "LeaveGroup",
    "ListConfigResources",
    "ListGroups",
    "ListOffsets",
    "ListPartitionReassignments",
    "ListTransactions",
    "Metadata",
    "OffsetCommit",
    "OffsetDelete",
    "OffsetFetch",
    "RemoveRaftVoter",
    "RenewDelegationToken",
    "ShareGroupDescribe",
    "StreamsGroupDescribe",
    "UnregisterBroker",
    "UnregisterController",
    "UpdateFeatures",
    "WriteTxnMarkers",
];
const JAVA_EVERY_CLIENT: &[&str] = &[
    "ApiVersions",
    "SaslHandshake",
    "SaslAuthenticate",
    "GetTelemetrySubscriptions",
    "PushTelemetry",
];
// Java's `ApiKeys`: the APIs marked `clusterAction` (sent by brokers and controllers to each
// other) and those marked forwardable (a broker forwards them to the controller).
const JAVA_CLUSTER_ACTION: &[&str] = &[
    "WriteTxnMarkers",
    "Vote",
    "BeginQuorumEpoch",
    "EndQuorumEpoch",
    "DescribeQuorum",
    "AlterPartition",
    "UpdateFeatures",
    "Envelope",
    "BrokerRegistration",
    "BrokerHeartbeat",
    "AllocateProducerIds",
    "InitializeShareGroupState",
    "ReadShareGroupState",
    "WriteShareGroupState",
    "DeleteShareGroupState",
    "ReadShareGroupStateSummary",
];
const JAVA_FORWARDABLE: &[&str] = &[
    "CreateTopics",
    "DeleteTopics",
    "CreateAcls",
    "DeleteAcls",
    "AlterConfigs",
    "CreatePartitions",
    "CreateDelegationToken",
    "RenewDelegationToken",
    "ExpireDelegationToken",
    "ElectLeaders",
    "IncrementalAlterConfigs",
    "AlterPartitionReassignments",
    "ListPartitionReassignments",
    "AlterClientQuotas",
    "AlterUserScramCredentials",
    "DescribeQuorum",
    "UpdateFeatures",
    "UnregisterBroker",
    "AllocateProducerIds",
    "AddRaftVoter",
    "RemoveRaftVoter",
    "UnregisterController",
];
// The RPCs Kafka's Raft client (`raft/`: `KafkaRaftClient`) serves and sends.
const KRAFT_RPCS: &[&str] = &[
    "Vote",
    "BeginQuorumEpoch",
    "EndQuorumEpoch",
    "DescribeQuorum",
    "Fetch",
    "FetchSnapshot",
    "AddRaftVoter",
    "RemoveRaftVoter",
    "UpdateRaftVoter",
];
// The non-API schemas: which areas carry them.
const DATA_AREAS: &[(&str, &[&str])] = &[
    ("ConsumerProtocolSubscription", &["consumer", "admin"]),
    ("ConsumerProtocolAssignment", &["consumer", "admin"]),
    ("AbortedTxn", &["txn"]),
    ("EndTxnMarker", &["txn"]),
    ("ControlRecordTypeSchema", &["txn", "raft"]),
    ("LeaderChangeMessage", &["raft"]),
    ("SnapshotHeaderRecord", &["raft"]),
    ("SnapshotFooterRecord", &["raft"]),
    ("VotersRecord", &["raft"]),
    ("KRaftVersionRecord", &["raft"]),
    ("DefaultPrincipalData", &["cluster"]),
];

/// The areas of an API (by Kafka's name, with its request's `listeners`), in [`AREAS`]
/// order; empty for a [`CORE`] API.
pub fn areas_of(api: &str, listeners: &[String]) -> Vec<&'static str> {
    if CORE.contains(&api) {
        return Vec::new();
    }
    let share = api.contains("Share");
    let streams = api.starts_with("StreamsGroup");
    let every = JAVA_EVERY_CLIENT.contains(&api);
    let controller_only = listeners.iter().all(|l| l == "controller") && !listeners.is_empty();
    let cluster = JAVA_CLUSTER_ACTION.contains(&api);
    let picks = [
        ("producer", JAVA_PRODUCER.contains(&api) || every),
        (
            "consumer",
            (JAVA_CONSUMER.contains(&api) && !share && !streams) || every,
        ),
        (
            "admin",
            JAVA_ADMIN.contains(&api) || every || (JAVA_FORWARDABLE.contains(&api) && !cluster),
        ),
        (
            "txn",
            api.contains("Txn") || api.contains("Transaction") || api == "InitProducerId",
        ),
        ("share", share),
        ("streams", streams),
        ("raft", KRAFT_RPCS.contains(&api)),
        ("cluster", cluster || controller_only),
    ];
    picks
        .iter()
        .filter(|(_, on)| *on)
        .map(|(a, _)| *a)
        .collect()
}

/// Checks that every name the area tables use is an API or non-API schema of `modules`: a
/// table naming something Kafka removed or renamed must be updated, not ignored.
fn check_area_tables(apis: &BTreeSet<String>, data: &BTreeSet<String>) -> Result<(), Error> {
    let lists: [&[&str]; 9] = [
        CORE,
        SHARE_DATA_PATH,
        JAVA_PRODUCER,
        JAVA_CONSUMER,
        JAVA_ADMIN,
        JAVA_EVERY_CLIENT,
        JAVA_CLUSTER_ACTION,
        JAVA_FORWARDABLE,
        KRAFT_RPCS,
    ];
    for name in lists.iter().flat_map(|l| l.iter()) {
        if !apis.contains(*name) {
            return Err(format!("area tables: {name} is not an API of the schemas"));
        }
    }
    for (name, _) in DATA_AREAS {
        if !data.contains(*name) {
            return Err(format!("area tables: {name} is not a non-API schema"));
        }
    }
    Ok(())
}

/// The areas of a module; an error for a module in none (a new API or schema that no rule
/// places: add it to a table above).
fn module_areas(m: &Module) -> Result<Vec<&'static str>, Error> {
    let s = &m.schemas[0];
    if s.api_key.is_some() {
        let name = api_name(s);
        let areas = areas_of(name, &s.listeners);
        if areas.is_empty() && !CORE.contains(&name) {
            return Err(format!("{}: API {name} is in no feature area", s.file));
        }
        return Ok(areas);
    }
    DATA_AREAS
        .iter()
        .find(|(n, _)| *n == s.name)
        .map(|(_, a)| a.to_vec())
        .ok_or_else(|| format!("{}: {} is in no feature area", s.file, s.name))
}

/// The share-group APIs on the data path: the share consumer's own (its heartbeats, fetches
/// and acknowledgements) and the share coordinator's state RPCs behind each acknowledgement
/// and each newly consumed partition. The admin's share-group APIs (describe, alter and
/// delete offsets, describe groups) and what serves them (state summaries, state deletion)
/// are off it.
const SHARE_DATA_PATH: &[&str] = &[
    "ShareGroupHeartbeat",
    "ShareFetch",
    "ShareAcknowledge",
    "InitializeShareGroupState",
    "ReadShareGroupState",
    "WriteShareGroupState",
];

/// Whether a module's structs are declared `outline` (each field a call, not inlined): those
/// of APIs and schemas off the data path, that is, in neither `producer` nor `consumer`, not
/// one of [`SHARE_DATA_PATH`], and not core. It takes about a third off what LLVM optimises,
/// for about 1.7x the instructions to encode and 1.05-1.3x to decode those APIs; see
/// BENCHMARKS.md, *Twentieth wave — compile time*. `api` is the module's API name (`None`
/// for a non-API schema).
fn off_hot_path(api: Option<&str>, areas: &[&str]) -> bool {
    !areas.is_empty()
        && !areas.iter().any(|a| matches!(*a, "producer" | "consumer"))
        && !api.is_some_and(|a| SHARE_DATA_PATH.contains(&a))
}

/// The `cfg` attribute line of an item compiled in by `areas` (none for a core item).
fn cfg_line(areas: &[&str]) -> String {
    match areas {
        [] => String::new(),
        [one] => format!("#[cfg(feature = {one:?})]\n"),
        many => {
            let fs: Vec<String> = many.iter().map(|a| format!("feature = {a:?}")).collect();
            format!("#[cfg(any({}))]\n", fs.join(", "))
        }
    }
}

/// The negation of [`cfg_line`]'s predicate.
fn not_cfg_line(areas: &[&str]) -> String {
    match areas {
        [] => String::new(),
        [one] => format!("#[cfg(not(feature = {one:?}))]\n"),
        many => {
            let fs: Vec<String> = many.iter().map(|a| format!("feature = {a:?}")).collect();
            format!("#[cfg(not(any({})))]\n", fs.join(", "))
        }
    }
}

/// How the error for an API not compiled in names its features: `"admin" or "txn"`.
fn features_text(areas: &[&str]) -> String {
    let quoted: Vec<String> = areas.iter().map(|a| format!("`{a}`")).collect();
    quoted.join(" or ")
}

/// A version range of the schemas as a `VersionRange` expression.
fn range_expr(text: &str) -> Result<String, Error> {
    let t = text.trim();
    if t == "none" {
        return Ok("$crate::__private::VersionRange::NONE".into());
    }
    if let Some(min) = t.strip_suffix('+') {
        let min: i16 = min
            .parse()
            .map_err(|_| format!("bad version range {t:?}"))?;
        return Ok(format!("$crate::__private::VersionRange::at_least({min})"));
    }
    let (a, b) = t.split_once('-').unwrap_or((t, t));
    let a: i16 = a.parse().map_err(|_| format!("bad version range {t:?}"))?;
    let b: i16 = b.parse().map_err(|_| format!("bad version range {t:?}"))?;
    Ok(format!("$crate::__private::VersionRange::new({a}, {b})"))
}

/// Where the messages crate's manifest is, relative to the workspace root.
pub const CARGO_TOML: &str = "messages/Cargo.toml";
const FEATURES_BEGIN: &str = "# BEGIN features generated by `cargo run -p xtask -- codegen`";
const FEATURES_END: &str = "# END generated features";

/// The `[features]` section of the messages crate: one feature per area, the aliases, `all`
/// (every area) and `default = ["all"]`.
pub fn features_section() -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{FEATURES_BEGIN}; edit xtask/src/lib.rs (AREAS) instead."
    );
    out.push_str("[features]\n");
    out.push_str("# Every API, as before the areas existed.\ndefault = [\"all\"]\n");
    let all: Vec<String> = AREAS.iter().map(|a| format!("{:?}", a.name)).collect();
    let _ = writeln!(out, "all = [{}]", all.join(", "));
    for a in AREAS {
        let _ = writeln!(out, "# {}.", capitalize(a.about));
        let _ = writeln!(out, "{} = []", a.name);
    }
    for (name, on, about) in ALIASES {
        let on: Vec<String> = on.iter().map(|a| format!("{a:?}")).collect();
        let _ = writeln!(out, "# {}.", capitalize(about));
        let _ = writeln!(out, "{name} = [{}]", on.join(", "));
    }
    out.push_str(FEATURES_END);
    out.push('\n');
    out
}

/// `manifest` with its generated features section replaced by `section`.
pub fn with_features(manifest: &str, section: &str) -> Result<String, Error> {
    let start = manifest
        .find(FEATURES_BEGIN)
        .ok_or_else(|| format!("{CARGO_TOML}: no line {FEATURES_BEGIN:?}"))?;
    let end = manifest[start..]
        .find(FEATURES_END)
        .map(|e| start + e + FEATURES_END.len())
        .ok_or_else(|| format!("{CARGO_TOML}: no line {FEATURES_END:?}"))?;
    let end = if manifest[end..].starts_with('\n') {
        end + 1
    } else {
        end
    };
    Ok(format!(
        "{}{section}{}",
        &manifest[..start],
        &manifest[end..]
    ))
}

/// The documentation of the features (`features.md`, the crate's `features` module): each
/// area with its APIs, and each API with its areas.
fn features_doc(modules: &[Module]) -> Result<String, Error> {
    let mut src = String::new();
    src.push_str("<!-- @generated by `cargo run -p xtask -- codegen`; do not edit. -->\n");
    src.push_str("Cargo features: which APIs are compiled in.\n\n");
    src.push_str("Each feature compiles in the APIs of one area; an API in several areas is compiled in by any\n");
    src.push_str("of them. `all` (the default) is every area. With `default-features = false` and one area,\n");
    src.push_str("only its APIs' types are compiled; `ApiVersions` always is (every peer starts with it, and\n");
    src.push_str("version negotiation reads it).\n\n");
    src.push_str("[`ApiKey`](crate::ApiKey) names every API whatever the features, with its versions, flexible\n");
    src.push_str("versions, header versions and listeners; [`ApiKey::is_compiled`](crate::ApiKey::is_compiled)\n");
    src.push_str("says whether its types are there. [`RequestBody`](crate::RequestBody) and\n");
    src.push_str("[`ResponseBody`](crate::ResponseBody) have a variant per API compiled in. A frame of an API\n");
    src.push_str("that is not compiled in fails to decode with `DecodeErrorKind::ApiNotCompiled`, which names\n");
    src.push_str(
        "the features that would compile it, at the API key (requests) or the body (responses);\n",
    );
    src.push_str(
        "[`AnyRequest`](crate::AnyRequest) and [`AnyResponse`](crate::AnyResponse) keep it as\n",
    );
    src.push_str(
        "[`Opaque`](crate::Opaque) bytes, as for an API Kafka removed. `ApiKey::request_meta`,\n",
    );
    src.push_str("`response_meta` and the bodies' `default_for` exist when every API is compiled in (`all`);\n");
    src.push_str(
        "`try_request_meta`, `try_response_meta` and `try_default_for` work with any features.\n\n",
    );
    src.push_str("The areas are computed by the generator from Kafka's own data: the request builders that\n");
    src.push_str(
        "Java's producer, consumer and admin client packages use, Java's `ApiKeys` flags\n",
    );
    src.push_str("(`clusterAction`, forwardable), the schemas' `listeners`, the RPCs of Kafka's Raft client,\n");
    src.push_str("and the API families (`Share*`, `StreamsGroup*`, transactions).\n\n");
    src.push_str("| feature | what for | APIs and schemas |\n| --- | --- | ---: |\n");
    let mut per_area: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut rows = Vec::new();
    for m in modules {
        let areas = module_areas(m)?;
        let s = &m.schemas[0];
        let (label, key) = match s.api_key {
            Some(k) => (api_name(s).to_owned(), k.to_string()),
            None => (s.name.clone(), "-".to_owned()),
        };
        for a in &areas {
            per_area.entry(a).or_default().push(label.clone());
        }
        rows.push((s.api_key.unwrap_or(i16::MAX), label, key, areas));
    }
    for a in AREAS {
        let n = per_area.get(a.name).map_or(0, Vec::len) + CORE.len();
        let _ = writeln!(src, "| `{}` | {} | {n} |", a.name, a.about);
    }
    for (name, on, about) in ALIASES {
        let mut set = BTreeSet::new();
        for a in *on {
            set.extend(per_area.get(a).into_iter().flatten().cloned());
        }
        let _ = writeln!(src, "| `{name}` | {about} | {} |", set.len() + CORE.len());
    }
    let _ = writeln!(src, "| `all` | every area (default) | {} |", modules.len());
    src.push_str("\nThe counts are of what a feature alone compiles in: APIs and non-API schemas, ApiVersions\n");
    src.push_str("included. Every API and schema, with its features:\n\n");
    src.push_str("| key | API or schema | features |\n| ---: | --- | --- |\n");
    rows.sort();
    for (_, label, key, areas) in rows {
        let fs = if areas.is_empty() {
            "always".to_owned()
        } else {
            areas
                .iter()
                .map(|a| format!("`{a}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(src, "| {key} | {label} | {fs} |");
    }
    Ok(src)
}

/// `shipped.rs`: the list of shipped APIs as a chain of macros, one per run of consecutive
/// APIs compiled in by the same features. Each is declared twice, for its features on and
/// off, so the list is decided by this crate's features even where a user's `apis!` call
/// expands: a `cfg` in a macro's output would be read against the caller's features.
fn shipped_source(modules: &[Module]) -> Result<String, Error> {
    let mut runs: Vec<(Vec<&'static str>, Vec<&Module>)> = Vec::new();
    for m in modules {
        if m.schemas.len() != 2 {
            continue;
        }
        let areas = module_areas(m)?;
        match runs.last_mut() {
            Some((a, ms)) if *a == areas => ms.push(m),
            _ => runs.push((areas, vec![m])),
        }
    }
    let mut src = String::new();
    src.push_str(HEADER);
    src.push_str("//! The list of every API this crate ships, handed to `apis!` (by this crate's own call, and\n");
    src.push_str(
        "//! by `apis! { use shipped; ... }`) as what is compiled in and what is only known.\n",
    );
    src.push_str("//!\n");
    src.push_str("//! One macro per run of consecutive APIs with the same features, each declared twice (its\n");
    src.push_str("//! features on, its features off): a `cfg` in a macro's output would be read against the\n");
    src.push_str("//! features of the crate that calls it, so the choice is made here, where each is declared.\n\n");
    src.push_str(
        "/// Calls [`apis!`](crate::apis) with every API this crate ships, then the lines given\n",
    );
    src.push_str("/// (what `apis! { use shipped; ... }` expands to).\n");
    src.push_str("#[doc(hidden)]\n#[macro_export]\nmacro_rules! __shipped_apis {\n");
    src.push_str("    ($($rest:tt)*) => {\n        $crate::__shipped_apis_0! { [] [] [] $($rest)* }\n    };\n}\n");
    for (i, (areas, ms)) in runs.iter().enumerate() {
        let next = if i + 1 == runs.len() {
            "$crate::apis! { @shipped".to_owned()
        } else {
            format!("$crate::__shipped_apis_{}! {{", i + 1)
        };
        let mut keys = String::new();
        let mut compiled = String::new();
        let mut known = String::new();
        for m in ms {
            let (req, resp) = (&m.schemas[0], &m.schemas[1]);
            let name = api_name(req);
            let key = req.api_key.unwrap_or_default();
            let _ = writeln!(
                keys,
                "            /// {name} ({key}): listeners {}.\n            {name} = {key};",
                req.listeners.join(", ")
            );
            let _ = writeln!(
                compiled,
                "            {name} => $crate::{}, $crate::{};",
                req.name, resp.name
            );
            let unstable = if req.latest_version_unstable {
                let top = max_version(&req.valid_versions);
                format!("Some({top})")
            } else {
                "None".into()
            };
            let _ = writeln!(
                known,
                "            {name} => $crate::__private::ApiFacts::known({}, {}, {}, {}, {unstable}, {:?});",
                range_expr(&req.valid_versions)?,
                range_expr(&resp.valid_versions)?,
                range_expr(&req.flexible_versions)?,
                range_expr(&resp.flexible_versions)?,
                features_text(areas),
            );
        }
        let variants: [(String, &str, &str); 2] = [
            (cfg_line(areas), &compiled, ""),
            (not_cfg_line(areas), "", &known),
        ];
        for (j, (cfg, c, k)) in variants.iter().enumerate() {
            if areas.is_empty() && j == 1 {
                break;
            }
            src.push('\n');
            src.push_str(cfg);
            src.push_str("#[doc(hidden)]\n#[macro_export]\n");
            let _ = writeln!(src, "macro_rules! __shipped_apis_{i} {{");
            src.push_str(
                "    ([$($keys:tt)*] [$($compiled:tt)*] [$($known:tt)*] $($rest:tt)*) => {\n",
            );
            let _ = writeln!(src, "        {next}");
            src.push_str("            [$($keys)*\n");
            src.push_str(&keys);
            src.push_str("            ]\n            [$($compiled)*\n");
            src.push_str(c);
            src.push_str("            ]\n            [$($known)*\n");
            src.push_str(k);
            src.push_str("            ]\n            $($rest)*\n        }\n    };\n}\n");
        }
    }
    Ok(src)
}

/// The API's name: the request's name without `Request`.
fn api_name(req: &Schema) -> &str {
    req.name.strip_suffix("Request").unwrap_or(&req.name)
}

const HEADER: &str =
    "// @generated by `cargo run -p xtask -- codegen` from schemas/kafka/; do not edit.\n";

/// The source of one module, and the Rust names it declares (with whether each is a
/// top-level message).
fn module_source(
    m: &Module,
    not_at_root: &BTreeSet<(String, String)>,
) -> Result<(String, Vec<(String, bool)>), Error> {
    let mut src = String::new();
    src.push_str(HEADER);
    module_doc(m, &mut src);
    // Kafka's `about` texts are plain text, not Markdown: brackets and angle brackets in them
    // are not links or tags.
    src.push_str(
        "#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags, rustdoc::bare_urls)]\n",
    );
    if m.schemas.iter().any(has_empty_about) {
        // A field without `about` keeps an empty doc line, so its `about` stays empty.
        src.push_str("#![allow(clippy::empty_docs)]\n");
    }
    src.push('\n');

    // Nested structs of every message in the module; a Kafka name defined differently by the
    // request and the response gets the message's name as a prefix in Rust.
    let mut defs = Vec::new();
    for s in &m.schemas {
        collect_structs(s, &mut defs)?;
    }
    let mut by_name: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, d) in defs.iter().enumerate() {
        by_name.entry(d.kafka_name.clone()).or_default().push(i);
    }
    let top_names: BTreeSet<&str> = m.schemas.iter().map(|s| s.name.as_str()).collect();
    // Rust name per (message, Kafka name).
    let mut rust_names: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut emit = Vec::new();
    for (name, idx) in &by_name {
        let first = &defs[idx[0]];
        let same = idx.iter().all(|&i| {
            defs[i].versions == first.versions && fields_equal(&defs[i].fields, &first.fields)
        });
        let messages: BTreeSet<&str> = idx.iter().map(|&i| defs[i].message.as_str()).collect();
        if idx
            .iter()
            .any(|&i| defs[i].message == first.message && i != idx[0])
            && !same
        {
            return Err(format!(
                "{}: struct {name} declared twice, differently",
                first.message
            ));
        }
        if (same || messages.len() == 1) && !top_names.contains(name.as_str()) {
            for &i in idx {
                rust_names.insert((defs[i].message.clone(), name.clone()), name.clone());
            }
            emit.push((idx[0], name.clone(), None, messages.len() > 1));
        } else {
            for msg in messages {
                let i = idx
                    .iter()
                    .copied()
                    .find(|&i| defs[i].message == msg)
                    .unwrap_or(idx[0]);
                let rust = format!("{msg}{name}");
                rust_names.insert((msg.to_owned(), name.clone()), rust.clone());
                emit.push((i, rust, Some(name.clone()), false));
            }
        }
    }
    // Declaration order: as first met in the schemas.
    emit.sort_by_key(|e| e.0);

    let mut uses = BTreeSet::from(["KafkaMessage".to_owned()]);
    let mut body = String::new();
    let mut names = Vec::new();
    let api = m.schemas[0].api_key.map(|_| api_name(&m.schemas[0]));
    let outline = off_hot_path(api, &module_areas(m)?);
    for s in &m.schemas {
        let flexible = &s.flexible_versions;
        let mut attrs = Vec::new();
        if let Some(k) = s.api_key {
            attrs.push(format!("api_key = {k}"));
            attrs.push(s.kind.clone());
        }
        attrs.push(format!("versions = {:?}", s.valid_versions));
        attrs.push(format!("flexible = {flexible:?}"));
        if s.latest_version_unstable && METADATA_ATTRS {
            attrs.push("latest_version_unstable".into());
        }
        if outline {
            attrs.push("outline".into());
        }
        let doc = match s.api_key {
            Some(k) => format!(
                "The {} {} (API key {k}): Kafka's `{}`.",
                api_name_of(s),
                s.kind,
                s.file
            ),
            None => format!("Kafka's `{}`.", s.file),
        };
        let mut doc = vec![
            doc,
            String::new(),
            format!("Versions {}; flexible {flexible}.", s.valid_versions),
        ];
        if s.latest_version_unstable {
            doc.push(String::new());
            doc.push(format!(
                "Its latest version ({}) is unstable: still being designed, not offered by `ApiKey::usable_versions` unless asked.",
                max_version(&s.valid_versions)
            ));
        }
        write_struct(
            &mut body,
            &mut uses,
            &doc,
            &attrs,
            &s.name,
            &s.fields,
            &s.valid_versions,
            flexible,
            |t| lookup(&rust_names, &s.name, t),
        );
        names.push((s.name.clone(), true));
    }
    for (i, rust, kafka, shared) in emit {
        let d = &defs[i];
        let s = m
            .schemas
            .iter()
            .find(|s| s.name == d.message)
            .ok_or("no schema")?;
        let mut attrs = vec![
            format!("versions = {:?}", d.versions),
            format!("flexible = {:?}", s.flexible_versions),
        ];
        if let Some(k) = &kafka {
            attrs.push(format!("name = {k:?}"));
        }
        if outline {
            attrs.push("outline".into());
        }
        let mut doc = vec![format!(
            "{}{}, versions {} (flexible {}).",
            capitalize(&d.origin),
            if shared {
                format!(
                    " (and the same struct in `{}`)",
                    other_message(m, &d.message)
                )
            } else {
                String::new()
            },
            d.versions,
            s.flexible_versions
        )];
        if let Some(about) = about_of(s, &d.kafka_name) {
            if !about.is_empty() {
                doc.push(String::new());
                doc.push(about);
            }
        }
        if not_at_root.contains(&(m.name.clone(), rust.clone())) {
            doc.push(String::new());
            doc.push(format!(
                "Not re-exported at the crate root, where another API's struct has this name: `kafka_wire_messages::{}::{rust}`.",
                m.name
            ));
        }
        write_struct(
            &mut body,
            &mut uses,
            &doc,
            &attrs,
            &rust,
            &d.fields,
            &d.versions,
            &s.flexible_versions,
            |t| lookup(&rust_names, &d.message, t),
        );
        names.push((rust, false));
    }
    let uses: Vec<String> = uses.into_iter().collect();
    let _ = writeln!(src, "use kafka_wire::{{{}}};\n", uses.join(", "));
    src.push_str(&body);
    Ok((src, names))
}

fn has_empty_about(s: &Schema) -> bool {
    fn any(fields: &[Field]) -> bool {
        fields
            .iter()
            .any(|f| f.about.trim().is_empty() || f.fields.as_deref().is_some_and(any))
    }
    any(&s.fields) || s.common_structs.iter().any(|(_, _, f)| any(f))
}

fn api_name_of(s: &Schema) -> &str {
    s.name
        .strip_suffix("Request")
        .or_else(|| s.name.strip_suffix("Response"))
        .unwrap_or(&s.name)
}

fn other_message<'a>(m: &'a Module, msg: &str) -> &'a str {
    m.schemas
        .iter()
        .find(|s| s.name != msg)
        .map_or("", |s| s.name.as_str())
}

fn capitalize(s: &str) -> String {
    let mut cs = s.chars();
    match cs.next() {
        Some(c) => c.to_uppercase().collect::<String>() + cs.as_str(),
        None => String::new(),
    }
}

fn max_version(range: &str) -> &str {
    range.rsplit('-').next().unwrap_or(range)
}

/// The `about` of the (first) field that declares struct `name` inline, if any.
fn about_of(s: &Schema, name: &str) -> Option<String> {
    fn find(fields: &[Field], name: &str) -> Option<String> {
        for f in fields {
            if element(&f.ty).0 == name && f.fields.is_some() {
                return Some(f.about.clone());
            }
            if let Some(sub) = &f.fields {
                if let Some(a) = find(sub, name) {
                    return Some(a);
                }
            }
        }
        None
    }
    find(&s.fields, name).or_else(|| {
        s.common_structs
            .iter()
            .find_map(|(_, _, fs)| find(fs, name))
    })
}

fn lookup(names: &BTreeMap<(String, String), String>, message: &str, kafka: &str) -> String {
    names
        .get(&(message.to_owned(), kafka.to_owned()))
        .cloned()
        .unwrap_or_else(|| kafka.to_owned())
}

/// Whether two field lists declare the same thing (so one Rust struct serves both).
fn fields_equal(a: &[Field], b: &[Field]) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// The Rust type of a field.
fn rust_type(f: &Field, uses: &mut BTreeSet<String>, resolve: &dyn Fn(&str) -> String) -> String {
    let (elem, array) = element(&f.ty);
    let base = match primitive(elem) {
        Some(p) => {
            if matches!(p, "Str" | "Bytes" | "Records" | "Uuid") {
                uses.insert(p.to_owned());
            }
            p.to_owned()
        }
        None => resolve(elem),
    };
    // Arrays of fixed-width integers are kept as their wire bytes (no allocation, no
    // per-element work on decode); every other array is a `Vec`.
    let ty = if array
        && matches!(
            elem,
            "int8" | "int16" | "uint16" | "int32" | "uint32" | "int64"
        ) {
        uses.insert("FixedArray".to_owned());
        format!("FixedArray<{base}>")
    } else if array {
        format!("Vec<{base}>")
    } else {
        base
    };
    if f.nullable_versions.is_some() {
        format!("Option<{ty}>")
    } else {
        ty
    }
}

#[allow(clippy::too_many_arguments)]
fn write_struct(
    out: &mut String,
    uses: &mut BTreeSet<String>,
    doc: &[String],
    attrs: &[String],
    rust_name: &str,
    fields: &[Field],
    versions: &str,
    flexible: &str,
    resolve: impl Fn(&str) -> String,
) {
    for line in doc {
        write_doc(out, "", line);
    }
    out.push_str("#[derive(KafkaMessage, Debug, Clone, PartialEq)]\n");
    let _ = writeln!(out, "#[kafka({})]", attrs.join(", "));
    let _ = writeln!(out, "pub struct {rust_name} {{");
    for f in fields {
        write_doc(out, "    ", &f.about);
        out.push_str("    ///\n");
        write_doc(out, "    ", &field_versions_doc(f, versions));
        let mut a = Vec::new();
        if let Some(v) = &f.versions {
            a.push(format!("versions = {v:?}"));
        }
        if let Some(v) = &f.nullable_versions {
            a.push(format!("nullable = {v:?}"));
        }
        if let Some(t) = f.tag {
            a.push(format!("tag = {t}"));
        }
        if let Some(v) = &f.tagged_versions {
            a.push(format!("tagged = {v:?}"));
        }
        if let Some(v) = &f.default {
            a.push(format!("default = {v:?}"));
        }
        if f.ignorable {
            a.push("ignorable".into());
        }
        if let Some(v) = &f.flexible_versions {
            a.push(format!("flexible = {v:?}"));
        }
        let ident = field_ident(&f.name);
        if pascal_case(&ident) != f.name {
            a.push(format!("name = {:?}", f.name));
        }
        if METADATA_ATTRS {
            if let Some(e) = &f.entity_type {
                a.push(format!("entity_type = {e:?}"));
            }
            if f.map_key {
                a.push("map_key".into());
            }
            if f.zero_copy {
                a.push("zero_copy".into());
            }
        }
        let _ = writeln!(out, "    #[kafka({})]", a.join(", "));
        let _ = writeln!(out, "    pub {ident}: {},", rust_type(f, uses, &resolve));
    }
    if flexible != "none" {
        uses.insert("UnknownTaggedFields".into());
        out.push_str("    /// Tagged fields this struct does not declare.\n");
        out.push_str("    pub unknown_tagged_fields: UnknownTaggedFields,\n");
    }
    out.push_str("}\n\n");
    topic_accessors(out, rust_name, fields);
}

/// For a struct naming a topic by name in some versions and by id in others (Kafka's
/// `entityType: topicName` field and a `TopicId` uuid), `topic_ref` and `set_topic_ref`, which pick
/// the field the version has.
fn topic_accessors(out: &mut String, rust_name: &str, fields: &[Field]) {
    let name = fields
        .iter()
        .find(|f| f.entity_type.as_deref() == Some("topicName") && !element(&f.ty).1);
    let id = fields
        .iter()
        .find(|f| f.name == "TopicId" && f.ty == "uuid");
    let (Some(name), Some(id)) = (name, id) else {
        return;
    };
    let versions = |f: &Field| {
        f.versions
            .clone()
            .or_else(|| f.tagged_versions.clone())
            .unwrap_or_else(|| "none".into())
    };
    let (nv, iv) = (versions(name), versions(id));
    let (Ok(nr), Ok(ir)) = (range_expr(&nv), range_expr(&iv)) else {
        return;
    };
    let (nr, ir) = (
        nr.replace("$crate::", "crate::"),
        ir.replace("$crate::", "crate::"),
    );
    let (n, i) = (field_ident(&name.name), field_ident(&id.name));
    let (get, set) = if name.nullable_versions.is_some() {
        (
            format!("self.{n}.as_ref()"),
            format!("self.{n} = Some(name.clone());"),
        )
    } else {
        (
            format!("Some(&self.{n})"),
            format!("self.{n} = name.clone();"),
        )
    };
    let _ = writeln!(
        out,
        "impl {rust_name} {{\n\
         /// The topic as `version` names it: by `{i}` (versions {iv}) when the version has it and it is set, else by `{n}` (versions {nv}).\n\
         pub fn topic_ref(&self, version: kafka_wire::Version) -> Option<crate::TopicRef<'_>> {{\n\
         crate::TopicRef::pick(version, {nr}, {get}, {ir}, self.{i})\n}}\n\n\
         /// Names the topic as `version` does: sets `{n}` where the version has it (versions {nv}) and `{i}` where it has it (versions {iv}).\n\
         pub fn set_topic_ref(&mut self, version: kafka_wire::Version, name: &Str, id: Uuid) {{\n\
         if {nr}.contains(version) {{ {set} }}\n\
         if {ir}.contains(version) {{ self.{i} = id; }}\n}}\n}}\n"
    );
}

/// The bounds of a version range of the schemas (`"3+"`, `"1-4"`, `"2"`); `None` for `"none"`.
fn bounds(range: &str) -> Option<(i32, i32)> {
    if let Some(lo) = range.strip_suffix('+') {
        return Some((lo.parse().ok()?, i32::from(i16::MAX)));
    }
    match range.split_once('-') {
        Some((lo, hi)) => Some((lo.parse().ok()?, hi.parse().ok()?)),
        None => range.parse().ok().map(|v| (v, v)),
    }
}

/// A field's second doc paragraph: what its attributes say, from the same schema data (so
/// the two cannot disagree): `Versions 0-12; ignorable; entity type topicName.`. The derive
/// takes only the first paragraph as the field's `about`.
fn field_versions_doc(f: &Field, struct_versions: &str) -> String {
    let versions = f
        .versions
        .as_deref()
        .or(f.tagged_versions.as_deref())
        .unwrap_or("none");
    let mut parts = vec![format!("Versions {versions}")];
    if let Some(n) = &f.nullable_versions {
        parts.push(format!("nullable {n}"));
    }
    if let Some(t) = f.tag {
        parts.push(format!(
            "tag {t}, tagged {}",
            f.tagged_versions.as_deref().unwrap_or(versions)
        ));
    }
    if let Some(v) = &f.flexible_versions {
        parts.push(format!("flexible {v}"));
    }
    if let Some(d) = &f.default {
        parts.push(if d.is_empty() {
            "default \"\"".to_owned()
        } else {
            format!("default {d}")
        });
    }
    // Ignorability only matters where the field is absent from some version of its struct:
    // there a value other than the default is dropped (ignorable) or fails to encode.
    let everywhere = match (bounds(versions), bounds(struct_versions)) {
        (Some((flo, fhi)), Some((slo, shi))) => flo <= slo && fhi >= shi,
        _ => false,
    };
    if f.ignorable {
        parts.push("ignorable".into());
    } else if !everywhere && f.tag.is_none() {
        parts.push("not ignorable".into());
    }
    if f.map_key {
        parts.push("map key".into());
    }
    if let Some(e) = &f.entity_type {
        parts.push(format!("entity type {e}"));
    }
    format!("{}.", parts.join("; "))
}

/// A doc comment line; an empty `about` still gets a (blank) doc line, so every item is
/// documented, and the derive reads it as the empty `about` it is.
fn write_doc(out: &mut String, indent: &str, text: &str) {
    let text = text.trim_end();
    if text.is_empty() {
        let _ = writeln!(out, "{indent}///");
    } else {
        let _ = writeln!(out, "{indent}/// {text}");
    }
}

fn module_doc(m: &Module, src: &mut String) {
    let s = &m.schemas[0];
    match s.api_key {
        Some(k) => {
            let _ = writeln!(
                src,
                "//! {} (API key {k}): request and response.",
                api_name_of(s)
            );
            src.push_str("//!\n");
            let _ = writeln!(
                src,
                "//! Versions {}, flexible {}; listeners: {}.{}",
                s.valid_versions,
                s.flexible_versions,
                if s.listeners.is_empty() {
                    "none".to_owned()
                } else {
                    s.listeners.join(", ")
                },
                if s.latest_version_unstable {
                    format!(
                        " Version {} is unstable (not offered by `ApiKey::usable_versions` unless asked).",
                        max_version(&s.valid_versions)
                    )
                } else {
                    String::new()
                }
            );
        }
        None => {
            let _ = writeln!(src, "//! {}: a non-API schema.", s.name);
            src.push_str("//!\n");
            let _ = writeln!(
                src,
                "//! Versions {}, flexible {}.",
                s.valid_versions, s.flexible_versions
            );
        }
    }
    src.push_str("//!\n");
    let files: Vec<String> = m.schemas.iter().map(|s| format!("`{}`", s.file)).collect();
    let _ = writeln!(
        src,
        "//! Generated from Kafka's {} by `{REGENERATE}`.",
        files.join(" and ")
    );
}

/// The module whose struct of a name the crate root re-exports (`owners`: every module
/// declaring one, with whether it is a top-level message): the only one, or among several
/// the module that exported it before every API was declared; `None` otherwise.
fn root_module(owners: &[(String, bool)]) -> Option<&String> {
    if owners.len() == 1 {
        Some(&owners[0].0)
    } else {
        owners
            .iter()
            .find(|(m, _)| LEGACY_MODULES.contains(&m.as_str()))
            .map(|(m, _)| m)
    }
}

fn mod_source(
    modules: &[Module],
    exports: &BTreeMap<String, Vec<(String, bool)>>,
    left_out: &[Schema],
) -> Result<String, Error> {
    let mut src = String::new();
    src.push_str(HEADER);
    src.push_str("//! The declarations generated from Kafka's JSON schemas: one module per API (request and\n");
    src.push_str("//! response), one per non-API schema.\n//!\n");
    src.push_str("//! The crate root re-exports every message and every nested struct whose name is unique\n");
    src.push_str("//! across modules; a nested name that several APIs use (`PartitionData`, `TopicData`…) is\n");
    src.push_str(
        "//! reached through its API's module, except for the names the crate exported before it\n",
    );
    src.push_str("//! declared every API.\n//!\n");
    src.push_str("//! Left out: the request and response header (declared by the runtime, `kafka_wire`), and the\n");
    src.push_str("//! APIs whose `validVersions` is `\"none\"` (removed from Kafka, kept in its schemas only to\n");
    src.push_str("//! reserve their keys):");
    let mut none: Vec<String> = left_out
        .iter()
        .filter(|s| s.kind == "request")
        .map(|s| format!(" {} ({})", api_name_of(s), s.api_key.unwrap_or_default()))
        .collect();
    none.sort();
    src.push_str(&none.join(","));
    src.push_str(".\n//!\n");
    src.push_str("//! Each module is compiled in by the cargo features of its area (see `crate::features`).\n\n");
    src.push_str("mod shipped;\n\n");
    let mut cfgs = BTreeMap::new();
    for m in modules {
        let cfg = cfg_line(&module_areas(m)?);
        let _ = writeln!(src, "{cfg}pub mod {};", m.name);
        cfgs.insert(m.name.as_str(), cfg);
    }
    src.push('\n');
    let mut per_module: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (name, owners) in exports {
        if let Some(m) = root_module(owners) {
            per_module
                .entry(m.as_str())
                .or_default()
                .push(name.as_str());
        }
    }
    for (m, names) in per_module {
        let cfg = cfgs.get(m).cloned().unwrap_or_default();
        let _ = writeln!(src, "{cfg}pub use {m}::{{{}}};", names.join(", "));
    }
    Ok(src)
}

fn apis_source(modules: &[Module]) -> Result<String, Error> {
    let mut src = String::new();
    src.push_str(HEADER);
    src.push_str(
        "// This crate's own `apis!` call over the list of shipped APIs (`shipped.rs`), and the\n",
    );
    src.push_str(
        "// facts of each API the derive does not carry (its listeners, its features).\n\n",
    );
    // Named by path: the list is `macro_export`ed from a module of its own.
    src.push_str("crate::__shipped_apis! {}\n\n");
    src.push_str("impl ApiKey {\n");
    src.push_str("    /// The listeners that accept this API (Kafka's `listeners`).\n");
    src.push_str(
        "    pub const fn listeners(self) -> &'static [Listener] {\n        match self {\n",
    );
    let apis: Vec<&Schema> = modules
        .iter()
        .filter_map(|m| m.schemas.first().filter(|s| s.api_key.is_some()))
        .collect();
    for req in &apis {
        let ls: Vec<String> = req
            .listeners
            .iter()
            .map(|l| format!("Listener::{}", capitalize(l)))
            .collect();
        let _ = writeln!(
            src,
            "            ApiKey::{} => &[{}],",
            api_name(req),
            ls.join(", ")
        );
    }
    src.push_str("        }\n    }\n\n");
    src.push_str("    /// The cargo features that compile this API in (any one of them does); empty for an\n");
    src.push_str(
        "    /// API compiled in whatever the features (see the crate's `features` module).\n",
    );
    src.push_str(
        "    pub const fn features(self) -> &'static [&'static str] {\n        match self {\n",
    );
    for req in &apis {
        let fs: Vec<String> = areas_of(api_name(req), &req.listeners)
            .iter()
            .map(|a| format!("{a:?}"))
            .collect();
        let _ = writeln!(
            src,
            "            ApiKey::{} => &[{}],",
            api_name(req),
            fs.join(", ")
        );
    }
    src.push_str("        }\n    }\n}\n");
    Ok(src)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_inverts_the_derives_pascal_case() {
        for (k, r) in [
            ("V3AndBelowTopics", "v3_and_below_topics"),
            ("ResultsByTopicV3AndBelow", "results_by_topic_v3_and_below"),
            ("KRaftVersion", "k_raft_version"),
            ("validateOnly", "validate_only"),
            ("ProducerId", "producer_id"),
        ] {
            assert_eq!(snake_case(k), r);
        }
        assert_eq!(field_ident("Type"), "r#type");
        assert_eq!(pascal_case(&field_ident("Type")), "Type");
        // camelCase is not what the derive makes of the snake case: a `name` is needed.
        assert_ne!(pascal_case("validate_only"), "validateOnly");
    }

    #[test]
    fn unknown_keys_are_errors() {
        let e = parse_schema(
            "X.json",
            r#"{"type":"data","name":"X","validVersions":"0","flexibleVersions":"none",
                "fields":[{"name":"A","type":"int8","versions":"0+","newKey":1}]}"#,
        )
        .unwrap_err();
        assert!(e.contains("newKey"), "{e}");
    }
}
