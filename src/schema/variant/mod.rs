//! Provider variants of the catalog (CONTRACT I1, I3): every variant is derived from the one
//! canonical inputSchema of each tool, and says exactly what it gave up. The canonical schema
//! (`mcp`) is what the server validates every call against, whichever variant the caller saw.
//!
//! | variant | for | module |
//! | --- | --- | --- |
//! | `mcp` | MCP clients (JSON Schema 2020-12, shared shapes in `$defs`) | the schema stage itself |
//! | `openai-strict` | OpenAI function calling with `strict: true` | [`openai`] |
//! | `gemini` | Gemini function declarations (an OpenAPI 3.0 Schema subset) | [`gemini`] |
//! | `inline` | clients that cannot follow `$ref` | [`inline`] |
//!
//! A [`Loss`] is one constraint of the canonical schema that a variant no longer states as a
//! constraint (it may restate it in the field's description, which the model still reads), or
//! one thing the variant cannot express at all. Losses are located twice: as a JSON Pointer into
//! the canonical inputSchema, and as the argument field it applies to (a pointer into the
//! arguments, `*` standing for any array item or map value), so a test can build a violating
//! argument and see the server refuse it.

pub mod gemini;
pub mod inline;
mod merge;
pub mod openai;
mod walk;

use std::collections::BTreeMap;

use crate::resolve::schema::type_of;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::schema::Catalog;

/// One shape of the catalog's input schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Variant {
    Mcp,
    OpenAiStrict,
    Gemini,
    Inline,
}

impl Variant {
    pub const ALL: [Variant; 4] = [Variant::Mcp, Variant::OpenAiStrict, Variant::Gemini, Variant::Inline];
    /// The variants derived from the canonical one.
    pub const DERIVED: [Variant; 3] = [Variant::OpenAiStrict, Variant::Gemini, Variant::Inline];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Mcp => "mcp",
            Variant::OpenAiStrict => "openai-strict",
            Variant::Gemini => "gemini",
            Variant::Inline => "inline",
        }
    }

    pub fn parse(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// The catalog file of this variant in a generated crate.
    pub fn file_name(self) -> String {
        match self {
            Variant::Mcp => "tools.json".to_owned(),
            v => format!("tools.{}.json", v.name()),
        }
    }

    pub fn names() -> String {
        Variant::ALL.map(Variant::name).join(", ")
    }
}

/// What a variant did with a constraint it could not keep as one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Removed; the field's description now states it (the model still reads it).
    Restated,
    /// Removed without a trace in the schema (nothing useful to say in prose).
    Dropped,
    /// Replaced by a weaker constraint (`oneOf` → `anyOf`, exclusive → inclusive bound).
    Relaxed,
    /// A shape not expanded (recursion or size cap): the variant accepts any value of its type there.
    Cut,
    /// The variant accepts less than the canonical schema (a free-form map, a value of any type).
    Narrowed,
}

/// One constraint the variant no longer enforces at generation time. The server still does.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Loss {
    pub tool: String,
    /// The argument it applies to: a JSON Pointer into the arguments object, `*` for any item
    /// or map value (`""` is the arguments object itself).
    pub field: String,
    /// Where it is in the canonical inputSchema.
    pub pointer: String,
    pub keyword: String,
    pub value: Value,
    pub action: Action,
}

/// The losses of one schema, collected while a variant is built.
#[derive(Debug, Default)]
pub struct Losses {
    tool: String,
    pub list: Vec<Loss>,
}

impl Losses {
    pub fn new(tool: &str) -> Self {
        Losses { tool: tool.to_owned(), list: Vec::new() }
    }

    /// Records a loss, unless the keyword only annotates (see [`enforced`]).
    pub fn push(&mut self, field: &str, pointer: &str, keyword: &str, value: &Value, action: Action) {
        if !enforced(keyword, value) {
            return;
        }
        self.list.push(Loss {
            tool: self.tool.clone(),
            field: field.to_owned(),
            pointer: pointer.to_owned(),
            keyword: keyword.to_owned(),
            value: value.clone(),
            action,
        });
    }
}

/// One tool of a variant: what a provider is given.
#[derive(Debug, Clone)]
pub struct VariantTool {
    pub input_schema: Value,
    pub output_schema: Option<Value>,
}

