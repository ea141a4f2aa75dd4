//! The `openai-strict` variant: OpenAI function calling with `strict: true` (Structured Outputs).
//!
//! The rules, from OpenAI's Structured Outputs guide, "Supported schemas"
//! (<https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>) and the
//! errors its API answers with, as the SDKs that transform schemas for it record them
//! (openai-python `lib/_pydantic.py`, openai-node `lib/transform.ts`):
//! - the root is an object, not `anyOf`; every object has `additionalProperties: false` and
//!   lists every property in `required`, so an optional field becomes a union with `null`
//!   (`type: [T, "null"]`, with `null` added to an `enum`) — the server treats `null` as absent;
//! - an object without properties is still written out whole; every array has a typed `items`;
//! - kept: `type`, `properties`, `required`, `items`, `enum`, `const`, `anyOf`, `$defs`, `$ref`
//!   (recursion allowed), `description`, `pattern`, `format` (only `date-time`, `time`, `date`,
//!   `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uuid`), `multipleOf`, `minimum`,
//!   `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `minItems`, `maxItems`;
//! - refused: `oneOf` (becomes `anyOf`), `allOf` (folded), `not`, `if`/`then`/`else`,
//!   `dependentRequired`, `dependentSchemas`, `patternProperties`, `propertyNames`,
//!   `minProperties`, `maxProperties`, `prefixItems`, `contains`, `uniqueItems`,
//!   `unevaluated*`, `minLength`/`maxLength` (not in the supported list; SDKs strip them),
//!   `default`; a `$ref` with sibling keywords (it becomes `anyOf: [{$ref}]` beside them);
//! - limits: at most 5000 object properties, 10 levels of nesting, 1000 enum values, and
//!   120,000 characters of property names, def names, enum and const values ([`LIMITS`]).
//!
//! What a refused keyword said is restated in the field's description where that helps the
//! model ("at most 50 characters"), and recorded as a [`Loss`](super::Loss).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::merge::fold_all_of;
use super::walk::At;
use super::{Action, Losses, is_annotation, phrase, restate, type_of, types};
use crate::diag::unescape_token;

/// The string formats strict mode accepts.
pub const STRING_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// OpenAI's documented size limits for one strict schema.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub properties: usize,
    pub nesting: usize,
    pub enum_values: usize,
    pub characters: usize,
}

pub const LIMITS: Limits = Limits { properties: 5000, nesting: 10, enum_values: 1000, characters: 120_000 };

/// Keywords kept as they are, by the type they apply to.
const NUMBER_KEPT: &[&str] = &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"];
/// Constraints strict mode refuses, said in prose instead.
const RESTATED: &[&str] = &[
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "uniqueItems",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "pattern",
    "format",
    "const",
    "enum",
];
/// Constraints refused with nothing useful to say about them in prose.
const DROPPED: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "patternProperties",
    "propertyNames",
    "prefixItems",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
];

/// The strict form of a tool's canonical inputSchema.
pub fn strict(schema: &Value, losses: &mut Losses) -> Value {
    let defs = schema.get("$defs").and_then(Value::as_object);
    let mut s = Strict { defs, done: BTreeMap::new(), losses };
    let mut root = s.node(schema, &At::root());
    let mut done = std::mem::take(&mut s.done);
    if let (Value::Object(root_map), Some(defs)) = (&mut root, defs) {
        // Defs in the canonical order, only those reached.
        let mut out = Map::new();
        for name in defs.keys() {
            if let Some(Some(v)) = done.remove(name.as_str()) {
                out.insert(name.clone(), v);
            }
        }
        if !out.is_empty() {
            root_map.insert("$defs".to_owned(), Value::Object(out));
        }
    }
    enforce_limits(&mut root, losses);
    root
}

struct Strict<'a, 'l> {
    defs: Option<&'a Map<String, Value>>,
    /// Defs transformed so far (`None` while one is being transformed: a recursive reference).
    done: BTreeMap<&'a str, Option<Value>>,
    losses: &'l mut Losses,
}

