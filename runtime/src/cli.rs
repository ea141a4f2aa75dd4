//! The generated binary's command line: `serve` (Streamable HTTP or stdio) and `tools` (print
//! the catalog). Every flag has an environment variable named after the server
//! (`PETSTORE_UPSTREAM_URL`, …); secrets are read only from the environment.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Arg, ArgAction, ArgMatches, Command};

use crate::approval::{DecideError, Decision, Plan, Plans, Status};
use crate::auth::Credentials;
use crate::decl::ServerDecl;
use crate::grants::{Client, Exchange, Grant};
use crate::handler::{Handler, Mode};
use crate::idempotency::Guard;
use crate::inbound::AuthConfig;
use crate::native::Dispatch;
use crate::serve::{self, HttpOptions, LimitOptions};
use crate::store::{self, Store};
use crate::upstream::Upstream;

fn command(server: &'static ServerDecl) -> Command {
    let env = |name: &str| format!("{}_{name}", server.env_prefix);
    let serve = Command::new("serve")
        .about("Serve the tools over MCP (Streamable HTTP by default, or stdio)")
        .arg(
            Arg::new("http")
                .long("http")
                .value_name("ADDR")
                .env(env("HTTP"))
                .default_value("127.0.0.1:8080")
                .help("Address to serve Streamable HTTP on"),
        )
        .arg(
            Arg::new("stdio")
                .long("stdio")
                .action(ArgAction::SetTrue)
                .conflicts_with("http")
                .help("Serve on stdin/stdout instead of HTTP"),
        )
        .arg(
            Arg::new("upstream")
                .long("upstream")
                .value_name("URL")
                .env(env("UPSTREAM_URL"))
                .help("Base URL of the upstream API"),
        )
        .arg(
            Arg::new("mock")
                .long("mock")
                .action(ArgAction::SetTrue)
                .env(env("MOCK"))
                .help("Answer from the spec's schemas and examples instead of calling the upstream"),
        )
        .arg(
            Arg::new("no-answer-check")
                .long("no-answer-check")
                .action(ArgAction::SetTrue)
                .env(env("NO_ANSWER_CHECK"))
                .help("Send upstream answers as structured results unchecked, even where they break the outputSchema"),
        )
        .arg(
            Arg::new("base-path")
                .long("base-path")
                .value_name("PATH")
                .env(env("BASE_PATH"))
                .default_value(format!("/mcp/{}", server.contract_version))
                .help("Path of the MCP endpoint (kept contract versions are served beside it: /mcp/v1 next to /mcp/v2)"),
        )
        .arg(
            Arg::new("timeout-ms")
                .long("timeout-ms")
                .value_name("MS")
                .env(env("TIMEOUT_MS"))
                .default_value("30000")
                .value_parser(clap::value_parser!(u64).range(1..))
                .help("Upstream request timeout"),
        )
        .arg(
            Arg::new("store")
                .long("store")
                .value_name("URL")
                .env(env("STORE"))
                .default_value(format!("sqlite://{}.db", server.crate_name))
                .help(
                    "Idempotency store and audit log: sqlite://FILE (one replica) or postgres://… (shared by replicas)",
                ),
        )
        .arg(
            Arg::new("wait-ms")
                .long("wait-ms")
                .value_name("MS")
                .env(env("WAIT_MS"))
                .default_value("10000")
                .value_parser(clap::value_parser!(u64))
                .help("How long a repeat waits for a concurrent call with the same key before answering in_progress"),
        )
        .arg(
            Arg::new("allowed-hosts")
                .long("allowed-hosts")
                .value_name("LIST")
                .env(env("ALLOWED_HOSTS"))
                .value_delimiter(',')
                .help("Host header values accepted besides loopback"),
        )
        .arg(
            Arg::new("max-protocol")
                .long("max-protocol")
                .value_name("VERSION")
                .env(env("MAX_PROTOCOL"))
                .help("Newest MCP protocol version to negotiate, e.g. 2025-11-25 (default: the newest known)"),
        )
        .arg(
            Arg::new("metrics")
                .long("metrics")
                .value_name("ADDR")
                .env(env("METRICS"))
                .help("Serve Prometheus metrics on http://ADDR/metrics (e.g. 127.0.0.1:9464), apart from the MCP endpoint"),
        )
        .arg(
            Arg::new("exposure")
                .long("exposure")
                .value_name("MODE")
                .env(env("EXPOSURE"))
                .value_parser(["flat", "discover"])
                .help("How the main endpoint offers the tools: flat (every tool listed) or discover (search_tools, describe_tools and call_tool reach them); default: the overlay's server.exposure"),
        )
        .arg(Arg::new("variants").long("variants").value_name("LIST").env(env("VARIANTS")).value_delimiter(',').help(
            "Provider variants of the catalog to serve, each on <base-path>/<variant> (e.g. openai-strict,inline)",
        ))
        .arg(
            Arg::new("allowed-origins")
                .long("allowed-origins")
                .value_name("LIST")
                .env(env("ALLOWED_ORIGINS"))
                .value_delimiter(',')
                .help("Browser origins accepted besides localhost"),
        )
        .arg(
            Arg::new("public-url")
                .long("public-url")
                .value_name("URL")
                .env(env("PUBLIC_URL"))
                .help("Origin clients reach the server at, e.g. https://mcp.example.com (resource URIs and metadata are built on it; default: the bound address)"),
        )
        .arg(Arg::new("auth-issuer").long("auth-issuer").value_name("URL").env(env("AUTH_ISSUER")).help(
            "Authorization server whose bearer tokens callers must present (its metadata and JWKS are discovered from it)",
        ))
        .arg(
            Arg::new("auth-audience")
                .long("auth-audience")
                .value_name("LIST")
                .env(env("AUTH_AUDIENCE"))
                .value_delimiter(',')
                .requires("auth-issuer")
                .help("Token audiences accepted (default: the endpoint's resource URI, RFC 8707)"),
        )
        .arg(
            Arg::new("auth-introspection")
                .long("auth-introspection")
                .value_name("URL")
                .env(env("AUTH_INTROSPECTION"))
                .requires("auth-issuer")
                .help(format!(
                    "RFC 7662 endpoint for opaque tokens (client credentials from {} and {})",
                    env("INTROSPECTION_CLIENT_ID"),
                    env("INTROSPECTION_CLIENT_SECRET")
                )),
        )
        .arg(
            Arg::new("upstream-token-exchange")
                .long("upstream-token-exchange")
                .value_name("URL")
                .env(env("UPSTREAM_TOKEN_EXCHANGE"))
                .requires("auth-issuer")
                .help(format!(
                    "Token endpoint that turns each caller's token into the caller's own upstream token (client credentials from {} and {}); the inbound token is never sent upstream",
                    env("EXCHANGE_CLIENT_ID"),
                    env("EXCHANGE_CLIENT_SECRET")
                )),
        )
        .arg(
            Arg::new("upstream-exchange-grant")
                .long("upstream-exchange-grant")
                .value_name("GRANT")
                .env(env("UPSTREAM_EXCHANGE_GRANT"))
                .value_parser(["token-exchange", "jwt-bearer"])
                .default_value("token-exchange")
                .help("RFC 8693 token exchange, or the RFC 7523 jwt-bearer grant (on-behalf-of)"),
        )
        .arg(
            Arg::new("upstream-exchange-audience")
                .long("upstream-exchange-audience")
                .value_name("URI")
                .env(env("UPSTREAM_EXCHANGE_AUDIENCE"))
                .help("Audience (or resource) to ask the exchanged token for"),
        )
        .arg(
            Arg::new("upstream-exchange-scope")
                .long("upstream-exchange-scope")
                .value_name("SCOPES")
                .env(env("UPSTREAM_EXCHANGE_SCOPE"))
                .help("Scopes to ask the exchanged token for, space-separated"),
        )
        .arg(
            Arg::new("plan-ttl")
                .long("plan-ttl")
                .value_name("SECS")
                .env(env("PLAN_TTL"))
                .value_parser(clap::value_parser!(u64).range(1..))
                .help("How long a plan of an irreversible call waits for approval (default: 86400)"),
        )
        .arg(
            Arg::new("insecure-no-auth")
                .long("insecure-no-auth")
                .action(ArgAction::SetTrue)
                .env(env("INSECURE_NO_AUTH"))
                .conflicts_with("auth-issuer")
                .help("Serve a non-loopback address without checking callers: anyone who reaches it acts with the server's upstream credentials"),
        )
        .arg(
            Arg::new("rate-limit")
                .long("rate-limit")
                .value_name("N")
                .env(env("RATE_LIMIT"))
                .value_parser(clap::value_parser!(u32))
                .help("Requests per second per caller, 0 for none (default: 50 with --auth-issuer, none without)"),
        )
        .arg(
            Arg::new("rate-burst")
                .long("rate-burst")
                .value_name("N")
                .env(env("RATE_BURST"))
                .value_parser(clap::value_parser!(u32))
                .help("Requests a caller may send at once above its rate (default: twice the rate)"),
        )
        .arg(
            Arg::new("max-in-flight")
                .long("max-in-flight")
                .value_name("N")
                .env(env("MAX_IN_FLIGHT"))
                .default_value("512")
                .value_parser(clap::value_parser!(usize))
                .help("Requests handled at once; more are answered 503"),
        )
        .arg(
            Arg::new("max-body-bytes")
                .long("max-body-bytes")
                .value_name("BYTES")
                .env(env("MAX_BODY_BYTES"))
                .default_value("1048576")
                .value_parser(clap::value_parser!(usize))
                .help("Largest request body accepted; larger ones are answered 413"),
        );
    Command::new(server.crate_name)
        .version(server.version)
        .about(format!("MCP server for {} (generated by mcp-gen)", server.title))
        .subcommand_required(true)
        .subcommand(serve)
        .subcommand(Command::new("tools").about("Print the catalog served on tools/list (tools.json)"))
        .subcommand(approvals_command(server))
}

