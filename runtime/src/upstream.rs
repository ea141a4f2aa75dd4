//! The upstream executor: turns validated arguments into the HTTP request the spec describes
//! (path, query, header and cookie parameters, a JSON, form or text body, credentials), sends it
//! with reqwest, and maps the answer onto the result contract: 2xx JSON → structuredContent plus
//! the same JSON as text (T6); anything else → an error the model can act on (E4).

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, COOKIE, HeaderMap, HeaderName, HeaderValue, LINK, RETRY_AFTER};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value, json};

use crate::auth::{Credentials, Secret};
use crate::decl::{Encoding, KeyLocation, LongRunning, Target, ToolDecl};
use crate::error::{ToolError, codes};
use crate::grants::Exchange;
use crate::inbound::Principal;
use crate::{link, operations, params};

/// Larger answers are refused rather than relayed into a model's context.
const MAX_RESPONSE_BYTES: usize = 8 * 1024 * 1024;
/// Non-JSON text beyond this is cut, with a note.
const MAX_TEXT_CHARS: usize = 100_000;

#[derive(Debug, Clone)]
pub struct Upstream {
    client: reqwest::Client,
    /// Without a trailing slash.
    base: String,
    credentials: Credentials,
    /// Each caller's own upstream token, exchanged for its inbound one.
    exchange: Option<Arc<Exchange>>,
}

/// The request a tool call becomes, before it is sent (inspectable in tests).
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub method: &'static str,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<(String, Vec<u8>)>,
}

