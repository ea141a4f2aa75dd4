//! A fast invoices API on loopback, for the server bench and its soak: fixed reads, creates that
//! honour `Idempotency-Key` (as a payment API does) and are counted per intent, and faults that
//! the orchestrator switches on at run time.
//!
//! ```text
//! bench-upstream [--port P] [--workers N] [--delay-ms D]
//! GET  /v1/invoices/{id}      the invoice
//! POST /v1/invoices           a new invoice (a repeated Idempotency-Key gets the first answer)
//! GET  /_stats?expect=N       intents 0..N: how many have no invoice, how many more than one
//! POST /_faults               {"reset": p, "reset_after_commit": p, "error_5xx": p, "burst": n,
//!                              "timeout": p, "timeout_ms": ms, "slow_body": p, "slow_ms": ms}
//! ```
//!
//! It prints `listening on ADDR` once bound.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, channel::Channel, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use mcp_gen_bench_server::{Args, Rng};
use serde_json::{Value, json};
use tokio::net::TcpListener;

type Body = BoxBody<Bytes, Infallible>;

/// Fault probabilities, per request to `/v1/…`.
#[derive(Default, Clone, Copy)]
struct Faults {
    reset: f64,
    reset_after_commit: f64,
    error_5xx: f64,
    burst: u64,
    timeout: f64,
    timeout_ms: u64,
    slow_body: f64,
    slow_ms: u64,
}

#[derive(Default)]
struct Ledger {
    /// Idempotency-Key → the answer first given.
    by_key: BTreeMap<String, Bytes>,
    /// Intent number (from the line's `intent-N` description) → invoices created for it.
    per_intent: BTreeMap<u64, u32>,
    invoices: u64,
}

struct State {
    delay: Duration,
    faults: Mutex<Faults>,
    /// Requests still to answer 503 in the current burst.
    burst_left: AtomicU64,
    ledger: Mutex<Ledger>,
    requests: AtomicU64,
    faults_injected: AtomicU64,
    rng: Rng,
}

fn main() {
    let args = Args::from_env();
    let workers: usize = args.get("workers", 1);
    let port: u16 = args.get("port", 0);
    let delay = Duration::from_millis(args.get("delay-ms", 0));
    // The bench gives the upstream one worker thread by default: it must stay cheap next to the
    // servers it feeds, on a 2-core machine.
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(workers).enable_all().build();
    let Ok(runtime) = runtime else {
        eprintln!("bench-upstream: cannot start the runtime");
        std::process::exit(1);
    };
    let state = Arc::new(State {
        delay,
        faults: Mutex::new(Faults::default()),
        burst_left: AtomicU64::new(0),
        ledger: Mutex::new(Ledger::default()),
        requests: AtomicU64::new(0),
        faults_injected: AtomicU64::new(0),
        rng: Rng::new(0x5eed),
    });
    if let Err(e) = runtime.block_on(serve(port, state)) {
        eprintln!("bench-upstream: {e}");
        std::process::exit(1);
    }
}

