//! Argument validation with the tool's full inputSchema (CONTRACT I1): the server checks every
//! call itself, whatever the client validated. A failure names the field and the rule (E2).
//! Optional arguments sent as `null` count as absent, unless the schema itself accepts `null`.
//! The upstream's answers are checked against the outputSchema the same way (`answer`).

use jsonschema::{Draft, ValidationError, Validator};
use serde_json::{Map, Value};

use crate::error::{ToolError, codes};

/// At most this many problems are listed in one error, so the message stays readable.
const MAX_PROBLEMS: usize = 3;

/// A validator for one of a tool's schemas; formats are checked, as the strictest clients do.
pub fn compile(schema: &Value) -> Result<Validator, String> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| format!("does not compile: {e}"))
}

/// The validator of a tool's answers: like [`compile`], but `format` is an annotation, as
/// JSON Schema 2020-12 makes it by default. Upstreams send relative hrefs under `format: uri`
/// and local times under `format: date-time`; a call that took effect must not read as a
/// failure for that (arguments are still checked against their formats).
pub fn compile_answers(schema: &Value) -> Result<Validator, String> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(false)
        .build(schema)
        .map_err(|e| format!("does not compile: {e}"))
}

/// Optional arguments sent as `null` count as absent, at every depth, unless the schema that
/// governs them (the declared property, else `additionalProperties`) accepts `null`: models
/// often send `null` for "not given", and a strict provider variant sends it for every field
/// not given.
pub fn drop_nulls(args: &mut Map<String, Value>, root: &Value) {
    prune(args, root, root, 0);
}

/// Drops the `null`s of one object (`schema` governs it) and descends into its values.
fn prune(map: &mut Map<String, Value>, schema: &Value, root: &Value, depth: usize) {
    let schema = resolved(schema, root);
    let (props, required) = object_shape(schema, root);
    let extra = schema.get("additionalProperties").filter(|a| a.is_object());
    let governing = |k: &str| props.get(k).or(extra);
    map.retain(|k, v| {
        !v.is_null() || required.contains(&k.as_str()) || governing(k).is_some_and(|p| allows_null(p, root, 0))
    });
    for (k, v) in map.iter_mut() {
        if let Some(p) = governing(k) {
            descend(v, p, root, depth + 1);
        }
    }
}

/// `schema` with `$ref`s to the root's `$defs` followed.
fn resolved<'a>(mut schema: &'a Value, root: &'a Value) -> &'a Value {
    for _ in 0..16 {
        match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')).and_then(|p| root.pointer(p))
        {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

/// The properties an object schema declares (its own, then its combinators' branches) and the
/// names any of them requires.
fn object_shape<'a>(schema: &'a Value, root: &'a Value) -> (Map<String, Value>, Vec<&'a str>) {
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut parts = vec![schema];
    for key in ["allOf", "anyOf", "oneOf"] {
        for branch in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
            parts.push(resolved(branch, root));
        }
    }
    for part in parts {
        for (k, v) in part.get("properties").and_then(Value::as_object).into_iter().flatten() {
            props.entry(k.clone()).or_insert_with(|| v.clone());
        }
        required.extend(part.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str));
    }
    (props, required)
}

