//! Clients before 2026-07-28 take only object-rooted output schemas and structured results.
//! A tool whose result is another JSON value (a list of pets, say) keeps its structure for them:
//! the schema and the result are wrapped as `{"result": …}` rather than dropped.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::{Map, Value, json};

/// The property a non-object result is wrapped in.
pub const RESULT: &str = "result";

/// `tool` with a non-object output schema wrapped in an object (its `$defs` at the new root, so
/// every `#/$defs/…` reference still resolves).
pub fn wrap_tool(mut tool: Tool) -> Tool {
    let Some(schema) = tool.output_schema.as_ref() else { return tool };
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        return tool;
    }
    let mut inner = (**schema).clone();
    let defs = inner.shift_remove("$defs");
    let mut root = Map::new();
    root.insert("type".to_owned(), json!("object"));
    root.insert("properties".to_owned(), json!({ RESULT: Value::Object(inner) }));
    root.insert("required".to_owned(), json!([RESULT]));
    if let Some(defs) = defs {
        root.insert("$defs".to_owned(), defs);
    }
    tool.output_schema = Some(Arc::new(root));
    tool
}

/// A non-object structured result as `{"result": …}`, in structuredContent and in the text
/// block that carries the same JSON.
pub fn wrap_result(result: &mut CallToolResult) {
    let Some(value) = result.structured_content.take_if(|v| !v.is_object()) else { return };
    let same_text = result
        .content
        .first()
        .and_then(ContentBlock::as_text)
        .is_some_and(|t| serde_json::from_str::<Value>(&t.text).is_ok_and(|v| v == value));
    let wrapped = json!({ RESULT: value });
    if same_text {
        result.content[0] = ContentBlock::text(wrapped.to_string());
    } else {
        result.content.insert(0, ContentBlock::text(wrapped.to_string()));
    }
    result.structured_content = Some(wrapped);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_wrapped_with_their_defs_at_the_root() {
        let schema = json!({"type": "array", "items": {"$ref": "#/$defs/Pet"}, "$defs": {"Pet": {"type": "object"}}});
        let tool = Tool::new("find_pets", "d", Arc::new(Map::new()))
            .with_raw_output_schema(Arc::new(schema.as_object().cloned().unwrap()));
        let wrapped = wrap_tool(tool);
        let out = Value::Object((*wrapped.output_schema.unwrap()).clone());
        assert_eq!(out["properties"]["result"]["items"]["$ref"], "#/$defs/Pet");
        assert_eq!(out["$defs"]["Pet"]["type"], "object");
        let mut result = CallToolResult::structured(json!([{"id": 1}]));
        wrap_result(&mut result);
        assert_eq!(result.structured_content, Some(json!({"result": [{"id": 1}]})));
        let text: Value = serde_json::from_str(&result.content[0].as_text().unwrap().text).unwrap();
        assert_eq!(text, json!({"result": [{"id": 1}]}));
        assert!(jsonschema::draft202012::is_valid(&out, &text));
    }
}
