//! Stage 2, resolve: `Document` → `Api`. Follows `$ref`s to parameters, bodies, responses and
//! path items; lists every operation with its parameters, body, success response and security;
//! normalises schemas to JSON Schema 2020-12 (see `schema`). Reads no files and decides nothing
//! about tools: that is `plan`'s job.

mod credentials;
pub mod regex;
pub mod schema;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::{Map, Value};

use crate::diag::{Diagnostic, Report, codes, join_pointer};
use crate::load::{Document, SpecVersion};
pub use schema::Defs;
use schema::{SchemaTable, local_pointer};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    Get,
    Put,
    Post,
    Delete,
    Options,
    Head,
    Patch,
    Trace,
}

impl Method {
    pub const ALL: [Method; 8] = [
        Method::Get,
        Method::Put,
        Method::Post,
        Method::Delete,
        Method::Options,
        Method::Head,
        Method::Patch,
        Method::Trace,
    ];

    pub fn as_lower(self) -> &'static str {
        match self {
            Method::Get => "get",
            Method::Put => "put",
            Method::Post => "post",
            Method::Delete => "delete",
            Method::Options => "options",
            Method::Head => "head",
            Method::Patch => "patch",
            Method::Trace => "trace",
        }
    }

    pub fn parse(s: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.as_lower().eq_ignore_ascii_case(s))
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_lower().to_ascii_uppercase())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ParamLocation {
    Path,
    Query,
    Header,
    Cookie,
}

impl ParamLocation {
    fn parse(s: &str) -> Option<Self> {
        match s {
            "path" => Some(ParamLocation::Path),
            "query" => Some(ParamLocation::Query),
            "header" => Some(ParamLocation::Header),
            "cookie" => Some(ParamLocation::Cookie),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ParamLocation::Path => "path",
            ParamLocation::Query => "query",
            ParamLocation::Header => "header",
            ParamLocation::Cookie => "cookie",
        }
    }
}

/// OpenAPI parameter serialisation styles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Simple,
    Label,
    Matrix,
    Form,
    SpaceDelimited,
    PipeDelimited,
    DeepObject,
}

