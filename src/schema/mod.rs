//! Stage 5, schema: each tool's inputSchema and outputSchema, self-contained JSON Schema 2020-12
//! (MCP has no cross-tool `$defs`). A shape used more than once, or recursively, is defined once
//! in the tool's own `$defs` under its component's name (I2); a shape used once is inlined.
//! `readOnly` properties leave inputs and `writeOnly` properties leave outputs.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::plan::{Catalog, Tool};
use crate::resolve::Defs;
use crate::resolve::schema::def_name;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Arguments the model sends: `readOnly` properties are removed.
    Input,
    /// Results the model reads: `writeOnly` properties are removed.
    Output,
}

/// Fills every tool's `input_schema` and `output_schema`.
pub fn assemble(catalog: &mut Catalog) {
    let defs = &catalog.defs;
    for tool in &mut catalog.tools {
        tool.input_schema = input_schema(tool, defs);
        tool.output_schema = output_schema(tool, defs);
    }
}

pub fn input_schema(tool: &Tool, defs: &Defs) -> Value {
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
    finish(Value::Object(root), defs, Direction::Input)
}

pub fn output_schema(tool: &Tool, defs: &Defs) -> Option<Value> {
    let out = tool.output.as_ref()?;
    // An empty schema says nothing; omit it rather than promise "anything".
    if out == &Value::Bool(true) || out.as_object().is_some_and(Map::is_empty) {
        return None;
    }
    let mut schema = finish(out.clone(), defs, Direction::Output);
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
pub fn finish(mut root: Value, defs: &Defs, direction: Direction) -> Value {
    let reached = reachable(&root, defs);
    let mut local: BTreeMap<String, Value> =
        reached.iter().filter_map(|n| defs.get(n).map(|v| (n.clone(), v.clone()))).collect();
    strip(&mut root, direction, &local_snapshot(&local));
    let snapshot = local_snapshot(&local);
    for v in local.values_mut() {
        strip(v, direction, &snapshot);
    }
    // Stripping may have removed the only path to some defs.
    let live = reachable_local(&root, &local);
    local.retain(|k, _| live.contains(k));

    let cyclic = cyclic_defs(&local);
    loop {
        let counts = ref_counts(&root, &local);
        let Some(name) = local.keys().find(|n| counts.get(*n) == Some(&1) && !cyclic.contains(*n)).cloned() else {
            break;
        };
        let Some(target) = local.remove(&name) else { break };
        let mut done = inline(&mut root, &name, &target);
        for v in local.values_mut() {
            if done {
                break;
            }
            done = inline(v, &name, &target);
        }
    }
    // Defs nothing refers to any more (e.g. only referenced by an inlined copy) are dropped.
    let live = reachable_local(&root, &local);
    local.retain(|k, _| live.contains(k));
    if !local.is_empty()
        && let Value::Object(map) = &mut root
    {
        map.insert("$defs".to_owned(), Value::Object(local.into_iter().collect()));
    }
    root
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
    match schema {
        Value::Object(map) => {
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
            for v in map.values_mut() {
                strip(v, direction, flags);
            }
        }
        Value::Array(items) => {
            for v in items {
                strip(v, direction, flags);
            }
        }
        _ => {}
    }
}

fn collect_refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(map) => {
            if let Some(name) = def_name(v) {
                out.push(name);
            }
            for (k, child) in map {
                if k != "$ref" {
                    collect_refs(child, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|c| collect_refs(c, out)),
        _ => {}
    }
}

/// Names of the API-level defs reachable from `root`.
fn reachable(root: &Value, defs: &Defs) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = Vec::new();
    collect_refs(root, &mut stack);
    let mut stack: Vec<String> = stack.into_iter().map(str::to_owned).collect();
    while let Some(name) = stack.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(target) = defs.get(&name) {
            let mut refs = Vec::new();
            collect_refs(target, &mut refs);
            stack.extend(refs.into_iter().map(str::to_owned));
        }
    }
    seen
}

fn reachable_local(root: &Value, local: &BTreeMap<String, Value>) -> BTreeSet<String> {
    reachable(root, &Defs { schemas: local.clone() })
}

/// Defs that can reach themselves: they must stay defs, or expansion would never end.
fn cyclic_defs(local: &BTreeMap<String, Value>) -> BTreeSet<String> {
    let edges: BTreeMap<&str, Vec<&str>> = local
        .iter()
        .map(|(k, v)| {
            let mut refs = Vec::new();
            collect_refs(v, &mut refs);
            (k.as_str(), refs)
        })
        .collect();
    let mut cyclic = BTreeSet::new();
    for start in local.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&str> = edges.get(start.as_str()).cloned().unwrap_or_default();
        while let Some(n) = stack.pop() {
            if n == start {
                cyclic.insert(start.clone());
                break;
            }
            if seen.insert(n) {
                stack.extend(edges.get(n).cloned().unwrap_or_default());
            }
        }
    }
    cyclic
}

fn ref_counts(root: &Value, local: &BTreeMap<String, Value>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    let mut refs = Vec::new();
    collect_refs(root, &mut refs);
    for v in local.values() {
        collect_refs(v, &mut refs);
    }
    for r in refs {
        *counts.entry(r.to_owned()).or_insert(0) += 1;
    }
    counts
}

/// Replaces the one `{"$ref": "#/$defs/<name>", ...siblings}` in `v` with the target, siblings
/// (annotations such as a description) taking precedence. Returns whether it was found.
fn inline(v: &mut Value, name: &str, target: &Value) -> bool {
    if def_name(v) == Some(name) {
        let Value::Object(map) = v else { return false };
        let siblings: Map<String, Value> =
            map.iter().filter(|(k, _)| *k != "$ref").map(|(k, v)| (k.clone(), v.clone())).collect();
        let mut replacement = target.clone();
        match &mut replacement {
            Value::Object(t) => {
                for (k, s) in siblings {
                    t.insert(k, s);
                }
            }
            // `true`/`false` schemas with annotations: annotations need an object.
            Value::Bool(true) => replacement = Value::Object(siblings),
            _ => {}
        }
        *v = replacement;
        return true;
    }
    match v {
        Value::Object(map) => map.values_mut().any(|c| inline(c, name, target)),
        Value::Array(items) => items.iter_mut().any(|c| inline(c, name, target)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs(v: Value) -> Defs {
        Defs { schemas: serde_json::from_value(v).unwrap() }
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
        let out = finish(root, &d, Direction::Input);
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
        let out = finish(json!({"$ref": "#/$defs/Node"}), &d, Direction::Output);
        assert_eq!(out["$defs"]["Node"]["properties"]["next"], json!({"$ref": "#/$defs/Node"}));
    }

    #[test]
    fn read_only_leaves_inputs_write_only_leaves_outputs() {
        let d = defs(json!({"Pet": {"type": "object", "required": ["id", "name"], "properties": {
            "id": {"type": "integer", "readOnly": true}, "name": {"type": "string"},
            "secret": {"type": "string", "writeOnly": true}}}}));
        let input =
            finish(json!({"type": "object", "properties": {"pet": {"$ref": "#/$defs/Pet"}}}), &d, Direction::Input);
        assert_eq!(input["properties"]["pet"]["required"], json!(["name"]));
        assert!(input["properties"]["pet"]["properties"].get("id").is_none());
        let output = finish(json!({"$ref": "#/$defs/Pet"}), &d, Direction::Output);
        assert!(output["properties"].get("secret").is_none());
        assert!(output["properties"].get("id").is_some());
    }
}
