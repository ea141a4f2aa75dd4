//! The catalog's data model: what the plan stage decides for the whole server and each tool
//! (names, annotations, arguments and where they go upstream, keys, pagination, effects), which
//! every later stage reads. The schema stage adds each tool's schemas (`schema::Tool`).

use serde_json::Value;

use super::{deprecation, retry};
use crate::resolve::{BodyEncoding, Defs, Method, SchemeKind, Style};

/// The contract of the whole server. The plan stage makes it with planned tools (`Catalog`);
/// the schema stage gives each its schemas (`schema::Catalog`): what `tools.json` holds, what
/// the linter, the token counter and the emitter all read.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog<T = Tool> {
    pub server: ServerInfo,
    /// Sorted by name (T5).
    pub tools: Vec<T>,
    /// Security schemes the tools use, with the environment variables that hold their secrets.
    pub schemes: Vec<Scheme>,
    /// The spec's first absolute server URL.
    pub default_upstream: Option<String>,
    pub excluded: Vec<Exclusion>,
    /// Named subsets of the tools, each served on its own endpoint; sorted by name.
    pub toolsets: Vec<Toolset>,
    /// The overlay's token budget (T6).
    pub budget: Option<crate::overlay::Budget>,
    pub defs: Defs,
    pub source: SourceInfo,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolset {
    pub name: String,
    pub description: Option<String>,
    /// Tool names, sorted.
    pub tools: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceInfo {
    /// File name of the spec (no directories, so output does not depend on where it lives).
    pub file_name: String,
    pub api_title: String,
    pub api_version: String,
    /// The description cannot say `null` (Swagger 2.0, OpenAPI 3.0): answers' fields may be
    /// `null` wherever the description types them (`schema::nulls`).
    pub answers_admit_null: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    /// Short name, e.g. `petstore`.
    pub name: String,
    /// `<name>-mcp`: the crate and binary.
    pub crate_name: String,
    pub title: String,
    pub instructions: Option<String>,
    /// Prefix of every environment variable the server reads, e.g. `PETSTORE`.
    pub env_prefix: String,
    /// How the main endpoint offers the tools (overlay `server.exposure`).
    pub exposure: crate::overlay::Exposure,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

impl Annotations {
    /// From the method's HTTP semantics (RFC 9110 safe and idempotent methods). PUT and PATCH
    /// overwrite stored state, which MCP counts as a destructive update (D4: never understate).
    pub fn from_method(method: Method) -> Self {
        let (read_only, destructive, idempotent) = match method {
            Method::Get | Method::Head | Method::Options | Method::Trace => (true, false, true),
            Method::Post => (false, false, false),
            Method::Put => (false, true, true),
            Method::Patch => (false, true, false),
            Method::Delete => (false, true, true),
        };
        // A proxied API is a closed domain: the tool acts on that service's own data.
        Annotations { read_only, destructive, idempotent, open_world: false }
    }
}

/// A value the user gives or confirms through the client (M1, M2).
#[derive(Debug, Clone, PartialEq)]
pub struct Ask {
    /// The argument, by the name the model sees.
    pub arg: String,
    /// What the user is asked; for a confirmation, what the value means.
    pub question: String,
    /// The model gives the value and the user confirms it (otherwise the user gives it).
    pub confirm: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    /// What gave the name (CONTRACT T1): a naming rule of `naming::ID_RULES` or
    /// `naming::SNAKE_RULES`, or `route`, `odata`, `scoped`, `summary`, `operation_id`,
    /// `verb_route`, `overlay`, `split`, `alias`, `status_tool`; then any step after it
    /// (`+shortened`, `+hashed`, `+in_context`, `+numbered`).
    pub name_rule: String,
    pub title: String,
    pub description: String,
    pub annotations: Annotations,
    pub operation: OperationRef,
    pub args: Vec<Arg>,
    pub body: Option<BodyPlan>,
    /// What unknown arguments are: `None` rejects them; a schema sends them in the body.
    pub rest: Option<Value>,
    /// The success response's schema (normalised, before `$defs` assembly).
    pub output: Option<Value>,
    /// Security alternatives (scheme names); empty when the operation needs none.
    pub security: Vec<Vec<String>>,
    /// OAuth scope alternatives a caller's token must satisfy (all scopes of one of them); empty
    /// when any authenticated caller may use the tool.
    pub scopes: Vec<Vec<String>>,
    /// The tool whose results carry the ids this tool's last path parameter takes.
    pub list_tool: Option<String>,
    /// Arguments with a value the server always sends (a split selector, overlay `fixed`).
    pub fixed: Vec<Fixed>,
    /// Optional arguments the overlay hid: never sent.
    pub hidden: Vec<Arg>,
    /// Values the user gives or confirms (overlay `ask`, `confirm`; M1, M2), by argument name.
    pub asks: Vec<Ask>,
    /// What the team stated about the tool's effects (overlay `effects`; R9).
    pub effects: Option<crate::overlay::Effects>,
    /// The rule that approves calls by itself (overlay `approval.auto_if`; R8).
    pub approval_rule: Option<String>,
    pub pagination: Option<Pagination>,
    /// The idempotency key of a side-effecting tool (R2); `None` for reads and keyless tools.
    pub key: Option<retry::Key>,
    /// Where the tool was declared (overlay or spec extension), for lint locations.
    pub declared: Option<(String, String)>,
    /// Lint codes the team accepted for this tool.
    pub allow: Option<Vec<String>>,
    /// A merged tool's operations, each planned as a tool of its own, in the order the server
    /// tries them (the first is this tool's `operation`); empty for every other tool.
    pub routes: Vec<Tool>,
    /// Who runs the tool, as the overlay declares it (`run`, or `defaults.run`).
    pub run: Option<crate::overlay::Run>,
    /// The crate's own handler runs the tool (a native build), not the upstream operation.
    pub native: bool,
    /// A tool made from JSON Schema files: its input file, as the overlay names it. Its
    /// `operation` is then a stand-in that nothing calls.
    pub schema_file: Option<String>,
    /// The tool's part in long-running operations (a `202 Accepted` with a `Location`).
    pub long_running: Option<LongRunning>,
    /// What a long-running operation's `202` answer holds, when the spec says.
    pub accepted_output: Option<Value>,
    /// When the tool stops being served (overlay `deprecated`, or an alias; CONTRACT V3).
    pub sunset: Option<deprecation::Sunset>,
    /// Earlier names served as deprecated aliases, each until its day.
    pub aliases: Vec<(String, deprecation::Sunset)>,
    /// What the tool search indexes about the tool: far more than the model is shown
    /// (`search_text::fill`).
    pub search_text: super::search_text::SearchText,
    /// The most tokens of one result the model reads (overlay `max_result_tokens`).
    pub result_budget: u32,
    /// The spec's example of each argument that has one, by where it goes upstream (a rename
    /// does not lose it), taken before the schemas are made brief: `input-examples.json`.
    pub examples: Vec<(Target, Value)>,
}

/// A tool's part in long-running operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LongRunning {
    /// Its operation may be accepted to run on: the call answers the status and a handle.
    Starts,
    /// It follows an operation by its handle (one per catalog, made by the compiler).
    Follows,
}

impl Tool {
    /// What calls upstream: a merged tool's routes, or the tool itself.
    pub fn calls(&self) -> &[Tool] {
        if self.routes.is_empty() { std::slice::from_ref(self) } else { &self.routes }
    }

    /// [`Tool::calls`], to change them.
    pub fn calls_mut(&mut self) -> &mut [Tool] {
        if self.routes.is_empty() { std::slice::from_mut(self) } else { &mut self.routes }
    }

    /// The operations this tool calls: its routes', or its own.
    pub fn operations(&self) -> impl Iterator<Item = &OperationRef> {
        self.calls().iter().map(|r| &r.operation)
    }

    /// `GET /pets`, as diagnostics name an operation.
    pub fn operation_label(&self) -> String {
        format!("{} {}", self.operation.method, self.operation.path)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationRef {
    pub method: Method,
    pub path: String,
    pub operation_id: Option<String>,
    pub pointer: String,
}

/// An argument the model does not see: the server sends `value`.
#[derive(Debug, Clone, PartialEq)]
pub struct Fixed {
    pub arg: Arg,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pagination {
    /// The argument that takes the cursor.
    pub cursor: String,
    /// JSON Pointer to the next cursor in the result.
    pub next: Option<String>,
    pub limit: Option<String>,
    /// How long a next-page handle stays valid, when the server hands out handles for the
    /// upstream's cursors (H1, H2).
    pub handle_ttl_secs: Option<u64>,
    /// The next page's address is in the `Link` header: the result is the body under `items`
    /// beside `next_cursor` (runtime `link.rs`).
    pub link: bool,
}

impl Pagination {
    /// Where the server puts a handle in the result and how long it lasts, when it hands them
    /// out (H1).
    pub fn handle(&self) -> Option<(&str, u64)> {
        Some((self.next.as_deref()?, self.handle_ttl_secs?))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Arg {
    /// The argument's name in the tool's input.
    pub name: String,
    pub target: Target,
    pub required: bool,
    pub schema: Value,
}

/// Where an argument goes in the upstream request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Path {
        name: String,
        style: Style,
        explode: bool,
    },
    Query {
        name: String,
        style: Style,
        explode: bool,
        allow_reserved: bool,
        json: bool,
    },
    Header {
        name: String,
        json: bool,
    },
    Cookie {
        name: String,
        json: bool,
    },
    /// A top-level property of the request body.
    BodyField {
        name: String,
    },
    /// The whole request body.
    Body,
    /// Kept by the server, not sent upstream (an idempotency key the API does not take).
    Local,
}

impl Target {
    /// Whether a `place.name` key (`body.action`, `query.cursor`, `header.X-Mode`, as overlay
    /// `fixed` keys write them) names this target; header names are case-insensitive.
    pub fn is_keyed(&self, key: &str) -> bool {
        match (key.split_once('.'), self) {
            (Some(("body", f)), Target::BodyField { name })
            | (Some(("query", f)), Target::Query { name, .. })
            | (Some(("path", f)), Target::Path { name, .. })
            | (Some(("cookie", f)), Target::Cookie { name, .. }) => name == f,
            (Some(("header", f)), Target::Header { name, .. }) => name.eq_ignore_ascii_case(f),
            _ => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyPlan {
    pub media_type: String,
    pub encoding: BodyEncoding,
    pub required: bool,
    /// Multipart fields that carry files (their arguments are base64 strings).
    pub files: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scheme {
    pub name: String,
    pub kind: SchemeKind,
    /// Environment variables holding the secret: one, or username and password for basic.
    pub env: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exclusion {
    pub operation: String,
    pub operation_id: Option<String>,
    pub reason: String,
}
