//! Stage 3, overlay: the team's tool intents, validated against the `Api`. Format v1 (YAML or
//! JSON): server identity and instructions, exclusions, and per-tool names, titles and
//! descriptions, each targeting an operation by operationId or `METHOD /path`. Unknown keys,
//! targets that match nothing, and entries that are never used are diagnostics; the overlay never
//! silently does nothing.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::Value;

use crate::diag::{Diagnostic, Report, codes, join_pointer};
use crate::resolve::{Api, Method, Operation};

/// An mcp-gen overlay (format v1): the team's tool intents for one API description.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "mcp-gen overlay v1")]
pub struct Overlay {
    /// Format version; must be 1.
    #[serde(rename = "mcp-gen")]
    #[schemars(range(min = 1, max = 1))]
    pub format: u32,
    #[serde(default)]
    pub server: ServerOverlay,
    /// Operations to leave out. Each entry is an operationId, `METHOD /path` (the path may use
    /// `*` for one segment and `**` for any number; the method may be `*`), `tag:NAME`,
    /// `path:GLOB` or `method:METHOD`.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Operations to keep although they look internal, meta or deprecated (T4 leaves those out
    /// by default), written like `exclude` entries. An explicit `exclude` wins over a rule here.
    #[serde(default)]
    pub include: Vec<String>,
    /// Token budget of the catalog (CONTRACT T6), checked by `mcp-gen lint` and `mcp-gen tokens`.
    pub budget: Option<Budget>,
    /// Settings every tool starts from.
    #[serde(default)]
    pub defaults: Defaults,
    /// Named toolsets, each served on its own endpoint (`/mcp/v1/<toolset>`).
    #[serde(default)]
    pub toolsets: BTreeMap<String, ToolsetOverlay>,
    /// Tools by name. Several tools may target one operation when each fixes a different value
    /// (`fixed`): that splits a mega-endpoint into atomic tools (CONTRACT T2).
    #[serde(default)]
    pub tools: BTreeMap<String, ToolOverlay>,
    /// Corrections to the description itself, applied to the document as written before
    /// anything reads it: where the API answers other than its description says (what
    /// `mcp-gen verify --write-overlay` writes).
    #[serde(default)]
    pub patches: Vec<Patch>,
}

pub use crate::load::patch::Patch;

/// The server's identity and instructions.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerOverlay {
    /// Short name of the server; the crate is `<name>-mcp`.
    pub name: Option<String>,
    /// Human title of the server.
    pub title: Option<String>,
    /// Server instructions sent to clients (CONTRACT T7): what the server is for and general
    /// context such as the auth scope; not a list of tools.
    pub instructions: Option<String>,
    /// How the main endpoint offers the tools (`flat` when absent; the binary's `serve
    /// --exposure` overrides it). Toolset endpoints list their tools in every mode.
    pub exposure: Option<Exposure>,
    /// Upstream credentials the description does not declare, sent with every call (CONTRACT
    /// S2): read from an environment variable, never an argument, never logged.
    #[serde(default)]
    pub credentials: Vec<Credential>,
}

/// One `server.credentials` entry: where the secret goes (exactly one of `header`, `query`,
/// `cookie`), what comes before it, and the variable that holds it.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Credential {
    /// Sent as this request header (`Authorization`, `X-Api-Key`).
    pub header: Option<String>,
    /// Sent as this query parameter.
    pub query: Option<String>,
    /// Sent as this cookie.
    pub cookie: Option<String>,
    /// Written before the secret, with a space: `token` gives `Authorization: token <secret>`.
    pub prefix: Option<String>,
    /// The environment variable holding the secret (`JUPYTER_TOKEN`).
    pub env: String,
}

/// `server.exposure`.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Exposure {
    /// Every tool, listed: for catalogs a model chooses well from and a provider accepts.
    #[default]
    Flat,
    /// Three tools, `search_tools`, `describe_tools` and `call_tool`, that reach every tool
    /// through a search index compiled into the server: for large APIs.
    Discover,
}

impl Exposure {
    pub fn name(self) -> &'static str {
        match self {
            Exposure::Flat => "flat",
            Exposure::Discover => "discover",
        }
    }
}

/// Settings every tool starts from.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// How long a side-effecting call's result is remembered and replayed (CONTRACT R5), e.g.
    /// `15m`, `24h`, `7d`; 24h when absent. Keep it longer than any client retries.
    pub idempotency_ttl: Option<String>,
    /// Where the idempotency key is sent upstream so the API can dedupe too (R6):
    /// `header.NAME` (the default is `header.Idempotency-Key`), `body.FIELD`, `query.NAME`, or
    /// `none` when the API takes no key.
    pub idempotency_forward: Option<String>,
    /// How long a next-page handle stays valid (CONTRACT H1, H2), e.g. `15m` (the default).
    pub handle_ttl: Option<String>,
    /// Who runs the tools of a native build (build.rs `.native()`, `mcp-gen build --native`):
    /// `native` (the default there: the crate's own handlers) or `proxy` (the upstream). A
    /// proxy build runs every tool upstream and refuses `native`.
    pub run: Option<Run>,
    /// Whether reads whose results say where the next page starts get next-page handles without
    /// a `paginate` entry (a cursor argument the response hands back, such as `page_token` and
    /// `next_page_token`); true when absent. A tool's own `paginate` always wins.
    pub detect_pagination: Option<bool>,
    /// The annotation profile: `standard` (the default: each hint as the effect is) or `confirm`,
    /// for hosts that ask the user before a tool with `destructiveHint` or `openWorldHint`: every
    /// state-changing tool is then destructive, and every one that sends something outside the
    /// API (a message, a mail, a payment, a publication) open-world.
    pub annotations: Option<AnnotationProfile>,
    /// The most o200k_base tokens of one result the model reads: a list over it is cut at an
    /// item boundary (the rest a next-page handle away where the tool pages), an object leaves
    /// out its largest optional parts. 8000 when absent; at least 500.
    pub max_result_tokens: Option<u32>,
}

