//! Stage 5, schema: each tool's inputSchema and outputSchema, self-contained JSON Schema 2020-12
//! (MCP has no cross-tool `$defs`). A shape used more than once, or recursively, is defined once
//! in the tool's own `$defs` under its component's name (I2); a shape used once is inlined.
//! `readOnly` properties leave inputs and `writeOnly` properties leave outputs.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::plan::{Catalog, Tool};
use crate::resolve::Defs;
use crate::resolve::schema::{def_name, for_each_subschema, for_each_subschema_mut};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Arguments the model sends: `readOnly` properties are removed.
    Input,
    /// Results the model reads: `writeOnly` properties are removed.
    Output,
}

/// Fills every tool's `input_schema` and `output_schema`.
pub fn assemble(catalog: &mut Catalog) {
    let graph = Graph::new(&catalog.defs);
    let defs = &catalog.defs;
    for tool in &mut catalog.tools {
        tool.input_schema = input_schema(tool, defs, &graph);
        tool.output_schema = output_schema(tool, defs, &graph);
    }
}

/// Which defs each def refers to, computed once per API so that each tool's closure is found
/// without walking schemas again.
pub struct Graph {
    edges: BTreeMap<String, Vec<String>>,
}

impl Graph {
    pub fn new(defs: &Defs) -> Self {
        Graph::of(&defs.schemas)
    }

    fn of(schemas: &BTreeMap<String, Value>) -> Self {
        let edges = schemas
            .iter()
            .map(|(name, schema)| {
                let mut refs = Vec::new();
                collect_refs(schema, &mut refs);
                (name.clone(), refs.into_iter().map(str::to_owned).collect())
            })
            .collect();
        Graph { edges }
    }

    fn reachable<'a>(&'a self, start: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'a str> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&str> = start.into_iter().collect();
        while let Some(name) = stack.pop() {
            if let Some((key, next)) = self.edges.get_key_value(name)
                && seen.insert(key.as_str())
            {
                stack.extend(next.iter().map(String::as_str));
            }
        }
        seen
    }
}

pub fn input_schema(tool: &Tool, defs: &Defs, graph: &Graph) -> Value {
    let mut root = Map::new();
    root.insert("type".to_owned(), json!("object"));
    if !tool.args.is_empty() {
        let props: Map<String, Value> = tool.args.iter().map(|a| (a.name.clone(), a.schema.clone())).collect();
        root.insert("properties".to_owned(), Value::Object(props));
        let required: Vec<Value> = tool.args.iter().filter(|a| a.required).map(|a| json!(a.name)).collect();
        if !required.is_empty() {
            root.insert("required".to_owned(), Value::Array(required));
        }
    }
    root.insert("additionalProperties".to_owned(), tool.rest.clone().unwrap_or(Value::Bool(false)));
    finish(Value::Object(root), defs, graph, Direction::Input)
}

pub fn output_schema(tool: &Tool, defs: &Defs, graph: &Graph) -> Option<Value> {
    let out = tool.output.as_ref()?;
    // An empty schema says nothing; omit it rather than promise "anything".
    if out == &Value::Bool(true) || out.as_object().is_some_and(Map::is_empty) {
        return None;
    }
    let mut schema = finish(out.clone(), defs, graph, Direction::Output);
    // Clients before 2026-07-28 accept only object-rooted output schemas and see a bare `$ref`
    // as none; put the referenced shape at the root.
    if let Some(name) = def_name(&schema).map(str::to_owned)
        && let Some(Value::Object(target)) = schema.pointer(&format!("/$defs/{name}")).cloned()
        && let Value::Object(root) = &mut schema
    {
        let defs_of_root = root.shift_remove("$defs");
        root.shift_remove("$ref");
        for (k, v) in target {
            root.entry(k).or_insert(v);
        }
        if let Some(d) = defs_of_root {
            root.insert("$defs".to_owned(), d);
        }
    }
    Some(schema)
}

