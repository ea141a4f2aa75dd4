//! The CI recipe (`scripts/contract-check.sh`) in a scratch git repository: an additive change
//! passes, a deliberate breaking edit exits 3 with the Markdown summary naming it, and the same
//! edit passes with the earlier contract kept as a version, or with a new major version of the API.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

fn spec(version: &str, limit_max: u32, extra_arg: bool) -> String {
    let extra = if extra_arg { r#", "tag": {"type": "string"}"# } else { "" };
    format!(
        r#"{{"openapi": "3.1.0", "info": {{"title": "Notes", "version": "{version}"}},
  "servers": [{{"url": "https://notes.example.com"}}],
  "paths": {{"/notes": {{"get": {{"operationId": "listNotes", "summary": "List notes.",
    "parameters": [{{"name": "limit", "in": "query", "schema": {{"type": "integer", "maximum": {limit_max}}}}}],
    "responses": {{"200": {{"description": "OK"}}}}}},
   "post": {{"operationId": "createNote", "summary": "Create a note.",
    "requestBody": {{"required": true, "content": {{"application/json": {{"schema": {{"type": "object",
      "properties": {{"text": {{"type": "string"}}{extra}}}, "required": ["text"]}}}}}}}},
    "responses": {{"200": {{"description": "OK"}}}}}}}}}}}}"#
    )
}

fn check(dir: &Path) -> (i32, String) {
    let mcp_gen = support::binary("mcp-gen");
    let out = Command::new("bash")
        .arg(support::repo().join("scripts/contract-check.sh"))
        .arg("HEAD")
        .current_dir(dir)
        .env("MCPGEN", mcp_gen)
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn a_breaking_edit_fails_the_recipe_with_a_summary_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("specs/notes")).unwrap();
    let file = dir.join("specs/notes/openapi.json");
    std::fs::write(&file, spec("1.0.0", 100, false)).unwrap();
    git(dir, &["init", "-q"]);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "v1"]);

    // Additive: a new optional argument.
    std::fs::write(&file, spec("1.1.0", 100, true)).unwrap();
    let (code, summary) = check(dir);
    assert_eq!(code, 0, "{summary}");
    assert!(summary.contains("0 breaking, 0 semantic, 1 additive"), "{summary}");

    // Breaking: a smaller maximum, same major version.
    std::fs::write(&file, spec("1.2.0", 50, false)).unwrap();
    let (code, summary) = check(dir);
    assert_eq!(code, 3, "{summary}");
    assert!(
        summary.contains("| **breaking** | `list_notes` | `/inputSchema/properties/limit/maximum` | 100 | 50 |"),
        "{summary}"
    );
    assert!(summary.contains("Breaking changes without a new major version"), "{summary}");

    // The same edit with the earlier contract kept as v1 beside it passes.
    let kept = dir.join("generated/notes/versions/v1");
    std::fs::create_dir_all(&kept).unwrap();
    std::fs::write(kept.join("openapi.json"), spec("1.0.0", 100, false)).unwrap();
    std::fs::write(kept.join("tools.json"), "{}").unwrap();
    let (code, summary) = check(dir);
    assert_eq!(code, 0, "{summary}");
    assert!(summary.contains("the earlier contract is kept as v1"), "{summary}");
    std::fs::remove_dir_all(dir.join("generated")).unwrap();

    // The same edit as a new major version passes, and still says what broke.
    std::fs::write(&file, spec("2.0.0", 50, false)).unwrap();
    let (code, summary) = check(dir);
    assert_eq!(code, 0, "{summary}");
    assert!(summary.contains("`list_notes`"), "{summary}");
}
