//! The MCP server handler on rmcp: serves the catalog exactly as `tools.json` holds it, validates
//! every call against the tool's full inputSchema, then forwards it upstream (or answers from
//! the schema in mock mode), or runs the crate's own native handler. Protocol errors stay
//! JSON-RPC errors; tool failures are `isError` results the model can act on (E1).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use jsonschema::Validator;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, DiscoverResult,
    GetTaskParams, GetTaskResult, Implementation, ListToolsResult, MetaObject, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};

use crate::approval::{Plans, Status};
use crate::decl::{Exposure, LongRunning, ServerDecl, ToolDecl, VersionDecl};
use crate::discover::{self, Meta};
use crate::error::{ToolError, codes};
use crate::handle::{self, HandleKey};
use crate::idempotency::{self, Begin, Guard, Keyed};
use crate::inbound::{Principal, Throttled};
use crate::native::{Context, Dispatch};
use crate::route;
use crate::store::{AuditRow, Store, now_ms};
use crate::upstream::Upstream;
use crate::{mock, validate};

/// How long clients may cache the tool list and discovery: the catalog is fixed per binary.
const CATALOG_TTL_MS: u64 = 300_000;

/// Where proxied tools' calls go after validation.
#[derive(Debug, Clone)]
pub enum Mode {
    Upstream(Upstream),
    /// Answer from the outputSchema; no upstream.
    Mock,
}

impl Mode {
    /// The upstream at `base`, with the credentials the server's security schemes name read from
    /// the environment (CONTRACT S2): what `serve --upstream` does, for a crate that builds its
    /// server itself (a native crate whose overlay keeps some tools `run: proxy`).
    pub fn upstream(server: &ServerDecl, base: &str, timeout: std::time::Duration) -> Result<Mode, String> {
        let credentials = crate::auth::Credentials::load(server.schemes, |k| std::env::var(k).ok());
        Upstream::new(base, timeout, credentials).map(Mode::Upstream)
    }
}

struct Entry {
    decl: &'static ToolDecl,
    tool: Tool,
    input: Value,
    output: Option<Value>,
    validator: OnceLock<Result<Validator, String>>,
    /// Checks the upstream's answers against `output`; built on the tool's first answer.
    answer_validator: OnceLock<Result<Validator, String>>,
    /// The places where this tool's answers left its outputSchema, each logged once.
    mismatches: std::sync::Mutex<std::collections::BTreeSet<String>>,
    /// The tool's approval rule (R8), parsed on its first call.
    rule: OnceLock<Result<cel::Program, String>>,
}

impl Entry {
    /// Whether the tool is declared a read (`readOnlyHint`); anything else may have side effects.
    fn read_only(&self) -> bool {
        self.tool.annotations.as_ref().is_some_and(|a| a.read_only_hint == Some(true))
    }
}

pub struct State {
    server: &'static ServerDecl,
    /// This server's identity, and the same as result `_meta` for 2026-07-28 clients.
    implementation: Implementation,
    meta: MetaObject,
    entries: Vec<Entry>,
    index: BTreeMap<&'static str, usize>,
    tools: Vec<Tool>,
    /// Where proxied tools go; `None` when every tool is native.
    mode: Option<Mode>,
    /// The crate's own handlers, for the tools declared native.
    native: Option<Arc<dyn Dispatch>>,
    /// The idempotency store and audit log; without it keys are only forwarded upstream.
    guard: Option<Guard>,
    /// This process, in audit rows.
    instance: String,
    /// The protocol versions this server negotiates (all it knows, or those up to a cap).
    versions: &'static [ProtocolVersion],
    /// What next-page handles are signed with (H1).
    handle_key: HandleKey,
    /// Whether upstream answers are checked against the tool's outputSchema before they are
    /// sent as its structured result (never mock answers: they are samples of the schema).
    check_answers: bool,
    /// Plans of the tools a person approves (R8), in the guard's store.
    plans: Option<Plans>,
    /// Seals the state of questions to the user (M1–M3).
    asker: crate::ask::Asker,
    /// How long a plan waits for approval, when not the tool's declared time.
    plan_ttl: Option<std::time::Duration>,
    /// The tool that follows long-running operations, when any tool starts them.
    follower: Option<&'static str>,
    /// Whether any tool has a deprecation window (else listing checks none).
    sunsets: bool,
    /// What this handler was built with, to build the kept contract versions alike.
    builder: Builder,
    /// The tool search's index (exposure `discover`), loaded on the first search.
    search: OnceLock<Result<mcp_gen_search::Index, String>>,
}

/// Cheap to clone: the Streamable HTTP service builds one per request. A toolset handler serves
/// a subset of the tools (`view`).
#[derive(Clone)]
pub struct Handler(Arc<State>, Option<Arc<View>>);

/// One toolset: the tools it lists and may call.
struct View {
    tools: Vec<Tool>,
    allowed: Vec<bool>,
    instructions: Option<String>,
    /// `tools` are the three of exposure `discover`, which reach every allowed tool.
    discover: bool,
}

/// Catalog and declarations disagree: the generated crate was edited or half-regenerated.
#[derive(Debug)]
pub struct CatalogError(pub String);

impl std::fmt::Display for CatalogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (regenerate the crate with mcp-gen)", self.0)
    }
}

#[derive(serde::Deserialize)]
struct CatalogFile {
    tools: Vec<Tool>,
}

/// The tools of an embedded catalog file (`file` names it in the error).
fn parse_catalog(text: &str, file: &str) -> Result<CatalogFile, CatalogError> {
    // Catalogs come from mcp-gen, which bounds their nesting (schemas of real APIs go deeper
    // than serde_json's default limit of 128); lift the limit for this one input.
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    <CatalogFile as serde::Deserialize>::deserialize(&mut de)
        .map_err(|e| CatalogError(format!("{file} does not parse: {e}")))
}

/// How a [`Handler`] is put together: the server's declarations, then where its tools run and
/// what guards them. Everything is set before the handler is shared (toolset and variant
/// handlers share its state).
#[derive(Clone)]
pub struct Builder {
    server: &'static ServerDecl,
    /// A kept contract version to serve instead of the current one.
    contract: Option<&'static VersionDecl>,
    mode: Option<Mode>,
    native: Option<Arc<dyn Dispatch>>,
    guard: Option<Guard>,
    handle_key: Option<HandleKey>,
    versions: &'static [ProtocolVersion],
    check_answers: bool,
    plan_ttl: Option<std::time::Duration>,
    /// How the base endpoint lists the tools, when not the server's declared exposure.
    exposure: Option<Exposure>,
}

impl Builder {
    /// How the base endpoint lists the tools (default: the overlay's `server.exposure`).
    pub fn exposure(mut self, exposure: Exposure) -> Self {
        self.exposure = Some(exposure);
        self
    }

