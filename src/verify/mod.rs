//! `mcp-gen verify`: the contract test a team runs against a live upstream before deploying.
//! It calls the API's safe reads (arguments from the spec's examples, from values earlier
//! answers gave, or none where none are required), and the writes a scenario file asks for,
//! checks every answer against the tool's output schema and the statuses the description
//! lists, and reports each mismatch where the description says otherwise (file, line, JSON
//! Pointer) with the overlay patch that makes it say what the API answers.

mod locate;
mod send;

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::diag::{Diagnostic, Report, codes, escape_token};
use crate::load;
use crate::plan::{Target, Tool};
use crate::{Input, Settings};

/// What to verify against.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The upstream's base URL, as `serve --upstream` takes it.
    pub upstream: String,
    /// Writes to send, in order (a scenario file's steps); none unless asked for.
    pub writes: Vec<Step>,
}

/// A scenario file: `steps: [{tool, args}]`, sent in order before the reads.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub tool: String,
    #[serde(default)]
    pub args: Map<String, Value>,
}

/// One call verify made.
#[derive(Debug, Clone)]
pub struct Call {
    pub tool: String,
    pub label: String,
    pub status: Option<u16>,
    pub mismatches: usize,
    /// Why the call was not made, or failed before an answer.
    pub note: Option<String>,
}

/// A place where the description does not say what the API answered.
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub tool: String,
    /// The answer's place (`/content`, `/items/0/id`), or the status.
    pub instance: String,
    pub message: String,
    /// Located in the description: its file and pointer as written, and the line.
    pub diagnostic: Diagnostic,
    /// The overlay patch that admits what was seen, when one node can say it.
    pub patch: Option<Value>,
    /// A success status the operation does not list: its patch says what the listed success
    /// response says (filled in from the description as written once the place is known).
    success_status: Option<String>,
}

#[derive(Debug, Default)]
pub struct Verified {
    pub calls: Vec<Call>,
    pub mismatches: Vec<Mismatch>,
    /// The patches, one per description node, merged: what `--write-overlay` appends.
    pub patches: Vec<Value>,
}

/// Reads that can be made: a read-only tool with no body it would need to invent.
fn is_read(tool: &Tool) -> bool {
    tool.annotations.read_only && !tool.native && tool.schema_file.is_none() && tool.routes.is_empty()
}

