//! Answers off the outputSchema, end to end: the generated invoices server, built and started as
//! a real process, against an upstream on loopback whose answers stray from its spec (a status
//! the enum does not list, a `null` total, a plain-text body). MCP requires structured results to
//! conform and the official SDKs reject the whole result when one does not, so the server sends
//! such an answer as an `unexpected_answer` error that carries it. Driven by rmcp's client and by
//! the official Python SDK; side effects are counted.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use support::{call, error_body as body, modern_client as client, replayed};

/// Invoices the upstream created.
type Created = Arc<Mutex<usize>>;

fn invoice(id: &str, customer: &Value, status: &str, total: Value) -> Value {
    json!({"id": id, "customer": customer, "currency": "EUR", "status": status, "total": total,
        "due_date": null, "lines": [{"description": "Hosting", "quantity": 1, "unit_amount": 1250}]})
}

/// The customer chooses how the upstream strays: `cus_drift` gets a status its spec does not
/// list, `cus_text` a plain-text answer; any other customer a conforming invoice.
async fn create(State(created): State<Created>, Json(body): Json<Value>) -> Response {
    let n = {
        let mut c = created.lock().unwrap();
        *c += 1;
        *c
    };
    let id = format!("inv_{n:014}");
    match body["customer"].as_str() {
        Some("cus_text") => (StatusCode::CREATED, "Created").into_response(),
        Some("cus_drift") => {
            (StatusCode::CREATED, Json(invoice(&id, &body["customer"], "finalizing", json!(1250)))).into_response()
        }
        _ => (StatusCode::CREATED, Json(invoice(&id, &body["customer"], "draft", json!(1250)))).into_response(),
    }
}

/// `inv_NULLTOTAL00000` has a `null` total, which the spec does not allow.
async fn fetch(Path(id): Path<String>) -> Json<Value> {
    let total = if id == "inv_NULLTOTAL00000" { Value::Null } else { json!(1250) };
    Json(invoice(&id, &json!("cus_1"), "open", total))
}

fn upstream() -> (String, Created) {
    let created: Created = Arc::default();
    let app = axum::Router::new()
        .route("/v1/invoices", post(create))
        .route("/v1/invoices/{invoice_id}", get(fetch))
        .with_state(created.clone());
    (format!("http://{}", support::serve_upstream(app)), created)
}

fn start(upstream: &str, extra: &[&str]) -> support::Server {
    let mut args = vec!["--upstream", upstream];
    args.extend_from_slice(extra);
    support::serve_http(&support::binary("invoices-mcp"), &args, &[("INVOICES_BEARER_TOKEN", "t")])
}

fn create_args(customer: &str, key: &str) -> Value {
    json!({"customer": customer, "currency": "EUR", "lines": [{"description": "Hosting", "quantity": 1, "unit_amount": 1250}],
        "idempotency_key": key})
}

