//! Schema normalisation to JSON Schema 2020-12 and the table of named shapes (`$defs`).
//!
//! Every `$ref` to a schema becomes `#/$defs/<name>`, where the name comes from the component
//! (`#/components/schemas/Pet` → `Pet`); the target is normalised once, later, from a queue, so
//! recursive schemas stay finite. OpenAPI 3.0 dialect (`nullable`, boolean exclusive bounds,
//! `example`) is translated; annotations that only OpenAPI understands are dropped. Keywords are
//! kept as JSON values so that no constraint is lost.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::{Map, Value, json};

use crate::diag::{Diagnostic, Report, codes, join_pointer, unescape_token};
use crate::load::SpecVersion;

/// Keywords whose value is one subschema.
pub(crate) const SINGLE: &[&str] = &[
    "additionalProperties",
    "items",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
];
/// Keywords whose value is a map of subschemas (draft-04 `dependencies` mixes in arrays of names,
/// which are kept as they are).
pub(crate) const MAPS: &[&str] =
    &["properties", "patternProperties", "dependentSchemas", "$defs", "definitions", "dependencies"];
/// Keywords whose value is a list of subschemas.
pub(crate) const LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// OpenAPI-only keywords with no meaning to a JSON Schema consumer, and identifiers that would
/// change how the rewritten `#/$defs/…` references resolve. Nested `definitions`/`$defs` are
/// containers: whatever in them is used is reached through a `$ref` and lands in the table.
const DROPPED: &[&str] =
    &["xml", "externalDocs", "nullable", "example", "$id", "id", "$schema", "definitions", "$defs", "$comment"];
/// Annotation keywords that belong on the outside when a schema is wrapped in `anyOf`.
const ANNOTATIONS: &[&str] = &["title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"];

/// How deeply one schema may nest inline (without `$ref`). Emitted schemas must parse in every
/// client, and JSON parsers stop at about 128 levels (serde_json, and so rmcp, does).
pub const MAX_SCHEMA_DEPTH: usize = 45;

/// The named shapes of one API, normalised.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Defs {
    pub schemas: BTreeMap<String, Value>,
}

impl Defs {
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.schemas.get(name)
    }

    /// The schema's first example (`examples`, which the resolver made of OpenAPI's `example`), or an
    /// object's made of its properties' examples, through `$ref`s.
    pub fn example(&self, schema: &Value) -> Option<Value> {
        let schema = self.follow(schema);
        if let Some(e) = schema.get("examples").and_then(Value::as_array).and_then(|a| a.first()) {
            return Some(e.clone());
        }
        let props = schema.get("properties")?.as_object()?;
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = serde_json::Map::new();
        for (name, sub) in props {
            match self.example(sub) {
                Some(v) => {
                    out.insert(name.clone(), v);
                }
                None if required.contains(&name.as_str()) => return None,
                None => {}
            }
        }
        (!out.is_empty()).then_some(Value::Object(out))
    }

    /// Follows `{"$ref": "#/$defs/X"}` chains to the shape they name.
    pub fn follow<'a>(&'a self, mut schema: &'a Value) -> &'a Value {
        for _ in 0..32 {
            match def_name(schema).and_then(|n| self.schemas.get(n)) {
                Some(target) => schema = target,
                None => break,
            }
        }
        schema
    }
}

/// Calls `f` on every direct subschema of `schema`, never on data such as `examples`, `enum` or
/// `default` (which may hold anything, even a `$ref` key).
pub fn for_each_subschema<'a>(schema: &'a Value, f: &mut dyn FnMut(&'a Value)) {
    let Value::Object(map) = schema else { return };
    for (key, value) in map {
        let key = key.as_str();
        match value {
            Value::Array(items) if LISTS.contains(&key) || key == "items" => items.iter().for_each(&mut *f),
            Value::Object(entries) if MAPS.contains(&key) => {
                entries.values().filter(|s| s.is_object() || s.is_boolean()).for_each(&mut *f);
            }
            _ if SINGLE.contains(&key) => f(value),
            _ => {}
        }
    }
}

