//! The contract diff (CONTRACT V1–V5): what a change of spec or overlay does to agents already
//! using the tools. Two compiled contracts are compared tool by tool (matched by operation, then
//! by name, so a rename is one change), schema keyword by schema keyword with every `$ref`
//! resolved (a component renamed with the same shape is no change), and each difference is
//! classed:
//!
//! | class | what |
//! | --- | --- |
//! | breaking | a call or a result reader that worked stops working: tool or argument removed or renamed, new required argument, type changed, input constraint tightened (smaller maximum, larger minimum, shorter maxLength, enum value removed, pattern or format added or changed, `additionalProperties: false`), output field removed, retyped or no longer always there |
//! | semantic | same shape, different behaviour: annotations, a changed default, effects, approval, scopes, a new value in an output enum, any description (read it: units and meaning live there) |
//! | additive | new tool, new optional argument, constraint widened or dropped, new output field |
//!
//! Never reported: order of tools, properties or enum values, `title`, `examples`, `$comment`,
//! and the names of `$defs`.

use serde_json::{Map, Value, json};

/// How a change affects existing agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    Breaking,
    Semantic,
    Additive,
}

/// One difference between two contracts.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Change {
    pub tool: String,
    /// The operation (operationId, else `METHOD /path`); the old one for a removed or renamed tool.
    pub operation: Option<String>,
    /// Into the tool: `/inputSchema/properties/limit/maximum`; empty for the whole tool.
    pub pointer: String,
    pub before: Value,
    pub after: Value,
    pub class: Class,
    /// Which rule of the table classed it.
    pub rule: &'static str,
}

/// One tool as agents see it, and what stands behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Contract {
    pub name: String,
    pub operation: Option<String>,
    /// `METHOD /path`: what pairs a tool across versions, whatever its name or operationId.
    pub route: Option<String>,
    pub description: String,
    pub input: Value,
    /// The result schema before the served catalog's size budget prunes it (what the API
    /// answers), its `$ref`s into `output_defs`.
    pub output: Option<Value>,
    pub output_defs: Option<std::sync::Arc<Value>>,
    pub annotations: Value,
    /// Effects, approval and scopes, when the contract comes from a spec (not a bare catalog).
    pub behaviour: Value,
}

/// The contracts of a compiled catalog.
pub fn contracts(catalog: &crate::schema::Catalog) -> Vec<Contract> {
    let defs = std::sync::Arc::new(json!({"$defs": catalog.defs.schemas}));
    catalog
        .tools
        .iter()
        .map(|t| {
            let a = &t.annotations;
            Contract {
                name: t.name.clone(),
                operation: Some(
                    t.operation.operation_id.clone().unwrap_or_else(|| format!("{} {}", t.operation.method, t.operation.path)),
                ),
                route: Some(format!("{} {}", t.operation.method, t.operation.path)),
                description: t.description.clone(),
                input: t.input_schema.clone(),
                output: t.output.clone().or_else(|| t.output_schema.clone()),
                output_defs: t.output.as_ref().map(|_| defs.clone()),
                annotations: json!({"readOnlyHint": a.read_only, "destructiveHint": a.destructive,
                    "idempotentHint": a.idempotent, "openWorldHint": a.open_world}),
                behaviour: json!({
                    "approval": crate::plan::intent::approval(t).map(|(_, rule)| json!({"autoIf": rule})),
                    "scopes": t.scopes,
                    "effects": t.effects.as_ref().map(|e| json!({"reversible": e.reversible,
                        "onRepeat": e.on_repeat.map(|r| format!("{r:?}")), "approver": e.approver.map(|r| format!("{r:?}"))})),
                }),
            }
        })
        .collect()
}

/// The contracts of a `tools.json` (`{"tools": [...]}`): matched by name only.
pub fn from_catalog_json(text: &str) -> Result<Vec<Contract>, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let tools = doc.get("tools").and_then(Value::as_array).ok_or("no `tools` list")?;
    tools
        .iter()
        .map(|t| {
            let name = t.get("name").and_then(Value::as_str).ok_or("a tool has no `name`")?;
            Ok(Contract {
                name: name.to_owned(),
                operation: None,
                route: None,
                description: t.get("description").and_then(Value::as_str).unwrap_or_default().to_owned(),
                input: t.get("inputSchema").cloned().unwrap_or(json!({})),
                output: t.get("outputSchema").cloned(),
                output_defs: None,
                annotations: t.get("annotations").cloned().unwrap_or(json!({})),
                behaviour: Value::Null,
            })
        })
        .collect()
}

