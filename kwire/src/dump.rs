//! `kwire dump`'s printer: the object tree as aligned text, written row by row while the
//! frame is read, so that memory stays proportional to the nesting depth, not to the frame.
//!
//! A row shows a node's name, type, value, `[offset, size]` and description, and the columns
//! are as wide as their widest cell. A parent's row comes before its children, but its size
//! and value are only known once they have been read. So the frame is read twice:
//!
//! 1. [`Pass::Measure`] computes the column widths and, for each node that has children, the
//!    facts its row needs from later in the input: its size, whether it is its parent's last
//!    child (for the `|` guides), and its final name, type, value and error when they differ
//!    from what they were when its first child started (8 bytes per such node, plus the
//!    distinct texts).
//! 2. [`Pass::Print`] writes each row as soon as it can: a leaf when it closes, a parent when
//!    its first child opens.

use std::collections::HashMap;
use std::io::{self, Write};

use kafka_wire::dynamic::{self, Node, Sink};
use kafka_wire::{ApiKind, Bytes, ErrorCode, KafkaMessage, KafkaType, Reader, StructMeta};
use kafka_wire_messages::{ConsumerProtocolAssignment, ConsumerProtocolSubscription};

/// The longest description shown (longer ones end in `...`).
const ABOUT_MAX: usize = 75;

/// No text change recorded for a parent (see [`Slot`]).
const SAME: u32 = u32::MAX;

/// What the measuring pass learns about a node with children: its size (saturated to 31
/// bits), whether it is the last child (top bit), and the index of its final texts in
/// [`Measured::finals`] or [`SAME`].
#[derive(Clone, Copy, Default)]
struct Slot {
    size_last: u32,
    text: u32,
}

/// The parts of a row that can change after its first child starts.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Texts {
    name: String,
    ty: String,
    value: String,
    about: String,
    error: Option<String>,
}

impl Texts {
    fn of(n: &Node) -> Self {
        Texts {
            name: n.name.clone(),
            ty: n.ty.clone(),
            value: n.value.clone(),
            about: n.about.clone(),
            error: n.error.clone(),
        }
    }
}

/// The parts that changed (`None`: unchanged), so that the many parents whose only change
/// is the same value (`struct`, `3 elements`) share one entry.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
struct Changes {
    name: Option<String>,
    ty: Option<String>,
    value: Option<String>,
    about: Option<String>,
    error: Option<Option<String>>,
}

impl Changes {
    fn between(then: &Texts, now: Texts) -> Self {
        fn diff<T: PartialEq>(a: &T, b: T) -> Option<T> {
            (*a != b).then_some(b)
        }
        Changes {
            name: diff(&then.name, now.name),
            ty: diff(&then.ty, now.ty),
            value: diff(&then.value, now.value),
            about: diff(&then.about, now.about),
            error: diff(&then.error, now.error),
        }
    }

    fn apply(self, n: &mut Node) {
        if let Some(x) = self.name {
            n.name = x;
        }
        if let Some(x) = self.ty {
            n.ty = x;
        }
        if let Some(x) = self.value {
            n.value = x;
        }
        if let Some(x) = self.about {
            n.about = x;
        }
        if let Some(x) = self.error {
            n.error = x;
        }
    }
}

/// What the first pass hands the second.
#[derive(Default)]
struct Measured {
    slots: Vec<Slot>,
    finals: Vec<Changes>,
    widths: [usize; 4],
}

/// Which pass a [`Dump`] sink runs.
enum Pass<'w> {
    /// Measure widths and parents.
    Measure {
        /// What is learnt.
        out: Measured,
        /// Distinct final texts, to their index.
        seen: HashMap<Changes, u32>,
    },
    /// Print rows.
    Print {
        /// The first pass's results.
        measured: Measured,
        /// The next parent's slot.
        next: usize,
        /// Where rows go.
        w: &'w mut dyn Write,
        /// ANSI colours.
        color: bool,
        /// The first write error; nothing more is written after it.
        error: Option<io::Error>,
    },
}

struct Open {
    node: Node,
    /// The slot of a node whose first child has started.
    slot: Option<usize>,
    /// Its texts at that moment (measuring pass).
    snapshot: Option<Texts>,
    /// The slot of the last child closed, if that child had children (measuring pass).
    last_child: Option<Option<usize>>,
    /// The `|   ` guides for its children's rows (printing pass, once printed).
    cont: String,
    /// The last-child flag from the measuring pass (printing pass).
    last: bool,
}

/// A [`Sink`] that measures or prints a dump.
pub struct Dump<'w> {
    kind: ApiKind,
    stack: Vec<Open>,
    pass: Pass<'w>,
    /// The whole frame, to read the consumer protocol's payloads inside `bytes` fields.
    frame: Bytes,
    /// The last `ProtocolType` read (`None`: none yet, as in older responses).
    protocol_type: Option<String>,
}

