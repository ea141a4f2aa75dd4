//! The pipeline is visible in the code: each module of `src/` imports only modules that come
//! before it in the order below (shared helpers first, then the stages in the order data flows
//! through them, then the checkers and front ends), so a stage never reaches forward into one
//! that runs after it. The test reads every `crate::<module>` path in `src/` (tests excluded).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The allowed order. A module may use the ones listed before it.
const ORDER: &[&str] = &[
    // Shared: diagnostics, parallel helpers, settings, text.
    "diag",
    "par",
    "settings",
    "text",
    // The stages, in pipeline order (DESIGN: load → resolve → overlay → plan → schema → lint →
    // emit → write), with the inputs of kept versions beside load and the standalone JSON Schema
    // loader after the schema stage whose normalisation it shares.
    "load",
    "versions",
    "resolve",
    "overlay",
    "overlay_reference",
    "plan",
    "schema",
    "json_schema",
    "tokens",
    "lint",
    "diff",
    "fidelity",
    "emit",
    "write",
    // Checks against a live upstream, from the compiled catalog.
    "verify",
    // Front ends.
    "build_support",
    "cli",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The `crate::<module>` paths of `text`, outside its tests and outside emitted code (`quote!`
/// writes paths of the generated crate, `crate::tools::ALL`).
fn uses(text: &str) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    let mut out = BTreeSet::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            let name: String = rest[i + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            out.insert(name);
            rest = &rest[i + 7..];
        }
    }
    out
}

#[test]
fn no_module_imports_a_later_stage() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut problems = Vec::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let module = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_owned();
        if module == "lib" || module == "main" {
            continue;
        }
        let Some(at) = ORDER.iter().position(|m| *m == module) else {
            problems.push(format!("src/{}: module `{module}` has no place in ORDER", rel.display()));
            continue;
        };
        for used in uses(&std::fs::read_to_string(&file).unwrap()) {
            // Items of the crate root (`crate::generate`) and paths in emitted code are not modules.
            let Some(pos) = ORDER.iter().position(|m| *m == used) else { continue };
            if pos > at {
                problems.push(format!("src/{}: `{module}` uses `{used}`, which comes after it", rel.display()));
            }
        }
    }
    assert!(problems.is_empty(), "imports against the pipeline order:\n{}", problems.join("\n"));
}

#[test]
fn the_order_names_every_module() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let declared: BTreeSet<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ").or_else(|| l.strip_prefix("mod ")))
        .map(|l| l.trim_end_matches(';'))
        .collect();
    let ordered: BTreeSet<&str> = ORDER.iter().copied().collect();
    assert_eq!(declared, ordered, "src/lib.rs's modules and ORDER differ");
}
