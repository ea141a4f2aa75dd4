//! Closed-loop load on loopback: `--concurrency` workers, each on its own keep-alive connection,
//! sending one call after another for `--seconds` (after `--warmup`), and one JSON line with what
//! it measured.
//!
//! ```text
//! bench-load --target http://127.0.0.1:P/mcp/v1 --kind stateless|session|direct
//!            --call read|write|keyed|replay|mixed [--concurrency 64] [--seconds 10] [--warmup 2]
//!            [--threads 1] [--read-tool get_invoice] [--write-tool create_invoice]
//!            [--body-arg NAME] [--key-arg idempotency_key] [--read-share 0.7]
//!            [--retry 0|1] [--intent-base 0]
//! ```
//!
//! - `stateless`: 2026-07-28 `tools/call`s, no initialize (mcp-gen's servers).
//! - `session`: `initialize` once per connection, then calls with its `mcp-session-id` (servers
//!   of the initialize-based versions; answers may come as JSON or as an SSE stream).
//! - `direct`: the same operation straight to the upstream, the baseline latency.
//! - `keyed` writes carry a new key per intent, `replay` repeats one key per worker, `write` has
//!   none (peers without keys). `--retry 1` re-sends an intent (same key) after a broken stream or
//!   a retryable tool error until it is answered, as a careful agent does; the soak uses it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use mcp_gen_bench_server::{Args, Rng, fail, quantile};
use serde_json::json;
use tokio::net::TcpStream;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Stateless,
    Session,
    Direct,
}

#[derive(Clone, Copy, PartialEq)]
enum Call {
    Read,
    Write,
    Keyed,
    Replay,
    Mixed,
}

struct Config {
    host: String,
    path: String,
    kind: Kind,
    call: Call,
    read_tool: String,
    write_tool: String,
    body_arg: String,
    key_arg: String,
    read_share: f64,
    retry: bool,
}

#[derive(Default)]
struct Totals {
    ok: AtomicU64,
    /// Answers over warm-up and window alike (CPU per call divides by it).
    answered: AtomicU64,
    tool_errors: AtomicU64,
    transport_errors: AtomicU64,
    http_errors: AtomicU64,
    retries: AtomicU64,
    /// Answers that are final errors (not retryable, or not retried).
    fatal: AtomicU64,
    intents: AtomicU64,
    intents_done: AtomicU64,
    intents_failed: AtomicU64,
    replayed: AtomicU64,
    sample: std::sync::Mutex<Option<String>>,
}

/// What one attempt came to.
enum Outcome {
    Ok { replayed: bool },
    ToolError { retryable: bool, body: String },
    Http(u16, String),
    Broken(String),
}

fn main() {
    let args = Args::from_env();
    let target = args.text("target", "http://127.0.0.1:8080/mcp/v1");
    let Some(rest) = target.strip_prefix("http://") else { fail("--target must be an http:// URL") };
    let (host, path) = match rest.find('/') {
        Some(i) => (rest[..i].to_owned(), rest[i..].to_owned()),
        None => (rest.to_owned(), "/".to_owned()),
    };
    let kind = match args.text("kind", "stateless").as_str() {
        "stateless" => Kind::Stateless,
        "session" => Kind::Session,
        "direct" => Kind::Direct,
        other => fail(&format!("--kind {other}: stateless, session or direct")),
    };
    let call = match args.text("call", "read").as_str() {
        "read" => Call::Read,
        "write" => Call::Write,
        "keyed" => Call::Keyed,
        "replay" => Call::Replay,
        "mixed" => Call::Mixed,
        other => fail(&format!("--call {other}: read, write, keyed, replay or mixed")),
    };
    let config = Arc::new(Config {
        host,
        path,
        kind,
        call,
        read_tool: args.text("read-tool", "get_invoice"),
        write_tool: args.text("write-tool", "create_invoice"),
        body_arg: args.text("body-arg", ""),
        key_arg: args.text("key-arg", "idempotency_key"),
        read_share: args.get("read-share", 0.7),
        retry: args.get::<u8>("retry", 0) == 1,
    });
    let concurrency: usize = args.get("concurrency", 64);
    let seconds: f64 = args.get("seconds", 10.0);
    let warmup: f64 = args.get("warmup", 2.0);
    let intent_base: u64 = args.get("intent-base", 0);
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(args.get("threads", 1)).enable_all().build();
    let Ok(runtime) = runtime else { fail("cannot start the runtime") };
    let line = runtime.block_on(run(config, concurrency, seconds, warmup, intent_base));
    println!("{line}");
}