impl<'w> Dump<'w> {
    /// The measuring pass of a request or response dump.
    pub fn measure(kind: ApiKind) -> Self {
        Dump {
            kind,
            stack: Vec::new(),
            pass: Pass::Measure {
                out: Measured::default(),
                seen: HashMap::new(),
            },
            frame: Bytes::new(),
            protocol_type: None,
        }
    }

    /// The frame being dumped (both passes), so that JoinGroup's protocol metadata and
    /// SyncGroup's assignments show as the consumer protocol's structs when they decode as
    /// such and the group's protocol type is `consumer` (or not given).
    pub fn with_frame(mut self, frame: &Bytes) -> Self {
        self.frame = frame.clone();
        self
    }

    /// The printing pass, after `measure`'s pass over the same frame.
    pub fn print(measure: Dump<'_>, w: &'w mut dyn Write, color: bool) -> Self {
        let measured = match measure.pass {
            Pass::Measure { out, .. } => out,
            Pass::Print { measured, .. } => measured,
        };
        Dump {
            kind: measure.kind,
            frame: measure.frame,
            protocol_type: None,
            stack: Vec::new(),
            pass: Pass::Print {
                measured,
                next: 0,
                w,
                color,
                error: None,
            },
        }
    }

    /// The first write error of the printing pass.
    pub fn write_error(self) -> Option<io::Error> {
        match self.pass {
            Pass::Print { error, .. } => error,
            Pass::Measure { .. } => None,
        }
    }

    /// Names and describes the header's nodes as the object trees do (snake_case names, the
    /// client id as `nullable_string`, the API's name after its key).
    fn decorate(&mut self, n: &mut Node) {
        // Error codes (every int16 field Kafka names `…ErrorCode`) other than 0 (none) get
        // Java's name beside the number: `3 (UNKNOWN_TOPIC_OR_PARTITION)`.
        if let Some(f) = n.field {
            if f.ty == KafkaType::Int16 && f.name.ends_with("ErrorCode") {
                if let Some(name) = n
                    .value
                    .parse::<i16>()
                    .ok()
                    .map(ErrorCode)
                    .filter(|e| e.is_error())
                    .and_then(ErrorCode::name)
                {
                    n.value = format!("{} ({name})", n.value);
                }
            }
        }
        let depth = self.stack.len();
        let parent = self.stack.last().map(|o| o.node.name.as_str());
        let api_name = self.stack.first().and_then(|r| {
            r.node
                .name
                .strip_suffix("Request")
                .or_else(|| r.node.name.strip_suffix("Response"))
                .map(str::to_owned)
        });
        if depth != 2 {
            return;
        }
        match parent {
            Some("Frame") => n.about = "number of bytes that follow".to_owned(),
            Some("RequestHeader" | "ResponseHeader") => {
                if let Some(f) = n.field {
                    n.name = f.rust_name.to_owned();
                }
                let about = match (n.name.as_str(), self.kind) {
                    ("request_api_key", _) => {
                        if let Some(a) = &api_name {
                            if !n.value.ends_with(')') {
                                n.value = format!("{} ({a})", n.value);
                            }
                        }
                        "numeric id of the API being invoked"
                    }
                    ("request_api_version", _) => "version of the API being invoked",
                    ("correlation_id", ApiKind::Request) => {
                        "echoed back by the broker in the response"
                    }
                    ("correlation_id", ApiKind::Response) => {
                        "matches the correlation_id of the request"
                    }
                    ("client_id", _) => {
                        n.ty = "nullable_string".to_owned();
                        "always a non-flexible int16-prefixed string"
                    }
                    ("tagged_fields", _) => "number of tagged fields in the header",
                    _ => return,
                };
                n.about = about.to_owned();
            }
            _ => {}
        }
    }

    /// The innermost open node gets its first child: a parent from now on.
    fn first_child(&mut self) {
        let Some(mut top) = self.stack.pop() else {
            return;
        };
        if top.slot.is_some() {
            self.stack.push(top);
            return;
        }
        self.decorate(&mut top.node);
        match &mut self.pass {
            Pass::Measure { out, .. } => {
                top.slot = Some(out.slots.len());
                out.slots.push(Slot::default());
                top.snapshot = Some(Texts::of(&top.node));
            }
            Pass::Print { measured, next, .. } => {
                let i = *next;
                *next += 1;
                top.slot = Some(i);
                let slot = measured.slots.get(i).copied().unwrap_or_default();
                if let Some(t) = measured.finals.get(slot.text as usize) {
                    t.clone().apply(&mut top.node);
                }
                top.node.size = (slot.size_last & !(1 << 31)) as usize;
                top.last = slot.size_last >> 31 == 1;
                let parent_cont = self.stack.last().map(|p| p.cont.as_str());
                top.cont = match parent_cont {
                    None => String::new(),
                    Some(c) => format!("{c}{}", if top.last { "    " } else { "|   " }),
                };
                self.row(&top.node);
            }
        }
        self.stack.push(top);
    }

