//! mcp-gen: compiles an OpenAPI description and an overlay of tool intents into an MCP server
//! crate. One entry point, [`generate`], behind every front end (the CLI, [`build_support`] for
//! build.rs, tests). The pipeline is one module per stage:
//!
//! load → resolve → overlay → plan → schema → lint → emit → write
//!
//! Only `load` reads files and only `write` writes them; the stages between are functions from
//! one plain data type to the next.

pub mod build_support;
pub mod cli;
pub mod diag;
pub mod diff;
pub mod emit;
pub mod fidelity;
pub mod json_schema;
pub mod lint;
pub mod load;
pub mod overlay;
pub mod overlay_reference;
pub mod par;
pub mod plan;
pub mod resolve;
pub mod schema;
pub mod settings;
pub mod text;
pub mod tokens;
pub mod verify;
pub mod versions;
pub mod write;

pub use diag::{Diagnostic, Report, Severity, codes};
pub use emit::Files;
pub use load::SourceInput;
pub use schema::Catalog;
pub use settings::{RuntimeDep, Settings};

/// What to compile: an API description and, optionally, an overlay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub spec: SourceInput,
    pub overlay: Option<SourceInput>,
    /// Earlier contract versions the crate keeps serving beside this one (CONTRACT V5).
    pub versions: Vec<versions::Kept>,
}

impl Input {
    pub fn files(spec: impl Into<std::path::PathBuf>, overlay: Option<std::path::PathBuf>) -> Self {
        Input { spec: SourceInput::Path(spec.into()), overlay: overlay.map(SourceInput::Path), versions: Vec::new() }
    }

    /// This input with the versions the crate at `dir` keeps (`dir/versions/v<N>/`).
    pub fn keeping_versions_of(mut self, dir: &std::path::Path) -> Result<Self, String> {
        self.versions = versions::discover(dir)?;
        Ok(self)
    }

    /// A spec, and an overlay, held as text (a build script's embedded spec, a test's): the spec
    /// is called `name` in diagnostics, the overlay `overlay.yaml`.
    pub fn text(name: &str, spec: impl Into<String>, overlay: Option<&str>) -> Self {
        Input {
            spec: SourceInput::Text { name: name.to_owned(), text: spec.into() },
            overlay: overlay.map(|o| SourceInput::Text { name: "overlay.yaml".to_owned(), text: o.to_owned() }),
            versions: Vec::new(),
        }
    }
}

/// A successful compilation: the files of the crate, the catalog they serve, and any warnings.
#[derive(Debug, Clone)]
pub struct Output {
    pub files: Files,
    pub catalog: Catalog,
    /// Warnings and notes (errors make `generate` fail instead), located and sorted.
    pub diagnostics: Report,
}

impl Output {
    /// The `tools/list` payload, exactly as the generated server serves it.
    pub fn tools_json(&self) -> &str {
        self.files.get("tools.json").map_or("", String::as_str)
    }
}

/// Runs the whole pipeline. Each stage reports every problem it finds; a stage with errors stops
/// the pipeline so that later stages never cascade on broken input.
pub fn generate(input: &Input, settings: &Settings) -> Result<Output, Report> {
    compile(input, settings).result
}

/// [`generate`]'s result, and every file it read or tried to read.
#[derive(Debug)]
pub struct Compiled {
    pub result: Result<Output, Report>,
    /// The spec, every file its `$ref`s reach, the overlay and the JSON Schema files the
    /// overlay names, sorted: what a build script watches (`cargo:rerun-if-changed`).
    pub inputs: Vec<std::path::PathBuf>,
}

/// [`generate`], also telling which files it read.
pub fn compile(input: &Input, settings: &Settings) -> Compiled {
    let mut sources = load::Sources::default();
    let result = run(input, settings, &mut sources);
    Compiled { result, inputs: sources.paths().map(std::path::Path::to_path_buf).collect() }
}

