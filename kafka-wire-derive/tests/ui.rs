//! Compile-time diagnostics of `#[derive(KafkaMessage)]`: every misuse in `ui/fail` must fail
//! with the message and caret recorded in its `.stderr`; every file in `ui/pass` must build
//! and run.
//!
//! Regenerate with `TRYBUILD=overwrite cargo test -p kafkawire-derive --test ui` and review
//! the diff: the `.stderr` files are the derive's user interface.

use std::process::Command;

/// The compiler the `.stderr` files were recorded with. rustc's wording and layout drift
/// between releases, so locally, on any other compiler, the suite is skipped (as darling
/// does) with a note; under `CI=true` that is a failure instead, so CI cannot pass without
/// having checked the diagnostics. Re-record with `TRYBUILD=overwrite` when moving to a new
/// compiler.
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
            let other = other.as_deref().map_or("an unknown rustc", str::trim);
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!(
                    "the UI suite was recorded with {}, this is {other}: re-record it with \
                     TRYBUILD=overwrite, or run CI on the recorded compiler",
                    RECORDED_WITH.trim()
                );
            }
            println!(
                "note: skipping the UI suite: it was recorded with {}, this is {}",
                RECORDED_WITH.trim(),
                other
            );
            return;
        }
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
