//! Plan, approve, apply (CONTRACT R8) end to end: the generated withdrawals server, whose
//! `approve_withdrawal` sends money and cannot be undone (`reversible: false, approver: human`),
//! started as a real process against a loopback upstream that counts what it is asked to do.
//! Clients: rmcp's, the official Python SDK in both protocol eras, and raw HTTP for the
//! per-caller and operator checks. Stores: SQLite and PostgreSQL, with a restart between the plan
//! and its approval.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Command;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path, State};
use axum::routing::post;
use serde_json::{Value, json};

const OPERATOR: &str = "the operator's token, 32 characters or more";
const WD: &str = "wd_0123456789abcdef";

type Seen = Arc<Mutex<Vec<Value>>>;

async fn action(State(seen): State<Seen>, Path(id): Path<String>, Json(body): Json<Value>) -> Json<Value> {
    seen.lock().unwrap().push(body.clone());
    let status = if body["action"] == "approve" { "approved" } else { "rejected" };
    Json(json!({"id": id, "customer_id": "c1", "amount": 500, "currency": "USD", "status": status,
        "reason": body.get("reason"), "created_at": "2026-11-30T00:00:00Z"}))
}

async fn create(State(seen): State<Seen>, Json(body): Json<Value>) -> Json<Value> {
    seen.lock().unwrap().push(json!({"create": body}));
    Json(json!({"id": WD, "customer_id": body["customer_id"], "amount": body["amount"], "currency": body["currency"],
        "status": "pending_review", "reason": null, "created_at": "2026-11-30T00:00:00Z"}))
}

fn upstream() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let app = axum::Router::new()
        .route("/api/v2/withdrawals/{id}/actions", post(action))
        .route("/api/v2/withdrawals", post(create))
        .with_state(seen.clone());
    (format!("http://{}/api/v2", support::serve_upstream(app)), seen)
}

fn start(upstream: &str, store: &str, extra: &[&str]) -> support::Server {
    let mut args = vec!["--upstream", upstream, "--store", store];
    args.extend_from_slice(extra);
    support::serve_http(
        &support::binary("withdrawals-mcp"),
        &args,
        &[("WITHDRAWALS_API_KEY", "k"), ("WITHDRAWALS_OPERATOR_TOKEN", OPERATOR)],
    )
}

