//! Long-running operations end to end: the invoices server's `render_invoice_pdf` calls an
//! operation that answers `202 Accepted` with a `Location` (and `Retry-After`); that address
//! answers `202` while the rendering runs, then `303 See Other` to the document. The upstream is
//! a real loopback HTTP service counting what it is asked. Followed as a task (rmcp's client
//! declaring the tasks extension, and raw 2026-07-28 requests) and through the status tool
//! (rmcp's client without the extension, the official Python SDK in both eras).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use mcp_gen_runtime::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig, GetTaskParams,
    ProtocolVersion, TaskStatus,
};
use mcp_gen_runtime::rmcp::service::RunningService;
use mcp_gen_runtime::rmcp::transport::StreamableHttpClientTransport;
use mcp_gen_runtime::rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};

const TOKEN: &str = "the server's own upstream token";
/// Renders at once: rendered before.
const DONE: &str = "inv_renderedbefore";
/// A rendering that fails at the end.
const BROKEN: &str = "inv_brokenbroken00";

#[derive(Default)]
struct Counts {
    /// `POST …/pdf` per invoice: the side effect, which must happen once per intent.
    starts: BTreeMap<String, u32>,
    /// Reads of each rendering's progress.
    polls: BTreeMap<String, u32>,
    /// Requests that came without the server's credentials.
    unauthorised: u32,
}

type Shared = Arc<Mutex<Counts>>;

fn authorised(counts: &Shared, headers: &HeaderMap) -> bool {
    let ok = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) == Some(&format!("Bearer {TOKEN}"));
    if !ok {
        counts.lock().unwrap().unauthorised += 1;
    }
    ok
}

fn document(invoice: &str) -> Value {
    json!({"invoice_id": invoice, "url": format!("https://files.example/{invoice}.pdf"), "pages": 2})
}

