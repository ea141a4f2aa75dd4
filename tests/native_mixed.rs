//! Mixed mode (issue 29): a native build of the invoices spec whose overlay keeps the reads
//! `run: proxy`. The crate's own handlers create and void invoices in the store's transaction;
//! the reads go to the upstream API as in a generated proxy — one server, one catalog.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path as UrlPath, State};
use axum::routing::get;
use serde_json::{Value, json};
use support::{call, cargo_build, error_body, modern_client, replayed, repo, serve_upstream, spawn_server};

const OVERLAY: &str = r#"
mcp-gen: 1
server: { name: invoices }
defaults: { run: native }
tools:
  list_invoices:
    operation: GET /v1/invoices
    paginate: { cursor: cursor, next: /next_cursor, limit: limit }
    effects: { read_only: true }
    run: proxy
  get_invoice:
    operation: GET /v1/invoices/{invoice_id}
    effects: { read_only: true }
    run: proxy
  list_invoice_events:
    operation: GET /v1/invoices/{invoice_id}/events
    effects: { read_only: true }
    run: proxy
  create_invoice:
    operation: POST /v1/invoices
    effects: { reversible: true, approver: none, on_repeat: replay, idempotency: caller }
  void_invoice:
    operation: POST /v1/invoices/{invoice_id}/void
    effects: { reversible: false, approver: none, on_repeat: no_effect }
  render_invoice_pdf:
    operation: POST /v1/invoices/{invoice_id}/pdf
    effects: { reversible: true, approver: none, on_repeat: no_effect }
    run: proxy
"#;

/// The crate a team writes: two tools of its own, `main_with` for the command line.
const MAIN: &str = r#"
use invoices_mcp::types::{CreateInvoiceArgs, Invoice, VoidInvoiceArgs};
use mcp_gen_runtime::error::{ToolError, codes};
use mcp_gen_runtime::native::Context;

struct Tools;

impl invoices_mcp::Handlers for Tools {
    async fn create_invoice(&self, cx: &mut Context, args: CreateInvoiceArgs) -> Result<Invoice, ToolError> {
        let tx = cx.transaction().await?;
        tx.execute("CREATE TABLE IF NOT EXISTS invoices (id TEXT PRIMARY KEY, body TEXT NOT NULL)", &[]).await?;
        let n: i64 = tx.query_opt("SELECT COUNT(*) AS n FROM invoices", &[]).await?.map_or(Ok(0), |r| r.get("n"))?;
        let total: i64 = args.lines.iter().map(|l| l.quantity * l.unit_amount).sum();
        let invoice = serde_json::json!({
            "id": format!("inv_{:014}", n + 1), "customer": args.customer, "currency": args.currency,
            "status": "draft", "total": total, "due_date": args.due_date, "lines": args.lines,
        });
        tx.execute("INSERT INTO invoices (id, body) VALUES ($1, $2)", &[invoice["id"].as_str().into(), (&invoice).into()]).await?;
        serde_json::from_value(invoice).map_err(|e| ToolError::internal(e.to_string()))
    }

    async fn void_invoice(&self, _cx: &mut Context, args: VoidInvoiceArgs) -> Result<Invoice, ToolError> {
        Err(ToolError::new(codes::CONFLICT, format!("{} is paid", args.invoice_id), "Tell the user; do not retry."))
    }
}

fn main() -> std::process::ExitCode {
    invoices_mcp::main_with(Tools)
}
"#;

type Hits = Arc<Mutex<Vec<String>>>;

async fn fetch(State(hits): State<Hits>, UrlPath(id): UrlPath<String>) -> Json<Value> {
    hits.lock().unwrap().push(format!("GET {id}"));
    Json(json!({"id": id, "customer": "cus_1", "currency": "EUR", "status": "open", "total": 100, "lines": []}))
}

#[tokio::test(flavor = "multi_thread")]
async fn native_tools_and_proxied_tools_in_one_server() {
    let work = repo().join("target/native-mixed");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(work.join("app/src")).unwrap();
    std::fs::write(work.join("overlay.yaml"), OVERLAY).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-gen"))
        .args(["build", "--native", "--spec"])
        .arg(repo().join("specs/invoices/openapi.yaml"))
        .arg("--overlay")
        .arg(work.join("overlay.yaml"))
        .arg("--out")
        .arg(work.join("invoices-mcp"))
        .arg("--runtime-path")
        .arg(repo().join("runtime"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let readme = std::fs::read_to_string(work.join("invoices-mcp/README.md")).unwrap();
    assert!(readme.contains("| `create_invoice` | handler `create_invoice` |"), "{readme}");
    assert!(readme.contains("| `get_invoice` | upstream `GET /v1/invoices/{invoice_id}` |"), "{readme}");
    let native = std::fs::read_to_string(work.join("invoices-mcp/native.rs")).unwrap();
    assert!(
        native.contains("fn create_invoice(") && !native.contains("fn get_invoice("),
        "only native tools are methods"
    );
    std::fs::write(
        work.join("app/Cargo.toml"),
        format!(
            "[package]\nname = \"invoices-app\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\ninvoices-mcp = {{ path = \"../invoices-mcp\" }}\nmcp-gen-runtime = {{ path = {:?} }}\nserde_json = \"1\"\n\n[workspace]\n",
            repo().join("runtime")
        ),
    )
    .unwrap();
    std::fs::write(work.join("app/src/main.rs"), MAIN).unwrap();
    std::fs::copy(repo().join("Cargo.lock"), work.join("app/Cargo.lock")).unwrap();
    let target = repo().join("target");
    let exe = cargo_build(&["--target-dir", target.to_str().unwrap()], &work.join("app"));

    let hits: Hits = Arc::default();
    let upstream = serve_upstream(axum::Router::new().route("/v1/invoices/{id}", get(fetch)).with_state(hits.clone()));
    let store = format!("sqlite://{}", work.join("store.db").display());
    let server = spawn_server(
        &exe,
        &["serve", "--http", "127.0.0.1:0", "--upstream", &format!("http://{upstream}"), "--store", &store],
        &[("INVOICES_BEARER_TOKEN", "t")],
        "http://",
    );
    let c = modern_client(&server.url).await;
    let args = json!({"customer": "cus_9", "currency": "EUR", "idempotency_key": "k-1",
        "lines": [{"description": "Consulting", "quantity": 3, "unit_amount": 1000}]});
    let first = call(&c, "create_invoice", args.clone()).await;
    let created = first.structured_content.clone().unwrap();
    assert_eq!((created["total"].as_i64(), created["status"].as_str()), (Some(3000), Some("draft")), "{first:?}");
    let again = call(&c, "create_invoice", args).await;
    assert!(replayed(&again));
    assert_eq!(again.content, first.content);
    let void = error_body(
        &call(&c, "void_invoice", json!({"invoice_id": "inv_00000000000001", "idempotency_key": "v-1"})).await,
    );
    assert_eq!(void["code"], "conflict");
    assert!(hits.lock().unwrap().is_empty(), "native tools never reach the upstream");
    let got = call(&c, "get_invoice", json!({"invoice_id": "inv_ABCDEFGHIJKLMN"})).await;
    assert_eq!(got.structured_content.unwrap()["status"], "open");
    assert_eq!(*hits.lock().unwrap(), ["GET inv_ABCDEFGHIJKLMN"], "proxied tools do");
}
