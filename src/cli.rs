//! The `mcp-gen` command line: a thin front end over [`crate::generate`]. Diagnostics go to
//! stderr, machine output to stdout. Exit codes: 0 success, 1 check found drift, 2 bad input.

/// `println!`/`print!` that end the process quietly when stdout is closed (`mcp-gen plan | head`)
/// instead of panicking, as command-line tools do.
macro_rules! println {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout().lock(), $($t)*).is_err() {
            std::process::exit(0);
        }
    }};
}
macro_rules! print {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        if write!(out, $($t)*).and_then(|()| out.flush()).is_err() {
            std::process::exit(0);
        }
    }};
}

use std::io::Write as _;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::schema::variant::{self, Variant};
use crate::settings::{RuntimeDep, Settings};
use crate::write::Drift;
use crate::{Input, Report, SourceInput, generate};

#[derive(Debug, Parser)]
#[command(name = "mcp-gen", version, about = "Compile an OpenAPI description into an MCP server crate")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, clap::Args)]
pub struct SpecArgs {
    /// The API description: OpenAPI 3.0 or 3.1 or Swagger 2.0, YAML or JSON.
    #[arg(long, value_name = "FILE")]
    pub spec: PathBuf,
    /// Tool intents: names, descriptions, exclusions (overlay format v1).
    #[arg(long, value_name = "FILE")]
    pub overlay: Option<PathBuf>,
    /// Short server name; the crate is `<name>-mcp` (default: the overlay's, else from the title).
    #[arg(long)]
    pub name: Option<String>,
    /// A native build: the crate's own handlers run the tools (see docs/native.md); what
    /// `build.rs` with `Builder::native()` compiles.
    #[arg(long)]
    pub native: bool,
}

