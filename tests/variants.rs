//! Provider variants and protocol caps end to end (CONTRACT I1, I3, V5): every generated example
//! server, built and started as a real process, serves its variants on their own paths; for
//! every constraint in its loss report, a call through that variant's endpoint that breaks just
//! that constraint is refused with an `isError` result naming the field. A server started with
//! `--max-protocol 2025-11-25` refuses 2026-07-28 requests and serves initialize-based clients.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use mcp_gen_runtime::rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion};
use mcp_gen_runtime::rmcp::service::RunningService;
use mcp_gen_runtime::rmcp::transport::StreamableHttpClientTransport;
use mcp_gen_runtime::rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};
use support::violate::{fresh_key, sample, violation, with_nulls};

type Client = RunningService<RoleClient, ()>;

const EXAMPLES: &[&str] = &["bookshelf", "invoices", "petstore", "users", "withdrawals"];
const VARIANTS: &[&str] = &["openai-strict", "gemini", "inline"];

fn read_json(name: &str, file: &str) -> Value {
    let path = support::repo().join("generated").join(name).join(file);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

async fn connect(url: &str, mode: ClientLifecycleMode) -> Client {
    mcp_gen_runtime::init_tls();
    ().serve_with_lifecycle(StreamableHttpClientTransport::from_uri(url.to_owned()), mode).await.unwrap()
}

fn modern() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] }
}

async fn call(client: &Client, name: &str, args: &Value) -> CallToolResult {
    let args = args.as_object().cloned().unwrap();
    client.call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args)).await.unwrap()
}

fn error_body(r: &CallToolResult) -> Option<Value> {
    if r.is_error != Some(true) {
        return None;
    }
    serde_json::from_str(&r.content.first()?.as_text()?.text).ok()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_lost_constraint_is_still_enforced_through_the_variant_endpoint() {
    let mut checked = 0;
    for name in EXAMPLES {
        let binary = support::binary(&format!("{name}-mcp"));
        let server = support::serve_http(&binary, &["--mock", "--variants", &VARIANTS.join(",")], &[]);
        let canonical = read_json(name, "tools.json");
        let losses = read_json(name, "losses.json");
        for variant in VARIANTS {
            let client = connect(&format!("{}/{variant}", server.url.trim_end_matches('/')), modern()).await;
            // The endpoint lists exactly the variant's catalog.
            let listed = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
            assert_eq!(listed, read_json(name, &format!("tools.{variant}.json"))["tools"], "{name} {variant}");
            let report = losses["variants"].as_array().unwrap().iter().find(|v| v["variant"] == *variant).unwrap();
            for tool in canonical["tools"].as_array().unwrap() {
                let tool_name = tool["name"].as_str().unwrap();
                let root = &tool["inputSchema"];
                // Valid arguments pass, also with every optional field `null` (strict clients).
                let mut valid = sample(root, root, 0);
                if *variant == "openai-strict" {
                    with_nulls(&mut valid, root, root);
                }
                fresh_key(&mut valid);
                let ok = call(&client, tool_name, &valid).await;
                // A signed handle (an operation to follow) is more than its schema says: a
                // sample string is refused as no handle, not as invalid JSON.
                let no_handle = |b: &Value| b["message"].as_str().is_some_and(|m| m.contains("handle"));
                assert!(
                    error_body(&ok).is_none_or(|b| b["code"] != "invalid_argument" || no_handle(&b)),
                    "{name} {variant} {tool_name}: valid arguments {valid} refused: {ok:?}"
                );
                for loss in report["losses"].as_array().unwrap().iter().filter(|l| l["tool"] == *tool_name) {
                    let Some(support::violate::Violation { mut args, field, .. }) = violation(root, loss) else {
                        continue;
                    };
                    if loss["field"] != "/idempotency_key" {
                        fresh_key(&mut args);
                    }
                    let r = call(&client, tool_name, &args).await;
                    let body = error_body(&r)
                        .unwrap_or_else(|| panic!("{name} {variant} {tool_name}: {loss} accepted with {args}"));
                    assert_eq!(body["code"], "invalid_argument", "{name} {variant} {tool_name}: {loss}: {body}");
                    assert_eq!(body["field"], field.as_str(), "{name} {variant} {tool_name}: {loss}: {body}");
                    checked += 1;
                }
            }
            client.cancel().await.unwrap();
        }
    }
    // Every example's losses are constraints the test could break (none is a narrowing).
    let total: usize = EXAMPLES
        .iter()
        .map(|n| {
            read_json(n, "losses.json")["variants"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["losses"].as_array().unwrap().len())
                .sum::<usize>()
        })
        .sum();
    assert_eq!(checked, total, "every loss of the example specs was broken and refused");
    assert!(checked > 50, "{checked}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_capped_server_refuses_the_newer_protocol_and_serves_the_older() {
    let server =
        support::serve_http(&support::binary("petstore-mcp"), &["--mock", "--max-protocol", "2025-11-25"], &[]);
    mcp_gen_runtime::init_tls();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    for method in ["tools/list", "server/discover"] {
        let response = reqwest::Client::new()
            .post(&server.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": meta}}).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{method}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], -32022, "{method}: {body}");
        assert_eq!(body["error"]["data"]["requested"], "2026-07-28");
        let supported: Vec<&str> =
            body["error"]["data"]["supported"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert!(supported.contains(&"2025-11-25") && !supported.contains(&"2026-07-28"), "{supported:?}");
    }
    // An initialize-based client negotiates 2025-11-25 and is served.
    let client = connect(&server.url, ClientLifecycleMode::Initialize).await;
    assert_eq!(client.peer_info().unwrap().protocol_version, ProtocolVersion::V_2025_11_25);
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), read_json("petstore", "tools.json")["tools"].as_array().unwrap().len());
    let pet = call(&client, "get_pet", &json!({"petId": 1})).await;
    assert_ne!(pet.is_error, Some(true), "{pet:?}");
    client.cancel().await.unwrap();
}

#[test]
fn unknown_variants_and_versions_are_refused_at_start() {
    let binary = support::binary("petstore-mcp");
    for (args, says) in [
        (vec!["--variants", "openai"], "no variant `openai`"),
        (vec!["--max-protocol", "2099-01-01"], "not a protocol version"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(&binary)
            .args(["serve", "--mock", "--http", "127.0.0.1:0"])
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
