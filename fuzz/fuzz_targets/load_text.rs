//! Raw bytes → UTF-8 text → the whole pipeline, read as YAML and as JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_gen::Input;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // The parsers on their own, then the pipeline under both names (the name picks the parser).
    let _ = mcp_gen::load::yaml::parse(text);
    let _ = mcp_gen::load::json::parse(text);
    for name in ["spec.yaml", "spec.json"] {
        let input = Input { spec: common::text(name, text), overlay: None, versions: Vec::new() };
        common::run(&input, false);
    }
});
