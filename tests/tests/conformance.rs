//! Every declared struct against its official JSON schema (the repository's copy of Apache
//! Kafka's schemas, `schemas/kafka/`), through the derive's metadata.
//!
//! Compared, recursively through inline and common structs: api key, request/response,
//! valid and flexible versions, struct names, and for every field its name and position,
//! type, versions, nullable versions, tag, tagged versions, default, ignorable, field-level
//! flexible versions, entity type, map key, zero copy and about text. A field missing on either side fails.

use std::path::PathBuf;

use kafka_wire::{
    ApiKind, FieldMeta, KafkaMessage, KafkaType, RequestHeader, ResponseHeader, StructMeta,
    VersionRange,
};
use kafka_wire_messages::*;
use serde_json::Value;

/// Removes `//` comments (outside strings), which Kafka's schemas use and JSON does not allow.
fn strip_comments(text: &str) -> String {
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

fn schema_dir() -> PathBuf {
    [env!("CARGO_MANIFEST_DIR"), "..", "schemas", "kafka"]
        .iter()
        .collect()
}

fn load(name: &str) -> Value {
    let path = schema_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&strip_comments(&text)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn range(v: Option<&Value>) -> VersionRange {
    match v {
        None => VersionRange::NONE,
        Some(Value::String(s)) => VersionRange::parse(s).unwrap(),
        Some(other) => panic!("version range is not a string: {other}"),
    }
}

/// A JSON default as Kafka's generator sees it: Jackson turns numbers and bools into text.
fn default_text(v: Option<&Value>) -> Option<String> {
    match v {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::Bool(b)) => Some(b.to_string()),
        Some(other) => panic!("unexpected default {other}"),
    }
}

struct Ctx<'a> {
    file: &'a str,
    common: &'a [Value],
    flexible: VersionRange,
    errors: Vec<String>,
}

impl Ctx<'_> {
    fn check<T: PartialEq + std::fmt::Debug>(&mut self, what: String, json: T, rust: T) {
        if json != rust {
            self.errors.push(format!(
                "{}: {what}: schema says {json:?}, declared {rust:?}",
                self.file
            ));
        }
    }

    /// Compares the fields of `meta` with the JSON `fields`, in order.
    fn fields(&mut self, path: &str, fields: &[Value], meta: &'static StructMeta) {
        let json_names: Vec<&str> = fields.iter().map(|f| f["name"].as_str().unwrap()).collect();
        let rust_names: Vec<&str> = meta.fields.iter().map(|f| f.name).collect();
        self.check(
            format!("{path}: field names in order"),
            json_names,
            rust_names,
        );
        for jf in fields {
            let name = jf["name"].as_str().unwrap();
            match meta.field(name) {
                Some(rf) => self.field(&format!("{path}.{name}"), jf, rf),
                None => self
                    .errors
                    .push(format!("{}: {path}.{name} is not declared", self.file)),
            }
        }
    }

    fn field(&mut self, path: &str, jf: &Value, rf: &'static FieldMeta) {
        let ty = jf["type"].as_str().unwrap();
        self.check(format!("{path}: type"), ty.to_owned(), rf.ty.to_string());
        let tagged = range(jf.get("taggedVersions"));
        // Kafka: versions defaults to taggedVersions.
        let versions = match jf.get("versions") {
            Some(v) => range(Some(v)),
            None => tagged,
        };
        self.check(format!("{path}: versions"), versions, rf.versions);
        self.check(
            format!("{path}: nullableVersions"),
            range(jf.get("nullableVersions")),
            rf.nullable,
        );
        self.check(
            format!("{path}: tag"),
            jf.get("tag").map(|t| t.as_u64().unwrap() as u32),
            rf.tag,
        );
        self.check(format!("{path}: taggedVersions"), tagged, rf.tagged);
        self.check(
            format!("{path}: default"),
            default_text(jf.get("default")),
            rf.default.map(str::to_owned),
        );
        self.check(
            format!("{path}: ignorable"),
            jf.get("ignorable")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            rf.ignorable,
        );
        self.check(
            format!("{path}: flexibleVersions"),
            jf.get("flexibleVersions").map(|v| range(Some(v))),
            rf.flexible,
        );
        self.check(
            format!("{path}: entityType"),
            jf.get("entityType").and_then(Value::as_str),
            rf.entity_type,
        );
        self.check(
            format!("{path}: mapKey"),
            jf.get("mapKey").and_then(Value::as_bool).unwrap_or(false),
            rf.map_key,
        );
        self.check(
            format!("{path}: zeroCopy"),
            jf.get("zeroCopy").and_then(Value::as_bool).unwrap_or(false),
            rf.zero_copy,
        );
        self.check(
            format!("{path}: about"),
            // Doc comments cannot end in a space; three of Kafka's texts do.
            jf["about"]
                .as_str()
                .unwrap_or_default()
                .trim_end()
                .to_owned(),
            rf.about.to_owned(),
        );

        // Struct-typed fields: inline (with "fields") or common (in commonStructs).
        let elem = ty.strip_prefix("[]").unwrap_or(ty);
        if !elem.starts_with(|c: char| c.is_ascii_uppercase()) {
            if jf.get("fields").is_some() {
                self.errors
                    .push(format!("{}: {path}: fields on a primitive type", self.file));
            }
            return;
        }
        let kt: &KafkaType = rf.ty.element().unwrap_or(&rf.ty);
        let Some(sm) = kt.as_struct() else {
            self.errors.push(format!(
                "{}: {path}: {ty} is not declared as a struct",
                self.file
            ));
            return;
        };
        self.check(format!("{path}: struct name"), elem, sm.name);
        let flexible = self.flexible;
        self.check(
            format!("{path}: {elem} flexible versions"),
            flexible,
            sm.flexible,
        );
        self.check(format!("{path}: {elem} api"), None, sm.api);
        let (struct_versions, fields) = match jf.get("fields") {
            // Inline struct: the declaring field's versions.
            Some(Value::Array(fs)) => (versions, fs.clone()),
            Some(other) => panic!("fields is not an array: {other}"),
            None => {
                let Some(common) = self.common.iter().find(|c| c["name"] == elem) else {
                    self.errors.push(format!(
                        "{}: {path}: {elem} is neither inline nor a common struct",
                        self.file
                    ));
                    return;
                };
                (
                    range(common.get("versions")),
                    common["fields"].as_array().unwrap().clone(),
                )
            }
        };
        self.check(
            format!("{path}: {elem} versions"),
            struct_versions,
            sm.versions,
        );
        self.fields(&format!("{path}<{elem}>"), &fields, sm);
    }
}