pub fn verify(input: &Input, settings: &Settings, options: &Options) -> Result<Verified, Report> {
    let output = crate::generate(input, settings)?;
    let outputs: BTreeMap<String, Value> =
        output.catalog.tools.iter().filter_map(|t| Some((t.name.clone(), t.output_schema.clone()?))).collect();
    // The description again, as the compiler read it (patched, upgraded), to walk and locate.
    let mut sources = load::Sources::default();
    let mut report = Report::new();
    let overlay = input
        .overlay
        .as_ref()
        .and_then(|o| load::read_value(o, &mut sources, &mut report))
        .and_then(|(file, v)| crate::overlay::parse(&file, v, &mut report).map(|o| (file, o)));
    let patches = overlay.as_ref().map(|(f, o)| (f.as_str(), &o.patches[..]));
    let Some(doc) = load::load_patched(&input.spec, patches, &mut sources, &mut report) else {
        return Err(sources.finish(report));
    };
    let catalog = &output.catalog;
    let client = send::Client::new(&options.upstream, &catalog.schemes, |k| std::env::var(k).ok());
    let tools: BTreeMap<&str, &Tool> = catalog.tools.iter().map(|t| (t.name.as_str(), &t.planned)).collect();
    let mut run = Run { doc: &doc, outputs: &outputs, seen: Seen::default(), verified: Verified::default() };

    let inputs: BTreeMap<&str, &Value> = catalog.tools.iter().map(|t| (t.name.as_str(), &t.input_schema)).collect();
    for (i, step) in options.writes.iter().enumerate() {
        // A step is held to the tool's inputSchema, as the server would hold a model's call.
        if let Some(schema) = inputs.get(step.tool.as_str())
            && let Ok(validator) = jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(schema)
            && let Some(e) = validator.iter_errors(&Value::Object(step.args.clone())).next()
        {
            let at = e.instance_path().as_str().to_owned();
            report.push(
                Diagnostic::error(
                    codes::OVERLAY,
                    format!(
                        "scenario step {i} (`{}`): {}{e}",
                        step.tool,
                        if at.is_empty() { String::new() } else { format!("at `{at}`: ") }
                    ),
                )
                .with_help("give the arguments as the tool's inputSchema says (`mcp-gen catalog`)"),
            );
            return Err(sources.finish(report));
        }
        let Some(tool) = tools.get(step.tool.as_str()) else {
            report.push(
                Diagnostic::error(codes::OVERLAY, format!("the scenario names `{}`, which is not a tool", step.tool))
                    .with_help("name a tool of `mcp-gen catalog`"),
            );
            return Err(sources.finish(report));
        };
        run.call(&client, tool, &step.args, false);
    }
    // Reads with nothing required first, then those whose arguments earlier answers gave;
    // another round while a round made new values available.
    let mut pending: Vec<&Tool> = catalog.tools.iter().map(|t| &t.planned).filter(|t| is_read(t)).collect();
    loop {
        let before = pending.len();
        pending.retain(|tool| match run.seen.arguments(tool) {
            Some((args, guessed)) => {
                run.call(&client, tool, &args, guessed);
                false
            }
            None => true,
        });
        if pending.is_empty() || pending.len() == before {
            break;
        }
    }
    for tool in pending {
        let missing: Vec<&str> = tool
            .args
            .iter()
            .filter(|a| a.required && run.seen.value_for(tool, a).is_none())
            .map(|a| a.name.as_str())
            .collect();
        run.verified.calls.push(Call {
            tool: tool.name.clone(),
            label: format!("{} {}", tool.operation.method, tool.operation.path),
            status: None,
            mismatches: 0,
            note: Some(format!(
                "not called: no value for {} (give one in the spec's examples, or a scenario)",
                missing.join(", ")
            )),
        });
    }
    let mut verified = run.verified;
    // Locate every mismatch in the file as written (a Swagger 2.0 pointer, not the upgraded one).
    let mut located = Report::new();
    located.diagnostics = verified.mismatches.iter().map(|m| m.diagnostic.clone()).collect();
    sources.locate(&mut located);
    // The description as written (and patched), for what a newly listed success status answers.
    let mut raw_report = Report::new();
    let raw = load::read_bundled(&input.spec, &mut load::Sources::default(), &mut raw_report).map(|(_, mut v)| {
        if let Some((file, patches)) = patches {
            load::patch::apply(&mut v, file, patches, &mut raw_report);
        }
        v
    });
    let mut merged: BTreeMap<String, Value> = BTreeMap::new();
    for (m, d) in verified.mismatches.iter_mut().zip(located.diagnostics) {
        m.diagnostic = d;
        // The API answers 201 with what the description says of its 200: say that, so the
        // tool's output stays the listed success response's.
        if let (Some(code), Some(loc), Some(raw)) = (&m.success_status, &m.diagnostic.location, &raw)
            && let Some(listed) = raw.pointer(&loc.pointer).and_then(Value::as_object)
            && let Some(first) = listed.keys().filter(|k| k.starts_with('2')).min()
        {
            m.patch = Some(json!({ code.as_str(): listed[first.as_str()].clone() }));
        }
        let (Some(patch), Some(loc)) = (&m.patch, &m.diagnostic.location) else { continue };
        match merged.get_mut(&loc.pointer) {
            Some(have) => locate::combine(have, patch),
            None => {
                merged.insert(loc.pointer.clone(), patch.clone());
            }
        }
    }
    verified.patches = merged
        .into_iter()
        .map(|(pointer, merge)| {
            let why: BTreeSet<&str> = verified
                .mismatches
                .iter()
                .filter(|m| m.diagnostic.location.as_ref().is_some_and(|l| l.pointer == pointer))
                .map(|m| m.message.as_str())
                .collect();
            json!({"pointer": pointer, "merge": merge, "why": why.into_iter().collect::<Vec<_>>().join("; ")})
        })
        .collect();
    Ok(verified)
}

