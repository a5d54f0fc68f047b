//! The checked-in generated declarations, and the messages crate's features section, are what
//! the generator makes of the checked-in schemas: regenerated in memory and compared file by
//! file; so is the runtime's error table, from the error data file.

use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn generated_files_are_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let fresh = xtask::generate(&root.join(xtask::SCHEMA_DIR)).unwrap();
    let dir = root.join(xtask::OUT_DIR);
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".rs") || n.ends_with(".md"))
        .collect();
    let mut stale = Vec::new();
    for (name, text) in &fresh {
        if std::fs::read_to_string(dir.join(name)).ok().as_deref() != Some(text.as_str()) {
            stale.push(format!("{name} differs"));
        }
    }
    let manifest = std::fs::read_to_string(root.join(xtask::CARGO_TOML)).unwrap();
    match xtask::with_features(&manifest, &xtask::features_section()) {
        Ok(updated) if updated == manifest => {}
        Ok(_) => stale.push(format!("the features of {} differ", xtask::CARGO_TOML)),
        Err(e) => stale.push(e),
    }
    let table = xtask::generate_error_table(&root).unwrap();
    if std::fs::read_to_string(root.join(xtask::errors::ERRORS_RS)).ok() != Some(table) {
        stale.push(format!("{} differs", xtask::errors::ERRORS_RS));
    }
    for name in on_disk {
        if !fresh.contains_key(&name) {
            stale.push(format!("{name} is not generated any more"));
        }
    }
    assert!(
        stale.is_empty(),
        "generated files are out of date ({}); regenerate with `{}`",
        stale.join(", "),
        xtask::REGENERATE
    );
}
