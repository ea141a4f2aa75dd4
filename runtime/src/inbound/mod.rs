//! What stands between the network and the MCP endpoints (CONTRACT S1, S2): bearer tokens of
//! callers (the MCP authorization spec: RFC 9728 resource metadata, RFC 6750 challenges, RFC
//! 8707 audiences), each tool's scopes, a body limit, a concurrency limit and a per-caller rate
//! limit. One axum middleware, in front of [`crate::serve::router`]'s routes.

mod limits;
mod token;

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use serde_json::{Value, json};

pub use limits::{Limits, Throttled};
pub use token::{AuthConfig, Principal, Rejection, Verifier};

use crate::decl::ServerDecl;

/// Where protected resource metadata lives (RFC 9728 §3): this prefix, then the endpoint's path.
pub const METADATA_PREFIX: &str = "/.well-known/oauth-protected-resource";

/// Everything the gate checks, shared by every request.
pub struct Gate {
    server: &'static ServerDecl,
    verifier: Option<Arc<Verifier>>,
    /// The server's public origin (`https://mcp.example.com`), as clients reach it through any
    /// TLS terminator; resource URIs and metadata URLs are built on it.
    public_url: String,
    base_path: String,
    /// Every MCP endpoint's path.
    endpoints: BTreeSet<String>,
    scopes: BTreeMap<&'static str, &'static [&'static [&'static str]]>,
    limits: Limits,
}

impl Gate {
    pub fn new(
        server: &'static ServerDecl,
        verifier: Option<Arc<Verifier>>,
        public_url: &str,
        base_path: &str,
        endpoints: impl IntoIterator<Item = String>,
        limits: Limits,
    ) -> Self {
        Gate {
            server,
            verifier,
            public_url: public_url.trim_end_matches('/').to_owned(),
            base_path: base_path.to_owned(),
            endpoints: endpoints.into_iter().collect(),
            scopes: server.tools.iter().map(|t| (t.name, t.scopes)).collect(),
            limits,
        }
    }

    /// Adds the metadata documents and the checks to `router`.
    pub fn protect(self, router: axum::Router) -> axum::Router {
        let gate = Arc::new(self);
        let mut metadata = axum::Router::new();
        if gate.verifier.is_some() {
            // Also at the bare well-known path, for clients that look there first.
            for path in gate.endpoints.iter().map(|e| format!("{METADATA_PREFIX}{e}")).chain([METADATA_PREFIX.into()]) {
                let g = gate.clone();
                metadata = metadata.route(&path, axum::routing::get(move |req: Request| metadata_document(g, req)));
            }
        }
        router.layer(axum::middleware::from_fn_with_state(gate, check)).merge(metadata)
    }

    fn resource(&self, endpoint: &str) -> String {
        format!("{}{endpoint}", self.public_url)
    }

    fn metadata_url(&self, endpoint: &str) -> String {
        format!("{}{METADATA_PREFIX}{endpoint}", self.public_url)
    }

    /// Every scope some tool needs, for `scopes_supported`.
    fn scopes_supported(&self) -> Vec<&'static str> {
        let all: BTreeSet<&str> =
            self.scopes.values().flat_map(|alts| alts.iter().flat_map(|a| a.iter().copied())).collect();
        all.into_iter().collect()
    }
}

/// RFC 9728 protected resource metadata for the endpoint the path names.
async fn metadata_document(gate: Arc<Gate>, req: Request) -> Response {
    let endpoint = req.uri().path().strip_prefix(METADATA_PREFIX).filter(|p| !p.is_empty()).unwrap_or(&gate.base_path);
    let Some(verifier) = &gate.verifier else { return StatusCode::NOT_FOUND.into_response() };
    let body = json!({
        "resource": gate.resource(endpoint),
        "authorization_servers": [verifier.issuer()],
        "bearer_methods_supported": ["header"],
        "scopes_supported": gate.scopes_supported(),
        "resource_name": gate.server.title,
    });
    ([(header::CACHE_CONTROL, "max-age=300")], axum::Json(body)).into_response()
}

/// A `WWW-Authenticate: Bearer …` challenge with the endpoint's metadata URL (RFC 9728 §5.1).
fn challenge(
    gate: &Gate,
    endpoint: &str,
    status: StatusCode,
    error: Option<(&str, &str)>,
    scope: Option<&str>,
) -> Response {
    let mut value = format!("Bearer resource_metadata=\"{}\"", gate.metadata_url(endpoint));
    let mut body = json!({});
    if let Some((code, description)) = error {
        // Quoted-string: no quotes or backslashes inside.
        let clean: String = description.chars().filter(|c| *c != '"' && *c != '\\' && !c.is_control()).collect();
        value.push_str(&format!(", error=\"{code}\", error_description=\"{clean}\""));
        body = json!({"error": code, "error_description": description});
    }
    if let Some(scope) = scope {
        value.push_str(&format!(", scope=\"{scope}\""));
        body["scope"] = json!(scope);
    }
    let mut response = (status, axum::Json(body)).into_response();
    if let Ok(v) = HeaderValue::from_str(&value) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    response
}

