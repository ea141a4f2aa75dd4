//! Provider variants and protocol caps end to end (CONTRACT I1, I3, V5): every generated example
//! server, built and started as a real process, serves its variants on their own paths; for
//! every constraint in its loss report, a call through that variant's endpoint that breaks just
//! that constraint is refused with an `isError` result naming the field. A server started with
//! `--max-protocol 2025-11-25` refuses 2026-07-28 requests and serves initialize-based clients.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_gen_runtime::rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion};
use mcp_gen_runtime::rmcp::service::RunningService;
use mcp_gen_runtime::rmcp::transport::StreamableHttpClientTransport;
use mcp_gen_runtime::rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Map, Value, json};

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

// ---- valid arguments, written from the schema (independently of the runtime's mock) ----

fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut s = schema;
    for _ in 0..16 {
        match s.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')).and_then(|p| root.pointer(p)) {
            Some(t) => s = t,
            None => break,
        }
    }
    s
}

/// A string the simple patterns of the example specs match: literals, classes (first member),
/// `{n}`, `{n,}`, `{n,m}`, `+`, `*`, `?`, anchors. Anything else fails the test loudly.
fn from_pattern(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let unit: String = match chars[i] {
            '^' | '$' => {
                i += 1;
                continue;
            }
            '[' => {
                let end = chars[i..].iter().position(|c| *c == ']').map(|p| p + i).expect("closed class");
                let first = chars[i + 1];
                assert!(first != '^' && first != '\\', "pattern {pattern}: class not supported by the test sampler");
                i = end + 1;
                first.to_string()
            }
            '\\' | '(' | '|' | '.' => panic!("pattern {pattern}: construct not supported by the test sampler"),
            c => {
                i += 1;
                c.to_string()
            }
        };
        let mut count = 1;
        if i < chars.len() {
            match chars[i] {
                '{' => {
                    let end = chars[i..].iter().position(|c| *c == '}').map(|p| p + i).unwrap();
                    let inner: String = chars[i + 1..end].iter().collect();
                    count = inner.split(',').next().unwrap().parse().unwrap();
                    i = end + 1;
                }
                '+' => {
                    i += 1;
                }
                '*' | '?' => {
                    count = 0;
                    i += 1;
                }
                _ => {}
            }
        }
        out.push_str(&unit.repeat(count));
    }
    out
}

fn sample(schema: &Value, root: &Value, depth: usize) -> Value {
    let s = resolve(schema, root);
    assert!(depth < 12, "sample too deep");
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array).and_then(|e| e.iter().find(|v| !v.is_null())) {
        return e.clone();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(first) = s.get(key).and_then(Value::as_array).and_then(|b| b.first()) {
            return sample(first, root, depth + 1);
        }
    }
    let t = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null"),
        _ if s.get("properties").is_some() => "object",
        _ => "string",
    };
    match t {
        "object" => {
            let mut out = Map::new();
            let props = s.get("properties").and_then(Value::as_object);
            for name in s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
                let prop = props.and_then(|p| p.get(name)).cloned().unwrap_or(json!({}));
                out.insert(name.to_owned(), sample(&prop, root, depth + 1));
            }
            let min = s.get("minProperties").and_then(Value::as_u64).unwrap_or(0) as usize;
            for (name, prop) in props.into_iter().flatten() {
                if out.len() >= min {
                    break;
                }
                if !out.contains_key(name) {
                    out.insert(name.clone(), sample(prop, root, depth + 1));
                }
            }
            if out.len() < min
                && let Some(extra) = s.get("additionalProperties").filter(|a| a.is_object())
            {
                for i in out.len()..min {
                    out.insert(format!("key{i}"), sample(extra, root, depth + 1));
                }
            }
            Value::Object(out)
        }
        "array" => {
            let n = s.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            let item = s.get("items").cloned().unwrap_or(json!({}));
            Value::Array((0..n).map(|i| distinct(sample(&item, root, depth + 1), i)).collect())
        }
        "integer" | "number" => {
            let min = s
                .get("minimum")
                .and_then(Value::as_i64)
                .or(s.get("exclusiveMinimum").and_then(Value::as_i64).map(|m| m + 1));
            json!(min.unwrap_or(1).max(s.get("maximum").and_then(Value::as_i64).map_or(i64::MIN, |m| m.min(1))))
        }
        "boolean" => json!(true),
        "null" => Value::Null,
        _ => {
            let base = match s.get("format").and_then(Value::as_str) {
                Some("date-time") => "2026-01-01T00:00:00Z".to_owned(),
                Some("date") => "2026-01-01".to_owned(),
                Some("email") => "someone@example.com".to_owned(),
                Some("uri") => "https://example.com/a".to_owned(),
                Some("uuid") => "123e4567-e89b-12d3-a456-426614174000".to_owned(),
                _ => match s.get("pattern").and_then(Value::as_str) {
                    Some(p) => from_pattern(p),
                    None => "a".to_owned(),
                },
            };
            let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            let mut text = base;
            while text.chars().count() < min {
                text.push('a');
            }
            json!(text)
        }
    }
}

/// Items of a `uniqueItems` array must differ.
fn distinct(v: Value, i: usize) -> Value {
    match v {
        Value::String(s) if i > 0 && s.len() > 1 => {
            let mut s = s;
            s.pop();
            s.push(char::from(b'a' + (i % 26) as u8));
            Value::String(s)
        }
        Value::Number(n) if i > 0 => json!(n.as_i64().unwrap_or(0) + i as i64),
        other => other,
    }
}

// ---- one constraint broken ----