async fn run(
    config: Arc<Config>,
    concurrency: usize,
    seconds: f64,
    warmup: f64,
    intent_base: u64,
) -> serde_json::Value {
    let totals = Arc::new(Totals::default());
    let measuring = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let next_intent = Arc::new(AtomicU64::new(intent_base));
    let mut workers = Vec::with_capacity(concurrency);
    for w in 0..concurrency {
        let (config, totals, measuring, stop, next_intent) =
            (config.clone(), totals.clone(), measuring.clone(), stop.clone(), next_intent.clone());
        workers.push(tokio::spawn(async move { worker(w, config, totals, measuring, stop, next_intent).await }));
    }
    tokio::time::sleep(Duration::from_secs_f64(warmup)).await;
    // Counters restart with the measured window; latencies are kept only inside it.
    for c in [&totals.ok, &totals.tool_errors, &totals.transport_errors, &totals.http_errors, &totals.replayed] {
        c.store(0, Ordering::Relaxed);
    }
    measuring.store(true, Ordering::Relaxed);
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    measuring.store(false, Ordering::Relaxed);
    let elapsed = started.elapsed().as_secs_f64();
    let calls_in_window = totals.ok.load(Ordering::Relaxed);
    stop.store(true, Ordering::Relaxed);
    let mut latencies: Vec<u32> = Vec::new();
    for w in workers {
        if let Ok(mut l) = w.await {
            latencies.append(&mut l);
        }
    }
    latencies.sort_unstable();
    let mean = if latencies.is_empty() {
        0.0
    } else {
        latencies.iter().map(|&l| l as f64).sum::<f64>() / latencies.len() as f64
    };
    let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
    json!({
        "calls": calls_in_window,
        "answered": load(&totals.answered),
        "seconds": elapsed,
        "calls_per_s": calls_in_window as f64 / elapsed,
        "p50_us": quantile(&latencies, 0.50),
        "p99_us": quantile(&latencies, 0.99),
        "mean_us": mean,
        "tool_errors": load(&totals.tool_errors),
        "http_errors": load(&totals.http_errors),
        "transport_errors": load(&totals.transport_errors),
        "replayed": load(&totals.replayed),
        "retries": load(&totals.retries),
        "fatal_errors": load(&totals.fatal),
        "intents": load(&totals.intents),
        "intent_end": next_intent.load(Ordering::Relaxed),
        "intents_done": load(&totals.intents_done),
        "intents_failed": load(&totals.intents_failed),
        "error_sample": totals.sample.lock().ok().and_then(|s| s.clone()),
    })
}