fn approvals_command(server: &'static ServerDecl) -> Command {
    let env = |name: &str| format!("{}_{name}", server.env_prefix);
    let id = || Arg::new("id").value_name("ID").required(true).help("The plan's id (plan_…)");
    let json = || Arg::new("json").long("json").action(ArgAction::SetTrue).help("Print JSON");
    let reason =
        || Arg::new("reason").long("reason").value_name("TEXT").help("Why: kept with the plan, and told to the agent");
    Command::new("approvals")
        .about("Plans of irreversible calls that wait for a person: list, show, approve, reject")
        .subcommand_required(true)
        .arg(
            Arg::new("store")
                .long("store")
                .value_name("URL")
                .env(env("STORE"))
                .default_value(format!("sqlite://{}.db", server.crate_name))
                .global(true)
                .help("The server's store: sqlite://FILE or postgres://…"),
        )
        .subcommand(
            Command::new("list")
                .about("Every plan, newest first")
                .arg(Arg::new("status").long("status").value_name("STATUS").value_parser([
                    "awaiting_approval",
                    "approved",
                    "rejected",
                    "expired",
                    "applied",
                ]))
                .arg(json()),
        )
        .subcommand(Command::new("show").about("One plan").arg(id()).arg(json()))
        .subcommand(
            Command::new("approve")
                .about("Approve a plan: the agent's next call with the same key carries it out")
                .arg(id())
                .arg(reason())
                .arg(json()),
        )
        .subcommand(
            Command::new("reject")
                .about("Reject a plan: the agent is told it will not be done")
                .arg(id())
                .arg(reason())
                .arg(json()),
        )
}