/// `defaults.annotations`.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AnnotationProfile {
    #[default]
    Standard,
    Confirm,
}

/// Who runs a tool (overlay `run`, `defaults.run`).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Run {
    /// The crate's own handler, behind the generated handler trait.
    Native,
    /// The upstream operation the tool was made from.
    Proxy,
}

/// Idempotency settings for the whole API, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyDefaults {
    pub ttl_secs: u64,
    pub forward: Forward,
}

impl Default for KeyDefaults {
    fn default() -> Self {
        KeyDefaults { ttl_secs: 86_400, forward: Forward::Header("Idempotency-Key".to_owned()) }
    }
}

/// Where an idempotency key goes upstream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Forward {
    Header(String),
    Body(String),
    Query(String),
    None,
}

impl Forward {
    pub fn parse(text: &str) -> Option<Forward> {
        if text == "none" {
            return Some(Forward::None);
        }
        let (place, name) = text.split_once('.')?;
        if name.is_empty() {
            return None;
        }
        match place {
            "header" => Some(Forward::Header(name.to_owned())),
            "body" => Some(Forward::Body(name.to_owned())),
            "query" => Some(Forward::Query(name.to_owned())),
            _ => None,
        }
    }
}

/// A duration such as `90s`, `15m`, `24h` or `7d`, in seconds.
/// A next-page handle's lifetime (`defaults.handle_ttl`, `paginate.handle_ttl`), or the
/// diagnostic to place where it was written.
pub fn handle_ttl(text: &str) -> Result<u64, Box<Diagnostic>> {
    match parse_duration(text) {
        Some(secs) if secs > 0 => Ok(secs),
        _ => Err(Box::new(
            Diagnostic::error(codes::OVERLAY, format!("handle_ttl `{text}` is not a duration"))
                .with_help("write a number and a unit: `90s`, `15m` or `1h`"),
        )),
    }
}

pub fn parse_duration(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (n, unit) = text.split_at(split);
    let n: u64 = n.parse().ok().filter(|n| *n > 0)?;
    let scale = match unit.trim() {
        "s" => 1,
        "m" | "min" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => return None,
    };
    n.checked_mul(scale)
}

/// o200k_base token limits (CONTRACT T6).
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// Tokens of the whole catalog (names, descriptions and inputSchemas).
    pub total: Option<u64>,
    /// Tokens of any one tool.
    pub per_tool: Option<u64>,
}

/// A named subset of the tools, served on its own endpoint.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolsetOverlay {
    /// What the toolset is for (its endpoint's server instructions).
    pub description: Option<String>,
    /// Tool names, or operation rules written like `exclude` entries (every tool made from a
    /// matching operation belongs to the toolset).
    pub tools: Vec<String>,
}

/// One tool: the operation it calls and what the model reads about it.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolOverlay {
    /// operationId, or `METHOD /path`. Left out for a native tool whose contract is a JSON
    /// Schema file (`input`) rather than an operation of the spec.
    #[serde(default)]
    pub operation: Option<String>,
    /// A native tool made from JSON Schema files instead of an operation: the file of its
    /// input (draft-04 to 2020-12, relative to the overlay), normalised to 2020-12 as its
    /// inputSchema. Needs `description` and a native build.
    pub input: Option<String>,
    /// The JSON Schema file of a schema tool's result (its outputSchema), relative to the overlay.
    pub output: Option<String>,
    /// Who runs the tool in a native build: `native` (the crate's own handler) or `proxy` (the
    /// upstream operation); `defaults.run` when absent.
    pub run: Option<Run>,
    /// More operations this one tool serves (operationIds or `METHOD /path`), e.g. a search by
    /// status and a search by tags as one `find_pets`. Its arguments are theirs together; a call
    /// goes to the first operation, `operation` first, that takes every argument given and whose
    /// required ones are all given. All of them read, or all of them write.
    #[serde(default)]
    pub merge: Vec<String>,
    /// A short human title (annotations.title).
    pub title: Option<String>,
    /// What the model reads: replaces the description written from the spec.
    pub description: Option<String>,
    /// Per argument (by the name mcp-gen gives it; see `mcp-gen plan`): rename, describe or hide.
    #[serde(default)]
    pub params: BTreeMap<String, ParamOverlay>,
    /// Arguments fixed to a value: left out of the inputSchema and always sent upstream with this
    /// value. Keys are argument names, or `body.FIELD`, `query.NAME`, `header.NAME`, `path.NAME`.
    #[serde(default)]
    pub fixed: BTreeMap<String, Value>,
    /// What calling the tool does (CONTRACT R2, R9, T3).
    pub effects: Option<Effects>,
    /// How the tool pages through results (CONTRACT H5).
    pub paginate: Option<Paginate>,
    /// OAuth scopes a caller's token must hold to see and call the tool, replacing those the
    /// spec's security requirements name; `[]` opens the tool to any authenticated caller.
    pub scopes: Option<Vec<String>>,
    /// A rule that approves calls by itself (CONTRACT R8, `approver: auto`): a CEL expression
    /// over the tool's arguments; a call it does not approve waits for a person.
    pub approval: Option<ApprovalRule>,
    /// Lint codes accepted for this tool (e.g. `I5-ids-and-units` for an upstream's numeric
    /// ids), so a known, reviewed finding does not hide new ones.
    #[serde(default)]
    pub allow: Vec<String>,
    /// This tool's result budget in tokens, instead of `defaults.max_result_tokens`.
    pub max_result_tokens: Option<u32>,
    /// The tool is on its way out (CONTRACT V3): served until the end of `until` (UTC) with a
    /// description that points to `use`, then no longer listed or run.
    pub deprecated: Option<Deprecation>,
    /// Earlier names of this tool (a rename, CONTRACT V3), each served as a deprecated alias,
    /// the same tool under the old name, until its date.
    #[serde(default)]
    pub aliases: Vec<Alias>,
}

