//! What the MCP layer costs a native tool (issue 29): the same handler called directly, and
//! called as an MCP client does, `tools/call` over Streamable HTTP on loopback (validation,
//! idempotency record, handles, output check, JSON-RPC and HTTP included). One run, one table:
//! p50 and p99 of each, and the difference.
//!
//! ```sh
//! cargo bench -p orders-service --bench overhead            # 3000 calls each
//! CALLS=20000 cargo bench -p orders-service --bench overhead
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Instant;

use mcp_gen_runtime::native::Context;
use mcp_gen_runtime::serve::{self, HttpOptions};
use mcp_gen_runtime::store::{self, Store};
use orders_service::contract::Handlers;
use orders_service::contract::types::{CreateOrderArgs, CreateOrderArgsLine, Currency, GetOrderArgs};
use orders_service::{contract, orders, tools};
use serde_json::{Value, json};

fn pct(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn summary(mut micros: Vec<f64>) -> (f64, f64) {
    micros.sort_by(f64::total_cmp);
    (pct(&micros, 0.5), pct(&micros, 0.99))
}

fn new_order(i: usize) -> CreateOrderArgs {
    CreateOrderArgs {
        customer: format!("bench-{}", i % 50),
        currency: Currency::Eur,
        note: None,
        lines: vec![CreateOrderArgsLine { sku: "MUG-01".into(), quantity: 1 + (i % 3) as i64, unit_price: 1250 }],
    }
}

async fn mcp_call(client: &reqwest::Client, url: &str, id: usize, tool: &str, args: Value) -> Value {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": args, "_meta": meta}});
    let response = client
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let reply: Value = response.json().await.unwrap();
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    reply
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let calls: usize = std::env::var("CALLS").ok().and_then(|c| c.parse().ok()).unwrap_or(3000);
    let warmup = calls / 10;
    let store: Arc<dyn Store> = store::open("sqlite::memory:").await.unwrap();
    orders::migrate(store.as_ref()).await.unwrap();
    let handlers = tools::Tools::default();
    let server = contract::server(handlers.clone()).store(store.clone()).build().unwrap();
    let router = serve::router(&server, &HttpOptions::new("127.0.0.1:0".parse().unwrap())).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    mcp_gen_runtime::init_tls();
    let client = reqwest::Client::new();

    // An order to read.
    let mut cx = Context::with_store("create_order", store.clone());
    let order = handlers.create_order(&mut cx, new_order(0)).await.unwrap();
    cx.commit().await.unwrap();

    let mut rows = Vec::new();
    // get_order: a read.
    let (mut direct, mut mcp) = (Vec::new(), Vec::new());
    for i in 0..warmup + calls {
        let t = Instant::now();
        let mut cx = Context::with_store("get_order", store.clone());
        let got = handlers.get_order(&mut cx, GetOrderArgs { order_id: order.id.clone() }).await.unwrap();
        cx.commit().await.unwrap();
        let d = t.elapsed().as_secs_f64() * 1e6;
        assert_eq!(got.id, order.id);
        let t = Instant::now();
        mcp_call(&client, &url, i, "get_order", json!({"order_id": order.id})).await;
        let m = t.elapsed().as_secs_f64() * 1e6;
        if i >= warmup {
            direct.push(d);
            mcp.push(m);
        }
    }
    rows.push(("get_order (read)", summary(direct), summary(mcp)));
    // create_order: a keyed write, its order and its record committed together.
    let (mut direct, mut mcp) = (Vec::new(), Vec::new());
    for i in 0..warmup + calls {
        let t = Instant::now();
        let mut cx = Context::with_store("create_order", store.clone());
        handlers.create_order(&mut cx, new_order(i)).await.unwrap();
        cx.commit().await.unwrap();
        let d = t.elapsed().as_secs_f64() * 1e6;
        let mut args = serde_json::to_value(new_order(i)).unwrap();
        args["idempotency_key"] = json!(format!("bench-{i}"));
        let t = Instant::now();
        mcp_call(&client, &url, i, "create_order", args).await;
        let m = t.elapsed().as_secs_f64() * 1e6;
        if i >= warmup {
            direct.push(d);
            mcp.push(m);
        }
    }
    rows.push(("create_order (keyed write)", summary(direct), summary(mcp)));

    println!("{calls} calls each after {warmup} warm-up, SQLite store, loopback HTTP, one client at a time (µs):");
    println!();
    println!("| tool | direct p50 | direct p99 | MCP p50 | MCP p99 | added p50 | added p99 | MCP / direct (p50) |");
    println!("|---|---|---|---|---|---|---|---|");
    for (name, (dp50, dp99), (mp50, mp99)) in rows {
        println!(
            "| {name} | {dp50:.0} | {dp99:.0} | {mp50:.0} | {mp99:.0} | {:.0} | {:.0} | {:.2}x |",
            mp50 - dp50,
            mp99 - dp99,
            mp50 / dp50
        );
    }
}
