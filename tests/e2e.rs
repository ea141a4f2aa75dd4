//! End to end: the generated petstore server, built and started as a real process, against a real
//! upstream HTTP service on loopback, driven by real MCP clients: rmcp's client over Streamable
//! HTTP and stdio in both protocol eras, and the official Python SDK in both eras.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;

use mcp_gen_runtime::rmcp::model::{CallToolRequestParams, CallToolResult, ErrorCode, ProtocolVersion};
use mcp_gen_runtime::rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use mcp_gen_runtime::rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceError};
use serde_json::{Value, json};
use support::petstore::{API_KEY, Upstream};
use support::{Client, call, error_body};

fn tools_json(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("tools.json")).unwrap()).unwrap()
}

fn petstore_catalog() -> Value {
    tools_json(&support::repo().join("generated/petstore"))
}

fn era(modern: bool) -> ClientLifecycleMode {
    if modern {
        ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] }
    } else {
        ClientLifecycleMode::Initialize
    }
}

/// The JSON a successful result carries: structuredContent, else the JSON text.
fn result_json(r: &CallToolResult) -> Value {
    assert_ne!(r.is_error, Some(true), "unexpected tool error: {r:?}");
    let text: Value = serde_json::from_str(&r.content.first().and_then(|c| c.as_text()).unwrap().text).unwrap();
    if let Some(s) = &r.structured_content {
        assert_eq!(s, &text, "structuredContent and its JSON text differ");
    }
    text
}

fn http_transport(url: &str) -> StreamableHttpClientTransport<reqwest::Client> {
    // rmcp's client is reqwest, which uses the runtime's TLS provider.
    mcp_gen_runtime::init_tls();
    StreamableHttpClientTransport::from_uri(url.to_owned())
}

/// What the catalog looks like to a client of this era: initialize-based clients take only
/// object-rooted output schemas, so a list result is described (and sent) as `{"result": [...]}`.
fn expected_tools(modern: bool) -> Value {
    let mut tools = petstore_catalog()["tools"].clone();
    if !modern {
        for t in tools.as_array_mut().unwrap() {
            if let Some(out) = t.get_mut("outputSchema").filter(|o| o["type"] != "object") {
                let mut inner = out.as_object().unwrap().clone();
                let defs = inner.shift_remove("$defs");
                let mut wrapped = json!({"type": "object", "properties": {"result": inner}, "required": ["result"]});
                if let Some(defs) = defs {
                    wrapped["$defs"] = defs;
                }
                *out = wrapped;
            }
        }
    }
    tools
}