/// `withdrawals-mcp approvals <args> --store <store>`: exit code and stdout.
fn approvals(store: &str, args: &[&str]) -> (i32, String) {
    let out = Command::new(support::binary("withdrawals-mcp"))
        .arg("approvals")
        .args(args)
        .args(["--store", store])
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `approve_withdrawal` as `caller` (an `Authorization` value) with `key`: the tool result.
async fn approve(url: &str, caller: &str, key: &str) -> Value {
    let reply = support::raw_tools_call(
        url,
        1,
        "approve_withdrawal",
        &json!({"id": WD, "idempotency_key": key}),
        &[("authorization", caller)],
    )
    .await;
    reply["result"].clone()
}

fn body(result: &Value) -> Value {
    assert_eq!(result["isError"], true, "expected an error result: {result}");
    serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap()
}

async fn admin(url: &str, method: &str, path: &str, token: Option<&str>) -> (u16, Value) {
    mcp_gen_runtime::init_tls();
    let origin = url.trim_end_matches("/mcp/v1");
    let mut request = reqwest::Client::new().request(method.parse().unwrap(), format!("{origin}{path}"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn plan_approve_apply(store: &str) {
    let (up, seen) = upstream();
    let approvals_sent = || seen.lock().unwrap().iter().filter(|b| b["action"] == "approve").count();
    let server = start(&up, store, &[]);

    // The first call plans; nothing is sent. A repeat follows the same plan.
    let first = body(&approve(&server.url, "Bearer alice", "approve-1").await);
    assert_eq!(first["code"], "awaiting_approval", "{first}");
    assert_eq!(first["retryable"], true);
    let plan = first["plan"]["id"].as_str().unwrap().to_owned();
    assert!(first["plan"]["summary"].as_str().unwrap().contains(WD), "{first}");
    assert!(first["recovery"].as_str().unwrap().contains("same arguments and idempotency_key"), "{first}");
    let again = body(&approve(&server.url, "Bearer alice", "approve-1").await);
    assert_eq!(again["plan"]["id"], plan.as_str());
    // Another caller with the same key has a plan of its own: plans are the caller's.
    let carols = body(&approve(&server.url, "Bearer carol", "approve-1").await);
    let carols = carols["plan"]["id"].as_str().unwrap().to_owned();
    assert_ne!(carols, plan);
    assert_eq!(approvals_sent(), 0);

    // A restart between the plan and its approval loses nothing.
    drop(server);
    let server = start(&up, store, &[]);
    let (code, out) = approvals(store, &["list", "--json", "--status", "awaiting_approval"]);
    assert_eq!(code, 0, "{out}");
    let listed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(listed["plans"].as_array().unwrap().len(), 2, "{listed}");
    let (code, out) = approvals(store, &["approve", &plan, "--json"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["status"], "approved");

    // Approved: the same call runs, once; then it answers its result.
    let done = approve(&server.url, "Bearer alice", "approve-1").await;
    assert_ne!(done["isError"], true, "{done}");
    assert_eq!(done["structuredContent"]["status"], "approved");
    let replay = approve(&server.url, "Bearer alice", "approve-1").await;
    assert_eq!(replay["structuredContent"], done["structuredContent"]);
    assert_eq!(approvals_sent(), 1);
    let (_, out) = approvals(store, &["show", &plan, "--json"]);
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["status"], "applied");
    // Alice's approval is not Carol's.
    assert_eq!(body(&approve(&server.url, "Bearer carol", "approve-1").await)["code"], "awaiting_approval");
    assert_eq!(approvals_sent(), 1);

    // Rejected: final, with the reason; and a settled plan cannot be decided again.
    let second = body(&approve(&server.url, "Bearer alice", "approve-2").await);
    let second = second["plan"]["id"].as_str().unwrap().to_owned();
    assert_eq!(approvals(store, &["reject", &second, "--reason", "the account is under review"]).0, 0);
    let rejected = body(&approve(&server.url, "Bearer alice", "approve-2").await);
    assert_eq!((rejected["code"].as_str(), rejected["retryable"].as_bool()), (Some("approval_rejected"), Some(false)));
    assert!(rejected["message"].as_str().unwrap().contains("the account is under review"), "{rejected}");
    assert_eq!(approvals(store, &["approve", &second]).0, 1);

    // The operator API: the operator's token only; an MCP caller's credentials are not it.
    for token in [None, Some("wrong"), Some("alice")] {
        let (status, _) = admin(&server.url, "GET", "/admin/approvals", token).await;
        assert_eq!(status, 401, "{token:?}");
        let (status, _) = admin(&server.url, "POST", &format!("/admin/approvals/{carols}/approve"), token).await;
        assert_eq!(status, 401, "{token:?}");
    }
    let (status, listed) = admin(&server.url, "GET", "/admin/approvals?status=awaiting_approval", Some(OPERATOR)).await;
    assert_eq!(status, 200);
    assert_eq!(listed["plans"][0]["id"], carols.as_str(), "{listed}");
    let (status, decided) =
        admin(&server.url, "POST", &format!("/admin/approvals/{carols}/approve"), Some(OPERATOR)).await;
    assert_eq!((status, decided["decided_by"].as_str()), (200, Some("operator-api")));
    assert_ne!(approve(&server.url, "Bearer carol", "approve-1").await["isError"], true);
    assert_eq!(approvals_sent(), 2);
    drop(server);

    // Expired: nobody approved it in time.
    let server = start(&up, store, &["--plan-ttl", "1"]);
    let third = body(&approve(&server.url, "Bearer alice", "approve-3").await);
    let third = third["plan"]["id"].as_str().unwrap().to_owned();
    tokio::time::sleep(std::time::Duration::from_millis(1300)).await;
    assert_eq!(body(&approve(&server.url, "Bearer alice", "approve-3").await)["code"], "approval_expired");
    assert_eq!(approvals(store, &["approve", &third]).0, 1);
    assert_eq!(approvals_sent(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn plans_wait_for_approval_and_run_once_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite://{}", dir.path().join("plans.db").display());
    plan_approve_apply(&store).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn plans_wait_for_approval_and_run_once_on_postgres() {
    let store = support::pg_schema("plans").await;
    plan_approve_apply(&store).await;
}

/// rmcp's client and the official Python SDK in both eras follow a plan to its result.
#[tokio::test(flavor = "multi_thread")]
async fn clients_follow_a_plan_to_its_result() {
    let (up, seen) = upstream();
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite://{}", dir.path().join("plans.db").display());
    let server = start(&up, &store, &[]);

    let client = support::modern_client(&server.url).await;
    let args = json!({"id": WD, "idempotency_key": "rmcp-1"});
    let pending = support::call(&client, "approve_withdrawal", args.clone()).await;
    let e = support::error_body(&pending);
    assert_eq!(e["code"], "awaiting_approval");
    assert_eq!(approvals(&store, &["approve", e["plan"]["id"].as_str().unwrap()]).0, 0);
    let done = support::call(&client, "approve_withdrawal", args).await;
    assert_ne!(done.is_error, Some(true), "{done:?}");
    client.cancel().await.unwrap();

    for mode in ["2026-07-28", "legacy"] {
        let key = format!("python-{mode}");
        let call = || {
            let out = Command::new(support::python())
                .arg(support::repo().join("tests/python/call_tool.py"))
                .args(["--url", &server.url, "--mode", mode, "--tool", "approve_withdrawal"])
                .args(["--args", &json!({"id": WD, "idempotency_key": key}).to_string()])
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            serde_json::from_slice::<Value>(&out.stdout).unwrap()
        };
        let pending = call();
        assert_eq!(pending["is_error"], true, "{mode}: {pending}");
        let e: Value = serde_json::from_str(pending["text"][0].as_str().unwrap()).unwrap();
        assert_eq!(e["code"], "awaiting_approval", "{mode}: {e}");
        assert_eq!(approvals(&store, &["approve", e["plan"]["id"].as_str().unwrap()]).0, 0);
        let done = call();
        assert_eq!(done["is_error"], false, "{mode}: {done}");
        assert_eq!(done["structured"]["status"], "approved", "{mode}: {done}");
    }
    assert_eq!(seen.lock().unwrap().len(), 3, "each approved plan ran once");
}

/// The withdrawals overlay's rule: up to 10,000.00 USD goes at once, anything else waits for a
/// person; the plan says who approved.
#[tokio::test(flavor = "multi_thread")]
async fn a_rule_approves_small_withdrawals_and_a_person_the_rest() {
    let (up, seen) = upstream();
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite://{}", dir.path().join("plans.db").display());
    let server = start(&up, &store, &[]);
    let create = |amount: u64, currency: &str, key: &str| {
        let args = json!({"customer_id": "c1", "amount": amount, "currency": currency, "idempotency_key": key});
        let url = server.url.clone();
        async move { support::raw_tools_call(&url, 1, "create_withdrawal", &args, &[]).await["result"].clone() }
    };
    let sent = || seen.lock().unwrap().iter().filter(|b| b.get("create").is_some()).count();

    let small = create(1_000_000, "USD", "small-1").await;
    assert_ne!(small["isError"], true, "{small}");
    assert_eq!(small["structuredContent"]["amount"], 1_000_000);
    assert_eq!(sent(), 1);
    let (_, out) = approvals(&store, &["list", "--json"]);
    let listed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(listed["plans"][0]["status"], "applied", "{listed}");
    assert!(listed["plans"][0]["decided_by"].as_str().unwrap().starts_with("rule: amount <= 1000000"), "{listed}");

    for (n, (amount, currency, key)) in [(1_000_001, "USD", "large-1"), (100, "EUR", "euro-1")].into_iter().enumerate()
    {
        let e = body(&create(amount, currency, key).await);
        assert_eq!(e["code"], "awaiting_approval", "{amount} {currency}: {e}");
        assert_eq!(sent(), 1 + n, "sent before its approval");
        assert_eq!(approvals(&store, &["approve", e["plan"]["id"].as_str().unwrap()]).0, 0);
        assert_ne!(create(amount, currency, key).await["isError"], true);
    }
    assert_eq!(sent(), 3);
}