struct Run<'a> {
    doc: &'a load::Document,
    outputs: &'a BTreeMap<String, Value>,
    seen: Seen,
    verified: Verified,
}

impl Run<'_> {
    /// `guessed`: an argument is an id another resource's answer held, so a 404 says only that
    /// the guess was wrong, not that the description is.
    fn call(&mut self, client: &send::Client, tool: &Tool, args: &Map<String, Value>, guessed: bool) {
        let mut call = Call {
            tool: tool.name.clone(),
            label: format!("{} {}", tool.operation.method, tool.operation.path),
            status: None,
            mismatches: 0,
            note: None,
        };
        match client.call(tool, args) {
            Err(e) => call.note = Some(e),
            Ok(answer) if guessed && answer.status == 404 => {
                call.status = Some(404);
                call.note = Some("not found: a value guessed from another tool's answer".to_owned());
            }
            Ok(answer) => {
                call.status = Some(answer.status);
                let found = self.check(tool, &answer);
                call.mismatches = found.len();
                self.verified.mismatches.extend(found);
                if (200..300).contains(&answer.status)
                    && let Ok(value) = serde_json::from_slice::<Value>(&answer.body)
                {
                    self.seen.learn(&tool.name, &value);
                }
            }
        }
        self.verified.calls.push(call);
    }

    /// The answer's status against the description's responses, and its body against the
    /// tool's output schema (formats not asserted, as the server does).
    fn check(&self, tool: &Tool, answer: &send::Answer) -> Vec<Mismatch> {
        let op = &tool.operation.pointer;
        let doc = &self.doc.value;
        let responses = doc.pointer(&format!("{op}/responses")).and_then(Value::as_object);
        let code = answer.status.to_string();
        let range = format!("{}XX", answer.status / 100);
        let declared = responses.and_then(|r| {
            r.keys()
                .find(|k| **k == code)
                .or_else(|| r.keys().find(|k| k.eq_ignore_ascii_case(&range)))
                .or_else(|| r.keys().find(|k| *k == "default"))
        });
        let mut out = Vec::new();
        let Some(key) = declared else {
            let message =
                format!("answered {} {}, a status the description does not list", answer.status, reason(answer.status));
            out.push(Mismatch {
                tool: tool.name.clone(),
                instance: format!("status {}", answer.status),
                diagnostic: Diagnostic::warning(codes::VERIFY, format!("{}: {message}", tool.name))
                    .at(&self.doc.file, format!("{op}/responses"))
                    .with_help(if matches!(answer.status, 401 | 403) {
                        "the API refused the call: set the variables the generated README lists, or declare the credential it needs (overlay `server.credentials`)"
                    } else {
                        "list the status in the description (the patch below), or fix the API"
                    }),
                message,
                success_status: (200..300).contains(&answer.status).then(|| code.clone()),
                patch: Some(json!({ code: {"description": reason(answer.status)} })),
            });
            return out;
        };
        if !(200..300).contains(&answer.status) {
            return out;
        }
        let Some(schema) = self.outputs.get(&tool.name) else { return out };
        let Ok(value) = serde_json::from_slice::<Value>(&answer.body) else {
            if !answer.body.iter().all(u8::is_ascii_whitespace) && answer.content_type.contains("json") {
                let message = "the answer is not JSON, though its content type says so".to_owned();
                out.push(Mismatch {
                    tool: tool.name.clone(),
                    instance: String::new(),
                    diagnostic: Diagnostic::warning(codes::VERIFY, format!("{}: {message}", tool.name))
                        .at(&self.doc.file, format!("{op}/responses/{}", escape_token(key))),
                    message,
                    patch: None,
                    success_status: None,
                });
            }
            return out;
        };
        let validator = match jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(false)
            .build(schema)
        {
            Ok(v) => v,
            Err(_) => return out,
        };
        let content = doc.pointer(&format!("{op}/responses/{}/content", escape_token(key))).and_then(Value::as_object);
        let media = content.and_then(|c| c.keys().find(|m| m.contains("json")).or_else(|| c.keys().next()));
        let start = media.map(|m| format!("{op}/responses/{}/content/{}/schema", escape_token(key), escape_token(m)));
        for error in validator.iter_errors(&value).take(50) {
            let instance = error.instance_path().as_str().to_owned();
            let seen = value.pointer(&instance).unwrap_or(&Value::Null);
            let node_at = start.as_deref().and_then(|s| locate::governing(doc, s, &instance));
            let keyword = error.kind().keyword().to_owned();
            let (kind, node_at) = self.kind(&error, &keyword, seen, node_at);
            let declared = node_at.as_deref().and_then(|p| doc.pointer(p)).and_then(|n| n.get("type"));
            let message = describe(&instance, seen, &kind, declared, &error.to_string());
            let at = node_at.clone().or_else(|| start.clone()).unwrap_or_else(|| format!("{op}/responses"));
            let patch = node_at
                .as_deref()
                .and_then(|p| doc.pointer(p))
                .and_then(|node| locate::patch(node, &kind, self.doc.version));
            out.push(Mismatch {
                tool: tool.name.clone(),
                instance: instance.clone(),
                diagnostic: Diagnostic::warning(codes::VERIFY, format!("{}: {message}", tool.name))
                    .at(&self.doc.file, at)
                    .with_help(if patch.is_some() {
                        "add the patch below to the overlay's `patches` (`--write-overlay FILE` writes it), or fix the description"
                    } else {
                        "no one change of the description admits this answer; fix the description or the API by hand"
                    }),
                message,
                patch,
                success_status: None,
            });
        }
        out
    }

    /// What the mismatch is, judged against the description's node (the compiled schema wraps
    /// some of them in `anyOf`), and the node that says it.
    fn kind(
        &self,
        error: &jsonschema::ValidationError<'_>,
        keyword: &str,
        seen: &Value,
        node_at: Option<String>,
    ) -> (locate::Kind, Option<String>) {
        use jsonschema::error::ValidationErrorKind as K;
        let doc = &self.doc.value;
        if let K::Required { property } = error.kind() {
            let property = property.as_str().map_or_else(|| property.to_string(), str::to_owned);
            let owner = node_at.as_deref().and_then(|n| locate::requiring(doc, n, &property));
            return (locate::Kind::Required { property }, owner.or(node_at));
        }
        let node = node_at.as_deref().and_then(|p| doc.pointer(p));
        let actual = locate::type_of(seen);
        let declared: Vec<&str> = match node.and_then(|n| n.get("type")) {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let type_ok =
            declared.is_empty() || declared.contains(&actual) || (actual == "integer" && declared.contains(&"number"));
        let in_enum = node.and_then(|n| n.get("enum")).and_then(Value::as_array).is_none_or(|e| e.contains(seen));
        let kind = if !type_ok || keyword == "type" {
            locate::Kind::Type { actual }
        } else if !in_enum || keyword == "enum" {
            locate::Kind::Enum { value: seen.clone() }
        } else if matches!(error.kind(), K::FalseSchema | K::AdditionalProperties { .. }) {
            locate::Kind::Keyword { keyword: "additionalProperties".to_owned() }
        } else {
            locate::Kind::Keyword { keyword: keyword.to_owned() }
        };
        (kind, node_at)
    }
}