    /// How long a plan of an irreversible call waits for its approval (default: the tool's
    /// declared time, 24 hours).
    pub fn plan_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.plan_ttl = Some(ttl);
        self
    }

    /// Where proxied tools' calls go: an upstream API, or mock answers.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = Some(mode);
        self
    }

    /// The crate's own handlers for the tools it declares native (generated code wraps the
    /// crate's typed handler trait in a [`Dispatch`]).
    pub fn native(self, handlers: impl Dispatch) -> Self {
        self.native_shared(Arc::new(handlers))
    }

    /// [`Builder::native`] with handlers already shared.
    pub fn native_shared(mut self, handlers: Arc<dyn Dispatch>) -> Self {
        self.native = Some(handlers);
        self
    }

    /// Keys side-effecting calls in `guard`'s store, audits them (R1–R5, O3), and gives native
    /// handlers their transactions on it (R6).
    pub fn guard(mut self, guard: Guard) -> Self {
        self.guard = Some(guard);
        self
    }

    /// [`Builder::guard`] with the usual lease (35 s) and wait (10 s).
    pub fn store(self, store: Arc<dyn Store>) -> Self {
        self.guard(Guard::new(store, std::time::Duration::from_secs(35), std::time::Duration::from_secs(10)))
    }

    /// Signs next-page handles with `key`, which replicas share (H1, M2); without it each
    /// process has a key of its own and its handles die with it.
    pub fn handle_key(mut self, key: HandleKey) -> Self {
        self.handle_key = Some(key);
        self
    }

    /// Negotiates no protocol version newer than `max` (CONTRACT V5): a platform that supports
    /// only 2025-11-25 never sees 2026-07-28.
    pub fn max_protocol(mut self, max: &ProtocolVersion) -> Self {
        self.versions = ProtocolVersion::known_up_to(max);
        self
    }

    /// Whether answers are checked against the tool's outputSchema before they are sent (the
    /// default). Off sends upstream answers as they come, for clients that do not validate
    /// structured results and an upstream known to stray from its spec.
    pub fn answer_check(mut self, check: bool) -> Self {
        self.check_answers = check;
        self
    }

    /// Checks the declarations against the catalog and that every tool has somewhere to run.
    pub fn build(self) -> Result<Handler, CatalogError> {
        let builder = self.clone();
        let server = self.server;
        let (file, text, tools) = match self.contract {
            Some(v) => (format!("versions/{}/tools.json", v.name), v.catalog, v.tools),
            None => ("tools.json".to_owned(), server.catalog, server.tools),
        };
        let catalog = parse_catalog(text, &file)?;
        if catalog.tools.len() != tools.len() {
            return Err(CatalogError(format!(
                "{file} has {} tools but the crate declares {}",
                catalog.tools.len(),
                tools.len()
            )));
        }
        let mut entries = Vec::with_capacity(catalog.tools.len());
        let mut index = BTreeMap::new();
        for (i, (tool, decl)) in catalog.tools.iter().zip(tools).enumerate() {
            if tool.name != decl.name {
                return Err(CatalogError(format!(
                    "{file} lists `{}` where the crate declares `{}`",
                    tool.name, decl.name
                )));
            }
            index.insert(decl.name, i);
            entries.push(Entry {
                decl,
                tool: tool.clone(),
                input: Value::Object((*tool.input_schema).clone()),
                output: tool.output_schema.as_ref().map(|o| Value::Object((**o).clone())),
                validator: OnceLock::new(),
                answer_validator: OnceLock::new(),
                mismatches: Default::default(),
                rule: OnceLock::new(),
            });
        }
        let native: Vec<&str> = tools.iter().filter(|t| t.native).map(|t| t.name).collect();
        if !native.is_empty() && self.native.is_none() {
            return Err(CatalogError(format!(
                "the crate declares native tools ({}) but no handlers were given to the server builder",
                native.join(", ")
            )));
        }
        if native.len() < tools.len() && self.mode.is_none() {
            return Err(CatalogError(
                "the crate has proxied tools but no upstream was given to the server builder".to_owned(),
            ));
        }
        let implementation = Implementation::new(server.crate_name, server.version).with_title(server.title);
        let mut meta = MetaObject::default();
        if let Ok(info) = serde_json::to_value(&implementation) {
            meta.insert("io.modelcontextprotocol/serverInfo".to_owned(), info);
        }
        for set in server.toolsets.iter().filter(|_| self.contract.is_none()) {
            if let Some(missing) = set.tools.iter().find(|t| !index.contains_key(*t)) {
                return Err(CatalogError(format!("toolset `{}` names `{missing}`, which is not a tool", set.name)));
            }
        }
        let approved: Vec<&str> = tools.iter().filter(|t| t.approval.is_some()).map(|t| t.name).collect();
        let plans = self.guard.as_ref().map(|g| Plans::new(g.store().clone()));
        if !approved.is_empty() && plans.is_none() {
            return Err(CatalogError(format!(
                "{} run only on an approved plan, which lives in the store: give the server builder a store",
                approved.join(", ")
            )));
        }
        let handle_key = self.handle_key.clone().unwrap_or_else(HandleKey::random);
        let handle_key_shared = handle_key.clone();
        let asker = crate::ask::Asker::new(handle_key.derive("mcp-gen/request-state"))
            .map_err(|e| CatalogError(format!("cannot set up request states: {e}")))?;
        let instance = uuid::Uuid::new_v4().simple().to_string();
        // Mock answers are samples of the schema: nothing to check.
        let check_answers = self.check_answers && !matches!(self.mode, Some(Mode::Mock));
        let exposure = self.exposure.unwrap_or(server.exposure);
        let handler = Handler(
            Arc::new(State {
                server,
                implementation,
                meta,
                tools: catalog.tools,
                entries,
                index,
                mode: self.mode,
                native: self.native,
                guard: self.guard,
                instance,
                versions: self.versions,
                handle_key,
                check_answers,
                plans,
                asker,
                plan_ttl: self.plan_ttl,
                follower: tools.iter().find(|t| t.long_running == Some(LongRunning::Follows)).map(|t| t.name),
                sunsets: tools.iter().any(|t| t.sunset.is_some()),
                // Kept versions share what this one was built with, and its handle key.
                builder: Builder { handle_key: Some(handle_key_shared), contract: None, ..builder },
                search: OnceLock::new(),
            }),
            None,
        );
        match exposure {
            // A kept contract version keeps the exposure it was served with: its tools are not
            // the ones the embedded index ranks.
            Exposure::Discover if self.contract.is_none() => handler.discovering(),
            _ => Ok(handler),
        }
    }
}

impl Handler {
    /// Starts putting together the handler of `server`.
    pub fn builder(server: &'static ServerDecl) -> Builder {
        Builder {
            server,
            contract: None,
            mode: None,
            native: None,
            guard: None,
            handle_key: None,
            versions: ProtocolVersion::KNOWN_VERSIONS,
            check_answers: true,
            plan_ttl: None,
            exposure: None,
        }
    }

    /// This handler's tools behind the three of exposure `discover` (CONTRACT T6).
    pub fn discovering(&self) -> Result<Handler, CatalogError> {
        let tools = parse_catalog(discover::CATALOG, "the discover tools")?.tools;
        let instructions = match self.0.server.instructions {
            Some(i) => format!("{i}\n\n{}", discover::INSTRUCTIONS),
            None => discover::INSTRUCTIONS.to_owned(),
        };
        let allowed = vec![true; self.0.entries.len()];
        Ok(Handler(
            self.0.clone(),
            Some(Arc::new(View { tools, allowed, instructions: Some(instructions), discover: true })),
        ))
    }

