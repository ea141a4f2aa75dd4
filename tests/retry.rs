//! Retry safety end to end (CONTRACT R1–R6, O3): the generated invoices server, built and started
//! as a real process, against a real upstream on loopback that counts the invoices it creates,
//! driven over Streamable HTTP by rmcp's client and by raw JSON-RPC. The same scenario runs with
//! the SQLite store and with PostgreSQL shared by two replicas.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use mcp_gen_runtime::rmcp::model::CallToolResult;
use serde_json::{Value, json};
use support::{Client, modern_client as client, replayed};

/// What reached the upstream: one entry per created invoice, with its Idempotency-Key header.
type Created = Arc<Mutex<Vec<Option<String>>>>;

async fn create(
    State(created): State<Created>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    // Slow enough that concurrent repeats overlap the first call.
    tokio::time::sleep(Duration::from_millis(150)).await;
    let key = headers.get("idempotency-key").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let n = {
        let mut c = created.lock().unwrap();
        c.push(key);
        c.len()
    };
    let total: i64 = body["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["quantity"].as_i64().unwrap() * l["unit_amount"].as_i64().unwrap())
        .sum();
    (
        StatusCode::CREATED,
        Json(json!({"id": format!("inv_{n:014}"), "customer": body["customer"], "currency": body["currency"],
            "status": "draft", "total": total, "due_date": null, "lines": body["lines"]})),
    )
}

fn upstream() -> (String, Created) {
    let created: Created = Arc::default();
    let app = axum::Router::new().route("/v1/invoices", post(create)).with_state(created.clone());
    let addr = support::serve_upstream(app);
    (format!("http://{addr}"), created)
}

fn invoice(key: &str, quantity: i64) -> serde_json::Map<String, Value> {
    json!({"customer": "cus_1", "currency": "EUR", "lines": [{"description": "Hosting", "quantity": quantity, "unit_amount": 1250}],
        "idempotency_key": key})
    .as_object()
    .cloned()
    .unwrap()
}

async fn call(c: &Client, args: serde_json::Map<String, Value>) -> CallToolResult {
    support::call(c, "create_invoice", Value::Object(args)).await
}

fn error_code(r: &CallToolResult) -> String {
    support::error_body(r)["code"].as_str().unwrap().to_owned()
}

/// The scenario; `servers` are replicas sharing one store (calls alternate between them).
async fn scenario(servers: &[&support::Server], created: &Created) {
    let clients = [client(&servers[0].url).await, client(&servers[servers.len() - 1].url).await];

    // A first call creates; its repeat (on the other replica, if any) replays it exactly.
    let first = call(&clients[0], invoice("intent-a", 2)).await;
    assert_ne!(first.is_error, Some(true), "{first:?}");
    assert!(!replayed(&first));
    let again = call(&clients[1], invoice("intent-a", 2)).await;
    assert!(replayed(&again), "{again:?}");
    let strip = |r: &CallToolResult| {
        let mut r = r.clone();
        r.meta = None;
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(strip(&first), strip(&again));
    assert_eq!(created.lock().unwrap().clone(), [Some("intent-a".to_owned())], "the key reaches the upstream");

    // On the wire: the replayed result is the same JSON, only `_meta` differs.
    let raw_args = Value::Object(invoice("intent-b", 1));
    let mut raw = Vec::new();
    for (i, server) in servers.iter().cycle().take(3).enumerate() {
        let mut response = support::raw_tools_call(&server.url, 100 + i as u64, "create_invoice", &raw_args, &[]).await;
        let result = response["result"].as_object_mut().unwrap();
        let meta = result.shift_remove("_meta").unwrap();
        assert_eq!(meta["dev.mcp-gen/idempotency"]["replayed"].as_bool().unwrap_or(false), i > 0, "{meta}");
        raw.push(serde_json::to_string(result).unwrap());
    }
    assert!(raw.iter().all(|r| *r == raw[0]), "{raw:#?}");
    assert_eq!(created.lock().unwrap().len(), 2);

    // Eight concurrent identical calls, spread over the replicas: one invoice.
    let mut tasks = Vec::new();
    for i in 0..8 {
        let url = servers[i % servers.len()].url.clone();
        tasks.push(tokio::spawn(async move {
            let c = client(&url).await;
            let r = call(&c, invoice("intent-c", 3)).await;
            c.cancel().await.unwrap();
            r
        }));
    }
    let mut results = Vec::new();
    for t in tasks {
        results.push(t.await.unwrap());
    }
    assert_eq!(created.lock().unwrap().len(), 3, "concurrent repeats ran upstream");
    assert_eq!(results.iter().filter(|r| !replayed(r)).count(), 1);
    assert!(results.iter().all(|r| strip(r) == strip(&results[0])));

    // The same key with other arguments: a new intent under an old key is refused.
    let reused = call(&clients[1], invoice("intent-a", 5)).await;
    assert_eq!(error_code(&reused), "idempotency_key_reused");
    let body: Value = serde_json::from_str(&reused.content[0].as_text().unwrap().text).unwrap();
    assert_eq!(body["retryable"], false);
    assert!(body["recovery"].as_str().unwrap().contains("new idempotency_key"), "{body}");
    // Without a key the call never starts.
    let mut keyless = invoice("x", 1);
    keyless.remove("idempotency_key");
    assert_eq!(error_code(&call(&clients[0], keyless).await), "invalid_argument");
    assert_eq!(created.lock().unwrap().len(), 3);
    for c in clients {
        c.cancel().await.unwrap();
    }
}

fn start(upstream: &str, store: &str) -> support::Server {
    support::serve_http(
        &support::binary("invoices-mcp"),
        &["--upstream", upstream, "--store", store],
        &[("INVOICES_BEARER_TOKEN", "t")],
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_store_replays_and_audits() {
    let (url, created) = upstream();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("store.db");
    let server = start(&url, &format!("sqlite://{}", file.display()));
    scenario(&[&server], &created).await;
    // O3: a row per side-effecting call that passed validation, replays marked.
    let db = rusqlite::Connection::open(&file).unwrap();
    let rows: Vec<(String, String, bool, String)> = db
        .prepare("SELECT tool, outcome, replayed, arguments FROM mcpgen_audit ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows.len(), 2 + 3 + 8 + 1, "{rows:#?}");
    assert_eq!(rows.iter().filter(|r| r.2).count(), 1 + 2 + 7);
    assert!(rows.iter().any(|r| r.1 == "idempotency_key_reused"));
    assert!(rows.iter().all(|r| r.0 == "create_invoice" && r.3.contains("\"customer\":\"cus_1\"")));
}

/// A schema of its own on the local PostgreSQL: an admin connection, the schema's name, and a
/// store URL on it whose connections carry the schema's name as their application name.
async fn pg_schema(prefix: &str) -> (tokio_postgres::Client, String, String) {
    const PG: &str = "postgres://postgres@127.0.0.1:5432/test";
    let schema = format!("{prefix}_{}_{}", std::process::id(), mcp_gen_runtime::store::now_ms());
    let (admin, conn) = tokio_postgres::connect(PG, tokio_postgres::NoTls).await.expect("PostgreSQL on 127.0.0.1:5432");
    tokio::spawn(conn);
    admin.batch_execute(&format!("CREATE SCHEMA {schema}")).await.unwrap();
    let store = format!("{PG}?options=-csearch_path%3D{schema}&application_name={schema}");
    (admin, schema, store)
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_store_shared_by_two_replicas() {
    let (admin, schema, store) = pg_schema("mcpgen_e2e").await;
    let (url, created) = upstream();
    let (a, b) = (start(&url, &store), start(&url, &store));
    scenario(&[&a, &b], &created).await;
    let audited: i64 =
        admin.query_one(&format!("SELECT count(*) FROM {schema}.mcpgen_audit"), &[]).await.unwrap().get(0);
    assert_eq!(audited, 2 + 3 + 8 + 1);
    admin.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
}

/// Store connections killed under the server (`pg_terminate_backend`, as a failover or an
/// operator does): the next calls are served, none answered with a store error, each written
/// once, and the replay of a call made before the kill still comes from its record.
#[tokio::test(flavor = "multi_thread")]
async fn postgres_store_survives_killed_connections() {
    let (admin, schema, store) = pg_schema("mcpgen_kill").await;
    let (url, created) = upstream();
    let server = start(&url, &store);
    let c = client(&server.url).await;
    let before = call(&c, invoice("before-kill", 1)).await;
    assert_ne!(before.is_error, Some(true), "{before:?}");
    for round in 0..3 {
        let killed: i64 = admin
            .query_one(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1",
                &[&schema],
            )
            .await
            .unwrap()
            .get(0);
        assert!(killed >= 1, "round {round}: the server held no store connection to kill");
        let after = call(&c, invoice(&format!("after-kill-{round}"), 1)).await;
        assert_ne!(after.is_error, Some(true), "round {round}: {after:?}");
    }
    let again = call(&c, invoice("before-kill", 1)).await;
    assert!(replayed(&again), "{again:?}");
    assert_eq!(created.lock().unwrap().len(), 4, "one invoice per intent");
    let audited: i64 =
        admin.query_one(&format!("SELECT count(*) FROM {schema}.mcpgen_audit"), &[]).await.unwrap().get(0);
    assert!(audited >= 5, "every call audited: {audited}");
    admin.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
}
