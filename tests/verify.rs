//! `mcp-gen verify` against a live upstream: each mismatch located at its line in the
//! description with the patch that fixes it, the patched overlay conforming, and no write sent
//! unless a scenario asks for one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use serde_json::json;

/// A hand-written Swagger 2.0 description with two deliberate errors: a folder's `content` is
/// typed `string` (the API sends a list), and `kind` lists no `notebook`.
const SPEC: &str = r##"swagger: "2.0"
info:
  title: Files
  version: "1.0"
basePath: /api
paths:
  /folders:
    get:
      operationId: list_folders
      responses:
        "200":
          description: every folder
          schema:
            type: array
            items:
              $ref: "#/definitions/Folder"
    post:
      operationId: create_folder
      parameters:
        - name: body
          in: body
          required: true
          schema:
            $ref: "#/definitions/Folder"
      responses:
        "200":
          description: the new folder
          schema:
            $ref: "#/definitions/Folder"
  /folders/{path}:
    get:
      operationId: get_folder
      parameters:
        - name: path
          in: path
          required: true
          type: string
      responses:
        "200":
          description: one folder
          schema:
            $ref: "#/definitions/Folder"
    delete:
      operationId: delete_folder
      parameters:
        - name: path
          in: path
          required: true
          type: string
      responses:
        "204":
          description: deleted
definitions:
  Folder:
    type: object
    required: [path, kind]
    properties:
      path:
        type: string
      kind:
        type: string
        enum: [file, directory]
      content:
        type: string
"##;

const OVERLAY: &str = "mcp-gen: 1\n# the API wants its token, which the description does not declare\nserver:\n  credentials:\n    - {header: Authorization, prefix: token, env: FILES_TOKEN}\n";

fn upstream(deletes: Arc<AtomicUsize>) -> std::net::SocketAddr {
    let authorized = |h: &HeaderMap| h.get("authorization").and_then(|v| v.to_str().ok()) == Some("token s3cret");
    let folder = |path: &str| json!({"path": path, "kind": "notebook", "content": [{"path": format!("{path}/a.txt")}]});
    let app = axum::Router::new()
        .route(
            "/api/folders",
            get(move |h: HeaderMap| async move {
                if !authorized(&h) {
                    return (StatusCode::FORBIDDEN, axum::Json(json!({"message": "no token"})));
                }
                (StatusCode::OK, axum::Json(json!([folder("docs"), folder("notes")])))
            })
            .post(|axum::Json(body): axum::Json<serde_json::Value>| async move {
                (StatusCode::CREATED, axum::Json(body))
            }),
        )
        .route(
            "/api/folders/{path}",
            get(move |h: HeaderMap, Path(path): Path<String>| async move {
                if !authorized(&h) {
                    return (StatusCode::FORBIDDEN, axum::Json(json!({"message": "no token"})));
                }
                (StatusCode::OK, axum::Json(folder(&path)))
            })
            .delete(move || {
                deletes.fetch_add(1, Ordering::SeqCst);
                async { StatusCode::NO_CONTENT }
            }),
        );
    support::serve_upstream(app)
}