    /// The handler of a kept contract version (`v1`): its own catalog and mappings, with this
    /// handler's upstream, store and handle key (`None` when the server keeps no such version).
    pub fn version(&self, name: &str) -> Result<Option<Handler>, CatalogError> {
        let Some(v) = self.0.server.versions.iter().find(|v| v.name == name) else { return Ok(None) };
        Builder { contract: Some(v), ..self.0.builder.clone() }.build().map(Some)
    }

    /// The plans of irreversible calls, when any tool needs approval.
    pub fn plans(&self) -> Option<&Plans> {
        self.0.plans.as_ref()
    }

    /// The declarations the handler serves.
    pub fn server(&self) -> &'static ServerDecl {
        self.0.server
    }

    /// Whether any tool hands out next-page handles.
    pub fn has_handles(&self) -> bool {
        self.0.entries.iter().any(|e| e.decl.handle.is_some())
    }

    /// The protocol version named `name`, if this runtime knows it.
    pub fn known_protocol(name: &str) -> Option<ProtocolVersion> {
        ProtocolVersion::KNOWN_VERSIONS.iter().find(|v| v.as_str() == name).cloned()
    }

    pub fn variant_names(&self) -> impl Iterator<Item = &'static str> + use<> {
        self.0.server.variants.iter().map(|v| v.name)
    }

    /// The handler for one provider variant: the same tools listed with the variant's schemas;
    /// calls are validated with the canonical ones (`None` when there is no such variant).
    pub fn variant(&self, name: &str) -> Result<Option<Handler>, CatalogError> {
        let Some(decl) = self.0.server.variants.iter().find(|v| v.name == name) else { return Ok(None) };
        let catalog = parse_catalog(decl.catalog, &format!("tools.{name}.json"))?;
        let names_match = catalog.tools.len() == self.0.tools.len()
            && catalog.tools.iter().zip(&self.0.tools).all(|(a, b)| a.name == b.name);
        if !names_match {
            return Err(CatalogError(format!("tools.{name}.json does not list the same tools as tools.json")));
        }
        let allowed = vec![true; catalog.tools.len()];
        let instructions = self.0.server.instructions.map(str::to_owned);
        Ok(Some(Handler(
            self.0.clone(),
            Some(Arc::new(View { tools: catalog.tools, allowed, instructions, discover: false })),
        )))
    }

    pub fn toolset_names(&self) -> impl Iterator<Item = &'static str> + use<> {
        self.0.server.toolsets.iter().map(|s| s.name)
    }

    /// The handler for one toolset (`None` when the server has no toolset of that name).
    pub fn toolset(&self, name: &str) -> Option<Handler> {
        let set = self.0.server.toolsets.iter().find(|s| s.name == name)?;
        let allowed: Vec<bool> = self.0.entries.iter().map(|e| set.tools.contains(&e.decl.name)).collect();
        let tools = self.0.tools.iter().zip(&allowed).filter(|(_, a)| **a).map(|(t, _)| t.clone()).collect();
        let instructions = match (self.0.server.instructions, set.description) {
            // Plain text, as every text the model reads (D1).
            (Some(i), Some(d)) => Some(format!("{i}\n\nThis endpoint serves the {} toolset: {d}", set.name)),
            (Some(i), None) => Some(i.to_owned()),
            (None, d) => d.map(str::to_owned),
        };
        Some(Handler(self.0.clone(), Some(Arc::new(View { tools, allowed, instructions, discover: false }))))
    }

    pub fn tools(&self) -> &[Tool] {
        match &self.1 {
            Some(view) => &view.tools,
            None => &self.0.tools,
        }
    }

    /// Why `name` is no longer served at `now_ms`: its deprecation window closed (CONTRACT V3).
    /// Such a tool is not listed, and a call answers this error, which names its replacement.
    fn retired(&self, name: &str, now_ms: u64) -> Option<ToolError> {
        let entry = &self.0.entries[*self.0.index.get(name)?];
        let sunset = entry.decl.sunset.filter(|s| s.passed(now_ms))?;
        let recovery = match sunset.use_instead {
            Some(other) => format!("Call {other} instead; this tool is no longer served."),
            None => "This tool is no longer served; list the tools for what replaces it.".to_owned(),
        };
        Some(ToolError::new(codes::TOOL_RETIRED, format!("{name} was served until {}", sunset.until), recovery))
    }

    /// The tool's index, if this endpoint serves it.
    fn lookup(&self, name: &str) -> Option<usize> {
        let i = *self.0.index.get(name)?;
        self.1.as_ref().is_none_or(|v| v.allowed[i]).then_some(i)
    }

    /// Validates one call's arguments against the tool's full inputSchema.
    fn validate(&self, entry: &Entry, arguments: Option<Map<String, Value>>) -> Result<Map<String, Value>, ToolError> {
        let validator = entry.validator.get_or_init(|| validate::compile(&entry.input));
        let validator = match validator {
            Ok(v) => v,
            Err(e) => return Err(ToolError::internal(format!("the tool's inputSchema {e}"))),
        };
        validate::arguments(validator, &entry.input, arguments.unwrap_or_default())
    }

    /// The upstream's answer as the tool's result, if it is what the tool's outputSchema
    /// promises. MCP requires structured results to conform, and clients reject the whole
    /// result when they do not, so the model would never see an answer to a call that took
    /// effect. An answer off the schema (a new enum value, a field the spec does not allow to
    /// be null, a body that is not JSON) is sent as an `unexpected_answer` error that carries it.
    fn conform(&self, entry: &Entry, route: &ToolDecl, result: CallToolResult) -> Result<CallToolResult, ToolError> {
        let Some(schema) = entry.output.as_ref() else { return Ok(result) };
        if !self.0.check_answers || result.is_error == Some(true) {
            return Ok(result);
        }
        let (answer, problem) = match &result.structured_content {
            Some(value) => {
                let validator = match entry.answer_validator.get_or_init(|| validate::compile_answers(schema)) {
                    Ok(v) => v,
                    Err(e) => return Err(ToolError::internal(format!("the tool's outputSchema {e}"))),
                };
                match validate::answer(validator, schema, value) {
                    None => return Ok(result),
                    Some(problem) => (value.clone(), problem),
                }
            }
            None => {
                let text: Vec<&str> =
                    result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect();
                (Value::String(text.join("\n")), "the answer is not JSON".to_owned())
            }
        };
        if entry.decl.native {
            // The crate's own handler wrote a result its own contract does not admit: a bug to
            // fix, never an effect to keep (the caller rolls the transaction back).
            tracing::error!(tool = entry.decl.name, problem = %problem,
                "a native handler's result does not match the tool's outputSchema: sent as an internal error");
            return Err(ToolError::internal(format!(
                "the server's handler for {} answered outside the tool's outputSchema: {problem}",
                entry.decl.name
            )));
        }
        let label = route.operation();
        let places = match (&result.structured_content, entry.answer_validator.get()) {
            (Some(value), Some(Ok(validator))) => validate::answer_places(validator, value),
            _ => vec![String::new()],
        };
        for place in &places {
            crate::telemetry::unexpected_answer(entry.decl.name, place);
            // Said once per tool and place: an upstream that always answers so would otherwise
            // fill the log with the same line.
            let first = entry.mismatches.lock().map(|mut seen| seen.insert(place.clone())).unwrap_or(false);
            if first {
                tracing::warn!(tool = entry.decl.name, operation = %label, pointer = %place, problem = %problem,
                    "the upstream's answer does not match the tool's outputSchema: sent as an unexpected_answer error (run `mcp-gen verify --upstream URL --write-overlay FILE` for the overlay patch that corrects the response schema, or serve with --no-answer-check)");
            }
        }
        let recovery = if entry.read_only() {
            "Read the result in `answer`; the same call gets the same kind of answer."
        } else {
            "The call took effect: read its result in `answer` and do not repeat the call."
        };
        Err(ToolError::new(
            codes::UNEXPECTED_ANSWER,
            format!("{label} answered, but not in the shape this tool's outputSchema declares: {problem}"),
            recovery,
        )
        .answer(answer))
    }

    /// Whether the tool's approval rule approves these arguments. A rule that does not hold, reads
    /// an argument the call left out, or fails, leaves the call to a person.
    fn rule_approves(&self, entry: &Entry, rule: &str, arguments: &Map<String, Value>) -> bool {
        let program = match entry.rule.get_or_init(|| cel::Program::compile(rule).map_err(|e| e.to_string())) {
            Ok(p) => p,
            Err(e) => {
                tracing::error!(tool = entry.decl.name, error = %e, "the approval rule does not parse; calls wait for a person");
                return false;
            }
        };
        let mut context = cel::Context::default();
        for (name, value) in arguments {
            match cel::to_value(value) {
                Ok(v) => context.add_variable_from_value(name.clone(), v),
                Err(_) => return false,
            }
        }
        matches!(program.execute(&context), Ok(cel::Value::Bool(true)))
    }

    /// Runs a validated call upstream (or in mock mode) through `route`, the tool's operation
    /// its arguments chose.
    async fn run(
        &self,
        entry: &Entry,
        route: &'static ToolDecl,
        args: &Map<String, Value>,
        keyed: Option<&Keyed>,
        call: &CallInfo,
    ) -> Result<CallToolResult, ToolError> {
        if route.long_running == Some(LongRunning::Follows) {
            let given = args.get("operation").and_then(Value::as_str).unwrap_or_default();
            return self.follow(given, call).await.and_then(|(_, outcome)| outcome);
        }
        let result = self.send(entry, route, args, keyed, call.principal.as_ref()).await?;
        self.shape(entry, route, &call.caller, result)
    }

    /// Reads how the operation behind `given` (a handle) stands: its start time and the status
    /// tool's outcome, checked against the starting tool's outputSchema (an error when the handle
    /// is not one to follow).
    async fn follow(
        &self,
        given: &str,
        call: &CallInfo,
    ) -> Result<(u64, Result<CallToolResult, ToolError>), ToolError> {
        let follower = self.0.follower.unwrap_or_default();
        let op = crate::operations::open(&self.0.handle_key, follower, &call.caller, clock(), given)?;
        let origin = self
            .0
            .index
            .get(op.tool.as_str())
            .map(|i| &self.0.entries[*i])
            .filter(|e| e.decl.long_running == Some(LongRunning::Starts))
            .ok_or_else(|| ToolError::internal(format!("{} no longer starts long-running operations", op.tool)))?;
        let Some(Mode::Upstream(upstream)) = &self.0.mode else {
            return Err(ToolError::internal("operations are followed upstream, and this server has no upstream"));
        };
        let outcome = match upstream.follow(origin.decl, &op.location, call.principal.as_ref()).await {
            Ok(crate::operations::Progress::Working { poll_after_ms }) => {
                Ok(crate::operations::working(given, poll_after_ms))
            }
            Ok(crate::operations::Progress::Completed(result)) => Ok(crate::operations::completed(result)),
            Err(e) => Err(e),
        };
        Ok((op.since_ms, outcome.and_then(|result| self.conform(origin, origin.decl, result))))
    }

    /// A result as sent: handles minted, then checked against the outputSchema.
    fn shape(
        &self,
        entry: &Entry,
        route: &ToolDecl,
        caller: &str,
        result: CallToolResult,
    ) -> Result<CallToolResult, ToolError> {
        let result = self.hand_out(entry, caller, result)?;
        self.conform(entry, route, result)
    }

    /// A successful result with what the model may not see as it is replaced by signed handles:
    /// the upstream's next cursor (H1), and a long-running operation's address (the handle the
    /// status tool takes).
    fn hand_out(&self, entry: &Entry, caller: &str, mut result: CallToolResult) -> Result<CallToolResult, ToolError> {
        let operation = match (entry.decl.long_running, self.0.follower) {
            (Some(LongRunning::Starts), Some(follower)) => Some(follower),
            _ => None,
        };
        if (entry.decl.handle.is_none() && operation.is_none()) || result.is_error == Some(true) {
            return Ok(result);
        }
        let Some(mut value) = result.structured_content.take() else { return Ok(result) };
        if let Some(h) = &entry.decl.handle {
            handle::mint_in_result(&self.0.handle_key, entry.decl.name, h, caller, clock(), &mut value)?;
        }
        if let Some(follower) = operation {
            crate::operations::mint_in_result(
                &self.0.handle_key,
                follower,
                entry.decl.name,
                caller,
                clock(),
                &mut value,
            )?;
        }
        let mut out = crate::util::structured(value);
        out.meta = result.meta;
        Ok(out)
    }

    async fn send(
        &self,
        entry: &Entry,
        route: &'static ToolDecl,
        args: &Map<String, Value>,
        keyed: Option<&Keyed>,
        principal: Option<&Principal>,
    ) -> Result<CallToolResult, ToolError> {
        match &self.0.mode {
            Some(Mode::Mock) => {
                let mut value = entry.output.as_ref().map_or_else(
                    || serde_json::json!({"ok": true, "mock": true, "message": format!("{} (mock)", route.operation())}),
                    mock::sample,
                );
                // Mock operations end at once: nothing to follow.
                if route.long_running == Some(LongRunning::Starts)
                    && let Some(map) = value.as_object_mut()
                {
                    map.retain(|k, _| k == "result");
                    map.insert("status".into(), Value::String("completed".into()));
                }
                Ok(crate::util::structured(value))
            }
            Some(Mode::Upstream(upstream)) => {
                let extra: Vec<(&str, String)> = keyed.and_then(|k| k.forward.clone()).into_iter().collect();
                upstream.call(route, args, &extra, principal).await
            }
            // `Builder::build` refuses a crate with proxied tools and no mode.
            None => Err(ToolError::internal(format!("{} has no upstream configured", entry.decl.name))),
        }
    }

    /// Runs one call that this call owns the key record of (or that has none), and records its
    /// outcome: the result sent, and its error code.
    async fn perform(
        &self,
        entry: &Entry,
        route: &'static ToolDecl,
        args: Map<String, Value>,
        call: &CallInfo,
        owned: Option<(&Guard, &Keyed, &str)>,
    ) -> (CallToolResult, Option<&'static str>) {
        if entry.decl.native {
            return self.perform_native(entry, route, args, call, owned).await;
        }
        let (result, code, retryable) = settle(self.run(entry, route, &args, owned.map(|(_, k, _)| k), call).await);
        if let Some((guard, keyed, owner)) = owned {
            guard.finish(keyed, owner, &result, retryable, None).await;
        }
        (result, code)
    }

    /// A native tool's call (R6). When the handler wrote in its transaction, the runtime
    /// completes the idempotency record in the same transaction and commits both: a crash
    /// before the commit leaves neither, and the retry runs the call again once; after it, the
    /// retry is answered from the record. A handler that did not write there (its effect lives
    /// elsewhere) gets the record written after it returns: at-least-once with a key.
    async fn perform_native(
        &self,
        entry: &Entry,
        route: &'static ToolDecl,
        mut args: Map<String, Value>,
        call: &CallInfo,
        owned: Option<(&Guard, &Keyed, &str)>,
    ) -> (CallToolResult, Option<&'static str>) {
        let Some(native) = self.0.native.as_ref() else {
            return settle_code(Err(ToolError::internal(format!("{} has no native handler", entry.decl.name))));
        };
        // The key is the runtime's business, not an argument of the handler's.
        if let Some(crate::decl::KeyDecl { source: crate::decl::KeySource::Caller { arg }, .. }) =
            &entry.decl.idempotency
        {
            args.remove(*arg);
        }
        let store = self.0.guard.as_ref().map(|g| g.store().clone());
        let key = owned.map(|(_, k, _)| k.scope.key.clone());
        let mut cx = Context::new(entry.decl.name, call.caller.clone(), call.request_id.clone(), key, store);
        let outcome = native.call(entry.decl.name, &mut cx, args).await;
        let outcome = outcome.and_then(|value| self.shape(entry, route, &call.caller, crate::util::structured(value)));
        let tx = cx.take_transaction();
        match (outcome, tx) {
            (Ok(result), Some(mut tx)) => {
                if let Some((_, keyed, owner)) = owned {
                    let text = match serde_json::to_string(&result) {
                        Ok(t) => t,
                        Err(e) => {
                            tx.rollback().await;
                            return settle_code(Err(ToolError::internal(format!("cannot keep the result: {e}"))));
                        }
                    };
                    let expires = now_ms().saturating_add(keyed.ttl_ms);
                    match tx.complete_record(&keyed.scope, owner, &text, expires).await {
                        Ok(true) => {}
                        Ok(false) => {
                            // The lease lapsed and a retry took the call over: that one runs it.
                            tx.rollback().await;
                            tracing::warn!(
                                tool = entry.decl.name,
                                "idempotency record taken over; this run rolled back"
                            );
                            return settle_code(Err(idempotency::in_progress(1000)));
                        }
                        Err(e) => {
                            tx.rollback().await;
                            let (result, code, retryable) = settle(Err(ToolError::from(e)));
                            if let Some((guard, keyed, owner)) = owned {
                                guard.finish(keyed, owner, &result, retryable, None).await;
                            }
                            return (result, code);
                        }
                    }
                }
                match tx.commit().await {
                    Ok(()) => (result, None),
                    // Whether the commit landed is unknown. The record is in the same state as
                    // the effect (completed with it, or still reserved), so a retry with the
                    // same key either replays or runs it once: say to retry.
                    Err(e) => {
                        tracing::error!(error = %e, tool = entry.decl.name, "cannot commit a native call");
                        settle_code(Err(ToolError::new(
                            codes::UNAVAILABLE,
                            "the server lost its database while finishing the call; whether it took effect is not known",
                            "Retry the same call with the same idempotency_key: it runs at most once.",
                        )
                        .retryable(Some(1000))))
                    }
                }
            }
            (Ok(result), None) => {
                if let Some((guard, keyed, owner)) = owned {
                    guard.finish(keyed, owner, &result, false, None).await;
                }
                (result, None)
            }
            (Err(e), tx) => {
                if let Some(tx) = tx {
                    tx.rollback().await;
                }
                let (result, code, retryable) = settle(Err(e));
                if let Some((guard, keyed, owner)) = owned {
                    guard.finish(keyed, owner, &result, retryable, None).await;
                }
                (result, code)
            }
        }
    }

    /// Validates and executes one call, keyed and audited when it has side effects; every
    /// failure is a tool error result.
    async fn execute(
        &self,
        entry_index: usize,
        arguments: Option<Map<String, Value>>,
        call: &CallInfo,
    ) -> CallToolResult {
        let entry = &self.0.entries[entry_index];
        let mut args = match self.validate(entry, arguments) {
            Ok(a) => a,
            Err(e) => return e.into_result(),
        };
        // A next-page handle back to the upstream's cursor, for its own tool and caller (H1, H4),
        // and how many of that page's items a cut result already showed.
        let skip = match handle::open_arguments(&self.0.handle_key, entry.decl, &call.caller, clock(), &mut args) {
            Ok(skip) => skip,
            Err(e) => {
                crate::telemetry::handle_refused(entry.decl.name);
                return e.into_result();
            }
        };
        let page = entry.decl.handle.map(|h| args.get(h.cursor).cloned().unwrap_or(Value::Null));
        // A merged tool's call goes to the operation its arguments choose (overlay `merge`).
        let route = match route::choose(entry.decl, &args) {
            Ok(r) => r,
            Err(e) => return e.into_result(),
        };
        let guard = self.0.guard.as_ref().filter(|_| !entry.read_only());
        let Some(guard) = guard else {
            let result = self.perform(entry, route, args, call, None).await.0;
            // Reads are held to the result budget; a write's result is its record, replayed whole.
            return if entry.read_only() { self.fit(entry, &call.caller, page, skip, result) } else { result };
        };
        let started = Instant::now();
        let keyed = entry
            .decl
            .idempotency
            .as_ref()
            .and_then(|d| idempotency::resolve(entry.decl.name, d, &args, &call.caller, now_ms()));
        if let Some(k) = &keyed {
            tracing::Span::current().record("key", k.scope.key.as_str());
        }
        let redacted = idempotency::redact(&Value::Object(args.clone()));
        let audited = redacted.to_string();
        // R8: an irreversible call a person approves runs only on an approved plan.
        let plan = match self.approval(entry, keyed.as_ref(), &args, &redacted, call).await {
            Ok(plan) => plan,
            Err(e) => {
                let row = self.audit_row(entry, call, keyed.as_ref(), audited, e.code.to_owned(), false, started);
                if let Err(e) = guard.store().audit(&row).await {
                    tracing::warn!(error = %e, tool = %row.tool, "cannot write the audit row");
                }
                return e.into_result();
            }
        };
        // A proxied call that owns its key: its record is completed below, with its audit row.
        let mut owned: Option<(String, bool)> = None;
        let (result, outcome, replayed) = match &keyed {
            None => {
                let (result, code) = self.perform(entry, route, args, call, None).await;
                (result, code, false)
            }
            Some(keyed) => match guard.begin(keyed).await {
                Begin::Replay(result) => (result, None, true),
                Begin::Refuse(e) => {
                    let (result, code) = settle_code(Err(e));
                    (result, code, false)
                }
                Begin::Run { owner } if !entry.decl.native => {
                    let (result, code, retryable) = settle(self.run(entry, route, &args, Some(keyed), call).await);
                    owned = Some((owner, retryable));
                    (result, code, false)
                }
                Begin::Run { owner } => {
                    let (result, code) = self.perform(entry, route, args, call, Some((guard, keyed, &owner))).await;
                    (result, code, false)
                }
            },
        };
        let outcome = match (outcome, result.is_error) {
            (Some(code), _) => code.to_owned(),
            // A replayed error: its code, from the body stored with it.
            (None, Some(true)) => error_code(&result).unwrap_or_else(|| "error".to_owned()),
            (None, _) => "ok".to_owned(),
        };
        let applied = outcome == "ok";
        let row = self.audit_row(entry, call, keyed.as_ref(), audited, outcome, replayed, started);
        // The record is complete before its plan is marked applied: a crash between the two
        // leaves a retry that replays, never one that runs again.
        match (owned, &keyed) {
            (Some((owner, retryable)), Some(keyed)) => {
                guard.finish(keyed, &owner, &result, retryable, Some(&row)).await;
            }
            _ => {
                if let Err(e) = guard.store().audit(&row).await {
                    tracing::warn!(error = %e, tool = %row.tool, "cannot write the audit row");
                }
            }
        }
        if let (Some(plan), Some(plans), true) = (plan, self.0.plans.as_ref(), applied)
            && let Err(e) = plans.applied(&plan, now_ms()).await
        {
            tracing::warn!(error = %e, plan = %plan, "cannot mark the plan applied");
        }
        result
    }

    /// A read's result within the tool's budget (`budget.rs`): the items a cut page already
    /// showed skipped, a list over budget cut with a handle to the rest of its page, an object's
    /// largest optional parts left out; a note says what.
    fn fit(
        &self,
        entry: &Entry,
        caller: &str,
        page: Option<Value>,
        skip: usize,
        mut result: CallToolResult,
    ) -> CallToolResult {
        if result.is_error == Some(true) {
            return result;
        }
        let Some(mut value) = result.structured_content.take() else { return result };
        if skip > 0 {
            crate::budget::skip(&mut value, skip);
        }
        let budget = entry.decl.result_budget as usize;
        let fitted = crate::budget::fit(&mut value, budget, &crate::budget::required(entry.output.as_ref()));
        if skip == 0 && matches!(fitted, crate::budget::Fitted::Whole) {
            // As it came: its text already says the same.
            result.structured_content = Some(value);
            return result;
        }
        let mut next = None;
        if let (crate::budget::Fitted::Cut { kept, .. }, Some(h), Some(page)) = (&fitted, entry.decl.handle, page) {
            let expires = clock().saturating_add(h.ttl_secs.saturating_mul(1000));
            let handle = match handle::mint_continuation(
                &self.0.handle_key,
                entry.decl.name,
                caller,
                expires,
                &page,
                skip + kept,
            ) {
                Ok(handle) => handle,
                Err(e) => return e.into_result(),
            };
            // The rest of this page comes before the upstream's next one.
            if let Some(slot) = value.pointer_mut(h.next) {
                *slot = Value::String(handle);
                next = Some(h.cursor);
            }
        }
        let note = crate::budget::note(&fitted, budget, next);
        let mut out = crate::util::structured(value);
        out.meta = result.meta;
        if let Some(note) = note {
            tracing::info!(tool = entry.decl.name, budget, note = %note, "result fitted to its budget");
            out.content.push(rmcp::model::ContentBlock::text(note));
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn audit_row(
        &self,
        entry: &Entry,
        call: &CallInfo,
        keyed: Option<&Keyed>,
        arguments: String,
        outcome: String,
        replayed: bool,
        started: Instant,
    ) -> AuditRow {
        AuditRow {
            at_ms: now_ms(),
            instance: self.0.instance.clone(),
            request_id: call.request_id.clone(),
            caller: call.caller.clone(),
            tool: entry.decl.name.to_owned(),
            key: keyed.map(|k| k.scope.key.clone()),
            arguments,
            outcome,
            replayed,
            duration_ms: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
        }
    }

    /// The plan an irreversible call runs on (R8): `Ok(None)` when the tool needs no approval,
    /// `Ok(Some(id))` when its plan is approved (or was applied: the idempotency record then
    /// replays), otherwise the error to answer with (its code is the audit outcome).
    async fn approval(
        &self,
        entry: &Entry,
        keyed: Option<&Keyed>,
        args: &Map<String, Value>,
        arguments: &Value,
        call: &CallInfo,
    ) -> Result<Option<String>, ToolError> {
        let (Some(approval), Some(plans)) = (entry.decl.approval, self.0.plans.as_ref()) else { return Ok(None) };
        let Some(keyed) = keyed else {
            let e = ToolError::new(
                codes::INVALID_ARGUMENT,
                format!("{} is planned before it runs, and a plan is followed by its idempotency_key", entry.decl.name),
                "Pass an idempotency_key (a new UUID for a new intent) and call again.",
            );
            return Err(e);
        };
        let now = now_ms();
        let ttl = self.0.plan_ttl.unwrap_or(std::time::Duration::from_secs(approval.ttl_secs));
        let description = entry.tool.description.as_deref();
        let draft = crate::approval::Draft {
            tool: entry.decl.name,
            caller: &call.caller,
            key: &keyed.scope.key,
            fingerprint: &keyed.fingerprint,
            arguments,
            summary: &crate::approval::summary(entry.decl.name, description, arguments),
            now_ms: now,
            ttl_ms: i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX),
        };
        let plan = plans.plan(&draft).await.map_err(ToolError::from)?;
        if plan.fingerprint != keyed.fingerprint {
            return Err(idempotency::reused(&keyed.scope.key));
        }
        // A rule may approve the call by itself; the plan keeps who did.
        let plan = match approval.auto_if {
            Some(rule) if plan.status == Status::AwaitingApproval && self.rule_approves(entry, rule, args) => {
                match plans
                    .decide(&plan.id, crate::approval::Decision::Approve, &format!("rule: {rule}"), None, now)
                    .await
                {
                    Ok(p) => p,
                    // Decided meanwhile (an operator, a concurrent call): as it now stands.
                    Err(crate::approval::DecideError::Settled { .. }) => {
                        plans.get(&plan.id, now).await.ok().flatten().unwrap_or(plan)
                    }
                    Err(e) => {
                        return Err(ToolError::new(
                            codes::UNAVAILABLE,
                            format!("cannot record the approval: {e}"),
                            "Retry the same call shortly.",
                        )
                        .retryable(Some(1000)));
                    }
                }
            }
            _ => plan,
        };
        match plan.status {
            Status::Approved | Status::Applied => Ok(Some(plan.id)),
            _ => Err(crate::approval::pending(&plan)),
        }
    }
}

