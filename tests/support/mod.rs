//! Shared pieces of the end-to-end tests: building a generated server, starting it as a real
//! process, and the Python SDK's virtual environment.

#![allow(dead_code)]

pub mod petstore;
pub mod violate;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use mcp_gen_runtime::rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion};
use mcp_gen_runtime::rmcp::service::RunningService;
use mcp_gen_runtime::rmcp::transport::StreamableHttpClientTransport;
use mcp_gen_runtime::rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};

pub type Client = RunningService<RoleClient, ()>;

/// rmcp's client over Streamable HTTP, as a 2026-07-28 client (server/discover, no initialize).
pub async fn modern_client(url: &str) -> Client {
    // rmcp's client is reqwest, which uses the runtime's TLS provider.
    mcp_gen_runtime::init_tls();
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    ().serve_with_lifecycle(StreamableHttpClientTransport::from_uri(url.to_owned()), lifecycle).await.unwrap()
}

/// Calls `name` with `args` (a JSON object).
pub async fn call(client: &Client, name: &str, args: serde_json::Value) -> CallToolResult {
    let args = args.as_object().cloned().unwrap();
    client.call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args)).await.unwrap()
}

/// The error body of an `isError` result (CONTRACT E2), with the fields every body has.
pub fn error_body(r: &CallToolResult) -> serde_json::Value {
    assert_eq!(r.is_error, Some(true), "expected a tool error, got {r:?}");
    let text = r.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap();
    let body: serde_json::Value = serde_json::from_str(&text).unwrap();
    for key in ["code", "message", "retryable", "retry_after_ms", "recovery"] {
        assert!(body.get(key).is_some(), "error body lacks `{key}`: {body}");
    }
    body
}

/// Whether the server replayed this result from its idempotency store (R3).
pub fn replayed(r: &CallToolResult) -> bool {
    r.meta.as_ref().and_then(|m| m.0.get("dev.mcp-gen/idempotency")).is_some_and(|v| v["replayed"] == true)
}

/// One raw `tools/call` over Streamable HTTP, as a 2026-07-28 client sends it, with extra
/// request headers (an `authorization`, say); the JSON-RPC reply.
pub async fn raw_tools_call(
    url: &str,
    id: u64,
    tool: &str,
    args: &serde_json::Value,
    headers: &[(&str, &str)],
) -> serde_json::Value {
    let meta = serde_json::json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let body = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": args, "_meta": meta}});
    mcp_gen_runtime::init_tls();
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let text = request.body(body.to_string()).send().await.unwrap().text().await.unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The PostgreSQL the store tests use (trust auth, database `test`).
pub const PG: &str = "postgres://postgres@127.0.0.1:5432/test";

/// A PostgreSQL store URL in a schema of its own (dropped and made afresh).
pub async fn pg_schema(name: &str) -> String {
    let (admin, conn) = tokio_postgres::connect(PG, tokio_postgres::NoTls).await.expect("PostgreSQL on 127.0.0.1:5432");
    tokio::spawn(conn);
    let schema = format!("{name}_{}", std::process::id());
    admin.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")).await.unwrap();
    format!("{PG}?options=-csearch_path%3D{schema}")
}

/// Serves `app` on a loopback port on its own thread (a test's upstream API); its address.
pub fn serve_upstream(app: axum::Router) -> std::net::SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    addr
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Builds a workspace package's binary (once per test process) and returns its path.
pub fn binary(package: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<Vec<(String, PathBuf)>>> = OnceLock::new();
    let built = BUILT.get_or_init(Mutex::default);
    let mut built = built.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = built.iter().find(|(n, _)| n == package) {
        return p.clone();
    }
    let path = cargo_build(&["-p", package], &repo());
    built.push((package.to_owned(), path.clone()));
    path
}

/// Runs `cargo build` with `args` in `dir` and returns the executable it produced.
pub fn cargo_build(args: &[&str], dir: &Path) -> PathBuf {
    cargo_build_env(args, dir, &[])
}

pub fn cargo_build_env(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut cmd = Command::new(cargo);
    cmd.arg("build").args(args).arg("--message-format=json-render-diagnostics").current_dir(dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.stderr(Stdio::inherit()).output().expect("cargo runs");
    assert!(out.status.success(), "cargo build {args:?} failed in {}", dir.display());
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|m| m.get("executable").and_then(|e| e.as_str()).map(PathBuf::from))
        .next_back()
        .expect("cargo build produced an executable")
}

/// A generated server running as a child process; killed on drop.
pub struct Server {
    pub child: Child,
    pub url: String,
    pub log: std::sync::Arc<Mutex<String>>,
    /// The server's working directory, where its default SQLite store lives: fresh per server.
    pub dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `serve --http 127.0.0.1:0 <extra>` and waits for the line announcing the endpoint.
pub fn serve_http(binary: &Path, extra: &[&str], env: &[(&str, &str)]) -> Server {
    let mut args = vec!["serve", "--http", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    spawn_server(binary, &args, env, "http://")
}

/// Starts `binary args…` in a fresh directory and waits for the stderr line announcing its MCP
/// endpoint: the URL right after `marker` (which ends with `http://`).
pub fn spawn_server(binary: &Path, args: &[&str], env: &[(&str, &str)], marker: &str) -> Server {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut cmd = Command::new(binary);
    cmd.args(args).current_dir(dir.path()).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let marker = marker.to_owned();
    let mut child = cmd.spawn().expect("server starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let log = std::sync::Arc::new(Mutex::new(String::new()));
    let (tx, rx) = std::sync::mpsc::channel();
    let sink = log.clone();
    std::thread::spawn(move || {
        let mut tx = Some(tx);
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(start) = line.find(&marker)
                && let Some(tx) = tx.take()
            {
                let start = start + marker.len() - "http://".len();
                let url = line[start..].split(|c: char| c.is_whitespace() || c == ';').next().unwrap_or("").to_owned();
                let _ = tx.send(url);
            }
            sink.lock().unwrap().push_str(&format!("{line}\n"));
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("server did not announce its address; log:\n{}", log.lock().unwrap()));
    Server { child, url, log, dir }
}

/// The Python virtual environment with the official MCP SDK (`tests/python/requirements.txt`),
/// created on first use under `target/` so that `cargo test` needs nothing installed beforehand.
pub fn python() -> PathBuf {
    static PY: OnceLock<PathBuf> = OnceLock::new();
    PY.get_or_init(|| {
        let venv = repo().join("target").join("py-venv");
        let py = venv.join("bin").join("python");
        let requirements = repo().join("tests/python/requirements.txt");
        let stamp = venv.join("requirements.stamp");
        let wanted = std::fs::read_to_string(&requirements).expect("requirements file");
        if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
            let python3 = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
            let ok = Command::new(&python3).args(["-m", "venv"]).arg(&venv).status().is_ok_and(|s| s.success());
            assert!(ok, "`{python3} -m venv` failed: the Python tests need Python 3.10+ with venv");
            let ok = Command::new(&py)
                .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
                .arg(&requirements)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "pip install -r tests/python/requirements.txt failed (needs access to PyPI)");
            std::fs::write(&stamp, &wanted).expect("stamp written");
        }
        py
    })
    .clone()
}
