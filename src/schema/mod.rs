//! Stage 5, schema: each tool's inputSchema and outputSchema, self-contained JSON Schema 2020-12
//! (MCP has no cross-tool `$defs`). A shape used more than once, or recursively, is defined once
//! in the tool's own `$defs` under its component's name (I2); a shape used once is inlined.
//! Server-assigned properties (`readOnly`, or labelled output only) leave inputs and `writeOnly`
//! properties leave outputs.

pub mod dedup;
pub mod examples;
pub mod nulls;
pub mod tools_json;
pub mod variant;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::{Map, Value, json};

use crate::plan;
use crate::plan::brief::{self, server_assigned};
use crate::resolve::Defs;
use crate::resolve::schema::{def_name, for_each_subschema, for_each_subschema_mut};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Arguments the model sends: server-assigned properties are removed.
    Input,
    /// Results the model reads: `writeOnly` properties are removed.
    Output,
    /// A schema used as it is (a standalone JSON Schema document): nothing is removed.
    Neither,
}

/// Output schemas whose shapes add up to more than this many bytes of JSON are trimmed: shapes
/// farthest from the root are left unexpanded (I3 keeps outputs informative, not exhaustive;
/// inputs are never trimmed).
pub const OUTPUT_SCHEMA_BUDGET: usize = 16 * 1024;

/// What the schema stage did that the user should know about.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Tools whose output schema was trimmed, with the untrimmed size in bytes.
    pub trimmed_outputs: Vec<(String, usize)>,
}

/// A planned tool with its schemas: what the schema stage makes of it. Everything else of the
/// tool is the plan's, read through it (`tool.name`, `tool.args`).
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub planned: plan::Tool,
    /// Self-contained JSON Schema 2020-12, rooted at `type: object`.
    pub input_schema: Value,
    /// The result's schema, when the tool has one worth stating.
    pub output_schema: Option<Value>,
}

impl std::ops::Deref for Tool {
    type Target = plan::Tool;

    fn deref(&self) -> &plan::Tool {
        &self.planned
    }
}

/// The catalog with every tool's schemas: what `tools.json` holds and every later stage reads.
pub type Catalog = plan::Catalog<Tool>;

