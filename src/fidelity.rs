//! The constraint-preservation checker (I1, I2): walks every operation's parameters and request
//! body in the *source* document — its own reading of it, with its own `$ref` following,
//! independent of `resolve` — and asserts that each validation constraint reaches the emitted
//! tool's inputSchema, present and equivalent.
//!
//! Checked keywords: minimum, maximum, exclusiveMinimum, exclusiveMaximum (boolean draft-04
//! form included), multipleOf, minLength, maxLength, pattern, enum, const, format, minItems,
//! maxItems, uniqueItems, required and `additionalProperties: false`, at every depth reached
//! through properties, items, tuple items, additionalProperties, allOf (folded on both sides)
//! and oneOf/anyOf (branch by branch). Not counted, and listed as such: operations that did not
//! become tools (with the compiler's reason), `readOnly` properties (server-assigned, never
//! inputs) and the Accept/Content-Type/Authorization header parameters OpenAPI says to ignore.
//!
//! Used by the corpus sweep (`mcp-gen fidelity`) and by tests.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::diag::escape_token;
use crate::load::Sources;
use crate::plan::Target;
use crate::plan::brief::{described_output_only, server_assigned};
use crate::schema::{Catalog, Tool};
use crate::{Input, Report, Settings, generate};

const NUMERIC: &[&str] = &["minimum", "maximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems"];
const EXACT: &[&str] = &["pattern", "format", "const", "uniqueItems"];
const METHODS: &[&str] = &["get", "put", "post", "delete", "patch", "head"];
/// Depth bound for the walk: deeper levels of a recursive shape repeat what was checked.
const MAX_DEPTH: usize = 24;

/// One constraint that did not arrive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loss {
    pub tool: String,
    /// Where in the source, e.g. `POST /pets body.tags[].name`.
    pub at: String,
    pub keyword: String,
    pub detail: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fidelity {
    pub operations: usize,
    /// Operations that did not become tools, with the reason the compiler gave.
    pub left_out: Vec<(String, String)>,
    pub constraints: usize,
    pub preserved: usize,
    pub losses: Vec<Loss>,
    /// readOnly properties and ignored header parameters, not counted.
    pub not_applicable: usize,
    /// Emitted inputSchemas and outputSchemas checked against the 2020-12 meta-schema.
    pub schemas: usize,
    /// Tool name and problem, for every emitted schema that is not valid 2020-12 or whose
    /// input root is not an object.
    pub invalid_schemas: Vec<(String, String)>,
}

impl Fidelity {
    pub fn is_complete(&self) -> bool {
        self.losses.is_empty() && self.invalid_schemas.is_empty()
    }

    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "operations": self.operations,
            "left_out": self.left_out.iter().map(|(op, why)| serde_json::json!({"operation": op, "reason": why})).collect::<Vec<_>>(),
            "constraints": self.constraints,
            "preserved": self.preserved,
            "not_applicable": self.not_applicable,
            "schemas": self.schemas,
            "invalid_schemas": self.invalid_schemas.iter().map(|(t, e)| serde_json::json!({"tool": t, "error": e})).collect::<Vec<_>>(),
            "losses": self.losses.iter().map(|l| serde_json::json!({"tool": l.tool, "at": l.at, "keyword": l.keyword, "detail": l.detail})).collect::<Vec<_>>(),
        })
    }
}

/// Compiles `input` and checks it. `Err` is the compiler's report when it does not compile.
pub fn check_input(input: &Input, settings: &Settings) -> Result<Fidelity, Report> {
    let output = generate(input, settings)?;
    let mut sources = Sources::default();
    let mut report = Report::new();
    // Multi-file descriptions: the files are embedded first (a mechanical rewrite of the
    // references, tested on its own); everything after reads the source as written.
    let Some((_, source)) = crate::load::read_bundled(&input.spec, &mut sources, &mut report) else {
        return Err(report);
    };
    let mut result = check(&source, &output.catalog);
    meta_check(&output.catalog, &mut result);
    Ok(result)
}