/// Every change from `old` to `new`, breaking first.
pub fn diff(old: &[Contract], new: &[Contract]) -> Vec<Change> {
    let mut out = Vec::new();
    let mut matched_new = vec![false; new.len()];
    // Pairs: the same name and operation; else the one tool left on the same operation (a
    // rename); else the same name (the operation moved). Split tools share an operation.
    let mut pairs: Vec<Option<usize>> = vec![None; old.len()];
    let same_op = |o: &Contract, n: &Contract| o.route.is_some() && n.route == o.route;
    for (k, o) in old.iter().enumerate() {
        if let Some(i) = new.iter().position(|n| n.name == o.name && same_op(o, n)) {
            pairs[k] = Some(i);
            matched_new[i] = true;
        }
    }
    for (k, o) in old.iter().enumerate() {
        if pairs[k].is_some() {
            continue;
        }
        let left: Vec<usize> = (0..new.len()).filter(|i| !matched_new[*i] && same_op(o, &new[*i])).collect();
        let old_left = old.iter().enumerate().filter(|(j, p)| pairs[*j].is_none() && same_op(p, o)).count();
        if left.len() == 1 && old_left == 1 {
            pairs[k] = Some(left[0]);
            matched_new[left[0]] = true;
        }
    }
    for (k, o) in old.iter().enumerate() {
        if pairs[k].is_some() {
            continue;
        }
        if let Some(i) = (0..new.len()).find(|i| !matched_new[*i] && new[*i].name == o.name) {
            pairs[k] = Some(i);
            matched_new[i] = true;
        }
    }
    for (o, pair) in old.iter().zip(&pairs) {
        let Some(i) = *pair else {
            out.push(change(o, "", json!(o.name), Value::Null, Class::Breaking, "tool removed"));
            continue;
        };
        matched_new[i] = true;
        let n = &new[i];
        if n.name != o.name {
            out.push(change(o, "", json!(o.name), json!(n.name), Class::Breaking, "tool renamed"));
        }
        compare_tool(o, n, &mut out);
    }
    for (n, _) in new.iter().zip(&matched_new).filter(|(_, m)| !**m) {
        out.push(Change {
            tool: n.name.clone(),
            operation: n.operation.clone(),
            pointer: String::new(),
            before: Value::Null,
            after: json!(n.name),
            class: Class::Additive,
            rule: "new tool",
        });
    }
    out.sort_by(|a, b| (a.class, &a.tool, &a.pointer).cmp(&(b.class, &b.tool, &b.pointer)));
    out
}

fn change(tool: &Contract, pointer: &str, before: Value, after: Value, class: Class, rule: &'static str) -> Change {
    Change {
        tool: tool.name.clone(),
        operation: tool.operation.clone(),
        pointer: pointer.to_owned(),
        before,
        after,
        class,
        rule,
    }
}

/// Texts that differ only in case or spacing say the same.
fn same_text(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    norm(a) == norm(b)
}