impl SpecArgs {
    /// Settings for the commands that need the catalog, not the crate.
    fn catalog_settings(&self) -> Settings {
        Settings { name: self.name.clone(), catalog_only: true, native: self.native, ..Settings::default() }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write a server crate.
    Build {
        #[command(flatten)]
        spec: SpecArgs,
        /// Directory of the crate to write (created if needed).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Path to mcp-gen-runtime for the crate's path dependency (default: the runtime beside
        /// this compiler's sources, else the published crate).
        #[arg(long, value_name = "DIR")]
        runtime_path: Option<PathBuf>,
        /// Keep serving the earlier contract as this version (`v1`, at `/mcp/v1`) beside the new
        /// one: its spec and overlay are pinned into the crate under `versions/<name>/`. The
        /// earlier inputs come from --kept-spec/--kept-overlay, or from git (--kept-git REF,
        /// the same paths as --spec and --overlay at that revision).
        #[arg(long, value_name = "NAME")]
        keep_version: Option<String>,
        #[arg(long, value_name = "SPEC", requires = "keep_version", conflicts_with = "kept_git")]
        kept_spec: Option<PathBuf>,
        #[arg(long, value_name = "OVERLAY", requires = "kept_spec")]
        kept_overlay: Option<PathBuf>,
        #[arg(long, value_name = "REF", requires = "keep_version")]
        kept_git: Option<String>,
    },
    /// Print the exact tools/list payload the server will serve.
    Catalog {
        #[command(flatten)]
        spec: SpecArgs,
        /// Only the tools of this toolset (what `/mcp/v1/<toolset>` serves).
        #[arg(long)]
        toolset: Option<String>,
        /// The schemas of a provider variant: mcp (default), openai-strict, gemini, inline.
        #[arg(long, value_name = "NAME", default_value = "mcp")]
        variant: String,
        /// Print the variant's loss report (what it no longer enforces) instead of the catalog.
        #[arg(long, conflicts_with = "openai_functions")]
        losses: bool,
        /// Print OpenAI function tools (`{"type":"function",…,"strict":true}`) from the openai-strict variant.
        #[arg(long)]
        openai_functions: bool,
    },
    /// Compile and report every diagnostic: spec and overlay problems and the contract lint
    /// (exit 1 on errors, or on warnings with --deny-warnings).
    Lint {
        #[command(flatten)]
        spec: SpecArgs,
        /// Print the diagnostics as JSON (code, severity, message, file, pointer, line, column, help).
        #[arg(long)]
        json: bool,
        /// Count warnings as errors.
        #[arg(long)]
        deny_warnings: bool,
        /// Also hold the catalog to this checked-in tools.json (T5: a stale snapshot is an error).
        #[arg(long, value_name = "TOOLS_JSON")]
        against: Option<PathBuf>,
        /// Hold every endpoint to a model provider's limits (T6): openai, anthropic, gemini.
        #[arg(long, value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(crate::plan::exposure::names()))]
        client: Vec<String>,
    },
    /// Compare the compiled contracts of two versions: every change classed breaking, semantic
    /// or additive (exit 3 on breaking, 4 on semantic, 0 otherwise).
    Diff(DiffArgs),
    /// Print the plan as JSON: every tool with its source operation and where each argument
    /// goes upstream, and every operation left out with the reason.
    Plan {
        #[command(flatten)]
        spec: SpecArgs,
        /// One line per tool instead of JSON: name, the rule that gave it and its operations,
        /// tab-separated (the corpus sample's name snapshot, `tests/names/`).
        #[arg(long)]
        names: bool,
    },
    /// Count o200k_base tokens of what the model reads of each tool (name, description,
    /// inputSchema) and in total; exit 1 over a budget.
    Tokens {
        #[command(flatten)]
        spec: SpecArgs,
        /// Fail when the whole catalog's visible tokens exceed this.
        #[arg(long, value_name = "TOKENS")]
        budget: Option<usize>,
        /// Fail when any one tool's visible tokens exceed this.
        #[arg(long, value_name = "TOKENS")]
        max_per_tool: Option<usize>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Rank the tools for a request as the server's `search_tools` does (exposure `discover`),
    /// without a server: to evaluate and tune a catalog's search.
    Search {
        #[command(flatten)]
        spec: SpecArgs,
        /// How many tools to print.
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// Print `{"results": [{"tool", "operations", "score"}]}`, best first (operations by
        /// operationId, or `METHOD /path` where there is none).
        #[arg(long)]
        json: bool,
        /// Rank every line of this file (one request a line) against one compilation: one JSON
        /// line each, in order (implies --json).
        #[arg(long, value_name = "FILE", conflicts_with = "query")]
        queries: Option<PathBuf>,
        /// The request, as a user would say it.
        #[arg(required_unless_present = "queries")]
        query: Option<String>,
    },
    /// Print a published JSON Schema of mcp-gen's own formats.
    Schema {
        #[command(subcommand)]
        what: SchemaWhat,
    },
    /// Check that every validation constraint of the source document reaches the emitted tool
    /// schemas (exit 1 when one does not). Used by the corpus sweep (`scripts/corpus-sweep.py`).
    Fidelity {
        #[command(flatten)]
        spec: SpecArgs,
        /// Print the result as JSON (counts, left-out operations, losses).
        #[arg(long)]
        json: bool,
    },
    /// Normalise a standalone JSON Schema document (draft-04 to 2020-12) into one
    /// self-contained 2020-12 schema, as mcp-gen does for OpenAPI schemas; prints it.
    Normalize {
        /// The JSON Schema document, YAML or JSON.
        #[arg(long, value_name = "FILE")]
        schema: PathBuf,
    },
    /// Exit 1 and show a diff when generated code is stale. With no arguments: every
    /// `specs/<name>/` against `generated/<name>/` in the repository.
    Check {
        #[arg(long, value_name = "FILE", requires = "out")]
        spec: Option<PathBuf>,
        #[arg(long, value_name = "FILE", requires = "spec")]
        overlay: Option<PathBuf>,
        #[arg(long)]
        name: Option<String>,
        /// The crate at `--out` is a native build (`mcp-gen build --native`).
        #[arg(long, requires = "spec")]
        native: bool,
        #[arg(long, value_name = "DIR", requires = "spec")]
        out: Option<PathBuf>,
        /// Repository root holding `specs/` and `generated/` (default: found from the current
        /// directory upwards).
        #[arg(long, value_name = "DIR", conflicts_with = "spec")]
        root: Option<PathBuf>,
        /// Show each stale file's unified diff (by default drift is explained as the contract
        /// diff of `tools.json`, with the stale files named).
        #[arg(long)]
        files: bool,
    },
    /// Call the API's safe reads (and a scenario's writes) on a live upstream and check every
    /// answer against the contract: each mismatch located in the description with the overlay
    /// patch that fixes it (exit 1 on mismatches, 2 on errors). Sends no write unless
    /// --writes asks for it.
    Verify {
        #[command(flatten)]
        spec: SpecArgs,
        /// The upstream's base URL, as `serve --upstream` takes it.
        #[arg(long, value_name = "URL")]
        upstream: String,
        /// A scenario file (`steps: [{tool, args}]`, YAML or JSON): writes sent in order, before
        /// the reads, whose answers are checked too.
        #[arg(long, value_name = "SCENARIO")]
        writes: Option<PathBuf>,
        /// Write the overlay (--overlay's, or a new one) with the patches added to this file.
        #[arg(long, value_name = "FILE")]
        write_overlay: Option<PathBuf>,
    },
    /// Regenerate every `generated/<name>/` from `specs/<name>/` (what `check` compares against).
    Bless {
        /// Repository root (default: found from the current directory upwards).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
}

/// `mcp-gen diff`'s inputs and output choices.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The old spec (or --old-catalog, or --git-base).
    #[arg(long, value_name = "SPEC", required_unless_present_any = ["old_catalog", "git_base"])]
    pub old: Option<PathBuf>,
    #[arg(long, value_name = "FILE")]
    pub old_overlay: Option<PathBuf>,
    /// The old contract as a checked-in tools.json (tools are then matched by name only).
    #[arg(long, value_name = "TOOLS_JSON", conflicts_with_all = ["old", "git_base"])]
    pub old_catalog: Option<PathBuf>,
    /// Read the old spec and overlay (the --new paths) from this git revision.
    #[arg(long, value_name = "REF", conflicts_with = "old")]
    pub git_base: Option<String>,
    /// The new spec.
    #[arg(long, value_name = "SPEC")]
    pub new: PathBuf,
    #[arg(long, value_name = "FILE")]
    pub new_overlay: Option<PathBuf>,
    /// Print `{"changes": [...]}`.
    #[arg(long)]
    pub json: bool,
    /// Print a Markdown summary (for a pull request).
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
    /// Exit 0 on semantic changes; only breaking ones fail.
    #[arg(long)]
    pub allow_semantic: bool,
    /// Exit 0 on breaking changes too when the API's major version (`info.version`) went up:
    /// the change comes as a new version.
    #[arg(long)]
    pub allow_breaking_on_major: bool,
}

#[derive(Debug, Subcommand)]
pub enum SchemaWhat {
    /// The overlay format v1 (also in `schemas/overlay-v1.schema.json`).
    Overlay {
        /// The book's reference chapter written from the schema (`docs/reference/overlay.md`).
        #[arg(long)]
        markdown: bool,
    },
    /// The naming rules, in the order they are tried, as the book's reference (Markdown).
    Naming,
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // A panic is a bug in mcp-gen, never the user's fault; say so instead of a bare backtrace.
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(code) => code,
        Err(_) => {
            eprintln!(
                "error[internal]: mcp-gen crashed; this is a bug, please report it with the input that caused it"
            );
            ExitCode::from(2)
        }
    }
}

pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Build { spec, out, runtime_path, keep_version, kept_spec, kept_overlay, kept_git } => {
            build_crate(spec, out, runtime_path, keep_version, kept_spec, kept_overlay, kept_git)
        }
        Command::Catalog { spec, toolset, variant, losses, openai_functions } => {
            print_catalog(spec, toolset, variant, losses, openai_functions)
        }
        Command::Fidelity { spec, json } => {
            let settings = spec.catalog_settings();
            let input = Input::files(&spec.spec, spec.overlay.clone());
            let result = match crate::fidelity::check_input(&input, &settings) {
                Ok(r) => r,
                Err(report) => {
                    print_report(&report);
                    return ExitCode::from(2);
                }
            };
            if json {
                println!("{}", result.to_json());
            } else {
                println!(
                    "{} operation(s), {} left out; {} of {} constraint(s) preserved ({} not applicable)",
                    result.operations,
                    result.left_out.len(),
                    result.preserved,
                    result.constraints,
                    result.not_applicable
                );
                for (op, why) in &result.left_out {
                    println!("  left out: {op}: {why}");
                }
                println!("{} schema(s) checked against the 2020-12 meta-schema", result.schemas);
                for (tool, e) in &result.invalid_schemas {
                    println!("  INVALID {tool}: {e}");
                }
                for l in &result.losses {
                    println!("  LOST {} at {} ({}): {}", l.keyword, l.at, l.tool, l.detail);
                }
            }
            if result.is_complete() { ExitCode::SUCCESS } else { ExitCode::from(1) }
        }
        Command::Verify { spec, upstream, writes, write_overlay } => verify(&spec, upstream, writes, write_overlay),
        Command::Lint { spec, json, deny_warnings, against, client } => {
            lint_spec(spec, json, deny_warnings, against, &client)
        }
        Command::Diff(args) => diff_versions(args),
        Command::Plan { spec, names } => {
            let settings = spec.catalog_settings();
            let Some(output) = compile(&spec, &settings) else { return ExitCode::from(2) };
            if names {
                print!("{}", crate::plan::review::names(&output.catalog));
                return ExitCode::SUCCESS;
            }
            match serde_json::to_string_pretty(&crate::plan::review::review(&output.catalog)) {
                Ok(text) => {
                    println!("{text}");
                    ExitCode::SUCCESS
                }
                Err(_) => ExitCode::from(2),
            }
        }
        Command::Tokens { spec, budget, max_per_tool, json } => print_tokens(spec, budget, max_per_tool, json),
        Command::Search { spec, top, json, queries, query } => {
            let queries: Vec<String> = match (queries, query) {
                (Some(file), _) => match std::fs::read_to_string(&file) {
                    Ok(text) => text.lines().map(str::to_owned).collect(),
                    Err(e) => {
                        eprintln!("error: cannot read {}: {e}", file.display());
                        return ExitCode::from(2);
                    }
                },
                (None, query) => query.into_iter().collect(),
            };
            print_search(spec, top, json || queries.len() != 1, &queries)
        }
        Command::Schema { what: SchemaWhat::Overlay { markdown } } => {
            if markdown {
                print!("{}", crate::overlay_reference::markdown());
            } else {
                print!("{}", crate::overlay::json_schema());
            }
            ExitCode::SUCCESS
        }
        Command::Schema { what: SchemaWhat::Naming } => {
            print!("{}", crate::plan::naming::rules_markdown());
            ExitCode::SUCCESS
        }
        Command::Normalize { schema } => match crate::json_schema::normalize(&SourceInput::Path(schema)) {
            Ok((value, report)) => {
                print_report(&report);
                match serde_json::to_string_pretty(&value) {
                    Ok(text) => {
                        println!("{text}");
                        ExitCode::SUCCESS
                    }
                    Err(_) => ExitCode::from(2),
                }
            }
            Err(report) => {
                print_report(&report);
                ExitCode::from(2)
            }
        },
        Command::Check { spec: Some(spec), overlay, name, native, out: Some(out), files, .. } => {
            let args = SpecArgs { spec, overlay, name, native };
            let runtime = default_runtime(&out);
            let settings =
                Settings { name: args.name.clone(), runtime, catalog_only: false, native, module_only: false };
            let Some(output) = compile(&args, &settings) else { return ExitCode::from(2) };
            let label = out.display().to_string();
            let contract = contract_drift(&out, &output.files);
            report_drift(&[(label.clone(), drift(&out, &output.files, &label), contract)], files)
        }
        Command::Check { root, files, .. } => check_repo(root, files),
        Command::Bless { root } => bless(root),
    }
}

