//! Repeated shapes defined once (I2, T6): an inline subschema that occurs more than once in one
//! tool's schema — Stripe's 300-value merchant-category enum under `allowed_categories`,
//! `blocked_categories` and `spending_limits[].categories`, an address object under `billing`
//! and `shipping` — moves to the schema's own `$defs` and each occurrence becomes a `$ref`.
//! Exactly the same constraints (the occurrences are equal values), fewer tokens. Specs that
//! inline their request bodies, as Stripe's and DigitalOcean's do, have no component to share.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Value, json};

use crate::plan::naming::{numbered, singular};
use crate::resolve::schema::{LISTS, MAPS, SINGLE};

/// Shapes smaller than this (compact JSON bytes) stay inline: a `$ref` and a def would save
/// too little for the indirection a reader follows.
const MIN_BYTES: usize = 160;
/// Each round hoists every repeated shape that does not overlap a larger one; shapes nest, so
/// a few rounds reach the repeats inside hoisted shapes too.
const MAX_ROUNDS: usize = 48;

/// Hoists repeated subschemas of `schema` into its root `$defs`, largest saving first.
pub fn hoist(schema: &mut Value) {
    for _ in 0..MAX_ROUNDS {
        let mut nodes = Vec::new();
        let mut path = Vec::new();
        visit(schema, &mut path, &mut nodes, false);
        let chosen = groups(schema, &nodes);
        if chosen.is_empty() {
            return;
        }
        let mut existing: BTreeSet<String> = match schema.get("$defs") {
            Some(Value::Object(d)) => d.keys().cloned().collect(),
            _ => BTreeSet::new(),
        };
        // The groups of one round are disjoint, so each replacement leaves the others' paths valid.
        let mut hoisted = Vec::with_capacity(chosen.len());
        for group in chosen {
            let name = numbered(&name_for(&group.iter().map(|n| &n.path[..]).collect::<Vec<_>>()), &mut existing);
            let mut body = None;
            for node in &group {
                if let Some(slot) = pointer_mut(schema, &node.path) {
                    let taken = std::mem::replace(slot, reference(&name));
                    body.get_or_insert(taken);
                }
            }
            hoisted.extend(body.map(|b| (name, b)));
        }
        insert_defs(schema, hoisted);
    }
}

