//! Finds the external tools the interop tests need, so that a test whose tool is missing is
//! reported as ignored, with the reason, instead of passing without checking anything. Under
//! `CI=true` nothing is ignored: the tests themselves fail when a tool is missing.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(kw_no_tshark)");
    println!("cargo::rustc-check-cfg=cfg(kw_no_kafka_python)");
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=KAFKA_WIRE_INTEROP_VENV");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        return;
    }
    let tshark = Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !tshark {
        println!("cargo::rustc-cfg=kw_no_tshark");
    }
    // The same path the tests use (see `tests/kafka_python.rs`).
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("..");
    let venv = std::env::var_os("KAFKA_WIRE_INTEROP_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/interop-venv"));
    let python = venv.join("bin/python");
    println!("cargo::rerun-if-changed={}", python.display());
    if !python.exists() {
        println!("cargo::rustc-cfg=kw_no_kafka_python");
    }
}