/// `mcp-gen diff`: the contract change between two versions, classed, as text, JSON or Markdown.
fn diff_versions(args: DiffArgs) -> ExitCode {
    let DiffArgs {
        old,
        old_overlay,
        old_catalog,
        git_base,
        new,
        new_overlay,
        json,
        markdown,
        allow_semantic,
        allow_breaking_on_major,
    } = args;
    let settings = Settings { catalog_only: true, ..Settings::default() };
    let versions = std::cell::RefCell::new(Vec::new());
    let contracts = |spec: &Path, overlay: Option<PathBuf>, which: &str| {
        let input = Input::files(spec, overlay);
        match generate(&input, &settings) {
            Ok(output) => {
                versions.borrow_mut().push(output.catalog.source.api_version.clone());
                Some(crate::diff::contracts(&output.catalog))
            }
            Err(report) => {
                eprintln!("mcp-gen diff: the {which} version does not compile:");
                print_report(&report);
                None
            }
        }
    };
    let Some(after) = contracts(&new, new_overlay.clone(), "new") else { return ExitCode::from(2) };
    let before = if let Some(path) = &old_catalog {
        match std::fs::read_to_string(path).map_err(|e| e.to_string()).and_then(|t| crate::diff::from_catalog_json(&t))
        {
            Ok(c) => c,
            Err(e) => {
                eprintln!("mcp-gen diff: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    } else if let Some(rev) = &git_base {
        let dir = match tempfile::tempdir() {
            Ok(d) => d,
            Err(e) => {
                eprintln!("mcp-gen diff: cannot make a temporary directory: {e}");
                return ExitCode::from(2);
            }
        };
        let spec = match git_show(rev, &new, dir.path()) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("mcp-gen diff: {e}");
                return ExitCode::from(2);
            }
        };
        let overlay = match &new_overlay {
            Some(o) => match git_show(rev, o, dir.path()) {
                Ok(p) => Some(p),
                Err(e) => {
                    eprintln!("mcp-gen diff: {e}");
                    return ExitCode::from(2);
                }
            },
            None => None,
        };
        let Some(c) = contracts(&spec, overlay, "old") else { return ExitCode::from(2) };
        c
    } else if let Some(old) = &old {
        let Some(c) = contracts(old, old_overlay.clone(), "old") else { return ExitCode::from(2) };
        c
    } else {
        eprintln!("mcp-gen diff: give --old SPEC, --old-catalog TOOLS_JSON or --git-base REF");
        return ExitCode::from(2);
    };
    let changes = crate::diff::diff(&before, &after);
    if json {
        println!("{}", serde_json::json!({"changes": changes}));
    } else if markdown {
        print!("{}", crate::diff::markdown(&changes));
    } else if changes.is_empty() {
        eprintln!("mcp-gen diff: no contract changes");
    } else {
        for c in &changes {
            let class = format!("{:?}", c.class).to_lowercase();
            println!("{class:9} {:30} {:50} {} -> {} ({})", c.tool, c.pointer, c.before, c.after, c.rule);
        }
    }
    // `versions` holds the new version first, then the old one when it was compiled.
    let major = |v: &str| v.trim_start_matches(['v', 'V']).split('.').next().and_then(|m| m.parse::<u64>().ok());
    let versions = versions.into_inner();
    let new_major = versions.first().and_then(|v| major(v));
    let old_major = versions.get(1).and_then(|v| major(v));
    match crate::diff::exit_code(&changes) {
        4 if allow_semantic => ExitCode::SUCCESS,
        3 if allow_breaking_on_major && matches!((old_major, new_major), (Some(a), Some(b)) if b > a) => {
            eprintln!(
                "mcp-gen diff: breaking changes, with a new major version ({} → {}): allowed",
                versions.get(1).map_or("?", String::as_str),
                versions.first().map_or("?", String::as_str)
            );
            ExitCode::SUCCESS
        }
        code => ExitCode::from(code),
    }
}

/// `mcp-gen build`: pins a kept version if asked, then writes the crate.
fn build_crate(
    spec: SpecArgs,
    out: PathBuf,
    runtime_path: Option<PathBuf>,
    keep_version: Option<String>,
    kept_spec: Option<PathBuf>,
    kept_overlay: Option<PathBuf>,
    kept_git: Option<String>,
) -> ExitCode {
    if let Some(name) = &keep_version {
        let pinned = match (&kept_spec, &kept_git) {
            (Some(old), _) => crate::versions::pin(&out, name, old, kept_overlay.as_deref()),
            (None, Some(rev)) => pin_from_git(&out, name, rev, &spec),
            (None, None) => {
                Err("--keep-version needs the earlier inputs: --kept-spec SPEC [--kept-overlay F] or --kept-git REF"
                    .to_owned())
            }
        };
        if let Err(e) = pinned {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    let runtime = match runtime_path {
        Some(p) => RuntimeDep::Path(relative_to(&absolute(&out), &absolute(&p))),
        None => default_runtime(&out),
    };
    let settings =
        Settings { name: spec.name.clone(), runtime, catalog_only: false, native: spec.native, module_only: false };
    let input = match Input::files(&spec.spec, spec.overlay.clone()).keeping_versions_of(&out) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let Some(output) = compile_input(&input, &settings) else { return ExitCode::from(2) };
    match crate::write::write(&out, &output.files) {
        Ok(s) => {
            eprintln!(
                "mcp-gen: {} tool(s) → {} ({} written, {} unchanged, {} removed)",
                output.catalog.tools.len(),
                out.display(),
                s.written.len(),
                s.unchanged,
                s.removed.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error[io]: cannot write {}: {e}\n  = help: check that the directory is writable", out.display());
            ExitCode::from(2)
        }
    }
}

/// `mcp-gen catalog`: the tools/list payload, a toolset's, a variant's, its losses or its OpenAI functions.
fn print_catalog(
    spec: SpecArgs,
    toolset: Option<String>,
    variant: String,
    losses: bool,
    openai_functions: bool,
) -> ExitCode {
    let Some(variant) = Variant::parse(&variant) else {
        eprintln!("error: no variant `{variant}` (variants: {})", Variant::names());
        return ExitCode::from(2);
    };
    let variant = if openai_functions { Variant::OpenAiStrict } else { variant };
    let settings = spec.catalog_settings();
    let Some(mut output) = compile(&spec, &settings) else { return ExitCode::from(2) };
    if let Some(name) = &toolset {
        let Some(set) = output.catalog.toolsets.iter().find(|t| t.name == *name).cloned() else {
            let known: Vec<&str> = output.catalog.toolsets.iter().map(|t| t.name.as_str()).collect();
            eprintln!(
                "error: no toolset `{name}` (toolsets: {})",
                if known.is_empty() {
                    "none; declare them under `toolsets` in the overlay".to_owned()
                } else {
                    known.join(", ")
                }
            );
            return ExitCode::from(2);
        };
        output.catalog.tools.retain(|t| set.tools.contains(&t.name));
    }
    // The whole canonical catalog is already rendered; a toolset's part or a variant is
    // rendered here.
    let rendered = if variant != Variant::Mcp || losses || openai_functions {
        let v = variant::catalog(&output.catalog, variant);
        Some(if losses {
            crate::emit::pretty_json(&variant::losses_json(&v))
        } else if openai_functions {
            crate::emit::pretty_json(&variant::openai_functions(&output.catalog, &v))
        } else {
            crate::schema::tools_json::variant_tools_json(&output.catalog, &v)
        })
    } else {
        toolset.as_ref().map(|_| crate::schema::tools_json::tools_json(&output.catalog))
    };
    let text = rendered.as_deref().unwrap_or_else(|| output.tools_json());
    let mut stdout = std::io::stdout().lock();
    let written = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
    // The process ends here: freeing millions of JSON nodes one by one would only
    // delay the exit (seconds on the largest documents).
    std::mem::forget(output);
    if written.is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// `mcp-gen tokens`: what each tool costs a model, held to the budgets given.
fn print_search(spec: SpecArgs, top: usize, json: bool, queries: &[String]) -> ExitCode {
    let settings = spec.catalog_settings();
    let Some(output) = compile(&spec, &settings) else { return ExitCode::from(2) };
    let tools = &output.catalog.tools;
    let index = crate::plan::search_text::index(tools.iter().map(|t| &t.planned));
    let tool = |name: &str| tools.iter().find(|t| t.name == name);
    for query in queries {
        let hits = index.search(query, top);
        print_hits(&hits, json, tool);
    }
    ExitCode::SUCCESS
}

/// One query's ranking: a line of JSON, or one line per tool.
fn print_hits<'a>(hits: &[mcp_gen_search::Hit], json: bool, tool: impl Fn(&str) -> Option<&'a crate::schema::Tool>) {
    if json {
        let results: Vec<serde_json::Value> = hits
            .iter()
            .map(|h| {
                // Each operation by its operationId, or `METHOD /path` where it has none.
                let operations: Vec<String> = tool(h.name)
                    .into_iter()
                    .flat_map(|t| t.operations())
                    .map(|o| o.operation_id.clone().unwrap_or_else(|| format!("{} {}", o.method, o.path)))
                    .collect();
                serde_json::json!({"tool": h.name, "operations": operations, "score": h.score})
            })
            .collect();
        println!("{}", serde_json::json!({ "results": results }));
    } else {
        for (rank, h) in hits.iter().enumerate() {
            let description = tool(h.name).map(|t| t.description.as_str()).unwrap_or_default();
            println!(
                "{:>3} {:>7.2}  {}  {}",
                rank + 1,
                h.score,
                h.name,
                crate::plan::describe::first_sentences(description, 1)
            );
        }
    }
}

fn print_tokens(spec: SpecArgs, budget: Option<usize>, max_per_tool: Option<usize>, json: bool) -> ExitCode {
    let settings = spec.catalog_settings();
    let Some(output) = compile(&spec, &settings) else { return ExitCode::from(2) };
    let tokens = crate::tokens::price(&output.catalog);
    if json {
        println!("{}", tokens.to_json());
    } else {
        let mut rows: Vec<&crate::tokens::ToolTokens> = tokens.tools.iter().collect();
        rows.sort_by(|a, b| b.visible.cmp(&a.visible).then_with(|| a.name.cmp(&b.name)));
        println!("{:>8} {:>8}  tool", "visible", "output");
        for t in rows {
            println!("{:>8} {:>8}  {}", t.visible, t.output, t.name);
        }
        println!(
            "{} tool(s): {} visible tokens ({} per tool), {} in output schemas (o200k_base)",
            tokens.tools.len(),
            tokens.visible(),
            tokens.per_tool(),
            tokens.output()
        );
    }
    let mut over = false;
    if let Some(b) = budget
        && tokens.visible() > b
    {
        eprintln!("error[token-budget]: the catalog costs {} tokens, over the budget of {b}", tokens.visible());
        over = true;
    }
    if let Some(m) = max_per_tool {
        for t in tokens.tools.iter().filter(|t| t.visible > m) {
            eprintln!("error[token-budget]: `{}` costs {} tokens, over the limit of {m} per tool", t.name, t.visible);
            over = true;
        }
    }
    if over {
        eprintln!("  = help: shorten descriptions in the overlay, exclude operations, or split the API into toolsets");
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `mcp-gen lint`: every diagnostic, as text or JSON.
fn lint_spec(
    spec: SpecArgs,
    json: bool,
    deny_warnings: bool,
    against: Option<PathBuf>,
    clients: &[String],
) -> ExitCode {
    let settings = spec.catalog_settings();
    let input = Input::files(&spec.spec, spec.overlay.clone());
    let report = match generate(&input, &settings) {
        Ok(output) => {
            let mut report = output.diagnostics;
            let file = spec.spec.display().to_string();
            for profile in clients.iter().filter_map(|c| crate::plan::exposure::profile(c)) {
                report.extend(crate::lint::clients::check(&output.catalog, profile, &file));
            }
            if let Some(path) = &against {
                match std::fs::read_to_string(path) {
                    Ok(text) => {
                        let file = path.display().to_string();
                        report.extend(
                            crate::lint::check_against(&output.catalog, &text).into_iter().map(|d| d.at(&file, "")),
                        );
                    }
                    Err(e) => {
                        eprintln!("mcp-gen lint: cannot read {}: {e}", path.display());
                        return ExitCode::from(2);
                    }
                }
            }
            report
        }
        Err(report) => report,
    };
    if json {
        println!("{}", report.to_json());
    } else if report.is_empty() {
        eprintln!("mcp-gen lint: no findings");
    } else {
        eprintln!("{report}");
    }
    let warnings = report.diagnostics.iter().any(|d| d.severity == crate::Severity::Warning);
    if report.has_errors() || (deny_warnings && warnings) { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// `path` as it was at git revision `rev`, written into `dir` under its own file name.
fn git_show(rev: &str, path: &Path, dir: &Path) -> Result<PathBuf, String> {
    let name = path.file_name().ok_or_else(|| format!("{} names no file", path.display()))?;
    let out = std::process::Command::new("git")
        .arg("show")
        .arg(format!("{rev}:./{}", path.display()))
        .current_dir(".")
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!("git show {rev}:{}: {}", path.display(), String::from_utf8_lossy(&out.stderr).trim()));
    }
    let target = dir.join(name);
    std::fs::write(&target, &out.stdout).map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    Ok(target)
}

fn verify(spec: &SpecArgs, upstream: String, writes: Option<PathBuf>, write_overlay: Option<PathBuf>) -> ExitCode {
    let mut options = crate::verify::Options { upstream, writes: Vec::new() };
    if let Some(file) = &writes {
        let mut sources = crate::load::Sources::default();
        let mut report = crate::diag::Report::new();
        let value = crate::load::read_value(&file.as_path().into(), &mut sources, &mut report);
        let scenario = value.and_then(|(name, v)| match serde_path_to_error::deserialize(v) {
            Ok(s) => Some(s),
            Err(e) => {
                let at = e.path().to_string();
                report.push(
                    crate::diag::Diagnostic::error(crate::diag::codes::OVERLAY, format!("scenario: {}", e.inner()))
                        .at(&name, if at == "." { String::new() } else { format!("/{}", at.replace('.', "/")) })
                        .with_help("write `steps:` as a list of `{tool: NAME, args: {...}}`"),
                );
                None
            }
        });
        let Some(crate::verify::Scenario { steps }) = scenario else {
            print_report(&sources.finish(report));
            return ExitCode::from(2);
        };
        options.writes = steps;
    }
    let input = Input::files(&spec.spec, spec.overlay.clone());
    let verified = match crate::verify::verify(&input, &spec.catalog_settings(), &options) {
        Ok(v) => v,
        Err(report) => {
            print_report(&report);
            return ExitCode::from(2);
        }
    };
    print!("{}", crate::verify::render(&verified));
    if let Some(out) = write_overlay {
        let text = spec.overlay.as_ref().and_then(|o| std::fs::read_to_string(o).ok()).unwrap_or_default();
        match crate::verify::with_patches(&text, &verified.patches) {
            Ok(t) => {
                if let Err(e) = std::fs::write(&out, t) {
                    eprintln!("error: cannot write {}: {e}", out.display());
                    return ExitCode::from(2);
                }
                eprintln!("wrote {} with {} patch(es)", out.display(), verified.patches.len());
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if verified.mismatches.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

fn compile(args: &SpecArgs, settings: &Settings) -> Option<crate::Output> {
    compile_input(&Input::files(&args.spec, args.overlay.clone()), settings)
}

/// Pins the spec and overlay as they were at git revision `rev` as kept version `name`.
fn pin_from_git(out: &Path, name: &str, rev: &str, spec: &SpecArgs) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a temporary directory: {e}"))?;
    let old_spec = git_show(rev, &spec.spec, dir.path())?;
    let old_overlay = match &spec.overlay {
        Some(o) => {
            let sub = dir.path().join("overlay");
            std::fs::create_dir_all(&sub).map_err(|e| format!("cannot make a temporary directory: {e}"))?;
            Some(git_show(rev, o, &sub)?)
        }
        None => None,
    };
    crate::versions::pin(out, name, &old_spec, old_overlay.as_deref())
}

fn compile_input(input: &Input, settings: &Settings) -> Option<crate::Output> {
    match generate(input, settings) {
        Ok(output) => {
            print_report(&output.diagnostics);
            Some(output)
        }
        Err(report) => {
            print_report(&report);
            None
        }
    }
}

/// Errors and warnings in full; notes (lint advice, often one per tool on a large API without an
/// overlay) counted, with `mcp-gen lint` to list them.
fn print_report(report: &Report) {
    let notes = report.diagnostics.iter().filter(|d| d.severity == crate::Severity::Note).count();
    let shown = Report {
        diagnostics: report.diagnostics.iter().filter(|d| d.severity != crate::Severity::Note).cloned().collect(),
    };
    if !shown.is_empty() {
        eprintln!("{shown}");
    }
    if notes > 0 {
        eprintln!("{notes} note(s): `mcp-gen lint` lists them");
    }
}

fn drift(dir: &Path, files: &crate::Files, label: &str) -> Result<Vec<Drift>, String> {
    crate::write::diff(dir, files, label).map_err(|e| format!("cannot read {}: {e}", dir.display()))
}

/// The contract change behind a crate's drift: its checked-in `tools.json` against the one the
/// spec makes now (`None` when either is missing or unreadable).
fn contract_drift(dir: &Path, files: &crate::Files) -> Option<Vec<crate::diff::Change>> {
    let want = files.get("tools.json")?;
    let have = std::fs::read_to_string(dir.join("tools.json")).ok()?;
    if have == *want {
        return Some(Vec::new());
    }
    let (old, new) = (crate::diff::from_catalog_json(&have).ok()?, crate::diff::from_catalog_json(want).ok()?);
    Some(crate::diff::diff(&old, &new))
}

type CrateDrift = (String, Result<Vec<Drift>, String>, Option<Vec<crate::diff::Change>>);

fn report_drift(results: &[CrateDrift], show_files: bool) -> ExitCode {
    let mut stale = false;
    for (what, result, contract) in results {
        match result {
            Ok(drifts) if drifts.is_empty() => eprintln!("mcp-gen check: {what} is up to date"),
            Ok(drifts) => {
                stale = true;
                eprintln!("mcp-gen check: {what} is stale ({} file(s) differ):", drifts.len());
                match contract {
                    Some(changes) if changes.is_empty() => {
                        eprintln!("  the contract (tools.json) is the same; only the code and documents differ")
                    }
                    Some(changes) => {
                        eprintln!("  the contract changes (tools.json, tools matched by name):");
                        for c in changes {
                            let class = format!("{:?}", c.class).to_lowercase();
                            eprintln!("  {class:9} {} {} {} -> {} ({})", c.tool, c.pointer, c.before, c.after, c.rule);
                        }
                    }
                    None => {}
                }
                for d in drifts {
                    if show_files {
                        eprintln!("{d}");
                    } else {
                        match d {
                            Drift::Changed { path, .. } => eprintln!("  stale: {path}"),
                            other => eprintln!("  {other}"),
                        }
                    }
                }
            }
            Err(e) => {
                eprintln!("error[io]: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if stale {
        eprintln!(
            "help: regenerate with `cargo run -- bless` (or `mcp-gen build`), review the diff and commit it (`--files` shows each file's diff)"
        );
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// A spec directory: `openapi.{yaml,yml,json}` and, optionally, `overlay.{yaml,yml,json}`.
pub fn spec_dir_input(dir: &Path) -> Option<Input> {
    let find =
        |stem: &str| ["yaml", "yml", "json"].iter().map(|e| dir.join(format!("{stem}.{e}"))).find(|p| p.is_file());
    let spec = find("openapi")?;
    Some(Input::files(spec, find("overlay")))
}

/// The example specs of a repository and where each one's crate lives.
pub struct RepoSpec {
    pub name: String,
    pub input: Input,
    pub generated: PathBuf,
    pub settings: Settings,
}

/// Every `specs/<name>/` of the repository at `root`, with the settings `generated/<name>/` is
/// built with: name `<name>` and a path dependency on `root/runtime`.
pub fn repo_specs(root: &Path) -> Result<Vec<RepoSpec>, String> {
    let specs_dir = root.join("specs");
    let entries = std::fs::read_dir(&specs_dir).map_err(|e| format!("cannot read {}: {e}", specs_dir.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let Some(input) = spec_dir_input(&specs_dir.join(&name)) else { continue };
        let generated = root.join("generated").join(&name);
        let input = input.keeping_versions_of(&generated)?;
        let runtime = RuntimeDep::Path(relative_to(&absolute(&generated), &absolute(&root.join("runtime"))));
        out.push(RepoSpec {
            settings: Settings {
                name: Some(name.clone()),
                runtime,
                catalog_only: false,
                native: false,
                module_only: false,
            },
            name,
            input,
            generated,
        });
    }
    Ok(out)
}

fn find_root(start: &Path) -> Option<PathBuf> {
    let start = absolute(start);
    start.ancestors().find(|d| d.join("specs").is_dir() && d.join("Cargo.toml").is_file()).map(Path::to_path_buf)
}

fn repo(root: Option<PathBuf>) -> Result<(PathBuf, Vec<RepoSpec>), ExitCode> {
    let Some(root) = root.or_else(|| std::env::current_dir().ok().and_then(|d| find_root(&d))) else {
        eprintln!(
            "error[io]: no `specs/` directory here or above\n  = help: run in the repository or pass --root, or check one crate with --spec and --out"
        );
        return Err(ExitCode::from(2));
    };
    match repo_specs(&root) {
        Ok(specs) => Ok((root, specs)),
        Err(e) => {
            eprintln!("error[io]: {e}");
            Err(ExitCode::from(2))
        }
    }
}

fn bless(root: Option<PathBuf>) -> ExitCode {
    let (_, specs) = match repo(root) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let mut code = ExitCode::SUCCESS;
    for spec in &specs {
        match generate(&spec.input, &spec.settings) {
            Ok(output) => {
                print_report(&output.diagnostics);
                match crate::write::write(&spec.generated, &output.files) {
                    Ok(s) => eprintln!(
                        "mcp-gen bless: generated/{} ({} written, {} unchanged, {} removed)",
                        spec.name,
                        s.written.len(),
                        s.unchanged,
                        s.removed.len()
                    ),
                    Err(e) => {
                        eprintln!("error[io]: cannot write generated/{}: {e}", spec.name);
                        code = ExitCode::from(2);
                    }
                }
            }
            Err(report) => {
                print_report(&report);
                code = ExitCode::from(2);
            }
        }
    }
    code
}

fn check_repo(root: Option<PathBuf>, show_files: bool) -> ExitCode {
    let (root, specs) = match repo(root) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let mut results = Vec::new();
    let mut failed = false;
    for spec in &specs {
        match generate(&spec.input, &spec.settings) {
            Ok(output) => {
                print_report(&output.diagnostics);
                let label = format!("generated/{}", spec.name);
                let contract = contract_drift(&spec.generated, &output.files);
                results.push((label.clone(), drift(&spec.generated, &output.files, &label), contract));
            }
            Err(report) => {
                print_report(&report);
                failed = true;
            }
        }
    }
    // A generated crate whose spec is gone is stale too.
    if let Ok(entries) = std::fs::read_dir(root.join("generated")) {
        let mut orphans: Vec<String> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !specs.iter().any(|s| s.name == *n))
            .collect();
        orphans.sort();
        for name in orphans {
            results.push((
                format!("generated/{name}"),
                Ok(vec![Drift::Extra(format!("generated/{name}/ has no specs/{name}/"))]),
                None,
            ));
        }
    }
    if failed {
        return ExitCode::from(2);
    }
    report_drift(&results, show_files)
}

/// The runtime beside the compiler's own sources (a checkout), else the published crate.
fn default_runtime(out: &Path) -> RuntimeDep {
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime");
    if beside.join("Cargo.toml").is_file() {
        RuntimeDep::Path(relative_to(&absolute(out), &absolute(&beside)))
    } else {
        RuntimeDep::default()
    }
}

/// An absolute, lexically normalised path; symlinks of the part that exists are resolved so two
/// spellings of one directory agree.
pub fn absolute(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut normal = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    // Canonicalise the longest existing prefix.
    let mut existing = normal.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name().map(|f| f.to_os_string()), existing.parent().map(Path::to_path_buf)) {
            (Some(f), Some(parent)) => {
                rest.push(f);
                existing = parent;
            }
            _ => return normal,
        }
    }
    let mut out = std::fs::canonicalize(&existing).unwrap_or(existing);
    for f in rest.into_iter().rev() {
        out.push(f);
    }
    out
}

/// `to` relative to `from` (both absolute), with `/` separators, as Cargo.toml wants.
pub fn relative_to(from: &Path, to: &Path) -> String {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = std::iter::repeat_n("..".to_owned(), from.len() - common).collect();
    parts.extend(to[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    if parts.is_empty() { ".".to_owned() } else { parts.join("/") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(relative_to(Path::new("/r/generated/p"), Path::new("/r/runtime")), "../../runtime");
        assert_eq!(relative_to(Path::new("/tmp/x"), Path::new("/r/runtime")), "../../r/runtime");
        assert_eq!(relative_to(Path::new("/a"), Path::new("/a")), ".");
    }
}