/// Any JSON scalar: the nearest strict mode comes to "any value" (objects and arrays need a
/// declared shape).
fn any_scalar() -> Value {
    json!({"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}]})
}

impl<'a> Strict<'a, '_> {
    fn node(&mut self, schema: &Value, at: &At) -> Value {
        let map = match schema {
            Value::Object(m) => m,
            Value::Bool(true) => {
                self.losses.push(&at.field, &at.pointer, "type", &json!("any"), Action::Narrowed);
                return any_scalar();
            }
            _ => {
                // `false` (nothing is valid): strict mode has no way to say it.
                self.losses.push(&at.field, &at.pointer, "not", &json!({}), Action::Dropped);
                return any_scalar();
            }
        };
        if let Some(r) = map.get("$ref").and_then(Value::as_str) {
            return self.reference(map, r, at);
        }
        let folded;
        let map = if map.contains_key("allOf") {
            folded = fold_all_of(map, self.defs, at, self.losses);
            if let Some(r) = folded.get("$ref").and_then(Value::as_str) {
                let r = r.to_owned();
                return self.reference(&folded, &r, at);
            }
            &folded
        } else {
            map
        };
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                return self.branches(map, key, branches, at);
            }
        }
        let ts = types(map);
        let non_null: Vec<&str> = ts.iter().map(String::as_str).filter(|t| *t != "null").collect();
        let nullable = ts.iter().any(|t| t == "null");
        match non_null.as_slice() {
            [] if nullable => json!({"type": "null"}),
            [] => {
                self.losses.push(&at.field, &at.pointer, "type", &json!("any"), Action::Narrowed);
                let mut out = any_scalar();
                if let (Some(d), Value::Object(o)) = (map.get("description"), &mut out) {
                    o.insert("description".to_owned(), d.clone());
                }
                out
            }
            [t] => self.typed(map, t, nullable, at),
            several => {
                // One branch per type, each with the keywords that apply to it.
                let mut alts: Vec<Value> =
                    several.iter().map(|t| strip_description(self.typed(map, t, false, at))).collect();
                if nullable {
                    alts.push(json!({"type": "null"}));
                }
                let mut out = Map::new();
                out.insert("anyOf".to_owned(), Value::Array(alts));
                if let Some(d) = map.get("description") {
                    out.insert("description".to_owned(), d.clone());
                }
                Value::Object(out)
            }
        }
    }

    /// `oneOf`/`anyOf`: each branch strict, the node's other keywords distributed into every
    /// branch (A and (B or C) is (A and B) or (A and C)).
    fn branches(&mut self, map: &Map<String, Value>, key: &str, branches: &[Value], at: &At) -> Value {
        if key == "oneOf" {
            self.losses.push(&at.field, &at.pointer, "oneOf", &json!(branches.len()), Action::Relaxed);
        }
        let shared: Map<String, Value> = map
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "oneOf" | "anyOf" | "description" | "title" | "discriminator"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut alts = Vec::with_capacity(branches.len());
        for (i, branch) in branches.iter().enumerate() {
            let at_branch = at.child(key, Some(&i.to_string()));
            let value = if shared.is_empty() {
                self.node(branch, &at_branch)
            } else {
                let mut combined = shared.clone();
                combined.insert("allOf".to_owned(), Value::Array(vec![branch.clone()]));
                let folded = fold_all_of(&combined, self.defs, &at_branch, self.losses);
                self.node(&Value::Object(folded), &at_branch)
            };
            alts.push(strip_description(value));
        }
        let mut out = Map::new();
        out.insert("anyOf".to_owned(), Value::Array(alts));
        if let Some(d) = map.get("description") {
            out.insert("description".to_owned(), d.clone());
        }
        Value::Object(out)
    }

    fn reference(&mut self, map: &Map<String, Value>, r: &str, at: &At) -> Value {
        let name = r.strip_prefix("#/$defs/").map(unescape_token);
        let Some((name, target)) = name.and_then(|n| self.defs?.get_key_value(n.as_str())) else {
            self.losses.push(&at.field, &at.pointer, "$ref", &json!(r), Action::Dropped);
            return any_scalar();
        };
        if !self.done.contains_key(name.as_str()) {
            self.done.insert(name.as_str(), None);
            let v = self.node(target, &at.def(name));
            self.done.insert(name.as_str(), Some(v));
        }
        let reference = json!({"$ref": r});
        let annotations: Vec<(&String, &Value)> = map.iter().filter(|(k, _)| *k == "description").collect();
        for (k, v) in map {
            if k != "$ref" && !is_annotation(k) {
                self.losses.push(&at.field, &format!("{}/{k}", at.pointer), k, v, Action::Dropped);
            }
        }
        if annotations.is_empty() {
            return reference;
        }
        // A `$ref` may not have siblings: the description goes beside a one-branch anyOf.
        let mut out = Map::new();
        out.insert("anyOf".to_owned(), Value::Array(vec![reference]));
        for (k, v) in annotations {
            out.insert(k.clone(), v.clone());
        }
        Value::Object(out)
    }

    /// One type's schema: the keywords strict mode keeps for it, the rest restated or dropped.
    fn typed(&mut self, map: &Map<String, Value>, t: &str, nullable: bool, at: &At) -> Value {
        let mut out = Map::new();
        let mut phrases = Vec::new();
        out.insert("type".to_owned(), if nullable { json!([t, "null"]) } else { json!(t) });
        if let Some(d) = map.get("description") {
            out.insert("description".to_owned(), d.clone());
        }
        for (k, v) in map {
            let k = k.as_str();
            let kept = match (t, k) {
                (_, "type" | "description") => continue,
                (_, "enum") => {
                    let values: Vec<Value> = v
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|x| type_of(x) == t || (t == "number" && type_of(x) == "integer"))
                        .cloned()
                        .collect();
                    let mut values = values;
                    if nullable {
                        values.push(Value::Null);
                    }
                    out.insert("enum".to_owned(), Value::Array(values));
                    continue;
                }
                (_, "const") => true,
                ("string", "pattern") => true,
                ("string", "format") => {
                    let ok = v.as_str().is_some_and(|f| STRING_FORMATS.contains(&f));
                    if !ok && v.as_str() == Some("binary") {
                        continue; // base64 text, said by contentEncoding
                    }
                    ok
                }
                ("integer" | "number", k) if NUMBER_KEPT.contains(&k) => true,
                ("array", "minItems" | "maxItems") => true,
                ("array", "items") => {
                    let items = self.node(v, &at.child("items", None));
                    out.insert("items".to_owned(), items);
                    continue;
                }
                ("object", "properties" | "required" | "additionalProperties") => continue,
                (_, "default") => {
                    phrases.extend(phrase(k, v));
                    continue;
                }
                ("string", "contentEncoding") => {
                    phrases.extend(phrase(k, v));
                    continue;
                }
                (_, k) if RESTATED.contains(&k) && applies(t, k) => {
                    match phrase(k, v) {
                        Some(p) => {
                            phrases.push(p);
                            self.losses.push(&at.field, &format!("{}/{k}", at.pointer), k, v, Action::Restated);
                        }
                        None => self.losses.push(&at.field, &format!("{}/{k}", at.pointer), k, v, Action::Dropped),
                    }
                    continue;
                }
                (_, k) if DROPPED.contains(&k) && applies(t, k) => {
                    self.losses.push(&at.field, &format!("{}/{k}", at.pointer), k, v, Action::Dropped);
                    continue;
                }
                // Annotations, other types' keywords, extensions: nothing to keep.
                _ => continue,
            };
            if kept {
                out.insert(k.to_owned(), v.clone());
            } else if let Some(p) = phrase(k, v) {
                phrases.push(p);
                self.losses.push(&at.field, &format!("{}/{k}", at.pointer), k, v, Action::Restated);
            } else {
                self.losses.push(&at.field, &format!("{}/{k}", at.pointer), k, v, Action::Dropped);
            }
        }
        match t {
            "object" => self.object(map, &mut out, at),
            "array" if !out.contains_key("items") => {
                if !map.contains_key("prefixItems") {
                    self.losses.push(&at.field, &at.pointer, "items", &json!("any"), Action::Narrowed);
                }
                out.insert("items".to_owned(), any_scalar());
            }
            _ => {}
        }
        restate(&mut out, &phrases);
        Value::Object(out)
    }

    /// An object's properties, every one required, the optional ones nullable; no others.
    fn object(&mut self, map: &Map<String, Value>, out: &mut Map<String, Value>, at: &At) {
        let required: Vec<&str> =
            map.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let mut props = Map::new();
        if let Some(Value::Object(p)) = map.get("properties") {
            for (name, schema) in p {
                let v = self.node(schema, &at.child("properties", Some(name)));
                let v = if required.contains(&name.as_str()) { v } else { nullable(v) };
                props.insert(name.clone(), v);
            }
        }
        match map.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) if !props.is_empty() => {}
            Some(other) => {
                // A map (free-form keys): strict mode has no way to say it.
                self.losses.push(
                    &at.field,
                    &format!("{}/additionalProperties", at.pointer),
                    "additionalProperties",
                    other,
                    Action::Narrowed,
                );
            }
        }
        if props.is_empty() && map.get("additionalProperties").is_none() && !map.contains_key("properties") {
            self.losses.push(&at.field, &at.pointer, "additionalProperties", &json!(true), Action::Narrowed);
        }
        let names: Vec<Value> = props.keys().map(|k| json!(k)).collect();
        out.insert("properties".to_owned(), Value::Object(props));
        out.insert("required".to_owned(), Value::Array(names));
        out.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
}

