//! Mega-endpoints (CONTRACT T2, I4): operations whose behaviour is chosen by a value, such as
//! `POST /users/manage {action: create|update_role|delete, …}` or a `oneOf` body with a
//! discriminator. Each behaviour becomes one atomic tool with the selecting value fixed and sent
//! upstream and, where the spec says which fields a behaviour takes (a `oneOf` branch), only
//! those fields.

use serde_json::{Map, Value};

use super::naming;
use crate::resolve::{Defs, Method, Operation, ParamLocation};

/// Property and parameter names that select a behaviour whatever their values (lint T2 flags
/// the ones left unsplit).
pub const SELECTORS: &[&str] = &["action", "op", "operation", "command", "cmd", "verb"];
/// Names that select a behaviour only when every value is a verb (`type: create|delete`); a
/// `type: checking|savings` is data.
const VERB_SELECTORS: &[&str] = &["type", "kind", "mode"];
/// More values than this is a dispatcher too large to split blindly (lint T2 reports it).
pub const MAX_VARIANTS: usize = 12;

/// Verbs a behaviour value may start with.
pub const VERBS: &[&str] = &[
    "accept",
    "activate",
    "add",
    "approve",
    "archive",
    "assign",
    "block",
    "cancel",
    "capture",
    "change",
    "charge",
    "close",
    "complete",
    "confirm",
    "copy",
    "create",
    "deactivate",
    "decline",
    "delete",
    "disable",
    "enable",
    "export",
    "finalize",
    "get",
    "grant",
    "import",
    "invite",
    "list",
    "lock",
    "merge",
    "move",
    "open",
    "pause",
    "publish",
    "reactivate",
    "refund",
    "reject",
    "remove",
    "rename",
    "reopen",
    "reset",
    "restore",
    "resume",
    "retry",
    "revoke",
    "send",
    "set",
    "start",
    "stop",
    "submit",
    "suspend",
    "transfer",
    "unarchive",
    "unassign",
    "unblock",
    "unlock",
    "unpublish",
    "update",
    "upload",
    "verify",
    "void",
];

/// Where the selecting value goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// A top-level property of the JSON body.
    Body(String),
    /// A query parameter.
    Query(String),
}

impl Selector {
    /// The `fixed` key an overlay writes for it.
    pub fn key(&self) -> String {
        match self {
            Selector::Body(p) => format!("body.{p}"),
            Selector::Query(p) => format!("query.{p}"),
        }
    }

    pub fn field(&self) -> &str {
        match self {
            Selector::Body(p) | Selector::Query(p) => p,
        }
    }
}

/// One behaviour of a mega-endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    pub value: Value,
    /// The tool name this behaviour gets by default.
    pub name: String,
    /// The body schema of this behaviour (a `oneOf` branch), when the spec gives one.
    pub body: Option<Value>,
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    pub selector: Selector,
    pub variants: Vec<Variant>,
}

impl Split {
    pub fn variant(&self, value: &Value) -> Option<&Variant> {
        self.variants.iter().find(|v| v.value == *value)
    }
}

/// The behaviours an operation dispatches on, if it is a mega-endpoint. Reads (GET, HEAD) filter,
/// they do not dispatch.
pub fn detect(op: &Operation, defs: &Defs) -> Option<Split> {
    let (selector, values, branches) = find(op, defs)?;
    if values.len() < 2 || values.len() > MAX_VARIANTS {
        return None;
    }
    let noun = noun(op);
    let variants = values
        .iter()
        .map(|value| {
            let branch = branches.as_ref().and_then(|b| b.iter().find(|(v, _)| v == value)).map(|(_, s)| s.clone());
            let description = branch
                .as_ref()
                .and_then(|b| b.get("description").or_else(|| b.get("title")))
                .and_then(Value::as_str)
                .map(str::to_owned);
            Variant {
                name: name(value.as_str().unwrap_or_default(), &noun),
                value: value.clone(),
                body: branch,
                description,
            }
        })
        .collect();
    Some(Split { selector, variants })
}

type Found = (Selector, Vec<Value>, Option<Vec<(Value, Value)>>);