impl Upstream {
    pub fn new(base: &str, timeout: Duration, credentials: Credentials) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .user_agent(concat!("mcp-gen-runtime/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        let base = base.trim_end_matches('/').to_owned();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!("upstream URL `{base}` must start with http:// or https://"));
        }
        Ok(Upstream { client, base, credentials, exchange: None })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub fn credentials(&self) -> &Credentials {
        &self.credentials
    }

    /// Calls made for a caller with a validated token go with that caller's own upstream token,
    /// obtained at `exchange`'s token endpoint, wherever the operation takes a bearer token.
    pub fn with_exchange(mut self, exchange: Exchange) -> Self {
        self.exchange = Some(Arc::new(exchange));
        self
    }

    pub fn exchange(&self) -> Option<&Exchange> {
        self.exchange.as_deref()
    }

    /// The secrets of the alternative chosen for `tool`, with the server's own OAuth tokens
    /// fetched and, for a caller with a token, the caller's upstream token in the bearer slot.
    async fn secrets(&self, tool: &ToolDecl, caller: Option<&Principal>) -> Result<Vec<Secret>, ToolError> {
        let user = match (&self.exchange, caller) {
            (Some(exchange), Some(p)) if self.credentials.has_bearer(tool.security) => {
                Some(Secret::Bearer(exchange.token_for(&self.client, p).await?))
            }
            _ => None,
        };
        let chosen = match &user {
            Some(u) => self.credentials.choose_for_user(tool.security, u),
            None => self.credentials.choose(tool.security),
        };
        let mut out = Vec::new();
        for secret in chosen.unwrap_or_default() {
            out.push(match secret {
                Secret::ClientCredentials(own) => Secret::Bearer(own.token(&self.client, &self.base).await?),
                other => other.clone(),
            });
        }
        Ok(out)
    }

    /// Sends one call; `extra` headers go beside the ones the arguments make (a derived
    /// idempotency key).
    pub async fn call(
        &self,
        tool: &ToolDecl,
        args: &Map<String, Value>,
        extra: &[(&str, String)],
        caller: Option<&Principal>,
    ) -> Result<CallToolResult, ToolError> {
        let owned = self.secrets(tool, caller).await?;
        let secrets: Vec<&Secret> = owned.iter().collect();
        // What a next link may not carry into a readable handle (Link-header tools only).
        let withheld = tool.link_cursor().map(|_| secret_parts(&secrets));
        let mut req = build(tool, args, &self.base, secrets)?;
        req.headers.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
        let answer = self.send(tool, req).await?;
        let next = withheld.map(|(names, values)| {
            link::next_query(answer.headers.get_all(LINK).iter().filter_map(|v| v.to_str().ok()))
                .map(|q| link::without_secrets(&q, &names, &values))
                .filter(|q| !q.is_empty())
        });
        if !(200..300).contains(&answer.status) {
            return Err(failure(tool, &self.credentials, answer.status, answer.retry_after, &answer.bytes));
        }
        let result = success(tool, answer.status, &answer.content_type, &answer.bytes, next);
        match tool.long_running {
            Some(LongRunning::Starts) => Ok(operations::started(&self.base, &answer, result)),
            _ => Ok(result),
        }
    }

    /// Reads a long-running operation's `location` (an address on the upstream's origin) with
    /// the credentials of `tool`, which started it: `working` while the upstream answers `202`,
    /// else its end (a redirect to the result is followed).
    pub async fn follow(
        &self,
        tool: &ToolDecl,
        location: &str,
        caller: Option<&Principal>,
    ) -> Result<operations::Progress, ToolError> {
        let owned = self.secrets(tool, caller).await?;
        let secrets: Vec<&Secret> = owned.iter().collect();
        let mut query = Vec::new();
        let mut headers = vec![("accept".to_owned(), "application/json".to_owned())];
        let mut cookies = Vec::new();
        apply_secrets(&secrets, &mut headers, &mut query, &mut cookies);
        if !cookies.is_empty() {
            headers.push((COOKIE.as_str().to_owned(), cookies.join("; ")));
        }
        let mut url = location.to_owned();
        if !query.is_empty() {
            url.push(if url.contains('?') { '&' } else { '?' });
            url.push_str(&query.join("&"));
        }
        let answer = self.send(tool, Request { method: "GET", url, headers, body: None }).await?;
        if answer.status == 202 {
            return Ok(operations::Progress::Working { poll_after_ms: answer.retry_after });
        }
        if !(200..300).contains(&answer.status) {
            return Err(failure(tool, &self.credentials, answer.status, answer.retry_after, &answer.bytes));
        }
        Ok(operations::Progress::Completed(success(tool, answer.status, &answer.content_type, &answer.bytes, None)))
    }

    /// Sends a built request and reads the whole answer (up to the size limit).
    async fn send(&self, tool: &ToolDecl, req: Request) -> Result<Answer, ToolError> {
        let label = tool.operation();
        let method =
            reqwest::Method::from_bytes(req.method.as_bytes()).map_err(|e| ToolError::internal(e.to_string()))?;
        let mut headers = HeaderMap::new();
        for (k, v) in &req.headers {
            let name = HeaderName::from_bytes(k.as_bytes());
            let value = HeaderValue::from_str(v);
            match (name, value) {
                (Ok(n), Ok(v)) => {
                    headers.append(n, v);
                }
                _ => {
                    return Err(ToolError::new(
                        codes::INVALID_ARGUMENT,
                        format!("header `{k}` cannot carry the given value (control or non-ASCII characters)"),
                        "Use printable ASCII for header arguments and call again.",
                    )
                    .field(k.clone()));
                }
            }
        }
        let mut builder = self.client.request(method, &req.url).headers(headers);
        if let Some((content_type, bytes)) = req.body {
            builder = builder.header(CONTENT_TYPE, content_type).body(bytes);
        }
        let response = match builder.send().await {
            Ok(r) => r,
            Err(e) if e.is_timeout() => {
                return Err(ToolError::new(
                    codes::DEADLINE_EXCEEDED,
                    format!("{label}: the upstream did not answer in time"),
                    "Retry the call shortly.",
                )
                .retryable(None));
            }
            // Nothing left this server: the request itself could not be made.
            Err(e) if e.is_builder() => {
                return Err(ToolError::new(
                    codes::INVALID_ARGUMENT,
                    format!("{label}: the request cannot be made from these arguments ({e}); it was not sent"),
                    "Correct the arguments and call again; the same arguments fail again.",
                ));
            }
            Err(e) => {
                tracing::warn!(error = %e, "upstream request failed");
                return Err(ToolError::new(
                    codes::UPSTREAM_UNAVAILABLE,
                    format!("{label}: the upstream API cannot be reached"),
                    "Retry the call shortly.",
                )
                .retryable(Some(1000)));
            }
        };
        let status = response.status().as_u16();
        tracing::Span::current().record("upstream_status", status);
        let url = response.url().clone();
        let headers = response.headers().clone();
        let retry_after = headers.get(RETRY_AFTER).and_then(|v| v.to_str().ok()).and_then(retry_after_ms);
        let content_type = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase();
        let bytes = read_limited(response).await.map_err(|e| match e {
            ReadError::TooLarge => ToolError::new(
                codes::UPSTREAM_ERROR,
                format!("{label}: the upstream answer exceeds {} MiB", MAX_RESPONSE_BYTES / (1024 * 1024)),
                "Narrow the request (filters, a smaller page) and call again.",
            ),
            ReadError::Failed => ToolError::new(
                codes::UPSTREAM_UNAVAILABLE,
                format!("{label}: the upstream answer broke off"),
                "Retry the call shortly.",
            )
            .retryable(Some(1000)),
        })?;
        Ok(Answer { status, url, headers, retry_after, content_type, bytes })
    }
}

/// The upstream's answer to one request, read whole.
pub(crate) struct Answer {
    pub status: u16,
    /// Where the answer came from (after redirects): what a relative `Location` is relative to.
    pub url: reqwest::Url,
    pub headers: HeaderMap,
    pub retry_after: Option<u64>,
    pub content_type: String,
    pub bytes: Vec<u8>,
}

enum ReadError {
    TooLarge,
    Failed,
}

async fn read_limited(mut response: reqwest::Response) -> Result<Vec<u8>, ReadError> {
    let mut out = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|_| ReadError::Failed)? {
        if out.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(ReadError::TooLarge);
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// `Retry-After` in seconds or as an HTTP date, in milliseconds.
fn retry_after_ms(v: &str) -> Option<u64> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(secs.saturating_mul(1000));
    }
    // An HTTP date: the client cannot compare clocks reliably; a short fixed wait is honest.
    (!v.is_empty()).then_some(1000)
}

