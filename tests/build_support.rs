//! The build.rs front end: the same pipeline, written into the build's output directory.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use mcp_gen::build_support::Builder;

#[test]
fn builder_writes_the_catalog_the_cli_would() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = tempfile::tempdir().unwrap();
    let output = Builder::new(repo.join("specs/petstore/openapi.yaml"))
        .overlay(repo.join("specs/petstore/overlay.yaml"))
        .out_dir(out.path())
        .run()
        .unwrap();
    let written = std::fs::read_to_string(out.path().join("tools.json")).unwrap();
    let checked_in = std::fs::read_to_string(repo.join("generated/petstore/tools.json")).unwrap();
    assert_eq!(written, checked_in);
    assert_eq!(output.tools_json(), checked_in);
    assert!(out.path().join("src/tools/get_pet.rs").is_file());
}

#[test]
fn builder_reports_bad_input() {
    let out = tempfile::tempdir().unwrap();
    let report = Builder::new(out.path().join("missing.yaml")).out_dir(out.path()).run().unwrap_err();
    assert!(report.has_errors());
    assert!(report.to_string().contains("cannot read"), "{report}");
}