/// Whether a refused keyword constrains values of type `t` (others' keywords are no loss).
fn applies(t: &str, k: &str) -> bool {
    match k {
        "minLength" | "maxLength" | "pattern" | "format" => t == "string" || (k == "format" && t != "object"),
        "minProperties"
        | "maxProperties"
        | "patternProperties"
        | "propertyNames"
        | "dependentRequired"
        | "dependentSchemas"
        | "dependencies"
        | "unevaluatedProperties" => t == "object",
        "uniqueItems" | "prefixItems" | "contains" | "minContains" | "maxContains" | "unevaluatedItems"
        | "additionalItems" => t == "array",
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            t == "integer" || t == "number"
        }
        _ => true,
    }
}

fn strip_description(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v
        && (m.contains_key("type") || m.contains_key("$ref"))
    {
        m.shift_remove("description");
    }
    v
}

/// `v` or `null`: how strict mode says "optional".
pub fn nullable(v: Value) -> Value {
    let Value::Object(mut m) = v else { return v };
    if m.contains_key("$ref") || m.contains_key("const") {
        let description = m.shift_remove("description");
        let mut out = Map::new();
        out.insert("anyOf".to_owned(), json!([Value::Object(m), {"type": "null"}]));
        if let Some(d) = description {
            out.insert("description".to_owned(), d);
        }
        return Value::Object(out);
    }
    if let Some(Value::Array(alts)) = m.get_mut("anyOf") {
        if !alts.iter().any(|a| a.get("type") == Some(&json!("null"))) {
            alts.push(json!({"type": "null"}));
        }
        return Value::Object(m);
    }
    match m.get_mut("type") {
        Some(Value::String(t)) => {
            let t = t.clone();
            m.insert("type".to_owned(), json!([t, "null"]));
        }
        Some(Value::Array(ts)) if !ts.contains(&json!("null")) => ts.push(json!("null")),
        _ => {}
    }
    if let Some(Value::Array(values)) = m.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    Value::Object(m)
}