/// Makes `root` self-contained: strips by direction, collects the defs it reaches, inlines the
/// ones used once (and not recursive), and appends the rest as `$defs`, sorted by name.
pub fn finish(mut root: Value, defs: &Defs, graph: &Graph, direction: Direction) -> Value {
    let mut start = Vec::new();
    collect_refs(&root, &mut start);
    let mut local: BTreeMap<String, Value> =
        graph.reachable(start).into_iter().filter_map(|n| defs.get(n).map(|v| (n.to_owned(), v.clone()))).collect();
    let flags = local_snapshot(&local);
    strip(&mut root, direction, &flags);
    for v in local.values_mut() {
        strip(v, direction, &flags);
    }
    // Stripping may have removed the only path to some defs: recompute on what is left.
    let local_graph = Graph::of(&local);
    let mut root_refs = Vec::new();
    collect_refs(&root, &mut root_refs);
    let live: BTreeSet<String> =
        local_graph.reachable(root_refs.iter().copied()).into_iter().map(str::to_owned).collect();
    local.retain(|k, _| live.contains(k));

    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in root_refs.iter().copied().chain(live.iter().flat_map(|k| local_graph.edges[k].iter().map(String::as_str)))
    {
        *counts.entry(r).or_insert(0) += 1;
    }
    let cyclic = cyclic(&local_graph, &live);
    // Used once and not recursive: inline. Each is moved, not copied, into its one use.
    let inlinable: Vec<String> =
        live.iter().filter(|n| counts.get(n.as_str()) == Some(&1) && !cyclic.contains(*n)).cloned().collect();
    let mut pending: BTreeMap<String, Value> =
        inlinable.iter().filter_map(|n| local.remove(n).map(|v| (n.clone(), v))).collect();
    expand(&mut root, &mut pending);
    for v in local.values_mut() {
        expand(v, &mut pending);
    }
    if !local.is_empty()
        && let Value::Object(map) = &mut root
    {
        map.insert("$defs".to_owned(), Value::Object(local.into_iter().collect()));
    }
    root
}

/// Replaces references to the defs in `pending` with their content (annotations beside the
/// `$ref`, such as a description, take precedence), recursively.
fn expand(v: &mut Value, pending: &mut BTreeMap<String, Value>) {
    if let Some(name) = def_name(v).map(str::to_owned)
        && let Some(target) = pending.remove(&name)
    {
        let siblings: Map<String, Value> = match v {
            Value::Object(map) => {
                map.iter().filter(|(k, _)| *k != "$ref").map(|(k, v)| (k.clone(), v.clone())).collect()
            }
            _ => Map::new(),
        };
        let mut replacement = match target {
            Value::Object(mut t) => {
                t.extend(siblings);
                Value::Object(t)
            }
            // `true` with annotations needs an object; `false` stays `false`.
            Value::Bool(true) => Value::Object(siblings),
            other => other,
        };
        expand(&mut replacement, pending);
        *v = replacement;
        return;
    }
    for_each_subschema_mut(v, &mut |child| expand(child, pending));
}

/// Defs on a cycle (Tarjan's strongly connected components, iterative): they must stay defs,
/// or expansion would never end.
fn cyclic(graph: &Graph, nodes: &BTreeSet<String>) -> BTreeSet<String> {
    let names: Vec<&str> = nodes.iter().map(String::as_str).collect();
    let index_of: BTreeMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let succ: Vec<Vec<usize>> = names
        .iter()
        .map(|n| {
            graph
                .edges
                .get(*n)
                .map(|e| e.iter().filter_map(|t| index_of.get(t.as_str()).copied()).collect())
                .unwrap_or_default()
        })
        .collect();
    let n = names.len();
    let (mut index, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut next, mut out) = (Vec::new(), 0, BTreeSet::new());
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        // (node, position in its successor list)
        let mut work = vec![(start, 0usize)];
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if *pos == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = succ[v].get(*pos) {
                *pos += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 || succ[v].contains(&v) {
                    out.extend(component.into_iter().map(|i| names[i].to_owned()));
                }
            }
        }
    }
    out
}

/// Whether each def is, at its root, marked (readOnly, writeOnly).
fn local_snapshot(local: &BTreeMap<String, Value>) -> BTreeMap<String, (bool, bool)> {
    let flag = |v: &Value, k: &str| v.get(k) == Some(&Value::Bool(true));
    local.iter().map(|(k, v)| (k.clone(), (flag(v, "readOnly"), flag(v, "writeOnly")))).collect()
}