/// Milliseconds since the Unix epoch, as handles count them.
fn clock() -> u64 {
    u64::try_from(now_ms()).unwrap_or(0)
}

/// A call's outcome as the result sent, its error code, and whether a retry may succeed.
fn settle(outcome: Result<CallToolResult, ToolError>) -> (CallToolResult, Option<&'static str>, bool) {
    match outcome {
        Ok(result) => (result, None, false),
        Err(e) => {
            let (code, retryable) = (e.code, e.retryable);
            (e.into_result(), Some(code), retryable)
        }
    }
}

/// [`settle`] without the retry flag.
fn settle_code(outcome: Result<CallToolResult, ToolError>) -> (CallToolResult, Option<&'static str>) {
    let (result, code, _) = settle(outcome);
    (result, code)
}

/// The `code` of an error result's body (E1).
fn error_code(result: &CallToolResult) -> Option<String> {
    let text = &result.content.first()?.as_text()?.text;
    let body: Value = serde_json::from_str(text).ok()?;
    body.get("code")?.as_str().map(str::to_owned)
}

/// Who made a call and which request it was.
struct CallInfo {
    request_id: String,
    caller: String,
    /// The validated token's holder, when the server checks tokens.
    principal: Option<Principal>,
}

impl CallInfo {
    fn of(context: &RequestContext<RoleServer>) -> Self {
        let parts = context.extensions.get::<http::request::Parts>();
        let principal = parts.and_then(|p| p.extensions.get::<Principal>());
        // A validated token's issuer and subject; without auth, a digest of whatever
        // credentials came (stdio, loopback), so callers' keys still never collide.
        let caller = match principal {
            Some(p) => p.caller(),
            None => idempotency::caller_identity(
                parts.and_then(|p| p.headers.get(http::header::AUTHORIZATION)).and_then(|v| v.to_str().ok()),
            ),
        };
        CallInfo { request_id: context.id.to_string(), caller, principal: principal.cloned() }
    }
}