#[derive(Debug, Clone)]
struct Node {
    /// Keys and indexes from the root to the node.
    path: Vec<Step>,
    hash: u64,
    bytes: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

/// Records every object subschema below the root with a structural hash and its compact JSON
/// size, computed bottom-up so the walk stays linear in the schema's size. `def_root` marks a
/// `$defs` entry itself: it is a def already and is never hoisted again.
fn visit(v: &Value, path: &mut Vec<Step>, nodes: &mut Vec<Node>, def_root: bool) -> (u64, usize) {
    let Value::Object(map) = v else {
        return leaf(v);
    };
    let mut h = DefaultHasher::new();
    1u8.hash(&mut h);
    let mut bytes = 2 + map.len().saturating_sub(1);
    for (key, value) in map {
        key.hash(&mut h);
        bytes += json_len(key) + 1;
        path.push(Step::Key(key.clone()));
        let (ch, cb) = match (key.as_str(), value) {
            (k, Value::Array(items)) if LISTS.contains(&k) || k == "items" => {
                let mut lh = DefaultHasher::new();
                let mut lb = 2 + items.len().saturating_sub(1);
                for (i, item) in items.iter().enumerate() {
                    path.push(Step::Index(i));
                    let (ih, ib) = visit(item, path, nodes, false);
                    path.pop();
                    ih.hash(&mut lh);
                    lb += ib;
                }
                (lh.finish(), lb)
            }
            (k, Value::Object(entries)) if MAPS.contains(&k) => {
                let mut mh = DefaultHasher::new();
                let mut mb = 2 + entries.len().saturating_sub(1);
                for (name, s) in entries {
                    name.hash(&mut mh);
                    mb += json_len(name) + 1;
                    path.push(Step::Key(name.clone()));
                    let (sh, sb) = if s.is_object() { visit(s, path, nodes, k == "$defs") } else { leaf(s) };
                    path.pop();
                    sh.hash(&mut mh);
                    mb += sb;
                }
                (mh.finish(), mb)
            }
            (k, Value::Object(_)) if SINGLE.contains(&k) => visit(value, path, nodes, false),
            _ => leaf(value),
        };
        path.pop();
        ch.hash(&mut h);
        bytes += cb;
    }
    let hash = h.finish();
    // Only shapes big enough to hoist are recorded: copying every small node's path would
    // make the walk quadratic in depth on large schemas.
    if bytes >= MIN_BYTES && !path.is_empty() && !def_root {
        nodes.push(Node { path: path.clone(), hash, bytes });
    }
    (hash, bytes)
}

/// Data (an `enum` list, a `required` list, a string): hashed and sized as its JSON text.
fn leaf(v: &Value) -> (u64, usize) {
    let text = v.to_string();
    let mut h = DefaultHasher::new();
    0u8.hash(&mut h);
    text.hash(&mut h);
    (h.finish(), text.len())
}

/// Length of `s` as a JSON string; property names rarely need escaping, so most cost nothing.
fn json_len(s: &str) -> usize {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') { s.len() + 2 } else { Value::from(s).to_string().len() }
}

/// The repeated shapes worth hoisting this round, largest saving first, each as its
/// occurrences (checked equal, not just of equal hash), none overlapping another's: a shape
/// inside a hoisted one is taken up again in the next round, inside the def. Ties go to the
/// shape met first.
fn groups(root: &Value, nodes: &[Node]) -> Vec<Vec<Node>> {
    let mut by_hash: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    let mut order = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let g = by_hash.entry(n.hash).or_default();
        if g.is_empty() {
            order.push(n.hash);
        }
        g.push(i);
    }
    let mut candidates: Vec<(usize, Vec<&Node>)> = Vec::new();
    for hash in order {
        let members = &by_hash[&hash];
        if members.len() < 2 {
            continue;
        }
        let first = &nodes[members[0]];
        let Some(value) = pointer(root, &first.path) else { continue };
        let same: Vec<&Node> = members
            .iter()
            .map(|&i| &nodes[i])
            .filter(|n| {
                n.path == first.path || (disjoint(&first.path, &n.path) && pointer(root, &n.path) == Some(value))
            })
            .collect();
        if same.len() < 2 {
            continue;
        }
        // A reference is about 20 bytes plus the name; the def costs its body once plus its key.
        let saved = (same.len() - 1) * first.bytes;
        let cost = same.len() * 40 + 20;
        if saved > cost {
            candidates.push((saved - cost, same));
        }
    }
    candidates.sort_by_key(|c| std::cmp::Reverse(c.0));
    let mut chosen: Vec<Vec<Node>> = Vec::new();
    for (_, group) in candidates {
        let clear = group.iter().all(|n| chosen.iter().flatten().all(|c| disjoint(&c.path, &n.path)));
        if clear {
            chosen.push(group.into_iter().cloned().collect());
        }
    }
    chosen
}

/// Neither path is a prefix of the other: equal shapes never nest, but a hash collision could.
fn disjoint(a: &[Step], b: &[Step]) -> bool {
    !(a.starts_with(b) || b.starts_with(a))
}

fn pointer<'a>(mut v: &'a Value, path: &[Step]) -> Option<&'a Value> {
    for step in path {
        v = match step {
            Step::Key(k) => v.get(k.as_str())?,
            Step::Index(i) => v.get(*i)?,
        };
    }
    Some(v)
}

fn pointer_mut<'a>(mut v: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    for step in path {
        v = match step {
            Step::Key(k) => v.get_mut(k.as_str())?,
            Step::Index(i) => v.get_mut(*i)?,
        };
    }
    Some(v)
}

/// A name from where the shape is used: the words the using properties' names end in
/// (`allowed_categories`, `blocked_categories` → `categories`), singular for an array's items
/// (`category`), else the first use's property name.
fn name_for(paths: &[&[Step]]) -> String {
    let uses: Vec<(String, bool)> = paths.iter().filter_map(|p| used_as(p)).collect();
    let Some((first, items)) = uses.first() else { return "shape".to_owned() };
    let mut common: Vec<&str> = first.split('_').collect();
    for (name, _) in &uses[1..] {
        let words: Vec<&str> = name.split('_').collect();
        let keep = common.iter().rev().zip(words.iter().rev()).take_while(|(a, b)| a == b).count();
        common.drain(..common.len() - keep);
    }
    let base = if common.iter().all(|w| w.is_empty()) { first.clone() } else { common.join("_") };
    if *items && uses.iter().all(|(_, i)| *i) {
        let mut words: Vec<String> = base.split('_').map(str::to_owned).collect();
        if let Some(last) = words.last_mut() {
            *last = singular(last);
        }
        words.join("_")
    } else {
        base
    }
}