/// `deprecated: {until: 2027-03-31, use: search_customers}`.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Deprecation {
    /// The last day the tool is served (`YYYY-MM-DD`, UTC).
    pub until: String,
    /// The tool that replaces it.
    #[serde(rename = "use")]
    pub use_instead: Option<String>,
}

/// `aliases: [{name: list_customers, until: 2027-03-31}]`.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Alias {
    /// The earlier name.
    pub name: String,
    /// The last day it is served (`YYYY-MM-DD`, UTC).
    pub until: String,
}

/// The end of day `date` (`YYYY-MM-DD`, UTC) in milliseconds since the epoch: when a
/// deprecation window closes.
pub fn day_end_ms(date: &str) -> Option<u64> {
    let valid = date.len() == 10 && date.as_bytes()[4] == b'-' && date.as_bytes()[7] == b'-';
    let at = humantime::parse_rfc3339(&format!("{date}T23:59:59.999Z")).ok().filter(|_| valid)?;
    u64::try_from(at.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis()).ok()
}

/// An argument's presentation.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParamOverlay {
    /// The name the model sees (the upstream name does not change).
    pub rename: Option<String>,
    /// Replaces the argument's description.
    pub description: Option<String>,
    /// Leave the argument out of the tool; it must be optional or fixed.
    #[serde(default)]
    pub hidden: bool,
    /// Make an optional argument required for this tool (e.g. a reason a rejection must give).
    #[serde(default)]
    pub required: bool,
    /// The user gives this value, not the model (CONTRACT M1): the argument is optional in the
    /// schema, and when a call leaves it out the server asks the user this question (an MRTR
    /// elicitation; clients that cannot ask get an error that says what to ask).
    pub ask: Option<String>,
    /// A consequential value the user must confirm before the call runs (CONTRACT M2).
    #[serde(default)]
    pub confirm: bool,
}

/// The three questions every side-effecting tool answers (CONTRACT R9), the key source (R2) and
/// annotation overrides (T3).
#[derive(Debug, Clone, Default, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Effects {
    /// The call changes nothing (e.g. a search sent as POST).
    pub read_only: Option<bool>,
    /// Whether the effect can be undone.
    pub reversible: Option<bool>,
    /// Who approves the effect.
    pub approver: Option<Approver>,
    /// What a repeat of the same call does.
    pub on_repeat: Option<OnRepeat>,
    /// Where the idempotency key comes from (CONTRACT R2).
    pub idempotency: Option<Idempotency>,
    /// The effect reaches beyond the API's own data (mail, payments to third parties).
    pub open_world: Option<bool>,
}

/// `approval: {auto_if: "amount <= 10000 && currency == 'USD'", else: human}`.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApprovalRule {
    /// A CEL expression over the tool's arguments (by name); true approves the call.
    pub auto_if: String,
    /// Who approves a call the rule does not: a person (the only choice).
    #[serde(rename = "else", default)]
    pub otherwise: Option<ElseApprover>,
}

/// Who approves what a rule does not.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ElseApprover {
    Human,
}

/// Who approves a side effect (CONTRACT R8, R9). Approval is never a model decision.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Approver {
    /// No approval: the call itself is enough.
    None,
    /// A rule in code decides.
    Auto,
    /// A person approves.
    Human,
}

/// What a repeat of the same call does (CONTRACT R9).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnRepeat {
    /// A repeat with the same key returns the first result (R3).
    Replay,
    /// The operation is idempotent by itself: a repeat changes nothing more.
    NoEffect,
    /// A repeat makes the effect again.
    Repeats,
}

/// The key source (CONTRACT R2).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Idempotency {
    /// `caller` (an `idempotency_key` argument) or `none`.
    Kind(KeyKind),
    /// The server derives the key from natural-key fields and a window.
    Natural {
        natural: Vec<String>,
        /// E.g. `business_day`, `24h`.
        window: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeyKind {
    Caller,
    None,
}

/// Cursor pagination.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Paginate {
    /// The argument that takes the cursor.
    pub cursor: String,
    /// JSON Pointer to the next cursor in the result, e.g. `/next_cursor`.
    pub next: Option<String>,
    /// The next page's address comes in the `Link` header (`rel="next"`), not in the body, as
    /// GitHub's, Meraki's and Mastodon's do. The result becomes `items` (the body) beside
    /// `next_cursor`, a handle to that address's query, which the cursor argument takes back.
    /// Replaces `next`.
    #[serde(default)]
    pub link_header: bool,
    /// The argument that limits the page size.
    pub limit: Option<String>,
    /// How long this tool's next-page handles stay valid, e.g. `15m`; `defaults.handle_ttl`
    /// when absent. With `next` known, the server hands out signed handles instead of the
    /// upstream's cursors (CONTRACT H1).
    pub handle_ttl: Option<String>,
}