    /// Writes (or measures) one row; the node's parents are on the stack.
    fn row(&mut self, n: &Node) {
        let depth = self.stack.len();
        let about: String = if n.about.chars().count() > ABOUT_MAX {
            format!("{}...", n.about.chars().take(ABOUT_MAX).collect::<String>())
        } else {
            n.about.clone()
        };
        let value = if n.value.is_empty() {
            String::new()
        } else {
            format!("= {}", n.value)
        };
        let span = format!("[0x{:04x}, {}B]", n.offset, n.size);
        match &mut self.pass {
            Pass::Measure { out, .. } => {
                let name_w = n.name.chars().count() + 4 * depth;
                for (w, c) in out.widths.iter_mut().zip([
                    name_w,
                    n.ty.chars().count(),
                    value.chars().count(),
                    span.chars().count(),
                ]) {
                    *w = (*w).max(c);
                }
            }
            Pass::Print {
                measured,
                w,
                color,
                error,
                ..
            } => {
                if error.is_some() {
                    return;
                }
                let name = match self.stack.last() {
                    None => n.name.clone(),
                    Some(p) => format!("{}+-- {}", p.cont, n.name),
                };
                let [wn, wt, wv, ws] = measured.widths.map(|x| x + 2);
                let color = *color;
                let mut line = String::new();
                line.push_str(&paint(&pad(&name, wn), "1", color));
                line.push_str(&paint(&pad(&n.ty, wt), "36", color));
                line.push_str(&paint(&pad(&value, wv), "32", color));
                line.push_str(&paint(&pad(&span, ws), "2", color));
                line.push_str(&paint(&about, "2", color));
                if let Some(e) = &n.error {
                    line.push_str(&paint(&format!("  <-- error: {e}"), "1;31", color));
                }
                let line = line.trim_end();
                if let Err(e) = w
                    .write_all(line.as_bytes())
                    .and_then(|()| w.write_all(b"\n"))
                {
                    *error = Some(e);
                }
            }
        }
    }
}

impl Sink for Dump<'_> {
    fn open(&mut self, node: Node) {
        self.first_child();
        self.stack.push(Open {
            node,
            slot: None,
            snapshot: None,
            last_child: None,
            cont: String::new(),
            last: false,
        });
    }

    fn top(&mut self) -> Option<&mut Node> {
        self.stack.last_mut().map(|o| &mut o.node)
    }

    fn close(&mut self, end: usize) {
        self.consumer_protocol(end);
        let Some(mut top) = self.stack.pop() else {
            return;
        };
        top.node.size = end.saturating_sub(top.node.offset);
        self.decorate(&mut top.node);
        let measuring = matches!(self.pass, Pass::Measure { .. });
        if measuring {
            // Its last child, if a parent, is now known to be the last one.
            if let (Some(Some(s)), Pass::Measure { out, .. }) = (top.last_child, &mut self.pass) {
                if let Some(slot) = out.slots.get_mut(s) {
                    slot.size_last |= 1 << 31;
                }
            }
            if let (Some(s), Pass::Measure { out, seen }) = (top.slot, &mut self.pass) {
                let now = Texts::of(&top.node);
                let changes = match &top.snapshot {
                    Some(then) => Changes::between(then, now),
                    None => Changes::default(),
                };
                let text = if changes == Changes::default() {
                    SAME
                } else {
                    let now = changes;
                    let next = out.finals.len() as u32;
                    let i = *seen.entry(now.clone()).or_insert(next);
                    if i == next {
                        out.finals.push(now);
                    }
                    i
                };
                if let Some(slot) = out.slots.get_mut(s) {
                    let size = u32::try_from(top.node.size).unwrap_or(u32::MAX) & !(1 << 31);
                    slot.size_last = (slot.size_last & (1 << 31)) | size;
                    slot.text = text;
                }
            }
            if let Some(p) = self.stack.last_mut() {
                p.last_child = Some(top.slot);
            }
            self.row(&top.node);
        } else if top.slot.is_none() {
            self.row(&top.node);
        }
    }

    fn fail(&mut self, end: usize, error: String) {
        if let Some(o) = self.stack.last_mut() {
            o.node.error = Some(error);
        }
        while !self.stack.is_empty() {
            self.close(end);
        }
    }

    fn records(&mut self, at: usize, data: &bytes::Bytes) {
        kwire::records::dump(self, at, data);
    }
}

