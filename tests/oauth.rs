//! The generated server as an OAuth 2.1 resource server (MCP authorization; CONTRACT S1, S2),
//! against a real authorization server (npm `oauth2-mock-server`, started by the test: RS256
//! JWTs, JWKS, discovery, token endpoint): resource metadata and challenges, scopes per tool,
//! callers' identities, the limits, and an attack suite in which every attack is refused without
//! a 5xx while the server goes on serving.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{Value, json};
use support::petstore::{API_KEY, Upstream};

/// The authorization server, as a child process; stopped on drop.
struct Issuer {
    child: Child,
    url: String,
    public_pem: String,
}

impl Drop for Issuer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Installs the pinned npm packages of `tests/oauth` (once per test process).
fn npm_ci() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let dir = support::repo().join("tests/oauth");
        if dir.join("node_modules/oauth2-mock-server").is_dir() {
            return;
        }
        let ok = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--silent"])
            .current_dir(&dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "npm ci in tests/oauth failed: the OAuth tests need Node.js and the npm registry");
    });
}

/// `node tests/oauth/<script>` with `env`, and the JSON line it announces itself with.
fn spawn_node(script: &str, env: &[(&str, &str)]) -> (Child, Value) {
    npm_ci();
    let mut child = Command::new("node")
        .arg(support::repo().join("tests/oauth").join(script))
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("node runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let info: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{script} said {line:?}: {e}"));
    (child, info)
}

fn start_issuer() -> Issuer {
    let (child, info) = spawn_node("issuer.mjs", &[]);
    Issuer {
        child,
        url: info["issuer"].as_str().unwrap().to_owned(),
        public_pem: info["public_pem"].as_str().unwrap().to_owned(),
    }
}

impl Issuer {
    /// An access token for user `sub` from the issuer's token endpoint (password grant) with
    /// `scope`, for `aud`, plus any extra form fields (`exp_in`, `nbf_in`).
    async fn token(&self, sub: &str, scope: &str, aud: &str, extra: &[(&str, &str)]) -> String {
        let mut form =
            vec![("grant_type", "password"), ("username", sub), ("password", "x"), ("scope", scope), ("aud", aud)];
        form.extend_from_slice(extra);
        token_at(&format!("{}/token", self.url), ("mcp-test-client", "secret"), &form).await
    }
}

/// The access token a token endpoint issues to `client` (id, secret) for `form`.
async fn token_at(url: &str, (id, secret): (&str, &str), form: &[(&str, &str)]) -> String {
    let answer: Value =
        http().post(url).form(form).basic_auth(id, Some(secret)).send().await.unwrap().json().await.unwrap();
    answer["access_token"].as_str().unwrap_or_else(|| panic!("no token: {answer}")).to_owned()
}

/// One client for the whole test process, so the burst reuses its connections.
fn http() -> reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            mcp_gen_runtime::init_tls();
            reqwest::Client::new()
        })
        .clone()
}

/// One reply: status, headers, and the body as JSON (`null` when it is not).
struct Reply {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Value,
}

impl Reply {
    fn challenge(&self) -> String {
        self.headers.get("www-authenticate").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned()
    }

    /// The tool result of a `tools/call` reply.
    fn result(&self) -> &Value {
        &self.body["result"]
    }

    fn tool_error(&self) -> Value {
        assert_eq!(self.result()["isError"], true, "expected a tool error: {}", self.body);
        serde_json::from_str(self.result()["content"][0]["text"].as_str().unwrap()).unwrap()
    }
}

/// A JSON-RPC request as a 2026-07-28 client sends it, with `headers`.
async fn rpc(url: &str, method: &str, params: Value, headers: &[(&str, &str)]) -> Reply {
    let mut params = params;
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let name = params["name"].as_str().map(str::to_owned);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let mut request = http()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request.body(body).send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    Reply { status, headers, body: serde_json::from_str(&text).unwrap_or(Value::Null) }
}

async fn call(url: &str, token: &str, tool: &str, args: Value) -> Reply {
    let bearer = format!("Bearer {token}");
    rpc(url, "tools/call", json!({"name": tool, "arguments": args}), &[("authorization", &bearer)]).await
}