pub fn build(
    tool: &ToolDecl,
    args: &Map<String, Value>,
    base: &str,
    secrets: Vec<&Secret>,
) -> Result<Request, ToolError> {
    let mut path = tool.path.to_owned();
    let mut query: Vec<String> = Vec::new();
    let mut headers: Vec<(String, String)> = vec![("accept".to_owned(), "application/json".to_owned())];
    let mut cookies: Vec<String> = Vec::new();
    let mut body_fields = Map::new();
    let mut whole_body: Option<&Value> = None;
    let json_text = |v: &Value, json: bool| if json { Value::String(v.to_string()) } else { v.clone() };
    let mut fixed = Vec::with_capacity(tool.fixed.len());
    for f in tool.fixed {
        let value: Value = serde_json::from_str(f.value)
            .map_err(|e| ToolError::internal(format!("fixed value of `{}` does not parse: {e}", tool.name)))?;
        fixed.push((f.target, value));
    }
    // An opened next-link handle is a query to send again, not a parameter value.
    let link_cursor = tool.link_cursor();
    let next_query = link_cursor.and_then(|c| args.get(c)).and_then(Value::as_str);
    let given = tool
        .args
        .iter()
        .filter(|arg| Some(arg.name) != link_cursor)
        .filter_map(|arg| args.get(arg.name).map(|v| (Some(arg.name), arg.target, v)));
    // The arguments that went into the URL's path, for a URL that cannot be sent.
    let mut in_path: Vec<&str> = Vec::new();
    for (arg, target, value) in given.chain(fixed.iter().map(|(t, v)| (None, *t, v))) {
        match target {
            Target::Path { name, style, explode } => {
                if is_dot_segment(value) {
                    return Err(ToolError::new(
                        codes::INVALID_ARGUMENT,
                        format!(
                            "`{name}` is `{}`, which would walk the upstream URL's path instead of naming a resource",
                            value.as_str().unwrap_or_default()
                        ),
                        format!("Give `{name}` the id of a resource (from the tool that lists them), not `.` or `..`."),
                    )
                    .field(name.to_owned()));
                }
                let placeholder = format!("{{{name}}}");
                path = path.replace(&placeholder, &params::path(name, value, style, explode));
                in_path.extend(arg);
            }
            Target::Query { name, style, explode, allow_reserved, json } => {
                if value.is_null() {
                    continue;
                }
                query.extend(params::query(name, &json_text(value, json), style, explode, allow_reserved));
            }
            Target::Header { name, json } => {
                let text = params::header(&json_text(value, json));
                if HeaderValue::from_str(&text).is_err() {
                    return Err(unbuildable(
                        arg.unwrap_or(name),
                        format!(
                            "header `{name}` cannot carry this value (a line break, control or non-ASCII character)"
                        ),
                        "Give it printable ASCII text on one line",
                    ));
                }
                headers.push((name.to_owned(), text))
            }
            Target::Cookie { name, json } => {
                let text = params::cookie(name, &json_text(value, json));
                if HeaderValue::from_str(&text).is_err() {
                    return Err(unbuildable(
                        arg.unwrap_or(name),
                        format!(
                            "cookie `{name}` cannot carry this value (a line break, control or non-ASCII character)"
                        ),
                        "Give it printable ASCII text on one line",
                    ));
                }
                cookies.push(text)
            }
            Target::BodyField(name) => {
                body_fields.insert(name.to_owned(), value.clone());
            }
            Target::Body => whole_body = Some(value),
            Target::Local => {}
        }
    }
    if tool.rest_to_body {
        for (k, v) in args {
            if !tool.args.iter().any(|a| a.name == k) {
                body_fields.insert(k.clone(), v.clone());
            }
        }
    }
    if let Some(next) = next_query {
        link::apply(&mut query, next);
    }
    if let Some(missing) = crate::util::template_names(&path).into_iter().next() {
        return Err(ToolError::new(
            codes::INVALID_ARGUMENT,
            format!("path parameter `{missing}` is missing"),
            format!("Pass `{missing}` and call again."),
        )
        .field(missing));
    }
    apply_secrets(&secrets, &mut headers, &mut query, &mut cookies);
    if !cookies.is_empty() {
        headers.push((COOKIE.as_str().to_owned(), cookies.join("; ")));
    }
    let body = match tool.body {
        None => None,
        Some(decl) => {
            let value = match whole_body {
                // Fields beside a whole body (a fixed selector) go into it.
                Some(Value::Object(m)) if !body_fields.is_empty() => {
                    let mut m = m.clone();
                    m.extend(body_fields);
                    Some(Value::Object(m))
                }
                Some(v) => Some(v.clone()),
                None if !body_fields.is_empty() => Some(Value::Object(body_fields)),
                None => None,
            };
            match value {
                None => None,
                Some(v) => Some(encode_body(decl.media_type, decl.encoding, &v)?),
            }
        }
    };
    let mut url = format!("{base}{path}");
    if !query.is_empty() {
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(&query.join("&"));
    }
    check_url(&url, base, &in_path)?;
    Ok(Request { method: tool.method.as_str(), url, headers, body })
}