fn compare_tool(o: &Contract, n: &Contract, out: &mut Vec<Change>) {
    if !same_text(&o.description, &n.description) {
        out.push(change(
            o,
            "/description",
            json!(o.description),
            json!(n.description),
            Class::Semantic,
            "description changed",
        ));
    }
    for hint in ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] {
        let (a, b) = (o.annotations.get(hint), n.annotations.get(hint));
        if a != b {
            out.push(change(
                o,
                &format!("/annotations/{hint}"),
                a.cloned().unwrap_or(Value::Null),
                b.cloned().unwrap_or(Value::Null),
                Class::Semantic,
                "annotation changed",
            ));
        }
    }
    if !o.behaviour.is_null() && !n.behaviour.is_null() {
        for key in ["effects", "approval", "scopes"] {
            if o.behaviour.get(key) != n.behaviour.get(key) {
                out.push(change(
                    o,
                    &format!("/{key}"),
                    o.behaviour[key].clone(),
                    n.behaviour[key].clone(),
                    Class::Semantic,
                    "effects, approval or scopes changed",
                ));
            }
        }
    }
    let mut walk = Walk { tool: o, out, seen: Default::default() };
    walk.schema(&o.input, &o.input, &n.input, &n.input, "/inputSchema", Side::Input);
    match (&o.output, &n.output) {
        (Some(a), Some(b)) => {
            let (ra, rb) = (o.output_defs.as_deref().unwrap_or(a), n.output_defs.as_deref().unwrap_or(b));
            walk.schema(ra, a, rb, b, "/outputSchema", Side::Output);
        }
        (Some(a), None) => walk.push("/outputSchema", a.clone(), Value::Null, Class::Breaking, "output schema removed"),
        (None, Some(b)) => walk.push("/outputSchema", Value::Null, b.clone(), Class::Additive, "output schema added"),
        (None, None) => {}
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Side {
    /// What callers send: tightening breaks them.
    Input,
    /// What result readers read: anything taken away breaks them.
    Output,
}

struct Walk<'a, 'o> {
    tool: &'a Contract,
    out: &'o mut Vec<Change>,
    /// `$ref` pairs already compared (recursive `$defs` come back to themselves).
    seen: std::collections::BTreeSet<(String, String, String)>,
}

/// `schema` with a local `$ref` (`#/$defs/X`) replaced by its target, repeatedly.
fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..32 {
        let Some(target) = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) else {
            break;
        };
        match root.pointer(target) {
            Some(t) => schema = t,
            None => break,
        }
    }
    schema
}

fn types(schema: &Value) -> Option<Vec<String>> {
    let mut t: Vec<String> = match schema.get("type")? {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => return None,
    };
    t.sort();
    Some(t)
}

fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn at_side(side: Side) -> String {
    match side {
        Side::Input => "in".to_owned(),
        Side::Output => "out".to_owned(),
    }
}

/// Names that share a word longer than two letters (`Number` / `DestinationNumber` do;
/// `asn__lte` / `contact_group` do not).
fn kindred(a: &str, b: &str) -> bool {
    let words = |s: &str| -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        for c in s.chars() {
            if !c.is_alphanumeric() || (c.is_uppercase() && !cur.is_empty()) {
                if !cur.is_empty() {
                    out.push(cur.to_lowercase());
                }
                cur = String::new();
            }
            if c.is_alphanumeric() {
                cur.push(c);
            }
        }
        if !cur.is_empty() {
            out.push(cur.to_lowercase());
        }
        out
    };
    let (x, y) = (words(a), words(b));
    x.iter().any(|w| w.len() > 2 && y.contains(w))
}

/// `schema` with its `allOf` branches merged in (properties, required, and the keywords it
/// lacks), so an object that moved its fields into or out of `allOf` compares as the same one.
fn flatten<'a>(root: &Value, schema: &'a Value) -> std::borrow::Cow<'a, Value> {
    let Some(branches) = schema.get("allOf").and_then(Value::as_array) else {
        return std::borrow::Cow::Borrowed(schema);
    };
    let mut out = schema.as_object().cloned().unwrap_or_default();
    out.remove("allOf");
    for branch in branches {
        let Value::Object(b) = flatten(root, resolve(root, branch)).into_owned() else { continue };
        for (k, v) in b {
            match (k.as_str(), out.get_mut(&k)) {
                ("properties", Some(Value::Object(p))) => {
                    if let Value::Object(more) = v {
                        for (name, s) in more {
                            p.entry(name).or_insert(s);
                        }
                    }
                }
                ("required", Some(Value::Array(r))) => {
                    for name in v.as_array().into_iter().flatten() {
                        if !r.contains(name) {
                            r.push(name.clone());
                        }
                    }
                }
                (_, Some(_)) => {}
                (_, None) => {
                    out.insert(k, v);
                }
            }
        }
    }
    std::borrow::Cow::Owned(Value::Object(out))
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

