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
    /// Operations to leave out: operationIds or `METHOD /path`.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Operations to keep although they look internal, meta or deprecated (T4 leaves those out
    /// by default): operationIds or `METHOD /path`.
    #[serde(default)]
    pub include: Vec<String>,
    /// Tools by name.
    #[serde(default)]
    pub tools: BTreeMap<String, ToolOverlay>,
}

/// The server's identity and instructions.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerOverlay {
    /// Short name of the server; the crate is `<name>-mcp`.
    pub name: Option<String>,
    /// Human title of the server.
    pub title: Option<String>,
    /// Server instructions sent to clients (CONTRACT T7).
    pub instructions: Option<String>,
}

/// One tool: the operation it calls and what the model reads about it.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolOverlay {
    /// operationId, or `METHOD /path`.
    pub operation: String,
    /// A short human title (annotations.title).
    pub title: Option<String>,
    /// What the model reads: replaces the description written from the spec.
    pub description: Option<String>,
}

/// The overlay format's JSON Schema (2020-12), as `mcp-gen schema overlay` prints it and
/// `schemas/overlay-v1.schema.json` publishes it.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Overlay);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// What the overlay asks for, checked against the API: tool intents keyed by operation index.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Intents {
    pub server: ServerOverlay,
    /// Indexes of the operations the overlay excludes.
    pub excluded: BTreeSet<usize>,
    /// Indexes of the operations the overlay keeps whatever T4 says.
    pub included: BTreeSet<usize>,
    /// Operation index → (tool name, overlay entry).
    pub tools: BTreeMap<usize, (String, ToolOverlay)>,
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

/// Finds the operations an overlay target names: an operationId, or `METHOD /path`.
pub fn find_operation(api: &Api, target: &str) -> Vec<usize> {
    let target = target.trim();
    if let Some((method, path)) = target.split_once(' ')
        && let Some(method) = Method::parse(method)
    {
        let path = path.trim();
        return api
            .operations
            .iter()
            .enumerate()
            .filter(|(_, o)| o.method == method && o.path == path)
            .map(|(i, _)| i)
            .collect();
    }
    api.operations
        .iter()
        .enumerate()
        .filter(|(_, o)| o.operation_id.as_deref() == Some(target))
        .map(|(i, _)| i)
        .collect()
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
fn closest(target: &str, candidates: impl Iterator<Item = String>, min: f64) -> Option<String> {
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

/// Checks the overlay against the API.
pub fn apply(api: &Api, overlay: Option<(&str, &Overlay)>, report: &mut Report) -> Intents {
    let Some((file, overlay)) = overlay else { return Intents::default() };
    let mut intents = Intents { server: overlay.server.clone(), ..Intents::default() };
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
            if intents.excluded.contains(&index) {
                report.push(
                    Diagnostic::error(codes::OVERLAY, format!("`{target}` is both included and excluded"))
                        .at(file, format!("/include/{i}"))
                        .with_help("remove one of the two entries"),
                );
            }
            intents.included.insert(index);
        }
    }
    for (name, tool) in &overlay.tools {
        let at = join_pointer("/tools", name);
        let found = find_operation(api, &tool.operation);
        match found.as_slice() {
            [] => report.push(
                Diagnostic::error(
                    codes::OVERLAY_UNKNOWN_TARGET,
                    format!("tool `{name}` targets `{}`, which is not an operation of the spec", tool.operation),
                )
                .at(file, join_pointer(&at, "operation"))
                .with_help(suggestion(api, &tool.operation)),
            ),
            [index] => {
                if intents.excluded.contains(index) {
                    report.push(
                        Diagnostic::error(
                            codes::OVERLAY,
                            format!("tool `{name}` targets `{}`, which the overlay also excludes", tool.operation),
                        )
                        .at(file, join_pointer(&at, "operation"))
                        .with_help("remove the exclude entry or the tool entry"),
                    );
                } else if let Some((other, _)) = intents.tools.get(index) {
                    report.push(
                        Diagnostic::error(
                            codes::OVERLAY,
                            format!("tools `{other}` and `{name}` both target `{}`", tool.operation),
                        )
                        .at(file, join_pointer(&at, "operation"))
                        .with_help("give each operation one tool entry"),
                    );
                } else {
                    intents.tools.insert(*index, (name.clone(), tool.clone()));
                }
            }
            many => report.push(
                Diagnostic::error(
                    codes::OVERLAY,
                    format!("tool `{name}` target `{}` matches {} operations", tool.operation, many.len()),
                )
                .at(file, join_pointer(&at, "operation"))
                .with_help("target the operation as `METHOD /path` instead"),
            ),
        }
    }
    intents
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
