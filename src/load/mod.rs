//! Stage 1, load: reads the spec and overlay files (the only stage besides `write` that touches
//! the filesystem), parses YAML or JSON into `serde_json::Value`, and detects what kind of
//! document it is. Keeps every file's text so diagnostics can be located later.

pub mod bundle;
pub mod json;
pub mod patch;
pub mod swagger2;
pub mod yaml;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::diag::{Diagnostic, Report, codes};

/// Where a document comes from: a file, or text with a display name (tests, build scripts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceInput {
    Path(PathBuf),
    Text { name: String, text: String },
}

impl SourceInput {
    pub fn name(&self) -> String {
        match self {
            SourceInput::Path(p) => p.display().to_string(),
            SourceInput::Text { name, .. } => name.clone(),
        }
    }

    /// The file, when the input is one (references to other files resolve against it).
    pub fn path(&self) -> Option<&Path> {
        match self {
            SourceInput::Path(p) => Some(p),
            SourceInput::Text { .. } => None,
        }
    }

    /// The file name alone, for generated headers (no absolute paths in output).
    pub fn file_name(&self) -> String {
        match self {
            SourceInput::Path(p) => {
                p.file_name().map_or_else(|| p.display().to_string(), |f| f.to_string_lossy().into_owned())
            }
            SourceInput::Text { name, .. } => {
                Path::new(name).file_name().map_or_else(|| name.clone(), |f| f.to_string_lossy().into_owned())
            }
        }
    }
}

impl From<&Path> for SourceInput {
    fn from(p: &Path) -> Self {
        SourceInput::Path(p.to_path_buf())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Yaml,
}

#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    pub format: Format,
}

/// Every file read, by display name; used to turn JSON Pointers into lines and columns.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    files: BTreeMap<String, SourceFile>,
    /// Files whose document was rewritten (Swagger 2.0 upgraded): pointers into the rewritten
    /// document → pointers into the file.
    maps: BTreeMap<String, swagger2::PointerMap>,
    /// Files embedded into a bundled document, by the document's name.
    embedded: BTreeMap<String, Vec<bundle::Embedded>>,
    /// Every file read or tried, for build scripts' `rerun-if-changed`.
    paths: BTreeSet<PathBuf>,
}

impl Sources {
    /// Every file the compilation read or tried to read (a missing `$ref` target included).
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.paths.iter().map(PathBuf::as_path)
    }

    pub fn add(&mut self, file: SourceFile) {
        self.files.insert(file.name.clone(), file);
    }

    pub fn add_pointer_map(&mut self, file: &str, map: swagger2::PointerMap) {
        self.maps.insert(file.to_owned(), map);
    }

    pub fn add_embedded(&mut self, file: &str, embedded: Vec<bundle::Embedded>) {
        self.embedded.insert(file.to_owned(), embedded);
    }

    /// The report, located ([`Sources::locate`]) and sorted: what a front end shows.
    pub fn finish(&self, mut report: Report) -> Report {
        self.locate(&mut report);
        report.sort();
        report
    }

    /// Fills in line and column for every diagnostic that has a pointer, one pass per file.
    pub fn locate(&self, report: &mut Report) {
        for d in &mut report.diagnostics {
            if let Some(loc) = d.location.as_mut()
                && loc.line.is_none()
                && let Some(map) = self.maps.get(&loc.file)
            {
                loc.pointer = map.translate(&loc.pointer);
            }
            // A pointer into an embedded file is reported against that file.
            if let Some(loc) = d.location.as_mut()
                && loc.line.is_none()
                && let Some(embedded) = self.embedded.get(&loc.file)
                && let Some(rest) = loc.pointer.strip_prefix(&format!("/{}/", bundle::FILES_KEY))
            {
                let (key, tail) = rest.split_once('/').map_or((rest, ""), |(k, t)| (k, t));
                if let Some(e) = embedded.iter().find(|e| crate::diag::escape_token(&e.key) == key) {
                    loc.file = e.file.clone();
                    loc.pointer = if tail.is_empty() { String::new() } else { format!("/{tail}") };
                }
            }
        }
        let mut wanted: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        for d in &report.diagnostics {
            if let Some(loc) = &d.location
                && loc.line.is_none()
                && self.files.contains_key(&loc.file)
            {
                wanted.entry(loc.file.as_str()).or_default().insert(loc.pointer.clone());
            }
        }
        let mut found: BTreeMap<String, BTreeMap<String, (usize, usize)>> = BTreeMap::new();
        for (name, pointers) in wanted {
            let Some(file) = self.files.get(name) else { continue };
            // A pointer that does not exist (e.g. a missing required key) is reported at its
            // nearest existing parent.
            let mut targets = BTreeSet::new();
            for p in &pointers {
                let mut q = p.as_str();
                loop {
                    targets.insert(q.to_owned());
                    match q.rfind('/') {
                        Some(i) => q = &q[..i],
                        None => break,
                    }
                }
            }
            let positions = match file.format {
                Format::Json => json::locate(&file.text, &targets),
                Format::Yaml => yaml::locate(&file.text, &targets),
            };
            found.insert(name.to_owned(), positions);
        }
        for d in &mut report.diagnostics {
            let Some(loc) = d.location.as_mut() else { continue };
            if loc.line.is_some() {
                continue;
            }
            let Some(positions) = found.get(&loc.file) else { continue };
            let mut q = loc.pointer.as_str();
            loop {
                if let Some(&(line, col)) = positions.get(q) {
                    loc.line = Some(line);
                    loc.column = Some(col);
                    break;
                }
                match q.rfind('/') {
                    Some(i) => q = &q[..i],
                    None => break,
                }
            }
        }
    }
}

