//! Long-running operations: an operation that may answer `202 Accepted` with a `Location`
//! header runs on after its call returns. Its tool answers the operation's status instead of
//! leaving the model with an empty acceptance: `working` with a signed handle to follow, or
//! `completed` with the result. One tool per catalog, made here, follows any such handle; a
//! client that supports the tasks extension gets a task instead and polls `tasks/get` (runtime
//! `operations.rs`).

use serde_json::{Value, json};

use super::{Annotations, Arg, LongRunning, OperationRef, Target, Tool};
use crate::resolve::Method;

/// How long an operation's handle stays valid (`mcp_gen_runtime::operations::TTL_SECS`).
pub const TTL_SECS: u64 = 24 * 3600;

/// Names the status tool takes, in order of preference: the first no other tool has.
const NAMES: [&str; 3] = ["get_operation_status", "follow_operation", "get_long_operation_status"];

/// Adds the status tool when some tool starts long-running operations, and gives those tools
/// their answer's shape (the status envelope around the result) and a sentence saying how to
/// follow them. A merged tool's routes and native tools answer as they are.
pub fn finish(tools: &mut Vec<Tool>) {
    for tool in tools.iter_mut() {
        if tool.native {
            tool.long_running = None;
        }
        for route in &mut tool.routes {
            route.long_running = None;
        }
    }
    let starts = |t: &Tool| t.long_running == Some(LongRunning::Starts);
    if !tools.iter().any(starts) {
        return;
    }
    let Some(name) = NAMES.iter().find(|n| tools.iter().all(|t| t.name != **n)) else { return };
    for tool in tools.iter_mut().filter(|t| starts(t)) {
        tool.output = Some(envelope(name, tool.output.take(), tool.accepted_output.take()));
        tool.description = format!(
            "{} It may run on after the call returns: then follow it with {name} until its status is completed.",
            tool.description.trim_end()
        );
    }
    tools.push(status_tool(name));
    tools.sort_by(|a, b| a.name.cmp(&b.name));
}

/// What a tool that starts long-running operations answers: its status, the handle to follow
/// while it runs, and its result once it ended.
fn envelope(status_tool: &str, result: Option<Value>, accepted: Option<Value>) -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert(
        "status".into(),
        json!({
            "type": "string",
            "enum": ["working", "completed"],
            "description": format!("working: runs on, follow it with {status_tool}; completed: see result."),
        }),
    );
    properties.insert(
        "operation".into(),
        json!({
            "type": "string",
            "description": format!("While working: the handle to pass to {status_tool} (valid {} hours).", TTL_SECS / 3600),
        }),
    );
    properties.insert(
        "poll_after_ms".into(),
        json!({"type": "integer", "minimum": 0, "description": "While working: how long to wait before asking again."}),
    );
    if let Some(mut accepted) = accepted {
        describe(&mut accepted, "What the API answered when it accepted the operation.");
        properties.insert("accepted".into(), accepted);
    }
    let mut result = result.unwrap_or_else(|| json!({}));
    describe(&mut result, "Once completed: the operation's answer.");
    properties.insert("result".into(), result);
    json!({"type": "object", "required": ["status"], "properties": properties})
}

/// Gives `schema` a description when it has none (a `$ref` keeps its own beside it).
fn describe(schema: &mut Value, text: &str) {
    if let Some(map) = schema.as_object_mut()
        && !map.contains_key("description")
    {
        map.insert("description".into(), Value::String(text.to_owned()));
    }
}

/// The tool that follows any operation's handle. It reads, and asks the same question each
/// time: read-only and idempotent; the API's own domain, as every proxied tool.
fn status_tool(name: &str) -> Tool {
    let arg = Arg {
        name: "operation".to_owned(),
        target: Target::Local,
        required: true,
        schema: json!({
            "type": "string",
            "minLength": 1,
            "maxLength": super::pages::MAX_HANDLE_LEN,
            "description": "The operation handle a tool returned with status working, exactly as returned.",
        }),
    };
    Tool {
        name: name.to_owned(),
        name_rule: "status_tool".to_owned(),
        title: "Get operation status".to_owned(),
        description: "Get the status of a long-running operation another tool started, and its result once it completed. Wait the poll_after_ms it gives between calls.".to_owned(),
        annotations: Annotations { read_only: true, destructive: false, idempotent: true, open_world: false },
        operation: OperationRef { method: Method::Get, path: String::new(), operation_id: None, pointer: String::new() },
        args: vec![arg],
        body: None,
        rest: None,
        output: Some(envelope(name, None, None)),
        security: Vec::new(),
        scopes: Vec::new(),
        list_tool: None,
        fixed: Vec::new(),
        hidden: Vec::new(),
        asks: Vec::new(),
        effects: None,
        approval_rule: None,
        pagination: None,
        key: None,
        declared: None,
        allow: None,
        routes: Vec::new(),
        run: None,
        native: false,
        schema_file: None,
        long_running: Some(LongRunning::Follows),
        accepted_output: None,
        sunset: None,
        aliases: Vec::new(),
        search_text: Default::default(),
        result_budget: crate::overlay::DEFAULT_RESULT_BUDGET,
        examples: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(spec: &str) -> Vec<(String, Option<LongRunning>)> {
        let input = crate::Input::text("spec.yaml", spec, None);
        let out = crate::generate(&input, &crate::Settings::default()).unwrap();
        out.catalog.tools.iter().map(|t| (t.name.clone(), t.long_running)).collect()
    }

    const RENDER: &str = r#"
openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /renders:
    post:
      operationId: createRender
      responses:
        '202': {description: accepted, headers: {Location: {schema: {type: string}}}}
"#;

    #[test]
    fn a_catalog_with_an_accepted_operation_gets_one_status_tool_of_a_free_name() {
        assert_eq!(
            names(RENDER),
            [
                ("create_render".into(), Some(LongRunning::Starts)),
                ("get_operation_status".into(), Some(LongRunning::Follows))
            ]
        );
        let taken = format!(
            "{RENDER}  /operations/status:\n    get:\n      operationId: getOperationStatus\n      responses: {{'200': {{description: ok}}}}\n"
        );
        let got = names(&taken);
        assert!(got.contains(&("follow_operation".into(), Some(LongRunning::Follows))), "{got:?}");
        assert!(got.contains(&("get_operation_status".into(), None)), "{got:?}");
        let plain = RENDER.replace(", headers: {Location: {schema: {type: string}}}", "");
        assert_eq!(names(&plain), [("create_render".into(), None)]);
    }

    #[test]
    fn the_envelope_keeps_the_result_and_names_the_status_tool() {
        let e = envelope("get_operation_status", Some(json!({"$ref": "#/$defs/Pdf"})), Some(json!({"type": "object"})));
        assert_eq!(e["required"], json!(["status"]));
        assert_eq!(e["properties"]["result"]["$ref"], "#/$defs/Pdf");
        assert!(e["properties"]["operation"]["description"].as_str().unwrap().contains("get_operation_status"));
        assert!(e["properties"]["accepted"].is_object());
        let bare = envelope("x", None, None);
        assert!(bare["properties"].get("accepted").is_none());
        assert_eq!(bare["properties"]["result"]["description"], "Once completed: the operation's answer.");
    }
}