/// The petstore scenario every client runs; `upstream` counts what reached the API.
async fn scenario(client: &Client, upstream: &Upstream, modern: bool) {
    let version = client.peer_info().unwrap().protocol_version.clone();
    let want = if modern { ProtocolVersion::V_2026_07_28 } else { ProtocolVersion::V_2025_11_25 };
    assert_eq!(version, want);

    // tools/list is exactly tools.json (in order and content).
    let listed = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
    assert_eq!(serde_json::to_string(&listed).unwrap(), serde_json::to_string(&expected_tools(modern)).unwrap());

    let created = call(
        client,
        "add_pet",
        json!({"name": "Rex", "photoUrls": ["https://example.com/rex.jpg"], "status": "available", "tags": [{"id": 1, "name": "good"}], "idempotency_key": "add-rex"}),
    )
    .await;
    let pet = result_json(&created);
    let id = pet["id"].as_i64().unwrap();
    assert_eq!(pet["name"], "Rex");
    let add = upstream.requests().into_iter().rfind(|r| r.method == "POST").unwrap();
    assert_eq!(add.headers.get("accept").map(String::as_str), Some("application/json"));
    assert_eq!(
        add.body.unwrap(),
        json!({"name": "Rex", "photoUrls": ["https://example.com/rex.jpg"], "status": "available", "tags": [{"id": 1, "name": "good"}]})
    );

    // The API key comes from the environment and reaches the upstream header it names.
    let got = result_json(&call(client, "get_pet", json!({"petId": id})).await);
    assert_eq!(got, pet);

    // find_pets merges two searches (overlay `merge`): the arguments choose the operation.
    let unwrap = |v: Value| if modern { v } else { v["result"].clone() };
    // Clients before 2026-07-28 get a non-object result wrapped (CONTRACT V5, T8).
    let listed = unwrap(result_json(&call(client, "find_pets", json!({"status": "available"})).await));
    assert!(listed.as_array().unwrap().iter().any(|p| p["id"] == id), "{listed}");
    assert!(upstream.requests().last().unwrap().uri.starts_with("/api/v3/pet/findByStatus"));
    let tagged = unwrap(result_json(&call(client, "find_pets", json!({"tags": ["good"]})).await));
    assert!(tagged.as_array().unwrap().iter().any(|p| p["id"] == id), "{tagged}");
    assert!(upstream.requests().last().unwrap().uri.starts_with("/api/v3/pet/findByTags?tags=good"));
    let before = upstream.requests().len();
    let both = error_body(&call(client, "find_pets", json!({"status": "sold", "tags": ["good"]})).await);
    assert_eq!(both["code"], "invalid_argument");
    assert!(both["message"].as_str().unwrap().contains("status and tags do not combine"), "{both}");
    assert_eq!(upstream.requests().len(), before, "arguments that fit no operation reached the upstream");

    // Invalid arguments never reach the upstream, and the error names the field and the rule.
    let before = upstream.requests().len();
    let invalid = error_body(&call(client, "get_pet", json!({"petId": 0})).await);
    assert_eq!(invalid["code"], "invalid_argument");
    assert_eq!(invalid["field"], "petId");
    assert!(invalid["message"].as_str().unwrap().contains("minimum"), "{invalid}");
    let wrong_type = error_body(&call(client, "add_pet", json!({"name": "Rex", "idempotency_key": "add-rex-2"})).await);
    assert_eq!(wrong_type["field"], "photoUrls");
    assert_eq!(upstream.requests().len(), before, "a rejected call reached the upstream");

    // E5: a side effect with an empty answer is confirmed.
    let deleted = result_json(&call(client, "delete_pet", json!({"petId": id, "idempotency_key": "delete-rex"})).await);
    assert_eq!(deleted["ok"], true);

    let missing = error_body(&call(client, "get_pet", json!({"petId": id})).await);
    assert_eq!(missing["code"], "not_found");
    assert_eq!(missing["status"], 404);
    assert_eq!(missing["retryable"], false);
    assert!(missing["recovery"].as_str().unwrap().contains("find_pets"), "{missing}");

    // E4: 503 with Retry-After is retryable after the given time.
    let paused = error_body(
        &call(client, "place_order", json!({"petId": id, "quantity": 1, "idempotency_key": "order-rex"})).await,
    );
    assert_eq!(paused["code"], "upstream_unavailable");
    assert_eq!(paused["retryable"], true);
    assert_eq!(paused["retry_after_ms"], 2000);

    // An unknown tool is a protocol error, not a tool result.
    match client.call_tool(CallToolRequestParams::new("no_such_tool")).await {
        Err(ServiceError::McpError(e)) => assert_eq!(e.code, ErrorCode::INVALID_PARAMS),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

fn start(upstream: &Upstream) -> support::Server {
    support::serve_http(
        &support::binary("petstore-mcp"),
        &["--upstream", &upstream.url],
        &[("PETSTORE_API_KEY", API_KEY)],
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn rmcp_client_over_streamable_http_in_both_eras() {
    for modern in [false, true] {
        let upstream = Upstream::start();
        let server = start(&upstream);
        let transport = http_transport(&server.url);
        let client = ().serve_with_lifecycle(transport, era(modern)).await.unwrap();
        scenario(&client, &upstream, modern).await;
        client.cancel().await.unwrap();
        // getPetById's `api_key` scheme: the key from the environment, in the header it names.
        let by_id: Vec<_> = upstream
            .requests()
            .into_iter()
            .filter(|r| r.method == "GET" && r.uri.rsplit('/').next().is_some_and(|id| id.parse::<i64>().is_ok()))
            .collect();
        assert!(!by_id.is_empty());
        assert!(by_id.iter().all(|r| r.headers.get("api_key").map(String::as_str) == Some(API_KEY)));
        let log = server.log.lock().unwrap().clone();
        assert!(!log.contains(API_KEY), "the secret appeared in the server log");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn rmcp_client_over_stdio_in_both_eras() {
    let binary = support::binary("petstore-mcp");
    for modern in [false, true] {
        let upstream = Upstream::start();
        let dir = tempfile::tempdir().unwrap();
        let cmd = tokio::process::Command::new(&binary).configure(|c| {
            c.args(["serve", "--stdio", "--upstream", &upstream.url])
                .current_dir(dir.path())
                .env("PETSTORE_API_KEY", API_KEY)
                .env("PETSTORE_LOG", "warn");
        });
        let client = ().serve_with_lifecycle(TokioChildProcess::new(cmd).unwrap(), era(modern)).await.unwrap();
        scenario(&client, &upstream, modern).await;
        client.cancel().await.unwrap();
    }
}

fn run_python(args: &[&str]) -> Value {
    let py = support::python();
    let out = std::process::Command::new(py)
        .arg(support::repo().join("tests/python/petstore_client.py"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "python client failed:\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check_python(out: &Value, modern: bool) {
    assert_eq!(out["protocol_version"], if modern { "2026-07-28" } else { "2025-11-25" });
    let names: Vec<&str> = out["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    let want: Vec<String> = petstore_catalog()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, want);
    // The SDK validated every structured result against its outputSchema on the way in.
    assert_eq!(out["created"]["is_error"], false);
    assert_eq!(out["created"]["structured"]["name"], "Rex");
    assert_eq!(out["got"]["structured"], out["created"]["structured"]);
    assert_eq!(out["listed"]["is_error"], false);
    // The merged search's second operation, and arguments of both that do not combine.
    assert_eq!(out["tagged"]["is_error"], false);
    let tagged = &out["tagged"]["structured"];
    let tagged = if tagged.is_array() { tagged } else { &tagged["result"] };
    assert!(tagged.as_array().unwrap().iter().any(|p| p["name"] == "Rex"), "{}", out["tagged"]);
    assert_eq!(out["deleted"]["is_error"], false);
    for (case, code) in [("invalid", "invalid_argument"), ("missing", "not_found"), ("both", "invalid_argument")] {
        assert_eq!(out[case]["is_error"], true, "{case}: {}", out[case]);
        let body: Value = serde_json::from_str(out[case]["text"][0].as_str().unwrap()).unwrap();
        assert_eq!(body["code"], code);
    }
    let invalid: Value = serde_json::from_str(out["invalid"]["text"][0].as_str().unwrap()).unwrap();
    assert_eq!(invalid["field"], "petId");
    assert_eq!(out["unknown"]["error"]["code"], -32602);
}

#[test]
fn python_sdk_over_streamable_http_in_both_eras() {
    for (mode, modern) in [("2026-07-28", true), ("legacy", false)] {
        let upstream = Upstream::start();
        let server = start(&upstream);
        let out = run_python(&["--url", &server.url, "--mode", mode]);
        check_python(&out, modern);
    }
}

#[test]
fn python_sdk_over_stdio() {
    let upstream = Upstream::start();
    let binary = support::binary("petstore-mcp");
    let bin = binary.to_str().unwrap();
    let env = format!("PETSTORE_API_KEY={API_KEY}");
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite://{}", dir.path().join("store.db").display());
    let out = run_python(&[
        "--mode",
        "auto",
        "--env",
        &env,
        "--stdio",
        "--",
        bin,
        "serve",
        "--stdio",
        "--upstream",
        &upstream.url,
        "--store",
        &store,
    ]);
    // Auto mode probes with server/discover and settles on the modern era.
    check_python(&out, true);
}

/// Raw Streamable HTTP: what clients and proxies see on the wire.
#[tokio::test(flavor = "multi_thread")]
async fn streamable_http_surface() {
    let upstream = Upstream::start();
    let server = start(&upstream);
    mcp_gen_runtime::init_tls();
    let http = reqwest::Client::new();

    let get = http.get(&server.url).header("accept", "text/event-stream").send().await.unwrap();
    assert_eq!(get.status(), 405, "GET has no stream to offer");

    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let list = |origin: Option<&str>| {
        let mut req = http
            .post(&server.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/list")
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}).to_string());
        if let Some(o) = origin {
            req = req.header("origin", o);
        }
        req.send()
    };
    let evil = list(Some("http://evil.example.com")).await.unwrap();
    assert_eq!(evil.status(), 403, "a foreign Origin is refused (DNS rebinding)");

    let ok = list(Some("http://localhost:3000")).await.unwrap();
    assert_eq!(ok.status(), 200);
    let body: Value = ok.json().await.unwrap();
    let result = &body["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["cacheScope"], "public");
    assert!(result["ttlMs"].as_u64().unwrap() > 0);
    assert_eq!(
        serde_json::to_string(&result["tools"]).unwrap(),
        serde_json::to_string(&petstore_catalog()["tools"]).unwrap()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn mock_mode_answers_from_the_schema() {
    let server = support::serve_http(&support::binary("petstore-mcp"), &["--mock"], &[]);
    let client = support::modern_client(&server.url).await;
    let pet = result_json(&call(&client, "get_pet", json!({"petId": 7})).await);
    let tools = petstore_catalog();
    let schema = &tools["tools"].as_array().unwrap().iter().find(|t| t["name"] == "get_pet").unwrap()["outputSchema"];
    assert!(jsonschema::draft202012::is_valid(schema, &pet), "{pet} does not match {schema}");
    let invalid = error_body(&call(&client, "get_pet", json!({"petId": "seven"})).await);
    assert_eq!(invalid["field"], "petId");
    client.cancel().await.unwrap();
}

/// Must-show 3: a crate generated outside the repository builds on its own and serves.
#[tokio::test(flavor = "multi_thread")]
async fn crate_generated_outside_the_repository_builds_and_serves() {
    let dir = tempfile::Builder::new().prefix("mcp-gen-outside").tempdir_in(std::env::temp_dir()).unwrap();
    let out = dir.path().join("crate");
    let repo = support::repo();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-gen"))
        .args(["build", "--name", "outside", "--spec"])
        .arg(repo.join("specs/petstore/openapi.yaml"))
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let manifest = std::fs::read_to_string(out.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"outside-mcp\""), "{manifest}");
    assert!(!out.starts_with(&repo));
    // Its own workspace and build; the repository's lock file and target directory only save
    // downloading and compiling the same dependencies again.
    std::fs::copy(repo.join("Cargo.lock"), out.join("Cargo.lock")).unwrap();
    let target = repo.join("target");
    let binary = support::cargo_build_env(&[], &out, &[("CARGO_TARGET_DIR", target.to_str().unwrap())]);
    assert!(binary.ends_with("outside-mcp"), "{}", binary.display());
    let server = support::serve_http(&binary, &["--mock"], &[]);
    let client = support::modern_client(&server.url).await;
    let listed = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
    assert_eq!(listed, tools_json(&out)["tools"]);
    let pet = result_json(&call(&client, "get_pet_by_id", json!({"petId": 3})).await);
    assert!(pet["id"].is_i64(), "{pet}");
    client.cancel().await.unwrap();
}