/// [`for_each_subschema`], mutably.
pub fn for_each_subschema_mut(schema: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    let Value::Object(map) = schema else { return };
    for (key, value) in map.iter_mut() {
        let key = key.as_str();
        match value {
            Value::Array(items) if LISTS.contains(&key) || key == "items" => items.iter_mut().for_each(&mut *f),
            Value::Object(entries) if MAPS.contains(&key) => {
                entries.values_mut().filter(|s| s.is_object() || s.is_boolean()).for_each(&mut *f);
            }
            _ if SINGLE.contains(&key) => f(value),
            _ => {}
        }
    }
}

/// The def a schema is a bare reference to, if it is one.
pub fn def_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

pub struct SchemaTable<'d> {
    doc: &'d Value,
    file: &'d str,
    version: SpecVersion,
    /// Source pointer → def name.
    names: BTreeMap<String, String>,
    taken: BTreeSet<String>,
    queue: VecDeque<(String, String)>,
    /// Patterns known to compile as written (checked once each).
    patterns: BTreeSet<String>,
    /// Source pattern → the pattern emitted (rewritten once, reported once).
    rewritten: BTreeMap<String, String>,
    pub defs: Defs,
}

impl<'d> SchemaTable<'d> {
    pub fn new(doc: &'d Value, file: &'d str, version: SpecVersion) -> Self {
        let mut table = SchemaTable {
            doc,
            file,
            version,
            names: BTreeMap::new(),
            taken: BTreeSet::new(),
            queue: VecDeque::new(),
            patterns: BTreeSet::new(),
            rewritten: BTreeMap::new(),
            defs: Defs::default(),
        };
        // Component names are claimed first, in sorted order, so a def's name never depends on
        // which operation happened to reach it first.
        table.claim("/components/schemas");
        table
    }

    /// A table for a standalone JSON Schema document: its `definitions` and `$defs` are the
    /// named shapes.
    pub fn for_json_schema(doc: &'d Value, file: &'d str, version: SpecVersion) -> Self {
        let mut table = SchemaTable::new(doc, file, version);
        table.claim("/$defs");
        table.claim("/definitions");
        table
    }

    fn claim(&mut self, container: &str) {
        let Some(schemas) = self.doc.pointer(container).and_then(Value::as_object) else { return };
        let mut keys: Vec<&String> = schemas.keys().collect();
        keys.sort();
        for key in keys {
            let pointer = join_pointer(container, key);
            let name = self.unique(crate::text::def_key(key));
            self.names.insert(pointer, name);
        }
    }

    fn unique(&mut self, base: String) -> String {
        let base = if base.is_empty() { "Schema".to_owned() } else { base };
        let name = crate::text::unique(&base, "_", |c| self.taken.contains(c));
        self.taken.insert(name.clone());
        name
    }

    /// The def name for a schema at `pointer`, registering it (and queueing its normalisation)
    /// on first use.
    fn def_for(&mut self, pointer: &str) -> String {
        if let Some(name) = self.names.get(pointer) {
            let name = name.clone();
            if !self.defs.schemas.contains_key(&name) {
                // A placeholder until the queue normalises it.
                self.defs.schemas.insert(name.clone(), Value::Bool(true));
                self.queue.push_back((pointer.to_owned(), name.clone()));
            }
            return name;
        }
        let name = self.unique(name_from_pointer(pointer));
        self.names.insert(pointer.to_owned(), name.clone());
        self.defs.schemas.insert(name.clone(), Value::Bool(true));
        self.queue.push_back((pointer.to_owned(), name.clone()));
        name
    }

    /// Normalises every def reached so far (and those they reach).
    pub fn finish(&mut self, report: &mut Report) {
        while let Some((pointer, name)) = self.queue.pop_front() {
            let doc = self.doc;
            let normalised = match doc.pointer(&pointer) {
                Some(source) => self.normalize(source, &pointer, report),
                None => Value::Bool(true),
            };
            self.defs.schemas.insert(name, normalised);
        }
    }

    /// Translates a schema at `at` (a pointer into the document) to 2020-12 (patterns checked on
    /// the way), and checks the result against the 2020-12 meta-schema: an invalid annotation
    /// is dropped with a warning, an invalid constraint is an error (it cannot be kept, and
    /// dropping it would lose it).
    pub fn normalize(&mut self, schema: &Value, at: &str, report: &mut Report) -> Value {
        let mut out = self.walk(schema, at, report, 0);
        check_schema(&mut out, self.file, at, report);
        out
    }

