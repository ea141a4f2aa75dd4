//! Tokens this server obtains for its upstream calls at an OAuth token endpoint: its own (client
//! credentials, RFC 6749 §4.4) and each caller's (RFC 8693 token exchange, or the RFC 7523
//! jwt-bearer grant as on-behalf-of flows use it). Tokens are cached until shortly before they
//! expire. The caller's inbound token is sent to the token endpoint only, never upstream.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::Deserialize;
use tokio::sync::Mutex;

use crate::error::{ToolError, codes};
use crate::inbound::Principal;

/// A token is renewed this long before the endpoint says it expires.
const RENEW_BEFORE: Duration = Duration::from_secs(30);
/// Without `expires_in`, a token is kept this long.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(300);
/// At most this many callers' exchanged tokens are kept.
const MAX_CACHED: usize = 10_000;

/// How a caller's token becomes an upstream token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// RFC 8693: `subject_token` = the caller's token.
    TokenExchange,
    /// RFC 7523 §2.1: `assertion` = the caller's token (on-behalf-of).
    JwtBearer,
}

impl Grant {
    pub fn parse(name: &str) -> Option<Grant> {
        match name {
            "token-exchange" => Some(Grant::TokenExchange),
            "jwt-bearer" => Some(Grant::JwtBearer),
            _ => None,
        }
    }
}

/// The client this server is at the token endpoint.
#[derive(Clone)]
pub struct Client {
    pub id: String,
    pub secret: Option<String>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("id", &self.id).finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    expires_in: Option<u64>,
}

#[derive(Deserialize)]
struct TokenError {
    error: Option<String>,
    error_description: Option<String>,
}

/// One request to a token endpoint; the token and until when to use it.
async fn request_token(
    http: &reqwest::Client,
    url: &str,
    client: &Client,
    form: &[(&str, &str)],
) -> Result<(String, Instant), ToolError> {
    let response = http
        .post(url)
        .basic_auth(&client.id, client.secret.as_deref())
        .header(reqwest::header::ACCEPT, "application/json")
        .form(form)
        .send()
        .await
        .map_err(|e| {
            ToolError::new(
                codes::UPSTREAM_UNAVAILABLE,
                format!("cannot reach the token endpoint for the upstream ({})", without_url(&e)),
                "Retry in a few seconds.",
            )
            .retryable(Some(2000))
        })?;
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    if !status.is_success() {
        let why = serde_json::from_str::<TokenError>(&text)
            .ok()
            .map(|e| {
                format!(
                    "{}{}",
                    e.error.unwrap_or_else(|| status.to_string()),
                    e.error_description.map(|d| format!(": {d}")).unwrap_or_default()
                )
            })
            .unwrap_or_else(|| status.to_string());
        tracing::warn!(status = status.as_u16(), reason = %why, "token endpoint refused a grant");
        let (code, retry) = if status.is_server_error() {
            (codes::UPSTREAM_UNAVAILABLE, Some(2000))
        } else {
            (codes::UNAUTHENTICATED, None)
        };
        let mut e = ToolError::new(
            code,
            format!("the token endpoint would not issue a token for the upstream ({why})"),
            "This is the server's configuration, not the call: tell the user the upstream cannot be reached with their account.",
        );
        if let Some(ms) = retry {
            e = e.retryable(Some(ms));
        }
        return Err(e);
    }
    let answer: TokenAnswer = serde_json::from_str(&text)
        .map_err(|_| ToolError::internal("the token endpoint answered without an access_token".to_owned()))?;
    let lifetime = answer.expires_in.map_or(DEFAULT_LIFETIME, Duration::from_secs);
    let until = Instant::now() + lifetime.saturating_sub(RENEW_BEFORE).max(Duration::from_secs(1));
    Ok((answer.access_token, until))
}

/// reqwest's error without the URL (which may carry query credentials).
fn without_url(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    if let Some(url) = e.url() {
        text = text.replace(url.as_str(), "the token endpoint");
    }
    text
}