/// What a loaded document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SpecVersion {
    /// Swagger 2.0, upgraded to 3.0 on load (the document held is the upgraded one).
    Swagger20,
    OpenApi30,
    OpenApi31,
}

#[derive(Debug, Clone)]
pub struct Document {
    /// Display name, used in diagnostics.
    pub file: String,
    /// File name only, used in generated headers.
    pub file_name: String,
    pub version: SpecVersion,
    pub value: Value,
}

/// Reads and parses one file. On failure, the report says where and why.
pub fn read_value(input: &SourceInput, sources: &mut Sources, report: &mut Report) -> Option<(String, Value)> {
    let name = input.name();
    if let SourceInput::Path(p) = input {
        sources.paths.insert(p.clone());
    }
    let text = match input {
        SourceInput::Path(p) => match std::fs::read(p) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(t) => t,
                Err(_) => {
                    report.push(
                        Diagnostic::error(codes::IO, format!("{name} is not UTF-8 text"))
                            .with_help("save the file as UTF-8"),
                    );
                    return None;
                }
            },
            Err(e) => {
                report.push(
                    Diagnostic::error(codes::IO, format!("cannot read {name}: {e}"))
                        .with_help("check the path and its permissions"),
                );
                return None;
            }
        },
        SourceInput::Text { text, .. } => text.clone(),
    };
    let text = text.strip_prefix('\u{feff}').map(str::to_owned).unwrap_or(text);
    let format = detect_format(&name, &text);
    let parsed = match format {
        Format::Json => json::parse(&text).map_err(|e| (e.message, e.line, e.column)),
        Format::Yaml => match yaml::parse(&text) {
            Ok(p) => {
                for w in p.warnings {
                    report.push(Diagnostic::warning(codes::DUPLICATE_KEY, w.message).at_line(&name, w.line, w.column));
                }
                Ok(p.value)
            }
            Err(e) => Err((e.message, e.line, e.column)),
        },
    };
    sources.add(SourceFile { name: name.clone(), text, format });
    match parsed {
        Ok(v) => Some((name, v)),
        Err((message, line, column)) => {
            let kind = if format == Format::Json { "JSON" } else { "YAML" };
            report.push(
                Diagnostic::error(codes::PARSE, format!("invalid {kind}: {message}"))
                    .at_line(&name, line, column)
                    .with_help(format!("fix the {kind} syntax at this position")),
            );
            None
        }
    }
}

