//! Contract changes clients survive. Deprecation windows (CONTRACT V3): the users example
//! renamed `fetch_user` to `get_user` and serves the old name as an alias until its day.
//! Contract versions side by side (CONTRACT V5): the shop example keeps its v1 contract
//! (`generated/shop/versions/v1/`) beside v2, which broke it: `list_customers` renamed
//! `search_customers`, `delete_coupon` removed, `create_order` with a new required `channel`.
//! A client written against v1 keeps working unchanged on `/mcp/v1` (the official Python SDK,
//! both eras; rmcp's client), while `/mcp/v2` holds its callers to the new contract. The
//! upstream is a real loopback HTTP service that records what it is asked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Command;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::body::Bytes;
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use mcp_gen_runtime::rmcp::ClientServiceExt;
use mcp_gen_runtime::rmcp::model::{CallToolRequestParams, ProtocolVersion};
use serde_json::{Value, json};

type Seen = Arc<Mutex<Vec<(String, String, Value)>>>;

/// The shop API, answering both versions' requests as the live API does during a migration.
async fn shop(
    axum::extract::State(seen): axum::extract::State<Seen>,
    method: Method,
    uri: Uri,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    seen.lock().unwrap().push((method.to_string(), uri.path().to_owned(), body.clone()));
    match (method.as_str(), uri.path()) {
        ("GET", "/v1/customers") => Json(json!([{"id": "cus_1", "email": "ada@example.com"}])).into_response(),
        ("POST", "/v1/orders") => Json(json!({"id": "ord_1", "status": "open"})).into_response(),
        ("DELETE", p) if p.starts_with("/v1/coupons/") => StatusCode::NO_CONTENT.into_response(),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

fn server() -> (support::Server, Seen) {
    let seen: Seen = Arc::default();
    let app = axum::Router::new().fallback(shop).with_state(seen.clone());
    let upstream = format!("http://{}/v1", support::serve_upstream(app));
    let server = support::serve_http(&support::binary("shop-mcp"), &["--upstream", &upstream], &[]);
    (server, seen)
}

fn endpoint(server: &support::Server, version: &str) -> String {
    let base = server.url.trim_end_matches('/');
    assert!(base.ends_with("/mcp/v2"), "the current contract is served at /mcp/v2 by default: {base}");
    format!("{}/{version}", base.trim_end_matches("/v2"))
}

fn catalog(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(support::repo().join(path)).unwrap()).unwrap()
}

fn python(url: &str, mode: &str, tool: &str, args: Value) -> Value {
    let out = Command::new(support::python())
        .arg(support::repo().join("tests/python/call_tool.py"))
        .args(["--url", url, "--mode", mode, "--tool", tool, "--args", &args.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success(), "python client failed:\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_v1_client_keeps_working_after_a_breaking_v2() {
    let (server, seen) = server();
    let v1 = endpoint(&server, "v1");
    let order =
        json!({"product_ids": [1], "shipping": {"line1": "1 Main St", "postal_code": "12345", "country": "DE"}});
    for mode in ["2026-07-28", "legacy"] {
        // The v1 client's calls, exactly as it made them before v2: each validated by the SDK
        // against v1's outputSchema on the way back.
        let listed = python(&v1, mode, "list_customers", json!({}));
        assert_eq!(listed["is_error"], false, "{mode}: {listed}");
        let mut args = order.clone();
        args["idempotency_key"] = json!(format!("order-{mode}"));
        let created = python(&v1, mode, "create_order", args);
        assert_eq!(created["is_error"], false, "{mode}: {created}");
        assert_eq!(created["structured"]["id"], "ord_1");
        let deleted =
            python(&v1, mode, "delete_coupon", json!({"couponId": "SPRING", "idempotency_key": format!("c-{mode}")}));
        assert_eq!(deleted["is_error"], false, "{mode}: {deleted}");
        assert_eq!(deleted["structured"]["ok"], true);
    }
    let requests: Vec<(String, String)> = seen.lock().unwrap().iter().map(|(m, p, _)| (m.clone(), p.clone())).collect();
    assert_eq!(
        requests.iter().filter(|(m, p)| m == "DELETE" && p == "/v1/coupons/SPRING").count(),
        2,
        "v1's removed tool still reaches the API: {requests:?}"
    );
    // What v1 sent is v1's request: no `channel`, which v1 never had.
    let orders: Vec<Value> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(m, p, _)| m == "POST" && p == "/v1/orders")
        .map(|(_, _, b)| b.clone())
        .collect();
    assert_eq!(orders.len(), 2);
    assert!(orders.iter().all(|b| b.get("channel").is_none()), "{orders:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn each_version_lists_and_validates_its_own_contract() {
    let (server, seen) = server();
    mcp_gen_runtime::init_tls();
    for (version, file) in [("v1", "generated/shop/versions/v1/tools.json"), ("v2", "generated/shop/tools.json")] {
        let transport =
            mcp_gen_runtime::rmcp::transport::StreamableHttpClientTransport::from_uri(endpoint(&server, version));
        let era = mcp_gen_runtime::rmcp::ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        let client = ().serve_with_lifecycle(transport, era).await.unwrap();
        let listed = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
        assert_eq!(listed, catalog(file)["tools"], "{version} lists exactly its own catalog");
        // v1's create_order call: valid on v1, missing v2's required `channel` on v2.
        let args = json!({"product_ids": [1], "shipping": {"line1": "1 Main St", "postal_code": "12345", "country": "DE"},
            "idempotency_key": format!("rmcp-{version}")});
        let result = client
            .call_tool(CallToolRequestParams::new("create_order").with_arguments(args.as_object().unwrap().clone()))
            .await
            .unwrap();
        if version == "v1" {
            assert_ne!(result.is_error, Some(true), "{result:?}");
        } else {
            let body = support::error_body(&result);
            assert_eq!(body["code"], "invalid_argument", "{body}");
            assert!(body.to_string().contains("channel"), "{body}");
        }
        client.cancel().await.unwrap();
    }
    let posts = seen.lock().unwrap().iter().filter(|(m, p, _)| m == "POST" && p == "/v1/orders").count();
    assert_eq!(posts, 1, "only the valid v1 call reached the API");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_renamed_tool_answers_under_its_old_name_during_its_window() {
    let seen: Seen = Arc::default();
    let users = axum::Router::new()
        .fallback(|method: Method, uri: Uri, axum::extract::State(seen): axum::extract::State<Seen>| async move {
            seen.lock().unwrap().push((method.to_string(), uri.path().to_owned(), Value::Null));
            Json(json!({"id": "usr_0123456789ab", "email": "ada@example.com", "name": "Ada", "role": "admin",
                "created_at": "2026-01-01T00:00:00Z"}))
        })
        .with_state(seen.clone());
    let upstream = format!("http://{}/v1", support::serve_upstream(users));
    let server =
        support::serve_http(&support::binary("users-mcp"), &["--upstream", &upstream], &[("USERS_API_KEY", "k")]);
    mcp_gen_runtime::init_tls();
    let transport = mcp_gen_runtime::rmcp::transport::StreamableHttpClientTransport::from_uri(server.url.clone());
    let client =
        ().serve_with_lifecycle(transport, mcp_gen_runtime::rmcp::ClientLifecycleMode::Initialize).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let alias = tools.iter().find(|t| t.name == "fetch_user").expect("the old name is listed during its window");
    let current = tools.iter().find(|t| t.name == "get_user").unwrap();
    assert!(alias.description.as_deref().unwrap().starts_with("Deprecated name of get_user, served until 2027-12-31"));
    assert_eq!(alias.input_schema, current.input_schema, "the same contract under the old name");
    let args = json!({"user_id": "usr_0123456789ab"}).as_object().unwrap().clone();
    let old = client.call_tool(CallToolRequestParams::new("fetch_user").with_arguments(args.clone())).await.unwrap();
    let new = client.call_tool(CallToolRequestParams::new("get_user").with_arguments(args)).await.unwrap();
    assert_ne!(old.is_error, Some(true), "{old:?}");
    assert_eq!(old.structured_content, new.structured_content);
    let paths: Vec<String> = seen.lock().unwrap().iter().map(|(m, p, _)| format!("{m} {p}")).collect();
    assert_eq!(paths, ["GET /v1/users/usr_0123456789ab", "GET /v1/users/usr_0123456789ab"]);
    client.cancel().await.unwrap();
}