fn plain(status: StatusCode, message: &str, retry_after_secs: Option<u64>) -> Response {
    let mut response = (status, axum::Json(json!({"error": message}))).into_response();
    if let Some(secs) = retry_after_secs
        && let Ok(v) = HeaderValue::from_str(&secs.to_string())
    {
        response.headers_mut().insert(header::RETRY_AFTER, v);
    }
    response
}

/// The bearer token of a request (header only: tokens in query strings end up in logs).
pub(crate) fn bearer(headers: &http::HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

/// The tools a JSON-RPC message (or batch) calls.
fn called_tools(body: &[u8]) -> Vec<String> {
    fn one(m: &Value) -> Option<String> {
        if m.get("method")?.as_str()? != "tools/call" {
            return None;
        }
        m.get("params")?.get("name")?.as_str().map(str::to_owned)
    }
    let Ok(body) = serde_json::from_slice::<Value>(body) else { return Vec::new() };
    match &body {
        Value::Array(batch) => batch.iter().filter_map(one).collect(),
        m => one(m).into_iter().collect(),
    }
}

async fn check(State(gate): State<Arc<Gate>>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_owned();
    if !gate.endpoints.contains(&path) {
        return next.run(req).await;
    }
    let Some(permit) = gate.limits.enter() else {
        return plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is at its concurrency limit; retry shortly",
            Some(1),
        );
    };
    let (mut parts, body) = req.into_parts();
    let principal = match &gate.verifier {
        None => None,
        Some(verifier) => {
            let Some(token) = bearer(&parts.headers) else {
                return challenge(&gate, &path, StatusCode::UNAUTHORIZED, None, None);
            };
            let resources = [gate.resource(&path), gate.resource(&gate.base_path)];
            match verifier.verify(token, &resources).await {
                Ok(p) => Some(p),
                Err(Rejection::Invalid(why)) => {
                    tracing::info!(reason = %why, "bearer token refused");
                    return challenge(&gate, &path, StatusCode::UNAUTHORIZED, Some(("invalid_token", &why)), None);
                }
                Err(Rejection::Unavailable(why)) => {
                    tracing::warn!(reason = %why, "cannot check a bearer token");
                    return plain(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "the authorization server cannot be reached; retry shortly",
                        Some(5),
                    );
                }
            }
        }
    };
    let bytes = match read_body(&parts, body, gate.limits.body_limit).await {
        Ok(b) => b,
        Err(response) => return response,
    };
    // The tools a message calls, read only when scopes or a refused rate need them (rmcp parses
    // the message again; most requests pay for one parse).
    let tools = || called_tools(&bytes);
    if let Some(principal) = &principal {
        for name in &tools() {
            let Some(alternatives) = gate.scopes.get(name.as_str()) else { continue };
            if !principal.satisfies(alternatives) {
                let needed = principal.nearest(alternatives).join(" ");
                let why = format!("{name} needs the scopes {needed}");
                return challenge(
                    &gate,
                    &path,
                    StatusCode::FORBIDDEN,
                    Some(("insufficient_scope", &why)),
                    Some(&needed),
                );
            }
        }
    }
    // Per caller: the token's subject, or (without auth) the peer's address.
    let caller = || match &principal {
        Some(p) => p.caller(),
        None => parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or_else(|| "local".to_owned(), |c| c.0.ip().to_string()),
    };
    let admitted = if gate.limits.rated() { gate.limits.admit(&caller()) } else { Ok(()) };
    if let Err(wait_ms) = admitted {
        if tools().is_empty() {
            return plain(StatusCode::TOO_MANY_REQUESTS, "rate limited", Some(wait_ms.div_ceil(1000)));
        }
        // A tool call gets the error contract's retryable error (E2), which models act on.
        parts.extensions.insert(Throttled { retry_after_ms: wait_ms });
    }
    if let Some(p) = principal {
        parts.extensions.insert(p);
    }
    let response = next.run(Request::from_parts(parts, Body::from(bytes))).await;
    // rmcp answers with a body it fills once the call is done: the request holds its place
    // among those in flight until that body has been sent (or dropped).
    response.map(|body| {
        Body::new(http_body_util::BodyExt::map_frame(body, move |frame| {
            let _in_flight = &permit;
            frame
        }))
    })
}

/// The whole body, or 413 past the limit.
async fn read_body(parts: &http::request::Parts, body: Body, limit: usize) -> Result<Bytes, Response> {
    let declared =
        parts.headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    let too_large = || {
        plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("the request body is larger than this server accepts ({limit} bytes)"),
            None,
        )
    };
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    axum::body::to_bytes(body, limit).await.map_err(|_| too_large())
}
