//! What the tool search indexes about each tool (exposure `discover`, `mcp-gen search`): much
//! more than the model is shown. The one-sentence description that saves the model's tokens
//! loses the words a request uses, so the index also reads the operation's whole summary and
//! description, its tags and their descriptions, its route, its arguments' names and
//! descriptions, and its result's field names. The text never leaves the compiler: the server
//! embeds the index made of it (`mcp_gen_search::Index`).

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Catalog, Tool, describe};
use crate::resolve::{Api, Defs, Method, Operation};

/// The search index of these tools, leaving out deprecated ones: a search recommends what
/// replaces them.
pub fn index<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> mcp_gen_search::Index {
    mcp_gen_search::Index::build(tools.into_iter().filter(|t| t.sunset.is_none()).map(|t| mcp_gen_search::Document {
        name: &t.name,
        head: &t.search_text.head,
        body: &t.search_text.body,
    }))
}

/// Sets every tool's `search_text`.
pub fn fill(catalog: &mut Catalog, api: &Api) {
    let by_pointer: BTreeMap<&str, &Operation> = api.operations.iter().map(|o| (o.pointer.as_str(), o)).collect();
    let mut toolsets: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for set in &catalog.toolsets {
        for tool in &set.tools {
            toolsets.entry(tool.as_str()).or_default().push(set.name.as_str());
        }
    }
    let defs = &api.defs;
    for tool in &mut catalog.tools {
        let ops: Vec<&Operation> =
            tool.operations().filter_map(|o| by_pointer.get(o.pointer.as_str()).copied()).collect();
        let sets = toolsets.get(tool.name.as_str()).map(Vec::as_slice).unwrap_or_default();
        tool.search_text = text(tool, &ops, &api.tags, sets, defs);
    }
}

/// What the index reads of one tool, in the two fields it weighs apart.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchText {
    /// What names the tool's purpose in few words: name, title, summaries, tags.
    pub head: String,
    /// Everything else: descriptions, route, arguments, result fields, toolsets.
    pub body: String,
}

/// The tool's search text.
fn text(
    tool: &Tool,
    ops: &[&Operation],
    tag_descriptions: &BTreeMap<String, String>,
    toolsets: &[&str],
    defs: &Defs,
) -> SearchText {
    let mut head: Vec<String> = vec![tool.name.clone(), tool.title.clone()];
    let mut parts: Vec<String> = vec![tool.description.clone()];
    for op in ops {
        head.extend(op.summary.iter().map(|t| describe::clean(t)));
        head.extend(op.tags.iter().cloned());
        parts.push(method_words(op.method).to_owned());
        parts.push(route_words(&op.path));
        parts.extend(op.operation_id.clone());
        parts.extend(op.description.iter().map(|t| describe::clean(t)));
        parts.extend(op.tags.iter().filter_map(|tag| tag_descriptions.get(tag)).map(|d| describe::clean(d)));
    }
    for arg in tool.args.iter().chain(&tool.hidden) {
        parts.push(arg.name.clone());
        parts.extend(arg.schema.get("description").and_then(Value::as_str).map(describe::clean));
    }
    if let Some(output) = &tool.output {
        parts.extend(field_names(output, defs));
    }
    parts.extend(toolsets.iter().map(|s| (*s).to_owned()));
    head.retain(|p| !p.is_empty());
    parts.retain(|p| !p.is_empty());
    SearchText { head: head.join("\n"), body: parts.join("\n") }
}

/// The verbs a request uses for what the method does.
fn method_words(method: Method) -> &'static str {
    match method {
        Method::Get | Method::Head => "get list",
        Method::Post => "create",
        Method::Put | Method::Patch => "update",
        Method::Delete => "delete",
        Method::Options | Method::Trace => "",
    }
}

/// `/repos/{owner}/{repo}/pulls` → `repos owner repo pulls`.
fn route_words(path: &str) -> String {
    path.split(['/', '{', '}']).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ")
}

/// The result's top-level field names (an array's items' for a list).
fn field_names(schema: &Value, defs: &Defs) -> Vec<String> {
    let schema = defs.follow(schema);
    let object = schema.get("items").map_or(schema, |items| defs.follow(items));
    let Some(props) = object.get("properties").and_then(Value::as_object) else { return Vec::new() };
    // A list wrapped in an object (`{items: [...], total}`): its items' fields too.
    let inner = props
        .values()
        .filter_map(|p| defs.follow(p).get("items"))
        .filter_map(|i| defs.follow(i).get("properties"))
        .filter_map(Value::as_object);
    props.keys().chain(inner.flat_map(|m| m.keys())).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_become_words() {
        assert_eq!(
            route_words("/repos/{owner}/{repo}/pulls/{pull_number}/merge"),
            "repos owner repo pulls pull_number merge"
        );
    }
}