fn find(op: &Operation, defs: &Defs) -> Option<Found> {
    if matches!(op.method, Method::Get | Method::Head | Method::Options | Method::Trace) {
        return None;
    }
    let found = find_selector(op, defs)?;
    // A value is a behaviour when the endpoint is a dispatcher (`/users/manage`, `manageUser`)
    // or every value is a verb; otherwise it is data (a task's `action: review`, a payment
    // method's `type: card`), and lint reports the candidate instead.
    let verbs = found.1.iter().all(|v| v.as_str().is_some_and(|s| VERBS.contains(&first_word(s).as_str())));
    (dispatcher(op) || verbs).then_some(found)
}

/// Operation words that name a dispatcher rather than one behaviour.
const DISPATCH_VERBS: &[&str] = &["manage", "handle", "process", "perform", "execute", "dispatch", "do", "run"];

/// An endpoint whose path or operationId says it dispatches.
fn dispatcher(op: &Operation) -> bool {
    let segment = op.path.split('/').any(|s| DISPATCH.contains(&s.to_ascii_lowercase().as_str()));
    let id = op
        .operation_id
        .as_deref()
        .map(heck::ToSnakeCase::to_snake_case)
        .is_some_and(|id| DISPATCH_VERBS.contains(&id.split('_').next().unwrap_or_default()));
    segment || id
}

fn find_selector(op: &Operation, defs: &Defs) -> Option<Found> {
    if let Some(body) = &op.body {
        let shape = defs.follow(&body.schema);
        if let Some(found) = discriminated(shape, defs) {
            return Some(found);
        }
        if let Some(props) = shape.get("properties").and_then(Value::as_object) {
            for (name, schema) in props {
                if let Some(values) = selector_values(name, defs.follow(schema)) {
                    return Some((Selector::Body(name.clone()), values, None));
                }
            }
        }
    }
    for p in &op.parameters {
        if p.location == ParamLocation::Query
            && p.required
            && let Some(values) = selector_values(&p.name, defs.follow(&p.schema))
        {
            return Some((Selector::Query(p.name.clone()), values, None));
        }
    }
    None
}

/// String values of a selecting enum.
fn selector_values(name: &str, schema: &Value) -> Option<Vec<Value>> {
    let lower = name.to_ascii_lowercase();
    let by_name = SELECTORS.contains(&lower.as_str());
    if !by_name && !VERB_SELECTORS.contains(&lower.as_str()) {
        return None;
    }
    let values = schema.get("enum")?.as_array()?;
    if !values.iter().all(|v| v.as_str().is_some_and(plain_value)) {
        return None;
    }
    if !by_name && !values.iter().all(|v| v.as_str().is_some_and(|s| VERBS.contains(&first_word(s).as_str()))) {
        return None;
    }
    Some(values.clone())
}