impl Style {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "simple" => Style::Simple,
            "label" => Style::Label,
            "matrix" => Style::Matrix,
            "form" => Style::Form,
            "spaceDelimited" => Style::SpaceDelimited,
            "pipeDelimited" => Style::PipeDelimited,
            "deepObject" => Style::DeepObject,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub location: ParamLocation,
    pub required: bool,
    pub deprecated: bool,
    /// Normalised, with the parameter's description and examples folded in.
    pub schema: Value,
    pub style: Style,
    pub explode: bool,
    pub allow_reserved: bool,
    /// `content: application/json` parameters are sent as JSON text.
    pub json: bool,
    pub pointer: String,
    /// The security scheme that supplies this parameter when it holds a credential
    /// (`credentials.rs`): the server fills it, the model never sees it.
    pub credential: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyEncoding {
    Json,
    Form,
    /// `multipart/form-data`: fields as parts; binary fields arrive base64-encoded.
    Multipart,
    Text,
    /// Any other single media type (a file upload): the body is the bytes, base64-encoded.
    Binary,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RequestBody {
    pub required: bool,
    pub media_type: String,
    pub encoding: BodyEncoding,
    pub description: Option<String>,
    pub schema: Value,
    pub pointer: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub status: String,
    pub description: Option<String>,
    pub media_type: Option<String>,
    pub schema: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    pub method: Method,
    pub path: String,
    pub operation_id: Option<String>,
    pub summary: Option<String>,
    pub description: Option<String>,
    pub tags: Vec<String>,
    pub deprecated: bool,
    pub parameters: Vec<Parameter>,
    pub body: Option<RequestBody>,
    pub success: Option<Response>,
    /// The operation may answer `202 Accepted` with a `Location` to follow until it ends: a
    /// long-running operation.
    pub accepted: bool,
    /// Alternatives, each a set of scheme names that must all be satisfied. Empty: no
    /// security; an empty alternative: anonymous access allowed.
    pub security: Vec<Vec<String>>,
    /// OAuth scope alternatives an inbound token must satisfy (one whole set of them); empty
    /// when the operation asks for none.
    pub scopes: Vec<Vec<String>>,
    pub pointer: String,
    pub extensions: Map<String, Value>,
}

/// An operation's (or the document's) `security`.
#[derive(Debug, Clone, Default)]
struct Security {
    alternatives: Vec<Vec<String>>,
    scopes: Vec<Vec<String>>,
}

impl Parameter {
    /// An optional string parameter with this description, for tests to fill in.
    #[cfg(test)]
    pub fn bare(name: &str, location: ParamLocation, description: &str) -> Self {
        Parameter {
            name: name.to_owned(),
            location,
            required: false,
            deprecated: false,
            schema: serde_json::json!({"type": "string", "description": description}),
            style: Style::Form,
            explode: true,
            allow_reserved: false,
            json: false,
            pointer: String::new(),
            credential: None,
        }
    }
}

impl Operation {
    /// An operation with nothing but its route, for tests to fill in.
    #[cfg(test)]
    pub fn bare(method: Method, path: &str) -> Self {
        Operation {
            method,
            path: path.to_owned(),
            operation_id: None,
            summary: None,
            description: None,
            tags: Vec::new(),
            deprecated: false,
            parameters: Vec::new(),
            body: None,
            success: None,
            accepted: false,
            security: Vec::new(),
            scopes: Vec::new(),
            pointer: String::new(),
            extensions: Map::new(),
        }
    }

    /// `GET /pets/{id}`, for messages.
    pub fn label(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemeKind {
    ApiKey {
        location: ParamLocation,
        name: String,
    },
    Bearer,
    Basic,
    /// `client_credentials`: the flow's token URL and scopes, when the scheme declares one (the
    /// server then fetches its own tokens).
    OAuth2 {
        client_credentials: Option<ClientCredentialsFlow>,
    },
    OpenIdConnect,
    /// A credential the overlay adds (`server.credentials`) that the description does not
    /// declare: sent on every call, whatever the operation's security says, with `prefix` and a
    /// space before the secret.
    Undeclared {
        location: ParamLocation,
        name: String,
        prefix: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientCredentialsFlow {
    pub token_url: String,
    pub scopes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecurityScheme {
    pub name: String,
    pub kind: SchemeKind,
    pub description: Option<String>,
}

/// An operation that cannot become a tool, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub operation: String,
    pub operation_id: Option<String>,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Api {
    pub file: String,
    pub file_name: String,
    pub version: SpecVersion,
    pub title: String,
    pub api_version: String,
    pub description: Option<String>,
    /// Server URLs with variables replaced by their defaults.
    pub servers: Vec<String>,
    pub operations: Vec<Operation>,
    pub schemes: BTreeMap<String, SecurityScheme>,
    pub defs: Defs,
    pub skipped: Vec<Skipped>,
    /// The document's tag descriptions, by tag name (what the tool search indexes beside each
    /// operation's own text).
    pub tags: BTreeMap<String, String>,
    /// The document's top-level `x-` keys (`x-mcp-server` carries intents kept in the spec).
    pub extensions: Map<String, Value>,
}

pub fn resolve(doc: &Document, report: &mut Report) -> Api {
    Resolver { doc, table: SchemaTable::new(&doc.value, &doc.file, doc.version), report, oauth: BTreeSet::new() }.run()
}

struct Resolver<'d, 'r> {
    doc: &'d Document,
    table: SchemaTable<'d>,
    report: &'r mut Report,
    /// OAuth2 and OpenID Connect schemes: the ones whose requirements name scopes.
    oauth: BTreeSet<String>,
}

/// `tags: [{name, description}]`, where both are given.
fn tag_descriptions(root: &Value) -> BTreeMap<String, String> {
    let tags = root.get("tags").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    tags.iter().filter_map(|t| Some((text_at(t, "name")?, text_at(t, "description")?))).collect()
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn text_at(v: &Value, key: &str) -> Option<String> {
    str_at(v, key).map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned)
}

impl<'d> Resolver<'d, '_> {
    fn file(&self) -> &'d str {
        &self.doc.file
    }

    fn error(&mut self, code: &'static str, pointer: &str, message: String, help: &str) {
        let d = Diagnostic::error(code, message).at(self.file(), pointer).with_help(help);
        self.report.push(d);
    }

    fn run(mut self) -> Api {
        let root = &self.doc.value;
        let info = root.get("info").cloned().unwrap_or(Value::Null);
        if !info.is_object() {
            self.error(codes::INVALID_SPEC, "/info", "missing `info` object".into(), "add `info: {title, version}`");
        }
        let title = text_at(&info, "title").unwrap_or_else(|| "API".to_owned());
        let api_version = match info.get("version") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => "0.0.0".to_owned(),
        };
        let servers = self.servers();
        let mut schemes = self.schemes();
        self.oauth = schemes
            .values()
            .filter(|s| matches!(s.kind, SchemeKind::OAuth2 { .. } | SchemeKind::OpenIdConnect))
            .map(|s| s.name.clone())
            .collect();
        let global_security = self.security(root.get("security"), "/security");
        let mut operations = Vec::new();
        let mut skipped = Vec::new();
        if let Some(paths) = root.get("paths") {
            match paths.as_object() {
                Some(paths) => {
                    for (path, item) in paths {
                        if path.starts_with("x-") {
                            continue;
                        }
                        let at = join_pointer("/paths", path);
                        self.path_item(path, item, &at, &global_security, &mut operations, &mut skipped);
                    }
                }
                None => self.error(
                    codes::INVALID_SPEC,
                    "/paths",
                    "`paths` must be an object".into(),
                    "map each path to its operations",
                ),
            }
        }
        operations
            .sort_by(|a: &Operation, b: &Operation| (a.path.as_str(), a.method).cmp(&(b.path.as_str(), b.method)));
        credentials::lift(&mut operations, &mut schemes);
        self.table.finish(self.report);
        Api {
            file: self.doc.file.clone(),
            file_name: self.doc.file_name.clone(),
            version: self.doc.version,
            title,
            api_version,
            description: text_at(&info, "description"),
            servers,
            operations,
            schemes,
            defs: std::mem::take(&mut self.table.defs),
            skipped,
            tags: tag_descriptions(root),
            extensions: root
                .as_object()
                .map(|m| {
                    m.iter().filter(|(k, _)| k.starts_with("x-mcp")).map(|(k, v)| (k.clone(), v.clone())).collect()
                })
                .unwrap_or_default(),
        }
    }

    /// Follows `$ref` chains of non-schema objects (parameters, bodies, responses, path items).
    fn deref(&mut self, value: &'d Value, at: &str) -> Option<(&'d Value, String)> {
        let mut current = value;
        let mut pointer = at.to_owned();
        for _ in 0..32 {
            let Some(reference) = current.get("$ref") else { return Some((current, pointer)) };
            let here = join_pointer(&pointer, "$ref");
            let Some(text) = reference.as_str() else {
                self.error(
                    codes::INVALID_SPEC,
                    &here,
                    "`$ref` must be a string".into(),
                    "write the reference as a string",
                );
                return None;
            };
            if text == crate::load::bundle::UNRESOLVED {
                return None;
            }
            match local_pointer(text) {
                Ok(target) => match self.doc.value.pointer(&target) {
                    Some(next) => {
                        current = next;
                        pointer = target;
                    }
                    None => {
                        self.error(
                            codes::UNKNOWN_REF,
                            &here,
                            format!("`$ref: {text}` does not resolve"),
                            "define the target in this document or correct the reference",
                        );
                        return None;
                    }
                },
                Err(d) => {
                    self.report.push((*d).at(self.file(), here));
                    return None;
                }
            }
        }
        self.error(
            codes::INVALID_SPEC,
            at,
            "`$ref` chain longer than 32 hops (a cycle?)".into(),
            "break the reference cycle",
        );
        None
    }

    fn servers(&mut self) -> Vec<String> {
        let Some(list) = self.doc.value.get("servers").and_then(Value::as_array) else { return Vec::new() };
        list.iter()
            .filter_map(|s| {
                let mut url = str_at(s, "url")?.to_owned();
                if let Some(vars) = s.get("variables").and_then(Value::as_object) {
                    for (name, var) in vars {
                        let default = match var.get("default") {
                            Some(Value::String(d)) => d.clone(),
                            Some(other) => other.to_string(),
                            None => continue,
                        };
                        url = url.replace(&format!("{{{name}}}"), &default);
                    }
                }
                Some(url)
            })
            .collect()
    }

    fn schemes(&mut self) -> BTreeMap<String, SecurityScheme> {
        let mut out = BTreeMap::new();
        let Some(map) = self.doc.value.pointer("/components/securitySchemes").and_then(Value::as_object) else {
            return out;
        };
        for (name, raw) in map {
            let at = join_pointer("/components/securitySchemes", name);
            let Some((scheme, at)) = self.deref(raw, &at) else { continue };
            let kind = match str_at(scheme, "type") {
                Some("apiKey") => {
                    let location =
                        str_at(scheme, "in").and_then(ParamLocation::parse).filter(|l| *l != ParamLocation::Path);
                    match (location, str_at(scheme, "name")) {
                        (Some(location), Some(param)) => SchemeKind::ApiKey { location, name: param.to_owned() },
                        _ => {
                            self.error(
                                codes::INVALID_SPEC,
                                &at,
                                format!("API key scheme `{name}` needs `in` (header, query or cookie) and `name`"),
                                "add `in` and `name` to the security scheme",
                            );
                            continue;
                        }
                    }
                }
                Some("http") => match str_at(scheme, "scheme").map(str::to_ascii_lowercase).as_deref() {
                    Some("bearer") => SchemeKind::Bearer,
                    Some("basic") => SchemeKind::Basic,
                    other => {
                        self.report.push(
                            Diagnostic::warning(
                                codes::INVALID_SPEC,
                                format!(
                                    "HTTP auth scheme `{}` of `{name}` is not supported; requests go without it",
                                    other.unwrap_or("?")
                                ),
                            )
                            .at(self.file(), &at)
                            .with_help("use `bearer` or `basic`, or inject credentials with a proxy"),
                        );
                        continue;
                    }
                },
                Some("oauth2") => {
                    let flow = scheme.pointer("/flows/clientCredentials");
                    let client_credentials =
                        flow.and_then(|f| str_at(f, "tokenUrl")).map(|url| ClientCredentialsFlow {
                            token_url: url.to_owned(),
                            scopes: flow
                                .and_then(|f| f.get("scopes"))
                                .and_then(Value::as_object)
                                .map(|m| m.keys().cloned().collect())
                                .unwrap_or_default(),
                        });
                    SchemeKind::OAuth2 { client_credentials }
                }
                Some("openIdConnect") => SchemeKind::OpenIdConnect,
                other => {
                    self.report.push(
                        Diagnostic::warning(
                            codes::INVALID_SPEC,
                            format!(
                                "security scheme type `{}` of `{name}` is not supported; requests go without it",
                                other.unwrap_or("?")
                            ),
                        )
                        .at(self.file(), &at)
                        .with_help("supported: apiKey, http (bearer, basic), oauth2 and openIdConnect tokens"),
                    );
                    continue;
                }
            };
            out.insert(
                name.clone(),
                SecurityScheme { name: name.clone(), kind, description: text_at(scheme, "description") },
            );
        }
        out
    }

    fn security(&mut self, value: Option<&Value>, at: &str) -> Security {
        let Some(value) = value else { return Security::default() };
        let Some(list) = value.as_array() else {
            self.error(
                codes::INVALID_SPEC,
                at,
                "`security` must be a list".into(),
                "write a list of requirement objects",
            );
            return Security::default();
        };
        let requirements: Vec<&Map<String, Value>> = list.iter().filter_map(Value::as_object).collect();
        let alternatives = requirements.iter().map(|m| m.keys().cloned().collect()).collect();
        // The scopes an inbound token must carry: those of each alternative that uses an OAuth
        // scheme. An OAuth alternative that names no scope admits any valid token.
        let mut scopes: Vec<Vec<String>> = Vec::new();
        for req in &requirements {
            if !req.keys().any(|k| self.oauth.contains(k)) {
                continue;
            }
            let mut alt: Vec<String> = req
                .iter()
                .filter(|(k, _)| self.oauth.contains(*k))
                .flat_map(|(_, v)| v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned))
                .collect();
            alt.sort();
            alt.dedup();
            if alt.is_empty() {
                scopes.clear();
                break;
            }
            if !scopes.contains(&alt) {
                scopes.push(alt);
            }
        }
        Security { alternatives, scopes }
    }

    fn path_item(
        &mut self,
        path: &str,
        item: &'d Value,
        at: &str,
        global_security: &Security,
        operations: &mut Vec<Operation>,
        skipped: &mut Vec<Skipped>,
    ) {
        let Some((item, item_at)) = self.deref(item, at) else { return };
        let Some(map) = item.as_object() else {
            self.error(
                codes::INVALID_SPEC,
                &item_at,
                format!("path item `{path}` must be an object"),
                "map methods to operations",
            );
            return;
        };
        let shared = self.parameters(item.get("parameters"), &join_pointer(&item_at, "parameters"));
        for method in Method::ALL {
            let Some(op) = map.get(method.as_lower()) else { continue };
            let op_at = join_pointer(&item_at, method.as_lower());
            if matches!(method, Method::Options | Method::Trace) {
                skipped.push(Skipped {
                    operation: format!("{method} {path}"),
                    operation_id: str_at(op, "operationId").map(str::to_owned),
                    reason: "OPTIONS and TRACE are protocol meta endpoints (T4)".to_owned(),
                });
                continue;
            }
            if let Some(op) = self.operation(method, path, op, &op_at, &shared, global_security, skipped) {
                operations.push(op);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn operation(
        &mut self,
        method: Method,
        path: &str,
        op: &'d Value,
        at: &str,
        shared: &[Parameter],
        global_security: &Security,
        skipped: &mut Vec<Skipped>,
    ) -> Option<Operation> {
        if !op.is_object() {
            self.error(
                codes::INVALID_SPEC,
                at,
                format!("{method} {path} must be an object"),
                "describe the operation as an object",
            );
            return None;
        }
        let mut parameters = shared.to_vec();
        for p in self.parameters(op.get("parameters"), &join_pointer(at, "parameters")) {
            // Operation-level parameters override path-level ones with the same name and location.
            parameters.retain(|q| !(q.name == p.name && q.location == p.location));
            parameters.push(p);
        }
        // Every `{name}` in the path template needs a path parameter.
        for name in template_names(path) {
            if !parameters.iter().any(|p| p.location == ParamLocation::Path && p.name == name) {
                self.report.push(
                    Diagnostic::warning(
                        codes::INVALID_SPEC,
                        format!("{method} {path}: path parameter `{name}` is not declared; assuming a required string"),
                    )
                    .at(self.file(), at)
                    .with_help(format!(
                        "declare `{{name: {name}, in: path, required: true, schema: {{type: string}}}}`"
                    )),
                );
                parameters.push(Parameter {
                    name: name.clone(),
                    location: ParamLocation::Path,
                    required: true,
                    deprecated: false,
                    schema: serde_json::json!({"type": "string"}),
                    style: Style::Simple,
                    explode: false,
                    allow_reserved: false,
                    json: false,
                    pointer: at.to_owned(),
                    credential: None,
                });
            }
        }
        let label = format!("{method} {path}");
        let body = match op.get("requestBody") {
            Some(raw) => match self.request_body(raw, &join_pointer(at, "requestBody")) {
                Ok(body) => body,
                Err(reason) => {
                    self.report.push(
                        Diagnostic::warning(codes::UNSUPPORTED_MEDIA_TYPE, format!("{label} is left out: {reason}"))
                            .at(self.file(), join_pointer(at, "requestBody"))
                            .with_help("offer an application/json, form or text body to make it a tool"),
                    );
                    skipped.push(Skipped {
                        operation: label,
                        operation_id: str_at(op, "operationId").map(str::to_owned),
                        reason,
                    });
                    return None;
                }
            },
            None => None,
        };
        let success = self.success(op.get("responses"), &join_pointer(at, "responses"));
        let accepted = self.accepted(op.get("responses"), &join_pointer(at, "responses"));
        let security = match op.get("security") {
            Some(v) => self.security(Some(v), &join_pointer(at, "security")),
            None => global_security.clone(),
        };
        let extensions = op
            .as_object()
            .map(|m| m.iter().filter(|(k, _)| k.starts_with("x-")).map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        Some(Operation {
            method,
            path: path.to_owned(),
            operation_id: text_at(op, "operationId"),
            summary: text_at(op, "summary"),
            description: text_at(op, "description"),
            tags: op
                .get("tags")
                .and_then(Value::as_array)
                .map(|t| t.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default(),
            deprecated: op.get("deprecated") == Some(&Value::Bool(true)),
            parameters,
            body,
            success,
            accepted,
            security: security.alternatives,
            scopes: security.scopes,
            pointer: at.to_owned(),
            extensions,
        })
    }

    fn parameters(&mut self, value: Option<&'d Value>, at: &str) -> Vec<Parameter> {
        let Some(list) = value else { return Vec::new() };
        let Some(list) = list.as_array() else {
            self.error(
                codes::INVALID_SPEC,
                at,
                "`parameters` must be a list".into(),
                "write a list of parameter objects",
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, raw) in list.iter().enumerate() {
            let Some((p, p_at)) = self.deref(raw, &format!("{at}/{i}")) else { continue };
            let (Some(name), Some(location)) = (str_at(p, "name"), str_at(p, "in")) else {
                self.error(
                    codes::INVALID_SPEC,
                    &p_at,
                    "a parameter needs `name` and `in`".into(),
                    "add `name` and `in` (path, query, header or cookie)",
                );
                continue;
            };
            let Some(location) = ParamLocation::parse(location) else {
                self.error(
                    codes::INVALID_SPEC,
                    &join_pointer(&p_at, "in"),
                    format!("parameter `{name}` has unknown location `{location}`"),
                    "use path, query, header or cookie",
                );
                continue;
            };
            // OpenAPI: these header parameters SHALL be ignored; transport and auth set them.
            if location == ParamLocation::Header
                && ["accept", "content-type", "authorization"].contains(&name.to_ascii_lowercase().as_str())
            {
                continue;
            }
            let (raw_schema, schema_at, json) = match (p.get("schema"), p.get("content").and_then(Value::as_object)) {
                (Some(s), _) => (Some(s), join_pointer(&p_at, "schema"), false),
                (None, Some(content)) => match content.iter().next() {
                    Some((media, m)) => (
                        m.get("schema"),
                        join_pointer(&join_pointer(&join_pointer(&p_at, "content"), media), "schema"),
                        media.contains("json"),
                    ),
                    None => (None, p_at.clone(), false),
                },
                _ => (None, p_at.clone(), false),
            };
            let mut schema = match raw_schema {
                Some(s) => self.table.normalize(s, &schema_at, self.report),
                None => serde_json::json!({"type": "string"}),
            };
            if let Value::Object(map) = &mut schema {
                if let Some(d) = text_at(p, "description") {
                    map.insert("description".to_owned(), Value::String(d));
                }
                if let Some(e) = p.get("example") {
                    map.entry("examples").or_insert_with(|| Value::Array(vec![e.clone()]));
                } else if let Some(examples) = p.get("examples").and_then(Value::as_object) {
                    let values: Vec<Value> = examples.values().filter_map(|e| e.get("value").cloned()).collect();
                    if !values.is_empty() {
                        map.entry("examples").or_insert(Value::Array(values));
                    }
                }
                if p.get("deprecated") == Some(&Value::Bool(true)) {
                    map.insert("deprecated".to_owned(), Value::Bool(true));
                }
            }
            let default_style = match location {
                ParamLocation::Query | ParamLocation::Cookie => Style::Form,
                ParamLocation::Path | ParamLocation::Header => Style::Simple,
            };
            let style = str_at(p, "style").and_then(Style::parse).unwrap_or(default_style);
            out.push(Parameter {
                name: name.to_owned(),
                location,
                // Path parameters are always required, whatever the document says.
                required: location == ParamLocation::Path || p.get("required") == Some(&Value::Bool(true)),
                deprecated: p.get("deprecated") == Some(&Value::Bool(true)),
                schema,
                style,
                explode: p.get("explode").and_then(Value::as_bool).unwrap_or(style == Style::Form),
                allow_reserved: p.get("allowReserved") == Some(&Value::Bool(true)),
                json,
                pointer: p_at,
                credential: None,
            });
        }
        out
    }

    fn request_body(&mut self, raw: &'d Value, at: &str) -> Result<Option<RequestBody>, String> {
        let Some((body, at)) = self.deref(raw, at) else { return Ok(None) };
        let Some(content) = body.get("content").and_then(Value::as_object) else { return Ok(None) };
        if content.is_empty() {
            return Ok(None);
        }
        let pick = |pred: &dyn Fn(&str) -> bool| content.iter().find(|(m, _)| pred(&m.to_ascii_lowercase()));
        let is_json = |m: &str| {
            let m = m.split(';').next().unwrap_or(m).trim();
            m == "application/json" || m.ends_with("+json") || m == "*/*"
        };
        let chosen = pick(&|m| m.starts_with("application/json"))
            .map(|c| (c, BodyEncoding::Json))
            .or_else(|| pick(&is_json).map(|c| (c, BodyEncoding::Json)))
            .or_else(|| pick(&|m| m.starts_with("application/x-www-form-urlencoded")).map(|c| (c, BodyEncoding::Form)))
            .or_else(|| pick(&|m| m.starts_with("multipart/form-data")).map(|c| (c, BodyEncoding::Multipart)))
            .or_else(|| pick(&|m| m.starts_with("text/")).map(|c| (c, BodyEncoding::Text)))
            .or_else(|| {
                // Bytes of one type (an upload): the first declared type that names one.
                pick(&|m| m.contains('/') && !m.contains('*') && !m.starts_with("multipart/"))
                    .map(|c| (c, BodyEncoding::Binary))
            });
        let Some(((media, media_obj), encoding)) = chosen else {
            let types: Vec<&str> = content.keys().map(String::as_str).collect();
            return Err(format!("request body media type {} is not supported yet", types.join(", ")));
        };
        let schema_at = join_pointer(&join_pointer(&join_pointer(&at, "content"), media), "schema");
        let schema = match media_obj.get("schema") {
            Some(s) => self.table.normalize(s, &schema_at, self.report),
            None if encoding == BodyEncoding::Text => serde_json::json!({"type": "string"}),
            None if encoding == BodyEncoding::Binary => serde_json::json!({"type": "string", "format": "binary"}),
            None => Value::Bool(true),
        };
        let media_type = if media == "*/*" { "application/json".to_owned() } else { media.clone() };
        Ok(Some(RequestBody {
            required: body.get("required") == Some(&Value::Bool(true)),
            media_type,
            encoding,
            description: text_at(body, "description"),
            schema,
            pointer: at,
        }))
    }

    /// Whether a `202` response declares a `Location` header: where the operation's progress, and
    /// in the end its result, can be read.
    fn accepted(&mut self, responses: Option<&'d Value>, at: &str) -> bool {
        let Some(raw) = responses.and_then(|r| r.get("202")) else { return false };
        let Some((resp, _)) = self.deref(raw, &join_pointer(at, "202")) else { return false };
        resp.get("headers")
            .and_then(Value::as_object)
            .is_some_and(|h| h.keys().any(|k| k.eq_ignore_ascii_case("location")))
    }

    /// The first 2xx response (by status code), or `default` if there is none.
    fn success(&mut self, responses: Option<&'d Value>, at: &str) -> Option<Response> {
        let map = responses?.as_object()?;
        let mut codes: Vec<&String> = map.keys().filter(|k| k.starts_with('2')).collect();
        codes.sort();
        let status = codes.first().copied().or_else(|| map.keys().find(|k| *k == "default"))?;
        let raw = &map[status.as_str()];
        let (resp, resp_at) = self.deref(raw, &join_pointer(at, status))?;
        let content = resp.get("content").and_then(Value::as_object);
        let json = content.and_then(|c| {
            c.iter().find(|(m, _)| {
                let m = m.to_ascii_lowercase();
                m.starts_with("application/json") || m.contains("+json") || m == "*/*"
            })
        });
        let (media_type, schema) = match json {
            Some((media, obj)) => {
                let schema_at = join_pointer(&join_pointer(&join_pointer(&resp_at, "content"), media), "schema");
                let schema = obj.get("schema").map(|s| self.table.normalize(s, &schema_at, self.report));
                (Some(media.clone()), schema)
            }
            None => (content.and_then(|c| c.keys().next().cloned()), None),
        };
        Some(Response { status: status.clone(), description: text_at(resp, "description"), media_type, schema })
    }
}

/// The `{name}` placeholders of a path template, in order.
pub fn template_names(path: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        let Some(len) = rest[start..].find('}') else { break };
        names.push(rest[start + 1..start + len].to_owned());
        rest = &rest[start + len + 1..];
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{SourceInput, Sources, load_spec};
    use serde_json::json;

    fn api(text: &str) -> (Api, Report) {
        let mut report = Report::new();
        let mut sources = Sources::default();
        let input = SourceInput::Text { name: "spec.yaml".into(), text: text.into() };
        let doc = load_spec(&input, &mut sources, &mut report).unwrap();
        let api = resolve(&doc, &mut report);
        (api, report)
    }

    #[test]
    fn a_202_with_a_location_is_a_long_running_operation() {
        let (api, report) = api(r#"
openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /renders:
    post:
      responses:
        '202': {$ref: '#/components/responses/Accepted'}
  /imports:
    post:
      responses:
        '202': {description: queued}
  /exports:
    post:
      responses:
        '200': {description: done}
        '202': {description: later, headers: {location: {schema: {type: string}}}}
components:
  responses:
    Accepted: {description: accepted, headers: {Location: {schema: {type: string}}}}
"#);
        assert!(report.is_empty(), "{report}");
        let accepted: Vec<(&str, bool)> = api.operations.iter().map(|o| (o.path.as_str(), o.accepted)).collect();
        assert_eq!(accepted, [("/exports", true), ("/imports", false), ("/renders", true)]);
        assert_eq!(api.operations[0].success.as_ref().unwrap().status, "200", "the final answer, not the acceptance");
    }

    #[test]
    fn parameters_merge_and_refs_resolve() {
        let (api, report) = api(r#"
openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /pets/{id}:
    parameters:
      - {name: id, in: path, schema: {type: integer}}
      - {name: verbose, in: query, schema: {type: boolean}}
    get:
      parameters:
        - $ref: '#/components/parameters/Verbose'
      responses:
        '200':
          $ref: '#/components/responses/Pet'
components:
  parameters:
    Verbose: {name: verbose, in: query, required: true, schema: {type: string}}
  responses:
    Pet:
      description: ok
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Pet'}
  schemas:
    Pet: {type: object, properties: {id: {type: integer, readOnly: true}}}
"#);
        assert!(report.is_empty(), "{report}");
        let op = &api.operations[0];
        assert_eq!(op.parameters.len(), 2);
        assert!(op.parameters[0].required, "path parameters are required");
        assert_eq!(op.parameters[1].schema, json!({"type": "string"}));
        assert!(op.parameters[1].required);
        let success = op.success.as_ref().unwrap();
        assert_eq!(success.schema, Some(json!({"$ref": "#/$defs/Pet"})));
        assert!(api.defs.get("Pet").is_some());
    }

    #[test]
    fn unsupported_bodies_are_skipped_with_a_reason() {
        let (api, report) = api(r#"
openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /upload:
    post:
      requestBody:
        content:
          multipart/mixed: {schema: {type: string}}
      responses: {'204': {description: done}}
"#);
        assert!(api.operations.is_empty());
        assert_eq!(api.skipped.len(), 1);
        assert_eq!(report.diagnostics[0].code, codes::UNSUPPORTED_MEDIA_TYPE);
    }

    #[test]
    fn templates() {
        assert_eq!(template_names("/a/{b}/c/{d}"), vec!["b", "d"]);
    }
}
