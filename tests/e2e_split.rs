//! End to end for split tools and toolsets (CONTRACT T2): the generated withdrawals server, built
//! and started as a real process against a loopback upstream, driven by rmcp's client. The
//! actions endpoint is served as approve/reject tools whose fixed `action` reaches the upstream,
//! and the `review` toolset has its own endpoint with only its tools.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Command;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path, State};
use axum::routing::post;
use mcp_gen_runtime::rmcp::model::{CallToolRequestParams, ErrorCode};
use mcp_gen_runtime::rmcp::{ServiceError, ServiceExt};
use serde_json::{Value, json};

type Seen = Arc<Mutex<Vec<(String, Value)>>>;

async fn action(State(seen): State<Seen>, Path(id): Path<String>, Json(body): Json<Value>) -> Json<Value> {
    seen.lock().unwrap().push((id.clone(), body.clone()));
    let status = if body["action"] == "approve" { "approved" } else { "rejected" };
    Json(json!({"id": id, "customer_id": "c1", "amount": 500, "currency": "USD", "status": status,
        "reason": body.get("reason"), "created_at": "2026-11-30T00:00:00Z"}))
}

/// The upstream on a loopback port, on its own thread.
fn upstream() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let app = axum::Router::new().route("/api/v2/withdrawals/{id}/actions", post(action)).with_state(seen.clone());
    let addr = support::serve_upstream(app);
    (format!("http://{addr}/api/v2"), seen)
}

fn names(tools: &[mcp_gen_runtime::rmcp::model::Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn split_tools_send_their_fixed_value_and_toolsets_have_their_own_endpoint() {
    let (url, seen) = upstream();
    let server = support::serve_http(
        &support::binary("withdrawals-mcp"),
        &["--upstream", &url],
        &[("WITHDRAWALS_API_KEY", "k")],
    );
    mcp_gen_runtime::init_tls();
    let transport = |u: String| mcp_gen_runtime::rmcp::transport::StreamableHttpClientTransport::from_uri(u);

    // The whole catalog on the base endpoint.
    let all = ().serve(transport(server.url.clone())).await.unwrap();
    let listed = all.list_all_tools().await.unwrap();
    assert_eq!(
        names(&listed),
        ["approve_withdrawal", "create_withdrawal", "get_withdrawal", "list_withdrawals", "reject_withdrawal"]
    );
    all.cancel().await.unwrap();

    // The review toolset: four tools, and only those can be called.
    let review = ().serve(transport(format!("{}/review", server.url.trim_end_matches('/')))).await.unwrap();
    // Its instructions say which toolset this is, in plain text.
    let instructions = review.peer_info().unwrap().instructions.clone().unwrap_or_default();
    assert!(instructions.contains("\n\nThis endpoint serves the review toolset: "), "{instructions}");
    assert_eq!(mcp_gen::plan::describe::markup(&instructions), None, "{instructions}");
    let listed = review.list_all_tools().await.unwrap();
    assert_eq!(names(&listed), ["approve_withdrawal", "get_withdrawal", "list_withdrawals", "reject_withdrawal"]);
    let approve = listed.iter().find(|t| t.name == "approve_withdrawal").unwrap();
    // The selector is fixed, not an argument; approve takes no reason.
    let props = approve.input_schema.get("properties").and_then(Value::as_object).unwrap();
    assert_eq!(props.keys().collect::<Vec<_>>(), ["id", "idempotency_key"]);

    let id = "wd_0123456789abcdef";
    let args = |v: Value| v.as_object().cloned().unwrap();
    // Sending money cannot be undone: the first call is a plan a person approves (R8).
    let call = || {
        review.call_tool(
            CallToolRequestParams::new("approve_withdrawal")
                .with_arguments(args(json!({"id": id, "idempotency_key": "approve-1"}))),
        )
    };
    let planned = support::error_body(&call().await.unwrap());
    assert_eq!(planned["code"], "awaiting_approval");
    let approved = Command::new(support::binary("withdrawals-mcp"))
        .args(["approvals", "approve", planned["plan"]["id"].as_str().unwrap(), "--store"])
        .arg(format!("sqlite://{}", server.dir.path().join("withdrawals-mcp.db").display()))
        .status()
        .unwrap();
    assert!(approved.success());
    let r = call().await.unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    // A retry of the same intent is answered from the store: the money is sent once.
    let again = review
        .call_tool(
            CallToolRequestParams::new("approve_withdrawal")
                .with_arguments(args(json!({"id": id, "idempotency_key": "approve-1"}))),
        )
        .await
        .unwrap();
    assert_eq!(again.structured_content, r.structured_content);
    // An argument a split tool does not take is refused, not smuggled upstream.
    let r = review
        .call_tool(
            CallToolRequestParams::new("approve_withdrawal")
                .with_arguments(args(json!({"id": id, "action": "reject", "idempotency_key": "approve-2"}))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    // reject requires its reason (the overlay made it required).
    let r = review
        .call_tool(
            CallToolRequestParams::new("reject_withdrawal")
                .with_arguments(args(json!({"id": id, "idempotency_key": "reject-1"}))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    let r = review
        .call_tool(CallToolRequestParams::new("reject_withdrawal").with_arguments(args(
            json!({"id": id, "reason": "bank details do not match", "idempotency_key": "reject-1"}),
        )))
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    match review
        .call_tool(
            CallToolRequestParams::new("create_withdrawal")
                .with_arguments(args(json!({"customer_id": "c1", "amount": 5, "currency": "USD"}))),
        )
        .await
    {
        Err(ServiceError::McpError(e)) => assert_eq!(e.code, ErrorCode::INVALID_PARAMS),
        other => panic!("a tool outside the toolset must be unknown there, got {other:?}"),
    }
    review.cancel().await.unwrap();

    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            (id.to_owned(), json!({"action": "approve"})),
            (id.to_owned(), json!({"action": "reject", "reason": "bank details do not match"})),
        ]
    );
}