/// A request that was never sent because it cannot be made from these arguments: not an
/// upstream failure, and the same arguments fail the same way (E2).
fn unbuildable(arg: &str, why: String, fix: &str) -> ToolError {
    ToolError::new(
        codes::INVALID_ARGUMENT,
        format!("`{arg}`: {why}; the request was not sent"),
        format!("{fix} as `{arg}` and call again; the same value fails again."),
    )
    .field(arg)
}

/// The URL parses and stays on the upstream's origin under its base path; otherwise the
/// path arguments that made it are named. A value must never move a call to another host
/// (`@host` would become the authority once concatenated after the base).
fn check_url(url: &str, base: &str, in_path: &[&str]) -> Result<(), ToolError> {
    let within = |u: &reqwest::Url, b: &reqwest::Url| {
        u.scheme() == b.scheme()
            && u.host_str() == b.host_str()
            && u.port_or_known_default() == b.port_or_known_default()
            && u.username() == b.username()
            && u.path().starts_with(b.path().trim_end_matches('/'))
    };
    let Ok(base_url) = reqwest::Url::parse(base) else {
        return Err(ToolError::internal(format!("the upstream URL `{base}` does not parse")));
    };
    let problem = match reqwest::Url::parse(url) {
        Ok(u) if within(&u, &base_url) => return Ok(()),
        Ok(_) => "would send the call outside the upstream API's address",
        Err(_) => "makes a URL that cannot be sent",
    };
    let arg = in_path.first().copied().unwrap_or("path");
    let also = match in_path.get(1..) {
        Some(rest) if !rest.is_empty() => {
            format!(" (with {})", rest.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", "))
        }
        _ => String::new(),
    };
    Err(unbuildable(arg, format!("this value{also} {problem}"), "Give the id or path segment an earlier answer gave"))
}

/// Puts the chosen secrets where their schemes say: headers, query pairs or cookies.
fn apply_secrets(
    secrets: &[&Secret],
    headers: &mut Vec<(String, String)>,
    query: &mut Vec<String>,
    cookies: &mut Vec<String>,
) {
    for secret in secrets {
        match secret {
            Secret::ApiKey { location: KeyLocation::Header, name, value } => {
                headers.push(((*name).to_owned(), value.clone()))
            }
            Secret::ApiKey { location: KeyLocation::Query, name, value } => {
                query.push(format!("{}={}", params::encode(name), params::encode(value)))
            }
            Secret::ApiKey { location: KeyLocation::Cookie, name, value } => {
                cookies.push(format!("{name}={}", params::encode(value)))
            }
            Secret::Bearer(token) => headers.push((AUTHORIZATION.as_str().to_owned(), format!("Bearer {token}"))),
            Secret::Basic(encoded) => headers.push((AUTHORIZATION.as_str().to_owned(), format!("Basic {encoded}"))),
            // Fetched into a bearer token before the request is built.
            Secret::ClientCredentials(_) => {}
        }
    }
}

/// The body's content type and bytes.
fn encode_body(media_type: &str, encoding: Encoding, value: &Value) -> Result<(String, Vec<u8>), ToolError> {
    let bytes = match encoding {
        Encoding::Json => serde_json::to_vec(value).map_err(|e| ToolError::internal(e.to_string()))?,
        Encoding::Text => params::scalar(value).into_bytes(),
        Encoding::Binary => decode_file("body", value)?,
        Encoding::Multipart { files } => return multipart(value, files),
        Encoding::Form => form(value)?,
    };
    Ok((media_type.to_owned(), bytes))
}

/// A file argument: base64 text (standard or URL-safe alphabet, padded or not).
fn decode_file(field: &str, value: &Value) -> Result<Vec<u8>, ToolError> {
    use base64::Engine as _;
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    let bad = || {
        ToolError::new(
            codes::INVALID_ARGUMENT,
            format!("`{field}` must be a file's bytes as base64 text"),
            format!("Encode the file's bytes as base64 and pass that string as `{field}`."),
        )
        .field(field)
    };
    let Value::String(text) = value else { return Err(bad()) };
    let text: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|engine| engine.decode(&text).ok())
        .ok_or_else(bad)
}