impl Handler {
    /// Values the user gives or confirms (M1–M3), asked before anything runs: the call's
    /// arguments once everything is there.
    fn ask(
        &self,
        entry: &Entry,
        request: CallToolRequestParams,
        call: &CallInfo,
        context: &RequestContext<RoleServer>,
    ) -> crate::ask::Gathered {
        let args = request.arguments.unwrap_or_default();
        if entry.decl.asks.is_empty() {
            return crate::ask::Gathered::Ready(args);
        }
        let args = match self.validate(entry, Some(args)) {
            Ok(a) => a,
            Err(e) => return crate::ask::Gathered::Refuse(e),
        };
        let can_elicit = is_modern(context)
            && context
                .client_capabilities()
                .and_then(|c| serde_json::to_value(c).ok())
                .is_some_and(|c| c.get("elicitation").is_some_and(|e| !e.is_null()));
        self.0.asker.gather(
            entry.decl,
            &entry.input,
            args,
            &call.caller,
            can_elicit,
            request.input_responses.as_ref(),
            request.request_state.as_deref(),
        )
    }
}

/// `a b` or `a b | c`: the scope sets that would each do.
fn scope_list(alternatives: &[&[&str]]) -> String {
    alternatives.iter().map(|a| a.join(" ")).collect::<Vec<_>>().join(" | ")
}

fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version().is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
}

/// The validated token's holder, when the server checks tokens.
fn principal_of(context: &RequestContext<RoleServer>) -> Option<&Principal> {
    context.extensions.get::<http::request::Parts>().and_then(|p| p.extensions.get::<Principal>())
}

impl Handler {
    /// Whether the caller may see and call `name` here now: a tool this endpoint serves, that
    /// the caller's scopes allow and whose deprecation window is open.
    fn visible(&self, name: &str, principal: Option<&Principal>) -> bool {
        let Some(i) = self.lookup(name) else { return false };
        principal.is_none_or(|p| p.satisfies(self.0.entries[i].decl.scopes))
            && (!self.0.sunsets || self.retired(name, clock()).is_none())
    }

    /// `search_tools` (exposure `discover`): the tools the caller may call, best first.
    fn search(&self, query: &str, limit: usize, context: &RequestContext<RoleServer>) -> CallToolResult {
        let index = self
            .0
            .search
            .get_or_init(|| mcp_gen_search::Index::from_json(self.0.server.search).map_err(|e| e.to_string()));
        let index = match index {
            Ok(index) => index,
            Err(e) => return ToolError::internal(e.clone()).into_result(),
        };
        let principal = principal_of(context);
        let tools: Vec<&Tool> = index
            .search(query, usize::MAX)
            .into_iter()
            .filter(|hit| self.visible(hit.name, principal))
            .filter_map(|hit| self.0.index.get(hit.name).map(|i| &self.0.entries[*i].tool))
            .take(limit)
            .collect();
        discover::found(&tools)
    }

