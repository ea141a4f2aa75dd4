//! Every input the fuzzers ever broke mcp-gen with (`fuzz/regressions/<target>/`) goes through
//! the whole pipeline again, catalog and crate: each must compile or fail with an error
//! diagnostic, never panic, overflow the stack or hang, and never produce Rust that does not
//! parse or a tools.json the generated server cannot read.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcp_gen::{Input, Settings, generate};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_file()).collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

fn run(input: &Input, label: &str) {
    for catalog_only in [true, false] {
        let started = Instant::now();
        let settings = Settings::default().with_catalog_only(catalog_only).with_name("regression");
        match generate(input, &settings) {
            Ok(out) => {
                for d in &out.diagnostics.diagnostics {
                    assert_ne!(d.code, "internal", "{label}: {d}");
                }
                // The generated server reads tools.json with serde_json; so do clients.
                let parsed: Result<serde_json::Value, _> = serde_json::from_str(out.tools_json());
                assert!(parsed.is_ok(), "{label}: tools.json does not parse: {:?}", parsed.err());
            }
            Err(report) => {
                assert!(report.has_errors(), "{label}: failed without an error:\n{report}");
                for d in &report.diagnostics {
                    assert_ne!(d.code, "internal", "{label}: {d}");
                }
            }
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{label}: took {:?}", started.elapsed());
    }
}

#[test]
fn fuzz_findings_stay_fixed() {
    let base = repo().join("fuzz/regressions");
    let mut seen = 0;
    for path in files(&base.join("load_text")).into_iter().chain(files(&base.join("structured_openapi"))) {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        for name in ["spec.yaml", "spec.json"] {
            let input = Input::text(name, text.clone(), None);
            run(&input, &format!("{} as {name}", path.display()));
        }
        seen += 1;
    }
    // Overlay findings run against the overlay target's own spec.
    let target = std::fs::read_to_string(repo().join("fuzz/fuzz_targets/overlay.rs")).unwrap();
    let spec = target.split("r##\"").nth(1).and_then(|s| s.split("\"##").next()).expect("SPEC in overlay.rs");
    for path in files(&base.join("overlay")) {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        let input = Input::text("openapi.yaml", spec, Some(&text));
        run(&input, &path.display().to_string());
        seen += 1;
    }
    assert!(seen >= 4, "expected the recorded fuzz findings under fuzz/regressions/");
}