fn describe(instance: &str, seen: &Value, kind: &locate::Kind, declared: Option<&Value>, fallback: &str) -> String {
    let place = if instance.is_empty() { "the answer".to_owned() } else { format!("`{instance}`") };
    match kind {
        locate::Kind::Type { actual } => match declared {
            Some(t) => {
                format!("{place} is {actual} in the answer; the description says {}", t.to_string().replace('"', ""))
            }
            None => format!("{place} is {actual} in the answer; the description does not allow {actual} there"),
        },
        locate::Kind::Enum { .. } => format!("{place} is {seen}, a value the description's enum does not list"),
        locate::Kind::Required { property } => {
            format!("{place} has no `{property}`, which the description requires")
        }
        locate::Kind::Keyword { keyword } => format!("{place} breaks `{keyword}`: {fallback}"),
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        422 => "Unprocessable Content",
        500 => "Internal Server Error",
        _ => "Answered",
    }
}

/// Values earlier answers gave, by field name, for the arguments of later reads.
#[derive(Default)]
struct Seen {
    /// Field name (lower case) → values, first seen first; per tool that answered them.
    by_field: BTreeMap<String, Vec<(String, Value)>>,
}

impl Seen {
    fn learn(&mut self, tool: &str, value: &Value) {
        self.walk(tool, value, 0);
    }

