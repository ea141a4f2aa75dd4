//! Stage 6, lint: the rules of CONTRACT.md that can be checked on the catalog, one rule per file,
//! each with a stable code (the contract id and a short name), a severity, a location (the
//! overlay entry that declared the tool, else the operation in the spec) and a help line. Reads
//! the catalog; never changes it.

mod accuracy;
mod annotations;
mod approval;
pub mod clients;
mod confirm;
mod deprecation;
mod description;
mod determinism;
mod effects;
mod flat_input;
mod id_source;
mod ids_and_units;
mod injection;
mod input_schema;
mod instructions;
mod internal;
mod mega_endpoint;
mod param_names;
mod read_only_key;
mod token_budget;
mod tool_name;

use serde_json::Value;

use crate::diag::Diagnostic;
use crate::schema::{Catalog, Tool};

/// One static rule of the contract.
pub trait Rule {
    /// Stable code, e.g. `T1-tool-name`.
    fn code(&self) -> &'static str;
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>);
}

/// What a rule sees: the catalog, the spec file its pointers refer to, and a checked-in
/// `tools.json` to hold the catalog to (T5), if one was given.
pub struct Context<'a> {
    pub catalog: &'a Catalog,
    pub spec_file: &'a str,
    pub checked_in: Option<&'a str>,
}

impl Context<'_> {
    /// A diagnostic located where the tool was declared (overlay or `x-mcp-*` keys), else at the
    /// operation it came from.
    pub fn at_tool(&self, d: Diagnostic, tool: &Tool) -> Diagnostic {
        match &tool.declared {
            Some((file, pointer)) => d.at(file, pointer),
            None => d.at(self.spec_file, &tool.operation.pointer),
        }
    }
}

pub fn rules() -> Vec<Box<dyn Rule>> {
    vec![
        Box::new(tool_name::ToolName),
        Box::new(mega_endpoint::MegaEndpoint),
        Box::new(annotations::AnnotationsRule),
        Box::new(internal::Internal),
        Box::new(determinism::Determinism),
        Box::new(token_budget::TokenBudget),
        Box::new(instructions::Instructions),
        Box::new(description::Description),
        Box::new(id_source::IdSource),
        Box::new(injection::Injection),
        Box::new(accuracy::Accuracy),
        Box::new(input_schema::InputSchema),
        Box::new(flat_input::FlatInput),
        Box::new(ids_and_units::IdsAndUnits),
        Box::new(param_names::ParamNames),
        Box::new(read_only_key::ReadOnlyKey),
        Box::new(effects::EffectsRule),
        Box::new(approval::ApprovalRule),
        Box::new(confirm::Confirm),
        Box::new(deprecation::DeprecationRule),
    ]
}

pub fn lint(catalog: &Catalog, spec_file: &str) -> Vec<Diagnostic> {
    lint_against(catalog, spec_file, None)
}

/// Lint, also holding the catalog to a checked-in `tools.json` (T5).
pub fn lint_against(catalog: &Catalog, spec_file: &str, checked_in: Option<&str>) -> Vec<Diagnostic> {
    let ctx = Context { catalog, spec_file, checked_in };
    let mut out = Vec::new();
    let rules = rules();
    for rule in &rules {
        rule.check(&ctx, &mut out);
    }
    // A tool's `allow` list accepts reviewed findings; an unknown code there is itself a finding.
    let codes: Vec<&str> = rules.iter().map(|r| r.code()).collect();
    for tool in &catalog.tools {
        let Some(intent) = &tool.allow else { continue };
        for code in intent {
            if !codes.contains(&code.as_str()) {
                let help = match crate::overlay::closest(code, codes.iter().map(|c| (*c).to_owned()), 0.5) {
                    Some(c) => format!("did you mean `{c}`?"),
                    None => format!("lint codes are: {}", codes.join(", ")),
                };
                out.push(
                    ctx.at_tool(
                        Diagnostic::warning(
                            crate::diag::codes::OVERLAY,
                            format!("`{}` allows unknown lint code `{code}`", tool.name),
                        )
                        .with_help(help),
                        tool,
                    ),
                );
            }
        }
        // Tools with an `allow` list are declared, so their findings point at their own entry.
        let Some((file, pointer)) = &tool.declared else { continue };
        out.retain(|d| {
            let here = d.location.as_ref().is_some_and(|l| l.file == *file && l.pointer == *pointer);
            !(here && intent.iter().any(|c| c == d.code))
        });
    }
    out
}

/// Only T5: the catalog against a checked-in `tools.json`.
pub fn check_against(catalog: &Catalog, checked_in: &str) -> Vec<Diagnostic> {
    let ctx = Context { catalog, spec_file: "", checked_in: Some(checked_in) };
    let mut out = Vec::new();
    determinism::Determinism.check(&ctx, &mut out);
    out
}