/// I1: every emitted schema is valid JSON Schema 2020-12, and every input is object-rooted.
pub fn meta_check(catalog: &Catalog, result: &mut Fidelity) {
    let validator = jsonschema::draft202012::meta::validator();
    for tool in &catalog.tools {
        if tool.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            result.invalid_schemas.push((tool.name.clone(), "inputSchema root is not `type: object`".to_owned()));
        }
        for (which, schema) in
            [("inputSchema", Some(&tool.input_schema)), ("outputSchema", tool.output_schema.as_ref())]
        {
            let Some(schema) = schema else { continue };
            result.schemas += 1;
            if let Err(e) = validator.validate(schema) {
                result
                    .invalid_schemas
                    .push((tool.name.clone(), format!("{which} at {}: {e}", e.instance_path().as_str())));
            }
        }
    }
}

/// Compares a source document (OpenAPI 3.x or Swagger 2.0, as parsed) with a catalog.
pub fn check(source: &Value, catalog: &Catalog) -> Fidelity {
    let swagger2 = source.get("swagger").is_some();
    let ctx = Ctx {
        doc: source,
        siblings_apply: source.get("openapi").and_then(Value::as_str).is_some_and(|v| v.starts_with("3.1")),
    };
    // A split operation has several tools; each is checked against it. A merged tool's
    // routes are each checked against their own operation, in the one schema the tool has.
    let mut by_op: BTreeMap<(String, String), Vec<(&Tool, &crate::plan::Tool)>> = BTreeMap::new();
    for tool in &catalog.tools {
        for route in tool.calls() {
            by_op
                .entry((route.operation.method.as_lower().to_owned(), route.operation.path.clone()))
                .or_default()
                .push((tool, route));
        }
    }
    let mut out = Fidelity::default();
    let Some(paths) = source.get("paths").and_then(Value::as_object) else { return out };
    for (path, item) in paths {
        if path.starts_with("x-") {
            continue;
        }
        let item = ctx.deref(item);
        let Some(item_map) = item.as_object() else { continue };
        for (method, op) in item_map {
            let method_l = method.to_ascii_lowercase();
            if !METHODS.contains(&method_l.as_str()) && !matches!(method_l.as_str(), "options" | "trace") {
                continue;
            }
            out.operations += 1;
            let label = format!("{} {path}", method_l.to_ascii_uppercase());
            let Some(tools) = by_op.get(&(method_l.clone(), path.clone())) else {
                let reason = catalog
                    .excluded
                    .iter()
                    .find(|e| e.operation == label)
                    .map_or_else(|| "no tool and no recorded reason".to_owned(), |e| e.reason.clone());
                out.left_out.push((label, reason));
                continue;
            };
            for (tool, route) in tools {
                let mut checker = Checker {
                    ctx: &ctx,
                    tool: route,
                    input: &tool.input_schema,
                    routed: !tool.routes.is_empty(),
                    label: &label,
                    out: &mut out,
                };
                checker.operation(item, op, swagger2);
            }
        }
    }
    out
}

/// Whether an emitted schema's `enum` or `const` holds only values that meet bound `kw` of `bound`:
/// then the bound is kept by the values themselves (mcp-gen drops it to save tokens). Checked
/// here on its own terms, not with the compiler's code.
fn enum_meets(emitted: &Value, kw: &str, bound: f64) -> bool {
    let values: Vec<&Value> = match (emitted.get("enum"), emitted.get("const")) {
        (Some(Value::Array(vs)), _) if !vs.is_empty() => vs.iter().collect(),
        (None, Some(v)) => vec![v],
        _ => return false,
    };
    let length = |v: &Value| v.as_str().map(|s| s.chars().count() as f64);
    values.into_iter().all(|v| match kw {
        "minLength" => length(v).is_none_or(|n| n >= bound),
        "maxLength" => length(v).is_none_or(|n| n <= bound),
        "minimum" => v.as_f64().is_none_or(|n| n >= bound),
        "maximum" => v.as_f64().is_none_or(|n| n <= bound),
        "exclusiveMinimum" => v.as_f64().is_none_or(|n| n > bound),
        "exclusiveMaximum" => v.as_f64().is_none_or(|n| n < bound),
        _ => false,
    })
}

/// The keywords a fixed value is checked against.
const CONSTRAINTS: &[&str] = &[
    "enum",
    "const",
    "type",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
];

