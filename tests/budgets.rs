//! Response budgets end to end: the invoices server in front of an upstream whose list pages are
//! each over a megabyte. Every result the model reads stays within the tool's budget (8,000
//! o200k_base tokens, counted here with the compiler's own counter), and paging through the
//! handles the cut results carry sees every invoice exactly once, in order.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Query, State};
use axum::routing::get;
use serde_json::{Value, json};
use support::{call, modern_client};

/// Invoices per upstream page, and pages: two pages of more than 1 MB each.
const PER_PAGE: usize = 2_000;
const PAGES: usize = 2;

fn invoice(i: usize) -> Value {
    let lines: Vec<Value> = (0..3)
        .map(|l| {
            json!({"description": format!("Hosting plan {l} for the period of invoice {i}, with support and backups included"),
                "quantity": 1 + l, "unit_amount": 1250})
        })
        .collect();
    json!({"id": format!("inv_{i:014}"), "customer": format!("cus_{:06}", i % 97), "currency": "EUR",
        "status": "open", "total": 7500, "due_date": null, "lines": lines})
}

/// The upstream's pages, and how many times each was asked for.
async fn list(State(asked): State<Arc<Mutex<Vec<usize>>>>, Query(q): Query<Vec<(String, String)>>) -> Json<Value> {
    let page: usize =
        q.iter().find(|(k, _)| k == "cursor").and_then(|(_, v)| v.strip_prefix("page-")?.parse().ok()).unwrap_or(0);
    asked.lock().unwrap().push(page);
    let items: Vec<Value> = (page * PER_PAGE..(page + 1) * PER_PAGE).map(invoice).collect();
    let next = if page + 1 < PAGES { json!(format!("page-{}", page + 1)) } else { Value::Null };
    Json(json!({"items": items, "next_cursor": next}))
}

#[tokio::test(flavor = "multi_thread")]
async fn large_lists_are_cut_into_pages_within_the_budget_and_lose_no_item() {
    let asked: Arc<Mutex<Vec<usize>>> = Arc::default();
    let app = axum::Router::new().route("/v1/invoices", get(list)).with_state(asked.clone());
    let upstream = format!("http://{}", support::serve_upstream(app));
    let server = support::serve_http(
        &support::binary("invoices-mcp"),
        &["--upstream", &upstream],
        &[("INVOICES_BEARER_TOKEN", "t"), ("INVOICES_HANDLE_KEY", "a handle key of 32 characters at least")],
    );
    let client = modern_client(&server.url).await;
    let page_bytes = serde_json::to_string(
        &json!({"items": (0..PER_PAGE).map(invoice).collect::<Vec<_>>(), "next_cursor": "page-1"}),
    )
    .unwrap();
    assert!(page_bytes.len() > 1_000_000, "an upstream page is {} bytes", page_bytes.len());
    let page_tokens = mcp_gen::tokens::count(&page_bytes);

    let mut seen: Vec<String> = Vec::new();
    let mut args = json!({});
    let mut results = 0;
    let mut delivered = 0;
    loop {
        let result = call(&client, "list_invoices", args.clone()).await;
        assert_ne!(result.is_error, Some(true), "{result:?}");
        results += 1;
        let value = result.structured_content.clone().unwrap();
        let tokens = mcp_gen::tokens::count(&value.to_string());
        assert!(tokens <= 8_000, "result {results} is {tokens} tokens");
        delivered += tokens;
        let items = value["items"].as_array().unwrap();
        assert!(!items.is_empty());
        seen.extend(items.iter().map(|i| i["id"].as_str().unwrap().to_owned()));
        // A cut result says so, beside the JSON, and how to go on: the first one is cut.
        let cut = result
            .content
            .iter()
            .filter_map(|c| c.as_text())
            .any(|t| t.text.starts_with("Cut to fit the 8000-token result budget"));
        if results == 1 {
            assert!(cut, "the first page is over budget and says it was cut");
        }
        match value["next_cursor"].as_str() {
            Some(handle) => args = json!({"cursor": handle}),
            None => break,
        }
        assert!(results < 1_000, "paging does not end");
    }
    let want: Vec<String> = (0..PER_PAGE * PAGES).map(|i| format!("inv_{i:014}")).collect();
    assert_eq!(seen.len(), want.len(), "no item lost or repeated");
    assert_eq!(seen, want, "every invoice once, in order");
    let saved = page_tokens.saturating_sub(delivered / results);
    eprintln!(
        "budget 8000: {} invoices over {PAGES} upstream pages of {} bytes ({page_tokens} tokens each) came in {results} results of at most 8000 tokens ({} on average; {saved} tokens fewer per result than a whole page)",
        want.len(),
        page_bytes.len(),
        delivered / results
    );
    // Each upstream page was fetched once per result that showed a part of it.
    assert_eq!(asked.lock().unwrap().len(), results);
    client.cancel().await.unwrap();
}