/// Runs `flag` on every text the model reads of each tool — its description and each
/// description in its input and output schemas — and reports each finding with `report(tool,
/// where, finding)`. Shared shapes repeat their descriptions in every tool that reaches them:
/// each distinct text is judged once per slice of tools, slices on every core.
pub fn each_text(
    catalog: &Catalog,
    flag: impl Fn(&str) -> Vec<String> + Sync,
    report: impl Fn(&Tool, &str, String) -> Diagnostic + Sync,
) -> Vec<Diagnostic> {
    let found = crate::par::map_slices(&catalog.tools, |tools| {
        let mut clean: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for tool in tools {
            let schemas = [("/inputSchema", Some(&tool.input_schema)), ("/outputSchema", tool.output_schema.as_ref())];
            let mut texts = vec![("", tool.description.as_str())];
            for (at, schema) in schemas {
                let mut found = Vec::new();
                if let Some(schema) = schema {
                    schema_texts(schema, &mut found);
                }
                texts.extend(found.into_iter().map(|t| (at, t)));
            }
            for (at, text) in texts {
                if clean.contains(text) {
                    continue;
                }
                let flagged = flag(text);
                if flagged.is_empty() {
                    clean.insert(text);
                    continue;
                }
                let pointer = match schemas.iter().find(|(a, _)| *a == at).and_then(|(_, s)| *s) {
                    Some(schema) => text_pointer(schema, at, text),
                    None => "/description".to_owned(),
                };
                out.extend(flagged.into_iter().map(|f| report(tool, &pointer, f)));
            }
        }
        out
    });
    found.into_iter().flatten().collect()
}

/// Every `description` string in schema position of a schema (a property *named*
/// `description` is a schema, not text). Pointers are not built here: large catalogs hold
/// millions of nodes; [`text_pointer`] finds one when a text is reported.
pub fn schema_texts<'a>(schema: &'a Value, out: &mut Vec<&'a str>) {
    visit_texts(schema, &mut Vec::new(), &mut |_, text| {
        out.push(text);
        false
    });
}

/// The JSON Pointer (below `at`) of the first schema description equal to `text`.
pub fn text_pointer(schema: &Value, at: &str, text: &str) -> String {
    let mut found = None;
    visit_texts(schema, &mut Vec::new(), &mut |path, t| {
        if t == text {
            let mut p = at.to_owned();
            for seg in path {
                p.push('/');
                match seg {
                    Seg::Key(k) => p.push_str(&crate::diag::escape_token(k)),
                    Seg::Index(i) => p.push_str(&i.to_string()),
                }
            }
            p.push_str("/description");
            found = Some(p);
            return true;
        }
        false
    });
    found.unwrap_or_else(|| at.to_owned())
}

#[derive(Clone, Copy)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// Calls `f` with the path and each description; stops when `f` returns true.
fn visit_texts<'a>(schema: &'a Value, path: &mut Vec<Seg<'a>>, f: &mut dyn FnMut(&[Seg<'a>], &'a str) -> bool) -> bool {
    let Value::Object(map) = schema else { return false };
    if let Some(Value::String(d)) = map.get("description")
        && f(path, d)
    {
        return true;
    }
    for (key, value) in map {
        let mut descend = |segs: [Seg<'a>; 2], sub: &'a Value, len: usize| {
            path.extend_from_slice(&segs[..len]);
            let stop = visit_texts(sub, path, f);
            path.truncate(path.len() - len);
            stop
        };
        let stop = match (key.as_str(), value) {
            ("properties" | "$defs" | "patternProperties" | "dependentSchemas", Value::Object(entries)) => {
                entries.iter().any(|(name, sub)| descend([Seg::Key(key), Seg::Key(name)], sub, 2))
            }
            ("allOf" | "anyOf" | "oneOf" | "prefixItems", Value::Array(items)) => {
                items.iter().enumerate().any(|(i, sub)| descend([Seg::Key(key), Seg::Index(i)], sub, 2))
            }
            (
                "items"
                | "additionalProperties"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "unevaluatedProperties"
                | "unevaluatedItems",
                Value::Object(_),
            ) => descend([Seg::Key(key), Seg::Index(0)], value, 1),
            _ => false,
        };
        if stop {
            return true;
        }
    }
    false
}

/// Whether a tool changes state.
pub fn side_effecting(tool: &Tool) -> bool {
    !tool.annotations.read_only
}

/// `userId`, `user_id`, `id`: an argument that takes an identifier.
pub fn is_id(name: &str) -> bool {
    let snake = heck::ToSnakeCase::to_snake_case(name);
    snake == "id" || snake.ends_with("_id")
}
