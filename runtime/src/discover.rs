//! Exposure `discover`: an endpoint lists three tools instead of the whole catalog, so a large
//! API fits any model. `search_tools` ranks the catalog for a request (the index the compiler
//! embedded, `mcp_gen_search`), `describe_tools` gives chosen tools' exact definitions, and
//! `call_tool` calls one of them: its arguments are validated against that tool's own schema and
//! the call goes through everything a direct call does (keys, handles, approvals, errors).

use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use serde_json::{Map, Value, json};

use crate::error::{ToolError, codes};

pub const SEARCH: &str = "search_tools";
pub const DESCRIBE: &str = "describe_tools";
pub const CALL: &str = "call_tool";

/// The most tools one search or one description returns.
pub const MAX_RESULTS: usize = 20;
const DEFAULT_LIMIT: usize = 8;

/// The three tools, as `tools/list` serves them (their schemas are fixed: the catalog's tools
/// are reached through them).
pub const CATALOG: &str = r#"{"tools": [
{"name": "call_tool", "title": "Call a tool",
 "description": "Call one of this server's tools by name with its arguments, as describe_tools defines them. The result is that tool's result.",
 "inputSchema": {"type": "object", "properties": {
   "name": {"type": "string", "description": "The tool's name, from search_tools."},
   "arguments": {"type": "object", "description": "The tool's arguments, valid against its inputSchema."}},
  "required": ["name"], "additionalProperties": false},
 "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}},
{"name": "describe_tools", "title": "Describe tools",
 "description": "Get the exact definitions (description, inputSchema, outputSchema, annotations) of tools search_tools found, before calling them.",
 "inputSchema": {"type": "object", "properties": {
   "names": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 20, "description": "Tool names, from search_tools."}},
  "required": ["names"], "additionalProperties": false},
 "outputSchema": {"type": "object", "properties": {
   "tools": {"type": "array", "items": {"type": "object"}},
   "unknown": {"type": "array", "items": {"type": "string"}}},
  "required": ["tools"]},
 "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}},
{"name": "search_tools", "title": "Search tools",
 "description": "Find this server's tools for a task. Describe the task in plain words; the best matches come first, each with its name, what it does and whether it changes anything.",
 "inputSchema": {"type": "object", "properties": {
   "query": {"type": "string", "minLength": 1, "description": "What you want to do, in plain words."},
   "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 8, "description": "How many tools to return."}},
  "required": ["query"], "additionalProperties": false},
 "outputSchema": {"type": "object", "properties": {
   "tools": {"type": "array", "items": {"type": "object", "properties": {
     "name": {"type": "string"}, "description": {"type": "string"}, "annotations": {"type": "object"}},
    "required": ["name", "description"]}}},
  "required": ["tools"]},
 "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}}
]}"#;

/// What the server instructions add on a discovering endpoint.
pub const INSTRUCTIONS: &str = "This endpoint lists three tools instead of the whole API: find tools with search_tools, read their definitions with describe_tools, then run one with call_tool.";

/// A call of one of the three tools, its arguments read.
#[derive(Debug, PartialEq)]
pub enum Meta {
    Search {
        query: String,
        limit: usize,
    },
    Describe {
        names: Vec<String>,
    },
    /// The call to make, as if the client had made it directly.
    Call(CallToolRequestParams),
}

/// The call as one of the three tools, `None` when it names another tool, or the error its
/// arguments earn.
pub fn parse(request: &CallToolRequestParams) -> Option<Result<Meta, ToolError>> {
    let empty = Map::new();
    let args = request.arguments.as_ref().unwrap_or(&empty);
    let name = request.name.as_ref();
    if ![SEARCH, DESCRIBE, CALL].contains(&name) {
        return None;
    }
    if let Some(unknown) = args.keys().find(|k| !allowed(name).contains(&k.as_str())) {
        let e = invalid(
            unknown,
            format!("{name} takes no argument `{unknown}`"),
            format!("Pass only {}.", allowed(name).join(", ")),
        );
        return Some(Err(e));
    }
    Some(match name {
        SEARCH => search_args(args),
        DESCRIBE => describe_args(args),
        _ => call_args(request, args),
    })
}

fn allowed(meta: &str) -> &'static [&'static str] {
    match meta {
        SEARCH => &["query", "limit"],
        DESCRIBE => &["names"],
        _ => &["name", "arguments"],
    }
}

