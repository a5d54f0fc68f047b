//! The only `unsafe` in the workspace is the fused CRC-32C copy of `records` on x86-64
//! (`kafka-wire/src/records/fused.rs`: calls to `#[target_feature]` functions after the CPU
//! check), plus the one counting global allocator of the test suites, benchmarks' tests and
//! fuzz targets (`tests/counting-alloc`: a `GlobalAlloc` is an `unsafe impl`; not part of any
//! published library). This test
//! reads every `.rs` file of the repository and fails if `unsafe` or a relaxed `unsafe_code`
//! lint appears anywhere else, so that a new `#[allow(unsafe_code)]` cannot slip past the
//! crate's `deny`.

use std::fs;
use std::path::{Path, PathBuf};

/// The one library file allowed to hold `unsafe` and `#[allow(unsafe_code)]`.
const FUSED: &str = "kafka-wire/src/records/fused.rs";

/// The test suites' counting allocator, which implements `GlobalAlloc` (an `unsafe impl`
/// that forwards to `System`). It may hold `unsafe`, not an `unsafe_code` allow.
const ALLOCATORS: &[&str] = &["tests/counting-alloc/src/lib.rs"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

fn ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `code` uses the keyword `kw`: as a word, followed by a block, `fn`, `impl`,
/// `trait`, `extern` or an attribute's parenthesis.
fn uses_keyword(code: &str, kw: &str) -> bool {
    code.match_indices(kw).any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let rest = &code[i + kw.len()..];
        if before.is_some_and(ident) || rest.chars().next().is_some_and(ident) {
            return false;
        }
        let rest = rest.trim_start();
        rest.starts_with(['{', '('])
            || ["fn", "impl", "trait", "extern"].iter().any(|w| {
                rest.strip_prefix(w)
                    .is_some_and(|r| !r.chars().next().is_some_and(ident))
            })
    })
}

/// The `unsafe` uses and relaxed `unsafe_code` lints in `text` (line comments removed), each
/// as (line number, line).
type Lines = Vec<(usize, String)>;
fn findings(text: &str) -> (Lines, Lines) {
    // Built at run time, so that this file does not match itself.
    let kw = format!("{}safe", "un");
    let relaxed = ["allow", "expect", "warn"].map(|l| format!("{l}({kw}_code"));
    let (mut unsafe_uses, mut allows) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        if uses_keyword(code, &kw) {
            unsafe_uses.push((i + 1, line.to_owned()));
        }
        let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
        if relaxed.iter().any(|r| squeezed.contains(r.as_str())) {
            allows.push((i + 1, line.to_owned()));
        }
    }
    (unsafe_uses, allows)
}

#[test]
fn unsafe_only_in_the_fused_crc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root");
    let mut files = Vec::new();
    rust_files(root, &mut files);
    assert!(files.len() > 50, "only {} .rs files found", files.len());
    let mut bad = Vec::new();
    let mut fused_has_unsafe = false;
    for path in &files {
        let rel = path
            .strip_prefix(root)
            .expect("under the root")
            .to_string_lossy()
            .replace('\\', "/");
        let text = fs::read_to_string(path).expect("readable source");
        let (uses, allows) = findings(&text);
        if rel == FUSED {
            fused_has_unsafe = !uses.is_empty();
            continue;
        }
        if !ALLOCATORS.contains(&rel.as_str()) {
            bad.extend(uses.into_iter().map(|(n, l)| format!("{rel}:{n}: {l}")));
        }
        bad.extend(allows.into_iter().map(|(n, l)| format!("{rel}:{n}: {l}")));
    }
    assert!(
        bad.is_empty(),
        "`unsafe` outside {FUSED}:\n{}",
        bad.join("\n")
    );
    // The scan itself works: it sees the blocks that are there.
    assert!(fused_has_unsafe, "no `unsafe` found in {FUSED}");
}

#[test]
fn every_other_build_forbids_unsafe() {
    let lib: String = include_str!("../src/lib.rs")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let lint = format!("{}safe_code", "un");
    // The fused path is compiled in only with the feature `fused-crc` on x86-64; every
    // other build forbids `unsafe`.
    let fused = "all(feature=\"fused-crc\",target_arch=\"x86_64\")";
    let forbid = format!("#![cfg_attr(not({fused}),forbid({lint}))]");
    let deny = format!("#![cfg_attr({fused},deny({lint}))]");
    assert!(lib.contains(&forbid), "lib.rs lacks {forbid}");
    assert!(lib.contains(&deny), "lib.rs lacks {deny}");
    assert!(lib.contains("clippy::undocumented_unsafe_blocks"));
    assert!(lib.contains("clippy::multiple_unsafe_ops_per_block"));
}

#[test]
fn the_scan_sees_each_form() {
    let kw = format!("{}safe", "un");
    for src in [
        format!("    {kw} {{ f() }}"),
        format!("{kw} fn f() {{}}"),
        format!("{kw} impl Send for X {{}}"),
        format!("#[{kw}(no_mangle)]"),
        format!("{kw} extern \"C\" {{}}"),
        format!("#[allow({kw}_code)]"),
    ] {
        let (u, a) = findings(&src);
        assert!(!u.is_empty() || !a.is_empty(), "{src}");
    }
    // Prose and comments are not code.
    let (u, a) = findings(&format!(
        "/// an {kw} downgrade\n// {kw} {{ }}\nlet x = \"{kw}\";"
    ));
    assert!(u.is_empty() && a.is_empty());
}
