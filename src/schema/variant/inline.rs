//! The `inline` variant: every `$ref` replaced by the shape it names, for clients that cannot
//! follow references (and the first step of the `gemini` variant, whose Schema object has no
//! `$ref`). Everything else is kept as it is.
//!
//! Two caps keep the result finite and proportional: a recursive shape is expanded
//! [`RECURSION_DEPTH`] levels deep (a shape inside itself once), and a schema stops expanding
//! once it holds [`NODE_BUDGET`] schema objects (shared shapes copied into every use can
//! multiply). A shape not expanded keeps its `type` and says so in its description; each is a
//! [`Action::Cut`] loss.

use serde_json::{Map, Value};

use super::walk::At;
use super::{Action, Losses, is_annotation};
use crate::diag::unescape_token;
use crate::resolve::schema::SINGLE;
use crate::schema::json_depth;

/// Levels a recursive shape is expanded (a shape is expanded inside itself `RECURSION_DEPTH - 1` times).
pub const RECURSION_DEPTH: usize = 2;
/// Schema objects one inlined input schema may hold before further references are cut.
pub const NODE_BUDGET: usize = 5_000;
/// The same for output schemas, which only inform (results are never validated against them
/// by the model): shapes far from the root are cut sooner.
pub const OUTPUT_NODE_BUDGET: usize = 1_000;

/// `schema` with every reference to its `$defs` replaced by the def; `$defs` removed. With
/// `losses` it is an input schema (cuts are reported and the larger budget applies).
pub fn inline(schema: &Value, losses: Option<&mut Losses>) -> Value {
    let budget = if losses.is_some() { NODE_BUDGET } else { OUTPUT_NODE_BUDGET };
    let defs = schema.get("$defs").and_then(Value::as_object);
    let depths = defs.map(|d| d.iter().map(|(k, v)| (k.as_str(), json_depth(v))).collect()).unwrap_or_default();
    let mut inliner = Inliner { defs, depths, stack: Vec::new(), budget, losses };
    inliner.node(schema, &At::root(), 1)
}

/// Nesting an inlined schema may reach, in JSON levels: the canonical schemas' limit, less the
/// level a cut shape's stub may add.
const MAX_JSON_DEPTH: usize = crate::schema::MAX_JSON_DEPTH - 2;

struct Inliner<'a, 'l> {
    defs: Option<&'a Map<String, Value>>,
    /// JSON depth of each def as written (its references counted as leaves).
    depths: std::collections::BTreeMap<&'a str, usize>,
    /// Defs being expanded, outermost first.
    stack: Vec<&'a str>,
    budget: usize,
    losses: Option<&'l mut Losses>,
}

impl<'a> Inliner<'a, '_> {
    /// `schema`, which sits at JSON level `depth` of the result, inlined.
    fn node(&mut self, schema: &'a Value, at: &At, depth: usize) -> Value {
        let Value::Object(map) = schema else { return schema.clone() };
        self.budget = self.budget.saturating_sub(1);
        if let Some(r) = map.get("$ref").and_then(Value::as_str) {
            return self.reference(map, r, at, depth);
        }
        let mut out = Map::with_capacity(map.len());
        for (k, v) in map {
            if k != "$defs" {
                out.insert(k.clone(), self.keyword(k, v, at, depth));
            }
        }
        Value::Object(out)
    }

    fn keyword(&mut self, k: &str, v: &'a Value, at: &At, depth: usize) -> Value {
        match v {
            Value::Object(m) if matches!(k, "properties" | "patternProperties" | "dependentSchemas") => Value::Object(
                m.iter().map(|(name, s)| (name.clone(), self.node(s, &at.child(k, Some(name)), depth + 2))).collect(),
            ),
            Value::Array(items) if matches!(k, "allOf" | "anyOf" | "oneOf" | "prefixItems") => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, s)| self.node(s, &at.child(k, Some(&i.to_string())), depth + 2))
                    .collect(),
            ),
            Value::Object(_) | Value::Bool(_) if SINGLE.contains(&k) => self.node(v, &at.child(k, None), depth + 1),
            _ => v.clone(),
        }
    }

    fn reference(&mut self, map: &'a Map<String, Value>, r: &str, at: &At, depth: usize) -> Value {
        let siblings: Map<String, Value> =
            map.iter().filter(|(k, _)| *k != "$ref").map(|(k, v)| (k.clone(), self.keyword(k, v, at, depth))).collect();
        let name = r.strip_prefix("#/$defs/").map(unescape_token);
        let Some((name, target)) = name.and_then(|n| self.defs?.get_key_value(n.as_str())) else {
            // Not one of this schema's defs (the canonical schema has none such): any value.
            self.lose(at, r);
            return Value::Object(siblings);
        };
        let recursion = self.stack.iter().filter(|n| **n == name.as_str()).count();
        // The allOf wrapper of a conflicting sibling adds two levels.
        let too_deep = depth + 2 + self.depths.get(name.as_str()).copied().unwrap_or(0) > MAX_JSON_DEPTH;
        if recursion >= RECURSION_DEPTH || self.budget == 0 || too_deep {
            let why = if recursion >= RECURSION_DEPTH {
                format!("(recursive `{name}`: not described below this level)")
            } else if too_deep {
                format!("(`{name}`: not described here, it would nest too deep)")
            } else {
                format!("(`{name}`: not described here, the schema is too large)")
            };
            self.lose(at, name);
            return stub(target, siblings, &why);
        }
        self.stack.push(name.as_str());
        let expanded = self.node(target, &at.def(name), depth);
        self.stack.pop();
        merge(expanded, siblings)
    }

    fn lose(&mut self, at: &At, name: &str) {
        if let Some(l) = self.losses.as_deref_mut() {
            l.push(&at.field, &at.pointer, "$ref", &Value::String(name.to_owned()), Action::Cut);
        }
    }
}