    /// `describe_tools`: the definitions of the named tools the caller may call, as a direct
    /// `tools/list` in the caller's protocol era would give them.
    fn describe(&self, names: Vec<String>, context: &RequestContext<RoleServer>) -> CallToolResult {
        let principal = principal_of(context);
        let modern = is_modern(context);
        let (known, unknown): (Vec<String>, Vec<String>) = names.into_iter().partition(|n| self.visible(n, principal));
        let tools = known
            .iter()
            .filter_map(|n| self.0.index.get(n.as_str()))
            .map(|i| self.0.entries[*i].tool.clone())
            .map(|t| if modern { t } else { crate::legacy::wrap_tool(t) })
            .collect();
        discover::described(tools, unknown)
    }

    /// A result as the caller's protocol era takes it: with the server's `_meta` (2026-07-28),
    /// or a non-object structured result wrapped (earlier eras).
    fn sent(&self, mut result: CallToolResult, context: &RequestContext<RoleServer>) -> CallToolResponse {
        if is_modern(context) {
            idempotency::merge_meta(&mut result, &self.0.meta);
        } else {
            crate::legacy::wrap_result(&mut result);
        }
        result.into()
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder().enable_tools().build();
        if self.0.follower.is_some() {
            capabilities = ServerCapabilities::builder().enable_tools().enable_tasks().build();
        }
        let mut config = ServerConfig::new(capabilities).with_server_info(self.0.implementation.clone());
        let instructions = match &self.1 {
            Some(view) => view.instructions.clone(),
            None => self.0.server.instructions.map(str::to_owned),
        };
        if let Some(instructions) = instructions {
            config = config.with_instructions(instructions);
        }
        config
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(self.0.versions)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        if let Some(view) = self.1.as_ref().filter(|v| v.discover) {
            return view.tools.iter().find(|t| t.name == name).cloned();
        }
        self.lookup(name).map(|i| self.0.entries[i].tool.clone())
    }