    fn walk(&mut self, schema: &Value, at: &str, report: &mut Report, depth: usize) -> Value {
        if depth > MAX_SCHEMA_DEPTH {
            report.push(
                Diagnostic::error(codes::INVALID_SPEC, format!("schema nested deeper than {MAX_SCHEMA_DEPTH} levels"))
                    .at(self.file, at)
                    .with_help("flatten the schema with named components and `$ref`"),
            );
            return Value::Bool(true);
        }
        let obj = match schema {
            Value::Object(o) => o,
            Value::Bool(_) => return schema.clone(),
            _ => {
                report.push(
                    Diagnostic::error(codes::INVALID_SPEC, "a schema must be an object")
                        .at(self.file, at)
                        .with_help("replace this value with a JSON Schema object"),
                );
                return Value::Bool(true);
            }
        };
        let mut out = Map::new();
        if let Some(reference) = obj.get("$ref") {
            let target = self.reference(reference, at, report);
            out.insert("$ref".to_owned(), Value::String(target));
            if self.version != SpecVersion::OpenApi31 {
                // 3.0 ignores `$ref` siblings; keep only the annotations, which help the model
                // and change no validation.
                for key in ["description", "title"] {
                    if let Some(v) = obj.get(key) {
                        out.insert(key.to_owned(), v.clone());
                    }
                }
                return Value::Object(out);
            }
        }
        for (key, value) in obj {
            let key = key.as_str();
            if key == "$ref" || DROPPED.contains(&key) || key.starts_with("x-") {
                continue;
            }
            let here = join_pointer(at, key);
            let converted = if key == "items" && value.is_array() {
                // Draft-04 to 2019-09 tuple form: 2020-12 spells it `prefixItems`, and what
                // `additionalItems` said about the rest becomes `items`.
                out.insert("prefixItems".to_owned(), self.list(value, &here, report, depth));
                if let Some(rest) = obj.get("additionalItems") {
                    let rest = self.walk(rest, &join_pointer(at, "additionalItems"), report, depth + 1);
                    out.insert("items".to_owned(), rest);
                }
                continue;
            } else if key == "additionalItems" {
                // Only meaningful beside tuple `items` (handled there); ignored otherwise.
                continue;
            } else if key == "dependencies" {
                // Draft-07 and earlier: lists of names are `dependentRequired`, schemas are
                // `dependentSchemas`.
                if let Some(map) = value.as_object() {
                    for (name, dep) in map {
                        let (target, v) = match dep {
                            Value::Array(_) => ("dependentRequired", dep.clone()),
                            _ => ("dependentSchemas", self.walk(dep, &join_pointer(&here, name), report, depth + 1)),
                        };
                        if let Value::Object(m) =
                            out.entry(target.to_owned()).or_insert_with(|| Value::Object(Map::new()))
                        {
                            m.insert(name.clone(), v);
                        }
                    }
                }
                continue;
            } else if SINGLE.contains(&key) {
                self.walk(value, &here, report, depth + 1)
            } else if MAPS.contains(&key) {
                if key == "patternProperties"
                    && let Some(map) = value.as_object()
                {
                    for k in map.keys() {
                        self.pattern_compiles(k, &join_pointer(&here, k), report);
                    }
                }
                match value.as_object() {
                    Some(map) => Value::Object(
                        map.iter()
                            .map(|(k, v)| {
                                let v = if v.is_object() || v.is_boolean() {
                                    self.walk(v, &join_pointer(&here, k), report, depth + 1)
                                } else {
                                    v.clone()
                                };
                                (k.clone(), v)
                            })
                            .collect(),
                    ),
                    None => value.clone(),
                }
            } else if LISTS.contains(&key) {
                self.list(value, &here, report, depth)
            } else if let ("pattern", Value::String(p)) = (key, value) {
                Value::String(self.pattern(p, &here, report))
            } else if key == "exclusiveMinimum" || key == "exclusiveMaximum" {
                match value {
                    // OpenAPI 3.0 / draft-04: a flag on minimum/maximum.
                    Value::Bool(true) => {
                        let bound = if key == "exclusiveMinimum" { "minimum" } else { "maximum" };
                        match obj.get(bound) {
                            Some(b) => b.clone(),
                            None => continue,
                        }
                    }
                    Value::Bool(false) => continue,
                    other => other.clone(),
                }
            } else if key == "discriminator" {
                // The property name stays as an annotation; an explicit mapping becomes
                // constraints on the branches below (JSON Schema cannot express it otherwise).
                match value.get("propertyName") {
                    Some(p) => json!({ "propertyName": p }),
                    None => continue,
                }
            } else {
                value.clone()
            };
            out.insert(key.to_owned(), converted);
        }
        // Boolean exclusive bounds replaced minimum/maximum.
        for (flag, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
            if obj.get(flag) == Some(&Value::Bool(true)) {
                out.shift_remove(bound);
            }
        }
        if let Some(example) = obj.get("example")
            && !out.contains_key("examples")
        {
            out.insert("examples".to_owned(), Value::Array(vec![example.clone()]));
        }
        if let Some(d) = obj.get("discriminator") {
            self.pin_discriminator(d, &mut out);
        }
        merge_all_of(&mut out);
        if obj.get("nullable") == Some(&Value::Bool(true)) {
            return nullable(out);
        }
        Value::Object(out)
    }

