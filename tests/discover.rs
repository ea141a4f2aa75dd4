//! Exposure `discover` end to end (CONTRACT T6): a generated server started with
//! `--exposure discover` lists three tools; search, describe and call reach every tool, and a
//! call through `call_tool` goes through the same guard as a direct one (validation, keys and
//! replays, handles). The invoices example runs in the default suite with rmcp's client; GitHub's
//! 800+ tools run with the official Python SDK in both protocol eras once the corpus is there
//! (`.ci/run`: `cargo test --test discover -- --ignored`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use support::{call, error_body, modern_client, replayed};

/// What the upstream was asked to create, one entry per creation.
type Created = Arc<Mutex<Vec<Value>>>;

async fn create_invoice(State(created): State<Created>, Json(body): Json<Value>) -> (StatusCode, Json<Value>) {
    let n = {
        let mut c = created.lock().unwrap();
        c.push(body.clone());
        c.len()
    };
    (
        StatusCode::CREATED,
        Json(json!({"id": format!("inv_{n:014}"), "customer": body["customer"], "currency": body["currency"],
            "status": "draft", "total": 1250, "due_date": null, "lines": body["lines"]})),
    )
}

fn structured(r: &mcp_gen_runtime::rmcp::model::CallToolResult) -> Value {
    assert_ne!(r.is_error, Some(true), "{r:?}");
    r.structured_content.clone().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn three_tools_reach_the_whole_catalog_through_the_same_guard() {
    let created: Created = Arc::default();
    let app = axum::Router::new().route("/v1/invoices", post(create_invoice)).with_state(created.clone());
    let upstream = format!("http://{}", support::serve_upstream(app));
    let binary = support::binary("invoices-mcp");
    let env = [("INVOICES_BEARER_TOKEN", "t")];
    let server = support::serve_http(&binary, &["--upstream", &upstream, "--exposure", "discover"], &env);
    let flat = support::serve_http(&binary, &["--upstream", &upstream], &env);
    let client = modern_client(&server.url).await;

    let listed = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["call_tool", "describe_tools", "search_tools"]);

    let found = structured(&call(&client, "search_tools", json!({"query": "bill a customer: a new invoice"})).await);
    let found: Vec<&str> = found["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(found.first(), Some(&"create_invoice"), "{found:?}");
    assert!(found.len() <= 8, "the default limit: {found:?}");

    // describe_tools gives exactly what a flat endpoint lists.
    let described =
        structured(&call(&client, "describe_tools", json!({"names": ["create_invoice", "make_coffee"]})).await);
    let flat_client = modern_client(&flat.url).await;
    let flat_tools = flat_client.list_all_tools().await.unwrap();
    let create = flat_tools.iter().find(|t| t.name == "create_invoice").unwrap();
    assert_eq!(described["tools"], json!([serde_json::to_value(create).unwrap()]));
    assert_eq!(described["unknown"], json!(["make_coffee"]));

    // A keyed write through call_tool, then its retry: one invoice, the second answer replayed.
    let invoice = json!({"customer": "cus_1", "currency": "EUR", "idempotency_key": "discover-1",
        "lines": [{"description": "Hosting", "quantity": 1, "unit_amount": 1250}]});
    let first = call(&client, "call_tool", json!({"name": "create_invoice", "arguments": invoice})).await;
    let again = call(&client, "call_tool", json!({"name": "create_invoice", "arguments": invoice})).await;
    assert_eq!(structured(&first)["id"], "inv_00000000000001");
    assert_eq!(structured(&again), structured(&first));
    assert!(!replayed(&first) && replayed(&again));
    // The same key with other arguments is refused, as on a direct call.
    let mut other = invoice.clone();
    other["currency"] = json!("USD");
    let reused = call(&client, "call_tool", json!({"name": "create_invoice", "arguments": other})).await;
    assert_eq!(error_body(&reused)["code"], "idempotency_key_reused");
    assert_eq!(created.lock().unwrap().len(), 1);

    // Arguments are checked against the tool's own schema, and the error names the field.
    let bad = call(&client, "call_tool", json!({"name": "create_invoice", "arguments": {"customer": "cus_1",
        "currency": "euro", "idempotency_key": "discover-2", "lines": [{"description": "x", "quantity": 1, "unit_amount": 1}]}}))
    .await;
    let body = error_body(&bad);
    assert_eq!((body["code"].as_str(), body["field"].as_str()), (Some("invalid_argument"), Some("currency")), "{body}");
    // A guessed name is an error that says how to find one; so is a malformed call.
    let guessed = error_body(&call(&client, "call_tool", json!({"name": "create_bill", "arguments": {}})).await);
    assert_eq!(guessed["field"], "name");
    assert!(guessed["recovery"].as_str().unwrap().contains("search_tools"), "{guessed}");
    let malformed = error_body(&call(&client, "search_tools", json!({"query": "", "limit": 3})).await);
    assert_eq!(malformed["field"], "query");
    assert_eq!(created.lock().unwrap().len(), 1, "nothing else reached the upstream");
    client.cancel().await.unwrap();
    flat_client.cancel().await.unwrap();
}

// ------------------------------------------------------------------------------------ GitHub

/// Labels created, and the webhook deliveries the list pages through (Link headers).
#[derive(Default)]
struct Hub {
    labels: Mutex<Vec<String>>,
}

const DELIVERIES: u64 = 7;

async fn create_label(
    State(hub): State<Arc<Hub>>,
    Path((owner, repo)): Path<(String, String)>,
    Json(body): Json<Value>,
) -> Response {
    let name = body["name"].as_str().unwrap_or_default().to_owned();
    let id = {
        let mut labels = hub.labels.lock().unwrap();
        labels.push(name.clone());
        labels.len()
    };
    let label = json!({"id": id, "node_id": format!("LA_{id}"), "name": name, "color": body["color"],
        "description": body["description"], "default": false,
        "url": format!("https://api.github.com/repos/{owner}/{repo}/labels/{name}")});
    (StatusCode::CREATED, Json(label)).into_response()
}

async fn deliveries(
    Path((owner, repo, hook)): Path<(String, String, u64)>,
    Query(q): Query<Vec<(String, String)>>,
    headers: HeaderMap,
) -> Response {
    let param = |name: &str| q.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let from: u64 = param("cursor").and_then(|c| c.parse().ok()).unwrap_or(0);
    let per_page: u64 = param("per_page").and_then(|c| c.parse().ok()).unwrap_or(30);
    let to = (from + per_page).min(DELIVERIES);
    let items: Vec<Value> = (from..to)
        .map(|i| {
            json!({"id": i + 1, "guid": format!("g{i}"), "delivered_at": "2026-12-01T10:00:00Z", "redelivery": false,
            "duration": 0.5, "status": "OK", "status_code": 200, "event": "push", "action": null,
            "installation_id": null, "repository_id": 1})
        })
        .collect();
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default().to_owned();
    let mut response = Json(items).into_response();
    if to < DELIVERIES {
        let next = format!(
            "<http://{host}/repos/{owner}/{repo}/hooks/{hook}/deliveries?per_page={per_page}&cursor={to}>; rel=\"next\""
        );
        response.headers_mut().insert(header::LINK, next.parse().unwrap());
    }
    response
}

fn corpus() -> PathBuf {
    let dir = std::env::var_os("MCPGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache/mcp-gen-corpus"));
    let spec = dir.join("directory/github.com/api.github.com.json");
    assert!(spec.exists(), "{} is missing: run scripts/get-corpus.sh first", spec.display());
    spec
}