/// All differences between a schema file and a declared top-level struct.
fn compare(file: &str, meta: &'static StructMeta) -> Vec<String> {
    compare_json(file, &load(file), meta)
}

/// All differences between a parsed schema and a declared top-level struct.
fn compare_json(file: &str, json: &Value, meta: &'static StructMeta) -> Vec<String> {
    let common = json
        .get("commonStructs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut cx = Ctx {
        file,
        common: &common,
        flexible: range(json.get("flexibleVersions")),
        errors: Vec::new(),
    };
    cx.check("name".into(), json["name"].as_str().unwrap(), meta.name);
    cx.check(
        "validVersions".into(),
        range(json.get("validVersions")),
        meta.versions,
    );
    cx.check(
        "latestVersionUnstable".into(),
        json.get("latestVersionUnstable")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        meta.latest_version_unstable,
    );
    cx.check(
        "flexibleVersions".into(),
        range(json.get("flexibleVersions")),
        meta.flexible,
    );
    let api = match json["type"].as_str().unwrap() {
        "request" => Some((json["apiKey"].as_i64().unwrap() as i16, ApiKind::Request)),
        "response" => Some((json["apiKey"].as_i64().unwrap() as i16, ApiKind::Response)),
        "header" | "data" => None,
        other => panic!("type {other}"),
    };
    cx.check(
        "apiKey and type".into(),
        api,
        meta.api.map(|a| (a.key, a.kind)),
    );
    cx.fields(meta.name, json["fields"].as_array().unwrap(), meta);
    // Every common struct is used (so none was left out of the comparison).
    for c in &common {
        let name = c["name"].as_str().unwrap();
        let text = serde_json::to_string(&json["fields"]).unwrap()
            + &serde_json::to_string(&common).unwrap();
        assert!(
            text.matches(&format!("\"[]{name}\"")).count()
                + text.matches(&format!("\"{name}\"")).count()
                > 1,
            "{file}: common struct {name} unused"
        );
    }
    cx.errors
}

/// Every declared top-level struct and its schema file: both sides of every API, the
/// non-API schemas, the headers.
fn all() -> Vec<(String, &'static StructMeta)> {
    let mut all = Vec::new();
    for &k in ApiKey::ALL {
        all.push((format!("{}.json", k.request_meta().name), k.request_meta()));
        all.push((
            format!("{}.json", k.response_meta().name),
            k.response_meta(),
        ));
    }
    let data: [&'static StructMeta; 11] = [
        AbortedTxn::META,
        ConsumerProtocolAssignment::META,
        ConsumerProtocolSubscription::META,
        ControlRecordTypeSchema::META,
        DefaultPrincipalData::META,
        EndTxnMarker::META,
        KRaftVersionRecord::META,
        LeaderChangeMessage::META,
        SnapshotFooterRecord::META,
        SnapshotHeaderRecord::META,
        VotersRecord::META,
    ];
    for m in data
        .into_iter()
        .chain([RequestHeader::META, ResponseHeader::META])
    {
        all.push((format!("{}.json", m.name), m));
    }
    all
}