fn descend(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    if depth > 32 {
        return;
    }
    let schema = resolved(schema, root);
    match value {
        Value::Object(map) => prune(map, schema, root, depth),
        Value::Array(items) => {
            if let Some(item) = schema.get("items").filter(|i| i.is_object()) {
                for v in items {
                    descend(v, item, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}

fn allows_null(schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    match schema {
        Value::Bool(b) => *b,
        Value::Object(map) => {
            if map.is_empty() {
                return true;
            }
            if let Some(r) = map.get("$ref").and_then(Value::as_str)
                && let Some(target) = r.strip_prefix('#').and_then(|p| root.pointer(p))
            {
                return allows_null(target, root, depth + 1);
            }
            match map.get("type") {
                Some(Value::String(t)) => return t == "null",
                Some(Value::Array(ts)) => return ts.iter().any(|t| t == "null"),
                _ => {}
            }
            if let Some(Value::Array(values)) = map.get("enum") {
                return values.contains(&Value::Null);
            }
            ["anyOf", "oneOf"].iter().any(|k| {
                map.get(*k)
                    .and_then(Value::as_array)
                    .is_some_and(|alts| alts.iter().any(|a| allows_null(a, root, depth + 1)))
            })
        }
        _ => false,
    }
}

/// `/tags/0/name` → `tags[0].name`.
fn field_name(pointer: &str) -> String {
    let mut out = String::new();
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        if token.parse::<usize>().is_ok() && !out.is_empty() {
            out.push_str(&format!("[{token}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&token);
        }
    }
    out
}

struct Problem {
    field: Option<String>,
    text: String,
    rule: String,
}

fn problem(error: &ValidationError<'_>, schema: &Value, args: &Value) -> Problem {
    use jsonschema::error::ValidationErrorKind as K;
    let at = error.instance_path().as_str().to_owned();
    let mut field = if at.is_empty() { None } else { Some(field_name(&at)) };
    match error.kind() {
        K::Required { property } => {
            let name = property.as_str().map_or_else(|| property.to_string(), str::to_owned);
            field = Some(match field {
                Some(parent) => format!("{parent}.{name}"),
                None => name,
            });
        }
        K::AdditionalProperties { unexpected } => {
            if let Some(first) = unexpected.first() {
                field = Some(match field {
                    Some(parent) => format!("{parent}.{first}"),
                    None => first.clone(),
                });
            }
        }
        // `additionalProperties: false` on an object that declares no properties: reported as
        // a false schema, at the object; name the key that is not allowed.
        K::FalseSchema if error.schema_path().as_str().ends_with("/additionalProperties") => {
            let parent = error.schema_path().as_str().trim_end_matches("/additionalProperties");
            let declared = schema.pointer(&format!("{parent}/properties")).and_then(Value::as_object);
            let extra = args
                .pointer(&at)
                .and_then(Value::as_object)
                .and_then(|o| o.keys().find(|k| declared.is_none_or(|d| !d.contains_key(*k))).cloned());
            if let Some(key) = extra {
                let text = format!("`{key}` is not an argument here (no other properties are allowed)");
                let field = Some(match field {
                    Some(parent) => format!("{parent}.{key}"),
                    None => key,
                });
                return Problem { field, text, rule: "additionalProperties: false".to_owned() };
            }
        }
        _ => {}
    }
    let keyword = error.kind().keyword().to_owned();
    // The rule's value, when the schema path leads to it and it is short enough to quote.
    let rule = match schema.pointer(error.schema_path().as_str()) {
        Some(v) if !matches!(keyword.as_str(), "required" | "additionalProperties" | "$ref") => {
            let text = v.to_string();
            if text.len() <= 80 { format!("{keyword}: {text}") } else { keyword }
        }
        _ => keyword,
    };
    Problem { field, text: error.to_string(), rule }
}

/// What the server does with a call's arguments before it runs the tool: `null` for an optional
/// field counts as absent at every depth, then the full schema is checked (CONTRACT I1). The
/// arguments as the tool receives them, or the error the model reads.
pub fn arguments(
    validator: &Validator,
    schema: &Value,
    mut args: Map<String, Value>,
) -> Result<Map<String, Value>, ToolError> {
    drop_nulls(&mut args, schema);
    let value = Value::Object(args);
    check(validator, schema, &value)?;
    match value {
        Value::Object(args) => Ok(args),
        _ => Err(ToolError::internal("arguments are not an object")),
    }
}

/// Validates `args` against `schema`, returning the error result the model reads on failure.
pub fn check(validator: &Validator, schema: &Value, args: &Value) -> Result<(), ToolError> {
    let problems = problems(validator, schema, args);
    let Some(first) = problems.first() else { return Ok(()) };
    let message = format!("invalid argument {}", listed(&problems, usize::MAX));
    let recovery = match &first.field {
        Some(f) => format!(
            "Correct `{f}` to satisfy `{}` (see the tool's inputSchema) and call again; the same arguments will fail again.",
            first.rule
        ),
        None => {
            "Correct the arguments to match the tool's inputSchema and call again; the same arguments will fail again."
                .to_owned()
        }
    };
    let mut err = ToolError::new(codes::INVALID_ARGUMENT, message, recovery);
    if let Some(f) = &first.field {
        err = err.field(f.clone());
    }
    Err(err)
}

/// An answer's problem is cut here: a validator quotes the whole value, and an answer's value
/// can be a large object.
const MAX_PROBLEM_CHARS: usize = 160;

/// Where an upstream answer leaves the tool's outputSchema, described for the model and the
/// operator (at most `MAX_PROBLEMS` places); `None` when it conforms.
pub fn answer(validator: &Validator, schema: &Value, value: &Value) -> Option<String> {
    let problems = problems(validator, schema, value);
    (!problems.is_empty()).then(|| listed(&problems, MAX_PROBLEM_CHARS))
}

/// The places in an answer where it leaves its schema, as JSON Pointers with array indices as
/// `*` (so a metric label names a field of every item, not each item), distinct, in order.
pub fn answer_places(validator: &Validator, value: &Value) -> Vec<String> {
    let mut places: Vec<String> = Vec::new();
    for e in validator.iter_errors(value).take(MAX_PROBLEMS + 1) {
        let place: Vec<String> = e
            .instance_path()
            .as_str()
            .split('/')
            .map(|seg| {
                if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) { "*".to_owned() } else { seg.to_owned() }
            })
            .collect();
        let place = place.join("/");
        if !places.contains(&place) {
            places.push(place);
        }
    }
    places
}

/// The first problems of `value`: one more than are listed, so a list can say there are more.
fn problems(validator: &Validator, schema: &Value, value: &Value) -> Vec<Problem> {
    validator.iter_errors(value).take(MAX_PROBLEMS + 1).map(|e| problem(&e, schema, value)).collect()
}

/// `` `field`: text (rule); …; and more ``, each text cut at `max_chars`.
fn listed(problems: &[Problem], max_chars: usize) -> String {
    let mut parts: Vec<String> = problems
        .iter()
        .take(MAX_PROBLEMS)
        .map(|p| {
            let mut text: String = p.text.chars().take(max_chars).collect();
            if text.len() < p.text.len() {
                text.push('…');
            }
            match &p.field {
                Some(f) => format!("`{f}`: {text} ({})", p.rule),
                None => format!("{text} ({})", p.rule),
            }
        })
        .collect();
    if problems.len() > MAX_PROBLEMS {
        parts.push("and more".to_owned());
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(schema: Value, args: Value) -> Result<(), ToolError> {
        let v = compile(&schema).unwrap();
        check(&v, &schema, &args)
    }

    #[test]
    fn errors_name_field_and_rule() {
        let schema = json!({"type": "object", "properties": {"petId": {"type": "integer", "minimum": 1}}, "required": ["petId"], "additionalProperties": false});
        let e = run(schema.clone(), json!({"petId": 0})).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("petId"));
        assert!(e.message.contains("minimum: 1"), "{}", e.message);
        assert!(!e.retryable);
        let e = run(schema.clone(), json!({})).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("petId"));
        let e = run(schema, json!({"petId": 2, "bogus": 1})).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("bogus"));
    }

    #[test]
    fn nested_nulls_count_as_absent_unless_the_schema_takes_null() {
        let schema = json!({"type": "object", "properties": {
            "lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}},
            "meta": {"type": "object", "properties": {"note": {"type": "string"}, "tag": {"type": ["string", "null"]}}}
        }, "$defs": {"Line": {"type": "object", "required": ["qty"], "properties": {
            "qty": {"type": "integer"}, "memo": {"type": "string"}}}}});
        let mut args = json!({"lines": [{"qty": 1, "memo": null}, {"qty": null}], "meta": {"note": null, "tag": null}});
        let Value::Object(map) = &mut args else { unreachable!() };
        drop_nulls(map, &schema);
        assert_eq!(args, json!({"lines": [{"qty": 1}, {"qty": null}], "meta": {"tag": null}}));
        // A required field sent as null is still refused, by name.
        let e = run(schema, args).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("lines[1].qty"));
    }

    #[test]
    fn an_extra_argument_of_a_tool_without_arguments_is_named() {
        let schema = json!({"type": "object", "additionalProperties": false});
        let e = run(schema, json!({"surprise": 1})).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("surprise"));
        assert!(e.message.contains("not an argument"), "{}", e.message);
    }

    #[test]
    fn nested_fields_are_dotted() {
        let schema = json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 3}}}}}});
        let e = run(schema, json!({"tags": [{"name": "ok"}, {"name": "too long"}]})).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("tags[1].name"));
    }

    #[test]
    fn an_answer_off_its_schema_is_described_briefly() {
        let schema = json!({"type": "object", "required": ["id", "status"], "properties": {
            "id": {"type": "string"}, "status": {"enum": ["draft", "paid"]},
            "lines": {"type": "array", "items": {"type": "object", "properties": {"qty": {"type": "integer"}}}}}});
        let v = compile(&schema).unwrap();
        assert_eq!(answer(&v, &schema, &json!({"id": "in_1", "status": "paid"})), None);
        let big = "x".repeat(1000);
        let off = json!({"status": "finalizing", "lines": [{"qty": 1}, {"qty": big}]});
        let text = answer(&v, &schema, &off).unwrap();
        assert!(text.contains("`id`"), "{text}");
        assert!(text.contains("`status`") && text.contains(r#"enum: ["draft","paid"]"#), "{text}");
        assert!(text.contains("`lines[1].qty`"), "{text}");
        assert!(text.len() < 700, "a large value is not quoted whole: {text}");
    }

    #[test]
    fn formats_are_enforced() {
        let schema = json!({"type": "object", "properties": {"at": {"type": "string", "format": "date-time"}}});
        assert!(run(schema.clone(), json!({"at": "yesterday"})).is_err());
        assert!(run(schema, json!({"at": "2026-11-29T10:00:00Z"})).is_ok());
    }

    #[test]
    fn null_optionals_are_absent_unless_nullable() {
        let schema = json!({"type": "object", "required": ["a"], "properties": {
            "a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": ["string", "null"]}}});
        let mut args = json!({"a": null, "b": null, "c": null}).as_object().unwrap().clone();
        drop_nulls(&mut args, &schema);
        assert_eq!(Value::Object(args), json!({"a": null, "c": null}));
    }
}