fn invalid(field: &str, message: String, recovery: String) -> ToolError {
    ToolError::new(codes::INVALID_ARGUMENT, message, recovery).field(field)
}

fn search_args(args: &Map<String, Value>) -> Result<Meta, ToolError> {
    let query = match args.get("query").and_then(Value::as_str).map(str::trim) {
        Some(q) if !q.is_empty() => q.to_owned(),
        _ => {
            return Err(invalid(
                "query",
                "query must be a non-empty string".to_owned(),
                "Say what you want to do in plain words, e.g. \"refund a payment\".".to_owned(),
            ));
        }
    };
    let limit = match args.get("limit") {
        None | Some(Value::Null) => DEFAULT_LIMIT,
        Some(v) => match v.as_u64().and_then(|n| usize::try_from(n).ok()).filter(|n| (1..=MAX_RESULTS).contains(n)) {
            Some(n) => n,
            None => {
                return Err(invalid(
                    "limit",
                    format!("limit must be an integer from 1 to {MAX_RESULTS}, not {v}"),
                    format!("Pass a limit from 1 to {MAX_RESULTS}, or leave it out for {DEFAULT_LIMIT}."),
                ));
            }
        },
    };
    Ok(Meta::Search { query, limit })
}

fn describe_args(args: &Map<String, Value>) -> Result<Meta, ToolError> {
    let names: Option<Vec<String>> = args
        .get("names")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|v| v.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>())
        .unwrap_or_default();
    match names {
        Some(names) if (1..=MAX_RESULTS).contains(&names.len()) => Ok(Meta::Describe { names }),
        _ => Err(invalid(
            "names",
            format!("names must be a list of 1 to {MAX_RESULTS} tool names"),
            "Pass the names search_tools returned, e.g. [\"get_invoice\"].".to_owned(),
        )),
    }
}

fn call_args(request: &CallToolRequestParams, args: &Map<String, Value>) -> Result<Meta, ToolError> {
    let Some(name) = args.get("name").and_then(Value::as_str).filter(|n| !n.is_empty()) else {
        return Err(invalid(
            "name",
            "name must be the name of the tool to call".to_owned(),
            "Find the tool with search_tools and pass its name.".to_owned(),
        ));
    };
    if [SEARCH, DESCRIBE, CALL].contains(&name) {
        return Err(invalid(
            "name",
            format!("{name} is called directly, not through call_tool"),
            format!("Call {name} itself."),
        ));
    }
    let arguments = match args.get("arguments") {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => Some(map.clone()),
        Some(other) => {
            return Err(invalid(
                "arguments",
                format!("arguments must be an object of the tool's arguments, not {other}"),
                "Pass the arguments as an object, as describe_tools' inputSchema defines them.".to_owned(),
            ));
        }
    };
    // The client's continuation of a multi-round-trip call (input responses, request state)
    // belongs to the inner call.
    let mut inner = request.clone();
    inner.name = name.to_owned().into();
    inner.arguments = arguments;
    Ok(Meta::Call(inner))
}

/// The error for a name no search gave: the model guessed it.
pub fn unknown_tool(name: &str) -> ToolError {
    ToolError::new(
        codes::INVALID_ARGUMENT,
        format!("there is no tool named {name}"),
        "Find the tool with search_tools and use a name it returns; do not guess names.",
    )
    .field("name")
}

/// `search_tools`' answer: each tool's name, first sentence and annotations, best first.
pub fn found(tools: &[&Tool]) -> CallToolResult {
    let tools: Vec<Value> = tools
        .iter()
        .map(|t| {
            let mut item =
                json!({"name": t.name, "description": first_sentence(t.description.as_deref().unwrap_or_default())});
            if let Some(a) = t.annotations.as_ref().and_then(|a| serde_json::to_value(a).ok()) {
                item["annotations"] = a;
            }
            item
        })
        .collect();
    crate::util::structured(json!({ "tools": tools }))
}

