//! Native mode end to end (issue 29): the orders example (`examples/orders`), a service whose
//! own handlers run the tools its build script compiled from its spec, driven by rmcp's client
//! in both protocol eras and by the official Python SDK, on SQLite and on PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use mcp_gen_runtime::rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion};
use mcp_gen_runtime::rmcp::service::RunningService;
use mcp_gen_runtime::rmcp::transport::StreamableHttpClientTransport;
use mcp_gen_runtime::rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};
use support::{Server, binary, error_body, pg_schema, python, replayed, repo, spawn_server};

fn start(store: &str) -> Server {
    let exe = binary("orders-service");
    spawn_server(&exe, &["--http", "127.0.0.1:0", "--store", store], &[], "MCP on http://")
}

async fn client(url: &str, modern: bool) -> RunningService<RoleClient, ()> {
    mcp_gen_runtime::init_tls();
    let mode = if modern {
        ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] }
    } else {
        ClientLifecycleMode::Initialize
    };
    ().serve_with_lifecycle(StreamableHttpClientTransport::from_uri(url.to_owned()), mode).await.unwrap()
}

async fn call(c: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> CallToolResult {
    let args = args.as_object().cloned().unwrap();
    c.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args)).await.unwrap()
}

fn text(r: &CallToolResult) -> String {
    r.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap()
}

/// The service's own HTTP API, on the same port as MCP: what it lists for a customer.
async fn http_orders(server: &Server, customer: &str) -> Vec<Value> {
    let base = server.url.trim_end_matches("/mcp/v1");
    let page: Value =
        reqwest::get(format!("{base}/orders?customer={customer}&limit=100")).await.unwrap().json().await.unwrap();
    page["items"].as_array().cloned().unwrap()
}

/// What rmcp's client sees, in one era, against a running service.
async fn rmcp_scenario(server: &Server, modern: bool) {
    let c = client(&server.url, modern).await;
    let customer = if modern { "rmcp-modern" } else { "rmcp-legacy" };
    let tools: Vec<String> = c.list_all_tools().await.unwrap().into_iter().map(|t| t.name.to_string()).collect();
    assert_eq!(tools, ["cancel_order", "create_order", "get_order", "list_orders", "quote_shipping"]);

    // Typed arguments arrive validated: a quantity of 0 never reaches the handler.
    let bad = json!({"customer": customer, "currency": "EUR", "idempotency_key": format!("{customer}-bad"),
        "lines": [{"sku": "MUG-01", "quantity": 0, "unit_price": 100}]});
    let e = error_body(&call(&c, "create_order", bad).await);
    assert_eq!(e["code"], "invalid_argument", "{e}");
    assert!(e["field"].as_str().unwrap().contains("quantity"), "{e}");
    assert!(e["message"].as_str().unwrap().contains("minimum"), "{e}");
    let bad_currency = json!({"customer": customer, "currency": "GBP", "idempotency_key": format!("{customer}-gbp"),
        "lines": [{"sku": "MUG-01", "quantity": 1, "unit_price": 100}]});
    assert_eq!(error_body(&call(&c, "create_order", bad_currency).await)["code"], "invalid_argument");
    assert!(http_orders(server, customer).await.is_empty(), "refused calls wrote nothing");

    // A keyed create, repeated: the second answer is the first, byte for byte, and one order.
    let order = json!({"customer": customer, "currency": "TRY", "note": "first",
        "lines": [{"sku": "MUG-01", "quantity": 2, "unit_price": 1250}, {"sku": "TEA-9", "quantity": 1, "unit_price": 300}],
        "idempotency_key": format!("{customer}-k1")});
    let first = call(&c, "create_order", order.clone()).await;
    assert_eq!(first.is_error, Some(false), "{first:?}");
    let created = first.structured_content.clone().unwrap();
    assert_eq!(created["total"], 2800);
    assert_eq!(created["status"], "placed");
    assert!(!replayed(&first));
    let again = call(&c, "create_order", order.clone()).await;
    assert!(replayed(&again), "{again:?}");
    assert_eq!(text(&again), text(&first), "a replay is the first result byte for byte (R3)");
    assert_eq!(again.structured_content, first.structured_content);
    let stored = http_orders(server, customer).await;
    assert_eq!(stored.len(), 1, "one intent, one order: {stored:?}");
    assert_eq!(stored[0], created, "the HTTP API reads the order the tool wrote");
    // The same key with other arguments is another intent: refused, not run.
    let reused = json!({"customer": customer, "currency": "TRY", "lines": [{"sku": "MUG-01", "quantity": 9, "unit_price": 1}],
        "idempotency_key": format!("{customer}-k1")});
    assert_eq!(error_body(&call(&c, "create_order", reused).await)["code"], "idempotency_key_reused");

    // A handler's own errors reach the model as E2 bodies.
    let missing = error_body(&call(&c, "get_order", json!({"order_id": "ord_0123456789abcdef"})).await);
    assert_eq!(missing["code"], "not_found");
    assert_eq!(missing["retryable"], false);
    assert_eq!(missing["recovery"], "Verify the id with list_orders; do not guess ids.");
    assert_eq!(missing["field"], "order_id");
    let id = created["id"].as_str().unwrap();
    let got = call(&c, "get_order", json!({"order_id": id})).await;
    assert_eq!(got.structured_content.as_ref(), Some(&created));
    let cancel = json!({"order_id": id, "reason": "out_of_stock", "idempotency_key": format!("{customer}-cancel")});
    let cancelled = call(&c, "cancel_order", cancel.clone()).await;
    assert_eq!(cancelled.structured_content.as_ref().unwrap()["status"], "cancelled");
    assert_eq!(text(&call(&c, "cancel_order", cancel).await), text(&cancelled), "a repeated cancel replays");
    let twice = json!({"order_id": id, "reason": "out_of_stock", "idempotency_key": format!("{customer}-cancel-2")});
    let conflict = error_body(&call(&c, "cancel_order", twice).await);
    assert_eq!(conflict["code"], "conflict", "{conflict}");
    assert!(conflict["message"].as_str().unwrap().contains("cancelled"), "{conflict}");

    // A list pages through handles: every order once, none twice, the raw cursor never shown.
    for i in 0..4 {
        let more = json!({"customer": customer, "currency": "EUR", "lines": [{"sku": "CUP-2", "quantity": 1, "unit_price": 10}],
            "note": format!("more {i}"), "idempotency_key": format!("{customer}-more-{i}")});
        assert_eq!(call(&c, "create_order", more).await.is_error, Some(false));
    }
    let (mut seen, mut cursor, mut pages) = (Vec::new(), None::<String>, 0);
    loop {
        let mut args = json!({"customer": customer, "limit": 2});
        if let Some(h) = &cursor {
            args["cursor"] = json!(h);
        }
        let page = call(&c, "list_orders", args).await.structured_content.unwrap();
        pages += 1;
        seen.extend(page["items"].as_array().unwrap().iter().map(|o| o["id"].as_str().unwrap().to_owned()));
        match page["next_cursor"].as_str() {
            Some(h) => {
                assert!(h.starts_with("h1_"), "a handle, not the service's cursor: {h}");
                cursor = Some(h.to_owned());
            }
            None => break,
        }
    }
    assert_eq!(pages, 3);
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!((seen.len(), unique.len()), (5, 5), "{seen:?}");
    let forged = error_body(&call(&c, "list_orders", json!({"customer": customer, "cursor": "h1_forged.AAAA"})).await);
    assert_eq!((forged["code"].as_str(), forged["field"].as_str()), (Some("invalid_argument"), Some("cursor")));

    // A tool with no operation behind it: its contract is two JSON Schema files.
    let quote = call(&c, "quote_shipping", json!({"country": "DE", "weight_grams": 2500, "express": true})).await;
    assert_eq!(quote.structured_content, Some(json!({"currency": "EUR", "amount": 1880, "days": 1})));
    let bad_country = error_body(&call(&c, "quote_shipping", json!({"country": "Germany", "weight_grams": 1})).await);
    assert_eq!(bad_country["field"], "country");
    c.cancel().await.unwrap();
}