/// The overlay format's JSON Schema (2020-12), as `mcp-gen schema overlay` prints it and
/// `schemas/overlay-v1.schema.json` publishes it.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Overlay);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// What the overlay (and `x-mcp-*` keys in the spec) ask for, checked against the API.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Intents {
    pub server: ServerOverlay,
    pub budget: Option<Budget>,
    pub keys: KeyDefaults,
    /// `defaults.handle_ttl` in seconds, when the overlay sets it.
    pub handle_ttl_secs: Option<u64>,
    /// `defaults.max_result_tokens`, checked.
    pub result_budget: Option<u32>,
    /// `defaults.detect_pagination: false`: only `paginate` entries page with handles.
    pub no_detected_pagination: bool,
    /// `defaults.annotations`.
    pub annotation_profile: AnnotationProfile,
    /// Indexes of the operations the overlay excludes.
    pub excluded: BTreeSet<usize>,
    /// Indexes of the operations the overlay keeps whatever T4 says.
    pub included: BTreeSet<usize>,
    /// Operation index → the tools the team declared for it (several when it is split).
    pub tools: BTreeMap<usize, Vec<ToolIntent>>,
    pub toolsets: Vec<ToolsetIntent>,
    /// `defaults.run`.
    pub run: Option<Run>,
    /// Tools made from JSON Schema files (native only), as declared; `generate` reads their
    /// files and makes each an operation of the API (`json_schema::attach_schema_tools`).
    pub schema_tools: Vec<SchemaTool>,
    /// Schema tool name → its input file as the overlay names it (for the plan and README).
    pub schema_files: BTreeMap<String, String>,
}

/// A tool whose contract is JSON Schema files, not an operation.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaTool {
    pub name: String,
    pub overlay: ToolOverlay,
    pub file: String,
    pub pointer: String,
}

/// Checks a JSON Schema tool's entry; what the operation-only keys would mean is refused.
fn schema_tool(file: &str, name: &str, tool: &ToolOverlay, intents: &mut Intents, report: &mut Report) {
    let at = join_pointer("/tools", name);
    let Some(_) = tool.input.as_deref() else {
        report.push(
            Diagnostic::error(codes::OVERLAY, format!("tool `{name}` names no operation and no `input` schema"))
                .at(file, &at)
                .with_help("add `operation: <operationId or METHOD /path>`, or `input: <a JSON Schema file>` for a native tool"),
        );
        return;
    };
    let mut refuse = |key: &str, why: &str| {
        report.push(
            Diagnostic::error(codes::OVERLAY, format!("tool `{name}` has `{key}`, which {why}"))
                .at(file, join_pointer(&at, key))
                .with_help("remove it: a JSON Schema tool takes its arguments as its input schema says"),
        );
    };
    if !tool.merge.is_empty() {
        refuse("merge", "needs operations");
    }
    if !tool.params.is_empty() {
        refuse("params", "renames and hides the arguments of an operation");
    }
    if !tool.fixed.is_empty() {
        refuse("fixed", "sets upstream values");
    }
    if tool.run == Some(Run::Proxy) {
        refuse("run: proxy", "needs an upstream operation");
    }
    if tool.description.as_deref().is_none_or(|d| d.trim().is_empty()) {
        report.push(
            Diagnostic::error(codes::OVERLAY, format!("tool `{name}` needs a `description`"))
                .at(file, &at)
                .with_help("write one sentence of what the tool does (D1); there is no operation to take it from"),
        );
        return;
    }
    intents.schema_tools.push(SchemaTool {
        name: name.to_owned(),
        overlay: tool.clone(),
        file: file.to_owned(),
        pointer: at,
    });
}

/// One declared tool and where it was declared.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolIntent {
    /// `None`: a spec extension that does not name the tool; the name is derived.
    pub name: Option<String>,
    pub overlay: ToolOverlay,
    /// The file and JSON Pointer of the declaration, for diagnostics.
    pub file: String,
    pub pointer: String,
    /// Declared by `x-mcp-*` keys in the spec, whose field names carry that prefix.
    pub in_spec: bool,
    /// Which of a merged tool's operations this is: 0 for `operation` (and every tool that
    /// merges nothing), `k` for the k-th entry of `merge`.
    pub route: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolsetIntent {
    pub name: String,
    pub description: Option<String>,
    /// Tool names or operation rules, each with its pointer.
    pub entries: Vec<(String, String)>,
    /// Operations placed in the toolset by `x-mcp-toolset` in the spec.
    pub operations: BTreeSet<usize>,
    pub file: String,
    pub pointer: String,
}

/// Parses an overlay value read by `load`.
pub fn parse(file: &str, value: Value, report: &mut Report) -> Option<Overlay> {
    let overlay: Overlay = match serde_path_to_error::deserialize(value) {
        Ok(o) => o,
        Err(e) => {
            let pointer = pointer_of(e.path());
            let message = e.inner().to_string();
            let help = match unknown_field_suggestion(&message) {
                Some(s) => format!("did you mean `{s}`? (the format: `mcp-gen schema overlay`)"),
                None => "see the overlay format: `mcp-gen schema overlay` prints its JSON Schema".to_owned(),
            };
            report.push(
                Diagnostic::error(codes::OVERLAY, format!("invalid overlay: {message}"))
                    .at(file, pointer)
                    .with_help(help),
            );
            return None;
        }
    };
    if overlay.format != 1 {
        report.push(
            Diagnostic::error(codes::OVERLAY, format!("overlay format `mcp-gen: {}` is not supported", overlay.format))
                .at(file, "/mcp-gen")
                .with_help("write `mcp-gen: 1`"),
        );
        return None;
    }
    Some(overlay)
}

