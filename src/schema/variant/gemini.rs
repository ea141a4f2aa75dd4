//! The `gemini` variant: the `parameters` of a Gemini function declaration, a subset of the
//! OpenAPI 3.0 Schema object.
//!
//! The rules, from the Schema object of the Gemini API (generativelanguage v1beta,
//! `google/ai/generativelanguage/v1beta/content.proto`; the function-calling guide,
//! <https://ai.google.dev/gemini-api/docs/function-calling>) and the 400 errors its users report
//! for anything else ("Unknown name ... Cannot find field"):
//! - the fields are `type` (one of string, number, integer, boolean, array, object — no type
//!   lists, no `null`: `nullable: true` instead), `format`, `title`, `description`, `nullable`,
//!   `enum` (strings only), `minItems`, `maxItems`, `properties`, `required`, `minProperties`,
//!   `maxProperties`, `minLength`, `maxLength`, `pattern`, `example`, `anyOf`,
//!   `propertyOrdering`, `default`, `items`, `minimum`, `maximum`;
//! - `format` is `enum` or `date-time` for strings, `int32`/`int64` for integers,
//!   `float`/`double` for numbers;
//! - refused: `$ref`/`$defs` (every shape is inlined, see [`inline`](super::inline)), `const`
//!   (a string one becomes a one-value `enum`), `oneOf` (becomes `anyOf`), `allOf` (folded),
//!   `additionalProperties`, `exclusiveMinimum`/`exclusiveMaximum` (exact as `minimum + 1` on
//!   integers), `multipleOf`, `uniqueItems`, `prefixItems`, `patternProperties`,
//!   `propertyNames`, `not`;
//! - an array has `items`; an object below the root has at least one property ("should be
//!   non-empty for OBJECT type"), so a free-form object or a value of any type is left out of
//!   the variant (reported as narrowed).

use serde_json::{Map, Value, json};

use super::inline::inline;
use super::merge::fold_all_of;
use super::walk::At;
use super::{Action, Losses, phrase, restate, types};

pub const STRING_FORMATS: &[&str] = &["enum", "date-time"];
pub const INTEGER_FORMATS: &[&str] = &["int32", "int64"];
pub const NUMBER_FORMATS: &[&str] = &["float", "double"];

/// The Gemini form of a tool's canonical inputSchema.
pub fn schema(canonical: &Value, losses: &mut Losses) -> Value {
    let inlined = inline(canonical, Some(losses));
    let root = node(&inlined, &At::root(), losses);
    match root {
        Some(Value::Object(mut m)) if m.get("type") == Some(&json!("object")) => {
            m.entry("properties").or_insert_with(|| json!({}));
            Value::Object(m)
        }
        _ => json!({"type": "object", "properties": {}}),
    }
}

/// One schema in Gemini's subset, or `None` when it cannot be said at all (a free-form value):
/// the caller leaves the field out.
fn node(schema: &Value, at: &At, losses: &mut Losses) -> Option<Value> {
    let Value::Object(map) = schema else {
        losses.push(&at.field, &at.pointer, "type", &json!("any"), Action::Narrowed);
        return None;
    };
    let folded;
    let map = if map.contains_key("allOf") {
        folded = fold_all_of(map, None, at, losses);
        &folded
    } else {
        map
    };
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            return branches_of(map, key, branches, at, losses);
        }
    }
    let ts = types(map);
    let nullable = ts.iter().any(|t| t == "null");
    let non_null: Vec<&str> = ts.iter().map(String::as_str).filter(|t| *t != "null").collect();
    match non_null.as_slice() {
        [] => {
            losses.push(&at.field, &at.pointer, "type", &json!("any"), Action::Narrowed);
            None
        }
        [t] => typed(map, t, nullable, at, losses),
        several => {
            let alts: Vec<Value> = several.iter().filter_map(|t| typed(map, t, nullable, at, losses)).collect();
            any_of(alts, map.get("description"))
        }
    }
}