async fn worker(
    w: usize,
    config: Arc<Config>,
    totals: Arc<Totals>,
    measuring: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    next_intent: Arc<AtomicU64>,
) -> Vec<u32> {
    let rng = Rng::new(w as u64 * 7919 + 1);
    let mut latencies = Vec::new();
    let mut connection: Option<(SendRequest<Full<Bytes>>, Option<String>)> = None;
    let mut id: u64 = 0;
    // The intent being carried out (write number and whether it is a read) while it is retried.
    let mut pending: Option<(bool, u64)> = None;
    while !stop.load(Ordering::Relaxed) {
        if connection.is_none() {
            match connect(&config).await {
                Ok(c) => connection = Some(c),
                Err(e) => {
                    totals.transport_errors.fetch_add(1, Ordering::Relaxed);
                    note(&totals, format!("connect: {e}"));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            }
        }
        let Some((sender, session)) = connection.as_mut() else { continue };
        let (read, intent) = match pending {
            Some(p) => p,
            None => {
                let read = match config.call {
                    Call::Read => true,
                    Call::Mixed => rng.unit() < config.read_share,
                    _ => false,
                };
                // A replay repeats the worker's first write: the same key and the same arguments.
                let intent = match (read, config.call) {
                    (true, _) => 0,
                    (false, Call::Replay) => w as u64,
                    (false, _) => next_intent.fetch_add(1, Ordering::Relaxed),
                };
                if !read && config.call != Call::Replay {
                    totals.intents.fetch_add(1, Ordering::Relaxed);
                }
                (read, intent)
            }
        };
        id += 1;
        let request = build(&config, session.as_deref(), id, w, read, intent);
        let started = Instant::now();
        let outcome = attempt(sender, request).await;
        let micros = started.elapsed().as_micros().min(u32::MAX as u128) as u32;
        let counted = measuring.load(Ordering::Relaxed);
        let mut retry_after = None;
        match outcome {
            Outcome::Ok { replayed } => {
                totals.ok.fetch_add(1, Ordering::Relaxed);
                totals.answered.fetch_add(1, Ordering::Relaxed);
                if replayed {
                    totals.replayed.fetch_add(1, Ordering::Relaxed);
                }
                if counted {
                    latencies.push(micros);
                }
                if !read {
                    totals.intents_done.fetch_add(1, Ordering::Relaxed);
                }
                pending = None;
            }
            Outcome::ToolError { retryable, body } => {
                totals.tool_errors.fetch_add(1, Ordering::Relaxed);
                if retryable && config.retry {
                    retry_after = Some(retry_after_ms(&body).unwrap_or(100).min(2000));
                } else {
                    totals.fatal.fetch_add(1, Ordering::Relaxed);
                    note(&totals, body);
                    if !read {
                        totals.intents_failed.fetch_add(1, Ordering::Relaxed);
                    }
                    pending = None;
                }
            }
            Outcome::Http(status, body) => {
                totals.http_errors.fetch_add(1, Ordering::Relaxed);
                note(&totals, format!("HTTP {status}: {body}"));
                if config.retry && (status == 503 || status == 429) {
                    retry_after = Some(100);
                } else {
                    totals.fatal.fetch_add(1, Ordering::Relaxed);
                    if !read {
                        totals.intents_failed.fetch_add(1, Ordering::Relaxed);
                    }
                    pending = None;
                }
            }
            Outcome::Broken(e) => {
                totals.transport_errors.fetch_add(1, Ordering::Relaxed);
                note(&totals, format!("broken stream: {e}"));
                connection = None;
                if config.retry {
                    retry_after = Some(50);
                } else {
                    if !read {
                        totals.intents_failed.fetch_add(1, Ordering::Relaxed);
                    }
                    pending = None;
                }
            }
        }
        if let Some(ms) = retry_after {
            totals.retries.fetch_add(1, Ordering::Relaxed);
            pending = Some((read, intent));
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
    }
    // An intent still being retried when the run ends is neither done nor failed; the soak stops
    // the load and then waits for such intents itself (see `--retry`): here they are let finish.
    if let (Some((false, intent)), true) = (pending, config.retry) {
        finish(&config, &totals, w, intent).await;
    }
    latencies
}

/// Carries one pending write to its end after the window closed, so the soak's count is exact.
async fn finish(config: &Config, totals: &Totals, w: usize, intent: u64) {
    for round in 0..200u64 {
        let Ok((mut sender, session)) = connect(config).await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let request = build(config, session.as_deref(), 1_000_000 + round, w, false, intent);
        match attempt(&mut sender, request).await {
            Outcome::Ok { .. } => {
                totals.intents_done.fetch_add(1, Ordering::Relaxed);
                return;
            }
            Outcome::ToolError { retryable: false, body } => {
                note(totals, body);
                totals.intents_failed.fetch_add(1, Ordering::Relaxed);
                return;
            }
            _ => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
    totals.intents_failed.fetch_add(1, Ordering::Relaxed);
}

fn note(totals: &Totals, message: String) {
    if let Ok(mut sample) = totals.sample.lock()
        && sample.is_none()
    {
        *sample = Some(message.chars().take(600).collect());
    }
}

fn retry_after_ms(error: &str) -> Option<u64> {
    serde_json::from_str::<serde_json::Value>(error).ok()?.get("retry_after_ms")?.as_u64()
}

/// A tool error's object (code, retryable, retry_after_ms): the structured content, else the
/// JSON in its text.
fn tool_error(answer: &str) -> serde_json::Value {
    let message: serde_json::Value = serde_json::from_str(answer).unwrap_or_default();
    let result = &message["result"];
    if result["structuredContent"].is_object() {
        return result["structuredContent"].clone();
    }
    result["content"][0]["text"].as_str().and_then(|t| serde_json::from_str(t).ok()).unwrap_or_default()
}

async fn connect(config: &Config) -> Result<(SendRequest<Full<Bytes>>, Option<String>), String> {
    let stream = TcpStream::connect(&config.host).await.map_err(|e| e.to_string())?;
    let _ = stream.set_nodelay(true);
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    if config.kind != Kind::Session {
        return Ok((sender, None));
    }
    let init = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": { "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": { "name": "bench-load", "version": "0.1.0" } },
    });
    let response =
        sender.send_request(mcp_post(config, None, init.to_string(), None)).await.map_err(|e| e.to_string())?;
    let session = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let _ = response.into_body().collect().await.map_err(|e| e.to_string())?;
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    let response = sender
        .send_request(mcp_post(config, session.as_deref(), initialized.to_string(), None))
        .await
        .map_err(|e| e.to_string())?;
    let _ = response.into_body().collect().await.map_err(|e| e.to_string())?;
    Ok((sender, session))
}

fn mcp_post(config: &Config, session: Option<&str>, body: String, tool: Option<&str>) -> Request<Full<Bytes>> {
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri(&config.path)
        .header("host", &config.host)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    match config.kind {
        Kind::Stateless => {
            builder = builder.header("mcp-protocol-version", "2026-07-28").header("mcp-method", "tools/call");
            if let Some(tool) = tool {
                builder = builder.header("mcp-name", tool);
            }
        }
        Kind::Session => {
            if let Some(session) = session {
                builder = builder.header("mcp-session-id", session).header("mcp-protocol-version", "2025-06-18");
            }
        }
        Kind::Direct => {}
    }
    builder.body(Full::new(Bytes::from(body))).unwrap_or_else(|e| fail(&format!("bad request: {e}")))
}

/// The request for one attempt: a read of invoice `w`, or write `intent`.
fn build(config: &Config, session: Option<&str>, id: u64, w: usize, read: bool, intent: u64) -> Request<Full<Bytes>> {
    let invoice_id = format!("inv_{:014}", w);
    let fields = json!({
        "customer": format!("cus_{}", intent % 97),
        "currency": "EUR",
        "lines": [{ "description": format!("intent-{intent}"), "quantity": 1 + intent % 5, "unit_amount": 1250 }],
    });
    let key = match config.call {
        Call::Replay => Some(format!("replay-{w}")),
        Call::Keyed | Call::Mixed => Some(format!("intent-{intent}")),
        _ => None,
    };
    if config.kind == Kind::Direct {
        let mut builder = Request::builder().header("host", &config.host).header("content-type", "application/json");
        let body = if read {
            builder = builder.method(Method::GET).uri(format!("/v1/invoices/{invoice_id}"));
            String::new()
        } else {
            builder = builder.method(Method::POST).uri("/v1/invoices");
            if let Some(key) = &key {
                builder = builder.header("idempotency-key", key);
            }
            fields.to_string()
        };
        return builder.body(Full::new(Bytes::from(body))).unwrap_or_else(|e| fail(&format!("bad request: {e}")));
    }
    let (tool, arguments) = if read {
        (&config.read_tool, json!({ "invoice_id": invoice_id }))
    } else {
        let mut arguments =
            if config.body_arg.is_empty() { fields } else { json!({ config.body_arg.as_str(): fields }) };
        if let Some(key) = key {
            arguments[config.key_arg.as_str()] = json!(key);
        }
        (&config.write_tool, arguments)
    };
    let mut params = json!({ "name": tool, "arguments": arguments });
    if config.kind == Kind::Stateless {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
    }
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params });
    mcp_post(config, session, body.to_string(), Some(tool))
}

async fn attempt(sender: &mut SendRequest<Full<Bytes>>, request: Request<Full<Bytes>>) -> Outcome {
    if sender.ready().await.is_err() {
        return Outcome::Broken("connection closed".to_owned());
    }
    let response = match sender.send_request(request).await {
        Ok(r) => r,
        Err(e) => return Outcome::Broken(e.to_string()),
    };
    let status = response.status().as_u16();
    let body = match response.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => return Outcome::Broken(e.to_string()),
    };
    let text = String::from_utf8_lossy(&body);
    if !(200..300).contains(&status) {
        return Outcome::Http(status, text.chars().take(300).collect());
    }
    // A direct call's answer is the upstream's own JSON.
    if !text.contains("\"jsonrpc\"") {
        return Outcome::Ok { replayed: false };
    }
    if !text.contains("\"result\"") {
        return Outcome::ToolError { retryable: false, body: text.into_owned() };
    }
    if text.contains("\"isError\":true") {
        let error = tool_error(&text);
        let retryable = error.get("retryable").and_then(serde_json::Value::as_bool).unwrap_or(false);
        return Outcome::ToolError { retryable, body: error.to_string() };
    }
    Outcome::Ok { replayed: text.contains("\"replayed\":true") }
}
