//! One upstream call as the generated server would make it: arguments placed where the plan
//! says (path, query, header, cookie, JSON body), the credentials the README lists read from
//! the environment. Blocking and sequential: verify makes a handful of calls, in order.

use std::time::Duration;

use base64::Engine as _;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value};

use crate::plan::{Scheme, Target, Tool};
use crate::resolve::{BodyEncoding, ParamLocation, SchemeKind};

/// RFC 3986 unreserved characters stay; everything else is encoded (what the runtime does).
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

fn encode(s: &str) -> String {
    utf8_percent_encode(s, COMPONENT).to_string()
}

/// An answer: status, content type and body bytes.
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

pub struct Client {
    agent: ureq::Agent,
    base: String,
    /// Header, query and cookie credentials, by scheme name.
    secrets: Vec<(String, ParamLocation, String, String)>,
}

impl Client {
    /// The client for `base`, with each scheme's secret read by `lookup` (the environment).
    pub fn new(base: &str, schemes: &[Scheme], lookup: impl Fn(&str) -> Option<String>) -> Self {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(30)))
            // Every status is an answer to check, not an error.
            .http_status_as_error(false)
            .build();
        let get = |s: &Scheme, i: usize| s.env.get(i).and_then(|e| lookup(e)).filter(|v| !v.is_empty());
        let mut secrets = Vec::new();
        for s in schemes {
            let header = |name: &str, value: String| (s.name.clone(), ParamLocation::Header, name.to_owned(), value);
            match &s.kind {
                SchemeKind::ApiKey { location, name } => {
                    if let Some(v) = get(s, 0) {
                        secrets.push((s.name.clone(), *location, name.clone(), v));
                    }
                }
                SchemeKind::Undeclared { location, name, prefix } => {
                    if let Some(v) = get(s, 0) {
                        let v = match prefix {
                            Some(p) => format!("{p} {v}"),
                            None => v,
                        };
                        secrets.push((s.name.clone(), *location, name.clone(), v));
                    }
                }
                SchemeKind::Basic => {
                    if let Some(user) = get(s, 0) {
                        let pass = get(s, 1).unwrap_or_default();
                        let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"));
                        secrets.push(header("Authorization", format!("Basic {encoded}")));
                    }
                }
                SchemeKind::Bearer | SchemeKind::OAuth2 { .. } | SchemeKind::OpenIdConnect => {
                    if let Some(token) = get(s, 0) {
                        secrets.push(header("Authorization", format!("Bearer {token}")));
                    }
                }
            }
        }
        Client { agent: ureq::Agent::new_with_config(config), base: base.trim_end_matches('/').to_owned(), secrets }
    }

    /// Calls `tool` with `args` (its input, as a model would give it).
    pub fn call(&self, tool: &Tool, args: &Map<String, Value>) -> Result<Answer, String> {
        let mut path = tool.operation.path.clone();
        let mut query: Vec<(String, String)> = Vec::new();
        let mut headers: Vec<(String, String)> = Vec::new();
        let mut cookies: Vec<String> = Vec::new();
        let mut body = Map::new();
        let mut whole: Option<Value> = None;
        let given = tool.args.iter().filter_map(|a| args.get(&a.name).map(|v| (&a.target, v)));
        let fixed = tool.fixed.iter().map(|f| (&f.arg.target, &f.value));
        for (target, value) in given.chain(fixed) {
            match target {
                Target::Path { name, .. } => {
                    path = path.replace(&format!("{{{name}}}"), &encode(&scalars(value).join(",")));
                }
                Target::Query { name, .. } => {
                    for v in scalars(value) {
                        query.push((name.clone(), v));
                    }
                }
                Target::Header { name, .. } => headers.push((name.clone(), scalars(value).join(","))),
                Target::Cookie { name, .. } => cookies.push(format!("{name}={}", encode(&scalars(value).join(",")))),
                Target::BodyField { name } => {
                    body.insert(name.clone(), value.clone());
                }
                Target::Body => whole = Some(value.clone()),
                Target::Local => {}
            }
        }
        // The first alternative of the tool's security that is configured, and every overlay
        // credential (sent with every call).
        let chosen = tool.security.iter().find(|alt| alt.iter().all(|n| self.secrets.iter().any(|s| &s.0 == n)));
        for (scheme, location, name, value) in &self.secrets {
            let always = !tool.security.iter().flatten().any(|n| n == scheme);
            if !(always || chosen.is_some_and(|alt| alt.contains(scheme))) {
                continue;
            }
            match location {
                ParamLocation::Query => query.push((name.clone(), value.clone())),
                ParamLocation::Cookie => cookies.push(format!("{name}={}", encode(value))),
                ParamLocation::Header | ParamLocation::Path => headers.push((name.clone(), value.clone())),
            }
        }
        let mut url = format!("{}{}", self.base, path);
        if !query.is_empty() {
            let pairs: Vec<String> = query.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect();
            url.push('?');
            url.push_str(&pairs.join("&"));
        }
        let payload = match (whole, body.is_empty()) {
            (Some(v), _) => Some(v),
            (None, false) => Some(Value::Object(body)),
            (None, true) => None,
        };
        let method = ureq::http::Method::from_bytes(tool.operation.method.as_lower().to_uppercase().as_bytes())
            .map_err(|e| format!("method: {e}"))?;
        let mut request = ureq::http::Request::builder().method(method).uri(&url).header("Accept", "application/json");
        for (k, v) in &headers {
            request = request.header(k.as_str(), v.as_str());
        }
        if !cookies.is_empty() {
            request = request.header("Cookie", cookies.join("; "));
        }
        let bytes = match payload {
            Some(v) => {
                let plan = tool.body.as_ref();
                if plan.is_some_and(|b| b.encoding != BodyEncoding::Json) {
                    return Err("verify sends JSON bodies only; this operation takes another encoding".to_owned());
                }
                request = request.header("Content-Type", plan.map_or("application/json", |b| b.media_type.as_str()));
                serde_json::to_vec(&v).map_err(|e| e.to_string())?
            }
            None => Vec::new(),
        };
        let request = request.body(bytes).map_err(|e| format!("cannot build the request to {url}: {e}"))?;
        let mut response = self.agent.run(request).map_err(|e| format!("{} {url}: {e}", tool.operation.method))?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let body = response
            .body_mut()
            .with_config()
            .limit(64 * 1024 * 1024)
            .read_to_vec()
            .map_err(|e| format!("reading the answer of {url}: {e}"))?;
        Ok(Answer { status, content_type, body })
    }
}

/// The text of each value of a scalar or a list (`true`, `3`, `a`).
fn scalars(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) => items.iter().flat_map(scalars).collect(),
        Value::String(s) => vec![s.clone()],
        Value::Null => Vec::new(),
        other => vec![other.to_string()],
    }
}