/// `multipart/form-data` (RFC 7578): one part per field, one per array item; files as
/// `application/octet-stream` parts, objects as JSON parts, the rest as text.
fn multipart(value: &Value, files: &[&str]) -> Result<(String, Vec<u8>), ToolError> {
    let Value::Object(map) = value else {
        return Err(ToolError::new(
            codes::INVALID_ARGUMENT,
            "a multipart body must be an object",
            "Pass the body as an object of fields.",
        ));
    };
    let mut parts: Vec<(String, Option<&'static str>, Vec<u8>)> = Vec::new();
    for (name, v) in map {
        let items: Vec<&Value> = match v {
            Value::Array(items) if files.contains(&name.as_str()) || items.iter().all(|i| !i.is_object()) => {
                items.iter().collect()
            }
            other => vec![other],
        };
        for item in items {
            if files.contains(&name.as_str()) {
                parts.push((name.clone(), Some("application/octet-stream"), decode_file(name, item)?));
            } else if item.is_object() || item.is_array() {
                parts.push((name.clone(), Some("application/json"), item.to_string().into_bytes()));
            } else if !item.is_null() {
                parts.push((name.clone(), None, params::scalar(item).into_bytes()));
            }
        }
    }
    // A boundary that occurs in no part.
    let mut n = 0u32;
    let boundary = loop {
        let b = format!("mcp-gen-boundary-{n:08x}");
        if !parts.iter().any(|(_, _, bytes)| bytes.windows(b.len()).any(|w| w == b.as_bytes())) {
            break b;
        }
        n += 1;
    };
    let mut body = Vec::new();
    for (name, content_type, bytes) in parts {
        let name = name.replace('"', "%22").replace(['\r', '\n'], " ");
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match content_type {
            Some(ct @ "application/octet-stream") => body.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{name}\"; filename=\"{name}\"\r\nContent-Type: {ct}\r\n\r\n"
                )
                .as_bytes(),
            ),
            Some(ct) => body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"\r\nContent-Type: {ct}\r\n\r\n").as_bytes(),
            ),
            None => {
                body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes())
            }
        }
        body.extend_from_slice(&bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    Ok((format!("multipart/form-data; boundary={boundary}"), body))
}

fn form(value: &Value) -> Result<Vec<u8>, ToolError> {
    let Value::Object(map) = value else {
        return Err(ToolError::new(
            codes::INVALID_ARGUMENT,
            "a form body must be an object",
            "Pass the body as an object of fields.",
        ));
    };
    let mut form = form_urlencoded::Serializer::new(String::new());
    // A form field is text: a scalar, or a list of scalars sent as repeated fields. A nested
    // object has no one encoding upstreams agree on, so it is refused rather than guessed.
    let nested = |v: &Value| v.is_object() || v.is_array();
    for (k, v) in map {
        let items: Vec<&Value> = match v {
            Value::Array(items) => items.iter().collect(),
            other => vec![other],
        };
        if items.iter().any(|i| nested(i)) {
            return Err(unbuildable(
                k,
                "an application/x-www-form-urlencoded body carries only text fields, and this value nests an object or a list".to_owned(),
                "Give a text, number or boolean (or a list of them)",
            ));
        }
        for i in items {
            form.append_pair(k, &params::scalar(i));
        }
    }
    Ok(form.finish().into_bytes())
}

/// The names of query credentials and the values of every credential among `secrets`.
fn secret_parts<'a>(secrets: &[&'a Secret]) -> (Vec<&'a str>, Vec<&'a str>) {
    let mut names = Vec::new();
    let mut values = Vec::new();
    for secret in secrets {
        match secret {
            Secret::ApiKey { location, name, value } => {
                if matches!(location, KeyLocation::Query) {
                    names.push(*name);
                }
                values.push(value.as_str());
            }
            Secret::Bearer(v) | Secret::Basic(v) => values.push(v.as_str()),
            Secret::ClientCredentials(_) => {}
        }
    }
    (names, values)
}

/// A success as the tool's result. `next` is set for a tool whose pages are announced in the
/// A path value that is, or holds a segment that is, `.` or `..` once percent-decoded (however
/// many times): URL parsers and upstreams collapse such segments, so `get_pet` with `..` would
/// reach another endpoint (CONTRACT S2).
fn is_dot_segment(value: &Value) -> bool {
    let Some(text) = value.as_str() else { return false };
    let mut text = text.trim().to_owned();
    for _ in 0..4 {
        if text.split(['/', '\\']).any(|seg| seg.trim() == "." || seg.trim() == "..") {
            return true;
        }
        let decoded = percent_encoding::percent_decode_str(&text).decode_utf8_lossy().into_owned();
        if decoded == text {
            break;
        }
        text = decoded.trim().to_owned();
    }
    false
}