/// What the official Python SDK sees, in one era.
fn python_scenario(server: &Server, mode: &str) {
    let customer = format!("py-{}", mode.replace('-', ""));
    let out = std::process::Command::new(python())
        .arg(repo().join("tests/python/orders_client.py"))
        .args(["--url", &server.url, "--mode", mode, "--customer", &customer])
        .output()
        .unwrap();
    assert!(out.status.success(), "python client failed: {}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["tools"], json!(["cancel_order", "create_order", "get_order", "list_orders", "quote_shipping"]));
    assert_eq!(r["create"]["is_error"], false, "{r}");
    assert_eq!(r["repeat"]["text"], r["create"]["text"], "replayed byte for byte: {r}");
    let invalid: Value = serde_json::from_str(r["invalid"]["text"][0].as_str().unwrap()).unwrap();
    assert_eq!(invalid["code"], "invalid_argument");
    let missing: Value = serde_json::from_str(r["missing"]["text"][0].as_str().unwrap()).unwrap();
    assert_eq!(missing["code"], "not_found");
    assert_eq!(r["cancel"]["structured"]["status"], "cancelled");
    let again: Value = serde_json::from_str(r["cancel_again"]["text"][0].as_str().unwrap()).unwrap();
    assert_eq!(again["code"], "conflict");
    assert_eq!(r["pages"], 3, "{r}");
    let listed = r["listed"].as_array().unwrap();
    let mut unique: Vec<&str> = listed.iter().filter_map(Value::as_str).collect();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!((listed.len(), unique.len()), (5, 5), "{r}");
    assert_eq!(r["quote"]["structured"], json!({"currency": "EUR", "amount": 790, "days": 3}));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_native_example_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite://{}", dir.path().join("orders.db").display());
    let server = start(&store);
    rmcp_scenario(&server, true).await;
    rmcp_scenario(&server, false).await;
    let s = &server;
    tokio::task::block_in_place(|| {
        python_scenario(s, "2026-07-28");
        python_scenario(s, "legacy");
    });
}

#[tokio::test(flavor = "multi_thread")]
async fn the_native_example_on_postgres() {
    let store = pg_schema("native_example").await;
    let server = start(&store);
    rmcp_scenario(&server, true).await;
    let s = &server;
    tokio::task::block_in_place(|| python_scenario(s, "2026-07-28"));
}