/// What stands for a shape not expanded: its type, and a description that says so.
fn stub(target: &Value, mut siblings: Map<String, Value>, why: &str) -> Value {
    if let Some(t) = target.get("type") {
        siblings.entry("type").or_insert_with(|| t.clone());
    }
    let described = siblings
        .get("description")
        .or_else(|| target.get("description"))
        .and_then(Value::as_str)
        .map_or_else(|| why.to_owned(), |d| format!("{d} {why}"));
    siblings.insert("description".to_owned(), Value::String(described));
    Value::Object(siblings)
}

/// A reference's target with the reference's own keywords: annotations override, other keywords
/// are added where the target has none, and conflicting ones keep both under `allOf`.
fn merge(expanded: Value, siblings: Map<String, Value>) -> Value {
    if siblings.is_empty() {
        return expanded;
    }
    let mut target = match expanded {
        Value::Object(m) => m,
        Value::Bool(true) => Map::new(),
        other => return other,
    };
    let mut conflicts = Map::new();
    for (k, v) in siblings {
        match target.get(&k) {
            // A `$ref`'s own annotations take precedence over its target's.
            Some(existing) if existing != &v && !is_annotation(&k) => {
                conflicts.insert(k, v);
            }
            _ => {
                target.insert(k, v);
            }
        }
    }
    if conflicts.is_empty() {
        return Value::Object(target);
    }
    let mut wrapper = Map::new();
    wrapper.insert("allOf".to_owned(), Value::Array(vec![Value::Object(target), Value::Object(conflicts)]));
    Value::Object(wrapper)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_are_replaced_and_recursion_is_cut() {
        let schema = json!({
            "type": "object",
            "properties": {
                "node": {"$ref": "#/$defs/Node", "description": "Root."},
                "money": {"$ref": "#/$defs/Money"}
            },
            "$defs": {
                "Money": {"type": "integer", "minimum": 0},
                "Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}
            }
        });
        let mut losses = Losses::new("t");
        let out = inline(&schema, Some(&mut losses));
        assert!(!out.to_string().contains("$ref"), "{out}");
        assert!(out.get("$defs").is_none());
        assert_eq!(out["properties"]["money"], json!({"type": "integer", "minimum": 0}));
        assert_eq!(out["properties"]["node"]["description"], "Root.");
        let cut = &out["properties"]["node"]["properties"]["child"]["properties"]["child"];
        assert_eq!(cut["type"], "object");
        assert!(cut["description"].as_str().unwrap().contains("recursive `Node`"));
        assert_eq!(losses.list.len(), 1);
        assert_eq!(losses.list[0].field, "/node/child/child");
        assert_eq!(losses.list[0].action, Action::Cut);
    }

    #[test]
    fn conflicting_siblings_keep_both() {
        let schema = json!({"properties": {"a": {"$ref": "#/$defs/S", "maxLength": 3}},
                            "$defs": {"S": {"type": "string", "maxLength": 9}}});
        let out = inline(&schema, None);
        assert_eq!(out["properties"]["a"]["allOf"][1], json!({"maxLength": 3}));
    }
}
