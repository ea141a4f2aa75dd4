//! Values the user gives or confirms (CONTRACT M1–M3) through multi-round-trip requests: the
//! withdrawals server's `reject_withdrawal` asks the reviewer for the reason the customer will
//! read (overlay `ask`); the users server's `update_user_role` has the person confirm the role
//! (overlay `confirm`). Driven by the official Python SDK (which answers elicitations itself in
//! the 2026-07-28 era) and by raw requests for the request state's defences.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Command;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path, State};
use axum::routing::post;
use serde_json::{Value, json};

const WD: &str = "wd_0123456789abcdef";

type Seen = Arc<Mutex<Vec<Value>>>;

async fn action(State(seen): State<Seen>, Path(id): Path<String>, Json(body): Json<Value>) -> Json<Value> {
    seen.lock().unwrap().push(body.clone());
    Json(json!({"id": id, "customer_id": "c1", "amount": 500, "currency": "USD", "status": "rejected",
        "reason": body.get("reason"), "created_at": "2026-11-30T00:00:00Z"}))
}

fn withdrawals() -> (support::Server, Seen) {
    let seen: Seen = Arc::default();
    let app = axum::Router::new().route("/api/v2/withdrawals/{id}/actions", post(action)).with_state(seen.clone());
    let upstream = format!("http://{}/api/v2", support::serve_upstream(app));
    let server = support::serve_http(
        &support::binary("withdrawals-mcp"),
        &["--upstream", &upstream],
        &[("WITHDRAWALS_API_KEY", "k")],
    );
    (server, seen)
}

