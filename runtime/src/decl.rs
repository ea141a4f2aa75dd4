//! The declarations generated code is made of: plain `'static` data describing the server, each
//! tool's upstream mapping and the security schemes. No behaviour lives here; the generated crate
//! only fills these in, so it compiles fast however many tools it has.

/// Everything the runtime needs to serve one API.
#[derive(Debug)]
pub struct ServerDecl {
    /// Short name, e.g. `petstore`.
    pub name: &'static str,
    /// Crate and binary name, e.g. `petstore-mcp`.
    pub crate_name: &'static str,
    pub title: &'static str,
    pub version: &'static str,
    pub api_version: &'static str,
    /// Server instructions (CONTRACT T7).
    pub instructions: Option<&'static str>,
    /// Prefix of every environment variable, e.g. `PETSTORE`.
    pub env_prefix: &'static str,
    /// The spec's first absolute server URL.
    pub default_upstream: Option<&'static str>,
    /// `tools.json`: the exact `{"tools": [...]}` payload served on `tools/list`.
    pub catalog: &'static str,
    /// Sorted by name, in `catalog` order.
    pub tools: &'static [&'static ToolDecl],
    pub schemes: &'static [SchemeDecl],
    /// Named subsets of the tools, each served on `<base path>/<name>`.
    pub toolsets: &'static [ToolsetDecl],
    /// Provider variants of the catalog (`tools.<variant>.json`), each servable on
    /// `<base path>/<name>`; calls are validated against `catalog`'s schemas whatever the caller saw.
    pub variants: &'static [VariantDecl],
    /// The current contract's version name (`v1`, or one past the newest kept version): served
    /// at `/mcp/<name>` by default.
    pub contract_version: &'static str,
    /// Earlier contract versions still served, each beside the current one (CONTRACT V5).
    pub versions: &'static [VersionDecl],
    /// How the base endpoint lists the tools (overlay `server.exposure`; `serve --exposure`).
    pub exposure: Exposure,
    /// `search.json`: the tool search's index (`mcp_gen_search::Index`), built by the compiler.
    pub search: &'static str,
}

/// How an endpoint offers a catalog to a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exposure {
    /// Every tool, listed.
    Flat,
    /// Three tools (`search_tools`, `describe_tools`, `call_tool`) that reach every tool: for
    /// catalogs larger than a model chooses well from, or than a provider accepts.
    Discover,
}

impl Exposure {
    pub fn parse(name: &str) -> Option<Exposure> {
        match name {
            "flat" => Some(Exposure::Flat),
            "discover" => Some(Exposure::Discover),
            _ => None,
        }
    }
}

/// An earlier contract version: its own catalog and tool mappings, served at `/mcp/<name>` and
/// validated against its own schemas, calling the same upstream.
#[derive(Debug)]
pub struct VersionDecl {
    pub name: &'static str,
    /// `{"tools": [...]}`, sorted by name.
    pub catalog: &'static str,
    /// In `catalog` order.
    pub tools: &'static [&'static ToolDecl],
}

/// One provider variant of the catalog: the same tools, with schemas a provider accepts.
#[derive(Debug)]
pub struct VariantDecl {
    pub name: &'static str,
    /// `{"tools": [...]}` in catalog order.
    pub catalog: &'static str,
}

/// A named subset of the tools with its own endpoint.
#[derive(Debug)]
pub struct ToolsetDecl {
    pub name: &'static str,
    pub description: Option<&'static str>,
    /// Tool names, sorted.
    pub tools: &'static [&'static str],
}