    fn walk(&mut self, tool: &str, value: &Value, depth: usize) {
        if depth > 6 {
            return;
        }
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    if matches!(v, Value::String(_) | Value::Number(_)) {
                        let values = self.by_field.entry(k.to_ascii_lowercase()).or_default();
                        if values.len() < 8 && !values.iter().any(|(_, x)| x == v) {
                            values.push((tool.to_owned(), v.clone()));
                        }
                    } else {
                        self.walk(tool, v, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                for i in items.iter().take(20) {
                    self.walk(tool, i, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// A value for `arg` of `tool`: the spec's example, default or first enum value, else a
    /// value an earlier answer gave under the argument's name (or under `id` for a `…_id`,
    /// preferring the tool that lists these ids).
    /// With whether the value is a guess: one another tool's answer held (maybe another resource's).
    fn value_for(&self, tool: &Tool, arg: &crate::plan::Arg) -> Option<(Value, bool)> {
        let s = &arg.schema;
        let example = s
            .get("examples")
            .and_then(Value::as_array)
            .and_then(|e| e.first())
            .or_else(|| s.get("example"))
            .or_else(|| s.get("default"))
            .or_else(|| s.get("const"))
            .or_else(|| s.get("enum").and_then(Value::as_array).and_then(|e| e.first()));
        if let Some(v) = example {
            return Some((v.clone(), false));
        }
        let wire = match &arg.target {
            Target::Path { name, .. } | Target::Query { name, .. } => name.as_str(),
            _ => arg.name.as_str(),
        };
        let mut keys = vec![arg.name.to_ascii_lowercase(), wire.to_ascii_lowercase()];
        let lower = arg.name.to_ascii_lowercase();
        if lower.ends_with("_id") || lower.ends_with("id") && lower.len() > 2 {
            keys.push("id".to_owned());
        }
        let from = tool.list_tool.as_deref();
        keys.iter().find_map(|k| {
            let values = self.by_field.get(k)?;
            let listed = values.iter().find(|(t, _)| Some(t.as_str()) == from);
            // A bare `id` is anything's: taken from the tool that lists these ids when there is one.
            let pick = if k == "id" && from.is_some() { listed } else { listed.or_else(|| values.first()) }?;
            // Only the listing tool's values are this resource's for sure; any other answer's
            // `id` or `name` may be another resource's.
            Some((pick.1.clone(), from != Some(pick.0.as_str())))
        })
    }

    /// The required arguments, and whether one of them is a guess.
    fn arguments(&self, tool: &Tool) -> Option<(Map<String, Value>, bool)> {
        let mut args = Map::new();
        let mut guessed = false;
        for a in tool.args.iter().filter(|a| a.required) {
            let (value, guess) = self.value_for(tool, a)?;
            guessed |= guess;
            args.insert(a.name.clone(), value);
        }
        Some((args, guessed))
    }
}

/// The report as a person reads it: each call, then each mismatch with its place and patch.
pub fn render(v: &Verified) -> String {
    let mut out = String::new();
    for c in &v.calls {
        let status = c.status.map_or_else(|| "—".to_owned(), |s| s.to_string());
        let tail = match (&c.note, c.mismatches) {
            (Some(n), _) => format!("  ({n})"),
            (None, 0) => String::new(),
            (None, n) => format!("  {n} mismatch(es)"),
        };
        out.push_str(&format!("{status:>4}  {:<40} {}{tail}\n", c.tool, c.label));
    }
    for m in &v.mismatches {
        out.push_str(&format!("\n{}\n", m.diagnostic));
        if let Some(p) = &m.patch
            && let Some(loc) = &m.diagnostic.location
        {
            out.push_str(&format!("  patch: {}\n", json!({"pointer": loc.pointer, "merge": p})));
        }
    }
    let made = v.calls.iter().filter(|c| c.status.is_some()).count();
    let tools: BTreeSet<&str> = v.mismatches.iter().map(|m| m.tool.as_str()).collect();
    out.push_str(&format!(
        "\n{made} call(s) made, {} not made; {} mismatch(es) in {} tool(s); {} patch(es)\n",
        v.calls.len() - made,
        v.mismatches.len(),
        tools.len(),
        v.patches.len()
    ));
    out
}

/// `text` (an overlay file's, or empty) with `patches` added as the last top-level key's
/// entries: YAML that keeps every line a person wrote.
pub fn with_patches(text: &str, patches: &[Value]) -> Result<String, String> {
    if patches.is_empty() {
        return Ok(text.to_owned());
    }
    let top: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with([' ', '\t', '#', '-']) && !l.trim().is_empty())
        .filter_map(|l| l.split_once(':').map(|(k, _)| k.trim()))
        .collect();
    let mut out = if text.trim().is_empty() { "mcp-gen: 1\n".to_owned() } else { text.to_owned() };
    if !out.ends_with('\n') {
        out.push('\n');
    }
    match top.iter().position(|k| *k == "patches") {
        None => out.push_str(
            "# Written by `mcp-gen verify`: where the API answers other than its description says.\npatches:\n",
        ),
        Some(i) if i + 1 == top.len() => {}
        Some(_) => {
            return Err(
                "the overlay's `patches` is not its last top-level key; move it to the end to let verify add to it"
                    .to_owned(),
            );
        }
    }
    for p in patches {
        // JSON is YAML: each value on one line, exactly as verify saw it.
        out.push_str(&format!("  - pointer: {}\n", p["pointer"]));
        out.push_str(&format!("    merge: {}\n", p["merge"]));
        if let Some(why) = p["why"].as_str() {
            out.push_str(&format!("    why: {}\n", Value::String(why.to_owned())));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_are_added_after_what_a_person_wrote() {
        let p = [json!({"pointer": "/definitions/A/properties/b", "merge": {"type": null}, "why": "`/b` is array"})];
        let text = with_patches("mcp-gen: 1\n# keep me\nserver:\n  name: a\n", &p).unwrap_or_default();
        assert!(text.starts_with("mcp-gen: 1\n# keep me\nserver:\n  name: a\n"), "{text}");
        assert!(
            text.contains("patches:\n  - pointer: \"/definitions/A/properties/b\"\n    merge: {\"type\":null}\n"),
            "{text}"
        );
        let again = with_patches(&text, &p).unwrap_or_default();
        assert_eq!(again.matches("patches:").count(), 1);
        assert!(with_patches("patches: []\nserver: {}\n", &p).is_err());
        let parsed = crate::load::yaml::parse(&text);
        assert!(parsed.is_ok(), "the written overlay is YAML");
    }
}