fn verify(dir: &std::path::Path, overlay: &str, upstream: &str, extra: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-gen"))
        .args(["verify", "--spec"])
        .arg(dir.join("spec.yaml"))
        .arg("--overlay")
        .arg(dir.join(overlay))
        .args(["--upstream", upstream])
        .args(extra)
        .env("FILES_TOKEN", "s3cret")
        .output()
        .expect("mcp-gen runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.trim_end() == needle).map(|i| i + 1).expect("the line is in the spec")
}

#[test]
fn a_spec_error_is_reported_at_its_line_and_the_written_patch_makes_the_next_build_conform() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("spec.yaml"), SPEC).unwrap();
    std::fs::write(dir.path().join("overlay.yaml"), OVERLAY).unwrap();
    let deletes = Arc::new(AtomicUsize::new(0));
    let addr = upstream(deletes.clone());
    let base = format!("http://{addr}/api");

    let patched = dir.path().join("patched.yaml");
    let (code, report) = verify(dir.path(), "overlay.yaml", &base, &["--write-overlay", patched.to_str().unwrap()]);
    assert_eq!(code, 1, "mismatches exit 1:\n{report}");
    // Both reads were made (the folder's path taken from the list's answer), with the token.
    assert!(report.contains("200  list_folders"), "{report}");
    assert!(report.contains("200  get_folder"), "{report}");
    // Each mismatch at its line in the description as written (2.0 pointers, not upgraded ones).
    let content_line = line_of(SPEC, "      content:");
    let kind_line = line_of(SPEC, "      kind:");
    assert!(report.contains(&format!("spec.yaml:{content_line}:")), "content at line {content_line}:\n{report}");
    assert!(report.contains("(#/definitions/Folder/properties/content)"), "{report}");
    assert!(report.contains(&format!("spec.yaml:{kind_line}:")), "kind at line {kind_line}:\n{report}");
    assert!(report.contains(r#"{"enum":["file","directory","notebook"]}"#), "{report}");
    // No write was sent: verify makes reads only unless a scenario asks.
    assert_eq!(deletes.load(Ordering::SeqCst), 0);

    let patched = std::fs::read_to_string(&patched).unwrap();
    assert!(patched.starts_with(OVERLAY), "the overlay a person wrote is kept:\n{patched}");
    let (code, report) = verify(dir.path(), "patched.yaml", &base, &[]);
    assert_eq!(code, 0, "after the patches:\n{report}");
    assert!(report.contains("0 mismatch(es)"), "{report}");
}

#[test]
fn a_scenario_sends_its_writes_and_a_status_the_description_does_not_list_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("spec.yaml"), SPEC).unwrap();
    // Without the credential the API answers 403, which the description does not list.
    std::fs::write(dir.path().join("bare.yaml"), "mcp-gen: 1\n").unwrap();
    std::fs::write(
        dir.path().join("scenario.yaml"),
        "steps:\n  - tool: delete_folder\n    args: {path: old, idempotency_key: k-1}\n  - tool: create_folder\n    args: {path: new, kind: directory, idempotency_key: k-2}\n",
    )
    .unwrap();
    let deletes = Arc::new(AtomicUsize::new(0));
    let addr = upstream(deletes.clone());
    let scenario = dir.path().join("scenario.yaml");
    let (code, report) =
        verify(dir.path(), "bare.yaml", &format!("http://{addr}/api"), &["--writes", scenario.to_str().unwrap()]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(deletes.load(Ordering::SeqCst), 1, "the scenario's delete was sent once:\n{report}");
    // A step the tool's inputSchema refuses is an error before anything is sent.
    std::fs::write(
        dir.path().join("bad.yaml"),
        "steps:\n  - tool: create_folder\n    args: {body: {}, idempotency_key: k}\n",
    )
    .unwrap();
    let bad = dir.path().join("bad.yaml");
    let (code, refused) =
        verify(dir.path(), "bare.yaml", &format!("http://{addr}/api"), &["--writes", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{refused}");
    assert!(refused.contains("scenario step 0 (`create_folder`)"), "{refused}");
    assert_eq!(deletes.load(Ordering::SeqCst), 1, "nothing more was sent");
    assert!(report.contains("answered 403 Forbidden, a status the description does not list"), "{report}");
    assert!(report.contains("server.credentials"), "a refusal says how to send a credential:\n{report}");
    // A 201 where the description lists 200: listed with what 200 answers, so the output stays.
    assert!(
        report
            .contains(r##""merge":{"201":{"description":"the new folder","schema":{"$ref":"#/definitions/Folder"}}}"##),
        "{report}"
    );
}

/// `server.credentials`: a credential the description does not declare is compiled into the
/// server (sent with every call), listed in the README beside declared schemes, and never an
/// argument; a malformed entry is an error at its place in the overlay.
#[test]
fn an_undeclared_credential_is_compiled_listed_and_checked() {
    use mcp_gen::{Input, Settings, generate};
    let output = generate(&Input::text("spec.yaml", SPEC, Some(OVERLAY)), &Settings::default()).unwrap();
    let server = &output.files["src/server.rs"];
    assert!(server.contains("SchemeKind::Always"), "{server}");
    assert!(server.contains("\"Authorization\"") && server.contains("Some(\"token\")"), "{server}");
    let readme = &output.files["README.md"];
    assert!(readme.contains("FILES_TOKEN"), "{readme}");
    assert!(!output.tools_json().contains("FILES_TOKEN") && !output.tools_json().contains("Authorization"));

    let bad = "mcp-gen: 1\nserver:\n  credentials:\n    - {header: Authorization, query: token, env: files-token}\n";
    let report = generate(&Input::text("spec.yaml", SPEC, Some(bad)), &Settings::default()).unwrap_err();
    let at: Vec<(&str, &str)> = report
        .diagnostics
        .iter()
        .filter_map(|d| d.location.as_ref().map(|l| (l.pointer.as_str(), d.message.as_str())))
        .collect();
    assert!(at.iter().any(|(p, m)| *p == "/server/credentials/0" && m.contains("2 places")), "{report:?}");
    assert!(at.iter().any(|(p, m)| *p == "/server/credentials/0" && m.contains("files-token")), "{report:?}");
}
