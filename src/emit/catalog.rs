//! `tools.json`: the exact `tools/list` payload the server serves, `{"tools": [...]}`, sorted by
//! name (T5). Key order follows rmcp's `Tool` serialisation so the server re-serialises it byte
//! for byte.

use serde_json::{Map, Value, json};

use crate::plan::{Catalog, Tool};

pub fn tool_value(tool: &Tool) -> Value {
    let mut t = Map::new();
    t.insert("name".into(), json!(tool.name));
    t.insert("title".into(), json!(tool.title));
    t.insert("description".into(), json!(tool.description));
    t.insert("inputSchema".into(), tool.input_schema.clone());
    if let Some(out) = &tool.output_schema {
        t.insert("outputSchema".into(), out.clone());
    }
    let a = tool.annotations;
    // T3: every hint explicit; clients assume the worst for a missing one.
    t.insert(
        "annotations".into(),
        json!({
            "title": tool.title,
            "readOnlyHint": a.read_only,
            "destructiveHint": a.destructive,
            "idempotentHint": a.idempotent,
            "openWorldHint": a.open_world,
        }),
    );
    Value::Object(t)
}

/// The catalog as pretty JSON with a final newline: the one canonical writer for `tools.json`
/// and `mcp-gen catalog`.
pub fn tools_json(catalog: &Catalog) -> String {
    let tools: Vec<Value> = catalog.tools.iter().map(tool_value).collect();
    let mut text =
        serde_json::to_string_pretty(&json!({ "tools": tools })).unwrap_or_else(|_| "{\"tools\": []}".to_owned());
    text.push('\n');
    text
}
