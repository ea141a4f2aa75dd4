//! `allOf` folded into one schema, for the variants whose providers reject it. Exact where the
//! members agree or constrain different keywords; a keyword two members set differently keeps
//! the first member's value and is reported (the server still checks every member).

use serde_json::{Map, Value};

use super::walk::At;
use super::{Action, Losses, is_annotation};
use crate::diag::unescape_token;

/// `map` with its `allOf` members (references resolved in `defs`) merged into it.
pub fn fold_all_of(
    map: &Map<String, Value>,
    defs: Option<&Map<String, Value>>,
    at: &At,
    losses: &mut Losses,
) -> Map<String, Value> {
    let mut out = map.clone();
    let Some(Value::Array(members)) = out.shift_remove("allOf") else { return out };
    for (i, member) in members.iter().enumerate() {
        let member = resolve(member, defs, 0);
        let Some(member) = member.as_object() else { continue };
        let member = fold_all_of(member, defs, &at.child("allOf", Some(&i.to_string())), losses);
        for (k, v) in member {
            match (k.as_str(), out.get_mut(&k)) {
                (_, None) => {
                    out.insert(k, v);
                }
                ("properties", Some(Value::Object(props))) => {
                    for (name, schema) in v.as_object().into_iter().flatten() {
                        props.entry(name.clone()).or_insert_with(|| schema.clone());
                    }
                }
                ("required", Some(Value::Array(names))) => {
                    for name in v.as_array().into_iter().flatten() {
                        if !names.contains(name) {
                            names.push(name.clone());
                        }
                    }
                }
                (k, Some(_)) if is_annotation(k) => {}
                (_, Some(existing)) if *existing == v => {}
                (_, Some(_)) => {
                    losses.push(&at.field, &format!("{}/allOf/{i}/{k}", at.pointer), &k, &v, Action::Dropped);
                }
            }
        }
    }
    out
}

/// A member that is a reference to a def, replaced by the def (a few levels at most).
fn resolve<'a>(schema: &'a Value, defs: Option<&'a Map<String, Value>>, depth: usize) -> &'a Value {
    let name = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"));
    match (name, defs) {
        (Some(name), Some(defs)) if depth < 8 => {
            defs.get(&unescape_token(name)).map_or(schema, |target| resolve(target, Some(defs), depth + 1))
        }
        _ => schema,
    }
}
