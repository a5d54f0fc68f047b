//! `cargo run -p xtask -- codegen`: regenerates `messages/src/generated/` and the features
//! section of `messages/Cargo.toml` from `schemas/kafka/`, and the runtime's error table
//! (`kafka-wire/src/error_code/table.rs`) from `schemas/kafka-errors-4.4.0.json`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn codegen() -> Result<usize, String> {
    let root = root();
    let out = xtask::generate(&root.join(xtask::SCHEMA_DIR))?;
    let dir = root.join(xtask::OUT_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // Files a previous run wrote that this one does not (a schema removed upstream).
    for entry in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if name.is_some_and(|n| (n.ends_with(".rs") || n.ends_with(".md")) && !out.contains_key(&n))
        {
            std::fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    for (name, text) in &out {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    // The runtime's error table.
    let table = xtask::generate_error_table(&root)?;
    let path = root.join(xtask::errors::ERRORS_RS);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(table.as_str()) {
        std::fs::write(&path, table).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    // The messages crate's features, one per area.
    let manifest = root.join(xtask::CARGO_TOML);
    let text =
        std::fs::read_to_string(&manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let updated = xtask::with_features(&text, &xtask::features_section())?;
    if updated != text {
        std::fs::write(&manifest, updated).map_err(|e| format!("{}: {e}", manifest.display()))?;
    }
    Ok(out.len())
}

fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("codegen") => match codegen() {
            Ok(n) => {
                println!("wrote {n} files to {}", xtask::OUT_DIR);
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("codegen: {e}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("usage: cargo run -p xtask -- codegen");
            ExitCode::from(2)
        }
    }
}