/// Every tool's inputSchema and outputSchema, made from the plan.
pub fn assemble(planned: plan::Catalog) -> (Catalog, Summary) {
    let plan::Catalog { server, tools, schemes, default_upstream, excluded, toolsets, budget, defs, source } = planned;
    let (input, output) = std::thread::scope(|scope| {
        let output = scope.spawn(|| Prepared::new(&defs, Direction::Output));
        let input = Prepared::new(&defs, Direction::Input);
        (input, output.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    });
    let nullable_answers = source.answers_admit_null;
    // Tools are independent: assembled on every core.
    let done = crate::par::map_slices(&tools, |tools| {
        let mut out = Vec::with_capacity(tools.len());
        for tool in tools {
            let input_schema = input_schema(tool, &input);
            let (mut output_schema, untrimmed) = output_schema(tool, &output, OUTPUT_SCHEMA_BUDGET);
            // A native tool's answers are the crate's own, held to its contract as written.
            if nullable_answers
                && !tool.native
                && let Some(schema) = output_schema.as_mut()
            {
                nulls::admit_null_properties(schema);
            }
            out.push((input_schema, output_schema, untrimmed.map(|size| (tool.name.clone(), size))));
        }
        out
    });
    let mut trimmed_outputs = Vec::new();
    let tools = tools
        .into_iter()
        .zip(done.into_iter().flatten())
        .map(|(planned, (input_schema, output_schema, trimmed))| {
            trimmed_outputs.extend(trimmed);
            Tool { planned, input_schema, output_schema }
        })
        .collect();
    let catalog = Catalog { server, tools, schemes, default_upstream, excluded, toolsets, budget, defs, source };
    (catalog, Summary { trimmed_outputs })
}

/// The defs of one API, stripped for one direction, with everything per-tool assembly needs
/// computed once: which defs each def refers to, which are recursive, and their sizes.
pub struct Prepared {
    direction: Direction,
    defs: BTreeMap<String, Value>,
    /// Root (readOnly, writeOnly) flags of each def, before stripping.
    flags: BTreeMap<String, (bool, bool)>,
    /// Def → the defs it refers to, one entry per reference, in document order.
    edges: BTreeMap<String, Vec<String>>,
    /// Defs on a reference cycle: they must stay defs, or expansion would never end. A cycle
    /// is global, so a def on one is on it in every tool that reaches it.
    cyclic: BTreeSet<String>,
    /// Compact JSON size of each def, for the output budget (outputs only: inputs are never
    /// trimmed, so their sizes are not computed).
    sizes: BTreeMap<String, usize>,
}

impl Prepared {
    pub fn new(defs: &Defs, direction: Direction) -> Self {
        let flags = local_snapshot(&defs.schemas);
        let mut stripped = defs.schemas.clone();
        for v in stripped.values_mut() {
            strip(v, direction, &flags);
            match direction {
                Direction::Input => brief::brief(v, brief::Side::Input),
                Direction::Output => brief::brief(v, brief::Side::Output),
                Direction::Neither => {}
            }
        }
        let edges: BTreeMap<String, Vec<String>> = stripped
            .iter()
            .map(|(name, schema)| {
                let mut refs = Vec::new();
                collect_refs(schema, &mut refs);
                (name.clone(), refs.into_iter().filter(|r| stripped.contains_key(*r)).map(str::to_owned).collect())
            })
            .collect();
        let cyclic = cyclic(&edges);
        let sizes = match direction {
            Direction::Output => stripped.iter().map(|(k, v)| (k.clone(), json_size(v))).collect(),
            Direction::Input | Direction::Neither => BTreeMap::new(),
        };
        Prepared { direction, defs: stripped, flags, edges, cyclic, sizes }
    }

    /// Defs reachable from `start`, breadth first (nearest first), each once. With a budget,
    /// defs stop being taken once their sizes add up to it: the first def is always taken, and
    /// a def is only reached through taken ones.
    fn reachable<'s, 'a>(&'s self, start: impl IntoIterator<Item = &'a str>, budget: Option<usize>) -> Vec<&'s str> {
        let mut seen = BTreeSet::new();
        let mut order = Vec::new();
        let mut used = 0usize;
        let mut queue: VecDeque<&str> = start.into_iter().collect();
        while let Some(name) = queue.pop_front() {
            let Some((key, next)) = self.edges.get_key_value(name) else { continue };
            if !seen.insert(key.as_str()) {
                continue;
            }
            if let Some(budget) = budget {
                let size = self.sizes.get(key).copied().unwrap_or(0);
                if !order.is_empty() && used.saturating_add(size) > budget {
                    continue;
                }
                used = used.saturating_add(size);
            }
            order.push(key.as_str());
            queue.extend(next.iter().map(String::as_str));
        }
        order
    }
}

pub fn input_schema(tool: &plan::Tool, prepared: &Prepared) -> Value {
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
    let mut schema = finish(Value::Object(root), prepared, None, true).0;
    // After the repeats are hoisted, so shapes are compared as the spec wrote them; what the
    // model reads only (outputs keep their types for the hosts that render them).
    brief::drop_implied(&mut schema);
    schema
}

/// The tool's output schema and, when it had to be trimmed to `budget`, its untrimmed size.
pub fn output_schema(tool: &plan::Tool, prepared: &Prepared, budget: usize) -> (Option<Value>, Option<usize>) {
    let Some(out) = tool.output.as_ref() else { return (None, None) };
    // An empty schema says nothing; omit it rather than promise "anything".
    if out == &Value::Bool(true) || out.as_object().is_some_and(Map::is_empty) {
        return (None, None);
    }
    let mut out = out.clone();
    brief::brief(&mut out, brief::Side::Output);
    let (mut schema, untrimmed) = finish(out, prepared, Some(budget), false);
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
    // A root that lists properties but no `type` (hand-written descriptions often leave it
    // out) describes an object: say so, as MCP requires of an output schema's root and as
    // clients before 2026-07-28 read it.
    if let Value::Object(root) = &mut schema
        && !root.contains_key("type")
        && ["properties", "required", "additionalProperties", "patternProperties"].iter().any(|k| root.contains_key(*k))
        && !["anyOf", "oneOf", "allOf", "$ref", "enum", "const"].iter().any(|k| root.contains_key(*k))
    {
        root.shift_insert(0, "type".to_owned(), json!("object"));
    }
    // The server hands out a handle, or null, where the upstream's next cursor was (H1).
    if let Some((next, ttl)) = tool.pagination.as_ref().and_then(|p| p.handle()) {
        crate::plan::pages::describe_in_output(&mut schema, next, ttl);
    }
    (Some(schema), untrimmed)
}

