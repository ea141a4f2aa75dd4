//! Transports: Streamable HTTP at one endpoint (stateless, both protocol eras, JSON responses,
//! Host and Origin checks, 405 on GET; CONTRACT S1, S2) and stdio.

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ServiceExt as _;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::handler::Handler;
use crate::inbound::{AuthConfig, Gate, Limits, Verifier};

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
    /// The origin clients reach the server at (`https://mcp.example.com`, through any TLS
    /// terminator): resource URIs and metadata URLs are built on it. Default: the bound address.
    pub public_url: Option<String>,
    /// Callers' bearer tokens; `None` serves anyone who reaches the server (loopback, or
    /// `--insecure-no-auth`).
    pub auth: Option<AuthConfig>,
    pub limits: LimitOptions,
    /// The operator API (`/admin/approvals`) is served, to holders of this token only, when set
    /// and some tool needs approval.
    pub operator_token: Option<String>,
}

/// What one caller and all callers together may ask of the server.
#[derive(Debug, Clone)]
pub struct LimitOptions {
    /// Requests per second per caller (0: no limit), and the burst allowed above it.
    pub rate_per_second: u32,
    pub burst: u32,
    /// Requests handled at once; more get 503.
    pub max_in_flight: usize,
    /// Request bodies above this many bytes get 413.
    pub body_limit: usize,
}

impl Default for LimitOptions {
    fn default() -> Self {
        LimitOptions { rate_per_second: 0, burst: 0, max_in_flight: 512, body_limit: 1 << 20 }
    }
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
            public_url: None,
            auth: None,
            limits: LimitOptions::default(),
            operator_token: None,
        }
    }
}

/// The host of a URL such as `https://mcp.example.com:8443/x`: `mcp.example.com`.
fn url_host(url: &str) -> Option<String> {
    let url = reqwest::Url::parse(url).ok()?;
    url.host_str().map(|h| h.trim_start_matches('[').trim_end_matches(']').to_owned())
}

/// The transport's settings: stateless, JSON responses, Host and Origin checks (S1, S2).
fn config(options: &HttpOptions) -> StreamableHttpServerConfig {
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"].map(str::to_owned).to_vec();
    hosts.extend(options.allowed_hosts.iter().cloned());
    // The public URL's host is the one clients send.
    hosts.extend(options.public_url.as_deref().and_then(url_host));
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
    // Each kept contract version beside the current one (CONTRACT V5): its own tools and
    // schemas, the same upstream, store and handle key.
    for (name, path) in version_paths(handler, options) {
        let kept = handler.version(name).map_err(|e| std::io::Error::other(e.to_string()))?;
        if let Some(kept) = kept {
            router = router.route_service(&path, service(kept, options));
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

/// Each kept contract version and its endpoint: a sibling of the base path (`/mcp/v1` beside
/// `/mcp/v2`).
pub fn version_paths(handler: &Handler, options: &HttpOptions) -> Vec<(&'static str, String)> {
    let base = options.base_path.trim_end_matches('/');
    let parent = base.rsplit_once('/').map_or("", |(p, _)| p);
    handler.server().versions.iter().map(|v| (v.name, format!("{parent}/{}", v.name))).collect()
}

/// The path of every MCP endpoint [`router`] serves.
pub fn endpoints(handler: &Handler, options: &HttpOptions) -> Vec<String> {
    let base = options.base_path.trim_end_matches('/');
    let mut out = vec![options.base_path.clone()];
    out.extend(handler.toolset_names().map(|t| format!("{base}/{t}")));
    out.extend(options.variants.iter().map(|v| format!("{base}/{v}")));
    out.extend(version_paths(handler, options).into_iter().map(|(_, path)| path));
    out
}

/// [`router`] behind the gate: callers' tokens and each tool's scopes (when `options.auth` is
/// set), the resource metadata, and the limits. `public_url` is where clients reach it.
pub async fn protected_router(
    handler: &Handler,
    options: &HttpOptions,
    public_url: &str,
) -> std::io::Result<axum::Router> {
    let router = router(handler, options)?;
    let verifier = match &options.auth {
        Some(config) => {
            let verifier =
                Verifier::new(config.clone(), std::time::Duration::from_secs(10)).map_err(std::io::Error::other)?;
            // A wrong issuer URL shows at start; an issuer that is down is asked again later.
            if let Err(e) = verifier.warm_up().await {
                tracing::warn!(error = %e, "cannot load the authorization server's keys yet; will retry on the first token");
            }
            Some(Arc::new(verifier))
        }
        None => None,
    };
    let l = &options.limits;
    let limits = Limits::new(l.rate_per_second, l.burst, l.max_in_flight, l.body_limit);
    let gate =
        Gate::new(handler.server(), verifier, public_url, &options.base_path, endpoints(handler, options), limits);
    let mut router = gate.protect(router);
    // Outside the MCP path and its callers' tokens (R8: no MCP caller approves a plan).
    if let (Some(plans), Some(token)) = (handler.plans(), options.operator_token.as_deref()) {
        router = router.merge(crate::approval::admin_router(plans.clone(), token));
    }
    Ok(router)
}

/// Serves the server on its own until a shutdown signal (Ctrl-C, SIGTERM).
pub async fn http(handler: Handler, options: HttpOptions, announce: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(options.addr).await?;
    let bound = listener.local_addr()?;
    let public_url = options.public_url.clone().unwrap_or_else(|| format!("http://{bound}"));
    let router = protected_router(&handler, &options, &public_url).await?;
    announce(bound);
    axum::serve(listener, router.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(shutdown_signal())
        .await
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