async fn tool_names(url: &str, token: &str) -> Vec<String> {
    let bearer = format!("Bearer {token}");
    let reply = rpc(url, "tools/list", json!({}), &[("authorization", &bearer)]).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.result()["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// `token` with its payload's `sub` changed and the issuer's signature kept.
fn forged(token: &str) -> String {
    let parts: Vec<&str> = token.split('.').collect();
    let mut payload: Value =
        serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
    payload["sub"] = json!("mallory");
    payload["scope"] = json!("read:pets write:pets");
    format!("{}.{}.{}", parts[0], b64(payload.to_string().as_bytes()), parts[2])
}

/// The claims of `token`, unsigned (`alg: none`).
fn unsigned(token: &str) -> String {
    let payload = token.split('.').nth(1).unwrap();
    format!("{}.{payload}.", b64(br#"{"alg":"none","typ":"JWT"}"#))
}

/// The claims of `token` signed with HS256 and the issuer's public key as the shared secret
/// (the key confusion attack on verifiers that let the token pick the algorithm).
fn hmac_with_public_key(token: &str, pem: &str) -> String {
    let claims: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(token.split('.').nth(1).unwrap()).unwrap(),
    )
    .unwrap();
    let kid = serde_json::from_slice::<Value>(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(token.split('.').next().unwrap()).unwrap(),
    )
    .unwrap()["kid"]
        .clone();
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
    header.kid = kid.as_str().map(str::to_owned);
    jsonwebtoken::encode(&header, &claims, &jsonwebtoken::EncodingKey::from_secret(pem.as_bytes()).unwrap()).unwrap()
}

fn petstore(issuer: &Issuer, upstream: &Upstream, extra: &[&str]) -> support::Server {
    let mut args = vec!["--auth-issuer", issuer.url.as_str(), "--upstream", upstream.url.as_str()];
    args.extend_from_slice(extra);
    support::serve_http(&support::binary("petstore-mcp"), &args, &[("PETSTORE_API_KEY", API_KEY)])
}

fn alive(server: &mut support::Server) {
    assert!(server.child.try_wait().unwrap().is_none(), "the server exited; log:\n{}", server.log.lock().unwrap());
}

#[tokio::test(flavor = "multi_thread")]
async fn tokens_scopes_and_identity_against_a_real_authorization_server() {
    let issuer = start_issuer();
    let upstream = Upstream::start();
    let mut server = petstore(&issuer, &upstream, &["--rate-limit", "1000"]);
    let url = server.url.clone();

    // No token: 401 and where the resource metadata is (RFC 9728 §5.1).
    let reply = rpc(&url, "tools/list", json!({}), &[]).await;
    assert_eq!(reply.status, 401);
    let origin = url.trim_end_matches("/mcp/v1");
    let metadata_url = format!("{origin}/.well-known/oauth-protected-resource/mcp/v1");
    assert_eq!(reply.challenge(), format!("Bearer resource_metadata=\"{metadata_url}\""));
    let metadata: Value = http().get(&metadata_url).send().await.unwrap().json().await.unwrap();
    assert_eq!(metadata["resource"], url.as_str());
    assert_eq!(metadata["authorization_servers"], json!([issuer.url]));
    assert_eq!(metadata["scopes_supported"], json!(["read:pets", "write:pets"]));

    // A reader sees the read tools and those without scopes, and calls them.
    let reader = issuer.token("alice", "read:pets", &url, &[]).await;
    let names = tool_names(&url, &reader).await;
    for hidden in ["add_pet", "update_pet", "delete_pet", "upload_file"] {
        assert!(!names.iter().any(|n| n == hidden), "{hidden} listed for a reader: {names:?}");
    }
    for shown in ["get_pet", "find_pets", "get_inventory", "place_order"] {
        assert!(names.iter().any(|n| n == shown), "{shown} not listed for a reader: {names:?}");
    }
    let reply = call(&url, &reader, "find_pets", json!({"status": "available"})).await;
    assert_eq!(reply.status, 200);
    assert_ne!(reply.result()["isError"], true, "{}", reply.body);
    // The inbound token never reaches the upstream; the operator's key does.
    let seen = upstream.requests();
    assert!(seen.iter().all(|r| !r.headers.values().any(|v| v.contains(&reader))), "the caller's token was forwarded");

    // A call the token's scopes do not cover: 403 with the scopes to ask for (RFC 6750 §3.1).
    let reply = call(&url, &reader, "add_pet", json!({"name": "Rex", "photoUrls": []})).await;
    assert_eq!(reply.status, 403, "{}", reply.body);
    let challenge = reply.challenge();
    assert!(challenge.contains("error=\"insufficient_scope\""), "{challenge}");
    assert!(challenge.contains("scope=\"read:pets write:pets\""), "{challenge}");
    assert!(challenge.contains(&format!("resource_metadata=\"{metadata_url}\"")), "{challenge}");

    // Writers with the same idempotency key are two callers: user A never gets user B's replay.
    let bob = issuer.token("bob", "read:pets write:pets", &url, &[]).await;
    let carol = issuer.token("carol", "read:pets write:pets", &url, &[]).await;
    let pet = json!({"name": "Rex", "photoUrls": [], "idempotency_key": "shared-key-0001"});
    let first = call(&url, &bob, "add_pet", pet.clone()).await;
    assert_ne!(first.result()["isError"], true, "{}", first.body);
    let again = call(&url, &bob, "add_pet", pet.clone()).await;
    assert_eq!(again.result()["structuredContent"], first.result()["structuredContent"]);
    let posts = || upstream.requests().iter().filter(|r| r.method == "POST").count();
    assert_eq!(posts(), 1, "bob's retry was replayed");
    let other = call(&url, &carol, "add_pet", pet).await;
    assert_ne!(other.result()["isError"], true, "{}", other.body);
    assert_ne!(
        other.result()["structuredContent"]["id"],
        first.result()["structuredContent"]["id"],
        "carol got bob's pet"
    );
    assert_eq!(posts(), 2, "carol's call was answered from bob's record");
    alive(&mut server);
}

#[tokio::test(flavor = "multi_thread")]
async fn attack_suite_is_refused_without_a_5xx() {
    let issuer = start_issuer();
    let other_issuer = start_issuer();
    let upstream = Upstream::start();
    let mut server = petstore(&issuer, &upstream, &["--rate-limit", "1000", "--max-body-bytes", "65536"]);
    let url = server.url.clone();
    let good = issuer.token("alice", "read:pets", &url, &[]).await;
    let args = json!({"status": "available"});
    let mut refused = Vec::new();

    let bad_tokens = [
        ("forged signature", forged(&good)),
        ("alg none", unsigned(&good)),
        ("HS256 signed with the public key", hmac_with_public_key(&good, &issuer.public_pem)),
        ("wrong issuer", other_issuer.token("alice", "read:pets", &url, &[]).await),
        ("wrong audience", issuer.token("alice", "read:pets", "https://other.example.com/mcp", &[]).await),
        ("expired", issuer.token("alice", "read:pets", &url, &[("exp_in", "-300")]).await),
        ("not yet valid", issuer.token("alice", "read:pets", &url, &[("nbf_in", "600")]).await),
        ("not a JWT", "opaque-garbage".to_owned()),
    ];
    for (attack, token) in &bad_tokens {
        let reply = call(&url, token, "find_pets", args.clone()).await;
        assert_eq!(reply.status, 401, "{attack}: {}", reply.body);
        assert!(reply.challenge().contains("error=\"invalid_token\""), "{attack}: {}", reply.challenge());
        refused.push(*attack);
    }

    let reply = call(&url, &good, "delete_pet", json!({"petId": 1, "idempotency_key": "k-000000001"})).await;
    assert_eq!(reply.status, 403, "missing scope: {}", reply.body);
    refused.push("missing scope");

    let big = "x".repeat(100_000);
    let reply = call(&url, &good, "find_pets", json!({"status": big})).await;
    assert_eq!(reply.status, 413, "oversized body");
    refused.push("oversized body");

    let writer = issuer.token("bob", "read:pets write:pets", &url, &[]).await;
    let before = upstream.requests().len();
    for value in ["..", "%2e%2e", "%2E%2e%2f..", "."] {
        let reply = call(&url, &writer, "get_user_by_name", json!({"username": value})).await;
        assert_eq!(reply.tool_error()["code"], "invalid_argument", "path value {value}: {}", reply.body);
        refused.push("dot segment in a path value");
    }
    let reply =
        call(&url, &writer, "add_pet", json!({"name": "Rex", "photoUrls": [], "idempotency_key": "a\r\nX-Evil: 1"}))
            .await;
    assert_eq!(reply.tool_error()["code"], "invalid_argument", "CR/LF: {}", reply.body);
    refused.push("CR/LF in a header value");
    assert_eq!(upstream.requests().len(), before, "a refused call reached the upstream");

    let bearer = format!("Bearer {good}");
    let reply =
        rpc(&url, "tools/list", json!({}), &[("authorization", &bearer), ("origin", "https://evil.example")]).await;
    assert!((400..500).contains(&reply.status), "foreign Origin: {}", reply.status);
    refused.push("foreign Origin");
    let reply = rpc(&url, "tools/list", json!({}), &[("authorization", &bearer), ("host", "evil.example:80")]).await;
    assert!((400..500).contains(&reply.status), "rebinding Host: {}", reply.status);
    refused.push("rebinding Host");

    // Still serving, to the rightful caller.
    let reply = call(&url, &good, "find_pets", args).await;
    assert_eq!(reply.status, 200);
    assert_ne!(reply.result()["isError"], true, "{}", reply.body);
    alive(&mut server);
    eprintln!("attack suite: {} attacks refused: {refused:?}", refused.len());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_burst_of_10000_from_one_caller_is_rate_limited_and_others_are_not() {
    let issuer = start_issuer();
    let upstream = Upstream::start();
    let mut server = petstore(&issuer, &upstream, &["--rate-limit", "20", "--rate-burst", "40"]);
    let url = server.url.clone();
    let flood = issuer.token("mallory", "read:pets", &url, &[]).await;
    let bystander = issuer.token("alice", "read:pets", &url, &[]).await;

    let counts = std::sync::Arc::new(std::sync::Mutex::new(std::collections::BTreeMap::<String, usize>::new()));
    let mut tasks = Vec::new();
    for worker in 0..16 {
        let (url, flood, counts) = (url.clone(), flood.clone(), counts.clone());
        tasks.push(tokio::spawn(async move {
            for i in 0..625 {
                // Tool calls get the error contract's retryable error; other requests a 429.
                let reply = if (worker + i) % 5 == 0 {
                    let bearer = format!("Bearer {flood}");
                    rpc(&url, "tools/list", json!({}), &[("authorization", &bearer)]).await
                } else {
                    call(&url, &flood, "get_inventory", json!({})).await
                };
                assert!(reply.status < 500, "a 5xx under the burst: {} {}", reply.status, reply.body);
                let outcome = match reply.status {
                    429 => {
                        assert!(reply.headers.contains_key("retry-after"));
                        "429".to_owned()
                    }
                    200 if reply.result()["isError"] == true => {
                        let e = reply.tool_error();
                        if e["code"] == "rate_limited" {
                            assert_eq!(e["retryable"], true);
                            assert!(e["retry_after_ms"].as_u64().is_some_and(|ms| ms > 0 && ms <= 1000), "{e}");
                        }
                        e["code"].as_str().unwrap().to_owned()
                    }
                    s => s.to_string(),
                };
                *counts.lock().unwrap().entry(outcome).or_default() += 1;
            }
        }));
    }
    // Meanwhile another caller is served as usual.
    let mut bystander_ok = 0;
    for _ in 0..20 {
        let reply = call(&url, &bystander, "get_inventory", json!({})).await;
        if reply.status == 200 && reply.result()["isError"] != true {
            bystander_ok += 1;
        }
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    for t in tasks {
        t.await.unwrap();
    }
    let counts = counts.lock().unwrap().clone();
    let total: usize = counts.values().sum();
    assert_eq!(total, 10_000);
    let limited = counts.get("rate_limited").copied().unwrap_or(0) + counts.get("429").copied().unwrap_or(0);
    assert!(limited > 9_000, "{counts:?}");
    assert_eq!(bystander_ok, 20, "the other caller was limited too");
    alive(&mut server);
    eprintln!("burst of 10000 from one caller: {counts:?}; other caller 20/20 served");
}

/// The `Authorization` headers a users API on loopback was called with, in order.
type Seen = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

fn users_upstream() -> (String, Seen) {
    use axum::routing::get;
    let seen: Seen = Seen::default();
    let record = seen.clone();
    let app = axum::Router::new().route(
        "/v1/users",
        get(move |headers: axum::http::HeaderMap| {
            let record = record.clone();
            async move {
                let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
                record.lock().unwrap().push(auth);
                axum::Json(json!({"data": [], "next_cursor": null}))
            }
        }),
    );
    (format!("http://{}/v1", support::serve_upstream(app)), seen)
}

/// The claims of a JWT, unverified (the test reads what the upstream was sent).
fn claims(token: &str) -> Value {
    let payload = token.split('.').nth(1).unwrap_or_else(|| panic!("not a JWT: {token}"));
    serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap()
}

fn bearer_of(header: &str) -> &str {
    header.strip_prefix("Bearer ").unwrap_or_else(|| panic!("not a bearer header: {header}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn upstream_sees_service_or_exchanged_tokens_never_the_callers() {
    let issuer = start_issuer();
    let token_url = format!("{}/token", issuer.url);
    let binary = support::binary("users-mcp");

    // Client credentials (the spec's flow): the server's own token, fetched and reused.
    let (upstream, seen) = users_upstream();
    let server = support::serve_http(
        &binary,
        &["--auth-issuer", &issuer.url, "--upstream", &upstream],
        &[
            ("USERS_OAUTH_CLIENT_ID", "users-mcp"),
            ("USERS_OAUTH_CLIENT_SECRET", "s3cret"),
            ("USERS_OAUTH_TOKEN_URL", &token_url),
        ],
    );
    let alice = issuer.token("alice", "users:read", &server.url, &[]).await;
    for _ in 0..2 {
        let reply = call(&server.url, &alice, "list_users", json!({})).await;
        assert_ne!(reply.result()["isError"], true, "{}", reply.body);
        // A token fetched a second later would differ (its `iat`): equal tokens were reused.
        tokio::time::sleep(Duration::from_millis(1100)).await;
    }
    let sent = seen.lock().unwrap().clone();
    assert_eq!(sent.len(), 2);
    let service = bearer_of(&sent[0]);
    assert_ne!(service, alice, "the caller's token went upstream");
    assert_eq!(sent[0], sent[1], "the service token was fetched again instead of reused");
    let c = claims(service);
    assert_eq!(c["iss"], issuer.url.as_str());
    assert_eq!(c["scope"], "users:read users:write", "{c}");
    assert!(c.get("sub").is_none_or(|s| s != "alice"), "{c}");
    drop(server);

    // RFC 7523 jwt-bearer: each caller's own upstream token, for that caller.
    let (upstream, seen) = users_upstream();
    let server = support::serve_http(
        &binary,
        &[
            "--auth-issuer",
            &issuer.url,
            "--upstream",
            &upstream,
            "--upstream-token-exchange",
            &token_url,
            "--upstream-exchange-grant",
            "jwt-bearer",
            "--upstream-exchange-scope",
            "users:read",
        ],
        &[("USERS_EXCHANGE_CLIENT_ID", "users-mcp"), ("USERS_EXCHANGE_CLIENT_SECRET", "s3cret")],
    );
    let alice = issuer.token("alice", "users:read", &server.url, &[]).await;
    let bob = issuer.token("bob", "users:read", &server.url, &[]).await;
    for (who, token) in [("alice", &alice), ("bob", &bob), ("alice", &alice)] {
        let reply = call(&server.url, token, "list_users", json!({})).await;
        assert_ne!(reply.result()["isError"], true, "{who}: {}", reply.body);
        tokio::time::sleep(Duration::from_millis(600)).await;
    }
    let sent = seen.lock().unwrap().clone();
    assert_eq!(sent.len(), 3);
    for (header, (who, inbound)) in sent.iter().zip([("alice", &alice), ("bob", &bob), ("alice", &alice)]) {
        let token = bearer_of(header);
        assert_ne!(token, inbound.as_str(), "{who}'s inbound token went upstream");
        let c = claims(token);
        assert_eq!(c["sub"], who, "{c}");
        assert_eq!(c["scope"], "users:read", "{c}");
    }
    assert_eq!(sent[0], sent[2], "alice's exchanged token was not reused");
    let log = server.log.lock().unwrap().clone();
    for secret in [alice.as_str(), bob.as_str(), "s3cret"] {
        assert!(!log.contains(secret), "a secret reached the log");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_handle_is_bound_to_the_token_holder() {
    use axum::routing::get;
    let issuer = start_issuer();
    // Two pages of invoices: the first one's cursor leads to the second.
    let app = axum::Router::new().route(
        "/v1/invoices",
        get(|q: axum::extract::Query<std::collections::BTreeMap<String, String>>| async move {
            let invoice = |n: u32| {
                json!({"id": format!("inv_{n:04}"), "customer": "cus_1", "currency": "EUR", "status": "open",
                "total": 100, "due_date": null, "lines": [{"description": "Seat", "quantity": 1, "unit_amount": 100}]})
            };
            axum::Json(match q.get("cursor") {
                None => json!({"items": [invoice(1), invoice(2)], "next_cursor": "cur_2"}),
                Some(_) => json!({"items": [invoice(3)], "next_cursor": null}),
            })
        }),
    );
    let upstream = format!("http://{}", support::serve_upstream(app));
    let server = support::serve_http(
        &support::binary("invoices-mcp"),
        &["--auth-issuer", &issuer.url, "--upstream", &upstream],
        &[
            ("INVOICES_BEARER_TOKEN", "t"),
            ("INVOICES_HANDLE_KEY", "a shared handle key of 32+ characters, for the test"),
        ],
    );
    let alice = issuer.token("alice", "", &server.url, &[]).await;
    let bob = issuer.token("bob", "", &server.url, &[]).await;
    let first = call(&server.url, &alice, "list_invoices", json!({"limit": 2})).await;
    let handle = first.result()["structuredContent"]["next_cursor"].as_str().unwrap().to_owned();
    let stolen = call(&server.url, &bob, "list_invoices", json!({"limit": 2, "cursor": handle})).await;
    let e = stolen.tool_error();
    assert_eq!((e["code"].as_str(), e["field"].as_str()), (Some("invalid_argument"), Some("cursor")), "{e}");
    let own = call(&server.url, &alice, "list_invoices", json!({"limit": 2, "cursor": handle})).await;
    assert_eq!(own.result()["structuredContent"]["items"][0]["id"], "inv_0003", "{}", own.body);
}

/// npm `oidc-provider` with the RFC 8693 grant registered (`tests/oauth/exchange.mjs`),
/// exchanging tokens of `subject_issuer`; its token endpoint.
fn start_exchange(subject_issuer: &Issuer) -> (Child, String) {
    let (child, info) = start_provider(subject_issuer);
    (child, info["token_endpoint"].as_str().unwrap().to_owned())
}

/// `tests/oauth/exchange.mjs` running, and what it announced (issuer, endpoints).
fn start_provider(subject_issuer: &Issuer) -> (Child, Value) {
    spawn_node("exchange.mjs", &[("SUBJECT_ISSUER", &subject_issuer.url)])
}

#[tokio::test(flavor = "multi_thread")]
async fn opaque_tokens_are_introspected_at_a_real_authorization_server() {
    let issuer = start_issuer();
    let (mut provider, info) = start_provider(&issuer);
    let (oidc, introspection) = (info["issuer"].as_str().unwrap(), info["introspection_endpoint"].as_str().unwrap());
    let upstream = Upstream::start();
    let server = support::serve_http(
        &support::binary("petstore-mcp"),
        &["--auth-issuer", oidc, "--auth-introspection", introspection, "--upstream", &upstream.url],
        &[
            ("PETSTORE_API_KEY", API_KEY),
            ("PETSTORE_INTROSPECTION_CLIENT_ID", "mcp-server"),
            ("PETSTORE_INTROSPECTION_CLIENT_SECRET", "exchange-secret"),
        ],
    );
    // The agent's own opaque token, by client credentials.
    let opaque = &token_at(
        info["token_endpoint"].as_str().unwrap(),
        ("agent", "agent-secret"),
        &[("grant_type", "client_credentials"), ("scope", "read:pets")],
    )
    .await;
    assert_eq!(opaque.split('.').count(), 1, "expected an opaque token: {opaque}");
    let names = tool_names(&server.url, opaque).await;
    assert!(names.iter().any(|n| n == "find_pets") && !names.iter().any(|n| n == "add_pet"), "{names:?}");
    let reply = call(&server.url, opaque, "find_pets", json!({"status": "available"})).await;
    assert_ne!(reply.result()["isError"], true, "{}", reply.body);
    let reply = call(&server.url, "not-a-token-the-server-issued", "find_pets", json!({"status": "available"})).await;
    assert_eq!(reply.status, 401);
    assert!(reply.challenge().contains("invalid_token"), "{}", reply.challenge());
    let _ = provider.kill();
    let _ = provider.wait();
}

#[tokio::test(flavor = "multi_thread")]
async fn rfc_8693_token_exchange_at_a_real_oidc_server() {
    let issuer = start_issuer();
    let (mut provider, token_endpoint) = start_exchange(&issuer);
    let (upstream, seen) = users_upstream();
    let serve = |secret: &str| {
        support::serve_http(
            &support::binary("users-mcp"),
            &[
                "--auth-issuer",
                &issuer.url,
                "--upstream",
                &upstream,
                "--upstream-token-exchange",
                &token_endpoint,
                "--upstream-exchange-audience",
                "users-api",
            ],
            &[("USERS_EXCHANGE_CLIENT_ID", "mcp-server"), ("USERS_EXCHANGE_CLIENT_SECRET", secret)],
        )
    };
    let server = serve("exchange-secret");
    let alice = issuer.token("alice", "users:read", &server.url, &[]).await;
    let reply = call(&server.url, &alice, "list_users", json!({})).await;
    assert_ne!(reply.result()["isError"], true, "{}", reply.body);
    let sent = seen.lock().unwrap().clone();
    let token = bearer_of(&sent[0]);
    assert_ne!(token, alice, "the caller's token went upstream");
    let c = claims(token);
    assert_eq!((c["sub"].as_str(), c["aud"].as_str()), (Some("alice"), Some("users-api")), "{c}");
    assert_eq!(c["act"]["sub"], "mcp-server", "{c}");
    assert_ne!(c["iss"], issuer.url.as_str(), "{c}");
    drop(server);

    // The token endpoint refuses the server: the call fails with what to tell the user, and
    // nothing reaches the upstream.
    let server = serve("a wrong secret");
    let alice = issuer.token("alice", "users:read", &server.url, &[]).await;
    let e = call(&server.url, &alice, "list_users", json!({})).await.tool_error();
    assert_eq!(e["code"], "unauthenticated", "{e}");
    assert_eq!(seen.lock().unwrap().len(), 1);
    let _ = provider.kill();
    let _ = provider.wait();
}

#[test]
fn a_non_loopback_address_needs_auth_or_an_explicit_opt_out() {
    let binary = support::binary("petstore-mcp");
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(&binary)
        .args(["serve", "--mock", "--http", "0.0.0.0:0"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--auth-issuer") && err.contains("--insecure-no-auth"), "{err}");

    let mut server = support::spawn_server(
        &binary,
        &["serve", "--mock", "--http", "0.0.0.0:0", "--insecure-no-auth"],
        &[],
        "tool(s) on http://",
    );
    assert!(server.log.lock().unwrap().contains("WARNING: serving 0.0.0.0:0 without authentication"));
    alive(&mut server);
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_beyond_the_concurrency_limit_get_503() {
    use axum::routing::get;
    // An upstream that takes its time, so requests pile up in the server.
    let app = axum::Router::new().route(
        "/api/v3/store/inventory",
        get(|| async {
            tokio::time::sleep(Duration::from_millis(400)).await;
            axum::Json(json!({"available": 1}))
        }),
    );
    let upstream = format!("http://{}/api/v3", support::serve_upstream(app));
    let server = support::serve_http(
        &support::binary("petstore-mcp"),
        &["--upstream", &upstream, "--max-in-flight", "2"],
        &[("PETSTORE_API_KEY", API_KEY)],
    );
    let calls: Vec<_> = (0..8)
        .map(|_| {
            let url = server.url.clone();
            tokio::spawn(async move {
                rpc(&url, "tools/call", json!({"name": "get_inventory", "arguments": {}}), &[]).await
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for c in calls {
        let reply = c.await.unwrap();
        if reply.status == 503 {
            assert_eq!(reply.headers.get("retry-after").and_then(|v| v.to_str().ok()), Some("1"));
        }
        statuses.push(reply.status);
    }
    statuses.sort_unstable();
    let served = statuses.iter().filter(|s| **s == 200).count();
    assert!((2..8).contains(&served) && statuses.iter().all(|s| *s == 200 || *s == 503), "{statuses:?}");
}

/// MUST-SHOW 1: the official Python SDK, with its own OAuth client (`OAuthClientProvider`):
/// without a token it gets the 401 and the metadata; its auth flow discovers the authorization
/// server from them, authorizes with PKCE and the resource indicator, and retries; the token's
/// scopes choose the tools it sees; a call beyond them is a 403 the SDK steps up from.
#[tokio::test(flavor = "multi_thread")]
async fn the_python_sdk_authorizes_itself_and_sees_what_its_scopes_allow() {
    let issuer = start_issuer();
    let upstream = Upstream::start();
    let server = petstore(&issuer, &upstream, &[]);
    let out = tokio::task::spawn_blocking({
        let url = server.url.clone();
        move || {
            Command::new(support::python())
                .arg(support::repo().join("tests/python/oauth_client.py"))
                .args(["--url", &url, "--scope", "read:pets"])
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let seen: Value = serde_json::from_str(&stdout).unwrap();
    let dump = || serde_json::to_string_pretty(&seen).unwrap();

    // No token: the 401 and the metadata it points to.
    assert_eq!(seen["no_token"]["status"], 401, "{}", dump());
    let origin = server.url.trim_end_matches("/mcp/v1");
    assert_eq!(
        seen["no_token"]["challenge"]["resource_metadata"],
        format!("{origin}/.well-known/oauth-protected-resource/mcp/v1"),
        "{}",
        dump()
    );
    assert_eq!(seen["metadata"]["document"]["resource"], server.url.as_str());
    assert_eq!(seen["metadata"]["document"]["authorization_servers"], json!([issuer.url]));

    // The SDK's flow: challenge → resource metadata → issuer metadata → authorize → token → retry.
    let flow: Vec<String> = seen["flow"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} {} {}", r["method"].as_str().unwrap_or(""), r["url"].as_str().unwrap_or(""), r["status"]))
        .collect();
    let at = |needle: &str| {
        flow.iter().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("no {needle} in {flow:#?}"))
    };
    assert!(at("401") < at("oauth-protected-resource/mcp/v1 200"), "{flow:#?}");
    assert!(at("oauth-protected-resource/mcp/v1 200") < at("openid-configuration 200"), "{flow:#?}");
    assert!(at("openid-configuration 200") < at("/authorize") && at("/authorize") < at("/token 200"), "{flow:#?}");
    assert_eq!(seen["claims"]["aud"], server.url.as_str(), "the resource indicator is the audience");
    assert_eq!(seen["claims"]["scope"], "read:pets");

    // Its scopes choose what it sees and calls.
    let tools: Vec<&str> = seen["tools"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(tools.contains(&"find_pets") && tools.contains(&"get_inventory"), "{tools:?}");
    assert!(!tools.contains(&"add_pet") && !tools.contains(&"delete_pet"), "{tools:?}");
    assert_eq!(seen["tools_cache"]["cache_scope"], "private", "a list chosen by scopes is not shared");
    assert_eq!(seen["find_pets"]["is_error"], false, "{}", dump());
    assert_eq!(seen["get_inventory"]["is_error"], false, "{}", dump());

    // Beyond them: 403 insufficient_scope, from which the SDK steps up and retries.
    let add = &seen["add_pet"];
    assert_eq!(add["statuses"][0], 403, "{}", dump());
    assert_eq!(add["step_up"], true, "{}", dump());
    assert_eq!(add["reauthorizations"][0]["scope_asked"], "read:pets write:pets", "{}", dump());
    assert_eq!(add["result"]["is_error"], false, "{}", dump());
    eprintln!("python SDK OAuth flow:\n{}", flow.join("\n"));
}