/// Makes `root` self-contained: strips by direction, collects the defs it reaches, inlines the
/// ones used once (and not recursive), and appends the rest as `$defs`, sorted by name. With a
/// budget, only the nearest defs that fit are kept; references to the others become
/// unconstrained placeholders that keep the def's `type`, so every valid value still validates.
///
/// With `args_at_root`, the root's own properties are tool arguments, not data: a parameter
/// whose schema is marked `readOnly` (a shared "id" shape, say) is still an argument.
pub fn finish(
    mut root: Value,
    prepared: &Prepared,
    budget: Option<usize>,
    args_at_root: bool,
) -> (Value, Option<usize>) {
    if args_at_root {
        for_each_subschema_mut(&mut root, &mut |child| strip(child, prepared.direction, &prepared.flags));
    } else {
        strip(&mut root, prepared.direction, &prepared.flags);
    }
    let mut root_refs = owned_refs(&root);
    let mut live: Vec<&str> = prepared.reachable(root_refs.iter().map(String::as_str), None);
    let mut untrimmed = None;
    // Defs rewritten for this tool (budget cuts); the others are taken from `prepared`.
    let mut rewritten: BTreeMap<String, Value> = BTreeMap::new();
    if let Some(budget) = budget {
        let total: usize = live.iter().map(|n| prepared.sizes.get(*n).copied().unwrap_or(0)).sum();
        if total > budget {
            untrimmed = Some(total + json_size(&root));
            live = prepared.reachable(root_refs.iter().map(String::as_str), Some(budget));
            let kept: BTreeSet<&str> = live.iter().copied().collect();
            stub_refs(&mut root, &kept, &prepared.defs);
            for name in &live {
                let mut v = prepared.defs[*name].clone();
                stub_refs(&mut v, &kept, &prepared.defs);
                rewritten.insert((*name).to_owned(), v);
            }
            root_refs = owned_refs(&root);
        }
    }
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for r in root_refs {
        *counts.entry(r).or_insert(0) += 1;
    }
    for name in &live {
        let refs = match rewritten.get(*name) {
            Some(v) => owned_refs(v),
            None => prepared.edges[*name].clone(),
        };
        for r in refs {
            *counts.entry(r).or_insert(0) += 1;
        }
    }
    let unexpanded = (!counts.is_empty()).then(|| (root.clone(), live.clone(), rewritten.clone()));
    let mut out = assemble_defs(root, live, rewritten, &counts, prepared, true);
    // Inlining nests shapes inside one another; where that goes deeper than clients parse,
    // every shape stays a def instead (each def is bounded by the resolver's depth limit).
    if json_depth(&out) > MAX_JSON_DEPTH
        && let Some((root, live, rewritten)) = unexpanded
    {
        out = assemble_defs(root, live, rewritten, &counts, prepared, false);
    }
    dedup::hoist(&mut out);
    (out, untrimmed)
}

/// Nesting limit of an emitted schema, leaving room for the `tools/list` envelope under the
/// 128 levels JSON parsers accept.
pub(crate) const MAX_JSON_DEPTH: usize = 110;