    /// OpenAPI's discriminator says: the value of `propertyName` picks the branch. For every
    /// `oneOf`/`anyOf` branch that an explicit `mapping` names, that becomes a `const` (or
    /// `enum`) on the property beside the branch's `$ref`, so a JSON Schema validator picks the
    /// same branch (and `oneOf` stops failing on branches that overlap).
    fn pin_discriminator(&mut self, d: &Value, out: &mut Map<String, Value>) {
        let (Some(property), Some(mapping)) =
            (d.get("propertyName").and_then(Value::as_str), d.get("mapping").and_then(Value::as_object))
        else {
            return;
        };
        // Def ref → the discriminator values that select it.
        let mut values: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for (value, target) in mapping {
            let Some(target) = target.as_str() else { continue };
            let pointer = if target.starts_with('#') {
                local_pointer(target).ok()
            } else if !target.contains('/') && !target.contains('.') {
                Some(join_pointer("/components/schemas", target))
            } else {
                None
            };
            let Some(pointer) = pointer else { continue };
            if self.doc.pointer(&pointer).is_none() {
                continue;
            }
            let def = format!("#/$defs/{}", self.def_for(&pointer));
            values.entry(def).or_default().push(Value::String(value.clone()));
        }
        for key in ["oneOf", "anyOf"] {
            let Some(Value::Array(branches)) = out.get_mut(key) else { continue };
            for branch in branches.iter_mut() {
                let Some(reference) = branch.get("$ref").and_then(Value::as_str) else { continue };
                let Some(vals) = values.get(reference) else { continue };
                let pin = match vals.as_slice() {
                    [one] => json!({ "const": one }),
                    many => json!({ "enum": many }),
                };
                if let Value::Object(b) = branch
                    && !b.contains_key("properties")
                {
                    b.insert("properties".to_owned(), json!({ property: pin }));
                }
            }
        }
    }

    /// A pattern the server's ECMA-262 validator compiles: in its exact ECMA-262 spelling when
    /// it has one (see `regex`), else as written. One that compiles neither way is an error here,
    /// or the tool would fail at its first call instead.
    fn pattern(&mut self, p: &str, at: &str, report: &mut Report) -> String {
        if let Some(known) = self.rewritten.get(p) {
            return known.clone();
        }
        // Exact rewrites are applied even when the server's engine would take the original:
        // clients validate with ECMA-262 engines too, and `\A` means nothing to them.
        let out = match super::regex::to_ecma(p) {
            Some(ecma) if compiles(&ecma) => {
                report.push(
                    Diagnostic::note(
                        codes::PATTERN_REWRITTEN,
                        format!("pattern `{p}` is written `{ecma}` in ECMA-262"),
                    )
                    .at(self.file, at)
                    .with_help("JSON Schema patterns are ECMA-262; write it that way to silence this"),
                );
                ecma
            }
            _ if self.pattern_compiles(p, at, report) => p.to_owned(),
            // Reported; not remembered, so every place that uses it is reported.
            _ => return p.to_owned(),
        };
        self.rewritten.insert(p.to_owned(), out.clone());
        out
    }