/// Removes properties that do not belong in this direction, and their `required` entries.
fn strip(schema: &mut Value, direction: Direction, flags: &BTreeMap<String, (bool, bool)>) {
    let keyword = match direction {
        Direction::Input => "readOnly",
        Direction::Output => "writeOnly",
    };
    let hidden = |prop: &Value| {
        prop.get(keyword) == Some(&Value::Bool(true))
            || def_name(prop).and_then(|n| flags.get(n)).is_some_and(|(ro, wo)| match direction {
                Direction::Input => *ro,
                Direction::Output => *wo,
            })
    };
    if let Value::Object(map) = schema {
        let mut removed = Vec::new();
        if let Some(Value::Object(props)) = map.get_mut("properties") {
            let names: Vec<String> = props.iter().filter(|(_, p)| hidden(p)).map(|(k, _)| k.clone()).collect();
            for n in names {
                props.shift_remove(&n);
                removed.push(n);
            }
        }
        if !removed.is_empty()
            && let Some(Value::Array(req)) = map.get_mut("required")
        {
            req.retain(|r| r.as_str().is_none_or(|r| !removed.iter().any(|x| x == r)));
            if req.is_empty() {
                map.shift_remove("required");
            }
        }
    }
    for_each_subschema_mut(schema, &mut |child| strip(child, direction, flags));
}

/// The def names `v` refers to, in order, one entry per reference.
fn collect_refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    if let Some(name) = def_name(v) {
        out.push(name);
    }
    for_each_subschema(v, &mut |child| collect_refs(child, out));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs(v: Value) -> Defs {
        Defs { schemas: serde_json::from_value(v).unwrap() }
    }

    fn fin(root: Value, d: &Defs, direction: Direction) -> Value {
        finish(root, d, &Graph::new(d), direction)
    }

    #[test]
    fn chains_of_single_uses_inline_and_cycles_stay() {
        let d = defs(json!({
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"type": "object", "properties": {"c": {"$ref": "#/$defs/C"}}},
            "C": {"type": "string", "examples": [{"$ref": "not a reference, data"}]},
            "P": {"type": "object", "properties": {"q": {"$ref": "#/$defs/Q"}}},
            "Q": {"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}}}
        }));
        let out = fin(
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "p": {"$ref": "#/$defs/P"}}}),
            &d,
            Direction::Input,
        );
        assert_eq!(out["properties"]["a"]["properties"]["b"]["properties"]["c"]["type"], "string");
        assert_eq!(out["properties"]["p"], json!({"$ref": "#/$defs/P"}));
        assert_eq!(out["$defs"].as_object().unwrap().keys().collect::<Vec<_>>(), ["P", "Q"]);
    }

    #[test]
    fn single_use_shapes_are_inlined_shared_ones_defined_once() {
        let d = defs(json!({
            "Money": {"type": "object", "properties": {"amount": {"type": "integer"}}},
            "Tag": {"type": "string"}
        }));
        let root = json!({"type": "object", "properties": {
            "price": {"$ref": "#/$defs/Money"}, "cost": {"$ref": "#/$defs/Money", "description": "c"},
            "tag": {"$ref": "#/$defs/Tag"}}});
        let out = fin(root, &d, Direction::Input);
        assert_eq!(
            out,
            json!({"type": "object", "properties": {
            "price": {"$ref": "#/$defs/Money"}, "cost": {"$ref": "#/$defs/Money", "description": "c"},
            "tag": {"type": "string"}},
            "$defs": {"Money": {"type": "object", "properties": {"amount": {"type": "integer"}}}}})
        );
    }

    #[test]
    fn recursion_stays_in_defs() {
        let d = defs(json!({"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}));
        let out = fin(json!({"$ref": "#/$defs/Node"}), &d, Direction::Output);
        assert_eq!(out["$defs"]["Node"]["properties"]["next"], json!({"$ref": "#/$defs/Node"}));
    }

    #[test]
    fn read_only_leaves_inputs_write_only_leaves_outputs() {
        let d = defs(json!({"Pet": {"type": "object", "required": ["id", "name"], "properties": {
            "id": {"type": "integer", "readOnly": true}, "name": {"type": "string"},
            "secret": {"type": "string", "writeOnly": true}}}}));
        let input =
            fin(json!({"type": "object", "properties": {"pet": {"$ref": "#/$defs/Pet"}}}), &d, Direction::Input);
        assert_eq!(input["properties"]["pet"]["required"], json!(["name"]));
        assert!(input["properties"]["pet"]["properties"].get("id").is_none());
        let output = fin(json!({"$ref": "#/$defs/Pet"}), &d, Direction::Output);
        assert!(output["properties"].get("secret").is_none());
        assert!(output["properties"].get("id").is_some());
    }
}