struct Ctx<'a> {
    doc: &'a Value,
    /// OpenAPI 3.1: keywords beside `$ref` apply; in 3.0 and 2.0 they are ignored.
    siblings_apply: bool,
}

impl<'a> Ctx<'a> {
    /// Follows local `$ref` chains.
    fn deref(&self, mut v: &'a Value) -> &'a Value {
        for _ in 0..32 {
            match v.get("$ref").and_then(Value::as_str).and_then(|r| self.target(r)) {
                Some(t) => v = t,
                None => break,
            }
        }
        v
    }

    fn target(&self, reference: &str) -> Option<&'a Value> {
        let fragment = reference.strip_prefix('#')?;
        let decoded = percent_encoding::percent_decode_str(fragment).decode_utf8_lossy();
        self.doc.pointer(&decoded)
    }
}

type Seen = BTreeSet<(usize, usize)>;

struct Checker<'c, 'a> {
    ctx: &'c Ctx<'a>,
    /// The tool, or the route of a merged tool, that calls the operation.
    tool: &'c crate::plan::Tool,
    input: &'c Value,
    /// A route of a merged tool: the server sends a call its way only when every argument the
    /// route requires is given, so those stay required even where the tool's schema cannot
    /// say so (the other routes do not take them).
    routed: bool,
    label: &'c str,
    out: &'c mut Fidelity,
}