    /// Whether `p` compiles as written (remembered); reports it at `at` when it does not.
    fn pattern_compiles(&mut self, p: &str, at: &str, report: &mut Report) -> bool {
        if self.patterns.contains(p) {
            return true;
        }
        if compiles(p) {
            self.patterns.insert(p.to_owned());
            return true;
        }
        report.push(
            Diagnostic::error(codes::INVALID_SCHEMA, format!("`{p}` is not a valid ECMA-262 regular expression"))
                .at(self.file, at)
                .with_help("JSON Schema patterns are ECMA-262 (JavaScript) regexes; rewrite it in that syntax"),
        );
        false
    }

    fn list(&mut self, value: &Value, at: &str, report: &mut Report, depth: usize) -> Value {
        match value.as_array() {
            Some(items) => Value::Array(
                items.iter().enumerate().map(|(i, v)| self.walk(v, &format!("{at}/{i}"), report, depth + 1)).collect(),
            ),
            None => value.clone(),
        }
    }

    /// Rewrites a `$ref` value to `#/$defs/<name>`, reporting references that cannot resolve.
    fn reference(&mut self, reference: &Value, at: &str, report: &mut Report) -> String {
        let here = join_pointer(at, "$ref");
        let Some(text) = reference.as_str() else {
            report.push(
                Diagnostic::error(codes::INVALID_SPEC, "`$ref` must be a string")
                    .at(self.file, here)
                    .with_help("write the reference as a string such as \"#/components/schemas/Pet\""),
            );
            return "#/$defs/invalid".to_owned();
        };
        if text == crate::load::bundle::UNRESOLVED {
            // The load stage already said why (a file that cannot be read).
            return "#/$defs/unresolved".to_owned();
        }
        match local_pointer(text) {
            Ok(pointer) => {
                if self.doc.pointer(&pointer).is_none() {
                    let (text, pointer) = if self.version == SpecVersion::Swagger20 {
                        (crate::load::swagger2::original_ref(text), crate::load::swagger2::original_ref(&pointer))
                    } else {
                        (text.to_owned(), pointer)
                    };
                    report.push(
                        Diagnostic::error(codes::UNKNOWN_REF, format!("`$ref: {text}` does not resolve"))
                            .at(self.file, here)
                            .with_help(format!("define `{pointer}` in this document or correct the reference")),
                    );
                    return "#/$defs/unresolved".to_owned();
                }
                // Sanitised names hold neither `~` nor `/`, so they need no pointer escaping.
                format!("#/$defs/{}", self.def_for(&pointer))
            }
            Err(diag) => {
                report.push((*diag).at(self.file, here));
                "#/$defs/unresolved".to_owned()
            }
        }
    }
}

/// Keywords that only annotate: an invalid one is dropped rather than failing the build.
const ANNOTATION_ONLY: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "contentMediaType",
    "contentEncoding",
    "discriminator",
];

fn check_schema(schema: &mut Value, file: &str, at: &str, report: &mut Report) {
    let validator = jsonschema::draft202012::meta::validator();
    if validator.is_valid(schema) {
        return;
    }
    let errors: Vec<(String, String)> =
        validator.iter_errors(schema).map(|e| (e.instance_path().as_str().to_owned(), e.to_string())).collect();
    let mut drop = Vec::new();
    for (pointer, message) in errors {
        let keyword = unescape_token(pointer.rsplit('/').next().unwrap_or(""));
        let source = format!("{at}{pointer}");
        if ANNOTATION_ONLY.contains(&keyword.as_str()) {
            report.push(
                Diagnostic::warning(
                    codes::INVALID_SCHEMA,
                    format!("`{keyword}` is not valid JSON Schema ({message}); left out"),
                )
                .at(file, source)
                .with_help(format!("fix `{keyword}` (it is only an annotation, so the tool works without it)")),
            );
            drop.push(pointer);
        } else {
            report.push(
                Diagnostic::error(codes::INVALID_SCHEMA, format!("invalid schema: {message}"))
                    .at(file, source)
                    .with_help(
                        "fix the value so it is valid JSON Schema (2020-12, or the OpenAPI dialect of this document)",
                    ),
            );
        }
    }
    for pointer in drop.iter().rev() {
        if let Some((parent, key)) = pointer.rsplit_once('/')
            && let Some(Value::Object(map)) = schema.pointer_mut(parent)
        {
            map.shift_remove(&unescape_token(key));
        }
    }
}