fn detect_format(name: &str, text: &str) -> Format {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".json") {
        Format::Json
    } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
        Format::Yaml
    } else if text.trim_start().starts_with('{') {
        Format::Json
    } else {
        Format::Yaml
    }
}

/// Loads an API description and checks that it is a version this compiler reads.
/// [`read_value`], with the files its `$ref`s name embedded ([`bundle`]).
pub fn read_bundled(input: &SourceInput, sources: &mut Sources, report: &mut Report) -> Option<(String, Value)> {
    let (file, mut value) = read_value(input, sources, report)?;
    if bundle::has_file_refs(&value) {
        let embedded = bundle::bundle(&mut value, &file, input.path(), sources, report);
        sources.add_embedded(&file, embedded);
    }
    Some((file, value))
}

pub fn load_spec(input: &SourceInput, sources: &mut Sources, report: &mut Report) -> Option<Document> {
    load_patched(input, None, sources, report)
}

/// [`load_spec`] with an overlay's `patches` (the overlay's file name and its entries) applied
/// to the document as written, before a Swagger 2.0 document is upgraded.
pub fn load_patched(
    input: &SourceInput,
    patches: Option<(&str, &[patch::Patch])>,
    sources: &mut Sources,
    report: &mut Report,
) -> Option<Document> {
    let (file, mut value) = read_bundled(input, sources, report)?;
    if let Some((overlay_file, patches)) = patches {
        patch::apply(&mut value, overlay_file, patches, report);
    }
    let Some(root) = value.as_object() else {
        report.push(
            Diagnostic::error(codes::NOT_A_SPEC, "the document is not an object").at(&file, "").with_help(
                "pass an OpenAPI 3.x or Swagger 2.0 document (a mapping with an `openapi` or `swagger` key)",
            ),
        );
        return None;
    };
    let version = match (root.get("openapi"), root.get("swagger")) {
        (Some(v), _) => {
            let text = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => String::new(),
            };
            if text.starts_with("3.0") {
                SpecVersion::OpenApi30
            } else if text.starts_with("3.1") {
                SpecVersion::OpenApi31
            } else if text.starts_with("3.2") {
                report.push(
                    Diagnostic::warning(codes::UNSUPPORTED_VERSION, format!("OpenAPI {text} is read as 3.1"))
                        .at(&file, "/openapi")
                        .with_help("features new in 3.2 are ignored; set `openapi: 3.1.1` to silence this"),
                );
                SpecVersion::OpenApi31
            } else {
                report.push(
                    Diagnostic::error(codes::UNSUPPORTED_VERSION, format!("unsupported OpenAPI version `{text}`"))
                        .at(&file, "/openapi")
                        .with_help("mcp-gen reads Swagger 2.0 and OpenAPI 3.0.x and 3.1.x"),
                );
                return None;
            }
        }
        (None, Some(v)) => {
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if !text.starts_with("2.") {
                report.push(
                    Diagnostic::error(codes::UNSUPPORTED_VERSION, format!("unsupported Swagger version `{text}`"))
                        .at(&file, "/swagger")
                        .with_help("mcp-gen reads Swagger 2.0 and OpenAPI 3.0.x and 3.1.x"),
                );
                return None;
            }
            // The upgrader's own findings are located now, against the 2.0 pointers they use;
            // everything reported later is about the upgraded document and is mapped back.
            let mut own = Report::new();
            let (upgraded, map) = swagger2::upgrade(root, &file, &mut own);
            sources.locate(&mut own);
            report.extend(own.diagnostics);
            sources.add_pointer_map(&file, map);
            return Some(Document {
                file_name: input.file_name(),
                file,
                version: SpecVersion::Swagger20,
                value: upgraded,
            });
        }
        (None, None) => {
            report.push(
                Diagnostic::error(codes::NOT_A_SPEC, "no `openapi` key: this is not an OpenAPI document")
                    .at(&file, "")
                    .with_help("pass an OpenAPI 3.x or Swagger 2.0 document"),
            );
            return None;
        }
    };
    Some(Document { file_name: input.file_name(), file, version, value })
}