/// One 2026-07-28 `tools/call` with `extra` params (`inputResponses`, `requestState`), from a
/// client that declares elicitation (or not); the JSON-RPC result.
async fn call(url: &str, args: &Value, extra: Value, elicitation: bool) -> Value {
    mcp_gen_runtime::init_tls();
    let caps = if elicitation { json!({"elicitation": {}}) } else { json!({}) };
    let mut params = json!({"name": "reject_withdrawal", "arguments": args,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": caps}});
    for (k, v) in extra.as_object().unwrap() {
        params[k] = v.clone();
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let text = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "reject_withdrawal")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let reply: Value = serde_json::from_str(&text).unwrap();
    reply["result"].clone()
}

fn refused(result: &Value) -> Value {
    assert_eq!(result["isError"], true, "expected a refusal: {result}");
    serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap()
}

fn python(url: &str, mode: &str, tool: &str, args: Value, answer: Value) -> Value {
    let out = Command::new(support::python())
        .arg(support::repo().join("tests/python/elicit_client.py"))
        .args([
            "--url",
            url,
            "--mode",
            mode,
            "--tool",
            tool,
            "--args",
            &args.to_string(),
            "--answer",
            &answer.to_string(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_sdk_answers_the_question_and_the_call_completes() {
    let (server, seen) = withdrawals();
    let reason = "the bank account is closed";
    let out = python(
        &server.url,
        "2026-07-28",
        "reject_withdrawal",
        json!({"id": WD, "idempotency_key": "py-reject-1"}),
        json!({"reason": reason}),
    );
    assert_eq!(out["elicitations"].as_array().unwrap().len(), 1, "{out}");
    assert_eq!(
        out["elicitations"][0]["message"],
        "Why is this withdrawal rejected? The customer will read the reason."
    );
    assert_eq!(out["elicitations"][0]["schema"]["required"], json!(["reason"]));
    assert_eq!(out["is_error"], false, "{out}");
    assert_eq!(out["structured"]["reason"], reason);
    assert_eq!(seen.lock().unwrap().clone(), [json!({"action": "reject", "reason": reason})]);

    // An initialize-era client cannot be asked over this transport: it is told what to ask.
    let out = python(
        &server.url,
        "legacy",
        "reject_withdrawal",
        json!({"id": WD, "idempotency_key": "py-reject-2"}),
        json!({"reason": reason}),
    );
    assert_eq!(out["is_error"], true, "{out}");
    let e: Value = serde_json::from_str(out["text"][0].as_str().unwrap()).unwrap();
    assert_eq!((e["code"].as_str(), e["field"].as_str()), (Some("user_input_required"), Some("reason")), "{e}");
    assert!(e["recovery"].as_str().unwrap().contains("Ask the user \"Why is this withdrawal rejected?"), "{e}");
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn request_states_are_bound_single_use_and_two_rounds_at_most() {
    let (server, seen) = withdrawals();
    let url = server.url.as_str();
    let args = json!({"id": WD, "idempotency_key": "raw-reject-1"});

    let first = call(url, &args, json!({}), true).await;
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert_eq!(first["inputRequests"]["ask:reason"]["method"], "elicitation/create");
    let state = first["requestState"].as_str().unwrap().to_owned();
    let answer = json!({"ask:reason": {"action": "accept", "content": {"reason": "closed account"}}});

    // Tampered, or for other arguments: refused, nothing sent.
    let mut tampered = state.clone();
    let last = tampered.pop().unwrap();
    tampered.push(if last == 'A' { 'B' } else { 'A' });
    let e = refused(&call(url, &args, json!({"inputResponses": answer, "requestState": tampered}), true).await);
    assert_eq!(e["field"], "requestState", "{e}");
    let other = json!({"id": "wd_fedcba9876543210", "idempotency_key": "raw-reject-1"});
    let e = refused(&call(url, &other, json!({"inputResponses": answer, "requestState": state}), true).await);
    assert!(e["message"].as_str().unwrap().contains("other arguments"), "{e}");
    assert!(seen.lock().unwrap().is_empty());

    // Answered: the call completes with the user's value.
    let done = call(url, &args, json!({"inputResponses": answer, "requestState": state}), true).await;
    assert_ne!(done["isError"], true, "{done}");
    assert_eq!(done["structuredContent"]["reason"], "closed account");
    // Replayed: refused.
    let e = refused(&call(url, &args, json!({"inputResponses": answer, "requestState": state}), true).await);
    assert!(e["message"].as_str().unwrap().contains("already used"), "{e}");
    assert_eq!(seen.lock().unwrap().len(), 1);

    // Unanswered: asked again once; a third round is refused.
    let args = json!({"id": WD, "idempotency_key": "raw-reject-2"});
    let first = call(url, &args, json!({}), true).await;
    let second =
        call(url, &args, json!({"inputResponses": {}, "requestState": first["requestState"].clone()}), true).await;
    assert_eq!(second["resultType"], "input_required", "{second}");
    let third =
        call(url, &args, json!({"inputResponses": {}, "requestState": second["requestState"].clone()}), true).await;
    let e = refused(&third);
    assert!(e["message"].as_str().unwrap().contains("asked the user 2 times"), "{e}");

    // A client that declares no elicitation is told what to ask.
    let e = refused(&call(url, &json!({"id": WD, "idempotency_key": "raw-reject-3"}), json!({}), false).await);
    assert_eq!((e["code"].as_str(), e["field"].as_str()), (Some("user_input_required"), Some("reason")), "{e}");
    // Declined: the call does not run.
    let args = json!({"id": WD, "idempotency_key": "raw-reject-4"});
    let first = call(url, &args, json!({}), true).await;
    let declined = json!({"ask:reason": {"action": "decline"}});
    let e = refused(
        &call(url, &args, json!({"inputResponses": declined, "requestState": first["requestState"].clone()}), true)
            .await,
    );
    assert!(e["message"].as_str().unwrap().contains("declined"), "{e}");
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_consequential_value_runs_only_once_the_user_confirms_it() {
    type Sent = Arc<Mutex<Vec<Value>>>;
    let sent: Sent = Arc::default();
    let record = sent.clone();
    let app = axum::Router::new().route(
        "/v1/users/manage",
        post(move |Json(body): Json<Value>| {
            let record = record.clone();
            async move {
                record.lock().unwrap().push(body.clone());
                Json(json!({"id": body["user_id"], "email": "a@example.com", "name": "A", "role": body["role"],
                    "created_at": "2026-01-01T00:00:00Z", "deleted_at": null}))
            }
        }),
    );
    let upstream = format!("http://{}/v1", support::serve_upstream(app));
    let server = support::serve_http(
        &support::binary("users-mcp"),
        &["--upstream", &upstream, "--no-answer-check"],
        &[("USERS_OAUTH_TOKEN", "t")],
    );
    let args = json!({"user_id": "usr_abcdefghijkl", "role": "admin", "idempotency_key": "role-1"});
    let no = python(&server.url, "2026-07-28", "update_user_role", args.clone(), json!({"confirm": false}));
    assert_eq!(no["elicitations"][0]["schema"]["required"], json!(["confirm"]), "{no}");
    assert!(no["elicitations"][0]["message"].as_str().unwrap().contains("role = \"admin\""), "{no}");
    assert_eq!(no["is_error"], true, "{no}");
    assert!(sent.lock().unwrap().is_empty(), "an unconfirmed role was sent");
    let yes = python(&server.url, "2026-07-28", "update_user_role", args, json!({"confirm": true}));
    assert_eq!(yes["is_error"], false, "{yes}");
    assert_eq!(sent.lock().unwrap().len(), 1);
}
