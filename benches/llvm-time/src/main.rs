//! `llvm-time PROFILE.mm_profdata`: where LLVM's time went in one crate's build, from a
//! profile written by `rustc -Zself-profile -Zself-profile-events=default,llvm`.
//!
//! Every event's self time (its duration less its children's) is summed by LLVM pass and,
//! for the passes that run on a function (or on a loop, counted to the function holding it),
//! by the kind of that function, read from its method name: decode (`decode`, `read*`),
//! size (`*size*`), encode (`encode`, `write*`, `put*`), drop glue, other. Times are thread times summed over LLVM's
//! worker threads, and the profile itself slows the build (about a third here), so compare
//! two crates profiled the same way, not a profile with a plain build. rustc's own events
//! (queries, MIR passes, building the LLVM IR) are summed by label in a last table; it also
//! holds LLVM's analyses (`*Analysis`, `AAManager`, whose time the passes above do not
//! include) and, in `codegen_crate` and `finish_ongoing_codegen`, the main thread's waits
//! for LLVM's workers, which are not work.

use std::collections::HashMap;
use std::time::SystemTime;

struct Event {
    thread: u32,
    start: SystemTime,
    end: SystemTime,
    label: String,
    arg: String,
}

/// The name of the method or function itself: the last path segment of a demangled name,
/// after generic arguments and closure suffixes are taken off (`<T as Field>::read::<B>` and
/// `<T as Field>::read::{closure#0}` are both `read`).
fn method(name: &str) -> &str {
    let mut n = name;
    loop {
        if let Some(rest) = n.strip_suffix('>') {
            // Take off the generic arguments `::<...>` that end the name.
            let mut depth = 0usize;
            let mut cut = None;
            for (i, c) in rest.char_indices().rev() {
                match c {
                    '>' => depth += 1,
                    '<' if depth == 0 => {
                        cut = Some(i);
                        break;
                    }
                    '<' => depth -= 1,
                    _ => {}
                }
            }
            match cut {
                Some(i) => n = n[..i].trim_end_matches("::"),
                None => return n,
            }
        } else if let Some(i) = n.rfind("::{") {
            n = &n[..i];
        } else {
            break;
        }
    }
    n.rsplit("::").next().unwrap_or(n)
}

/// The kind of function a pass ran on, from its method name.
fn kind(name: &str) -> &'static str {
    let m = method(name).to_ascii_lowercase();
    if name.contains("drop_in_place") || m == "drop" {
        "drop glue"
    } else if m.contains("decode") || m.contains("read") {
        "decode (decode, read*)"
    } else if m.contains("size") {
        "size"
    } else if m.contains("encode") || m.contains("write") || m.starts_with("put") {
        "encode (encode, write*, put*)"
    } else {
        "other"
    }
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: llvm-time PROFILE.mm_profdata");
        std::process::exit(2);
    };
    let data = match analyzeme::ProfilingData::new(std::path::Path::new(&path)) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(1);
        }
    };
    let mut events = Vec::new();
    for ev in data.iter_full() {
        if let analyzeme::EventPayload::Timestamp(analyzeme::Timestamp::Interval { start, end }) =
            ev.payload
        {
            events.push(Event {
                thread: ev.thread_id,
                start,
                end,
                label: ev.label.to_string(),
                arg: ev
                    .additional_data
                    .last()
                    .map(|a| a.to_string())
                    .unwrap_or_default(),
            });
        }
    }
    // Per thread, outer events before the events they contain.
    events.sort_by(|a, b| {
        (a.thread, a.start, std::cmp::Reverse(a.end)).cmp(&(
            b.thread,
            b.start,
            std::cmp::Reverse(b.end),
        ))
    });
    let secs = |e: &Event| {
        e.end
            .duration_since(e.start)
            .map_or(0.0, |d| d.as_secs_f64())
    };
    let mut by_pass: HashMap<&str, f64> = HashMap::new();
    let mut by_kind: HashMap<&'static str, (f64, usize)> = HashMap::new();
    let mut functions: HashMap<&str, &'static str> = HashMap::new();
    let mut total = 0.0;
    // rustc's own work (queries, MIR, building the LLVM IR), by event label.
    let mut by_query: HashMap<&str, f64> = HashMap::new();
    let mut rustc_total = 0.0;
    // The open events: (index, time of their children so far).
    let mut stack: Vec<(usize, f64)> = Vec::new();
    let mut close = |stack: &mut Vec<(usize, f64)>| {
        let Some((i, children)) = stack.pop() else {
            return;
        };
        let e = &events[i];
        let own = (secs(e) - children).max(0.0);
        if let Some(parent) = stack.last_mut() {
            parent.1 += secs(e);
        }
        let llvm = e.label.contains("Pass") || e.label.starts_with("LLVM");
        if !llvm {
            rustc_total += own;
            *by_query.entry(e.label.as_str()).or_default() += own;
            return;
        }
        total += own;
        *by_pass.entry(e.label.as_str()).or_default() += own;
        // The function: this event's or the nearest enclosing pass's, skipping loops and
        // modules (codegen units).
        let function = std::iter::once(i)
            .chain(stack.iter().rev().map(|s| s.0))
            .map(|j| &events[j])
            .find(|x| {
                x.label.contains("Pass")
                    && !x.arg.is_empty()
                    && x.arg != "<unnamed loop>"
                    && !x.arg.contains("-cgu.")
            })
            .map(|x| x.arg.as_str());
        let k = function.map_or(
            "not in a function (module passes, ThinLTO, code emission)",
            kind,
        );
        if let Some(f) = function {
            functions.insert(f, k);
        }
        by_kind.entry(k).or_default().0 += own;
    };
    for i in 0..events.len() {
        while let Some(&(top, _)) = stack.last() {
            if events[top].thread != events[i].thread || events[top].end <= events[i].start {
                close(&mut stack);
            } else {
                break;
            }
        }
        stack.push((i, 0.0));
    }
    while !stack.is_empty() {
        close(&mut stack);
    }
    for k in functions.values() {
        by_kind.entry(k).or_default().1 += 1;
    }
    println!("LLVM self time, all threads: {total:.1} s");
    println!();
    println!("| kind of function | self time (s) | functions |");
    println!("| --- | ---: | ---: |");
    let mut kinds: Vec<_> = by_kind.into_iter().collect();
    kinds.sort_by(|a, b| b.1 .0.total_cmp(&a.1 .0));
    for (k, (t, n)) in kinds {
        // The time outside any function has no function count.
        let n = if n == 0 {
            "-".to_owned()
        } else {
            n.to_string()
        };
        println!("| {k} | {t:.1} | {n} |");
    }
    top_table("LLVM pass or phase", by_pass, 20);
    println!();
    println!("rustc's own self time (not LLVM), all threads: {rustc_total:.1} s");
    top_table("rustc query or activity", by_query, 15);
}

/// A table of the `n` largest self times of `times`, under a blank line.
fn top_table(what: &str, times: HashMap<&str, f64>, n: usize) {
    println!();
    println!("| {what} | self time (s) |");
    println!("| --- | ---: |");
    let mut rows: Vec<_> = times.into_iter().collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    for (label, t) in rows.into_iter().take(n) {
        println!("| {label} | {t:.2} |");
    }
}
