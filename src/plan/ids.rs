//! D2: an argument that takes an id says which tool returns such ids, so the model does not
//! guess them. An argument is linked to a tool that lists a collection when it is
//! - a path parameter right under that collection (`/customers/{customer}/sources/{id}`: both),
//! - named `<noun>_id` after the collection's noun (a body's `user_id`), or
//! - named the noun itself (Stripe's `customer`, `charge`) and known to hold one id: a string or
//!   integer whose description says it is an id, or a field the API's own objects hold as an id
//!   of that collection's items (`"customer": {"anyOf": [string, customer]}`, an expandable
//!   reference). A bare `customer` that is a name or an address is not linked;
//! - a whole resource name (`/v1/{name}`, Google's AIP-121 style) whose dotted operationId
//!   names the resource that a `….list` operation lists.
//!
//! The id a create chooses for its new item (`POST …/workstations?workstationId=`) is not linked
//! to the list of the collection it posts to.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::{OperationRef, Target, Tool, describe, naming};
use crate::resolve::schema::def_name;
use crate::resolve::{Defs, Method, template_names};

/// How segments under a collection that search it or list its ids begin.
const SEARCHES: &[&str] = &["search", "find", "query", "filter", "list", "all", "ids"];

/// A tool that lists a collection.
struct List {
    path: String,
    /// Its path parameters: a tool without them cannot call it.
    params: Vec<String>,
    tool: String,
    /// The def each item is, when the items are one named shape.
    item: Option<String>,
}

pub(super) fn link_ids(tools: &mut [Tool], defs: &Defs) {
    // Each collection a tool lists (every route of a merged one), with the tool's name.
    let lists: Vec<List> = tools
        .iter()
        .flat_map(|t| t.calls().iter().map(move |r| (r, &t.name)))
        .filter(|(r, _)| r.operation.method == Method::Get && !bare_route(&r.operation.path).ends_with('}'))
        .filter_map(|(r, name)| {
            let item = listed_items(r, defs)?;
            let path = r.operation.path.clone();
            Some(List { params: template_names(&path), path, tool: name.clone(), item: item.map(str::to_owned) })
        })
        .collect();
    // Lists named by a dotted operationId (`workstations.projects.locations.clusters.list`),
    // by the resource they list.
    let by_resource: BTreeMap<String, String> = tools
        .iter()
        .flat_map(|t| t.calls().iter().map(move |r| (r, &t.name)))
        .filter(|(r, _)| r.operation.method == Method::Get)
        .filter_map(|(r, name)| {
            let resource = r.operation.operation_id.as_deref()?.strip_suffix(".list")?;
            resource.contains('.').then(|| (resource.to_owned(), name.clone()))
        })
        .collect();
    link_path_params(tools, &lists, &by_resource);
    link_named_args(tools, &lists, defs);
}

/// Path parameters: the tool that lists the collection the parameter sits under: the
/// collection itself, else a search endpoint right under it ([`lists_all`]). A parameter
/// before the last one counts only when a static segment follows it: in
/// `/customers/{customer}/sources/{id}` both are ids of listed items, in
/// `/repos/{owner}/{repo}` the owner is no repository.
fn link_path_params(tools: &mut [Tool], lists: &[List], by_resource: &BTreeMap<String, String>) {
    let list_for = |path: &str, param: &str, operation_id: Option<&str>| -> Option<String> {
        let placeholder = format!("/{{{param}}}");
        let cut = path.rfind(&placeholder)?;
        let rest = &path[cut + placeholder.len()..];
        // What follows: nothing, a custom method or format (`:cancel`, `.json`), or a static
        // segment.
        let item = match rest.chars().next() {
            None => true,
            Some(':' | '.') => !rest.contains('/'),
            Some('/') => !rest[1..].starts_with('{'),
            Some(_) => false,
        };
        if !item {
            return None;
        }
        let collection = &path[..cut];
        let exact = lists.iter().find(|l| bare_route(&l.path) == collection);
        let under = || {
            lists
                .iter()
                .filter(|l| {
                    bare_route(&l.path)
                        .strip_prefix(collection)
                        .and_then(|p| p.strip_prefix('/'))
                        .is_some_and(lists_all)
                })
                .min_by(|a, b| a.tool.cmp(&b.tool))
        };
        exact
            .or_else(under)
            .map(|l| l.tool.clone())
            .or_else(|| resource_list(collection, rest, operation_id?, by_resource))
    };
    for t in tools.iter_mut() {
        // Each operation a tool calls (a merged tool's every route, so a 404 on any of them
        // names where its ids come from, E4); the hint goes on the tool's argument.
        let tool_name = t.name.clone();
        let mut hints = Vec::new();
        for r in t.calls_mut() {
            let params = template_names(&r.operation.path);
            for (i, param) in params.iter().enumerate() {
                let Some(list_name) = list_for(&r.operation.path, param, r.operation.operation_id.as_deref()) else {
                    continue;
                };
                if list_name == tool_name || list_name == r.name {
                    continue;
                }
                let arg = r.args.iter().find(|a| matches!(&a.target, Target::Path { name, .. } if name == param));
                hints.extend(arg.map(|a| (a.name.clone(), describe::id_hint(&list_name))));
                // A 404 names the list of the last parameter's ids: the item not found.
                if i + 1 == params.len() {
                    r.list_tool = Some(list_name);
                }
            }
        }
        if !t.routes.is_empty() {
            t.list_tool = t.routes[0].list_tool.clone();
        }
        for (arg, hint) in hints {
            if let Some(arg) = t.args.iter_mut().find(|a| a.name == arg) {
                add_hint(&mut arg.schema, &hint);
            }
        }
    }
}