/// `describe_tools`' answer: the definitions, and the names that are not tools here.
pub fn described(tools: Vec<Tool>, unknown: Vec<String>) -> CallToolResult {
    let tools: Vec<Value> = tools.into_iter().filter_map(|t| serde_json::to_value(t).ok()).collect();
    let mut out = json!({ "tools": tools });
    if !unknown.is_empty() {
        out["unknown"] = json!(unknown);
    }
    crate::util::structured(out)
}

/// The text up to the end of its first sentence.
fn first_sentence(text: &str) -> &str {
    let mut from = 0;
    while let Some(i) = text[from..].find(['.', '!', '?']) {
        let end = from + i + 1;
        if text[end..].starts_with(char::is_whitespace) || end == text.len() {
            return &text[..end];
        }
        from = end;
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(name: &'static str, args: Value) -> CallToolRequestParams {
        let mut r = CallToolRequestParams::new(name);
        r.arguments = args.as_object().cloned();
        r
    }

    #[test]
    fn reads_the_three_tools_and_passes_others_by() {
        assert_eq!(
            parse(&request(SEARCH, json!({"query": " refund a payment "}))).unwrap().unwrap(),
            Meta::Search { query: "refund a payment".into(), limit: DEFAULT_LIMIT }
        );
        assert_eq!(
            parse(&request(DESCRIBE, json!({"names": ["a", "b"]}))).unwrap().unwrap(),
            Meta::Describe { names: vec!["a".into(), "b".into()] }
        );
        let Meta::Call(inner) =
            parse(&request(CALL, json!({"name": "get_x", "arguments": {"id": "1"}}))).unwrap().unwrap()
        else {
            panic!("a call")
        };
        assert_eq!(inner.name, "get_x");
        assert_eq!(inner.arguments, json!({"id": "1"}).as_object().cloned());
        assert!(parse(&request("get_x", json!({}))).is_none());
    }

    #[test]
    fn bad_arguments_name_the_field_and_what_to_do() {
        let cases = [
            (request(SEARCH, json!({})), "query"),
            (request(SEARCH, json!({"query": "x", "limit": 0})), "limit"),
            (request(SEARCH, json!({"query": "x", "limit": 21})), "limit"),
            (request(SEARCH, json!({"query": "x", "top": 3})), "top"),
            (request(DESCRIBE, json!({"names": []})), "names"),
            (request(DESCRIBE, json!({"names": [1]})), "names"),
            (request(CALL, json!({"arguments": {}})), "name"),
            (request(CALL, json!({"name": "call_tool"})), "name"),
            (request(CALL, json!({"name": "get_x", "arguments": [1]})), "arguments"),
        ];
        for (req, field) in cases {
            let e = parse(&req).unwrap().unwrap_err();
            assert_eq!(e.code, codes::INVALID_ARGUMENT);
            assert_eq!(e.field.as_deref(), Some(field), "{req:?}");
            assert!(!e.recovery.is_empty());
        }
    }

    #[test]
    fn the_three_tools_parse_and_a_search_answer_fits_its_schema() {
        let tools: Vec<Tool> =
            serde_json::from_value(serde_json::from_str::<Value>(CATALOG).unwrap()["tools"].clone()).unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, [CALL, DESCRIBE, SEARCH]);
        let found = found(&[&tools[0]]);
        let item = &found.structured_content.unwrap()["tools"][0];
        assert_eq!(item["name"], CALL);
        assert_eq!(
            item["description"],
            "Call one of this server's tools by name with its arguments, as describe_tools defines them."
        );
        assert_eq!(item["annotations"]["readOnlyHint"], false);
    }

    #[test]
    fn first_sentences_end_at_a_full_stop_followed_by_a_space() {
        assert_eq!(first_sentence("Get v1.2 of it. Then more."), "Get v1.2 of it.");
        assert_eq!(first_sentence("No stop"), "No stop");
    }
}