/// Whether the server's validator (jsonschema, ECMA-262 regexes) accepts this pattern.
pub fn compiles(pattern: &str) -> bool {
    jsonschema::validator_for(&json!({ "pattern": pattern })).is_ok()
}

/// Merges `allOf` into its parent where the result is exactly equivalent: every branch is an
/// inline schema (no `$ref`) and no keyword appears twice, except `required` (a union) and
/// `properties` with distinct names. Anything else is kept as `allOf`.
pub(crate) fn merge_all_of(out: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = out.get("allOf") else { return };
    let mut merged = out.clone();
    merged.shift_remove("allOf");
    for branch in branches {
        let Value::Object(b) = branch else { return };
        for (k, v) in b {
            match (k.as_str(), merged.get_mut(k)) {
                (_, None) => {
                    merged.insert(k.clone(), v.clone());
                }
                ("required", Some(Value::Array(have))) => {
                    let Value::Array(more) = v else { return };
                    for r in more {
                        if !have.contains(r) {
                            have.push(r.clone());
                        }
                    }
                }
                ("properties", Some(Value::Object(have))) => {
                    let Value::Object(more) = v else { return };
                    if more.keys().any(|name| have.contains_key(name)) {
                        return;
                    }
                    have.extend(more.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                (_, Some(existing)) if existing == v => {}
                _ => return,
            }
        }
    }
    // `$ref`, or keywords whose meaning depends on sibling properties, stay composed.
    let adjacent = ["$ref", "additionalProperties", "unevaluatedProperties", "patternProperties"];
    if branches.iter().any(|b| adjacent.iter().any(|k| b.get(k).is_some()))
        || adjacent.iter().any(|k| out.contains_key(*k))
    {
        return;
    }
    *out = merged;
}

/// Wraps or extends a schema so that `null` is also accepted (OpenAPI 3.0 `nullable: true`).
fn nullable(mut out: Map<String, Value>) -> Value {
    let mut done = false;
    match out.get_mut("type") {
        Some(Value::String(t)) => {
            let t = t.clone();
            if t != "null" {
                out.insert("type".to_owned(), json!([t, "null"]));
            }
            done = true;
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push(json!("null"));
            }
            done = true;
        }
        _ => {}
    }
    if let Some(Value::Array(values)) = out.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    if done {
        return Value::Object(out);
    }
    // No `type` to extend (a `$ref` or a composition): `anyOf` with null, annotations outside.
    let mut wrapper = Map::new();
    for key in ANNOTATIONS {
        if let Some(v) = out.shift_remove(*key) {
            wrapper.insert((*key).to_owned(), v);
        }
    }
    wrapper.insert("anyOf".to_owned(), json!([Value::Object(out), {"type": "null"}]));
    Value::Object(wrapper)
}

/// The JSON Pointer a local reference names, or a diagnostic for references that are not local.
pub fn local_pointer(reference: &str) -> Result<String, Box<Diagnostic>> {
    if let Some(fragment) = reference.strip_prefix('#') {
        let decoded = percent_encoding::percent_decode_str(fragment).decode_utf8_lossy().into_owned();
        return Ok(decoded);
    }
    if reference.contains("://") {
        return Err(Box::new(
            Diagnostic::error(
                codes::EXTERNAL_REF,
                format!("`$ref: {reference}` points to the network, which is never fetched"),
            )
            .with_help("download the referenced document and refer to it locally"),
        ));
    }
    Err(Box::new(
        Diagnostic::error(codes::EXTERNAL_REF, format!("`$ref: {reference}` points to another file"))
            .with_help("pass the document as a file path so references relative to it can be read"),
    ))
}

/// The JSON type of a value (`integer` for whole numbers).
pub fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A readable name for a schema found at an arbitrary pointer.
fn name_from_pointer(pointer: &str) -> String {
    // A shape from another file: named as in that file, or after the file itself.
    if let Some(rest) = pointer.strip_prefix(&format!("/{}/", crate::load::bundle::FILES_KEY)) {
        return match rest.split_once('/') {
            Some((_, tail)) if !tail.is_empty() => name_from_pointer(&format!("/{tail}")),
            _ => crate::text::def_key(&unescape_token(rest)),
        };
    }
    const NOISE: &[&str] = &[
        "components",
        "schemas",
        "properties",
        "items",
        "content",
        "schema",
        "responses",
        "requestBodies",
        "parameters",
        "paths",
        "allOf",
        "anyOf",
        "oneOf",
        "additionalProperties",
    ];
    let tokens: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(unescape_token)
        .filter(|t| !NOISE.contains(&t.as_str()) && !t.contains('/') && t.parse::<usize>().is_err())
        .collect();
    let tail: Vec<&str> = tokens.iter().rev().take(2).rev().map(String::as_str).collect();
    crate::text::def_key(&tail.join("_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normalize(doc: Value, schema: Value) -> (Value, Defs, Report) {
        let mut report = Report::new();
        let mut table = SchemaTable::new(&doc, "t.yaml", SpecVersion::OpenApi30);
        let out = table.normalize(&schema, "/x", &mut report);
        table.finish(&mut report);
        (out, table.defs, report)
    }

    #[test]
    fn openapi30_dialect_is_translated() {
        let (out, _, report) = normalize(
            json!({}),
            json!({"type": "integer", "minimum": 1, "exclusiveMinimum": true, "nullable": true, "example": 5, "x-foo": 1}),
        );
        assert!(report.is_empty());
        assert_eq!(out, json!({"type": ["integer", "null"], "exclusiveMinimum": 1, "examples": [5]}));
    }

    #[test]
    fn nullable_ref_is_wrapped() {
        let doc = json!({"components": {"schemas": {"Pet": {"type": "object"}}}});
        let (out, defs, _) = normalize(
            doc,
            json!({"allOf": [{"$ref": "#/components/schemas/Pet"}], "nullable": true, "description": "d"}),
        );
        assert_eq!(out, json!({"description": "d", "anyOf": [{"allOf": [{"$ref": "#/$defs/Pet"}]}, {"type": "null"}]}));
        assert_eq!(defs.get("Pet"), Some(&json!({"type": "object"})));
    }

    #[test]
    fn recursive_refs_stay_finite() {
        let doc = json!({"components": {"schemas": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Node"}}}}}});
        let (out, defs, report) = normalize(doc, json!({"$ref": "#/components/schemas/Node"}));
        assert!(report.is_empty());
        assert_eq!(out, json!({"$ref": "#/$defs/Node"}));
        assert_eq!(
            defs.get("Node"),
            Some(&json!({"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}))
        );
    }

    #[test]
    fn unknown_and_external_refs_are_diagnosed() {
        let (_, _, report) = normalize(
            json!({}),
            json!({"properties": {"a": {"$ref": "#/components/schemas/Nope"}, "b": {"$ref": "https://x.example/s.json"}, "c": {"$ref": "other.yaml#/X"}}}),
        );
        let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec![codes::UNKNOWN_REF, codes::EXTERNAL_REF, codes::EXTERNAL_REF]);
        assert_eq!(report.diagnostics[0].location.as_ref().unwrap().pointer, "/x/properties/a/$ref");
    }

    #[test]
    fn escaped_pointers_resolve() {
        let doc = json!({"paths": {"/a/{b}": {"get": {"x": {"type": "string"}}}}});
        let (out, defs, report) = normalize(doc, json!({"$ref": "#/paths/~1a~1%7Bb%7D/get/x"}));
        assert!(report.is_empty(), "{report}");
        let name = def_name(&out).unwrap();
        assert_eq!(defs.get(name), Some(&json!({"type": "string"})));
    }
}