/// `Link` header: the body goes under `items` beside the next page's query (or null).
fn success(
    tool: &ToolDecl,
    status: u16,
    content_type: &str,
    bytes: &[u8],
    next: Option<Option<String>>,
) -> CallToolResult {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        // E5: a side effect is confirmed, never answered with nothing.
        return crate::util::structured(json!({
            "ok": true,
            "status": status,
            "message": format!("{} succeeded", tool.operation()),
        }));
    }
    let looks_json = content_type.contains("json") || content_type.is_empty();
    if looks_json && let Ok(value) = serde_json::from_slice::<Value>(bytes) {
        return crate::util::structured(match next {
            Some(next) => json!({"items": value, "next_cursor": next}),
            None => value,
        });
    }
    let text = String::from_utf8_lossy(bytes);
    let mut text: String = text.chars().take(MAX_TEXT_CHARS).collect();
    if text.len() < bytes.len() && text.chars().count() == MAX_TEXT_CHARS {
        text.push_str("\n[cut: the answer is longer than 100000 characters]");
    }
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// A short summary of an error body: its message field if it has one, else its first line.
fn summary(bytes: &[u8]) -> String {
    if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
        for key in ["message", "error_description", "detail", "error", "title", "description"] {
            match v.get(key) {
                Some(Value::String(s)) if !s.trim().is_empty() => return truncate(s.trim(), 300),
                Some(Value::Object(inner)) => {
                    if let Some(Value::String(s)) = inner.get("message") {
                        return truncate(s.trim(), 300);
                    }
                }
                _ => {}
            }
        }
        return truncate(&v.to_string(), 300);
    }
    let text = String::from_utf8_lossy(bytes);
    truncate(text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or(""), 300)
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max { s.to_owned() } else { format!("{}…", s.chars().take(max).collect::<String>()) }
}