/// The nearest property name above a node, and whether the node sits under that property's
/// `items`.
fn used_as(path: &[Step]) -> Option<(String, bool)> {
    let mut items = false;
    for (i, step) in path.iter().enumerate().rev() {
        match step {
            Step::Key(k) if k == "items" => items = true,
            Step::Key(k) if i > 0 && matches!(&path[i - 1], Step::Key(p) if p == "properties" || p == "$defs") => {
                let name = crate::text::def_key(k);
                return (!name.is_empty()).then_some((name, items));
            }
            _ => {}
        }
    }
    None
}

/// Adds defs, keeping `$defs` sorted by name (as the rest of the schema stage writes it) and
/// last among the root's keys.
fn insert_defs(schema: &mut Value, new: Vec<(String, Value)>) {
    let Value::Object(root) = schema else { return };
    let mut defs: Vec<(String, Value)> = match root.shift_remove("$defs") {
        Some(Value::Object(d)) => d.into_iter().collect(),
        _ => Vec::new(),
    };
    defs.extend(new);
    defs.sort_by(|a, b| a.0.cmp(&b.0));
    root.insert("$defs".to_owned(), Value::Object(defs.into_iter().collect()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big_enum() -> Value {
        let values: Vec<String> = (0..40).map(|i| format!("category_{i}")).collect();
        json!({"type": "array", "items": {"type": "string", "enum": values}})
    }

    #[test]
    fn a_repeated_shape_is_defined_once_and_means_the_same() {
        let mut s = json!({
            "type": "object",
            "properties": {
                "allowed_categories": big_enum(),
                "blocked_categories": big_enum(),
                "limits": {"type": "array", "items": {"type": "object", "properties": {"categories": big_enum()}}},
                "note": {"type": "string"}
            },
            "additionalProperties": false
        });
        let before = s.clone();
        hoist(&mut s);
        assert!(s.to_string().len() < before.to_string().len() / 2);
        assert_eq!(s["properties"]["allowed_categories"], json!({"$ref": "#/$defs/categories"}));
        assert_eq!(
            s["properties"]["limits"]["items"]["properties"]["categories"],
            json!({"$ref": "#/$defs/categories"})
        );
        assert_eq!(s["$defs"]["categories"], big_enum());
        assert_eq!(s["properties"]["note"], json!({"type": "string"}));
        // The same values validate before and after.
        let (old, new) = (jsonschema::validator_for(&before).unwrap(), jsonschema::validator_for(&s).unwrap());
        for args in [
            json!({"allowed_categories": ["category_1"], "limits": [{"categories": ["category_39"]}]}),
            json!({"blocked_categories": ["nope"]}),
            json!({"limits": [{"categories": ["category_2", 3]}]}),
        ] {
            assert_eq!(old.is_valid(&args), new.is_valid(&args), "{args}");
        }
    }

    #[test]
    fn small_or_single_shapes_stay_inline_and_existing_defs_are_kept() {
        let mut s = json!({
            "type": "object",
            "properties": {"a": {"type": "string", "maxLength": 5}, "b": {"type": "string", "maxLength": 5}, "c": big_enum()},
            "$defs": {"categories": {"type": "integer"}}
        });
        let before = s.clone();
        hoist(&mut s);
        assert_eq!(s, before);
        let mut twice = json!({"type": "object", "properties": {"x": big_enum(), "y": big_enum()}, "$defs": {"x": {"type": "integer"}}});
        hoist(&mut twice);
        assert_eq!(twice["properties"]["x"], json!({"$ref": "#/$defs/x_2"}));
        assert_eq!(twice["$defs"]["x"], json!({"type": "integer"}));
    }

    #[test]
    fn hoisting_is_deterministic() {
        let make = || {
            json!({"type": "object", "properties": {
                "p": {"type": "object", "properties": {"q": big_enum(), "r": big_enum()}},
                "s": {"type": "object", "properties": {"q": big_enum(), "r": big_enum()}}
            }})
        };
        let (mut a, mut b) = (make(), make());
        hoist(&mut a);
        hoist(&mut b);
        assert_eq!(a.to_string(), b.to_string());
        // The whole object is hoisted first (the larger saving); its repeated fields then too.
        assert_eq!(a["properties"]["p"], a["properties"]["s"]);
    }
}
