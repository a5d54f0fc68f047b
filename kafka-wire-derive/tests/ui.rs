//! Compile-time diagnostics of `#[derive(KafkaMessage)]`: every misuse in `ui/fail` must fail
//! with the message and caret recorded in its `.stderr`; every file in `ui/pass` must build
//! and run.
//!
//! Regenerate with `TRYBUILD=overwrite cargo test -p kafkawire-derive --test ui` and review
//! the diff: the `.stderr` files are the derive's user interface.

use std::process::Command;

/// The compiler the `.stderr` files were recorded with. rustc's wording and layout drift
/// between releases, so on any other compiler the suite is skipped rather than failed (as
/// darling does); re-record with `TRYBUILD=overwrite` when moving to a new one.
const RECORDED_WITH: &str = "rustc 1.95.0 ";

fn rustc_version() -> Option<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc).arg("--version").output().ok()?;
    String::from_utf8(out.stdout).ok()
}

#[test]
fn ui() {
    match rustc_version() {
        Some(v) if v.starts_with(RECORDED_WITH) => {}
        other => {
            println!(
                "note: skipping the UI suite: it was recorded with {}, this is {}",
                RECORDED_WITH.trim(),
                other.as_deref().map_or("an unknown rustc", str::trim)
            );
            return;
        }
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