/// Counts what OpenAI's limits count and, past the enum limit, drops the largest enums (they
/// stay enforced by the server); past the nesting limit, deeper shapes become scalars.
fn enforce_limits(root: &mut Value, losses: &mut Losses) {
    cut_deep(root, 1, &At::root(), losses);
    fit_defs(root, losses);
    let mut enums: Vec<(usize, String)> = Vec::new();
    collect_enums(root, "", &mut enums);
    let mut total: usize = enums.iter().map(|(n, _)| n).sum();
    enums.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    for (n, pointer) in enums {
        if total <= LIMITS.enum_values {
            break;
        }
        if let Some(Value::Object(m)) = root.pointer_mut(&pointer)
            && let Some(values) = m.shift_remove("enum")
        {
            let phrases: Vec<String> = phrase("enum", &values).into_iter().collect();
            let action = if phrases.is_empty() { Action::Dropped } else { Action::Restated };
            restate(m, &phrases);
            losses.push("", &pointer, "enum", &json!(n), action);
            total -= n;
        }
    }
}

fn collect_enums(v: &Value, pointer: &str, out: &mut Vec<(usize, String)>) {
    let Value::Object(m) = v else { return };
    if let Some(Value::Array(values)) = m.get("enum") {
        out.push((values.len(), pointer.to_owned()));
    }
    for (k, child) in m {
        match child {
            Value::Object(children) if matches!(k.as_str(), "properties" | "$defs") => {
                for (name, c) in children {
                    collect_enums(c, &format!("{pointer}/{k}/{}", crate::diag::escape_token(name)), out);
                }
            }
            Value::Array(items) if k == "anyOf" => {
                for (i, c) in items.iter().enumerate() {
                    collect_enums(c, &format!("{pointer}/anyOf/{i}"), out);
                }
            }
            Value::Object(_) if k == "items" => collect_enums(child, &format!("{pointer}/items"), out),
            _ => {}
        }
    }
}

/// Objects and arrays nested deeper than the limit become scalars (a narrowing, reported).
fn cut_deep(v: &mut Value, depth: usize, at: &At, losses: &mut Losses) {
    let Value::Object(m) = v else { return };
    let is_container = matches!(m.get("type"), Some(Value::String(t)) if t == "object" || t == "array")
        || matches!(m.get("type"), Some(Value::Array(ts)) if ts.iter().any(|t| t == "object" || t == "array"));
    if is_container && depth > LIMITS.nesting {
        losses.push(&at.field, &at.pointer, "type", &json!("nested too deep"), Action::Narrowed);
        let description = m.get("description").cloned();
        *v = any_scalar();
        if let (Some(d), Value::Object(o)) = (description, v) {
            o.insert("description".to_owned(), d);
        }
        return;
    }
    let next = if is_container { depth + 1 } else { depth };
    for (k, child) in m.iter_mut() {
        match child {
            Value::Object(children) if k == "properties" => {
                for (name, c) in children.iter_mut() {
                    cut_deep(c, next, &at.child("properties", Some(name)), losses);
                }
            }
            Value::Object(children) if k == "$defs" => {
                for (name, c) in children.iter_mut() {
                    cut_deep(c, 1, &at.def(name), losses);
                }
            }
            Value::Array(items) if k == "anyOf" => {
                for (i, c) in items.iter_mut().enumerate() {
                    cut_deep(c, depth, &at.child("anyOf", Some(&i.to_string())), losses);
                }
            }
            Value::Object(_) if k == "items" => cut_deep(child, next, &at.child("items", None), losses),
            _ => {}
        }
    }
}