fn print_plan(plan: &Plan, json: bool) {
    if json {
        println!("{}", serde_json::to_string_pretty(plan).unwrap_or_default());
    } else {
        println!("{}  {}  {}  {}", plan.id, plan.status.as_str(), plan.caller, plan.summary);
    }
}

/// `approvals …`: the operator's side of plan / approve / apply, on the server's store.
fn approvals(server: &'static ServerDecl, m: &ArgMatches) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
    };
    let url = m.get_one::<String>("store").cloned().unwrap_or_else(|| format!("sqlite://{}.db", server.crate_name));
    runtime.block_on(async move {
        let plans = match store::open(&url).await {
            Ok(s) => Plans::new(s),
            Err(e) => return fail(&format!("--store: {e}")),
        };
        let now = store::now_ms();
        let Some((sub, sm)) = m.subcommand() else { return ExitCode::from(2) };
        let as_json = sm.get_flag("json");
        let id = sm.try_get_one::<String>("id").ok().flatten().cloned().unwrap_or_default();
        let decided = |decision| {
            let plans = plans.clone();
            let id = id.clone();
            let reason = sm.get_one::<String>("reason").cloned();
            async move {
                let by = format!("cli:{}", std::env::var("USER").unwrap_or_else(|_| "operator".to_owned()));
                match plans.decide(&id, decision, &by, reason.as_deref(), now).await {
                    Ok(plan) => {
                        print_plan(&plan, as_json);
                        ExitCode::SUCCESS
                    }
                    Err(e @ (DecideError::NotFound(_) | DecideError::Settled { .. })) => {
                        eprintln!("error: {e}");
                        ExitCode::FAILURE
                    }
                    Err(DecideError::Store(e)) => fail(&e.to_string()),
                }
            }
        };
        match sub {
            "list" => {
                let status = sm.get_one::<String>("status").and_then(|s| Status::parse(s));
                match plans.list(status, now).await {
                    Ok(list) if as_json => {
                        println!(
                            "{}",
                            serde_json::to_string_pretty(&serde_json::json!({"plans": list})).unwrap_or_default()
                        );
                        ExitCode::SUCCESS
                    }
                    Ok(list) => {
                        list.iter().for_each(|p| print_plan(p, false));
                        ExitCode::SUCCESS
                    }
                    Err(e) => fail(&e.to_string()),
                }
            }
            "show" => match plans.get(&id, now).await {
                Ok(Some(plan)) => {
                    print_plan(&plan, as_json);
                    ExitCode::SUCCESS
                }
                Ok(None) => {
                    eprintln!("error: no plan `{id}`");
                    ExitCode::FAILURE
                }
                Err(e) => fail(&e.to_string()),
            },
            "approve" => decided(Decision::Approve).await,
            "reject" => decided(Decision::Reject).await,
            _ => ExitCode::from(2),
        }
    })
}