/// How one tool maps to its upstream operation. Its contract (schemas, annotations) is in
/// `ServerDecl::catalog`.
#[derive(Debug)]
pub struct ToolDecl {
    pub name: &'static str,
    pub method: Method,
    /// Path template, e.g. `/pets/{petId}`.
    pub path: &'static str,
    pub args: &'static [ArgDecl],
    /// Values the server always sends, each as JSON text (a split selector, overlay `fixed`).
    pub fixed: &'static [FixedDecl],
    pub body: Option<BodyDecl>,
    /// Arguments not declared in `args` are body properties (the body allows additional ones).
    pub rest_to_body: bool,
    /// Security alternatives, each a set of scheme names that must all be satisfied.
    pub security: &'static [&'static [&'static str]],
    /// OAuth scope alternatives a caller's token must satisfy (every scope of one of them) to
    /// see and call the tool; empty when any authenticated caller may.
    pub scopes: &'static [&'static [&'static str]],
    /// The tool that lists the ids this tool's last path parameter takes (for 404 recovery).
    pub list_tool: Option<&'static str>,
    /// Where the tool's idempotency key comes from; `None` for reads and for tools the overlay
    /// declares keyless (CONTRACT R2, R7).
    pub idempotency: Option<KeyDecl>,
    /// Further operations this one tool serves (an overlay `merge`), each with its own mapping,
    /// tried in this order after this one: a call goes to the first that takes every argument
    /// given and whose required arguments are all given.
    pub merged: &'static [&'static ToolDecl],
    /// A paginated tool's next-page handles (CONTRACT H1–H5): where the upstream's cursor is in
    /// the result and which argument takes it back.
    pub handle: Option<HandleDecl>,
    /// The crate's own handler runs the tool (native mode) instead of the upstream operation;
    /// `method` and `path` then only name the operation the tool was made from.
    pub native: bool,
    /// The call is planned and runs only once a person approves the plan (CONTRACT R8: the
    /// overlay's `reversible: false` with `approver: human`).
    pub approval: Option<ApprovalDecl>,
    /// Values the user gives or confirms through the client (CONTRACT M1, M2).
    pub asks: &'static [AskDecl],
    /// The tool's part in long-running operations (`202 Accepted` with a `Location`).
    pub long_running: Option<LongRunning>,
    /// When the tool stops being served (a deprecation window, CONTRACT V3).
    pub sunset: Option<SunsetDecl>,
    /// The most o200k_base tokens of one result the model reads (`budget.rs`).
    pub result_budget: u32,
}

/// The end of a deprecated tool's window: after it the tool is no longer listed, and a call
/// answers `tool_retired` naming its replacement.
#[derive(Debug, Clone, Copy)]
pub struct SunsetDecl {
    /// The last day served, `YYYY-MM-DD` (UTC).
    pub until: &'static str,
    /// The end of that day, in milliseconds since the epoch.
    pub until_ms: u64,
    pub use_instead: Option<&'static str>,
}

impl SunsetDecl {
    /// Whether the window has closed at `now_ms`.
    pub fn passed(&self, now_ms: u64) -> bool {
        now_ms > self.until_ms
    }
}

/// A tool's part in long-running operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LongRunning {
    /// Its operation may answer `202 Accepted` with a `Location`: the call answers
    /// `{"status": "working", "operation": <handle>}` (a task, for clients of the tasks
    /// extension) or `{"status": "completed", "result": …}`.
    Starts,
    /// It takes an `operation` handle and reads the operation's `Location`; `method` and `path`
    /// name no operation.
    Follows,
}

/// A value the user gives (the model may leave it out) or confirms (overlay `ask`, `confirm`).
#[derive(Debug, Clone, Copy)]
pub struct AskDecl {
    /// The argument.
    pub arg: &'static str,
    /// What the user is asked; for a confirmation, what the value means.
    pub question: &'static str,
    /// The model gives the value and the user confirms it.
    pub confirm: bool,
}

/// How an irreversible tool's calls are approved.
#[derive(Debug, Clone, Copy)]
pub struct ApprovalDecl {
    /// How long a plan may wait for its approval, in seconds.
    pub ttl_secs: u64,
    /// A CEL expression over the arguments that approves a call by itself (`approver: auto`);
    /// a call it does not approve waits for a person.
    pub auto_if: Option<&'static str>,
}

impl ToolDecl {
    /// The upstream operation as messages and logs name it: `POST /v1/invoices`.
    pub fn operation(&self) -> String {
        format!("{} {}", self.method.as_str(), self.path)
    }

    /// The argument that takes a handle back, when the tool's pages are announced in the
    /// upstream's `Link` header (its handles open to a query, not a parameter value).
    pub fn link_cursor(&self) -> Option<&'static str> {
        self.handle.filter(|h| h.link).map(|h| h.cursor)
    }
}