impl Walk<'_, '_> {
    /// `key` of `old` and `new` (null where absent) as one change at `{at}/{key}`.
    fn push_keyword(&mut self, at: &str, key: &str, (old, new): (&Value, &Value), class: Class, rule: &'static str) {
        let value = |s: &Value| s.get(key).cloned().unwrap_or(Value::Null);
        self.push(&format!("{at}/{key}"), value(old), value(new), class, rule);
    }

    fn push(&mut self, pointer: &str, before: Value, after: Value, class: Class, rule: &'static str) {
        self.out.push(change(self.tool, pointer, before, after, class, rule));
    }

    #[allow(clippy::too_many_lines)]
    fn schema(&mut self, old_root: &Value, old: &Value, new_root: &Value, new: &Value, at: &str, side: Side) {
        let reference = |s: &Value| s.get("$ref").and_then(Value::as_str).unwrap_or_default().to_owned();
        let (ref_old, ref_new) = (reference(old), reference(new));
        if (!ref_old.is_empty() || !ref_new.is_empty()) && !self.seen.insert((at_side(side), ref_old, ref_new)) {
            return;
        }
        // A description written beside a `$ref` is the node's own.
        let (desc_old, desc_new) = (old.get("description").cloned(), new.get("description").cloned());
        let (old, new) = (flatten(old_root, resolve(old_root, old)), flatten(new_root, resolve(new_root, new)));
        let (old, new) = (old.as_ref(), new.as_ref());
        let (desc_old, desc_new) = (
            desc_old.or_else(|| old.get("description").cloned()),
            desc_new.or_else(|| new.get("description").cloned()),
        );
        // Types: a wider input type admits every old call; any change breaks a reader.
        if let (a, b) = (types(old), types(new))
            && a != b
        {
            let widened = match (&a, &b) {
                (Some(a), Some(b)) => a.iter().all(|t| b.contains(t)),
                (Some(_), None) => true,
                _ => false,
            };
            let (class, rule) = match side {
                Side::Input if widened => (Class::Additive, "input type widened"),
                _ => (Class::Breaking, "type changed"),
            };
            self.push(&format!("{at}/type"), json!(a), json!(b), class, rule);
            // Another type altogether: its old keywords changing with it are the same change.
            // (A type that gained or lost `null` is still compared below.)
            let disjoint = match (&a, &b) {
                (Some(a), Some(b)) => !a.iter().any(|t| t != "null" && b.contains(t)),
                _ => false,
            };
            if class == Class::Breaking && disjoint {
                return;
            }
        }
        // Bounds: which way tightens.
        for (key, larger_is_tighter) in [
            ("minimum", true),
            ("exclusiveMinimum", true),
            ("minLength", true),
            ("minItems", true),
            ("minProperties", true),
            ("maximum", false),
            ("exclusiveMaximum", false),
            ("maxLength", false),
            ("maxItems", false),
            ("maxProperties", false),
        ] {
            let (a, b) = (old.get(key), new.get(key));
            if a == b || side == Side::Output {
                continue;
            }
            let tighter = match (a.and_then(Value::as_f64), b.and_then(Value::as_f64)) {
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (Some(x), Some(y)) => (y > x) == larger_is_tighter,
                (None, None) => continue,
            };
            let (class, rule) = if tighter {
                (Class::Breaking, "input constraint tightened")
            } else {
                (Class::Additive, "input constraint widened")
            };
            self.push_keyword(at, key, (old, new), class, rule);
        }
        for key in ["pattern", "format", "const"] {
            let (a, b) = (old.get(key), new.get(key));
            if a == b {
                continue;
            }
            let (class, rule) = match (side, b) {
                (Side::Input, None) => (Class::Additive, "input constraint widened"),
                (Side::Input, Some(_)) => (Class::Breaking, "input constraint tightened"),
                (Side::Output, _) => (Class::Semantic, "output constraint changed"),
            };
            self.push_keyword(at, key, (old, new), class, rule);
        }
        if let (Some(a), Some(b)) =
            (old.get("enum").and_then(Value::as_array), new.get("enum").and_then(Value::as_array))
        {
            let removed: Vec<&Value> = a.iter().filter(|v| !b.contains(v)).collect();
            let added: Vec<&Value> = b.iter().filter(|v| !a.contains(v)).collect();
            let pointer = format!("{at}/enum");
            if !removed.is_empty() {
                let (class, rule) = match side {
                    Side::Input => (Class::Breaking, "enum value removed"),
                    Side::Output => (Class::Additive, "output enum value removed"),
                };
                self.push(&pointer, json!(removed), Value::Null, class, rule);
            }
            if !added.is_empty() {
                let (class, rule) = match side {
                    Side::Input => (Class::Additive, "enum value added"),
                    Side::Output => (Class::Semantic, "output enum value added"),
                };
                self.push(&pointer, Value::Null, json!(added), class, rule);
            }
        } else if old.get("enum") != new.get("enum") {
            let class =
                if side == Side::Input && new.get("enum").is_some() { Class::Breaking } else { Class::Semantic };
            let rule = if class == Class::Breaking { "input constraint tightened" } else { "enum changed" };
            self.push_keyword(at, "enum", (old, new), class, rule);
        }
        if old.get("default") != new.get("default") {
            self.push_keyword(at, "default", (old, new), Class::Semantic, "default changed");
        }
        let differs = match (desc_old.as_ref().and_then(Value::as_str), desc_new.as_ref().and_then(Value::as_str)) {
            (Some(a), Some(b)) => !same_text(a, b),
            (a, b) => a != b,
        };
        if at != "/inputSchema" && at != "/outputSchema" && differs {
            self.push(
                &format!("{at}/description"),
                desc_old.unwrap_or(Value::Null),
                desc_new.unwrap_or(Value::Null),
                Class::Semantic,
                "description changed",
            );
        }
        let closed = |s: &Value| s.get("additionalProperties") == Some(&Value::Bool(false));
        if side == Side::Input && closed(old) != closed(new) {
            let (class, rule) = if closed(new) {
                (Class::Breaking, "input constraint tightened")
            } else {
                (Class::Additive, "input constraint widened")
            };
            self.push(&format!("{at}/additionalProperties"), json!(!closed(old)), json!(!closed(new)), class, rule);
        }
        self.properties(old_root, old, new_root, new, at, side);
        if let (Some(a), Some(b)) = (old.get("items"), new.get("items")) {
            self.schema(old_root, a, new_root, b, &format!("{at}/items"), side);
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            let (a, b) = (old.get(key).and_then(Value::as_array), new.get(key).and_then(Value::as_array));
            if a.map(Vec::len) == b.map(Vec::len) {
                for (i, (x, y)) in a.into_iter().flatten().zip(b.into_iter().flatten()).enumerate() {
                    self.schema(old_root, x, new_root, y, &format!("{at}/{key}/{i}"), side);
                }
            } else {
                let grew = a.map_or(0, Vec::len) < b.map_or(0, Vec::len);
                let (class, rule) = match (side, key, grew) {
                    (Side::Input, "anyOf" | "oneOf", true) => (Class::Additive, "input alternative added"),
                    _ => (Class::Breaking, "alternatives changed"),
                };
                self.push(&format!("{at}/{key}"), json!(a), json!(b), class, rule);
            }
        }
    }