fn run(input: &Input, settings: &Settings, sources: &mut load::Sources) -> Result<Output, Report> {
    // `MCPGEN_TIMINGS=1` prints how long each stage took (for profiling large documents).
    let timings = std::env::var_os("MCPGEN_TIMINGS").is_some();
    let started = std::time::Instant::now();
    let mut last = started;
    let mut lap = |stage: &str| {
        if timings {
            let now = std::time::Instant::now();
            eprintln!("mcp-gen: {stage:<8} {:>8.3} s", (now - last).as_secs_f64());
            last = now;
        }
    };
    let mut report = Report::new();

    // The overlay first: its `patches` correct the description before anything reads it.
    let overlay_value = input.overlay.as_ref().and_then(|o| load::read_value(o, sources, &mut report));
    let overlay = match overlay_value {
        Some((file, value)) => match overlay::parse(&file, value, &mut report) {
            Some(o) => Some((file, o)),
            None => return Err(sources.finish(report)),
        },
        None => None,
    };
    let patches = overlay.as_ref().filter(|(_, o)| !o.patches.is_empty()).map(|(f, o)| (f.as_str(), &o.patches[..]));
    let doc = load::load_patched(&input.spec, patches, sources, &mut report);
    lap("load");
    let Some(doc) = doc else { return Err(sources.finish(report)) };
    if report.has_errors() {
        return Err(sources.finish(report));
    }

    let mut api = resolve::resolve(&doc, &mut report);
    lap("resolve");
    if report.has_errors() {
        return Err(sources.finish(report));
    }

    let mut intents = overlay::apply(&api, overlay.as_ref().map(|(f, o)| (f.as_str(), o)), &mut report);
    if report.has_errors() {
        return Err(sources.finish(report));
    }
    // Tools the overlay makes from JSON Schema files join the API as operations of their own.
    let base = input.overlay.as_ref().and_then(|o| o.path()).and_then(std::path::Path::parent);
    json_schema::attach_schema_tools(&mut api, &mut intents, base, sources, &mut report);
    if report.has_errors() {
        return Err(sources.finish(report));
    }

    let planned = plan::plan(&api, &intents, settings, &mut report);
    lap("plan");
    let (catalog, summary) = schema::assemble(planned);
    if let Some((largest, size)) =
        summary.trimmed_outputs.iter().max_by_key(|(name, size)| (*size, std::cmp::Reverse(name)))
    {
        report.push(
            Diagnostic::note(
                codes::OUTPUT_TRIMMED,
                format!(
                    "{} output schema(s) were larger than {} KiB and were trimmed (largest: `{largest}`, {} KiB)",
                    summary.trimmed_outputs.len(),
                    schema::OUTPUT_SCHEMA_BUDGET / 1024,
                    size / 1024
                ),
            )
            .with_help("nested shapes beyond the budget are described, not expanded; results are returned in full"),
        );
    }
    lap("schema");
    report.extend(lint::lint(&catalog, &api.file));
    lap("lint");
    if report.has_errors() {
        return Err(sources.finish(report));
    }

    let kept = match kept_versions(input, settings, sources) {
        Ok(k) => k,
        Err(r) => {
            report.extend(r.diagnostics);
            return Err(sources.finish(report));
        }
    };
    // The parsed document and the resolved API are no longer needed; free them (millions of
    // nodes on large documents) on another core while this one emits.
    let files = std::thread::scope(|scope| {
        scope.spawn(move || drop((doc, api)));
        emit::emit(&catalog, settings, &kept)
    });
    let files = match files {
        Ok(f) => f,
        Err(e) => {
            report.extend(e.diagnostics);
            return Err(sources.finish(report));
        }
    };
    lap("emit");
    let diagnostics = sources.finish(report);
    lap("locate");
    Ok(Output { files, catalog, diagnostics })
}

/// Each kept version compiled again from its pinned inputs, as the crate the current one is
/// (the catalog only when that is all the current build makes). Its problems are reported as
/// the version's.
fn kept_versions(input: &Input, settings: &Settings, sources: &mut load::Sources) -> Result<Vec<emit::Kept>, Report> {
    let mut out = Vec::new();
    for k in &input.versions {
        if settings.native {
            return Err(Report::from(
                Diagnostic::error(
                    codes::OVERLAY,
                    format!("kept version {}: a native crate serves its current contract only", k.name),
                )
                .with_help("serve earlier versions from a proxy crate, or remove the kept version"),
            ));
        }
        let kept_input = Input { spec: k.spec.clone(), overlay: k.overlay.clone(), versions: Vec::new() };
        let output = run(&kept_input, settings, sources).map_err(|mut r| {
            r.push(Diagnostic::error(codes::OVERLAY, format!("kept version {} does not compile", k.name)).with_help(
                "a kept version compiles from the inputs pinned under versions/<name>/; fix them there or remove the version",
            ));
            r
        })?;
        let mut inputs = Vec::new();
        for source in std::iter::once(&k.spec).chain(k.overlay.as_ref()) {
            let text = match source {
                SourceInput::Path(p) => std::fs::read_to_string(p).map_err(|e| {
                    Report::from(Diagnostic::error(codes::IO, format!("cannot read {}: {e}", p.display())))
                })?,
                SourceInput::Text { text, .. } => text.clone(),
            };
            inputs.push((source.file_name(), text));
        }
        out.push(emit::Kept { name: k.name.clone(), files: output.files, inputs });
    }
    Ok(out)
}