/// This server's own token for an upstream scheme with a client-credentials flow.
pub struct ClientCredentials {
    url: String,
    client: Client,
    scopes: String,
    cached: Mutex<Option<(String, Instant)>>,
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCredentials").field("url", &self.url).finish_non_exhaustive()
    }
}

impl ClientCredentials {
    pub fn new(url: String, client: Client, scopes: &[&str]) -> Self {
        ClientCredentials { url, client, scopes: scopes.join(" "), cached: Mutex::new(None) }
    }

    /// A token that is good for a while yet: the cached one, or a new one.
    /// `base` is the upstream's base URL, against which a relative token URL is resolved.
    pub async fn token(&self, http: &reqwest::Client, base: &str) -> Result<String, ToolError> {
        let mut cached = self.cached.lock().await;
        if let Some((token, until)) = cached.as_ref()
            && Instant::now() < *until
        {
            return Ok(token.clone());
        }
        let mut form = vec![("grant_type", "client_credentials")];
        if !self.scopes.is_empty() {
            form.push(("scope", &self.scopes));
        }
        let url = absolute(&self.url, base);
        let (token, until) = request_token(http, &url, &self.client, &form).await?;
        *cached = Some((token.clone(), until));
        Ok(token)
    }
}

/// Each caller's upstream token, obtained with the caller's inbound token.
pub struct Exchange {
    url: String,
    grant: Grant,
    client: Client,
    audience: Option<String>,
    scope: Option<String>,
    cached: Mutex<BTreeMap<String, (String, Instant)>>,
}

impl std::fmt::Debug for Exchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exchange").field("url", &self.url).field("grant", &self.grant).finish_non_exhaustive()
    }
}

impl Exchange {
    pub fn new(url: String, grant: Grant, client: Client, audience: Option<String>, scope: Option<String>) -> Self {
        Exchange { url, grant, client, audience, scope, cached: Mutex::new(BTreeMap::new()) }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// The caller's upstream token, cached per caller until it (or the inbound token) expires.
    pub async fn token_for(&self, http: &reqwest::Client, caller: &Principal) -> Result<String, ToolError> {
        let key = caller.caller();
        let mut cached = self.cached.lock().await;
        let now = Instant::now();
        if let Some((token, until)) = cached.get(&key)
            && now < *until
        {
            return Ok(token.clone());
        }
        let mut form: Vec<(&str, &str)> = match self.grant {
            Grant::TokenExchange => vec![
                ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
                ("subject_token", caller.token()),
                ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"),
                ("requested_token_type", "urn:ietf:params:oauth:token-type:access_token"),
            ],
            Grant::JwtBearer => vec![
                ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                ("assertion", caller.token()),
                ("requested_token_use", "on_behalf_of"),
            ],
        };
        if let Some(audience) = &self.audience {
            form.push((if self.grant == Grant::TokenExchange { "audience" } else { "resource" }, audience));
        }
        if let Some(scope) = &self.scope {
            form.push(("scope", scope));
        }
        let (token, mut until) = request_token(http, &self.url, &self.client, &form).await?;
        // Never past the inbound token: the caller's consent ends with it.
        if let Some(exp) = caller.expires_at {
            let left = exp.saturating_sub(crate::util::now_secs());
            until = until.min(now + Duration::from_secs(left));
        }
        if cached.len() >= MAX_CACHED {
            cached.retain(|_, (_, u)| now < *u);
            if cached.len() >= MAX_CACHED {
                cached.clear();
            }
        }
        cached.insert(key, (token.clone(), until));
        Ok(token)
    }
}

/// `url`, or `url` on `base`'s origin when it is a path (specs often write `/oauth/token`).
fn absolute(url: &str, base: &str) -> String {
    if url.starts_with("http://") || url.starts_with("https://") {
        return url.to_owned();
    }
    let origin_end = base.find("://").map_or(0, |i| i + 3);
    let origin = match base[origin_end..].find('/') {
        Some(j) => &base[..origin_end + j],
        None => base,
    };
    format!("{origin}/{}", url.trim_start_matches('/'))
}