/// A whole resource name in the route (`/v1/{name}`, `/v1/{parent}/workstations`: the one
/// parameter, right after the version; `before` and `after` are the route around it), read by
/// the operation's dotted id: the `name` of
/// `….workstations.get` is a workstation, which `….workstations.list` returns; the `parent` of
/// `….workstations.list` (a static segment follows it) is the item one level up, which
/// `….workstationConfigs.list` returns.
fn resource_list(
    before: &str,
    after: &str,
    operation_id: &str,
    by_resource: &BTreeMap<String, String>,
) -> Option<String> {
    if before.trim_matches('/').contains('/') || before.contains('{') || after.contains('{') {
        return None;
    }
    let (resource, _method) = operation_id.rsplit_once('.')?;
    let resource = if after.starts_with('/') { resource.rsplit_once('.')?.0 } else { resource };
    by_resource.get(resource).cloned()
}

/// Arguments elsewhere (query, header, body) named `<noun>_id`, or `<noun>` and holding an id:
/// the tool that lists that noun. Where several collections end in the noun
/// (`/terminal/configurations`, `/billing_portal/configurations`), the one whose items the API
/// refers to by that field, then one the tool's own path parameters can call (not a role's
/// permissions for a tool without the role), then the one sharing most of the tool's route,
/// then the shortest, then by name.
fn link_named_args(tools: &mut [Tool], lists: &[List], defs: &Defs) {
    // Nouns are computed once per list, not per argument.
    let mut by_noun: BTreeMap<String, Vec<&List>> = BTreeMap::new();
    for l in lists {
        let Some(noun) = collection_noun(&l.path) else { continue };
        by_noun.entry(noun).or_default().push(l);
    }
    let references = id_references(defs);
    for t in tools.iter_mut() {
        let route = t.operation.path.clone();
        let params = template_names(&route);
        let returns = t.output.as_ref().and_then(def_name).map(str::to_owned);
        let creates = created_noun(&t.operation);
        // The fields of a create's answer (only a create's are asked about, below).
        let answers: Option<&serde_json::Map<String, Value>> = creates
            .as_ref()
            .and(t.output.as_ref())
            .and_then(|o| defs.follow(o).get("properties"))
            .and_then(Value::as_object);
        for arg in t.args.iter_mut().filter(|a| !matches!(a.target, Target::Path { .. })) {
            let (noun, bare) = arg_noun(&arg.name);
            let noun = noun.as_str();
            let Some(candidates) = by_noun.get(noun) else { continue };
            // A create whose answer identifies itself by the argument's field names the new item
            // (DocuSign's `POST …/envelopes` body and answer both hold `envelopeId`): no list
            // returns that id yet, and another list's would be wrong. An answer with an `id` of
            // its own is a link to the item the argument names (OnSched's `POST
            // /services/calendar` answers `{id, calendarId, serviceId}`): that id has a list.
            if creates.as_deref() == Some(noun)
                && answers.is_some_and(|a| a.contains_key(&arg.name) && !a.keys().any(|k| k.eq_ignore_ascii_case("id")))
            {
                continue;
            }
            // A post to the collection of this noun: its own list holds the items already
            // there, not the one being created (Google's `workstationId`) nor one being added
            // (`POST /checks/{id}/labels`'s `labelID`, which `/labels` lists).
            let own = |l: &List| creates.as_deref() == Some(noun) && bare_route(&l.path) == bare_route(&route);
            let referred = |l: &List| {
                l.item.as_deref().is_some_and(|item| {
                    returns.as_deref() != Some(item) && refers(&references, noun, item, &arg.schema, defs)
                })
            };
            if bare
                && (naming::singular(noun) != noun
                    || !holds_one_value(&arg.schema, defs)
                    || !(described_as_id(&arg.schema, defs) || candidates.iter().any(|l| referred(l))))
            {
                continue;
            }
            let best = candidates.iter().filter(|l| l.tool != t.name && !own(l)).min_by_key(|l| {
                let callable = l.params.iter().all(|p| params.contains(p));
                (!referred(l), !callable, std::cmp::Reverse(shared_segments(&l.path, &route)), l.path.len(), &l.tool)
            });
            if let Some(list) = best {
                add_hint(&mut arg.schema, &describe::id_hint(&list.tool));
            }
        }
    }
}

