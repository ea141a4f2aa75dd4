//! Transports: Streamable HTTP at one endpoint (stateless, both protocol eras, JSON responses,
//! Host and Origin checks, 405 on GET; CONTRACT S1, S2) and stdio.

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ServiceExt as _;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::handler::Handler;

#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    pub base_path: String,
    /// `Host` values accepted besides loopback.
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted besides localhost.
    pub allowed_origins: Vec<String>,
    /// Provider variants served on `<base_path>/<variant>`.
    pub variants: Vec<String>,
}

impl HttpOptions {
    /// Loopback only, at `/mcp/v1`, no variants.
    pub fn new(addr: SocketAddr) -> Self {
        HttpOptions {
            addr,
            base_path: "/mcp/v1".to_owned(),
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            variants: Vec::new(),
        }
    }
}

/// The transport's settings: stateless, JSON responses, Host and Origin checks (S1, S2).
fn config(options: &HttpOptions) -> StreamableHttpServerConfig {
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"].map(str::to_owned).to_vec();
    hosts.extend(options.allowed_hosts.iter().cloned());
    let mut origins: Vec<String> =
        ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"].map(str::to_owned).to_vec();
    origins.extend(options.allowed_origins.iter().cloned());
    // Stateless: 2026-07-28 requests need no session, initialize-based clients are served request
    // by request; GET (no stream to offer) gets 405.
    StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
}

/// One MCP endpoint as a tower service, to mount in an application of one's own
/// (`axum::Router::nest_service("/mcp/v1", …)`) beside its other routes.
pub fn service(handler: Handler, options: &HttpOptions) -> StreamableHttpService<Handler, NeverSessionManager> {
    StreamableHttpService::new(move || Ok(handler.clone()), Arc::new(NeverSessionManager::default()), config(options))
}

/// Every endpoint of the server under `options.base_path`: the catalog, each toolset and each
/// chosen provider variant. `Router::merge` it into an application of one's own.
pub fn router(handler: &Handler, options: &HttpOptions) -> std::io::Result<axum::Router> {
    let mut router = axum::Router::new().route_service(&options.base_path, service(handler.clone(), options));
    // Each toolset on its own endpoint, so a client can load a part of a large API.
    for name in handler.toolset_names() {
        if let Some(subset) = handler.toolset(name) {
            let path = format!("{}/{name}", options.base_path.trim_end_matches('/'));
            router = router.route_service(&path, service(subset, options));
        }
    }
    // Each provider variant on its own endpoint (CONTRACT I3, V5): the same tools, with the
    // schemas that provider accepts; calls are checked with the canonical schemas.
    for name in &options.variants {
        let subset = handler.variant(name).map_err(|e| std::io::Error::other(e.to_string()))?;
        if let Some(subset) = subset {
            let path = format!("{}/{name}", options.base_path.trim_end_matches('/'));
            router = router.route_service(&path, service(subset, options));
        }
    }
    Ok(router)
}

/// Serves the server on its own until a shutdown signal (Ctrl-C, SIGTERM).
pub async fn http(handler: Handler, options: HttpOptions, announce: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let router = router(&handler, &options)?;
    let listener = tokio::net::TcpListener::bind(options.addr).await?;
    announce(listener.local_addr()?);
    axum::serve(listener, router).with_graceful_shutdown(shutdown_signal()).await
}

pub async fn stdio(handler: Handler) -> Result<(), String> {
    let running =
        handler.serve(rmcp::transport::stdio()).await.map_err(|e| format!("stdio transport failed to start: {e}"))?;
    tokio::select! {
        r = running.waiting() => { r.map_err(|e| format!("stdio transport stopped: {e}"))?; }
        () = shutdown_signal() => {}
    }
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