/// Object properties and characters of names and values in `v`, not following references
/// (nor entering `$defs`).
fn size(v: &Value) -> (usize, usize) {
    let Value::Object(m) = v else { return (0, 0) };
    let (mut props, mut chars) = (0, 0);
    if let Some(Value::Array(values)) = m.get("enum") {
        chars += values.iter().filter_map(Value::as_str).map(str::len).sum::<usize>();
    }
    if let Some(Value::String(c)) = m.get("const") {
        chars += c.len();
    }
    for (k, child) in m {
        match child {
            Value::Object(children) if k == "properties" => {
                props += children.len();
                for (name, c) in children {
                    let (p, n) = size(c);
                    props += p;
                    chars += n + name.len();
                }
            }
            Value::Array(items) if k == "anyOf" => {
                for c in items {
                    let (p, n) = size(c);
                    props += p;
                    chars += n;
                }
            }
            Value::Object(_) if k == "items" => {
                let (p, n) = size(child);
                props += p;
                chars += n;
            }
            _ => {}
        }
    }
    (props, chars)
}

fn refs_of(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(name) = m.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
                out.push(unescape_token(name));
            }
            m.iter().filter(|(k, _)| *k != "$defs").for_each(|(_, c)| refs_of(c, out));
        }
        Value::Array(items) => items.iter().for_each(|c| refs_of(c, out)),
        _ => {}
    }
}

/// Past the property or character limit, the defs farthest from the root (by references) are
/// not described: each reference to one becomes an empty object that says so.
fn fit_defs(root: &mut Value, losses: &mut Losses) {
    // `size` and `refs_of` do not enter `$defs`: on the root they measure its own part.
    let own = size(root);
    let mut start = Vec::new();
    refs_of(root, &mut start);
    let Value::Object(map) = root else { return };
    let Some(Value::Object(defs)) = map.get("$defs") else { return };
    let total = defs.values().map(size).fold(own, |a, b| (a.0 + b.0, a.1 + b.1));
    let total_chars = total.1 + defs.keys().map(String::len).sum::<usize>();
    if total.0 <= LIMITS.properties && total_chars <= LIMITS.characters {
        return;
    }
    // Breadth first from the root's own references.
    let mut queue: std::collections::VecDeque<String> = start.into();
    let mut kept: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let mut seen: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let (mut props, mut chars) = own;
    while let Some(name) = queue.pop_front() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Some(def) = defs.get(&name) else { continue };
        let (p, c) = size(def);
        if props + p > LIMITS.properties || chars + c + name.len() > LIMITS.characters {
            continue;
        }
        props += p;
        chars += c + name.len();
        kept.insert(name.clone());
        let mut next = Vec::new();
        refs_of(def, &mut next);
        queue.extend(next);
    }
    let dropped: Vec<String> = defs.keys().filter(|k| !kept.contains(*k)).cloned().collect();
    for name in &dropped {
        losses.push("", &format!("/$defs/{}", crate::diag::escape_token(name)), "$ref", &json!(name), Action::Cut);
    }
    if let Some(Value::Object(defs)) = map.get_mut("$defs") {
        defs.retain(|k, _| kept.contains(k));
        if defs.is_empty() {
            map.shift_remove("$defs");
        }
    }
    stub_dropped(root, &kept);
}

fn stub_dropped(v: &mut Value, kept: &std::collections::BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            let target =
                m.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")).map(unescape_token);
            if let Some(name) = target
                && !kept.contains(&name)
            {
                *v = json!({
                    "type": "object", "properties": {}, "required": [], "additionalProperties": false,
                    "description": format!("A `{name}` (not described here: the schema is past strict mode's size limits)."),
                });
                return;
            }
            m.values_mut().for_each(|c| stub_dropped(c, kept));
        }
        Value::Array(items) => items.iter_mut().for_each(|c| stub_dropped(c, kept)),
        _ => {}
    }
}
