//! Shared by every target: run the whole pipeline and check the few invariants that hold for
//! any input. A panic anywhere (or a hang, caught by libFuzzer's -timeout) is a finding.

#![allow(dead_code)]

use mcp_gen::{Input, Settings, SourceInput, generate};

pub fn text(name: &str, text: &str) -> SourceInput {
    SourceInput::Text { name: name.to_owned(), text: text.to_owned() }
}

/// Internal errors already diagnosed (see fuzz/regressions/ and README.md), skipped so that the
/// fuzzer keeps looking for new ones. Set FUZZ_STRICT=1 to fail on them again (e.g. to check a fix).
const KNOWN_INTERNAL: &[&str] = &[
    // regressions/overlay/internal-module-underscore.yaml: a tool named `_`, `-` or `.` gets the
    // module name `_`, and `pub mod _;` is not Rust (src/emit/rust.rs, module_names).
    "expected identifier, found keyword `_`",
];

/// regressions/load_text/tools-json-deeper-than-runtime-limit.json: tools.json nests deeper than
/// serde_json's default recursion limit (128), which the generated server's runtime parses it
/// with (runtime/src/handler.rs, `Handler::new`), so such a server fails at start-up.
const KNOWN_TOO_DEEP: &str = "recursion limit exceeded";

fn known(message: &str) -> bool {
    std::env::var_os("FUZZ_STRICT").is_none() && KNOWN_INTERNAL.iter().any(|k| message.contains(k))
}

/// Runs `generate`; `full` also emits the Rust crate (quote → syn → prettyplease).
pub fn run(input: &Input, full: bool) {
    let settings = Settings::default().with_catalog_only(!full);
    match generate(input, &settings) {
        Ok(out) => {
            // Rendering the diagnostics exercises location and formatting code too.
            let _ = out.diagnostics.to_string();
            let _ = out.diagnostics.to_json();
            check_no_bug(&out.diagnostics);
            check_tools_json(out.tools_json());
        }
        Err(report) => {
            let _ = report.to_string();
            let _ = report.to_json();
            assert!(report.has_errors(), "generate failed without an error diagnostic:\n{report}");
            // `internal` diagnostics mean "report this as an mcp-gen bug" (emit produced Rust
            // that does not parse, a template failed): a finding, like a panic.
            check_no_bug(&report);
        }
    }
}

/// Diagnostics that mean mcp-gen itself is wrong, whatever the input: `internal` (emitted Rust
/// that does not parse, a template that fails) and anything whose help says "report this as an
/// mcp-gen bug"; and I2 (`lint::input_schema`): once the resolver has accepted every `$ref`,
/// an assembled tool schema that refers to a def it does not define is an assembly bug.
fn check_no_bug(report: &mcp_gen::Report) {
    for d in &report.diagnostics {
        let bug = d.code == "internal"
            || d.code == "I2-input-schema"
            || d.help.as_deref().is_some_and(|h| h.starts_with("report this as an mcp-gen bug"));
        if bug && !known(&d.message) {
            panic!("generate reported an mcp-gen bug: {d}\n--- all diagnostics ---\n{report}");
        }
    }
}

/// tools.json is what the generated server serves: it must be JSON, and the runtime must be able
/// to read it the way it does (`serde_json::from_str`, default recursion limit).
fn check_tools_json(text: &str) {
    if let Err(e) = serde_json::from_str::<serde_json::Value>(text) {
        let message = e.to_string();
        if message.contains(KNOWN_TOO_DEEP) {
            if std::env::var_os("FUZZ_STRICT").is_none() {
                // Still JSON? Check without the limit (the known finding is the depth only).
                let mut de = serde_json::Deserializer::from_str(text);
                de.disable_recursion_limit();
                if let Err(e) = <serde_json::Value as serde::Deserialize>::deserialize(&mut de) {
                    panic!("tools.json is not valid JSON: {e}");
                }
                return;
            }
        }
        panic!("tools.json does not parse as the runtime parses it: {message}\n{}", &text[..text.len().min(4000)]);
    }
}