/// A whole catalog in one variant, tool for tool in catalog order.
#[derive(Debug, Clone)]
pub struct VariantCatalog {
    pub variant: Variant,
    pub tools: Vec<VariantTool>,
    pub losses: Vec<Loss>,
}

/// The input (and, where the variant changes them, output) schema of one tool.
pub fn tool(variant: Variant, name: &str, input: &Value, output: Option<&Value>) -> (VariantTool, Vec<Loss>) {
    let mut losses = Losses::new(name);
    let (input_schema, output_schema) = match variant {
        Variant::Mcp => (input.clone(), output.cloned()),
        Variant::OpenAiStrict => (openai::strict(input, &mut losses), output.cloned()),
        Variant::Gemini => (gemini::schema(input, &mut losses), output.map(|o| inline::inline(o, None))),
        Variant::Inline => (inline::inline(input, Some(&mut losses)), output.map(|o| inline::inline(o, None))),
    };
    (VariantTool { input_schema, output_schema }, losses.list)
}

/// Every tool of `catalog` in `variant`, on every core.
pub fn catalog(catalog: &Catalog, variant: Variant) -> VariantCatalog {
    // The transformations recurse once per schema level (schemas nest up to ~110 JSON levels):
    // threads with room for that in any build.
    let parts = crate::par::map_slices_with_stack(&catalog.tools, 64 << 20, |tools| {
        tools.iter().map(|t| tool(variant, &t.name, &t.input_schema, t.output_schema.as_ref())).collect::<Vec<_>>()
    });
    let mut tools = Vec::with_capacity(catalog.tools.len());
    let mut losses = Vec::new();
    for (t, l) in parts.into_iter().flatten() {
        tools.push(t);
        losses.extend(l);
    }
    VariantCatalog { variant, tools, losses }
}

/// The loss report of one variant as JSON: `{"variant", "losses": [...], "summary": {keyword: n}}`.
pub fn losses_json(v: &VariantCatalog) -> Value {
    let (summary, tools_with_losses) = summary(v);
    json!({
        "variant": v.variant.name(),
        "tools": v.tools.len(),
        "toolsWithLosses": tools_with_losses,
        "summary": summary,
        "losses": v.losses,
    })
}

/// OpenAI's function-tool export: `{"type":"function","name","description","parameters","strict":true}`
/// for each tool, from the `openai-strict` variant.
pub fn openai_functions(catalog: &Catalog, strict: &VariantCatalog) -> Value {
    let tools: Vec<Value> = catalog
        .tools
        .iter()
        .zip(&strict.tools)
        .map(|(t, v)| {
            json!({
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": v.input_schema,
                "strict": true,
            })
        })
        .collect();
    Value::Array(tools)
}

/// The formats the server's validator asserts (JSON Schema 2020-12 with format assertion on;
/// its build checks no `idn-*` format).
/// Others (`int32`, `int64`, `float`, `byte`, `password`, …) only annotate: a variant that drops
/// one restates it but loses no enforcement.
pub const ASSERTED_FORMATS: &[&str] = &[
    "date",
    "date-time",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "iri",
    "iri-reference",
    "json-pointer",
    "relative-json-pointer",
    "regex",
    "uri",
    "uri-reference",
    "uri-template",
    "uuid",
];

/// Whether dropping `keyword: value` loses enforcement (an annotation-only format does not).
pub(crate) fn enforced(keyword: &str, value: &Value) -> bool {
    match keyword {
        "format" => value.as_str().is_some_and(|f| ASSERTED_FORMATS.contains(&f)),
        // Bounds every value meets: nothing to enforce.
        "minLength" | "minItems" | "minProperties" => value.as_u64() != Some(0),
        "uniqueItems" => value != &Value::Bool(false),
        _ => true,
    }
}

/// Keywords that only annotate: where two schemas disagree on one, nothing is lost.
pub(crate) fn is_annotation(keyword: &str) -> bool {
    matches!(
        keyword,
        "description" | "title" | "default" | "examples" | "deprecated" | "readOnly" | "writeOnly" | "$comment"
    ) || keyword.starts_with("x-")
}