async fn start(State(counts): State<Shared>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    if !authorised(&counts, &headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    *counts.lock().unwrap().starts.entry(id.clone()).or_default() += 1;
    if id == DONE {
        return Json(document(&id)).into_response();
    }
    // A relative address, as many APIs write it.
    let location = format!("/v1/renders/r_{id}");
    (
        StatusCode::ACCEPTED,
        [(header::LOCATION, location), (header::RETRY_AFTER, "0".to_owned())],
        Json(json!({"render_id": format!("r_{id}")})),
    )
        .into_response()
}

async fn progress(State(counts): State<Shared>, Path(render): Path<String>, headers: HeaderMap) -> Response {
    if !authorised(&counts, &headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let polls = {
        let mut c = counts.lock().unwrap();
        let n = c.polls.entry(render.clone()).or_default();
        *n += 1;
        *n
    };
    if polls < 3 {
        return (StatusCode::ACCEPTED, [(header::RETRY_AFTER, "0")], Json(json!({"status": "rendering"})))
            .into_response();
    }
    if render.contains("broken") {
        return (StatusCode::UNPROCESSABLE_ENTITY, Json(json!({"message": "the invoice has no lines to render"})))
            .into_response();
    }
    (StatusCode::SEE_OTHER, [(header::LOCATION, format!("/v1/documents/{render}"))]).into_response()
}

async fn finished(State(counts): State<Shared>, Path(render): Path<String>, headers: HeaderMap) -> Response {
    if !authorised(&counts, &headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    Json(document(render.trim_start_matches("r_"))).into_response()
}

fn server() -> (support::Server, Shared) {
    let counts: Shared = Arc::default();
    let app = axum::Router::new()
        .route("/v1/invoices/{id}/pdf", post(start))
        .route("/v1/renders/{render}", get(progress))
        .route("/v1/documents/{render}", get(finished))
        .with_state(counts.clone());
    let upstream = format!("http://{}", support::serve_upstream(app));
    let server = support::serve_http(
        &support::binary("invoices-mcp"),
        &["--upstream", &upstream],
        &[("INVOICES_BEARER_TOKEN", TOKEN), ("INVOICES_HANDLE_KEY", "a handle key of 32 characters at least")],
    );
    (server, counts)
}

/// A client that declares the tasks extension (or not).
#[derive(Clone)]
struct Tasks(bool);

impl ClientHandler for Tasks {
    fn get_info(&self) -> ClientConfig {
        let caps =
            if self.0 { ClientCapabilities::builder().enable_tasks().build() } else { ClientCapabilities::default() };
        ClientConfig::new(caps, mcp_gen_runtime::rmcp::model::Implementation::new("operations-test", "1"))
    }
}

async fn client(url: &str, modern: bool, tasks: bool) -> RunningService<RoleClient, Tasks> {
    mcp_gen_runtime::init_tls();
    let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
    let era = if modern {
        ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] }
    } else {
        ClientLifecycleMode::Initialize
    };
    Tasks(tasks).serve_with_lifecycle(transport, era).await.unwrap()
}

fn render(invoice: &str, key: &str) -> CallToolRequestParams {
    CallToolRequestParams::new("render_invoice_pdf")
        .with_arguments(json!({"invoice_id": invoice, "idempotency_key": key}).as_object().unwrap().clone())
}

fn structured(r: &CallToolResult) -> Value {
    r.structured_content.clone().unwrap_or(Value::Null)
}

/// Follows `first` through the status tool until it ends; every result on the way.
async fn follow(client: &RunningService<RoleClient, Tasks>, first: CallToolResult) -> Vec<CallToolResult> {
    let mut seen = vec![first];
    for _ in 0..20 {
        let last = seen.last().unwrap();
        let value = structured(last);
        if last.is_error == Some(true) || value["status"] != "working" {
            break;
        }
        let args = json!({"operation": value["operation"]});
        let next = client
            .call_tool(
                CallToolRequestParams::new("get_operation_status").with_arguments(args.as_object().unwrap().clone()),
            )
            .await
            .unwrap();
        seen.push(next);
    }
    seen
}

#[tokio::test(flavor = "multi_thread")]
async fn an_accepted_operation_is_a_task_for_clients_of_the_tasks_extension() {
    let (server, counts) = server();
    let client = client(&server.url, true, true).await;
    let CallToolResponse::Task(task) =
        client.peer().call_tool_once(render("inv_00000000000001", "k-task")).await.unwrap()
    else {
        panic!("a client of the tasks extension gets a task")
    };
    assert_eq!(task.task.status, TaskStatus::Working);
    assert!(task.task.task_id.starts_with("h1_"), "the task id is a signed handle: {}", task.task.task_id);
    assert_eq!(task.task.poll_interval_ms, Some(0), "the upstream's Retry-After");
    let mut states = Vec::new();
    let done = loop {
        let state = client.peer().get_task(GetTaskParams::new(task.task.task_id.clone())).await.unwrap();
        states.push(state.task.status());
        if state.task.status().is_terminal() {
            break state;
        }
        assert!(states.len() < 20, "the task never ended: {states:?}");
    };
    assert_eq!(states, [TaskStatus::Working, TaskStatus::Working, TaskStatus::Completed]);
    let wire = serde_json::to_value(&done).unwrap();
    assert_eq!(wire["status"], "completed");
    assert_eq!(
        wire["result"]["structuredContent"],
        json!({"status": "completed", "result": document("inv_00000000000001")})
    );
    assert_ne!(wire["result"]["isError"], true);

    // Another caller cannot read the task: the same words as for a task that never was (H4).
    let raw = raw_get_task(&server.url, &task.task.task_id, Some("Bearer someone else")).await;
    assert_eq!(raw["error"]["code"], -32602, "{raw}");
    assert!(raw["error"]["message"].as_str().unwrap().starts_with("unknown task"), "{raw}");
    let forged = raw_get_task(&server.url, "h1_eyJ0IjoieCJ9.AAAA", None).await;
    assert_eq!(forged["error"]["code"], -32602, "{forged}");
    // Cancelling is acknowledged (cooperative, SEP-2663) and changes nothing: the API cannot stop
    // a rendering, so the task still reports how it stands.
    let cancel =
        client.peer().cancel_task(mcp_gen_runtime::rmcp::model::CancelTaskParams::new(task.task.task_id.clone())).await;
    assert!(cancel.is_ok(), "{cancel:?}");
    let after = client.peer().get_task(GetTaskParams::new(task.task.task_id.clone())).await.unwrap();
    assert_eq!(after.task.status(), TaskStatus::Completed);
    let foreign = client.peer().cancel_task(mcp_gen_runtime::rmcp::model::CancelTaskParams::new("h1_x.AAAA")).await;
    assert!(foreign.is_err(), "a task of nobody's is unknown: {foreign:?}");

    // An operation that ends at once is answered as it is, not as a task.
    let CallToolResponse::Complete(now) = client.peer().call_tool_once(render(DONE, "k-done")).await.unwrap() else {
        panic!("an operation that ended at once is a complete result")
    };
    assert_eq!(structured(&now), json!({"status": "completed", "result": document(DONE)}));

    // One that fails at the end: a completed task whose result is the tool's error.
    let CallToolResponse::Task(task) = client.peer().call_tool_once(render(BROKEN, "k-broken")).await.unwrap() else {
        panic!("a task")
    };
    let failed = loop {
        let state = client.peer().get_task(GetTaskParams::new(task.task.task_id.clone())).await.unwrap();
        if state.task.status().is_terminal() {
            break serde_json::to_value(&state).unwrap();
        }
    };
    assert_eq!(failed["status"], "completed");
    assert_eq!(failed["result"]["isError"], true);
    let body: Value = serde_json::from_str(failed["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(body["code"], "upstream_rejected", "{body}");
    assert!(body["message"].as_str().unwrap().contains("no lines to render"), "{body}");
    client.cancel().await.unwrap();

    let counts = counts.lock().unwrap();
    assert_eq!(counts.starts.values().sum::<u32>(), 3, "one start per intent: {:?}", counts.starts);
    // Three polls to its end, and one more after the cancel.
    assert_eq!(counts.polls.get("r_inv_00000000000001"), Some(&4));
    assert_eq!(counts.unauthorised, 0, "every poll went with the server's credentials");
}

async fn raw_get_task(url: &str, task: &str, authorization: Option<&str>) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": task,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}}});
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tasks/get")
        .header("mcp-name", task);
    if let Some(a) = authorization {
        request = request.header("authorization", a);
    }
    let text = request.body(body.to_string()).send().await.unwrap().text().await.unwrap();
    let text = text.lines().find_map(|l| l.strip_prefix("data:")).unwrap_or(&text).trim().to_owned();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn other_clients_follow_the_operation_through_the_status_tool() {
    let (server, counts) = server();
    for (modern, key) in [(true, "k-modern"), (false, "k-legacy")] {
        let client = client(&server.url, modern, false).await;
        let tools = client.list_all_tools().await.unwrap();
        assert!(tools.iter().any(|t| t.name == "get_operation_status"));
        let invoice = if modern { "inv_00000000000002" } else { "inv_00000000000003" };
        let first = client.call_tool(render(invoice, key)).await.unwrap();
        let value = structured(&first);
        assert_eq!(value["status"], "working", "{value}");
        assert_eq!(value["poll_after_ms"], 0);
        let handle = value["operation"].as_str().unwrap().to_owned();
        assert!(handle.starts_with("h1_") && !handle.contains("/v1/renders"), "the address is signed away: {handle}");
        // A retry with the same key replays the same answer, byte for byte: no second start.
        let again = client.call_tool(render(invoice, key)).await.unwrap();
        assert_eq!(structured(&again), value);
        let seen = follow(&client, first).await;
        let statuses: Vec<Value> = seen.iter().map(|r| structured(r)["status"].clone()).collect();
        assert_eq!(statuses, ["working", "working", "working", "completed"], "{seen:?}");
        assert_eq!(structured(seen.last().unwrap())["result"], document(invoice));
        // An edited handle is refused, as any handle this server did not give this caller.
        let mut edited = handle.clone();
        edited.insert(8, 'x');
        let refused = client
            .call_tool(
                CallToolRequestParams::new("get_operation_status")
                    .with_arguments(json!({"operation": edited}).as_object().unwrap().clone()),
            )
            .await
            .unwrap();
        assert_eq!(refused.is_error, Some(true));
        assert_eq!(support::error_body(&refused)["code"], "invalid_argument");
        client.cancel().await.unwrap();
    }
    let counts = counts.lock().unwrap();
    assert_eq!(counts.starts.get("inv_00000000000002"), Some(&1));
    assert_eq!(counts.starts.get("inv_00000000000003"), Some(&1));
    assert_eq!(counts.unauthorised, 0);
}

#[test]
fn the_python_sdk_follows_the_operation_in_both_eras() {
    let (server, counts) = server();
    for (mode, invoice) in [("2026-07-28", "inv_00000000000004"), ("legacy", "inv_00000000000005")] {
        let args = json!({"invoice_id": invoice, "idempotency_key": format!("py-{mode}")}).to_string();
        let out = Command::new(support::python())
            .arg(support::repo().join("tests/python/follow_operation.py"))
            .args(["--url", &server.url, "--mode", mode, "--tool", "render_invoice_pdf", "--args", &args])
            .args(["--status-tool", "get_operation_status"])
            .output()
            .unwrap();
        assert!(out.status.success(), "python client failed:\n{}", String::from_utf8_lossy(&out.stderr));
        let out: Value = serde_json::from_slice(&out.stdout).unwrap();
        // The SDK checked every structured result against the tools' outputSchemas.
        assert_eq!(out["is_error"], false, "{mode}: {out}");
        let results = out["results"].as_array().unwrap();
        assert_eq!(results.len(), 4, "{mode}: {out}");
        assert_eq!(results[0]["status"], "working");
        assert_eq!(results[3], json!({"status": "completed", "result": document(invoice)}), "{mode}");
    }
    let counts = counts.lock().unwrap();
    assert_eq!(counts.starts.values().sum::<u32>(), 2, "{:?}", counts.starts);
}