    fn properties(&mut self, old_root: &Value, old: &Value, new_root: &Value, new: &Value, at: &str, side: Side) {
        let empty = Map::new();
        let a = old.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        let b = new.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        let (ra, rb) = (required(old), required(new));
        // An input that lost its properties and takes any object now admits every old call.
        let open = new.get("additionalProperties") != Some(&Value::Bool(false));
        if side == Side::Input && !a.is_empty() && b.is_empty() && open {
            self.push(
                &format!("{at}/properties"),
                json!(a.keys().collect::<Vec<_>>()),
                Value::Null,
                Class::Additive,
                "input constraint widened",
            );
            return;
        }
        let removed: Vec<&String> = a.keys().filter(|k| !b.contains_key(*k)).collect();
        let added: Vec<&String> = b.keys().filter(|k| !a.contains_key(*k)).collect();
        // An argument that left under one name and came back under another: the same shape, and
        // the same description or a kindred name (plain strings are everywhere).
        let mut renamed: Vec<(&String, &String)> = Vec::new();
        for r in &removed {
            let (xs, xd) = (resolve(old_root, &a[r.as_str()]), a[r.as_str()].get("description"));
            if let Some(n) = added.iter().find(|n| {
                let (ys, yd) = (resolve(new_root, &b[n.as_str()]), b[n.as_str()].get("description"));
                let described = (xd.is_some() && xd == yd)
                    || (xs.get("description").is_some() && xs.get("description") == ys.get("description"));
                !renamed.iter().any(|(_, m)| m == *n) && xs == ys && (described || kindred(r, n))
            }) {
                renamed.push((r, n));
            }
        }
        for r in &removed {
            let pointer = format!("{at}/properties/{}", escape(r));
            match renamed.iter().find(|(o, _)| o == r) {
                Some((_, n)) => self.push(
                    &pointer,
                    json!(r),
                    json!(n),
                    Class::Breaking,
                    if side == Side::Input { "argument renamed" } else { "output field renamed" },
                ),
                None => self.push(
                    &pointer,
                    json!(r),
                    Value::Null,
                    Class::Breaking,
                    if side == Side::Input { "argument removed" } else { "output field removed" },
                ),
            }
        }
        for n in &added {
            if renamed.iter().any(|(_, m)| m == n) {
                continue;
            }
            let pointer = format!("{at}/properties/{}", escape(n));
            let (class, rule) = match side {
                Side::Input if rb.contains(&n.as_str()) => (Class::Breaking, "new required argument"),
                Side::Input => (Class::Additive, "new optional argument"),
                Side::Output => (Class::Additive, "new output field"),
            };
            self.push(&pointer, Value::Null, json!(n), class, rule);
        }
        for (name, x) in a {
            let Some(y) = b.get(name) else { continue };
            let pointer = format!("{at}/properties/{}", escape(name));
            let (was, is) = (ra.contains(&name.as_str()), rb.contains(&name.as_str()));
            if was != is {
                let (class, rule) = match (side, is) {
                    (Side::Input, true) => (Class::Breaking, "argument became required"),
                    (Side::Input, false) => (Class::Additive, "argument became optional"),
                    (Side::Output, false) => (Class::Breaking, "output field no longer always present"),
                    (Side::Output, true) => (Class::Additive, "output field now always present"),
                };
                self.push(&format!("{pointer}/required"), json!(was), json!(is), class, rule);
            }
            self.schema(old_root, x, new_root, y, &pointer, side);
        }
    }
}

