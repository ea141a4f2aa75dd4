//! Tool use examples (`input-examples.json`): one example call per tool, made of the spec's own
//! examples for its arguments, for providers that take examples beside a tool's definition
//! (Anthropic's `input_examples`). An example is kept only when every required argument has one
//! and the whole validates against the tool's inputSchema: a wrong example teaches a model the
//! wrong call.

use serde_json::{Map, Value, json};

use super::{Catalog, Tool};

/// What an idempotency key looks like in an example: a new UUID per intent.
const EXAMPLE_KEY: &str = "5f0c6a1e-8b3d-4c2a-9e7f-1d2b3c4d5e6f";

/// `{"tools": [{"name", "input_examples": [arguments]}]}` for the tools that have one.
pub fn input_examples(catalog: &Catalog) -> Value {
    let tools: Vec<Value> = catalog
        .tools
        .iter()
        .filter_map(|t| example(t).map(|args| json!({"name": t.name, "input_examples": [args]})))
        .collect();
    json!({ "tools": tools })
}

/// The tool's example arguments, when the spec gives one for some argument and for every
/// required one, and they are valid.
fn example(tool: &Tool) -> Option<Value> {
    let mut args = Map::new();
    let mut from_spec = false;
    for arg in &tool.args {
        let value = if tool.key.is_some() && arg.name == crate::plan::retry::KEY_ARG {
            Some(json!(EXAMPLE_KEY))
        } else {
            let given = tool.examples.iter().find(|(target, _)| *target == arg.target).map(|(_, v)| v.clone());
            from_spec |= given.is_some();
            given
        };
        match value {
            Some(v) => {
                args.insert(arg.name.clone(), v);
            }
            None if arg.required => return None,
            None => {}
        }
    }
    if !from_spec {
        return None;
    }
    let args = Value::Object(args);
    let valid = jsonschema::draft202012::new(&tool.input_schema).is_ok_and(|v| v.is_valid(&args));
    valid.then_some(args)
}

#[cfg(test)]
mod tests {
    use crate::{Input, Settings, generate};

    fn examples(spec: serde_json::Value) -> serde_json::Value {
        let out = generate(&Input::text("spec.json", spec.to_string(), None), &Settings::default()).unwrap();
        serde_json::from_str(&out.files["input-examples.json"]).unwrap()
    }

    fn api(name_example: serde_json::Value) -> serde_json::Value {
        serde_json::json!({"openapi": "3.1.0", "info": {"title": "Notes", "version": "1"}, "paths": {
            "/notes": {"post": {"operationId": "createNote", "requestBody": {"required": true, "content": {"application/json": {"schema": {
                "type": "object", "required": ["title"], "properties": {
                    "title": {"type": "string", "maxLength": 10, "example": name_example},
                    "body": {"type": "string"}}}}}},
                "responses": {"201": {"description": "created"}}},
            "get": {"operationId": "listNotes", "responses": {"200": {"description": "ok"}}}}}})
    }

    #[test]
    fn a_valid_example_from_the_spec_with_a_key_and_nothing_for_tools_without_one() {
        let got = examples(api(serde_json::json!("Groceries")));
        assert_eq!(
            got,
            serde_json::json!({"tools": [{"name": "create_note", "input_examples": [
                {"title": "Groceries", "idempotency_key": super::EXAMPLE_KEY}]}]})
        );
    }

    #[test]
    fn an_example_the_schema_refuses_is_left_out() {
        let got = examples(api(serde_json::json!("A title far longer than ten characters")));
        assert_eq!(got, serde_json::json!({"tools": []}));
    }
}
