//! `--mock`: answers a call from the tool's outputSchema, without an upstream. The schema's own
//! `examples` come first; otherwise a value is synthesised that satisfies the schema's types,
//! enums, bounds and required properties. For trying a generated server at once.

use serde_json::{Map, Value, json};

/// Deeper than this, optional structure is left out so recursive schemas stay finite.
const MAX_DEPTH: usize = 6;

pub fn sample(schema: &Value) -> Value {
    sample_at(schema, schema, 0)
}

fn sample_at(schema: &Value, root: &Value, depth: usize) -> Value {
    let Some(map) = schema.as_object() else { return Value::Null };
    if let Some(first) = map.get("examples").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    for key in ["const", "default"] {
        if let Some(v) = map.get(key) {
            return v.clone();
        }
    }
    if let Some(first) = map.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    if let Some(r) = map.get("$ref").and_then(Value::as_str)
        && let Some(target) = r.strip_prefix('#').and_then(|p| root.pointer(p))
    {
        return if depth > MAX_DEPTH { Value::Null } else { sample_at(target, root, depth + 1) };
    }
    if let Some(parts) = map.get("allOf").and_then(Value::as_array) {
        let mut merged = Map::new();
        for p in parts {
            if let Value::Object(o) = sample_at(p, root, depth + 1) {
                merged.extend(o);
            }
        }
        return Value::Object(merged);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(first) = map
            .get(key)
            .and_then(Value::as_array)
            .and_then(|alts| alts.iter().find(|a| a.get("type") != Some(&json!("null"))))
        {
            return sample_at(first, root, depth + 1);
        }
    }
    let ty = match map.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null"),
        _ if map.contains_key("properties") => "object",
        _ if map.contains_key("items") => "array",
        _ => "object",
    };
    match ty {
        "object" => {
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            if let Some(props) = map.get("properties").and_then(Value::as_object) {
                for (k, p) in props {
                    if depth < MAX_DEPTH || required.contains(&k.as_str()) {
                        out.insert(k.clone(), sample_at(p, root, depth + 1));
                    }
                }
            }
            Value::Object(out)
        }
        "array" => {
            let min = map.get("minItems").and_then(Value::as_u64).unwrap_or(1).max(1);
            if depth >= MAX_DEPTH && map.get("minItems").is_none() {
                return json!([]);
            }
            let item = map.get("items").map_or(Value::Null, |i| sample_at(i, root, depth + 1));
            let n = usize::try_from(min.min(3)).unwrap_or(1);
            Value::Array(vec![item; n])
        }
        "integer" => {
            let min = map
                .get("minimum")
                .and_then(Value::as_i64)
                .or_else(|| map.get("exclusiveMinimum").and_then(Value::as_i64).map(|m| m + 1));
            json!(min.unwrap_or(1))
        }
        "number" => json!(map.get("minimum").and_then(Value::as_f64).unwrap_or(1.5)),
        "boolean" => json!(true),
        "null" => Value::Null,
        _ => json!(string_sample(map)),
    }
}

fn string_sample(map: &Map<String, Value>) -> String {
    let base = match map.get("format").and_then(Value::as_str) {
        Some("date-time") => "2026-01-01T00:00:00Z",
        Some("date") => "2026-01-01",
        Some("time") => "12:00:00Z",
        Some("email") => "user@example.com",
        Some("uri" | "url") => "https://example.com/",
        Some("uuid") => "00000000-0000-4000-8000-000000000000",
        Some("ipv4") => "192.0.2.1",
        Some("ipv6") => "2001:db8::1",
        Some("hostname") => "example.com",
        _ => "string",
    };
    let min = map.get("minLength").and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok()).unwrap_or(0);
    let max = map.get("maxLength").and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok()).unwrap_or(usize::MAX);
    let mut s = base.to_owned();
    while s.len() < min {
        s.push('x');
    }
    s.chars().take(max.max(min)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_satisfy_their_schema() {
        let schema = json!({"type": "object", "required": ["id", "tags"], "properties": {
            "id": {"type": "integer", "minimum": 10},
            "status": {"type": "string", "enum": ["available", "sold"]},
            "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}},
            "at": {"type": "string", "format": "date-time"}},
            "$defs": {"Tag": {"type": "object", "properties": {"name": {"type": "string", "minLength": 8}}}}});
        let v = sample(&schema);
        assert!(jsonschema::draft202012::is_valid(&schema, &v), "{v}");
        assert_eq!(v["id"], 10);
        assert_eq!(v["status"], "available");
    }

    #[test]
    fn recursion_is_finite() {
        let schema = json!({"$ref": "#/$defs/Node", "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}});
        let v = sample(&schema);
        assert!(v.is_object());
    }

    #[test]
    fn examples_win() {
        assert_eq!(sample(&json!({"type": "object", "examples": [{"a": 1}]})), json!({"a": 1}));
    }
}