fn pointer_of(path: &serde_path_to_error::Path) -> String {
    let mut pointer = String::new();
    for segment in path.iter() {
        match segment {
            serde_path_to_error::Segment::Map { key } => pointer = join_pointer(&pointer, key),
            serde_path_to_error::Segment::Seq { index } => pointer = format!("{pointer}/{index}"),
            serde_path_to_error::Segment::Enum { variant } => pointer = join_pointer(&pointer, variant),
            serde_path_to_error::Segment::Unknown => {}
        }
    }
    pointer
}

/// Finds the operations an overlay rule names: an operationId, `METHOD /path` (with `*` and
/// `**` globs; method `*` for any), `tag:NAME`, `path:GLOB` or `method:METHOD`.
pub fn find_operation(api: &Api, target: &str) -> Vec<usize> {
    let target = target.trim();
    let matching = |f: &dyn Fn(&Operation) -> bool| -> Vec<usize> {
        api.operations.iter().enumerate().filter(|(_, o)| f(o)).map(|(i, _)| i).collect()
    };
    if let Some(tag) = target.strip_prefix("tag:") {
        let tag = tag.trim();
        return matching(&|o| o.tags.iter().any(|t| t == tag));
    }
    if let Some(glob) = target.strip_prefix("path:") {
        let glob = glob.trim();
        return matching(&|o| glob_match(glob, &o.path));
    }
    if let Some(method) = target.strip_prefix("method:") {
        let Some(method) = Method::parse(method.trim()) else { return Vec::new() };
        return matching(&|o| o.method == method);
    }
    if let Some((method, path)) = target.split_once(' ') {
        let path = path.trim();
        let method = method.trim();
        if method == "*" {
            return matching(&|o| glob_match(path, &o.path));
        }
        if let Some(method) = Method::parse(method) {
            return matching(&|o| o.method == method && glob_match(path, &o.path));
        }
    }
    matching(&|o| o.operation_id.as_deref() == Some(target))
}

/// Whether a rule names operations by a pattern (and so may match several, or none).
pub fn is_rule(target: &str) -> bool {
    let t = target.trim();
    ["tag:", "path:", "method:"].iter().any(|p| t.starts_with(p)) || t.contains('*')
}

/// `*` matches within one path segment, `**` across segments; everything else literally.
pub fn glob_match(glob: &str, path: &str) -> bool {
    fn go(g: &[u8], p: &[u8]) -> bool {
        match g {
            [] => p.is_empty(),
            [b'*', b'*', rest @ ..] => (0..=p.len()).any(|i| go(rest, &p[i..])),
            [b'*', rest @ ..] => {
                let seg = p.iter().position(|c| *c == b'/').unwrap_or(p.len());
                (0..=seg).any(|i| go(rest, &p[i..]))
            }
            [c, rest @ ..] => p.first() == Some(c) && go(rest, &p[1..]),
        }
    }
    go(glob.as_bytes(), path.as_bytes())
}

/// For serde's "unknown field `titel`, expected one of `operation`, `title`, …", the closest
/// expected field.
fn unknown_field_suggestion(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (field, expected) = rest.split_once('`')?;
    closest(field, expected.split('`').skip(1).step_by(2).map(str::to_owned), 0.5)
}

fn suggestion(api: &Api, target: &str) -> String {
    let labels = api.operations.iter().flat_map(|o: &Operation| o.operation_id.clone().into_iter().chain([o.label()]));
    match closest(target, labels, 0.6) {
        Some(label) => format!("did you mean `{label}`?"),
        None => "name an operationId or `METHOD /path` from the spec (see `mcp-gen plan`)".to_owned(),
    }
}