/// Whether a segment under a collection searches it or lists all of it: `/products/search`,
/// `/quotes/ids`, Docker's `/containers/json`.
fn lists_all(segment: &str) -> bool {
    let lower = segment.to_ascii_lowercase();
    !segment.contains(['/', '{']) && (naming::is_format(segment) || SEARCHES.iter().any(|s| lower.starts_with(s)))
}

/// A route as a collection: `/pets/` and Twilio's `/Calls.json` list what `/pets/{id}/` and
/// `/Calls/{Sid}.json` read.
fn bare_route(path: &str) -> &str {
    naming::without_format(path.trim_end_matches('/'))
}

/// The noun of what a post to a collection creates: such a tool may name the id of its new
/// item (Google's `POST …/workstations?workstationId=`), which no list returns yet.
fn created_noun(op: &OperationRef) -> Option<String> {
    if op.method == Method::Post { collection_noun(&op.path) } else { None }
}

/// Whether `arg` of a tool may be the id of the item the tool creates (the caller chooses it),
/// so that no list need return it.
pub(crate) fn names_new_item(tool: &Tool, arg: &str) -> bool {
    created_noun(&tool.operation).is_some_and(|n| n == arg_noun(arg).0)
}

/// The noun an argument names (`user_id`, `userId`: `user`) and whether it is the noun alone
/// (`customer`).
fn arg_noun(arg: &str) -> (String, bool) {
    let snake = heck::ToSnakeCase::to_snake_case(arg);
    match snake.strip_suffix("_id").filter(|n| !n.is_empty()) {
        Some(noun) => (noun.to_owned(), false),
        None => (snake, true),
    }
}

/// The singular noun of a collection route's last segment (`/v1/{parent}/workstations`:
/// `workstation`), if it ends in a static one.
fn collection_noun(path: &str) -> Option<String> {
    let last = bare_route(path).rsplit('/').next().filter(|s| !s.is_empty() && !s.starts_with('{'))?;
    Some(naming::singular(&heck::ToSnakeCase::to_snake_case(last)))
}

/// How many leading segments two routes share.
fn shared_segments(a: &str, b: &str) -> usize {
    a.split('/').zip(b.split('/')).skip(1).take_while(|(x, y)| x == y).count()
}

/// One string or integer: not a choice of values, not a file, not an object or a list.
fn holds_one_value(schema: &Value, defs: &Defs) -> bool {
    let shape = defs.follow(schema);
    let types = types(shape);
    let scalar = types.iter().any(|t| matches!(*t, "string" | "integer"))
        && types.iter().all(|t| matches!(*t, "string" | "integer" | "null"));
    let choice = shape.get("enum").is_some() || shape.get("const").is_some();
    let file = shape.get("format") == Some(&json!("binary")) || shape.get("contentEncoding").is_some();
    scalar && !choice && !file
}