fn run_python(url: &str, mode: &str, tool: &str, args: &Value) -> Value {
    let out = std::process::Command::new(support::python())
        .arg(support::repo().join("tests/python/call_tool.py"))
        .args(["--url", url, "--mode", mode, "--tool", tool, "--args", &args.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success(), "python client failed:\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_off_the_output_schema_reaches_the_model_as_an_error_that_carries_it() {
    let (url, created) = upstream();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.db");
    let server = start(&url, &["--store", &format!("sqlite://{}", store.display())]);
    let c = client(&server.url).await;

    // A conforming answer is the structured result, as before.
    let ok = call(&c, "create_invoice", create_args("cus_ok", "k-ok")).await;
    assert_ne!(ok.is_error, Some(true), "{ok:?}");
    assert_eq!(ok.structured_content.as_ref().unwrap()["status"], "draft");

    // A status the spec's enum does not list: the call took effect; its answer is carried.
    let drift = call(&c, "create_invoice", create_args("cus_drift", "k-drift")).await;
    let b = body(&drift);
    assert_eq!(b["code"], "unexpected_answer");
    assert_eq!(b["retryable"], false);
    assert_eq!(b["answer"]["status"], "finalizing");
    assert_eq!(b["answer"]["id"], "inv_00000000000002");
    let message = b["message"].as_str().unwrap();
    assert!(message.contains("POST /v1/invoices") && message.contains("`status`") && message.contains("enum"), "{b}");
    assert!(b["recovery"].as_str().unwrap().contains("do not repeat"), "{b}");
    assert!(drift.structured_content.is_none());
    assert_eq!(*created.lock().unwrap(), 2);

    // Its repeat is replayed, byte for byte, and runs nothing upstream.
    let again = call(&c, "create_invoice", create_args("cus_drift", "k-drift")).await;
    assert!(replayed(&again), "{again:?}");
    assert_eq!(again.content, drift.content);
    assert_eq!(*created.lock().unwrap(), 2);

    // A read whose answer has a null the spec does not allow.
    let got = call(&c, "get_invoice", json!({"invoice_id": "inv_NULLTOTAL00000"})).await;
    let b = body(&got);
    assert_eq!(b["code"], "unexpected_answer");
    assert_eq!(b["answer"]["id"], "inv_NULLTOTAL00000");
    assert!(b["message"].as_str().unwrap().contains("`total`"), "{b}");
    assert!(b["recovery"].as_str().unwrap().starts_with("Read the result"), "{b}");
    let fine = call(&c, "get_invoice", json!({"invoice_id": "inv_00000000000001"})).await;
    assert_ne!(fine.is_error, Some(true), "{fine:?}");

    // A body that is not JSON, where the spec promises an invoice.
    let text = call(&c, "create_invoice", create_args("cus_text", "k-text")).await;
    let b = body(&text);
    assert_eq!(b["code"], "unexpected_answer");
    assert_eq!(b["answer"], "Created");
    assert!(b["message"].as_str().unwrap().contains("not JSON"), "{b}");
    c.cancel().await.unwrap();

    // The operator is told which tool strayed and where; the audit log records the outcome.
    let log = server.log.lock().unwrap().clone();
    assert!(log.contains("create_invoice") && log.contains("does not match the tool's outputSchema"), "{log}");
    let db = rusqlite::Connection::open(&store).unwrap();
    let outcomes: Vec<String> = db
        .prepare("SELECT outcome FROM mcpgen_audit ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(outcomes, ["ok", "unexpected_answer", "unexpected_answer", "unexpected_answer"]);

    // The official Python SDK checks structured results against the outputSchema: it takes the
    // error with the answer in it, in both eras.
    for (mode, key) in [("2026-07-28", "py-drift"), ("legacy", "py-drift-legacy")] {
        let out = run_python(&server.url, mode, "create_invoice", &create_args("cus_drift", key));
        assert_eq!(out["is_error"], true, "{mode}: {out}");
        let b: Value = serde_json::from_str(out["text"][0].as_str().unwrap()).unwrap();
        assert_eq!(
            (b["code"].as_str(), b["answer"]["status"].as_str()),
            (Some("unexpected_answer"), Some("finalizing"))
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn without_the_check_the_sdk_refuses_the_result_and_the_answer_is_lost() {
    let (url, created) = upstream();
    let server = start(&url, &["--no-answer-check", "--store", "sqlite://store.db"]);
    // The raw answer goes out as the structured result...
    let c = client(&server.url).await;
    let raw = call(&c, "create_invoice", create_args("cus_drift", "k-raw")).await;
    assert_ne!(raw.is_error, Some(true), "{raw:?}");
    assert_eq!(raw.structured_content.as_ref().unwrap()["status"], "finalizing");
    c.cancel().await.unwrap();
    // ...and the Python SDK raises instead of returning it, though the invoice was created.
    let out = run_python(&server.url, "2026-07-28", "create_invoice", &create_args("cus_drift", "py-raw"));
    let raised = out["raised"].as_str().unwrap_or_default();
    assert!(raised.contains("Invalid structured content"), "{out}");
    assert_eq!(*created.lock().unwrap(), 2);
}