pub(crate) fn json_depth(v: &Value) -> usize {
    match v {
        Value::Object(m) => 1 + m.values().map(json_depth).max().unwrap_or(0),
        Value::Array(a) => 1 + a.iter().map(json_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// Inlines the single-use, non-recursive defs among `live` (when `inline`), and every use of a
/// def no larger than a reference to it (AWS's `String: {type: string}` under a hundred
/// `allOf: [{$ref}, {description}]`), and puts the rest under `$defs`, sorted by name.
fn assemble_defs(
    mut root: Value,
    live: Vec<&str>,
    mut rewritten: BTreeMap<String, Value>,
    counts: &BTreeMap<String, usize>,
    prepared: &Prepared,
    inline: bool,
) -> Value {
    // Used once and not recursive: inline. Each is moved, not copied, into its one use.
    let mut pending: BTreeMap<String, Value> = BTreeMap::new();
    let mut local: BTreeMap<String, Value> = BTreeMap::new();
    let mut tiny: BTreeMap<String, Value> = BTreeMap::new();
    for name in live {
        let value = rewritten.remove(name).unwrap_or_else(|| prepared.defs[name].clone());
        let inlinable = inline && !prepared.cyclic.contains(name);
        if inlinable && is_tiny(name, &value) {
            tiny.insert(name.to_owned(), value);
        } else if inlinable && counts.get(name) == Some(&1) {
            pending.insert(name.to_owned(), value);
        } else {
            local.insert(name.to_owned(), value);
        }
    }
    if !tiny.is_empty() {
        for v in std::iter::once(&mut root).chain(pending.values_mut()).chain(local.values_mut()) {
            inline_tiny(v, &tiny);
        }
    }
    let mut deferred = BTreeMap::new();
    expand(&mut root, &mut pending, 0, &mut deferred);
    for v in local.values_mut() {
        expand(v, &mut pending, 0, &mut deferred);
    }
    // Shapes left deep in a chain become defs of their own, expanded from the top again.
    while !deferred.is_empty() {
        for (name, mut v) in std::mem::take(&mut deferred) {
            expand(&mut v, &mut pending, 0, &mut deferred);
            local.insert(name, v);
        }
    }
    if !local.is_empty()
        && let Value::Object(map) = &mut root
    {
        map.insert("$defs".to_owned(), Value::Object(local.into_iter().collect()));
    }
    fold_all_of(&mut root);
    root
}

/// `allOf` whose members became inline schemas (a `$ref` with its own description, say, once
/// the shape it named was inlined) merged into one schema wherever that is exact: the same
/// constraints, fewer tokens.
fn fold_all_of(v: &mut Value) {
    for_each_subschema_mut(v, &mut fold_all_of);
    if let Value::Object(map) = v
        && map.contains_key("allOf")
    {
        crate::resolve::schema::merge_all_of(map);
    }
}

fn owned_refs(v: &Value) -> Vec<String> {
    let mut refs = Vec::new();
    collect_refs(v, &mut refs);
    refs.into_iter().map(str::to_owned).collect()
}

/// Replaces every reference to a def outside `kept` by a placeholder that says what it stood
/// for and keeps its `type`.
fn stub_refs(v: &mut Value, kept: &BTreeSet<&str>, defs: &BTreeMap<String, Value>) {
    if let Some(name) = def_name(v).map(str::to_owned)
        && !kept.contains(name.as_str())
        && let Value::Object(map) = v
    {
        map.shift_remove("$ref");
        if let Some(t) = defs.get(&name).and_then(|d| d.get("type")) {
            map.entry("type").or_insert_with(|| t.clone());
        }
        map.entry("description")
            .or_insert_with(|| json!(format!("A {name} (its schema is left out to keep this output schema small).")));
        return;
    }
    for_each_subschema_mut(v, &mut |child| stub_refs(child, kept, defs));
}

fn is_annotation(key: &str) -> bool {
    matches!(key, "title" | "description" | "examples" | "default" | "deprecated" | "$comment")
}

fn json_size(v: &Value) -> usize {
    serde_json::to_vec(v).map_or(0, |b| b.len())
}

/// How deep (in subschema levels) a shape is inlined; below, a def used once stays a def.
/// Inlining a long chain of single-use shapes would otherwise nest a schema as deep as the chain
/// is long (a stack overflow for every consumer, and past what JSON parsers accept).
const MAX_INLINE_DEPTH: usize = 24;

/// Whether a def takes no more bytes written out than a reference to it, and refers to nothing.
fn is_tiny(name: &str, value: &Value) -> bool {
    let reference = json!({"$ref": format!("#/$defs/{name}")});
    json_size(value) <= json_size(&reference) && owned_refs(value).is_empty()
}

/// Writes each tiny def out wherever it is referenced.
fn inline_tiny(v: &mut Value, tiny: &BTreeMap<String, Value>) {
    if let Some(target) = def_name(v).and_then(|n| tiny.get(n)) {
        *v = substituted(v, target.clone());
        return;
    }
    for_each_subschema_mut(v, &mut |child| inline_tiny(child, tiny));
}

/// Replaces references to the defs in `pending` with their content (annotations beside the
/// `$ref`, such as a description, take precedence), recursively. A def met at
/// [`MAX_INLINE_DEPTH`] is moved to `deferred` and its reference kept.
fn expand(v: &mut Value, pending: &mut BTreeMap<String, Value>, depth: usize, deferred: &mut BTreeMap<String, Value>) {
    if let Some(name) = def_name(v).map(str::to_owned)
        && let Some(target) = pending.remove(&name)
    {
        if depth >= MAX_INLINE_DEPTH {
            deferred.insert(name, target);
            return;
        }
        let mut replacement = substituted(v, target);
        expand(&mut replacement, pending, depth, deferred);
        *v = replacement;
        return;
    }
    for_each_subschema_mut(v, &mut |child| expand(child, pending, depth + 1, deferred));
}

/// A `$ref` node with its target written in its place: the node's other keywords go beside the
/// target's.
fn substituted(node: &Value, target: Value) -> Value {
    let siblings: Map<String, Value> = match node {
        Value::Object(map) => map.iter().filter(|(k, _)| *k != "$ref").map(|(k, v)| (k.clone(), v.clone())).collect(),
        _ => Map::new(),
    };
    match target {
        // Siblings that only annotate win over the target's; a sibling constraint on a key
        // the target also has (a discriminator pin beside a `$ref`, say) must not replace
        // it, so then the target goes under `allOf` and both apply, as they did.
        Value::Object(t) if siblings.keys().any(|k| t.contains_key(k) && !is_annotation(k)) => {
            let mut wrapper = siblings;
            match wrapper.get_mut("allOf") {
                Some(Value::Array(all)) => all.push(Value::Object(t)),
                _ => {
                    wrapper.insert("allOf".to_owned(), Value::Array(vec![Value::Object(t)]));
                }
            }
            Value::Object(wrapper)
        }
        Value::Object(mut t) => {
            t.extend(siblings);
            Value::Object(t)
        }
        // `true` with annotations needs an object; `false` stays `false`.
        Value::Bool(true) => Value::Object(siblings),
        other => other,
    }
}

/// Defs on a cycle (Tarjan's strongly connected components, iterative): they must stay defs,
/// or expansion would never end.
fn cyclic(edges: &BTreeMap<String, Vec<String>>) -> BTreeSet<String> {
    let names: Vec<&str> = edges.keys().map(String::as_str).collect();
    let index_of: BTreeMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let succ: Vec<Vec<usize>> =
        edges.values().map(|e| e.iter().filter_map(|t| index_of.get(t.as_str()).copied()).collect()).collect();
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

/// Whether each def is, at its root, (server-assigned, writeOnly).
fn local_snapshot(local: &BTreeMap<String, Value>) -> BTreeMap<String, (bool, bool)> {
    local
        .iter()
        .map(|(k, v)| (k.clone(), (server_assigned(v), v.get("writeOnly") == Some(&Value::Bool(true)))))
        .collect()
}

/// Removes properties that do not belong in this direction, and their `required` entries.
fn strip(schema: &mut Value, direction: Direction, flags: &BTreeMap<String, (bool, bool)>) {
    if direction == Direction::Neither {
        return;
    }
    let hidden = |prop: &Value| {
        let own = match direction {
            Direction::Input => server_assigned(prop),
            _ => prop.get("writeOnly") == Some(&Value::Bool(true)),
        };
        own || def_name(prop).and_then(|n| flags.get(n)).is_some_and(|(ro, wo)| match direction {
            Direction::Input => *ro,
            _ => *wo,
        })
    };
    if let Value::Object(map) = schema {
        if direction == Direction::Output {
            open_for_answers(map);
        }
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

/// An output schema describes answers that the upstream may widen without a new version (a
/// field added to a response is the additive change every API makes), and clients reject a
/// structured result its schema does not admit. So outputs do not close objects
/// (`additionalProperties`/`unevaluatedProperties: false` go), and `oneOf` reads as `anyOf`:
/// once objects are open, an answer may fit two branches, which is no error in an answer.
fn open_for_answers(map: &mut Map<String, Value>) {
    for key in ["additionalProperties", "unevaluatedProperties"] {
        if map.get(key) == Some(&Value::Bool(false)) {
            map.shift_remove(key);
        }
    }
    if let Some(branches) = map.shift_remove("oneOf") {
        match map.get_mut("anyOf") {
            // Both on one schema: the answer must match one of each; keep the pair as allOf.
            Some(_) => {
                let all = map.entry("allOf").or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(all) = all {
                    all.push(json!({"anyOf": branches}));
                }
            }
            None => {
                map.insert("anyOf".to_owned(), branches);
            }
        }
    }
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
        finish(root, &Prepared::new(d, direction), None, false).0
    }

    #[test]
    fn outputs_admit_fields_an_answer_adds_and_inputs_stay_closed() {
        let d = defs(json!({
            "Msg": {"type": "object", "additionalProperties": false, "properties": {
                "ok": {"type": "boolean"},
                "item": {"oneOf": [{"$ref": "#/$defs/File"}, {"type": "string"}]}}},
            "File": {"type": "object", "unevaluatedProperties": false, "properties": {"id": {"type": "string"}}}
        }));
        let root = json!({"$ref": "#/$defs/Msg"});
        let out = fin(root.clone(), &d, Direction::Output);
        let text = out.to_string();
        assert!(!text.contains("additionalProperties") && !text.contains("unevaluatedProperties"), "{out}");
        assert!(!text.contains("oneOf") && text.contains("anyOf"), "{out}");
        // An answer with a field the spec does not list yet, whose item fits both branches once
        // objects are open, is admitted.
        let answer = json!({"ok": true, "warning": "superfluous_charset", "item": {"id": "F1", "name": "a.txt"}});
        assert!(jsonschema::validator_for(&out).unwrap().is_valid(&answer));
        let input = fin(root, &d, Direction::Input);
        assert!(input.to_string().contains(r#""additionalProperties":false"#), "{input}");
        assert!(input.to_string().contains("oneOf"), "{input}");
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
    fn a_shape_no_larger_than_its_reference_is_written_out_at_every_use() {
        // AWS: `String` is `{type: string}`, referenced under a hundred descriptions.
        let d = defs(json!({"String": {"type": "string"}, "Long": {"type": "string", "pattern": "^[0-9]{1,19}$"}}));
        let described = |text: &str| json!({"allOf": [{"$ref": "#/$defs/String"}, {"description": text}]});
        let root = json!({"type": "object", "properties": {
            "name": described("The name."), "values": {"type": "array", "items": {"$ref": "#/$defs/String"}},
            "a": {"$ref": "#/$defs/Long"}, "b": {"$ref": "#/$defs/Long"}}});
        let out = fin(root, &d, Direction::Input);
        assert_eq!(out["properties"]["name"], json!({"type": "string", "description": "The name."}));
        assert_eq!(out["properties"]["values"]["items"], json!({"type": "string"}));
        // A shape larger than a reference stays shared.
        assert_eq!(out["properties"]["a"], json!({"$ref": "#/$defs/Long"}));
        assert_eq!(out["$defs"].as_object().unwrap().keys().collect::<Vec<_>>(), ["Long"]);
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