impl Dump<'_> {
    /// Before the innermost node closes at `end`: a group protocol's `ProtocolType` is
    /// remembered; JoinGroup's `Metadata` and SyncGroup's `Assignment` bytes get the consumer
    /// protocol's version and struct as children when they decode as one, whole.
    fn consumer_protocol(&mut self, end: usize) {
        let Some(top) = self.stack.last() else {
            return;
        };
        let Some(f) = top.node.field else {
            return;
        };
        if f.name == "ProtocolType" {
            // Shown as `"consumer" (…)`, or `null`.
            self.protocol_type = top
                .node
                .value
                .strip_prefix('"')
                .and_then(|v| v.split('"').next())
                .map(str::to_owned);
            return;
        }
        let api = self
            .stack
            .first()
            .map(|o| o.node.name.as_str())
            .unwrap_or("");
        let meta: &'static StructMeta = match (f.name, api) {
            ("Metadata", "JoinGroupRequest" | "JoinGroupResponse") => {
                ConsumerProtocolSubscription::META
            }
            ("Assignment", "SyncGroupRequest" | "SyncGroupResponse") => {
                ConsumerProtocolAssignment::META
            }
            _ => return,
        };
        if f.ty != KafkaType::Bytes
            || self
                .protocol_type
                .as_deref()
                .is_some_and(|p| p != "consumer")
        {
            return;
        }
        let Some(value) = value_start(&self.frame, top.node.offset, end) else {
            return;
        };
        let body = self.frame.slice(value..end);
        let Some((version, _)) = payload_version(&body, meta) else {
            return;
        };
        // The struct, after its int16 version, with offsets in the frame.
        let mut v = Node::new("Version", "int16", value);
        v.value = version.to_string();
        v.about = "the consumer protocol's version (the payload is version-prefixed)".to_owned();
        self.open(v);
        self.close(value + 2);
        let mut n = Node::new(meta.name, "struct", value + 2);
        n.about = format!("the consumer protocol's {}, version {version}", meta.name);
        self.open(n);
        let rest = body.slice(2..);
        let mut r = Reader::new(&rest);
        let _ = dynamic::walk_from(
            meta,
            &mut r,
            version,
            Some(&mut Shift {
                inner: self,
                by: value + 2,
            }),
        );
        self.close(end);
    }
}

/// Where the value of a `bytes` field spanning `offset..end` of `frame` starts: after an
/// int32 length (classic) or a uvarint length + 1 (compact) that says exactly the rest.
fn value_start(frame: &Bytes, offset: usize, end: usize) -> Option<usize> {
    let field = frame.get(offset..end)?;
    let total = field.len();
    if total >= 4
        && i32::from_be_bytes([field[0], field[1], field[2], field[3]]) as i64 == total as i64 - 4
    {
        return Some(offset + 4);
    }
    let mut n: u64 = 0;
    for (i, b) in field.iter().take(5).enumerate() {
        n |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return (n == (total - i) as u64).then_some(offset + i + 1);
        }
    }
    None
}

/// The payload's version if it decodes whole as `meta` at it.
fn payload_version(body: &Bytes, meta: &'static StructMeta) -> Option<(i16, ())> {
    let version = i16::from_be_bytes([*body.first()?, *body.get(1)?]);
    if !meta.versions.contains(version) {
        return None;
    }
    let rest = body.slice(2..);
    let mut r = Reader::new(&rest);
    dynamic::walk_from(meta, &mut r, version, None).ok()?;
    r.is_empty().then_some((version, ()))
}

/// A sink that moves every offset by `by` (a payload read from its own start).
struct Shift<'a, 'w> {
    inner: &'a mut Dump<'w>,
    by: usize,
}

impl Sink for Shift<'_, '_> {
    fn open(&mut self, mut node: Node) {
        node.offset += self.by;
        self.inner.open(node);
    }
    fn top(&mut self) -> Option<&mut Node> {
        self.inner.top()
    }
    fn close(&mut self, end: usize) {
        self.inner.close(end + self.by);
    }
    fn fail(&mut self, end: usize, error: String) {
        if let Some(n) = self.inner.top() {
            n.error = Some(error);
        }
        self.inner.close(end + self.by);
    }
}

fn pad(s: &str, w: usize) -> String {
    let n = s.chars().count();
    format!("{s}{}", " ".repeat(w.saturating_sub(n)))
}

fn paint(s: &str, code: &str, color: bool) -> String {
    if color && !s.trim().is_empty() {
        format!("\x1b[{code}m{s}\x1b[0m")
    } else {
        s.to_owned()
    }
}