/// The exit code for a set of changes: 3 breaking, 4 semantic, 0 otherwise.
pub fn exit_code(changes: &[Change]) -> u8 {
    if changes.iter().any(|c| c.class == Class::Breaking) {
        3
    } else if changes.iter().any(|c| c.class == Class::Semantic) {
        4
    } else {
        0
    }
}

/// The changes as a Markdown summary for a pull request.
pub fn markdown(changes: &[Change]) -> String {
    let count = |c: Class| changes.iter().filter(|x| x.class == c).count();
    let mut out = format!(
        "### Contract changes\n\n{} breaking, {} semantic, {} additive.\n",
        count(Class::Breaking),
        count(Class::Semantic),
        count(Class::Additive)
    );
    if changes.is_empty() {
        return out;
    }
    out.push_str("\n| class | tool | where | before | after | rule |\n| --- | --- | --- | --- | --- | --- |\n");
    let cell = |v: &Value| {
        let s = if v.is_null() { String::new() } else { v.to_string() };
        let s = s.replace('|', "\\|").replace('\n', " ");
        if s.chars().count() > 80 { s.chars().take(77).collect::<String>() + "..." } else { s }
    };
    for c in changes {
        let class = match c.class {
            Class::Breaking => "**breaking**",
            Class::Semantic => "semantic",
            Class::Additive => "additive",
        };
        out.push_str(&format!(
            "| {class} | `{}` | `{}` | {} | {} | {} |\n",
            c.tool,
            if c.pointer.is_empty() { "(tool)" } else { &c.pointer },
            cell(&c.before),
            cell(&c.after),
            c.rule
        ));
    }
    out
}