/// The types a schema's `type` names (one, or a list).
fn types(shape: &Value) -> Vec<&str> {
    match shape.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether an argument's description says it is an id ("The ID of the price").
fn described_as_id(schema: &Value, defs: &Defs) -> bool {
    [schema, defs.follow(schema)]
        .iter()
        .filter_map(|s| s.get("description").and_then(Value::as_str))
        .any(|d| says_id(&describe::first_sentences(d, 1)))
}

/// Whether the API's objects hold `field` as an id of `item` of the argument's own type.
fn refers(references: &References<'_>, field: &str, item: &str, schema: &Value, defs: &Defs) -> bool {
    types(defs.follow(schema)).into_iter().any(|ty| references.contains(&(field, item, ty)))
}

/// Whether a sentence calls something an id ("The ID of the price", "the payout ID"). A word
/// inside a format the text spells out (flat.io's comment "mentions using the following format:
/// @[id:username]") is not the sentence calling the argument an id.
fn says_id(sentence: &str) -> bool {
    const WORDS: &[&str] = &["ID", "IDs", "Id", "id", "ids", "identifier", "identifiers", "Identifier"];
    let mut words = sentence.char_indices().filter(|(i, c)| {
        c.is_ascii_alphanumeric() && !sentence[..*i].chars().next_back().is_some_and(|p| p.is_ascii_alphanumeric())
    });
    words.any(|(i, _)| {
        let len = sentence[i..].find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(sentence.len() - i);
        let before = sentence[..i].chars().next_back();
        let mut rest = sentence[i + len..].chars();
        let (after, then) = (rest.next(), rest.next());
        // `[id`, `{id}`, `id=`, `id:username`; not "The payout ID: …".
        let placeholder = matches!(before, Some('[' | '{' | '<'))
            || matches!(after, Some('=' | ']' | '}' | '>'))
            || (after == Some(':') && then.is_some_and(|c| !c.is_whitespace()));
        !placeholder && WORDS.contains(&&sentence[i..i + len])
    })
}

/// `(field, def, type)` for every field of the API's named objects that holds either an id of
/// that `type` or the `def` object itself: Stripe's expandable
/// `"customer": {"anyOf": [{"type": "string"}, customer]}`.
type References<'d> = BTreeSet<(&'d str, &'d str, &'d str)>;

fn id_references(defs: &Defs) -> References<'_> {
    let mut out = BTreeSet::new();
    for schema in defs.schemas.values() {
        let Some(props) = schema.get("properties").and_then(Value::as_object) else { continue };
        for (field, prop) in props {
            let mut alternatives = Vec::new();
            flatten_alternatives(prop, 0, &mut alternatives);
            let scalars: Vec<&str> = alternatives
                .iter()
                .filter_map(|a| a.get("type").and_then(Value::as_str))
                .filter(|t| matches!(*t, "string" | "integer"))
                .collect();
            for def in alternatives.iter().filter_map(|a| def_name(a)) {
                for ty in &scalars {
                    out.insert((field.as_str(), def, *ty));
                }
            }
        }
    }
    out
}

/// The members of nested `anyOf`/`oneOf` (a nullable reference wraps one in another).
fn flatten_alternatives<'a>(schema: &'a Value, depth: usize, out: &mut Vec<&'a Value>) {
    let members = ["anyOf", "oneOf"].iter().filter_map(|k| schema.get(*k).and_then(Value::as_array)).flatten();
    let mut any = false;
    for m in members {
        any = true;
        if depth < 4 {
            flatten_alternatives(m, depth + 1, out);
        }
    }
    if !any {
        out.push(schema);
    }
}

/// Appends the id source to an argument's description (D2).
fn add_hint(schema: &mut Value, hint: &str) {
    let Value::Object(map) = schema else { return };
    let text = match map.get("description").and_then(Value::as_str).filter(|d| !d.trim().is_empty()) {
        Some(d) if d.contains("returned by") => return,
        Some(d) => format!("{} {hint}", describe::sentence(d)),
        None => hint.to_owned(),
    };
    map.insert("description".to_owned(), Value::String(text));
}

/// Whether a tool's success response is a list of items (an array, or an object holding one),
/// and then which def the items are, if one.
fn listed_items<'d>(t: &Tool, defs: &'d Defs) -> Option<Option<&'d str>> {
    let out = t.output.as_ref()?;
    let shape = defs.follow(out);
    let is_array = |s: &Value| s.get("type") == Some(&json!("array")) || s.get("items").is_some();
    let item = |s: &Value| -> Option<&'d str> {
        let items = s.get("items")?;
        let name = def_name(items)?;
        defs.schemas.get_key_value(name).map(|(k, _)| k.as_str())
    };
    if is_array(shape) {
        return Some(item(shape));
    }
    let props = shape.get("properties").and_then(Value::as_object)?;
    let arrays: Vec<&Value> = props.values().map(|p| defs.follow(p)).filter(|p| is_array(p)).collect();
    match arrays.as_slice() {
        [] => None,
        [one] => Some(item(one)),
        _ => Some(None),
    }
}

#[cfg(test)]
mod tests {
    use super::says_id;

    #[test]
    fn a_sentence_says_id_outside_a_format_it_spells_out() {
        assert!(says_id("The ID of the price."));
        assert!(says_id("The payout ID, as returned (an opaque string)."));
        assert!(says_id("Identifier of the customer."));
        assert!(!says_id("The comment text, with mentions in the format @[id:username]."));
        assert!(!says_id("A template such as {id} or <id>."));
        assert!(!says_id("The idle timeout."));
        assert!(says_id("L’ID du client … id"));
        assert!(says_id("The payout ID: as returned."));
    }
}