impl<'c, 'a> Checker<'c, 'a> {
    fn operation(&mut self, item: &'a Value, op: &'a Value, swagger2: bool) {
        // Operation parameters override path-level ones with the same name and location.
        let mut params: Vec<&'a Value> = Vec::new();
        for list in [op.get("parameters"), item.get("parameters")] {
            for p in list.and_then(Value::as_array).into_iter().flatten() {
                let p = self.ctx.deref(p);
                let key = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
                if !params.iter().any(|q| key(q) == key(p)) {
                    params.push(p);
                }
            }
        }
        let mut form_fields: Vec<&'a Value> = Vec::new();
        for p in params {
            let (Some(name), Some(location)) =
                (p.get("name").and_then(Value::as_str), p.get("in").and_then(Value::as_str))
            else {
                continue;
            };
            if location == "header"
                && ["accept", "content-type", "authorization"].contains(&name.to_ascii_lowercase().as_str())
            {
                self.out.not_applicable += 1;
                continue;
            }
            if location == "body" {
                if let Some(schema) = p.get("schema") {
                    self.body(schema, p.get("required") == Some(&Value::Bool(true)));
                }
                continue;
            }
            if location == "formData" {
                form_fields.push(p);
                continue;
            }
            let arg = self.tool.args.iter().find(|a| match (&a.target, location) {
                (Target::Path { name: n, .. }, "path")
                | (Target::Query { name: n, .. }, "query")
                | (Target::Header { name: n, .. }, "header")
                | (Target::Cookie { name: n, .. }, "cookie") => n == name,
                _ => false,
            });
            let at = format!("{} {location} {name}", self.label);
            let Some(arg) = arg else {
                let schema = p.get("schema").unwrap_or(p);
                if !self.fixed_or_hidden(&format!("{location}.{name}"), schema, &at) {
                    self.lose(&at, "parameter", "no argument carries this parameter".to_owned());
                }
                continue;
            };
            let schema: &'a Value = if swagger2 {
                p
            } else {
                match (p.get("schema"), p.get("content").and_then(Value::as_object)) {
                    (Some(s), _) => s,
                    (None, Some(c)) => match c.values().next().and_then(|m| m.get("schema")) {
                        Some(s) => s,
                        None => continue,
                    },
                    _ => continue,
                }
            };
            let required = location == "path" || p.get("required") == Some(&Value::Bool(true));
            self.argument(schema, &arg.name, required, &at);
        }
        if !form_fields.is_empty() {
            // Swagger 2.0 form parameters: the body is an object of them.
            for p in form_fields {
                let Some(name) = p.get("name").and_then(Value::as_str) else { continue };
                let at = format!("{} formData {name}", self.label);
                let required = p.get("required") == Some(&Value::Bool(true));
                self.body_property(name, p, required, &at);
            }
        }
        if !swagger2
            && let Some(rb) = op.get("requestBody").map(|b| self.ctx.deref(b))
            && let Some(plan) = &self.tool.body
        {
            let schema = rb.get("content").and_then(|c| c.get(&plan.media_type)).and_then(|m| m.get("schema"));
            if let Some(schema) = schema {
                self.body(schema, rb.get("required") == Some(&Value::Bool(true)));
            }
        } else if !swagger2 && op.get("requestBody").is_some() {
            // A body that can only be `{}` on a GET or DELETE is not sent, so nothing of it
            // can be broken.
            self.out.not_applicable += 1;
        }
    }

    /// A request body: one `body` argument, or one argument per top-level property.
    fn body(&mut self, schema: &'a Value, body_required: bool) {
        let input = self.input;
        let at = format!("{} body", self.label);
        // A tool split out of a body with alternatives is checked against its own alternative.
        let schema = self.branch(schema).unwrap_or(schema);
        if let Some(arg) = self.tool.args.iter().find(|a| a.target == Target::Body) {
            self.argument(schema, &arg.name, body_required, &at);
            return;
        }
        let layers = self.source_layers(&[schema]);
        let required: BTreeSet<&str> = layers
            .iter()
            .filter_map(|l| l.get("required").and_then(Value::as_array))
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut props: BTreeMap<&str, Vec<&'a Value>> = BTreeMap::new();
        for l in &layers {
            for (name, s) in l.get("properties").and_then(Value::as_object).into_iter().flatten() {
                props.entry(name.as_str()).or_default().push(s);
            }
        }
        if layers.iter().any(|l| l.get("additionalProperties") == Some(&Value::Bool(false))) {
            self.count(
                &at,
                "additionalProperties",
                input.get("additionalProperties") == Some(&Value::Bool(false)),
                "false",
            );
        }
        for (name, subs) in props {
            let at = format!("{at}.{name}");
            if subs.iter().any(|s| self.read_only(s)) {
                self.out.not_applicable += 1;
                continue;
            }
            let required = body_required && required.contains(name);
            for s in subs {
                self.body_property(name, s, required, &at);
            }
        }
    }

    fn body_property(&mut self, name: &str, schema: &'a Value, required: bool, at: &str) {
        let Some(arg) = self.tool.args.iter().find(|a| matches!(&a.target, Target::BodyField { name: n } if n == name))
        else {
            if !self.fixed_or_hidden(&format!("body.{name}"), schema, at) {
                self.lose(at, "property", "no argument carries this body property".to_owned());
            }
            return;
        };
        self.argument(schema, &arg.name, required, at);
    }

    /// One argument: its `required` flag, then its schema against the source's.
    fn argument(&mut self, schema: &'a Value, arg: &str, required: bool, at: &str) {
        let input = self.input;
        // A cursor the server hands out as a signed handle (H1): the model never sends the
        // upstream's value, the server does, as the upstream returned it.
        if self.tool.pagination.as_ref().is_some_and(|p| p.handle().is_some() && p.cursor == arg) {
            self.out.not_applicable += 1;
            return;
        }
        self.required(at, required, arg, input);
        let emitted: Vec<&'c Value> =
            input.pointer(&format!("/properties/{}", escape_token(arg))).into_iter().collect();
        self.compare(&[schema], &emitted, at, 0, &mut BTreeSet::new());
    }

    fn required(&mut self, at: &str, required: bool, arg: &str, input: &Value) {
        if required {
            let ok = input.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|x| x == arg))
                || (self.routed && self.tool.args.iter().any(|a| a.name == arg && a.required));
            self.count(at, "required", ok, arg);
        }
    }

    /// A parameter or body property the tool does not take as an argument: a fixed value (each
    /// of its source constraints is kept when the value satisfies it: the server always sends
    /// that value) or an optional argument the overlay hid (its constraints no longer apply).
    fn fixed_or_hidden(&mut self, key: &str, schema: &'a Value, at: &str) -> bool {
        let matches = |t: &Target| t.is_keyed(key);
        if let Some(f) = self.tool.fixed.iter().find(|f| matches(&f.arg.target)) {
            let value = f.value.clone();
            for layer in self.source_layers(&[schema]) {
                let mut own = layer.as_object().cloned().unwrap_or_default();
                own.shift_remove("$ref");
                own.shift_remove("allOf");
                for kw in CONSTRAINTS {
                    if own.contains_key(*kw) {
                        // OpenAPI 3.0 schemas are draft-4 shaped for these keywords.
                        let ok =
                            jsonschema::draft4::new(&Value::Object(own.clone())).map_or(true, |v| v.is_valid(&value));
                        self.count(at, kw, ok, &format!("fixed value {value}"));
                    }
                }
            }
            return true;
        }
        if self.tool.hidden.iter().any(|a| matches(&a.target)) {
            self.out.not_applicable += 1;
            return true;
        }
        false
    }

    /// For a tool that fixes a body property, the `oneOf`/`anyOf` alternative of the source body
    /// that property selects (by discriminator mapping, by `const`/single `enum`, or by the
    /// implicit mapping to a schema of that name).
    fn branch(&self, schema: &'a Value) -> Option<&'a Value> {
        let shape = self.ctx.deref(schema);
        let branches = shape.get("oneOf").or_else(|| shape.get("anyOf"))?.as_array()?;
        for f in &self.tool.fixed {
            let Target::BodyField { name } = &f.arg.target else { continue };
            let Some(v) = f.value.as_str() else { continue };
            let mapping = shape.get("discriminator").and_then(|d| d.get("mapping")).and_then(|m| m.get(v));
            if let Some(target) = mapping.and_then(Value::as_str)
                && let Some(b) = branches.iter().find(|b| b.get("$ref").and_then(Value::as_str) == Some(target))
            {
                return Some(b);
            }
            for b in branches {
                let pinned = self.source_layers(&[b]).iter().any(|l| {
                    l.get("properties").and_then(|p| p.get(name)).map(|p| self.ctx.deref(p)).is_some_and(|p| {
                        p.get("const").and_then(Value::as_str) == Some(v)
                            || p.get("enum").and_then(Value::as_array).is_some_and(|e| e.len() == 1 && e[0] == v)
                    })
                });
                let named = b.get("$ref").and_then(Value::as_str).is_some_and(|r| r.rsplit('/').next() == Some(v));
                if pinned || named {
                    return Some(b);
                }
            }
        }
        None
    }

    /// Server-assigned: `readOnly` on the property, its `$ref` target or an `allOf` branch, or
    /// one of them described as output only (a 3.0 `$ref`'s description beside it included).
    fn read_only(&self, s: &'a Value) -> bool {
        described_output_only(s) || self.source_layers(&[s]).iter().any(|l| server_assigned(l))
    }

    /// The schema objects that apply at a source node: `$ref` targets (with their siblings in
    /// 3.1) and `allOf` branches, recursively.
    fn source_layers(&self, nodes: &[&'a Value]) -> Vec<&'a Value> {
        let mut out = Vec::new();
        let mut stack: Vec<(&'a Value, usize)> = nodes.iter().map(|n| (*n, 0)).collect();
        while let Some((n, depth)) = stack.pop() {
            if depth > 32 || !n.is_object() {
                continue;
            }
            if let Some(t) = n.get("$ref").and_then(Value::as_str).and_then(|r| self.ctx.target(r)) {
                stack.push((t, depth + 1));
                if !self.ctx.siblings_apply {
                    continue;
                }
            }
            out.push(n);
            for b in n.get("allOf").and_then(Value::as_array).into_iter().flatten() {
                stack.push((b, depth + 1));
            }
        }
        out
    }

    /// The same for an emitted node: `$ref`s into the tool's `$defs` (siblings apply in
    /// 2020-12), `allOf`, and the `anyOf: [X, {type: null}]` wrapper that stands for OpenAPI
    /// 3.0's `nullable` (the wrapper stays a layer too, for a source that wrote it itself).
    fn emitted_layers(&self, nodes: &[&'c Value]) -> Vec<&'c Value> {
        let mut out = Vec::new();
        let mut stack: Vec<(&'c Value, usize)> = nodes.iter().map(|n| (*n, 0)).collect();
        while let Some((n, depth)) = stack.pop() {
            if depth > 32 || !n.is_object() {
                continue;
            }
            if let Some(name) = n.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"))
                && let Some(t) = self.input.get("$defs").and_then(|d| d.get(name))
            {
                stack.push((t, depth + 1));
            }
            out.push(n);
            for b in n.get("allOf").and_then(Value::as_array).into_iter().flatten() {
                stack.push((b, depth + 1));
            }
            if let Some([x, null]) = n.get("anyOf").and_then(Value::as_array).map(Vec::as_slice)
                && null.get("type").and_then(Value::as_str) == Some("null")
            {
                stack.push((x, depth + 1));
            }
        }
        out
    }

    fn compare(&mut self, src: &[&'a Value], emitted: &[&'c Value], at: &str, depth: usize, seen: &mut Seen) {
        if depth > MAX_DEPTH {
            return;
        }
        let sl = self.source_layers(src);
        let el = self.emitted_layers(emitted);
        let Some(first) = sl.first() else { return };
        let key = (std::ptr::from_ref(*first) as usize, el.first().map_or(0, |e| std::ptr::from_ref(*e) as usize));
        if !seen.insert(key) {
            return;
        }
        let num = |v: &Value| v.as_f64();
        for layer in &sl {
            let flag = |k: &str| layer.get(k) == Some(&Value::Bool(true));
            for kw in NUMERIC {
                let Some(v) = layer.get(*kw).and_then(num) else { continue };
                // Under a boolean exclusive flag the bound is the exclusive one, checked below.
                if (*kw == "minimum" && flag("exclusiveMinimum")) || (*kw == "maximum" && flag("exclusiveMaximum")) {
                    continue;
                }
                let ok = el.iter().any(|e| e.get(*kw).and_then(num) == Some(v) || enum_meets(e, kw, v));
                self.count(at, kw, ok, &v.to_string());
            }
            for (kw, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
                let expected = match layer.get(kw) {
                    Some(Value::Bool(true)) => layer.get(bound).and_then(num),
                    Some(v) => num(v),
                    None => None,
                };
                if let Some(v) = expected {
                    let ok = el.iter().any(|e| e.get(kw).and_then(num) == Some(v) || enum_meets(e, kw, v));
                    self.count(at, kw, ok, &v.to_string());
                }
            }
            for kw in EXACT {
                let Some(v) = layer.get(*kw) else { continue };
                // A pattern may arrive in its exact ECMA-262 spelling (resolve::regex).
                if *kw == "pattern"
                    && let Some(ecma) = v.as_str().and_then(crate::resolve::regex::to_ecma)
                    && el.iter().any(|e| e.get("pattern").and_then(Value::as_str) == Some(ecma.as_str()))
                {
                    self.count(at, kw, true, &ecma);
                    continue;
                }
                if *kw == "uniqueItems" && v != &Value::Bool(true) {
                    continue;
                }
                // Raw bytes travel in JSON as base64 text (multipart files, binary bodies).
                if *kw == "format"
                    && v == "binary"
                    && el.iter().any(|e| e.get("contentEncoding").and_then(Value::as_str) == Some("base64"))
                {
                    self.count(at, kw, true, "binary as base64");
                    continue;
                }
                let ok = el.iter().any(|e| e.get(*kw) == Some(v));
                self.count(at, kw, ok, &v.to_string());
            }
            if let Some(Value::Array(values)) = layer.get("enum") {
                let strip = |l: &Vec<Value>| l.iter().filter(|v| !v.is_null()).cloned().collect::<Vec<_>>();
                let want = strip(values);
                let ok = el.iter().any(|e| e.get("enum").and_then(Value::as_array).is_some_and(|l| strip(l) == want));
                self.count(at, "enum", ok, &format!("{} values", values.len()));
            }
            if layer.get("additionalProperties") == Some(&Value::Bool(false)) {
                let ok = el.iter().any(|e| e.get("additionalProperties") == Some(&Value::Bool(false)));
                self.count(at, "additionalProperties", ok, "false");
            }
        }
        // Properties, with `required` checked per property.
        let mut props: BTreeMap<&str, Vec<&'a Value>> = BTreeMap::new();
        for l in &sl {
            for (name, s) in l.get("properties").and_then(Value::as_object).into_iter().flatten() {
                props.entry(name.as_str()).or_default().push(s);
            }
        }
        let required: BTreeSet<&str> = sl
            .iter()
            .filter_map(|l| l.get("required").and_then(Value::as_array))
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let emitted_required: BTreeSet<&str> = el
            .iter()
            .filter_map(|l| l.get("required").and_then(Value::as_array))
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        // In a whole `body` argument, a field the tool fixes is sent by the server, always.
        let whole_body = depth == 0 && at.ends_with(" body");
        let fixed = |name: &str| {
            whole_body
                && self.tool.fixed.iter().any(|f| matches!(&f.arg.target, Target::BodyField { name: n } if n == name))
        };
        for name in &required {
            if props.get(name).is_some_and(|subs| subs.iter().any(|s| self.read_only(s))) {
                self.out.not_applicable += 1;
                continue;
            }
            self.count(at, "required", emitted_required.contains(name) || fixed(name), name);
        }
        for (name, subs) in props {
            if subs.iter().any(|s| self.read_only(s)) {
                self.out.not_applicable += 1;
                continue;
            }
            if fixed(name) {
                for sub in subs {
                    self.fixed_or_hidden(&format!("body.{name}"), sub, &format!("{at}.{name}"));
                }
                continue;
            }
            let esubs: Vec<&'c Value> =
                el.iter().filter_map(|e| e.get("properties").and_then(|p| p.get(name))).collect();
            self.compare(&subs, &esubs, &format!("{at}.{name}"), depth + 1, seen);
        }
        // Items, tuples and additional properties.
        let pick = |layers: &[&'a Value], key: &str| -> Vec<&'a Value> {
            layers.iter().filter_map(|l| l.get(key)).filter(|v| v.is_object()).collect()
        };
        let epick = |layers: &[&'c Value], key: &str| -> Vec<&'c Value> {
            layers.iter().filter_map(|l| l.get(key)).filter(|v| v.is_object()).collect()
        };
        let items = pick(&sl, "items");
        if !items.is_empty() {
            self.compare(&items, &epick(&el, "items"), &format!("{at}[]"), depth + 1, seen);
        }
        let extra = pick(&sl, "additionalProperties");
        if !extra.is_empty() {
            self.compare(&extra, &epick(&el, "additionalProperties"), &format!("{at}{{*}}"), depth + 1, seen);
        }
        for l in &sl {
            let tuple = match (l.get("items"), l.get("prefixItems")) {
                (Some(Value::Array(t)), _) | (_, Some(Value::Array(t))) => t,
                _ => continue,
            };
            for (i, s) in tuple.iter().enumerate() {
                let e: Vec<&'c Value> = el.iter().filter_map(|e| e.get("prefixItems").and_then(|p| p.get(i))).collect();
                self.compare(&[s], &e, &format!("{at}[{i}]"), depth + 1, seen);
            }
        }
        // Alternatives, branch by branch.
        for kw in ["oneOf", "anyOf"] {
            for l in &sl {
                let Some(branches) = l.get(kw).and_then(Value::as_array) else { continue };
                let matching =
                    el.iter().filter_map(|e| e.get(kw).and_then(Value::as_array)).find(|b| b.len() == branches.len());
                match matching {
                    Some(eb) => {
                        for (i, (s, e)) in branches.iter().zip(eb).enumerate() {
                            self.compare(&[s], &[e], &format!("{at}<{kw} {i}>"), depth + 1, seen);
                        }
                    }
                    None => self.lose(at, kw, format!("{} alternatives not found", branches.len())),
                }
            }
        }
    }

    fn count(&mut self, at: &str, keyword: &str, ok: bool, detail: &str) {
        self.out.constraints += 1;
        if ok {
            self.out.preserved += 1;
        } else {
            self.lose(at, keyword, detail.to_owned());
        }
    }

    fn lose(&mut self, at: &str, keyword: &str, detail: String) {
        self.out.losses.push(Loss {
            tool: self.tool.name.clone(),
            at: at.to_owned(),
            keyword: keyword.to_owned(),
            detail,
        });
    }
}
