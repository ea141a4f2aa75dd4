//! Prometheus metrics (CONTRACT O2, issue 35 must-show 3): the invoices server started with
//! `--metrics`, a scripted set of calls against a loopback upstream, then `/metrics` checked by
//! `promtool check metrics` (Debian's prometheus package) and its counters held to the calls
//! made.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use axum::Json;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use support::{call, modern_client};

fn invoice(id: &str) -> Value {
    json!({"id": id, "customer": "cus_1", "currency": "EUR", "status": "draft", "total": 1250, "due_date": null,
        "lines": [{"description": "Hosting", "quantity": 1, "unit_amount": 1250}]})
}

async fn get_invoice(Path(id): Path<String>) -> Response {
    if id == "inv_00000000000009" {
        return (StatusCode::SERVICE_UNAVAILABLE, "down for maintenance").into_response();
    }
    Json(invoice(&id)).into_response()
}

async fn create(Json(_): Json<Value>) -> (StatusCode, Json<Value>) {
    (StatusCode::CREATED, Json(invoice("inv_00000000000001")))
}

/// `name{a="x",b="y"} value` lines of the exposition: name and labels → value.
fn samples(text: &str) -> BTreeMap<(String, BTreeMap<String, String>), f64> {
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (series, value) = line.rsplit_once(' ').unwrap();
        let (name, labels) = match series.split_once('{') {
            Some((n, rest)) => (n, rest.trim_end_matches('}')),
            None => (series, ""),
        };
        let labels = labels
            .split(',')
            .filter(|l| !l.is_empty())
            .map(|l| {
                let (k, v) = l.split_once('=').unwrap();
                (k.to_owned(), v.trim_matches('"').to_owned())
            })
            .collect();
        out.insert((name.to_owned(), labels), value.parse().unwrap());
    }
    out
}

fn value(samples: &BTreeMap<(String, BTreeMap<String, String>), f64>, name: &str, labels: &[(&str, &str)]) -> f64 {
    let labels: BTreeMap<String, String> = labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    samples.get(&(name.to_owned(), labels.clone())).copied().unwrap_or_else(|| panic!("no {name}{labels:?}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn metrics_pass_promtool_and_count_the_calls_made() {
    let app = axum::Router::new().route("/v1/invoices", post(create)).route("/v1/invoices/{id}", get(get_invoice));
    let upstream = format!("http://{}", support::serve_upstream(app));
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let metrics_addr = format!("127.0.0.1:{port}");
    let server = support::serve_http(
        &support::binary("invoices-mcp"),
        &["--upstream", &upstream, "--metrics", &metrics_addr],
        &[("INVOICES_BEARER_TOKEN", "t"), ("INVOICES_HANDLE_KEY", "a handle key of 32 characters at least")],
    );
    let client = modern_client(&server.url).await;

    for id in ["inv_00000000000001", "inv_00000000000002", "inv_00000000000003"] {
        let r = call(&client, "get_invoice", json!({"invoice_id": id})).await;
        assert_ne!(r.is_error, Some(true), "{r:?}");
    }
    let failed = call(&client, "get_invoice", json!({"invoice_id": "inv_00000000000009"})).await;
    assert_eq!(support::error_body(&failed)["code"], "upstream_unavailable");
    let new = json!({"customer": "cus_1", "currency": "EUR", "idempotency_key": "m-1",
        "lines": [{"description": "Hosting", "quantity": 1, "unit_amount": 1250}]});
    assert!(!support::replayed(&call(&client, "create_invoice", new.clone()).await));
    assert!(support::replayed(&call(&client, "create_invoice", new.clone()).await));
    let mut other = new.clone();
    other["currency"] = json!("USD");
    let reused = call(&client, "create_invoice", other).await;
    assert_eq!(support::error_body(&reused)["code"], "idempotency_key_reused");
    let forged = call(&client, "list_invoices", json!({"cursor": "h1_not-a-handle"})).await;
    assert_eq!(support::error_body(&forged)["code"], "invalid_argument");
    client.cancel().await.unwrap();

    let text = reqwest::get(format!("http://{metrics_addr}/metrics")).await.unwrap().text().await.unwrap();
    ensure_promtool();
    let mut promtool = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool (Debian's prometheus package)");
    std::io::Write::write_all(&mut promtool.stdin.take().unwrap(), text.as_bytes()).unwrap();
    let checked = promtool.wait_with_output().unwrap();
    assert!(
        checked.status.success(),
        "promtool check metrics failed:\n{}{}\n{text}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );

    let s = samples(&text);
    let calls = "mcp_tool_calls_total";
    assert_eq!(value(&s, calls, &[("tool", "get_invoice"), ("outcome", "ok")]), 3.0);
    assert_eq!(value(&s, calls, &[("tool", "get_invoice"), ("outcome", "upstream_unavailable")]), 1.0);
    assert_eq!(value(&s, calls, &[("tool", "create_invoice"), ("outcome", "ok")]), 2.0);
    assert_eq!(value(&s, calls, &[("tool", "create_invoice"), ("outcome", "idempotency_key_reused")]), 1.0);
    assert_eq!(value(&s, calls, &[("tool", "list_invoices"), ("outcome", "invalid_argument")]), 1.0);
    assert_eq!(value(&s, "mcp_idempotency_replays_total", &[("tool", "create_invoice")]), 1.0);
    assert_eq!(
        value(&s, "mcp_idempotency_conflicts_total", &[("tool", "create_invoice"), ("code", "idempotency_key_reused")]),
        1.0
    );
    assert_eq!(value(&s, "mcp_upstream_errors_total", &[("class", "upstream_unavailable")]), 1.0);
    assert_eq!(value(&s, "mcp_handle_refusals_total", &[("tool", "list_invoices")]), 1.0);
    assert_eq!(value(&s, "mcp_tool_call_duration_seconds_count", &[("tool", "get_invoice")]), 4.0);
    assert_eq!(value(&s, "mcp_tool_call_duration_seconds_bucket", &[("tool", "get_invoice"), ("le", "+Inf")]), 4.0);
    let total: f64 = s.iter().filter(|((name, _), _)| name == calls).map(|(_, v)| v).sum();
    assert_eq!(total, 8.0, "every call counted once");
}

/// promtool is Debian's `prometheus` package: installed here when the machine lacks it, so the
/// README's test command passes on a fresh machine as it does in CI.
fn ensure_promtool() {
    let found = || Command::new("promtool").arg("--version").output().is_ok_and(|o| o.status.success());
    if found() {
        return;
    }
    let apt = |args: &[&str]| {
        Command::new("apt-get").args(args).env("DEBIAN_FRONTEND", "noninteractive").status().is_ok_and(|s| s.success())
    };
    let installed = apt(&["update", "-qq"]) && apt(&["install", "-y", "-qq", "--no-install-recommends", "prometheus"]);
    assert!(
        installed && found(),
        "promtool is missing and `apt-get install prometheus` failed: install Debian's prometheus package"
    );
}
