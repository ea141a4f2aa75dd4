//! Answers as real servers send them: OpenAPI 3.0 has no `null` type and Swagger 2.0 no
//! `nullable`, so their descriptions leave `null` out of fields that servers do send as `null`
//! (an unset `content`, an anonymous user's `name`). An output schema compiled from such a
//! document lets every object property be `null` as well, so a conforming server's answer
//! conforms and a call that took effect is not reported as failed. OpenAPI 3.1 documents say
//! `null` where they mean it and are served as written; inputs are never widened.

use serde_json::{Map, Value, json};

use crate::resolve::schema::for_each_subschema_mut;

/// Every object property in `schema` (at every depth, `$defs` included) also admits `null`.
pub fn admit_null_properties(schema: &mut Value) {
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        props.values_mut().for_each(or_null);
    }
    for_each_subschema_mut(schema, &mut admit_null_properties);
}

/// `schema`, or `null`.
fn or_null(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    if admits_null(map) || !constrains(map) {
        return;
    }
    let simple = !["$ref", "const", "allOf", "anyOf", "oneOf", "not"].iter().any(|k| map.contains_key(*k));
    if simple && let Some(ty) = map.get_mut("type") {
        match ty {
            Value::String(t) => *ty = json!([t.clone(), "null"]),
            Value::Array(types) => types.push(json!("null")),
            _ => return,
        }
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.push(Value::Null);
        }
        return;
    }
    // A reference or a combination: one more alternative, keeping what the field says of
    // itself (its description, title) beside it.
    let mut inner = std::mem::take(map);
    let mut outer = Map::new();
    for key in ["title", "description"] {
        if let Some(v) = inner.shift_remove(key) {
            outer.insert(key.to_owned(), v);
        }
    }
    outer.insert("anyOf".to_owned(), json!([Value::Object(inner), {"type": "null"}]));
    *map = outer;
}

/// Whether the schema restricts the kind of value at all (a bare description admits `null`).
fn constrains(map: &Map<String, Value>) -> bool {
    ["type", "enum", "const", "$ref", "allOf", "anyOf", "oneOf", "not"].iter().any(|k| map.contains_key(*k))
}

fn admits_null(map: &Map<String, Value>) -> bool {
    let null_type = |v: &Value| {
        v.get("type").is_some_and(|t| t == "null" || t.as_array().is_some_and(|a| a.contains(&json!("null"))))
    };
    match map.get("type") {
        Some(Value::String(t)) if t == "null" => return true,
        Some(Value::Array(types)) if types.contains(&json!("null")) && !map.contains_key("enum") => return true,
        _ => {}
    }
    if map.get("const") == Some(&Value::Null) {
        return true;
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return values.contains(&Value::Null);
    }
    ["anyOf", "oneOf"]
        .iter()
        .any(|k| map.get(*k).and_then(Value::as_array).is_some_and(|alts| alts.iter().any(null_type)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_admit_null_at_every_depth() {
        let mut s = json!({
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "format": "uri"},
                "kind": {"type": "string", "enum": ["file", "directory"]},
                "owner": {"$ref": "#/$defs/User", "description": "who"},
                "maybe": {"type": ["integer", "null"]},
                "anything": {"description": "free"},
                "items": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}}}
            },
            "$defs": {"User": {"type": "object", "properties": {"login": {"type": "string"}}}}
        });
        admit_null_properties(&mut s);
        let p = &s["properties"];
        assert_eq!(p["name"], json!({"type": ["string", "null"], "format": "uri"}));
        assert_eq!(p["kind"], json!({"type": ["string", "null"], "enum": ["file", "directory", null]}));
        assert_eq!(p["owner"], json!({"description": "who", "anyOf": [{"$ref": "#/$defs/User"}, {"type": "null"}]}));
        assert_eq!(p["maybe"], json!({"type": ["integer", "null"]}));
        assert_eq!(p["anything"], json!({"description": "free"}));
        assert_eq!(p["items"]["type"], json!(["array", "null"]));
        assert_eq!(p["items"]["items"]["properties"]["id"], json!({"type": ["integer", "null"]}));
        assert_eq!(s["$defs"]["User"]["properties"]["login"], json!({"type": ["string", "null"]}));
        // The root and array items are the answer's own shape, not fields: unchanged.
        assert_eq!(s["type"], "object");
        assert_eq!(p["items"]["items"]["type"], "object");
    }
}