fn any_of(mut alts: Vec<Value>, description: Option<&Value>) -> Option<Value> {
    for a in &mut alts {
        if let Value::Object(m) = a {
            m.shift_remove("description");
        }
    }
    match alts.len() {
        0 => None,
        _ => {
            let mut out = Map::new();
            out.insert("anyOf".to_owned(), Value::Array(alts));
            if let Some(d) = description {
                out.insert("description".to_owned(), d.clone());
            }
            Some(Value::Object(out))
        }
    }
}

fn branches_of(map: &Map<String, Value>, key: &str, branches: &[Value], at: &At, losses: &mut Losses) -> Option<Value> {
    if key == "oneOf" {
        losses.push(&at.field, &at.pointer, "oneOf", &json!(branches.len()), Action::Relaxed);
    }
    let shared: Map<String, Value> = map
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "oneOf" | "anyOf" | "description" | "title" | "discriminator"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut alts = Vec::new();
    for (i, branch) in branches.iter().enumerate() {
        let at_branch = at.child(key, Some(&i.to_string()));
        let v = if shared.is_empty() {
            node(branch, &at_branch, losses)
        } else {
            let mut combined = shared.clone();
            combined.insert("allOf".to_owned(), Value::Array(vec![branch.clone()]));
            node(&Value::Object(fold_all_of(&combined, None, &at_branch, losses)), &at_branch, losses)
        };
        alts.extend(v);
    }
    any_of(alts, map.get("description"))
}

