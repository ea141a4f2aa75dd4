//! orders-service: a shop's order service with its own HTTP API (`/orders`) and, on the same
//! port, MCP tools for agents (`/mcp/v1`), both on one database. The MCP contract is compiled
//! from `spec/` by build.rs (mcp-gen native mode); `tools.rs` implements it.
//!
//! ```sh
//! orders-service --http 127.0.0.1:8090 --store sqlite://orders.db
//! orders-service --http 127.0.0.1:8090 --store postgres://postgres@127.0.0.1:5432/test
//! orders-service --stdio --store sqlite://orders.db      # MCP on stdin/stdout only
//! ```

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use mcp_gen_runtime::serve::{self, HttpOptions};
use mcp_gen_runtime::store::{self, Store};
use orders_service::{api, contract, crash, orders, tools};

#[derive(Debug, Parser)]
#[command(version, about = "An order service with an HTTP API and MCP tools on one database")]
struct Args {
    /// Address for the HTTP API and the MCP endpoint.
    #[arg(long, env = "ORDERS_HTTP", default_value = "127.0.0.1:8090")]
    http: SocketAddr,
    /// Serve MCP on stdin/stdout instead (no HTTP).
    #[arg(long, conflicts_with = "http")]
    stdio: bool,
    /// The database: sqlite://FILE, or postgres://… to share it between replicas.
    #[arg(long, env = "ORDERS_STORE", default_value = "sqlite://orders.db")]
    store: String,
    /// Crash points for the crash experiment (bench/crash): a file naming the point to abort at.
    #[arg(long, env = "ORDERS_CRASH_FILE", hide = true)]
    crash_file: Option<PathBuf>,
    /// The crash experiment's control: orders committed apart from the idempotency record.
    #[arg(long, hide = true)]
    write_outside_transaction: bool,
    /// How long a call's idempotency record stays reserved for it: a retry of a call whose
    /// server died takes the call over after this (keep it above the slowest handler).
    #[arg(long, env = "ORDERS_LEASE_SECS", default_value_t = 35)]
    lease_secs: u64,
    /// Secret (32+ characters, the same on every replica) signing next-page handles.
    #[arg(long = "handle-key", env = "ORDERS_HANDLE_KEY", hide_env_values = true)]
    handle_key: Option<String>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let filter = std::env::var("RUST_LOG").unwrap_or_else(|_| "info".to_owned());
    let _ = tracing_subscriber_init(&filter);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

async fn run(args: Args) -> Result<(), String> {
    let store: Arc<dyn Store> = store::open(&args.store).await.map_err(|e| format!("--store: {e}"))?;
    orders::migrate(store.as_ref()).await.map_err(|e| format!("cannot create the tables: {e}"))?;
    let crash = crash::Crash::armed_by(args.crash_file.clone());
    let guard = mcp_gen_runtime::idempotency::Guard::new(
        store.clone(),
        std::time::Duration::from_secs(args.lease_secs),
        std::time::Duration::from_secs(10),
    );
    let outside = args.write_outside_transaction.then(|| store.clone());
    let mut builder = contract::server(tools::Tools { crash: crash.clone(), outside }).guard(guard);
    if let Some(secret) = &args.handle_key {
        let key = mcp_gen_runtime::handle::HandleKey::from_secret(secret).map_err(|e| format!("--handle-key: {e}"))?;
        builder = builder.handle_key(key);
    }
    let mcp = builder.build().map_err(|e| e.to_string())?;
    if args.stdio {
        eprintln!("orders-service: serving MCP on stdio; store {}", store.describe());
        return serve::stdio(mcp).await;
    }
    let options = HttpOptions::new(args.http);
    // The crash experiment's second point: the call committed, its answer not yet sent.
    let after_commit = crash.clone();
    let mcp_endpoint = serve::service(mcp, &options);
    let app = api::routes(store.clone()).nest_service(
        "/mcp/v1",
        axum::Router::new().fallback_service(mcp_endpoint).layer(axum::middleware::map_response(
            move |response: axum::response::Response| {
                let crash = after_commit.clone();
                async move {
                    crash.point("after-commit");
                    response
                }
            },
        )),
    );
    let listener = tokio::net::TcpListener::bind(args.http).await.map_err(|e| format!("--http {}: {e}", args.http))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    // Tests and scripts read the address (port 0 picks a free one) from this line.
    eprintln!(
        "orders-service: HTTP API on http://{bound}/orders, MCP on http://{bound}/mcp/v1; store {}",
        store.describe()
    );
    axum::serve(listener, app).with_graceful_shutdown(serve::shutdown_signal()).await.map_err(|e| e.to_string())
}

fn tracing_subscriber_init(filter: &str) -> Result<(), String> {
    mcp_gen_runtime::init_logging(filter)
}