fn plain_value(s: &str) -> bool {
    !s.is_empty() && s.len() <= 40 && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// A `oneOf`/`anyOf` body whose branches each fix one property to a different string: the
/// discriminator (the resolver pins mapped values as `const` on each branch).
fn discriminated(shape: &Value, defs: &Defs) -> Option<Found> {
    let branches = shape.get("oneOf").or_else(|| shape.get("anyOf"))?.as_array()?;
    let named = shape.get("discriminator").and_then(|d| d.get("propertyName")).and_then(Value::as_str);
    let flat: Vec<Map<String, Value>> = branches.iter().map(|b| flatten(b, defs)).collect::<Option<_>>()?;
    let candidates: Vec<String> = match named {
        Some(p) => vec![p.to_owned()],
        None => flat.first()?.get("properties")?.as_object()?.keys().cloned().collect(),
    };
    'property: for property in candidates {
        let mut pairs = Vec::new();
        for (branch, original) in flat.iter().zip(branches) {
            let Some(prop) = branch.get("properties").and_then(|p| p.get(&property)) else { continue 'property };
            let prop = defs.follow(prop);
            let value = match (prop.get("const"), prop.get("enum").and_then(Value::as_array)) {
                (Some(v), _) => v.clone(),
                (None, Some(e)) if e.len() == 1 => e[0].clone(),
                _ => continue 'property,
            };
            if !value.as_str().is_some_and(plain_value) || pairs.iter().any(|(v, _)| *v == value) {
                continue 'property;
            }
            let mut schema = Value::Object(branch.clone());
            if let (Some(d), Value::Object(m)) = (defs.follow(original).get("description"), &mut schema) {
                m.entry("description").or_insert_with(|| d.clone());
            }
            pairs.push((value, schema));
        }
        let values = pairs.iter().map(|(v, _)| v.clone()).collect();
        return Some((Selector::Body(property), values, Some(pairs)));
    }
    None
}

/// A branch as one plain object schema: `$ref`s followed and an `allOf` of plain objects merged.
/// `None` when the branch needs more than properties and `required` to say what it is.
pub fn flatten(schema: &Value, defs: &Defs) -> Option<Map<String, Value>> {
    let shape = defs.follow(schema).as_object()?;
    let mut out = Map::new();
    let mut properties = Map::new();
    let mut required: Vec<Value> = Vec::new();
    let mut absorb = |m: &Map<String, Value>, out: &mut Map<String, Value>| -> Option<()> {
        for (k, v) in m {
            match k.as_str() {
                "properties" => {
                    for (name, s) in v.as_object()? {
                        properties.insert(name.clone(), s.clone());
                    }
                }
                "required" => {
                    for r in v.as_array()? {
                        if !required.contains(r) {
                            required.push(r.clone());
                        }
                    }
                }
                "type" if v == "object" => {}
                "description" | "title" | "additionalProperties" | "example" | "examples" => {
                    out.entry(k.clone()).or_insert_with(|| v.clone());
                }
                "allOf" => {}
                _ => return None,
            }
        }
        Some(())
    };
    absorb(shape, &mut out)?;
    if let Some(all) = shape.get("allOf").and_then(Value::as_array) {
        for part in all {
            let part = defs.follow(part).as_object()?;
            if part.contains_key("allOf") {
                return None;
            }
            absorb(part, &mut out)?;
        }
    }
    out.insert("type".to_owned(), Value::String("object".to_owned()));
    out.insert("properties".to_owned(), Value::Object(properties));
    if !required.is_empty() {
        out.insert("required".to_owned(), Value::Array(required));
    }
    Some(out)
}

fn first_word(value: &str) -> String {
    value.split(['_', '-', '.']).next().unwrap_or_default().to_ascii_lowercase()
}

/// Path segments that name the dispatcher rather than the resource.
const DISPATCH: &[&str] =
    &["manage", "actions", "action", "do", "execute", "exec", "command", "commands", "rpc", "operations", "dispatch"];

/// The resource a mega-endpoint acts on: the last path segment that is neither a parameter, a
/// version nor the dispatcher itself, singular.
fn noun(op: &Operation) -> String {
    let segment = op
        .path
        .split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{') && !naming::is_noise(s))
        .rfind(|s| !DISPATCH.contains(&s.to_ascii_lowercase().as_str()))
        .unwrap_or("item");
    naming::sanitize(&heck::ToSnakeCase::to_snake_case(naming::singular(segment).as_str()))
}

/// `approve` + `withdrawal` → `approve_withdrawal`; `update_role` + `user` → `update_user_role`.
pub fn name(value: &str, noun: &str) -> String {
    let value = heck::ToSnakeCase::to_snake_case(value);
    let (verb, rest) = match value.split_once('_') {
        Some((v, r)) => (v, Some(r)),
        None => (value.as_str(), None),
    };
    let raw = if !VERBS.contains(&verb) {
        format!("{value}_{noun}")
    } else if let Some(rest) = rest.filter(|r| *r != noun && !r.starts_with(&format!("{noun}_"))) {
        format!("{verb}_{noun}_{rest}")
    } else {
        value.clone()
    };
    let raw = if raw == verb { format!("{verb}_{noun}") } else { raw };
    naming::sanitize(&raw)
}

#[cfg(test)]
mod tests {
    use super::name;

    #[test]
    fn behaviour_names() {
        assert_eq!(name("approve", "withdrawal"), "approve_withdrawal");
        assert_eq!(name("update_role", "user"), "update_user_role");
        assert_eq!(name("create", "user"), "create_user");
        assert_eq!(name("delete_user", "user"), "delete_user");
        assert_eq!(name("refund", "charge"), "refund_charge");
        assert_eq!(name("frobnicate", "widget"), "frobnicate_widget");
    }
}
