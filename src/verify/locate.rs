//! Where in the description an answer's mismatch comes from, and the merge patch that makes
//! the description say what the API answers. The walk follows the answer's instance path
//! through the (upgraded) document, so it names the schema a person wrote, not the compiled one.

use serde_json::{Value, json};

use crate::diag::escape_token;
use crate::load::SpecVersion;

/// The schema node (a pointer into `doc`) that governs `instance` (a JSON Pointer into the
/// answer), starting at the response schema at `start`. `None` where the description does not
/// describe that place.
pub fn governing(doc: &Value, start: &str, instance: &str) -> Option<String> {
    let mut at = resolved(doc, start.to_owned())?;
    for segment in instance.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        at = step(doc, &at, &segment, 0)?;
    }
    Some(at)
}

/// The node one instance segment below `at` (array index or property name), through `$ref`s
/// and `allOf`/`anyOf`/`oneOf` branches.
fn step(doc: &Value, at: &str, segment: &str, depth: usize) -> Option<String> {
    if depth > 8 {
        return None;
    }
    let node = doc.pointer(at)?;
    let is_index = !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit());
    if is_index && node.get("items").is_some() {
        return resolved(doc, format!("{at}/items"));
    }
    if node.get("properties").and_then(|p| p.get(segment)).is_some() {
        return resolved(doc, format!("{at}/properties/{}", escape_token(segment)));
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(branches) = node.get(key).and_then(Value::as_array) {
            for i in 0..branches.len() {
                if let Some(branch) = resolved(doc, format!("{at}/{key}/{i}"))
                    && let Some(found) = step(doc, &branch, segment, depth + 1)
                {
                    return Some(found);
                }
            }
        }
    }
    if node.get("additionalProperties").is_some_and(Value::is_object) {
        return resolved(doc, format!("{at}/additionalProperties"));
    }
    None
}

/// `at`, or the node its local `$ref`s lead to.
fn resolved(doc: &Value, mut at: String) -> Option<String> {
    for _ in 0..16 {
        let node = doc.pointer(&at)?;
        match node.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
            Some(target) => at = target.to_owned(),
            None => return Some(at),
        }
    }
    None
}

/// The node of `at` (or of one of its `allOf` branches) whose `required` lists `name`.
pub fn requiring(doc: &Value, at: &str, name: &str) -> Option<String> {
    let node = doc.pointer(at)?;
    if node.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|v| v == name)) {
        return Some(at.to_owned());
    }
    let branches = node.get("allOf").and_then(Value::as_array)?;
    (0..branches.len()).find_map(|i| requiring(doc, &resolved(doc, format!("{at}/allOf/{i}"))?, name))
}

/// What a mismatch is, as far as the patch needs to know.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// The answer's JSON type is not among the declared ones.
    Type { actual: &'static str },
    /// A value the `enum` does not list.
    Enum { value: Value },
    /// A required property the answer lacks.
    Required { property: String },
    /// Another keyword (`maxLength`, `additionalProperties`, `const`…) the answer breaks.
    Keyword { keyword: String },
}

/// The merge patch, at the schema node `node`, that admits what was seen; `None` when no
/// patch of one node can say it (a `oneOf` that matched twice).
pub fn patch(node: &Value, kind: &Kind, version: SpecVersion) -> Option<Value> {
    match kind {
        Kind::Type { actual } => {
            // 3.1 can list the types; 2.0 and 3.0 cannot say "string or array", so the
            // type is left open (what the answer held is in the patch's `why`).
            if version == SpecVersion::OpenApi31 {
                let mut types: Vec<Value> = match node.get("type") {
                    Some(Value::String(t)) => vec![json!(t)],
                    Some(Value::Array(ts)) => ts.clone(),
                    _ => Vec::new(),
                };
                if !types.iter().any(|t| t == actual) {
                    types.push(json!(actual));
                }
                Some(json!({ "type": types }))
            } else if *actual == "null" {
                let key = if version == SpecVersion::Swagger20 { "x-nullable" } else { "nullable" };
                Some(json!({ key: true }))
            } else {
                Some(json!({ "type": null }))
            }
        }
        Kind::Enum { value } => {
            let mut values = node.get("enum").and_then(Value::as_array).cloned().unwrap_or_default();
            if !values.contains(value) {
                values.push(value.clone());
            }
            Some(json!({ "enum": values }))
        }
        Kind::Required { property } => {
            let rest: Vec<Value> = node
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter(|v| *v != property).cloned().collect())
                .unwrap_or_default();
            Some(json!({ "required": if rest.is_empty() { Value::Null } else { Value::Array(rest) } }))
        }
        Kind::Keyword { keyword } if node.get(keyword).is_some() => Some(json!({ keyword.as_str(): null })),
        Kind::Keyword { .. } => None,
    }
}