/// Every schema file is compared, except the APIs Kafka removed (`validVersions` "none"),
/// which are not declared.
#[test]
fn every_schema_file_is_compared() {
    let compared: Vec<String> = all().into_iter().map(|(f, _)| f).collect();
    let mut files: Vec<String> = std::fs::read_dir(schema_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 203);
    let mut left_out = Vec::new();
    for f in &files {
        if !compared.contains(f) {
            assert_eq!(load(f)["validVersions"], "none", "{f} is not compared");
            left_out.push(f.as_str());
        }
    }
    assert_eq!(left_out.len(), 8, "{left_out:?}");
    assert_eq!(compared.len(), 195);
}

#[test]
fn every_declared_struct_matches_its_schema() {
    let mut errors = Vec::new();
    for (file, meta) in all() {
        errors.extend(compare(&file, meta));
    }
    assert!(errors.is_empty(), "\n{}", errors.join("\n"));
}

#[test]
fn every_api_key_is_compared() {
    let compared: Vec<i16> = all()
        .iter()
        .filter_map(|(_, m)| m.api.map(|a| a.key))
        .collect();
    for &k in ApiKey::ALL {
        assert_eq!(compared.iter().filter(|&&c| c == k.key()).count(), 2, "{k}");
        // ApiKey's metadata is the very struct compared above.
        let (req, resp) = (k.request_meta(), k.response_meta());
        assert_eq!(req.name, compared_meta(k, ApiKind::Request).name);
        assert_eq!(req.api.map(|a| a.kind), Some(ApiKind::Request));
        assert_eq!(resp.name, compared_meta(k, ApiKind::Response).name);
        assert_eq!(resp.api.map(|a| a.kind), Some(ApiKind::Response));
    }
}

/// `ApiKey::listeners` and the unstable flag are the request schema's.
#[test]
fn listeners_and_unstable_versions_match_the_schemas() {
    for &k in ApiKey::ALL {
        let json = load(&format!("{}.json", k.request_meta().name));
        let listeners: Vec<String> = json["listeners"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_owned())
            .collect();
        let declared: Vec<String> = k
            .listeners()
            .iter()
            .map(|l| format!("{l:?}").to_lowercase())
            .collect();
        assert_eq!(declared, listeners, "{k}");
        assert_eq!(
            k.request_meta().latest_version_unstable,
            json["latestVersionUnstable"].as_bool().unwrap_or(false),
            "{k}"
        );
    }
}

fn compared_meta(k: ApiKey, kind: ApiKind) -> &'static StructMeta {
    all()
        .into_iter()
        .map(|(_, m)| m)
        .find(|m| m.api.is_some_and(|a| a.key == k.key() && a.kind == kind))
        .unwrap()
}

/// The comparison itself catches differences: a schema edited in memory must fail.
#[test]
fn a_changed_schema_is_caught() {
    let json = load("TxnOffsetCommitRequest.json");
    type Mutation = Box<dyn Fn(&mut Value)>;
    let mutations: Vec<(&str, Mutation)> = vec![
        (
            "validVersions",
            Box::new(|j| j["validVersions"] = "0-5".into()),
        ),
        (
            "nested versions",
            Box::new(|j| j["fields"][7]["fields"][0]["versions"] = "0+".into()),
        ),
        (
            "ignorable",
            Box::new(|j| j["fields"][7]["fields"][1]["ignorable"] = false.into()),
        ),
        (
            "default",
            Box::new(|j| j["fields"][4]["default"] = "0".into()),
        ),
        (
            "nullable",
            Box::new(|j| {
                j["fields"][7]["fields"][2]["fields"][3]
                    .as_object_mut()
                    .unwrap()
                    .remove("nullableVersions");
            }),
        ),
        (
            "missing field",
            Box::new(|j| {
                j["fields"].as_array_mut().unwrap().remove(5);
            }),
        ),
        (
            "tag",
            Box::new(|j| {
                j["fields"][5]["tag"] = 0.into();
                j["fields"][5]["taggedVersions"] = "3+".into();
            }),
        ),
        (
            "entityType",
            Box::new(|j| j["fields"][1]["entityType"] = "topicName".into()),
        ),
        (
            "mapKey",
            Box::new(|j| j["fields"][0]["mapKey"] = true.into()),
        ),
        (
            "zeroCopy",
            Box::new(|j| j["fields"][0]["zeroCopy"] = true.into()),
        ),
        (
            "latestVersionUnstable",
            Box::new(|j| j["latestVersionUnstable"] = true.into()),
        ),
    ];
    assert!(compare_json("original", &json, TxnOffsetCommitRequest::META).is_empty());
    for (what, mutate) in mutations {
        let mut j = json.clone();
        mutate(&mut j);
        let errors = compare_json(what, &j, TxnOffsetCommitRequest::META);
        assert!(!errors.is_empty(), "mutation {what} not caught");
    }
}

#[test]
fn comments_are_stripped_outside_strings_only() {
    let v: Value = serde_json::from_str(&strip_comments(
        "// head\n{ \"a\": \"x//y\", // tail\n \"b\": 1 }",
    ))
    .unwrap();
    assert_eq!(v["a"], "x//y");
    assert_eq!(v["b"], 1);
}