/// The candidate most like `target` (case-insensitive edit distance, similarity above `min`),
/// the alphabetically first on a tie.
pub(crate) fn closest(target: &str, candidates: impl Iterator<Item = String>, min: f64) -> Option<String> {
    let len = target.chars().count();
    // Edit distance is quadratic; a target this long is no typo.
    if len > 200 {
        return None;
    }
    let target = target.to_lowercase();
    let mut best: Option<(f64, String)> = None;
    for candidate in candidates {
        let n = candidate.chars().count();
        // A similarity above `min` needs lengths that close.
        if (n.abs_diff(len) as f64) > (1.0 - min) * n.max(len) as f64 {
            continue;
        }
        let score = strsim::normalized_damerau_levenshtein(&candidate.to_lowercase(), &target);
        if score > min && best.as_ref().is_none_or(|(b, c)| score > *b || (score == *b && candidate < *c)) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// `server.credentials`: each entry names one place, a header or variable name that can be
/// sent, and a variable no other entry reads.
fn check_credentials(file: &str, at: &str, credentials: &[Credential], report: &mut Report) {
    let mut envs = BTreeSet::new();
    for (i, c) in credentials.iter().enumerate() {
        let here = format!("{at}/credentials/{i}");
        let places: Vec<&str> = [&c.header, &c.query, &c.cookie].into_iter().flatten().map(String::as_str).collect();
        let error = |message: String, help: &str| {
            Diagnostic::error(codes::OVERLAY, message).at(file, here.clone()).with_help(help.to_owned())
        };
        if places.len() != 1 {
            report.push(error(
                format!("credential {i} names {} places", places.len()),
                "give exactly one of `header`, `query` or `cookie`",
            ));
        }
        if let Some(bad) = places.iter().find(|n| n.is_empty() || !n.bytes().all(is_token_byte)) {
            report.push(error(
                format!("credential {i}: `{bad}` is not a valid header, query or cookie name"),
                "use letters, digits and `-_.` only (e.g. `Authorization`, `api_key`)",
            ));
        }
        if c.prefix.as_deref().is_some_and(|p| p.is_empty() || !p.bytes().all(is_token_byte)) {
            report.push(error(
                format!("credential {i}: prefix `{}` cannot be sent", c.prefix.as_deref().unwrap_or_default()),
                "write the scheme word alone, e.g. `token` or `Bearer`; the space is added",
            ));
        }
        let valid_env = !c.env.is_empty()
            && !c.env.starts_with(|ch: char| ch.is_ascii_digit())
            && c.env.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        if !valid_env {
            report.push(error(
                format!("credential {i}: `{}` is not an environment variable name", c.env),
                "use upper-case letters, digits and `_`, e.g. `JUPYTER_TOKEN`",
            ));
        } else if !envs.insert(c.env.as_str()) {
            report.push(error(
                format!("credential {i}: `{}` is read by an earlier credential", c.env),
                "give each credential its own variable",
            ));
        }
    }
}

/// An RFC 9110 token character: what a header name (and a scheme word) may hold.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Checks the overlay, and the `x-mcp-*` keys of the spec, against the API. The overlay file
/// wins: an operation it declares tools for ignores the spec's own keys.
pub fn apply(api: &Api, overlay: Option<(&str, &Overlay)>, report: &mut Report) -> Intents {
    let mut intents = Intents::default();
    if let Some((file, overlay)) = overlay {
        from_overlay(api, file, overlay, &mut intents, report);
    }
    from_spec(api, &mut intents, report);
    intents
}

fn from_overlay(api: &Api, file: &str, overlay: &Overlay, intents: &mut Intents, report: &mut Report) {
    intents.server = overlay.server.clone();
    check_credentials(file, "/server", &overlay.server.credentials, report);
    intents.budget = overlay.budget;
    if let Some(ttl) = &overlay.defaults.idempotency_ttl {
        match parse_duration(ttl) {
            Some(secs) => intents.keys.ttl_secs = secs,
            None => report.push(
                Diagnostic::error(codes::OVERLAY, format!("idempotency_ttl `{ttl}` is not a duration"))
                    .at(file, "/defaults/idempotency_ttl")
                    .with_help("write a number and a unit: `90s`, `15m`, `24h` or `7d`"),
            ),
        }
    }
    intents.no_detected_pagination = overlay.defaults.detect_pagination == Some(false);
    if let Some(budget) = overlay.defaults.max_result_tokens {
        match check_budget(budget) {
            Some(b) => intents.result_budget = Some(b),
            None => report.push(budget_error(budget).at(file, "/defaults/max_result_tokens")),
        }
    }
    intents.annotation_profile = overlay.defaults.annotations.unwrap_or_default();
    if let Some(ttl) = &overlay.defaults.handle_ttl {
        match handle_ttl(ttl) {
            Ok(secs) => intents.handle_ttl_secs = Some(secs),
            Err(d) => report.push(d.at(file, "/defaults/handle_ttl")),
        }
    }
    if let Some(forward) = &overlay.defaults.idempotency_forward {
        match Forward::parse(forward) {
            Some(f) => intents.keys.forward = f,
            None => report.push(
                Diagnostic::error(codes::OVERLAY, format!("idempotency_forward `{forward}` is not a place"))
                    .at(file, "/defaults/idempotency_forward")
                    .with_help("write `header.Idempotency-Key`, `body.FIELD`, `query.NAME` or `none`"),
            ),
        }
    }
    for (i, target) in overlay.exclude.iter().enumerate() {
        let found = find_operation(api, target);
        if found.is_empty()
            && !api.skipped.iter().any(|s| s.operation == *target || s.operation_id.as_deref() == Some(target))
        {
            report.push(
                Diagnostic::warning(codes::OVERLAY_UNUSED, format!("exclude entry `{target}` matches no operation"))
                    .at(file, format!("/exclude/{i}"))
                    .with_help(suggestion(api, target)),
            );
        }
        intents.excluded.extend(found);
    }
    for (i, target) in overlay.include.iter().enumerate() {
        let found = find_operation(api, target);
        if found.is_empty() {
            report.push(
                Diagnostic::warning(codes::OVERLAY_UNUSED, format!("include entry `{target}` matches no operation"))
                    .at(file, format!("/include/{i}"))
                    .with_help(suggestion(api, target)),
            );
        }
        for index in found {
            // A rule may overlap an exclusion (`tag:billing` but not `deleteInvoice`); naming the
            // same operation both ways is a contradiction.
            if intents.excluded.contains(&index) && !is_rule(target) {
                report.push(
                    Diagnostic::error(codes::OVERLAY, format!("`{target}` is both included and excluded"))
                        .at(file, format!("/include/{i}"))
                        .with_help("remove one of the two entries"),
                );
            }
            intents.included.insert(index);
        }
    }
    intents.run = overlay.defaults.run;
    for (name, tool) in &overlay.tools {
        let at = join_pointer("/tools", name);
        let Some(operation) = tool.operation.as_deref() else {
            schema_tool(file, name, tool, intents, report);
            continue;
        };
        if tool.input.is_some() || tool.output.is_some() {
            let key = if tool.input.is_some() { "input" } else { "output" };
            report.push(
                Diagnostic::error(codes::OVERLAY, format!("tool `{name}` has both `operation` and `{key}`"))
                    .at(file, join_pointer(&at, key))
                    .with_help("a tool is made from an operation of the spec or from JSON Schema files, not both"),
            );
            continue;
        }
        let found = find_operation(api, operation);
        match found.as_slice() {
            [] => report.push(
                Diagnostic::error(
                    codes::OVERLAY_UNKNOWN_TARGET,
                    format!("tool `{name}` targets `{operation}`, which is not an operation of the spec"),
                )
                .at(file, join_pointer(&at, "operation"))
                .with_help(suggestion(api, operation)),
            ),
            [index] => {
                if intents.excluded.contains(index) {
                    report.push(
                        Diagnostic::error(
                            codes::OVERLAY,
                            format!("tool `{name}` targets `{operation}`, which the overlay also excludes"),
                        )
                        .at(file, join_pointer(&at, "operation"))
                        .with_help("remove the exclude entry or the tool entry"),
                    );
                    continue;
                }
                let entries = intents.tools.entry(*index).or_default();
                // Several tools on one operation split it; each must fix what selects its behaviour.
                if let Some(other) = entries.first()
                    && (tool.fixed.is_empty()
                        || other.overlay.fixed.is_empty()
                        || entries.iter().any(|e| e.overlay.fixed == tool.fixed))
                {
                    report.push(
                        Diagnostic::error(
                            codes::OVERLAY,
                            format!(
                                "tools `{}` and `{name}` both target `{operation}` without fixing different values",
                                other.name.as_deref().unwrap_or_default(),
                            ),
                        )
                        .at(file, join_pointer(&at, "operation"))
                        .with_help("give each operation one tool entry, or split it: give each tool a different `fixed` value (e.g. `fixed: {action: approve}`)"),
                    );
                    continue;
                }
                entries.push(ToolIntent {
                    name: Some(name.clone()),
                    overlay: tool.clone(),
                    file: file.to_owned(),
                    pointer: at.clone(),
                    in_spec: false,
                    route: 0,
                });
                merged_routes(api, file, name, tool, *index, intents, report);
            }
            many => report.push(
                Diagnostic::error(
                    codes::OVERLAY,
                    format!("tool `{name}` target `{operation}` matches {} operations", many.len()),
                )
                .at(file, join_pointer(&at, "operation"))
                .with_help("target the operation as `METHOD /path` instead"),
            ),
        }
    }
    for (name, set) in &overlay.toolsets {
        let at = join_pointer("/toolsets", name);
        if !valid_toolset_name(name) {
            report.push(
                Diagnostic::error(codes::OVERLAY, format!("toolset name `{name}` is not a path segment"))
                    .at(file, &at)
                    .with_help("use lowercase letters, digits, `-` and `_` (it becomes `/mcp/v1/<toolset>`)"),
            );
            continue;
        }
        intents.toolsets.push(ToolsetIntent {
            name: name.clone(),
            description: set.description.clone(),
            entries: set.tools.iter().enumerate().map(|(i, t)| (t.clone(), format!("{at}/tools/{i}"))).collect(),
            operations: BTreeSet::new(),
            file: file.to_owned(),
            pointer: at,
        });
    }
}

/// The operations a tool's `merge` names, each declared as one more route of that tool. Each must
/// be exactly one operation that nothing else declares or excludes.
fn merged_routes(
    api: &Api,
    file: &str,
    name: &str,
    tool: &ToolOverlay,
    main: usize,
    intents: &mut Intents,
    report: &mut Report,
) {
    let at = join_pointer("/tools", name);
    let mut seen = BTreeSet::from([main]);
    for (k, target) in tool.merge.iter().enumerate() {
        let pointer = format!("{}/{k}", join_pointer(&at, "merge"));
        let found = find_operation(api, target);
        let problem = match found.as_slice() {
            [] => Some((
                format!("tool `{name}` merges `{target}`, which is not an operation of the spec"),
                suggestion(api, target),
            )),
            [index] if seen.contains(index) => Some((
                format!("tool `{name}` names `{target}` twice"),
                "name each operation once, in `operation` or in `merge`".to_owned(),
            )),
            [index] if intents.excluded.contains(index) => Some((
                format!("tool `{name}` merges `{target}`, which the overlay also excludes"),
                "remove the exclude entry or the merge entry".to_owned(),
            )),
            [index] if intents.tools.contains_key(index) => Some((
                format!("tool `{name}` merges `{target}`, which another tool entry declares"),
                "an operation belongs to one tool: drop it from `merge` or remove the other entry".to_owned(),
            )),
            [_] => None,
            many => Some((
                format!("tool `{name}` merges `{target}`, which matches {} operations", many.len()),
                "name the operation as `METHOD /path` instead".to_owned(),
            )),
        };
        if let Some((message, help)) = problem {
            report.push(Diagnostic::error(codes::OVERLAY, message).at(file, pointer).with_help(help));
            continue;
        }
        let index = found[0];
        seen.insert(index);
        intents.tools.entry(index).or_default().push(ToolIntent {
            name: Some(name.to_owned()),
            overlay: tool.clone(),
            file: file.to_owned(),
            pointer: at.clone(),
            in_spec: false,
            route: k + 1,
        });
    }
}

/// Results the model reads are held to this many tokens unless the overlay says otherwise.
pub const DEFAULT_RESULT_BUDGET: u32 = 8_000;
/// A smaller budget leaves no room for a result beside the note that says what was left out.
const MIN_RESULT_BUDGET: u32 = 500;

pub fn check_budget(tokens: u32) -> Option<u32> {
    (tokens >= MIN_RESULT_BUDGET).then_some(tokens)
}

pub fn budget_error(tokens: u32) -> Diagnostic {
    Diagnostic::error(codes::OVERLAY, format!("max_result_tokens {tokens} is too small for a result"))
        .with_help(format!("give at least {MIN_RESULT_BUDGET} tokens (8000 is the default)"))
}

/// A toolset name becomes one path segment of its endpoint.
pub fn valid_toolset_name(name: &str) -> bool {
    (1..=48).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// Operation keys that state tool intents inside the spec (`x-mcp-name`, `x-mcp-effects`, …),
/// and the overlay field each one fills.
const SPEC_KEYS: &[(&str, &str)] = &[
    ("x-mcp-title", "title"),
    ("x-mcp-description", "description"),
    ("x-mcp-params", "params"),
    ("x-mcp-fixed", "fixed"),
    ("x-mcp-effects", "effects"),
    ("x-mcp-paginate", "paginate"),
];

fn from_spec(api: &Api, intents: &mut Intents, report: &mut Report) {
    if let Some(server) = api.extensions.get("x-mcp-server") {
        let at = "/x-mcp-server";
        if let Some(s) = located::<ServerOverlay>(&api.file, at, server.clone(), &[], report) {
            let mine = &mut intents.server;
            mine.name = mine.name.take().or(s.name);
            mine.title = mine.title.take().or(s.title);
            mine.instructions = mine.instructions.take().or(s.instructions);
            mine.exposure = mine.exposure.take().or(s.exposure);
            if mine.credentials.is_empty() {
                check_credentials(&api.file, at, &s.credentials, report);
                mine.credentials = s.credentials;
            }
        }
    }
    for (index, op) in api.operations.iter().enumerate() {
        let ext = &op.extensions;
        if let Some(sets) = ext.get("x-mcp-toolset") {
            let names: Vec<&str> = match sets {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            for name in names {
                if !valid_toolset_name(name) {
                    report.push(
                        Diagnostic::error(codes::OVERLAY, format!("toolset name `{name}` is not a path segment"))
                            .at(&api.file, join_pointer(&op.pointer, "x-mcp-toolset"))
                            .with_help("use lowercase letters, digits, `-` and `_`"),
                    );
                    continue;
                }
                let position = intents.toolsets.iter().position(|t| t.name == name).unwrap_or_else(|| {
                    intents.toolsets.push(ToolsetIntent {
                        name: name.to_owned(),
                        description: None,
                        entries: Vec::new(),
                        operations: BTreeSet::new(),
                        file: api.file.clone(),
                        pointer: join_pointer(&op.pointer, "x-mcp-toolset"),
                    });
                    intents.toolsets.len() - 1
                });
                intents.toolsets[position].operations.insert(index);
            }
        }
        let name = ext.get("x-mcp-name").and_then(Value::as_str).map(str::to_owned);
        if name.is_none() && !SPEC_KEYS.iter().any(|(k, _)| ext.contains_key(*k)) {
            continue;
        }
        if intents.tools.contains_key(&index) {
            continue;
        }
        let mut value = serde_json::Map::new();
        value.insert("operation".to_owned(), Value::String(op.label()));
        if ["input", "output"].iter().any(|k| value.contains_key(*k)) {
            report.push(
                Diagnostic::error(codes::OVERLAY, "`x-mcp-input` and `x-mcp-output` belong in the overlay")
                    .at(&api.file, &op.pointer)
                    .with_help("declare a JSON Schema tool under `tools:` in the overlay, without `operation`"),
            );
            continue;
        }
        for (key, field) in SPEC_KEYS {
            if let Some(v) = ext.get(*key) {
                value.insert((*field).to_owned(), v.clone());
            }
        }
        if let Some(tool) = located::<ToolOverlay>(&api.file, &op.pointer, Value::Object(value), SPEC_KEYS, report) {
            intents.tools.insert(
                index,
                vec![ToolIntent {
                    name,
                    overlay: tool,
                    file: api.file.clone(),
                    pointer: op.pointer.clone(),
                    in_spec: true,
                    route: 0,
                }],
            );
        }
    }
    intents.toolsets.sort_by(|a, b| a.name.cmp(&b.name));
}

fn spec_pointer(pointer: &str, keys: &[(&str, &str)]) -> String {
    for (key, field) in keys {
        if let Some(rest) = pointer.strip_prefix(&format!("/{field}"))
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return format!("/{key}{rest}");
        }
    }
    pointer.to_owned()
}

/// Deserialises an intent kept in the spec, with a located error.
/// `keys` maps an extension key to the field it fills, so the error points at the key written.
fn located<T: serde::de::DeserializeOwned>(
    file: &str,
    at: &str,
    value: Value,
    keys: &[(&str, &str)],
    report: &mut Report,
) -> Option<T> {
    match serde_path_to_error::deserialize(value) {
        Ok(v) => Some(v),
        Err(e) => {
            let message = e.inner().to_string();
            let help = match unknown_field_suggestion(&message) {
                Some(s) => {
                    format!("did you mean `{s}`? (`x-mcp-*` keys take the overlay's format: `mcp-gen schema overlay`)")
                }
                None => "`x-mcp-*` keys take the overlay's format: `mcp-gen schema overlay`".to_owned(),
            };
            report.push(
                Diagnostic::error(codes::OVERLAY, format!("invalid `x-mcp` intent: {message}"))
                    .at(file, format!("{at}{}", spec_pointer(&pointer_of(e.path()), keys)))
                    .with_help(help),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_keys_point_at_the_key() {
        let mut report = Report::new();
        let parsed =
            parse("o.yaml", json!({"mcp-gen": 1, "tools": {"x": {"operation": "a", "titel": "T"}}}), &mut report);
        assert!(parsed.is_none());
        let d = &report.diagnostics[0];
        assert!(d.message.contains("unknown field `titel`"), "{}", d.message);
        assert_eq!(d.location.as_ref().unwrap().pointer, "/tools/x/titel");
    }

    #[test]
    fn version_is_checked() {
        let mut report = Report::new();
        assert!(parse("o.yaml", json!({"mcp-gen": 2}), &mut report).is_none());
        assert!(report.diagnostics[0].message.contains("not supported"));
    }
}