/// `args` with the value at `field` (a pointer, `*` for any item or map value) replaced by
/// `make(schema there, current value)`; the containers on the way are created from the schema.
/// Returns the field as the server names it (`lines[0].description`).
fn put(args: &mut Value, root: &Value, field: &str, make: &dyn Fn(&Value, &Value) -> Value) -> String {
    let tokens: Vec<String> = field.split('/').skip(1).map(|t| t.replace("~1", "/").replace("~0", "~")).collect();
    let mut schema = root;
    let mut here = args;
    let mut name = String::new();
    for token in &tokens {
        let s = resolve(schema, root);
        let s = s.get("anyOf").and_then(Value::as_array).and_then(|b| b.first()).map_or(s, |b| resolve(b, root));
        if let Some(props) = s.get("properties").and_then(Value::as_object).filter(|_| token != "*") {
            schema = props.get(token).unwrap_or_else(|| panic!("no property {token} on the way to {field}"));
            let obj = here.as_object_mut().unwrap();
            if !obj.contains_key(token) {
                obj.insert(token.clone(), sample(schema, root, 0));
            }
            here = obj.get_mut(token).unwrap();
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(token);
        } else if let Some(items) = s.get("items").filter(|_| token == "*") {
            schema = items;
            let arr = here.as_array_mut().unwrap();
            if arr.is_empty() {
                arr.push(sample(schema, root, 0));
            }
            here = &mut arr[0];
            name.push_str("[0]");
        } else if let Some(values) = s.get("additionalProperties").filter(|a| a.is_object() && token == "*") {
            schema = values;
            let obj = here.as_object_mut().unwrap();
            if obj.is_empty() {
                obj.insert("key".to_owned(), sample(schema, root, 0));
            }
            let key = obj.keys().next().unwrap().clone();
            here = obj.get_mut(&key).unwrap();
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(&key);
        } else {
            panic!("cannot follow {token} in {field}");
        }
    }
    *here = make(resolve(schema, root), here);
    name
}

/// Arguments that break exactly the loss's constraint, and the field the server must name; `None`
/// for a loss that is not a constraint the variant dropped (a narrowing or a cut shape).
fn violation(root: &Value, loss: &Value) -> Option<(Value, String)> {
    let keyword = loss["keyword"].as_str().unwrap();
    let value = loss["value"].clone();
    let field = loss["field"].as_str().unwrap();
    if matches!(loss["action"].as_str(), Some("narrowed" | "cut")) {
        return None;
    }
    let mut args = sample(root, root, 0);
    let n = value.as_u64().unwrap_or(0) as usize;
    let name = match keyword {
        "maxLength" => put(&mut args, root, field, &|_, _| json!("x".repeat(n + 1))),
        "minLength" => put(&mut args, root, field, &|_, _| json!("x".repeat(n.saturating_sub(1)))),
        "format" => put(&mut args, root, field, &|_, _| json!("not a valid value")),
        "uniqueItems" => put(&mut args, root, field, &|s, cur| {
            let item = cur.as_array().and_then(|a| a.first().cloned()).unwrap_or_else(|| sample(&s["items"], root, 0));
            json!([item.clone(), item])
        }),
        "minProperties" => put(&mut args, root, field, &|_, _| json!({})),
        "maxProperties" => put(&mut args, root, field, &|s, _| {
            let v = sample(&s["additionalProperties"], root, 0);
            Value::Object((0..=n).map(|i| (format!("k{i}"), v.clone())).collect())
        }),
        "minimum" => put(&mut args, root, field, &|_, _| json!(value.as_f64().unwrap() - 1.0)),
        "maximum" => put(&mut args, root, field, &|_, _| json!(value.as_f64().unwrap() + 1.0)),
        "exclusiveMinimum" | "exclusiveMaximum" => put(&mut args, root, field, &|_, _| value.clone()),
        "multipleOf" => put(&mut args, root, field, &|_, _| json!(value.as_f64().unwrap() * 1.5)),
        "enum" => put(&mut args, root, field, &|_, _| json!("not-one-of-them")),
        "const" => put(&mut args, root, field, &|_, _| json!("not-the-constant")),
        "additionalProperties" => {
            let mut name = put(&mut args, root, field, &|_, cur| {
                let mut cur = cur.clone();
                cur.as_object_mut().unwrap().insert("unexpected_field".to_owned(), json!(1));
                cur
            });
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str("unexpected_field");
            name
        }
        other => panic!("no violation written for `{other}` ({loss})"),
    };
    Some((args, name))
}

static KEYS: AtomicUsize = AtomicUsize::new(0);

/// A fresh idempotency key, so that no two calls of the test are repeats of each other.
fn fresh_key(args: &mut Value) {
    if let Some(obj) = args.as_object_mut()
        && obj.contains_key("idempotency_key")
    {
        let n = KEYS.fetch_add(1, Ordering::Relaxed);
        obj.insert("idempotency_key".to_owned(), json!(format!("variant-test-{n}")));
    }
}

/// Every optional property of every object in `args` sent as `null`, as a strict client does.
fn with_nulls(args: &mut Value, schema: &Value, root: &Value) {
    let s = resolve(schema, root);
    if let Value::Object(obj) = args {
        let props = s.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        for (name, prop) in &props {
            match obj.get_mut(name) {
                Some(v) => with_nulls(v, prop, root),
                None => {
                    obj.insert(name.clone(), Value::Null);
                }
            }
        }
    } else if let (Value::Array(items), Some(item)) = (args, s.get("items")) {
        for v in items {
            with_nulls(v, item, root);
        }
    }
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
                assert!(
                    error_body(&ok).is_none_or(|b| b["code"] != "invalid_argument"),
                    "{name} {variant} {tool_name}: valid arguments {valid} refused: {ok:?}"
                );
                for loss in report["losses"].as_array().unwrap().iter().filter(|l| l["tool"] == *tool_name) {
                    let Some((mut args, field)) = violation(root, loss) else { continue };
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