/// The types a schema admits, in order: its `type`, else what its `enum`, `const` or
/// type-specific keywords imply (empty: any value).
pub(crate) fn types(map: &Map<String, Value>) -> Vec<String> {
    match map.get("type") {
        Some(Value::String(t)) => return vec![t.clone()],
        Some(Value::Array(ts)) => return ts.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => {}
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array) {
        let mut out: Vec<String> = Vec::new();
        for v in values {
            let t = type_of(v).to_owned();
            if !out.contains(&t) {
                out.push(t);
            }
        }
        return out;
    }
    if let Some(c) = map.get("const") {
        return vec![type_of(c).to_owned()];
    }
    let has = |keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
    let mut out = Vec::new();
    for (t, keys) in [
        (
            "object",
            &["properties", "additionalProperties", "required", "patternProperties", "minProperties", "maxProperties"]
                [..],
        ),
        ("array", &["items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"][..]),
        ("string", &["pattern", "minLength", "maxLength", "format", "contentEncoding"][..]),
        ("number", &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"][..]),
    ] {
        if has(keys) {
            out.push(t.to_owned());
        }
    }
    out
}

/// What a variant's losses come to: how many per keyword, and how many tools have any.
pub fn summary(v: &VariantCatalog) -> (BTreeMap<&str, usize>, usize) {
    let mut by_keyword: BTreeMap<&str, usize> = BTreeMap::new();
    for l in &v.losses {
        *by_keyword.entry(l.keyword.as_str()).or_default() += 1;
    }
    let mut tools: Vec<&str> = v.losses.iter().map(|l| l.tool.as_str()).collect();
    tools.dedup();
    (by_keyword, tools.len())
}

/// A short phrase that states a constraint in prose, for a variant that has to drop it.
pub(crate) fn phrase(keyword: &str, value: &Value) -> Option<String> {
    let n = || value.to_string();
    Some(match keyword {
        "maxLength" => format!("at most {} characters", n()),
        "minLength" => format!("at least {} characters", n()),
        "maxItems" => format!("at most {} items", n()),
        "minItems" => format!("at least {} items", n()),
        "uniqueItems" if value == &Value::Bool(true) => "items unique".to_owned(),
        "maxProperties" => format!("at most {} entries", n()),
        "minProperties" => format!("at least {} entries", n()),
        "minimum" => format!("at least {}", n()),
        "maximum" => format!("at most {}", n()),
        "exclusiveMinimum" => format!("greater than {}", n()),
        "exclusiveMaximum" => format!("less than {}", n()),
        "multipleOf" => format!("a multiple of {}", n()),
        "pattern" => match value.as_str() {
            Some(p) if p.len() <= 80 => format!("matching `{p}`"),
            _ => return None,
        },
        "format" => format!("format: {}", value.as_str()?),
        "contentEncoding" => format!("{}-encoded", value.as_str()?),
        "const" => format!("always {}", n()),
        "enum" => {
            let values = value.as_array()?;
            if values.len() > 12 {
                return None;
            }
            format!("one of {}", values.iter().map(Value::to_string).collect::<Vec<_>>().join(", "))
        }
        "default" => format!("default {}", n()),
        _ => return None,
    })
}

/// Appends phrases to a schema's description: `"Name (at most 50 characters)."`.
pub(crate) fn restate(map: &mut Map<String, Value>, phrases: &[String]) {
    if phrases.is_empty() {
        return;
    }
    let said = phrases.join("; ");
    let text = match map.get("description").and_then(Value::as_str).map(str::trim) {
        Some(d) if !d.is_empty() => {
            let (body, stop) = match d.strip_suffix('.') {
                Some(b) => (b, "."),
                None => (d, ""),
            };
            format!("{body} ({said}){stop}")
        }
        _ => {
            let mut chars = said.chars();
            match chars.next() {
                Some(c) => format!("{}{}.", c.to_uppercase(), chars.as_str()),
                None => return,
            }
        }
    };
    map.insert("description".to_owned(), Value::String(text));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restated_constraints_read_as_prose() {
        let mut m = Map::new();
        m.insert("description".into(), json!("Customer name."));
        restate(&mut m, &[phrase("maxLength", &json!(50)).unwrap_or_default()]);
        assert_eq!(m["description"], "Customer name (at most 50 characters).");
        let mut m = Map::new();
        restate(&mut m, &[phrase("multipleOf", &json!(5)).unwrap_or_default()]);
        assert_eq!(m["description"], "A multiple of 5.");
    }

    #[test]
    fn names_round_trip() {
        for v in Variant::ALL {
            assert_eq!(Variant::parse(v.name()), Some(v));
        }
        assert_eq!(Variant::OpenAiStrict.file_name(), "tools.openai-strict.json");
    }
}