/// Two patches of one node combined (two values an enum lacked, two types seen).
pub fn combine(into: &mut Value, more: &Value) {
    let (Some(a), Some(b)) = (into.as_object_mut(), more.as_object()) else { return };
    for (k, v) in b {
        match (a.get_mut(k), v) {
            (Some(Value::Array(have)), Value::Array(add)) if k != "required" => {
                for x in add {
                    if !have.contains(x) {
                        have.push(x.clone());
                    }
                }
            }
            (Some(Value::Array(have)), Value::Array(keep)) => have.retain(|x| keep.contains(x)),
            (Some(Value::Array(_)), Value::Null) => {
                a.insert(k.clone(), Value::Null);
            }
            (Some(_), _) => {}
            (None, _) => {
                a.insert(k.clone(), v.clone());
            }
        }
    }
}

/// The JSON type name of `v`, as JSON Schema spells it.
pub fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Value {
        json!({
            "paths": {"/c": {"get": {"responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Contents"}}}}}}}},
            "components": {"schemas": {
                "Contents": {"type": "object", "required": ["name", "content"], "properties": {
                    "name": {"type": "string"},
                    "content": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/components/schemas/Contents"}},
                }},
            }},
        })
    }

    #[test]
    fn walks_the_answer_through_refs_and_items() {
        let d = doc();
        let start = "/paths/~1c/get/responses/200/content/application~1json/schema";
        assert_eq!(
            governing(&d, start, "/content").as_deref(),
            Some("/components/schemas/Contents/properties/content")
        );
        assert_eq!(
            governing(&d, start, "/children/3/content").as_deref(),
            Some("/components/schemas/Contents/properties/content")
        );
        assert_eq!(governing(&d, start, "").as_deref(), Some("/components/schemas/Contents"));
        assert_eq!(governing(&d, start, "/nowhere"), None);
        assert_eq!(
            requiring(&d, "/components/schemas/Contents", "content").as_deref(),
            Some("/components/schemas/Contents")
        );
    }

    #[test]
    fn patches_admit_what_was_seen() {
        let node = json!({"type": "string", "enum": ["a"]});
        assert_eq!(
            patch(&node, &Kind::Type { actual: "array" }, SpecVersion::OpenApi31),
            Some(json!({"type": ["string", "array"]}))
        );
        assert_eq!(patch(&node, &Kind::Type { actual: "array" }, SpecVersion::Swagger20), Some(json!({"type": null})));
        let mut p = patch(&node, &Kind::Enum { value: json!("b") }, SpecVersion::OpenApi30).unwrap_or_default();
        combine(&mut p, &patch(&node, &Kind::Enum { value: json!("c") }, SpecVersion::OpenApi30).unwrap_or_default());
        assert_eq!(p, json!({"enum": ["a", "b", "c"]}));
        let obj = json!({"required": ["name", "content"]});
        assert_eq!(
            patch(&obj, &Kind::Required { property: "content".into() }, SpecVersion::OpenApi30),
            Some(json!({"required": ["name"]}))
        );
        assert_eq!(patch(&node, &Kind::Keyword { keyword: "maxLength".into() }, SpecVersion::OpenApi30), None);
    }
}