fn typed(map: &Map<String, Value>, t: &str, nullable: bool, at: &At, losses: &mut Losses) -> Option<Value> {
    let mut out = Map::new();
    let mut phrases = Vec::new();
    out.insert("type".to_owned(), json!(t));
    if nullable {
        out.insert("nullable".to_owned(), json!(true));
    }
    if let Some(d) = map.get("description") {
        out.insert("description".to_owned(), d.clone());
    }
    let lose = |k: &str, v: &Value, phrases: &mut Vec<String>, losses: &mut Losses| match phrase(k, v) {
        Some(p) => {
            phrases.push(p);
            losses.push(&at.field, &format!("{}/{k}", at.pointer), k, v, Action::Restated);
        }
        None => losses.push(&at.field, &format!("{}/{k}", at.pointer), k, v, Action::Dropped),
    };
    let integer = t == "integer";
    for (k, v) in map {
        let k = k.as_str();
        match (t, k) {
            (_, "type" | "description" | "properties" | "required" | "additionalProperties" | "items") => {}
            ("string", "enum") => {
                let mut values: Vec<Value> = Vec::new();
                for x in v.as_array().into_iter().flatten() {
                    match x {
                        Value::String(_) => values.push(x.clone()),
                        Value::Null => {
                            out.insert("nullable".to_owned(), json!(true));
                        }
                        _ => {}
                    }
                }
                out.insert("enum".to_owned(), Value::Array(values));
            }
            ("string", "const") if v.is_string() => {
                out.insert("enum".to_owned(), json!([v]));
            }
            (_, "enum") => {
                let values: Vec<Value> = v.as_array().into_iter().flatten().filter(|x| !x.is_null()).cloned().collect();
                if v.as_array().is_some_and(|a| a.contains(&Value::Null)) {
                    out.insert("nullable".to_owned(), json!(true));
                }
                lose(k, &Value::Array(values), &mut phrases, losses);
            }
            ("string", "pattern" | "minLength" | "maxLength")
            | ("integer" | "number", "minimum" | "maximum")
            | ("array", "minItems" | "maxItems")
            | ("object", "minProperties" | "maxProperties") => {
                out.insert(k.to_owned(), v.clone());
            }
            ("string", "format") => match v.as_str() {
                Some(f) if STRING_FORMATS.contains(&f) => {
                    out.insert(k.to_owned(), v.clone());
                }
                Some("binary" | "byte") => phrases.extend(phrase("contentEncoding", &json!("base64"))),
                _ => lose(k, v, &mut phrases, losses),
            },
            ("integer", "format") if v.as_str().is_some_and(|f| INTEGER_FORMATS.contains(&f)) => {
                out.insert(k.to_owned(), v.clone());
            }
            ("number", "format") if v.as_str().is_some_and(|f| NUMBER_FORMATS.contains(&f)) => {
                out.insert(k.to_owned(), v.clone());
            }
            ("integer" | "number", "exclusiveMinimum" | "exclusiveMaximum") => {
                let bound = if k == "exclusiveMinimum" { "minimum" } else { "maximum" };
                match v.as_i64().filter(|_| integer) {
                    // Exact on integers: > n is >= n + 1.
                    Some(n) => {
                        let n = if bound == "minimum" { n.saturating_add(1) } else { n.saturating_sub(1) };
                        let tighter = match map.get(bound).and_then(Value::as_i64) {
                            Some(m) if bound == "minimum" => n.max(m),
                            Some(m) => n.min(m),
                            None => n,
                        };
                        out.insert(bound.to_owned(), json!(tighter));
                    }
                    None => {
                        if !map.contains_key(bound) {
                            out.insert(bound.to_owned(), v.clone());
                        }
                        phrases.extend(phrase(k, v));
                        losses.push(&at.field, &format!("{}/{k}", at.pointer), k, v, Action::Relaxed);
                    }
                }
            }
            ("string", "contentEncoding") | (_, "default") => phrases.extend(phrase(k, v)),
            (_, "const" | "multipleOf" | "uniqueItems" | "format") if k != "multipleOf" || integer || t == "number" => {
                if k == "uniqueItems" && t != "array" {
                    continue;
                }
                lose(k, v, &mut phrases, losses);
            }
            (
                _,
                "not"
                | "if"
                | "then"
                | "else"
                | "prefixItems"
                | "contains"
                | "minContains"
                | "maxContains"
                | "patternProperties"
                | "propertyNames"
                | "dependentRequired"
                | "dependentSchemas"
                | "dependencies"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "additionalItems",
            ) => losses.push(&at.field, &format!("{}/{k}", at.pointer), k, v, Action::Dropped),
            _ => {}
        }
    }
    match t {
        "array" => {
            let items = map.get("items").and_then(|i| node(i, &at.child("items", None), losses));
            match items {
                Some(items) => {
                    out.insert("items".to_owned(), items);
                }
                None => {
                    if !map.contains_key("items") {
                        losses.push(&at.field, &at.pointer, "items", &json!("any"), Action::Narrowed);
                    }
                    return None;
                }
            }
        }
        "object" => {
            let required: Vec<&str> =
                map.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
            let mut props = Map::new();
            for (name, schema) in map.get("properties").and_then(Value::as_object).into_iter().flatten() {
                if let Some(v) = node(schema, &at.child("properties", Some(name)), losses) {
                    props.insert(name.clone(), v);
                }
            }
            match map.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    losses.push(
                        &at.field,
                        &format!("{}/additionalProperties", at.pointer),
                        "additionalProperties",
                        &json!(false),
                        Action::Dropped,
                    );
                }
                Some(Value::Bool(true)) | None => {}
                // A value schema that admits anything says nothing.
                Some(other) if !props.is_empty() && other.as_object().is_none_or(|o| !o.is_empty()) => {
                    losses.push(
                        &at.field,
                        &format!("{}/additionalProperties", at.pointer),
                        "additionalProperties",
                        other,
                        Action::Dropped,
                    );
                }
                Some(_) => {}
            }
            if props.is_empty() {
                // A free-form object: Gemini refuses an OBJECT without properties (the root is
                // kept, with none).
                if !at.field.is_empty() {
                    losses.push(&at.field, &at.pointer, "properties", &json!({}), Action::Narrowed);
                    return None;
                }
            }
            let req: Vec<Value> = required.iter().filter(|r| props.contains_key(**r)).map(|r| json!(r)).collect();
            out.insert("properties".to_owned(), Value::Object(props));
            if !req.is_empty() {
                out.insert("required".to_owned(), Value::Array(req));
            }
        }
        _ => {}
    }
    restate(&mut out, &phrases);
    Some(Value::Object(out))
}