/// Next-page handles of one tool.
#[derive(Debug, Clone, Copy)]
pub struct HandleDecl {
    /// The argument that takes a handle back (the upstream's cursor parameter).
    pub cursor: &'static str,
    /// JSON Pointer to the upstream's next cursor in the result.
    pub next: &'static str,
    /// How long a handle stays valid (H2).
    pub ttl_secs: u64,
    /// The next page's address is in the upstream's `Link` header, not its body: the result is
    /// `{"items": <body>, "next_cursor": <the next link's query>}`, and the cursor argument's
    /// handle opens to that query, sent again over the call's own parameters.
    pub link: bool,
}

/// A side-effecting tool's idempotency key (CONTRACT R2–R5).
#[derive(Debug, Clone, Copy)]
pub struct KeyDecl {
    pub source: KeySource,
    /// How long a completed call is remembered, in seconds (R5).
    pub ttl_secs: u64,
    /// The upstream header a natural key is forwarded in (a caller key travels as its argument).
    pub forward_header: Option<&'static str>,
}

#[derive(Debug, Clone, Copy)]
pub enum KeySource {
    /// The model passes the key in this argument.
    Caller { arg: &'static str },
    /// The server derives the key from these arguments' values and the current window.
    Natural { fields: &'static [&'static str], window: Window },
}

/// The period a natural key stays the same in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    Seconds(u64),
    /// A calendar day at a fixed offset from UTC (e.g. a business day in Istanbul: +180).
    Day {
        offset_minutes: i32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
            Method::Patch => "PATCH",
            Method::Trace => "TRACE",
        }
    }
}

/// One argument of a tool and where it goes upstream.
#[derive(Debug)]
pub struct ArgDecl {
    /// The argument's name in the tool input.
    pub name: &'static str,
    pub target: Target,
    /// The operation needs it (what chooses among a merged tool's operations).
    pub required: bool,
}

/// An upstream value the model does not choose.
#[derive(Debug)]
pub struct FixedDecl {
    pub target: Target,
    /// The value as JSON text.
    pub value: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Path {
        name: &'static str,
        style: Style,
        explode: bool,
    },
    Query {
        name: &'static str,
        style: Style,
        explode: bool,
        allow_reserved: bool,
        json: bool,
    },
    Header {
        name: &'static str,
        json: bool,
    },
    Cookie {
        name: &'static str,
        json: bool,
    },
    /// A top-level property of the request body.
    BodyField(&'static str),
    /// The whole request body.
    Body,
    /// Kept by the server, not sent upstream (an idempotency key the upstream does not take).
    Local,
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

#[derive(Debug, Clone, Copy)]
pub struct BodyDecl {
    pub media_type: &'static str,
    pub encoding: Encoding,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Json,
    Form,
    /// `multipart/form-data`; the named fields are files, passed as base64 text.
    Multipart {
        files: &'static [&'static str],
    },
    Text,
    /// The body is one file, passed as base64 text.
    Binary,
}

/// An upstream security scheme and the environment variables holding its secret.
#[derive(Debug)]
pub struct SchemeDecl {
    pub name: &'static str,
    pub kind: SchemeKind,
    /// One variable, or username and password for basic auth.
    pub env: &'static [&'static str],
}

#[derive(Debug, Clone, Copy)]
pub enum SchemeKind {
    ApiKey {
        location: KeyLocation,
        name: &'static str,
    },
    Bearer,
    Basic,
    /// OAuth 2 client credentials: the server fetches its own token at `token_url` (relative to
    /// the upstream's origin when it is not absolute) with the client id and secret from the
    /// environment, and refreshes it before it expires. A static token in the first variable
    /// wins.
    ClientCredentials {
        token_url: &'static str,
        scopes: &'static [&'static str],
    },
    /// A credential the description does not declare (overlay `server.credentials`): sent
    /// with every call, whatever the tool's security, as `prefix` and a space before the secret.
    Always {
        location: KeyLocation,
        name: &'static str,
        prefix: Option<&'static str>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyLocation {
    Header,
    Query,
    Cookie,
}