pub fn main(server: &'static ServerDecl, native: Option<std::sync::Arc<dyn Dispatch>>) -> ExitCode {
    let matches = command(server).get_matches();
    match matches.subcommand() {
        Some(("tools", _)) => {
            print!("{}", server.catalog);
            ExitCode::SUCCESS
        }
        Some(("serve", m)) => serve_command(server, native, m),
        Some(("approvals", m)) => approvals(server, m),
        _ => ExitCode::from(2),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

fn serve_command(
    server: &'static ServerDecl,
    native: Option<std::sync::Arc<dyn Dispatch>>,
    m: &ArgMatches,
) -> ExitCode {
    init_tracing(server);
    // One TLS provider for reqwest, chosen here rather than by feature unification.
    crate::init_tls();
    let timeout = Duration::from_millis(m.get_one::<u64>("timeout-ms").copied().unwrap_or(30_000));
    let proxied = server.tools.iter().any(|t| !t.native);
    let mode = if m.get_flag("mock") {
        Some(Mode::Mock)
    } else if !proxied {
        None
    } else {
        let Some(base) = m.get_one::<String>("upstream").map(String::as_str).or(server.default_upstream) else {
            return fail(&format!(
                "no upstream URL: pass --upstream URL or set {}_UPSTREAM_URL (or --mock to answer from the spec)",
                server.env_prefix
            ));
        };
        let credentials = Credentials::load(server.schemes, |k| std::env::var(k).ok());
        let mut upstream = match Upstream::new(base, timeout, credentials) {
            Ok(u) => u,
            Err(e) => return fail(&e),
        };
        if let Some(url) = m.get_one::<String>("upstream-token-exchange") {
            let var =
                |name: &str| std::env::var(format!("{}_{name}", server.env_prefix)).ok().filter(|v| !v.is_empty());
            let Some(id) = var("EXCHANGE_CLIENT_ID") else {
                return fail(&format!(
                    "--upstream-token-exchange needs this server's client id at the token endpoint: set {}_EXCHANGE_CLIENT_ID (and {}_EXCHANGE_CLIENT_SECRET)",
                    server.env_prefix, server.env_prefix
                ));
            };
            let grant = m
                .get_one::<String>("upstream-exchange-grant")
                .and_then(|g| Grant::parse(g))
                .unwrap_or(Grant::TokenExchange);
            upstream = upstream.with_exchange(Exchange::new(
                url.clone(),
                grant,
                Client { id, secret: var("EXCHANGE_CLIENT_SECRET") },
                m.get_one::<String>("upstream-exchange-audience").cloned(),
                m.get_one::<String>("upstream-exchange-scope").cloned(),
            ));
        }
        Some(Mode::Upstream(upstream))
    };
    let target = match &mode {
        Some(Mode::Mock) => "mock answers".to_owned(),
        Some(Mode::Upstream(u)) => {
            let per_user = u.exchange().map(|x| format!(", callers' own tokens from {}", x.url())).unwrap_or_default();
            format!("upstream {} ({} credential(s) configured{per_user})", u.base(), u.credentials().configured())
        }
        None => "native handlers".to_owned(),
    };
    let mut handler = Handler::builder(server);
    if let Some(mode) = mode {
        handler = handler.mode(mode);
    }
    if let Some(native) = native {
        handler = handler.native_shared(native);
    }
    let has_handles = server.tools.iter().any(|t| t.handle.is_some());
    // Next-page handles (H1): signed with a key replicas share, from the environment only (S2).
    let key_var = format!("{}_HANDLE_KEY", server.env_prefix);
    match std::env::var(&key_var) {
        Ok(secret) => match crate::handle::HandleKey::from_secret(&secret) {
            Ok(key) => handler = handler.handle_key(key),
            Err(e) => return fail(&format!("{key_var}: {e}")),
        },
        Err(_) if has_handles => eprintln!(
            "{}: next-page handles are signed with a key of this process only: set {key_var} (32+ characters, the same on every replica) so they outlive a restart",
            server.crate_name
        ),
        Err(_) => {}
    }
    if let Some(secs) = m.get_one::<u64>("plan-ttl") {
        handler = handler.plan_ttl(Duration::from_secs(*secs));
    }
    if let Some(exposure) = m.get_one::<String>("exposure").and_then(|e| crate::decl::Exposure::parse(e)) {
        handler = handler.exposure(exposure);
    }
    if m.get_flag("no-answer-check") {
        handler = handler.answer_check(false);
    }
    if let Some(max) = m.get_one::<String>("max-protocol") {
        let Some(version) = Handler::known_protocol(max) else {
            let known: Vec<&str> = rmcp::model::ProtocolVersion::KNOWN_VERSIONS.iter().map(|v| v.as_str()).collect();
            return fail(&format!(
                "--max-protocol `{max}` is not a protocol version this server knows ({})",
                known.join(", ")
            ));
        };
        handler = handler.max_protocol(&version);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
    };
    let store_url =
        m.get_one::<String>("store").cloned().unwrap_or_else(|| format!("sqlite://{}.db", server.crate_name));
    let store = match runtime.block_on(store::open(&store_url)) {
        Ok(s) => s,
        Err(e) => {
            return fail(&format!(
                "--store: {e} (pass --store sqlite:///a/writable/dir/{}.db or postgres://…, or set {}_STORE)",
                server.crate_name, server.env_prefix
            ));
        }
    };
    // A live owner must never lose its record: the lease outlasts the upstream timeout.
    let lease = timeout + Duration::from_secs(5);
    let wait = Duration::from_millis(m.get_one::<u64>("wait-ms").copied().unwrap_or(10_000));
    let target = format!("{target}; store {}", store.describe());
    runtime.spawn(sweep(store.clone()));
    let handler = match handler.guard(Guard::new(store, lease, wait)).build() {
        Ok(h) => h,
        Err(e) => return fail(&e.to_string()),
    };
    let tools = handler.tools().len();
    let result = if m.get_flag("stdio") {
        eprintln!("{}: serving {tools} tool(s) on stdio → {target}", server.crate_name);
        runtime.block_on(serve::stdio(handler))
    } else {
        let raw = m.get_one::<String>("http").map(String::as_str).unwrap_or("127.0.0.1:8080");
        let addr: SocketAddr = match raw.parse() {
            Ok(a) => a,
            Err(_) => return fail(&format!("--http `{raw}` is not an address such as 127.0.0.1:8080")),
        };
        let base_path =
            m.get_one::<String>("base-path").cloned().unwrap_or_else(|| format!("/mcp/{}", server.contract_version));
        if !base_path.starts_with('/') {
            return fail(&format!("--base-path `{base_path}` must start with `/`"));
        }
        let list = |name: &str| {
            m.get_many::<String>(name).map(|v| v.filter(|s| !s.is_empty()).cloned().collect()).unwrap_or_default()
        };
        let variants: Vec<String> = list("variants");
        let known: Vec<&str> = handler.variant_names().collect();
        if let Some(unknown) = variants.iter().find(|v| !known.contains(&v.as_str())) {
            return fail(&format!(
                "--variants: no variant `{unknown}` in this server (it has: {})",
                if known.is_empty() { "none".to_owned() } else { known.join(", ") }
            ));
        }
        if let Some(clash) = variants.iter().find(|v| handler.toolset_names().any(|t| t == v.as_str())) {
            return fail(&format!("--variants: `{clash}` is also a toolset's name; both would be served on one path"));
        }
        let auth = m.get_one::<String>("auth-issuer").map(|issuer| AuthConfig {
            issuer: issuer.clone(),
            audiences: list("auth-audience"),
            introspection: m.get_one::<String>("auth-introspection").cloned(),
            client_id: std::env::var(format!("{}_INTROSPECTION_CLIENT_ID", server.env_prefix)).ok(),
            client_secret: std::env::var(format!("{}_INTROSPECTION_CLIENT_SECRET", server.env_prefix)).ok(),
        });
        // Without auth, anyone who reaches the port acts with the upstream credentials.
        if auth.is_none() && !addr.ip().is_loopback() {
            if !m.get_flag("insecure-no-auth") {
                return fail(&format!(
                    "--http {addr} is not a loopback address and no --auth-issuer is set: callers would act with this server's upstream credentials unchecked. Set --auth-issuer URL (or {}_AUTH_ISSUER), or pass --insecure-no-auth if something in front of the server authenticates them",
                    server.env_prefix
                ));
            }
            tracing::warn!(%addr, "serving a non-loopback address without authentication (--insecure-no-auth)");
            eprintln!("{}: WARNING: serving {addr} without authentication (--insecure-no-auth)", server.crate_name);
        }
        let rate = m.get_one::<u32>("rate-limit").copied().unwrap_or(if auth.is_some() { 50 } else { 0 });
        let limits = LimitOptions {
            rate_per_second: rate,
            burst: m.get_one::<u32>("rate-burst").copied().unwrap_or(rate.saturating_mul(2)),
            max_in_flight: m.get_one::<usize>("max-in-flight").copied().unwrap_or(512),
            body_limit: m.get_one::<usize>("max-body-bytes").copied().unwrap_or(1 << 20),
        };
        let public_url = m.get_one::<String>("public-url").cloned();
        if let Some(url) = &public_url
            && !reqwest::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.has_host())
        {
            return fail(&format!("--public-url `{url}` must be an http(s) URL such as https://mcp.example.com"));
        }
        let operator_var = format!("{}_OPERATOR_TOKEN", server.env_prefix);
        let operator_token = std::env::var(&operator_var).ok().filter(|t| !t.is_empty());
        if operator_token.as_ref().is_some_and(|t| t.len() < 32) {
            return fail(&format!("{operator_var} must be at least 32 characters (a random secret)"));
        }
        let options = HttpOptions {
            addr,
            operator_token,
            base_path: base_path.clone(),
            allowed_hosts: list("allowed-hosts"),
            allowed_origins: list("allowed-origins"),
            variants,
            public_url,
            auth,
            limits,
        };
        let name = server.crate_name;
        if let Some(raw) = m.get_one::<String>("metrics") {
            let Ok(metrics_addr) = raw.parse::<SocketAddr>() else {
                return fail(&format!("--metrics `{raw}` is not an address such as 127.0.0.1:9464"));
            };
            let handle = match crate::telemetry::install() {
                Ok(h) => h,
                Err(e) => return fail(&e),
            };
            runtime.spawn(async move {
                let served = crate::telemetry::serve(handle, metrics_addr, |bound| {
                    // No `http://` here: scripts read the MCP endpoint from the first URL printed.
                    eprintln!("{name}: Prometheus metrics at {bound} (GET /metrics)");
                });
                if let Err(e) = served.await {
                    tracing::error!(error = %e, addr = %metrics_addr, "cannot serve metrics");
                    eprintln!("{name}: error: cannot serve metrics on {metrics_addr}: {e}");
                }
            });
        }
        let kept = serve::version_paths(&handler, &options);
        runtime
            .block_on(serve::http(handler, options, |bound| {
                // Tests and scripts read the actual address (port 0 picks a free one) from this line.
                eprintln!("{name}: serving {tools} tool(s) on http://{bound}{base_path} → {target}");
                for (version, path) in &kept {
                    eprintln!("{name}: serving the kept contract {version} on http://{bound}{path}");
                }
            }))
            .map_err(|e| format!("HTTP server on {addr}: {e}"))
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Deletes expired idempotency records once a minute (R5).
async fn sweep(store: std::sync::Arc<dyn Store>) {
    let mut every = tokio::time::interval(Duration::from_secs(60));
    loop {
        every.tick().await;
        match store.sweep(store::now_ms()).await {
            Ok(0) => {}
            Ok(n) => tracing::debug!(records = n, "expired idempotency records swept"),
            Err(e) => tracing::warn!(error = %e, "cannot sweep expired idempotency records"),
        }
    }
}

/// The log filter without `<PREFIX>_LOG` or `RUST_LOG`. rmcp logs three `info` lines for every
/// stateless request (a session opened and closed around it), one with the client's whole
/// initialize parameters: noise that cost a third of the server's time per call.
const DEFAULT_LOG: &str = "info,rmcp=warn";

fn init_tracing(server: &'static ServerDecl) {
    let var = format!("{}_LOG", server.env_prefix);
    let filter = std::env::var(&var).or_else(|_| std::env::var("RUST_LOG")).unwrap_or_else(|_| DEFAULT_LOG.to_owned());
    let filter = tracing_subscriber::EnvFilter::try_new(&filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_LOG));
    // Logs go to stderr: on stdio, stdout carries only MCP messages.
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(false).try_init();
}