async fn serve(port: u16, state: Arc<State>) -> std::io::Result<()> {
    let listener = TcpListener::bind(("127.0.0.1", port)).await?;
    println!("listening on {}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let state = state.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| handle(req, state.clone()));
            // A reset fault ends the connection: hyper closes it without an answer.
            let _ = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn full(status: StatusCode, body: impl Into<Bytes>) -> Response<Body> {
    let mut response = Response::new(Full::new(body.into()).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
    response
}

/// Why a connection is dropped without an answer.
#[derive(Debug)]
struct Reset;

impl std::fmt::Display for Reset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("injected reset")
    }
}

impl std::error::Error for Reset {}

async fn handle(req: Request<Incoming>, state: Arc<State>) -> Result<Response<Body>, Reset> {
    let path = req.uri().path().to_owned();
    if path == "/_stats" {
        let expect = req.uri().query().and_then(|q| q.strip_prefix("expect=")).and_then(|n| n.parse().ok());
        return Ok(full(StatusCode::OK, stats(&state, expect).to_string()));
    }
    if path == "/_faults" {
        let body = req.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
        return Ok(match serde_json::from_slice::<Value>(&body) {
            Ok(v) => {
                set_faults(&state, &v);
                full(StatusCode::OK, "{}")
            }
            Err(e) => full(StatusCode::BAD_REQUEST, json!({ "error": e.to_string() }).to_string()),
        });
    }
    state.requests.fetch_add(1, Ordering::Relaxed);
    if !state.delay.is_zero() {
        tokio::time::sleep(state.delay).await;
    }
    let faults = state.faults.lock().map(|f| *f).unwrap_or_default();
    let roll = |p: f64| p > 0.0 && state.rng.unit() < p;
    if state.burst_left.load(Ordering::Relaxed) > 0 || roll(faults.error_5xx) {
        let left = state.burst_left.load(Ordering::Relaxed);
        if left == 0 {
            state.burst_left.store(faults.burst.max(1) - 1, Ordering::Relaxed);
        } else {
            state.burst_left.store(left - 1, Ordering::Relaxed);
        }
        state.faults_injected.fetch_add(1, Ordering::Relaxed);
        return Ok(full(StatusCode::SERVICE_UNAVAILABLE, r#"{"error":"unavailable","message":"injected 503"}"#));
    }
    if roll(faults.reset) {
        state.faults_injected.fetch_add(1, Ordering::Relaxed);
        return Err(Reset);
    }
    let response = match (req.method().clone(), path.as_str()) {
        (Method::GET, p) if p.starts_with("/v1/invoices/") => {
            let id = &p["/v1/invoices/".len()..];
            full(StatusCode::OK, invoice(id, "cus_1", "a read", 1).to_string())
        }
        (Method::POST, "/v1/invoices") => {
            let key = req.headers().get("idempotency-key").and_then(|v| v.to_str().ok()).map(str::to_owned);
            let body = req.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
            match create(&state, key, &body) {
                Ok(answer) => full(StatusCode::CREATED, answer),
                Err(message) => {
                    full(StatusCode::BAD_REQUEST, json!({ "error": "invalid", "message": message }).to_string())
                }
            }
        }
        _ => full(StatusCode::NOT_FOUND, r#"{"error":"not_found"}"#),
    };
    // Faults after the work is done: the caller cannot know whether it happened.
    if roll(faults.reset_after_commit) {
        state.faults_injected.fetch_add(1, Ordering::Relaxed);
        return Err(Reset);
    }
    if roll(faults.timeout) {
        state.faults_injected.fetch_add(1, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(faults.timeout_ms)).await;
    } else if roll(faults.slow_body) {
        state.faults_injected.fetch_add(1, Ordering::Relaxed);
        return Ok(slow(response, Duration::from_millis(faults.slow_ms)).await);
    }
    Ok(response)
}

/// The same answer, its body sent in four parts with `pause` between them.
async fn slow(response: Response<Body>, pause: Duration) -> Response<Body> {
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let (mut sender, channel) = Channel::<Bytes, Infallible>::new(4);
    tokio::spawn(async move {
        let step = bytes.len().div_ceil(4).max(1);
        for chunk in bytes.chunks(step) {
            tokio::time::sleep(pause / 4).await;
            if sender.send_data(Bytes::copy_from_slice(chunk)).await.is_err() {
                return;
            }
        }
    });
    Response::from_parts(parts, channel.boxed())
}

fn invoice(id: &str, customer: &str, description: &str, quantity: u64) -> Value {
    json!({
        "id": id, "customer": customer, "currency": "EUR", "status": "draft",
        "total": 1250 * quantity, "due_date": null,
        "lines": [{ "description": description, "quantity": quantity, "unit_amount": 1250 }],
    })
}

/// A new invoice, or the first answer for a key seen before. The intent it serves is read from
/// the first line's description, `intent-N`.
fn create(state: &State, key: Option<String>, body: &[u8]) -> Result<Bytes, String> {
    let request: Value = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    let customer = request["customer"].as_str().unwrap_or("cus_0");
    let line = &request["lines"][0];
    let description = line["description"].as_str().unwrap_or("");
    let quantity = line["quantity"].as_u64().unwrap_or(1);
    let mut ledger = state.ledger.lock().map_err(|_| "ledger poisoned".to_owned())?;
    if let Some(answer) = key.as_ref().and_then(|k| ledger.by_key.get(k)) {
        return Ok(answer.clone());
    }
    ledger.invoices += 1;
    let id = format!("inv_{:014}", ledger.invoices);
    if let Some(n) = description.strip_prefix("intent-").and_then(|n| n.parse().ok()) {
        *ledger.per_intent.entry(n).or_default() += 1;
    }
    let answer = Bytes::from(invoice(&id, customer, description, quantity).to_string());
    if let Some(key) = key {
        ledger.by_key.insert(key, answer.clone());
    }
    Ok(answer)
}

fn stats(state: &State, expect: Option<u64>) -> Value {
    let Ok(ledger) = state.ledger.lock() else {
        return json!({ "error": "ledger poisoned" });
    };
    let duplicated: Vec<u64> = ledger.per_intent.iter().filter(|(_, n)| **n > 1).map(|(i, _)| *i).collect();
    let missing: Vec<u64> = match expect {
        Some(n) => (0..n).filter(|i| !ledger.per_intent.contains_key(i)).collect(),
        None => Vec::new(),
    };
    json!({
        "requests": state.requests.load(Ordering::Relaxed),
        "faults_injected": state.faults_injected.load(Ordering::Relaxed),
        "invoices": ledger.invoices,
        "intents": ledger.per_intent.len(),
        "duplicated": duplicated.len(),
        "duplicated_sample": duplicated.iter().take(20).collect::<Vec<_>>(),
        "missing": missing.len(),
        "missing_sample": missing.iter().take(20).collect::<Vec<_>>(),
    })
}

fn set_faults(state: &State, v: &Value) {
    let p = |name: &str| v[name].as_f64().unwrap_or(0.0);
    let ms = |name: &str, default: u64| v[name].as_u64().unwrap_or(default);
    let faults = Faults {
        reset: p("reset"),
        reset_after_commit: p("reset_after_commit"),
        error_5xx: p("error_5xx"),
        burst: ms("burst", 1),
        timeout: p("timeout"),
        timeout_ms: ms("timeout_ms", 2000),
        slow_body: p("slow_body"),
        slow_ms: ms("slow_ms", 400),
    };
    if let Ok(mut held) = state.faults.lock() {
        *held = faults;
    }
}