/// Must-show 2 of issue 34: discover on GitHub's 800+ tools, driven by the Python SDK.
#[test]
#[ignore = "needs the corpus (scripts/get-corpus.sh) and builds GitHub's 800-tool crate"]
fn github_in_discover_mode_with_the_python_sdk_in_both_eras() {
    let repo = support::repo();
    let out = repo.join("target/discover/github-mcp");
    let status = Command::new(env!("CARGO_BIN_EXE_mcp-gen"))
        .args(["build", "--name", "github", "--spec"])
        .arg(corpus())
        .arg("--out")
        .arg(&out)
        .arg("--runtime-path")
        .arg(repo.join("runtime"))
        .status()
        .unwrap();
    assert!(status.success());
    let catalog: Value = serde_json::from_str(&std::fs::read_to_string(out.join("tools.json")).unwrap()).unwrap();
    let total = catalog["tools"].as_array().unwrap().len();
    assert!(total > 800, "{total} tools");
    std::fs::copy(repo.join("Cargo.lock"), out.join("Cargo.lock")).unwrap();
    let target = repo.join("target");
    let binary = support::cargo_build_env(&[], &out, &[("CARGO_TARGET_DIR", target.to_str().unwrap())]);

    let hub = Arc::new(Hub::default());
    let app = axum::Router::new()
        .route("/repos/{owner}/{repo}/labels", post(create_label))
        .route("/repos/{owner}/{repo}/hooks/{hook}/deliveries", get(deliveries))
        .with_state(hub.clone());
    let upstream = format!("http://{}", support::serve_upstream(app));
    let env = [("GITHUB_HANDLE_KEY", "a handle key of 32 characters at least")];
    let server = support::serve_http(&binary, &["--upstream", &upstream, "--exposure", "discover"], &env);

    for mode in ["2026-07-28", "legacy"] {
        let write = json!({"owner": "acme", "repo": "api", "name": format!("triage-{mode}"), "color": "ededed",
            "description": "Needs a first look", "idempotency_key": format!("label-{mode}")});
        let out = Command::new(support::python())
            .arg(repo.join("tests/python/discover.py"))
            .args(["--url", &server.url, "--mode", mode, "--query", "add a new label to my repository"])
            .args(["--write", "create_issue_label", "--write-args", &write.to_string()])
            .args(["--list", "list_repo_webhook_deliveries", "--cursor", "cursor"])
            .args(["--list-args", &json!({"owner": "acme", "repo": "api", "hook_id": 9, "per_page": 3}).to_string()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{mode}: python client failed:\n{}", String::from_utf8_lossy(&out.stderr));
        let seen: Value = serde_json::from_slice(&out.stdout).unwrap();

        assert_eq!(seen["tools"], json!(["call_tool", "describe_tools", "search_tools"]), "{mode}");
        let listed = serde_json::to_string(&seen["listed"]).unwrap();
        let tokens = mcp_gen::tokens::count(&listed);
        assert!(tokens <= 1_500, "{mode}: the initial tools/list costs {tokens} tokens");
        eprintln!("{mode}: tools/list of {total} tools in discover mode: {tokens} tokens (o200k_base)");

        let search: Vec<&str> = seen["search"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
        assert!(search.iter().take(5).any(|n| *n == "create_issue_label"), "{mode}: {search:?}");
        assert!(seen["described"]["create_issue_label"].as_array().unwrap().contains(&json!("idempotency_key")));
        assert!(seen["described"]["list_repo_webhook_deliveries"].as_array().unwrap().contains(&json!("cursor")));
        assert_eq!(seen["unknown"], json!(["no_such_tool"]));

        let writes = seen["writes"].as_array().unwrap();
        assert_eq!(writes[0]["is_error"], false, "{mode}: {}", writes[0]);
        assert_eq!(writes[0]["structured"], writes[1]["structured"], "{mode}: the retry is answered from the record");
        assert_eq!(seen["invalid"]["is_error"], true);
        assert!(seen["invalid"]["text"][0].as_str().unwrap().contains("invalid_argument"), "{}", seen["invalid"]);

        let pages = seen["pages"].as_array().unwrap();
        let ids: Vec<u64> = pages
            .iter()
            .flat_map(|p| {
                assert_eq!(p["is_error"], false, "{mode}: {p}");
                p["structured"]["items"].as_array().unwrap().iter().map(|d| d["id"].as_u64().unwrap())
            })
            .collect();
        assert_eq!(ids, (1..=DELIVERIES).collect::<Vec<_>>(), "{mode}: every delivery once, in order");
        assert_eq!(pages.len(), 3);
    }
    let labels = hub.labels.lock().unwrap();
    assert_eq!(*labels, ["triage-2026-07-28", "triage-legacy"], "one label per intent, retries included");
}