fn failure(
    tool: &ToolDecl,
    credentials: &Credentials,
    status: u16,
    retry_after: Option<u64>,
    bytes: &[u8],
) -> ToolError {
    let label = tool.operation();
    let detail = summary(bytes);
    let said = if detail.is_empty() { String::new() } else { format!(": {detail}") };
    let err = match status {
        404 => {
            let recovery = match tool.list_tool {
                Some(list) => {
                    format!("Verify the id with {list} and call again with an id it returned; do not guess ids.")
                }
                None => "Check the identifiers in the arguments; do not guess ids.".to_owned(),
            };
            ToolError::new(codes::NOT_FOUND, format!("{label}: not found (HTTP 404){said}"), recovery)
        }
        401 => {
            let hint = match credentials.choose(tool.security) {
                None => credentials
                    .missing_hint(tool.security)
                    .map(|v| format!(" (credentials not configured: {v})"))
                    .unwrap_or_default(),
                Some(_) => String::new(),
            };
            ToolError::new(
                codes::UNAUTHENTICATED,
                format!("{label}: the upstream did not accept this server's credentials (HTTP 401){hint}"),
                "Tell the user this server's credentials for the API are missing or invalid; do not retry.",
            )
        }
        403 => ToolError::new(
            codes::PERMISSION_DENIED,
            format!("{label}: permission denied (HTTP 403){said}"),
            "Ask the user to grant access for this action; do not retry.",
        ),
        409 => ToolError::new(
            codes::CONFLICT,
            format!("{label}: conflict with the current state (HTTP 409){said}"),
            "Fetch the current state of the resource, then decide whether to call again.",
        ),
        429 => ToolError::new(
            codes::RATE_LIMITED,
            format!("{label}: rate limited (HTTP 429){said}"),
            "Wait for retry_after_ms, then retry the same call.",
        )
        .retryable(retry_after.or(Some(1000))),
        502..=504 => ToolError::new(
            codes::UPSTREAM_UNAVAILABLE,
            format!("{label}: the upstream is unavailable (HTTP {status}){said}"),
            "Retry the same call after retry_after_ms.",
        )
        .retryable(retry_after.or(Some(1000))),
        500..=599 => ToolError::new(
            codes::UPSTREAM_ERROR,
            format!("{label}: the upstream failed (HTTP {status}){said}"),
            "Retry once; if it fails again, tell the user.",
        )
        .retryable(retry_after),
        _ => ToolError::new(
            codes::UPSTREAM_REJECTED,
            format!("{label}: the upstream rejected the request (HTTP {status}){said}"),
            "Correct the arguments the message names and call again; the same arguments will fail again.",
        ),
    };
    err.status(status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::{ArgDecl, BodyDecl, Method, Style};
    use serde_json::json;

    #[test]
    fn dot_segments_are_found_however_encoded() {
        for bad in [".", "..", " .. ", "%2e%2e", "%2E.", "%252e%252e", "a/../b", "..%2fadmin", "x\\.."] {
            assert!(is_dot_segment(&json!(bad)), "{bad}");
        }
        for good in ["1", "...", ".hidden", "a.b", "%2e%2e%2e", "v1.2"] {
            assert!(!is_dot_segment(&json!(good)), "{good}");
        }
        assert!(!is_dot_segment(&json!(7)));
    }

    static TOOL: ToolDecl = ToolDecl {
        name: "update_pet",
        method: Method::Put,
        path: "/pets/{petId}",
        args: &[
            ArgDecl {
                name: "petId",
                target: Target::Path { name: "petId", style: Style::Simple, explode: false },
                required: true,
            },
            ArgDecl {
                name: "tags",
                target: Target::Query {
                    name: "tags",
                    style: Style::Form,
                    explode: true,
                    allow_reserved: false,
                    json: false,
                },
                required: false,
            },
            ArgDecl { name: "X-Trace", target: Target::Header { name: "X-Trace", json: false }, required: false },
            ArgDecl { name: "name", target: Target::BodyField("name"), required: false },
            ArgDecl { name: "body_id", target: Target::BodyField("id"), required: false },
        ],
        fixed: &[],
        body: Some(BodyDecl { media_type: "application/json", encoding: Encoding::Json }),
        rest_to_body: false,
        security: &[],
        scopes: &[],
        list_tool: Some("list_pets"),
        idempotency: None,
        merged: &[],
        handle: None,
        native: false,
        approval: None,
        asks: &[],
        long_running: None,
        sunset: None,
        result_budget: 8_000,
    };

    static APPROVE: ToolDecl = ToolDecl {
        name: "approve_withdrawal",
        method: Method::Post,
        path: "/withdrawals/{id}/actions",
        args: &[
            ArgDecl {
                name: "id",
                target: Target::Path { name: "id", style: Style::Simple, explode: false },
                required: true,
            },
            ArgDecl { name: "body", target: Target::Body, required: false },
        ],
        fixed: &[crate::decl::FixedDecl { target: Target::BodyField("action"), value: "\"approve\"" }],
        body: Some(BodyDecl { media_type: "application/json", encoding: Encoding::Json }),
        rest_to_body: false,
        security: &[],
        scopes: &[],
        list_tool: None,
        idempotency: None,
        merged: &[],
        handle: None,
        native: false,
        approval: None,
        asks: &[],
        long_running: None,
        sunset: None,
        result_budget: 8_000,
    };

    #[test]
    fn fixed_values_are_sent_and_cannot_be_overridden() {
        // The model's body cannot carry another action: the fixed value is applied last.
        let args = json!({"id": "w1", "body": {"note": "ok", "action": "reject"}});
        let req = build(&APPROVE, args.as_object().unwrap(), "http://up", vec![]).unwrap();
        assert_eq!(req.url, "http://up/withdrawals/w1/actions");
        let (_, body) = req.body.unwrap();
        assert_eq!(serde_json::from_slice::<Value>(&body).unwrap(), json!({"note": "ok", "action": "approve"}));
    }

    /// A request that cannot be made is refused before anything is sent, naming the argument,
    /// and not retryable: never `upstream_unavailable` (E2).
    fn refused(result: Result<Request, ToolError>, field: &str) {
        let e = result.expect_err("the request must not be built");
        assert_eq!((e.code, e.retryable, e.field.as_deref()), (codes::INVALID_ARGUMENT, false, Some(field)), "{e:?}");
        assert!(e.message.contains("not sent"), "{}", e.message);
    }

    #[test]
    fn a_url_that_cannot_be_sent_names_its_argument() {
        static BY_HREF: ToolDecl = ToolDecl {
            name: "read_group",
            path: "{group_href}",
            args: &[ArgDecl {
                name: "group_href",
                target: Target::Path { name: "group_href", style: Style::Simple, explode: false },
                required: true,
            }],
            ..TOOL
        };
        let args = json!({"group_href": "/api/v3/groups/1/"});
        // Percent-encoded after the base's port, the path becomes no URL at all.
        refused(build(&BY_HREF, args.as_object().unwrap(), "http://127.0.0.1:8000", vec![]), "group_href");
        // Nor may a value move the call to another host.
        let args = json!({"group_href": "@evil.example"});
        refused(build(&BY_HREF, args.as_object().unwrap(), "http://127.0.0.1:8000", vec![]), "group_href");
    }

    #[test]
    fn a_header_value_with_a_line_break_names_its_argument() {
        let args = json!({"petId": "1", "X-Trace": "t1\r\nX-Admin: yes"});
        refused(build(&TOOL, args.as_object().unwrap(), "http://up", vec![]), "X-Trace");
    }

    #[test]
    fn a_form_body_that_cannot_be_encoded_names_its_field() {
        static FORM: ToolDecl = ToolDecl {
            body: Some(BodyDecl { media_type: "application/x-www-form-urlencoded", encoding: Encoding::Form }),
            ..TOOL
        };
        let args = json!({"petId": "1", "name": {"first": "Rex"}});
        refused(build(&FORM, args.as_object().unwrap(), "http://up", vec![]), "name");
        let args = json!({"petId": "1", "name": ["Rex", "Max"]});
        let req = build(&FORM, args.as_object().unwrap(), "http://up", vec![]).unwrap();
        assert_eq!(req.body.unwrap().1, b"name=Rex&name=Max");
    }

    #[test]
    fn builds_the_request_the_spec_describes() {
        let args = json!({"petId": "a b", "tags": ["x", "y"], "X-Trace": "t1", "name": "Rex", "body_id": 7});
        let req = build(&TOOL, args.as_object().unwrap(), "http://up", vec![]).unwrap();
        assert_eq!(req.method, "PUT");
        assert_eq!(req.url, "http://up/pets/a%20b?tags=x&tags=y");
        assert!(req.headers.contains(&("X-Trace".to_owned(), "t1".to_owned())));
        assert!(req.headers.contains(&("accept".to_owned(), "application/json".to_owned())));
        let (ct, body) = req.body.unwrap();
        assert_eq!(ct, "application/json");
        assert_eq!(serde_json::from_slice::<Value>(&body).unwrap(), json!({"name": "Rex", "id": 7}));
    }

    #[test]
    fn files_travel_as_base64_and_arrive_as_bytes() {
        static UPLOAD: ToolDecl = ToolDecl {
            name: "upload_image",
            method: Method::Post,
            path: "/pets/{petId}/image",
            args: &[
                ArgDecl {
                    name: "petId",
                    target: Target::Path { name: "petId", style: Style::Simple, explode: false },
                    required: true,
                },
                ArgDecl { name: "file", target: Target::BodyField("file"), required: false },
                ArgDecl { name: "caption", target: Target::BodyField("caption"), required: false },
                ArgDecl { name: "meta", target: Target::BodyField("meta"), required: false },
            ],
            fixed: &[],
            body: Some(BodyDecl {
                media_type: "multipart/form-data",
                encoding: Encoding::Multipart { files: &["file"] },
            }),
            rest_to_body: false,
            security: &[],
            scopes: &[],
            list_tool: None,
            idempotency: None,
            merged: &[],
            handle: None,
            native: false,
            approval: None,
            asks: &[],
            long_running: None,
            sunset: None,
            result_budget: 8_000,
        };
        // "\x89PNG" base64-encoded.
        let args = json!({"petId": 1, "file": "iVBORw==", "caption": "a \"cat\"", "meta": {"k": 1}});
        let req = build(&UPLOAD, args.as_object().unwrap(), "http://up", vec![]).unwrap();
        let (ct, body) = req.body.unwrap();
        let boundary = ct.strip_prefix("multipart/form-data; boundary=").unwrap();
        let text = String::from_utf8_lossy(&body);
        assert!(body.windows(4).any(|w| w == b"\x89PNG"), "{text}");
        assert!(text.contains("name=\"file\"; filename=\"file\"\r\nContent-Type: application/octet-stream\r\n\r\n"));
        assert!(text.contains("name=\"caption\"\r\n\r\na \"cat\"\r\n"));
        assert!(text.contains("name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"k\":1}\r\n"));
        assert!(text.ends_with(&format!("--{boundary}--\r\n")));

        let err = build(&UPLOAD, json!({"petId": 1, "file": "not base64!"}).as_object().unwrap(), "http://up", vec![])
            .unwrap_err();
        assert_eq!(err.field.as_deref(), Some("file"), "{err:?}");

        static RAW: ToolDecl = ToolDecl {
            name: "put_object",
            method: Method::Put,
            path: "/objects",
            args: &[ArgDecl { name: "body", target: Target::Body, required: false }],
            fixed: &[],
            body: Some(BodyDecl { media_type: "application/pdf", encoding: Encoding::Binary }),
            rest_to_body: false,
            security: &[],
            scopes: &[],
            list_tool: None,
            idempotency: None,
            merged: &[],
            handle: None,
            native: false,
            approval: None,
            asks: &[],
            long_running: None,
            sunset: None,
            result_budget: 8_000,
        };
        let req = build(&RAW, json!({"body": "JVBERi0="}).as_object().unwrap(), "http://up", vec![]).unwrap();
        assert_eq!(req.body.unwrap(), ("application/pdf".to_owned(), b"%PDF-".to_vec()));
    }

    #[test]
    fn credentials_go_where_the_scheme_says() {
        let secrets = [
            Secret::ApiKey { location: KeyLocation::Query, name: "key", value: "s&1".into() },
            Secret::ApiKey { location: KeyLocation::Cookie, name: "sid", value: "c".into() },
            Secret::Bearer("tok".into()),
        ];
        let req =
            build(&TOOL, json!({"petId": 1}).as_object().unwrap(), "http://up", secrets.iter().collect()).unwrap();
        assert_eq!(req.url, "http://up/pets/1?key=s%261");
        assert!(req.headers.contains(&("authorization".to_owned(), "Bearer tok".to_owned())));
        assert!(req.headers.contains(&("cookie".to_owned(), "sid=c".to_owned())));
    }

    #[test]
    fn not_found_points_to_the_list_tool() {
        let e = failure(&TOOL, &Credentials::default(), 404, None, br#"{"message": "Pet not found"}"#);
        assert_eq!(e.code, codes::NOT_FOUND);
        assert!(e.message.contains("Pet not found"));
        assert!(e.recovery.contains("list_pets"));
        let e = failure(&TOOL, &Credentials::default(), 429, Some(3000), b"");
        assert!(e.retryable);
        assert_eq!(e.retry_after_ms, Some(3000));
    }

    #[test]
    fn empty_success_confirms() {
        let r = success(&TOOL, 204, "", b"", None);
        assert_eq!(r.structured_content.unwrap()["status"], 204);
    }
}