    async fn discover(&self, _context: RequestContext<RoleServer>) -> Result<DiscoverResult, ErrorData> {
        // The same for every caller until the binary changes.
        Ok(DiscoverResult::from_server_info(self.supported_protocol_versions().into_owned(), self.get_info())
            .with_ttl_ms(CATALOG_TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let modern = is_modern(&context);
        let principal = principal_of(&context);
        let discovering = self.1.as_ref().is_some_and(|v| v.discover);
        let visible = self.tools().iter().filter(|t| discovering || self.visible(t.name.as_ref(), principal)).cloned();
        let tools = if modern { visible.collect() } else { visible.map(crate::legacy::wrap_tool).collect() };
        let mut result = ListToolsResult::with_all_items(tools);
        if modern {
            // A list chosen by the caller's scopes is that caller's alone.
            let scope = if principal.is_some() && !discovering { CacheScope::Private } else { CacheScope::Public };
            result = result.with_ttl_ms(CATALOG_TTL_MS).with_cache_scope(scope);
            result.meta = Some(self.0.meta.clone());
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A call's state (validation, the upstream request, the store) is large, and rmcp moves
        // the request's future into a task of its own: boxed here, it is not copied.
        Box::pin(async move {
            let discovering = self.1.as_ref().is_some_and(|v| v.discover);
            let request = match discovering.then(|| discover::parse(&request)).flatten() {
                None => request,
                Some(Ok(Meta::Call(inner))) => inner,
                Some(Ok(Meta::Search { query, limit })) => {
                    return Ok(self.sent(self.search(&query, limit, &context), &context));
                }
                Some(Ok(Meta::Describe { names })) => return Ok(self.sent(self.describe(names, &context), &context)),
                Some(Err(e)) => return Ok(self.sent(e.into_result(), &context)),
            };
            let Some(i) = self.lookup(request.name.as_ref()) else {
                if discovering {
                    return Ok(self.sent(discover::unknown_tool(&request.name).into_result(), &context));
                }
                return Err(ErrorData::invalid_params(format!("Unknown tool: {}", request.name), None));
            };
            let started = Instant::now();
            let parts = context.extensions.get::<http::request::Parts>();
            let call = CallInfo::of(&context);
            // One span per call (CONTRACT O1): the caller as a digest, never the identity itself.
            let caller = &idempotency::digest(&call.caller)[..16];
            let span = tracing::info_span!(
                "tools/call",
                tool = self.0.entries[i].decl.name,
                caller,
                key = tracing::field::Empty,
                upstream_status = tracing::field::Empty,
            );
            let principal = call.principal.as_ref();
            let entry = &self.0.entries[i];
            let result = if let Some(t) = parts.and_then(|p| p.extensions.get::<Throttled>()) {
                ToolError::new(
                    codes::RATE_LIMITED,
                    "this caller is sending requests faster than the server's rate limit allows",
                    "Wait retry_after_ms, then send the same call again.",
                )
                .retryable(Some(t.retry_after_ms))
                .into_result()
            } else if let Some(e) = self.retired(entry.decl.name, clock()) {
                e.into_result()
            } else if principal.is_some_and(|p| !p.satisfies(entry.decl.scopes)) {
                // The gate answers 403 first; this holds for servers mounted without it.
                ToolError::new(
                    codes::PERMISSION_DENIED,
                    format!("{} needs the OAuth scopes {}", entry.decl.name, scope_list(entry.decl.scopes)),
                    "Ask the user to grant those scopes, then call again with the new token.",
                )
                .into_result()
            } else {
                match self.ask(entry, request, &call, &context) {
                    crate::ask::Gathered::Ready(args) => {
                        tracing::Instrument::instrument(self.execute(i, Some(args), &call), span.clone()).await
                    }
                    crate::ask::Gathered::Ask(input) => return Ok((*input).into()),
                    crate::ask::Gathered::Refuse(e) => e.into_result(),
                }
            };
            let failed = result.is_error == Some(true);
            let outcome =
                if failed { error_code(&result).unwrap_or_else(|| "error".to_owned()) } else { "ok".to_owned() };
            let replayed = result
                .meta
                .as_ref()
                .is_some_and(|m| m.0.get(idempotency::REPLAY_META).is_some_and(|v| v["replayed"] == true));
            let elapsed = started.elapsed();
            crate::telemetry::call(entry.decl.name, &outcome, replayed, elapsed.as_secs_f64());
            // A failed call is logged at info; a successful one at debug (metrics count them), so
            // that a busy server does not spend its time writing a line per call.
            let ms = elapsed.as_millis() as u64;
            span.in_scope(|| {
                if failed {
                    tracing::info!(outcome = %outcome, replayed, ms, "answered");
                } else {
                    tracing::debug!(outcome = %outcome, replayed, ms, "answered");
                }
            });
            if is_modern(&context) {
                // An operation that runs on is a task for a client of the tasks extension.
                let tasks = context.client_capabilities().is_some_and(|c| c.supports_tasks());
                if tasks
                    && entry.decl.long_running == Some(LongRunning::Starts)
                    && let Some(task) = crate::operations::as_task(&result, clock())
                {
                    return Ok(CallToolResponse::Task(task.with_meta(self.0.meta.clone())));
                }
            }
            Ok(self.sent(result, &context))
        })
        .await
    }

    /// `tasks/get`: the task id is the operation's handle; the answer is what the status tool
    /// would say, as a task state.
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Box::pin(async move {
            let call = CallInfo::of(&context);
            let (since, outcome) = match self.follow(&request.task_id, &call).await {
                Ok(followed) => followed,
                // Not a task of this server for this caller, or too old: alike (H4).
                Err(e) => return Err(ErrorData::invalid_params(format!("unknown task: {}", e.message), None)),
            };
            let result = match outcome {
                Ok(result) => result,
                // The API could not be read this time: the operation stands; ask again later.
                Err(e) if e.retryable => crate::operations::working(&request.task_id, e.retry_after_ms),
                // The operation ended in an error: a completed call whose result is that error (E1).
                Err(e) => e.into_result(),
            };
            let mut out = GetTaskResult::new(crate::operations::detailed(&request.task_id, since, result, clock()));
            out.meta = Some(self.0.meta.clone());
            Ok(out)
        })
        .await
    }

    /// `tasks/cancel` is acknowledged (SEP-2663: cancellation is cooperative, the server is
    /// obliged only to acknowledge it) and changes nothing: an HTTP API's `202` offers no way to
    /// stop the work, so `tasks/get` goes on reporting how the operation stands.
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let call = CallInfo::of(&context);
        let follower = self.0.follower.unwrap_or_default();
        if let Err(e) = crate::operations::open(&self.0.handle_key, follower, &call.caller, clock(), &request.task_id) {
            return Err(ErrorData::invalid_params(format!("unknown task: {}", e.message), None));
        }
        tracing::info!(task = %request.task_id, "tasks/cancel acknowledged; the upstream operation cannot be stopped and runs on");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::{Method, SunsetDecl};

    const fn tool(name: &'static str, sunset: Option<SunsetDecl>) -> ToolDecl {
        ToolDecl {
            name,
            method: Method::Get,
            path: "/x",
            args: &[],
            fixed: &[],
            body: None,
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
            sunset,
            result_budget: 8_000,
        }
    }

    static NEW: ToolDecl = tool("search_customers", None);
    static OLD: ToolDecl = tool(
        "list_customers",
        Some(SunsetDecl { until: "2027-03-31", until_ms: 1_806_537_599_999, use_instead: Some("search_customers") }),
    );
    static SERVER: ServerDecl = ServerDecl {
        name: "shop",
        crate_name: "shop-mcp",
        title: "Shop",
        version: "1",
        api_version: "1",
        instructions: None,
        env_prefix: "SHOP",
        default_upstream: None,
        catalog: r#"{"tools": [{"name": "list_customers", "inputSchema": {"type": "object"}}, {"name": "search_customers", "inputSchema": {"type": "object"}}]}"#,
        tools: &[&OLD, &NEW],
        schemes: &[],
        toolsets: &[],
        variants: &[],
        contract_version: "v1",
        versions: &[],
        exposure: crate::decl::Exposure::Flat,
        search: r#"{"format": 1, "tools": []}"#,
    };

    #[test]
    fn a_deprecated_tool_is_served_until_its_day_ends_then_names_its_replacement() {
        let handler = Handler::builder(&SERVER).mode(Mode::Mock).build().unwrap();
        assert!(handler.retired("list_customers", 1_806_537_599_999).is_none(), "the last millisecond of its day");
        let e = handler.retired("list_customers", 1_806_537_600_000).unwrap();
        assert_eq!(e.code, codes::TOOL_RETIRED);
        assert_eq!(e.message, "list_customers was served until 2027-03-31");
        assert!(e.recovery.contains("Call search_customers instead"), "{}", e.recovery);
        assert!(handler.retired("search_customers", u64::MAX).is_none());
    }
}
