//! A tool's declared intents applied to its planned arguments: fixed values (sent upstream, not
//! shown), hidden and renamed arguments, argument descriptions, effects (annotations, CONTRACT
//! T3, R9) and pagination (H5). Every key must name something real; a typo is a located error
//! with the closest argument name.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::{Annotations, Arg, Fixed, Target, Tool, naming};
use crate::diag::{Diagnostic, Report, codes, join_pointer};
use crate::overlay::{Effects, OnRepeat, ToolIntent};
use crate::resolve::{Defs, Method};

/// Verbs whose effect removes or undoes something: such tools are destructive (D4: never
/// understate) whatever method carries them.
const DESTRUCTIVE_VERBS: &[&str] =
    &["delete", "remove", "void", "cancel", "revoke", "destroy", "purge", "reject", "terminate", "close"];

/// Verbs of actions that change state: a GET whose operation is named for one is not
/// read-only (AWS's query API serves `DeleteDBProxy` on GET, Etherpad `createGroupPadUsingGET`).
/// Words that also name things an id may start with (`purchaseOrdersAll`, `StopPoint_Crowding`,
/// `sendAnalytics` for `GET /sends`, `releaseGet`) are left out; on an RPC route any verb but a
/// read's counts.
const WRITE_VERBS: &[&str] = &[
    "activate",
    "add",
    "allocate",
    "append",
    "approve",
    "assign",
    "associate",
    "attach",
    "authorize",
    "cancel",
    "confirm",
    "create",
    "deactivate",
    "deallocate",
    "decline",
    "delete",
    "deprovision",
    "deregister",
    "destroy",
    "detach",
    "disable",
    "disassociate",
    "enable",
    "execute",
    "failover",
    "insert",
    "invoke",
    "modify",
    "promote",
    "provision",
    "purge",
    "reboot",
    "redeploy",
    "regenerate",
    "register",
    "reimage",
    "reject",
    "remove",
    "rename",
    "replace",
    "resize",
    "restart",
    "restore",
    "revoke",
    "rollback",
    "rotate",
    "save",
    "submit",
    "suspend",
    "terminate",
    "trigger",
    "unassign",
    "untag",
    "update",
    "upgrade",
    "void",
];

/// The verb of the action an RPC route calls: its operationId's first word past the method the
/// id may lead with (`GET_SplitShard` → `split`, `GET_GetUser` → `get`), else the derived name's.
fn action_verb(tool: &Tool, derived: &str) -> String {
    let Some(id) = tool.operation.operation_id.as_deref() else {
        return naming::first_word(derived);
    };
    match naming::after_method(id, tool.operation.method) {
        Some(mut rest) => rest.swap_remove(0),
        None => Some(naming::first_word(id)).filter(|w| !w.is_empty()).unwrap_or_else(|| naming::first_word(derived)),
    }
}

/// Verbs of the reads APIs serve on POST because the question travels in a body: a search or a
/// filter (Notion's database query, Square's `SearchOrders`, Autotask's `query`), AWS's JSON
/// protocol (`DescribeStream`, `ListTables`, `GetItem`). Words that also name a write on some
/// APIs are not here: `read` (Mastodon's `conversations/{id}/read` marks as read), `scan` (starts
/// one), `retrieve` (`RetrieveTapeArchive` moves a tape), `check`, `validate`.
const POST_READ_VERBS: &[&str] = &["count", "describe", "fetch", "find", "get", "list", "lookup", "query", "search"];

/// Words of a route or a name that issue or use credentials: a token made by a POST is a write.
const CREDENTIAL_WORDS: &[&str] =
    &["token", "tokens", "authenticate", "authentication", "login", "logon", "signin", "otp", "password"];

/// Whether a POST only reads (T3: every tool looking like a write is the peers' failing): the verb
/// its name leads with is one of [`POST_READ_VERBS`] (a single one: `get_or_create` writes), and
/// nothing else says it writes — no write verb among the operationId's or the route's last
/// segment's words (`ListRegenerateApiKeys`, `/oauth2/revoke`), nor in the verb the description
/// opens with ("Generates (or retrieves) an id"), no credentials, no GraphQL route (queries and
/// mutations share it). Never a guess the other way: D4 forbids a writer that claims to read, so
/// any doubt leaves the POST a write, and an overlay's `effects: {read_only: true}` says the rest.
fn reads_by_post(tool: &Tool, derived: &str) -> bool {
    let op = &tool.operation;
    if op.method != Method::Post || op.path.to_ascii_lowercase().contains("graphql") {
        return false;
    }
    let named = naming::snake_words(derived);
    let reads =
        naming::compound_verb(&named).is_none() && named.first().is_some_and(|v| POST_READ_VERBS.contains(&v.as_str()));
    if !reads || writes_word(&naming::first_word(&tool.name)) {
        return false;
    }
    let id_words = op.operation_id.as_deref().map(naming::snake_words).unwrap_or_default();
    // An RPC route's action is its operation's name, already read above.
    let route_words =
        if naming::is_rpc_route(&op.path) { Vec::new() } else { naming::snake_words(route_action(&op.path)) };
    let said = |w: &String| WRITE_VERBS.contains(&w.as_str()) || CREDENTIAL_WORDS.contains(&w.as_str());
    // A POST to `…/{id}/read` or `…/seen` marks the item (Linode's `eventRead`).
    let marks = |w: &String| matches!(w.as_str(), "read" | "unread" | "seen" | "unseen" | "mark");
    if naming::compound_verb(&id_words).is_some()
        || id_words.iter().chain(&route_words).chain(&named).any(said)
        || route_words.iter().any(marks)
        || route_words.first().is_some_and(|w| writes_word(w))
    {
        return false;
    }
    // The opening word's letters: "Assign/Unassign items" opens with `assign`.
    let opening = tool.description.split(|c: char| !c.is_ascii_alphabetic()).find(|w| !w.is_empty());
    !opening.is_some_and(|w| writes_word(&w.to_ascii_lowercase()))
}

/// Verbs, besides [`WRITE_VERBS`], that a description opening with them ("Generates (or retrieves)
/// an id", "Causes a user to follow a list", "Initiate the generation of a report") or a route
/// ending in them (`/lists/{id}/follow`) says the operation writes.
const WRITE_WORDS: &[&str] = &[
    "archive",
    "begin",
    "cause",
    "claim",
    "copy",
    "follow",
    "generate",
    "import",
    "initiate",
    "issue",
    "lock",
    "mark",
    "move",
    "pay",
    "pin",
    "post",
    "publish",
    "refresh",
    "refund",
    "release",
    "renew",
    "reset",
    "run",
    "schedule",
    "send",
    "set",
    "ship",
    "start",
    "store",
    "subscribe",
    "unfollow",
    "unlock",
    "unpin",
    "unsubscribe",
    "upload",
];

/// A route's last literal segment, where an action route names its action (`…/secrets/delete`,
/// `…/{id}/read`); empty when it has none.
fn route_action(path: &str) -> &str {
    path.rsplit('/').find(|s| !s.is_empty() && !s.starts_with('{')).unwrap_or_default()
}

/// Whether a word is a write verb, as written or in the third person (`creates`, `issues`).
fn writes_word(word: &str) -> bool {
    let write = |w: &str| WRITE_VERBS.contains(&w) || WRITE_WORDS.contains(&w);
    write(word) || word.strip_suffix('s').is_some_and(write) || word.strip_suffix("es").is_some_and(write)
}

/// Words of a tool's name that say it sends something beyond the API's own data.
const SENDS_OUTSIDE: &[&str] = &[
    "send",
    "email",
    "mail",
    "notify",
    "notification",
    "message",
    "messages",
    "publish",
    "broadcast",
    "pay",
    "payment",
    "payout",
    "transfer",
    "charge",
    "invite",
    "share",
    "sms",
    "tweet",
    "post",
];

/// `defaults.annotations: confirm`: hosts that ask the user before a destructive or open-world
/// tool then ask for every tool that changes state, and mark every one that sends something out.
pub fn confirm_profile(tool: &mut Tool) {
    if tool.annotations.read_only {
        return;
    }
    tool.annotations.destructive = true;
    let sends = tool.name.split('_').any(|w| SENDS_OUTSIDE.contains(&w));
    if sends || tool.effects.as_ref().and_then(|e| e.open_world) == Some(true) {
        tool.annotations.open_world = true;
    }
}

/// How long a plan waits for its approval (R8), unless `serve --plan-ttl` says otherwise.
pub const PLAN_TTL_SECS: u64 = 86_400;

/// The approval a tool's calls need (CONTRACT R8): the plan's lifetime in seconds, and the rule
/// that approves calls by itself. A tool a person approves (`approver: human`), or a rule
/// (`approver: auto`, with `approval.auto_if`; what it does not approve waits for a person), is
/// planned first. A tool without an idempotency key cannot be followed from plan to result, so it
/// never is (lint R8-approval says so).
pub fn approval(tool: &Tool) -> Option<(u64, Option<&str>)> {
    use crate::overlay::Approver;
    let e = tool.effects.as_ref()?;
    let gated = matches!(e.approver, Some(Approver::Human | Approver::Auto));
    (gated && tool.key.is_some() && !tool.annotations.read_only)
        .then_some((PLAN_TTL_SECS, tool.approval_rule.as_deref()))
}

/// Annotations from the method, then the verbs of the tool's name and of the name its operation
/// would get (`derived`), then the team's stated effects.
pub fn annotations(tool: &Tool, derived: &str, effects: Option<&Effects>) -> Annotations {
    let mut a = Annotations::from_method(tool.operation.method);
    if reads_by_post(tool, derived) {
        a = Annotations::from_method(Method::Get);
    }
    // The derived name counts too: a name taken from the overlay, or the operationId as
    // written when derived names collide, may not start with the action's verb.
    let verbs = [&tool.name, derived].map(|n| n.split('_').next().unwrap_or_default());
    let named = |list: &[&str]| verbs.iter().any(|v| list.contains(v));
    // A GET of an RPC-style route (`/#Action=SwitchoverReadReplica`) says nothing about safety:
    // it reads only when its action's verb is a read.
    let rpc = naming::is_rpc_route(&tool.operation.path);
    if a.read_only && (named(WRITE_VERBS) || (rpc && !naming::is_read_verb(&action_verb(tool, derived)))) {
        a = Annotations { read_only: false, destructive: false, idempotent: false, open_world: a.open_world };
    }
    // `POST /orgs/{org}/secrets/delete`: the route's action counts as well, when the segment is
    // that one word (`remove-token` names a token).
    let action = route_action(&tool.operation.path);
    let route_verb = Some(action).filter(|s| s.chars().all(|c| c.is_ascii_lowercase())).unwrap_or_default();
    if !a.read_only && (named(DESTRUCTIVE_VERBS) || DESTRUCTIVE_VERBS.contains(&route_verb)) {
        a.destructive = true;
    }
    let Some(e) = effects else { return a };
    if e.read_only == Some(true) {
        return Annotations {
            read_only: true,
            destructive: false,
            idempotent: true,
            open_world: e.open_world.unwrap_or(false),
        };
    }
    if e.read_only == Some(false) {
        a.read_only = false;
    }
    if let Some(reversible) = e.reversible {
        a.destructive = !reversible;
    }
    match e.on_repeat {
        Some(OnRepeat::Replay | OnRepeat::NoEffect) => a.idempotent = true,
        Some(OnRepeat::Repeats) => a.idempotent = false,
        None => {}
    }
    if let Some(open) = e.open_world {
        a.open_world = open;
    }
    a
}

/// Why a value could not be fixed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FixError {
    /// The key names no argument of the tool.
    Unknown(String),
    /// The argument does not accept the value.
    Value(String),
}

impl std::fmt::Display for FixError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FixError::Unknown(m) | FixError::Value(m) => f.write_str(m),
        }
    }
}

/// Takes the argument a `fixed` key names out of the tool: an argument name, or
/// `body.FIELD` / `query.NAME` / `header.NAME` / `path.NAME` / `cookie.NAME`.
pub fn fix(tool: &mut Tool, key: &str, value: Value, defs: &Defs) -> Result<(), FixError> {
    let found =
        tool.args.iter().position(|a| a.name == key).or_else(|| tool.args.iter().position(|a| a.target.is_keyed(key)));
    if let Some(i) = found {
        let arg = tool.args.remove(i);
        check_value(&arg.schema, &value, defs).map_err(|e| FixError::Value(format!("`{key}`: {e}")))?;
        tool.fixed.push(Fixed { arg, value });
        return Ok(());
    }
    // A field inside a body that stays one `body` argument: taken out of that schema.
    let field = key.strip_prefix("body.").unwrap_or(key);
    if let Some(arg) = tool.args.iter_mut().find(|a| a.target == Target::Body)
        && let Some(schema) = without_property(&arg.schema, field, defs)
    {
        let prop = defs.follow(&arg.schema).get("properties").and_then(|p| p.get(field)).cloned().unwrap_or(json!({}));
        check_value(&prop, &value, defs).map_err(|e| FixError::Value(format!("`{key}`: {e}")))?;
        arg.schema = schema;
        tool.fixed.push(Fixed {
            arg: Arg {
                name: field.to_owned(),
                target: Target::BodyField { name: field.to_owned() },
                required: true,
                schema: prop,
            },
            value,
        });
        return Ok(());
    }
    Err(FixError::Unknown(format!("`{key}` is not an argument of `{}`", tool.name)))
}

/// Fixes every required argument that admits one value only (a one-value `enum` or a `const`:
/// AWS's `X-Amz-Target` header, or `Action` and `Version` of its query API, on each of its
/// actions; Azure's `api-version` and `{policyName}` routes that take `default` only): the server
/// sends it, and the model neither reads nor repeats it (T6). The plan lists it under `fixed`.
pub fn fix_only_values(tool: &mut Tool, defs: &Defs) {
    let only: Vec<(String, Value)> = tool
        .args
        .iter()
        .filter(|a| a.required && !matches!(a.target, Target::Body))
        .filter_map(|a| {
            let schema = defs.follow(&a.schema);
            let value = match (schema.get("const"), schema.get("enum").and_then(Value::as_array)) {
                (Some(v), _) => v.clone(),
                (None, Some(values)) if values.len() == 1 => values[0].clone(),
                _ => return None,
            };
            // `confirm: true`, HERE's `x-confirm: "true"` on a delete: the caller is to say it.
            let confirms = value.is_boolean() || a.name.to_ascii_lowercase().contains("confirm");
            (!confirms).then(|| (a.name.clone(), value))
        })
        .collect();
    for (name, value) in only {
        // The value is the schema's own, so it checks; were it not, the argument stays.
        let _ = fix(tool, &name, value, defs);
    }
}

/// The object schema without one property, or `None` when it has no such property.
fn without_property(schema: &Value, field: &str, defs: &Defs) -> Option<Value> {
    let mut shape = defs.follow(schema).as_object()?.clone();
    shape.get_mut("properties")?.as_object_mut()?.shift_remove(field)?;
    if let Some(Value::Array(required)) = shape.get_mut("required") {
        required.retain(|r| r != field);
        if required.is_empty() {
            shape.shift_remove("required");
        }
    }
    Some(Value::Object(shape))
}

/// A fixed value must be one the argument accepts: the checks that catch a typo (`enum`,
/// `const`, `type`). The server sends it as written.
fn check_value(schema: &Value, value: &Value, defs: &Defs) -> Result<(), String> {
    let schema = defs.follow(schema);
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        let list: Vec<String> = options.iter().map(Value::to_string).collect();
        return Err(format!("{value} is not one of {}", list.join(", ")));
    }
    if let Some(c) = schema.get("const")
        && c != value
    {
        return Err(format!("{value} is not the constant {c}"));
    }
    let fits = |t: &str| match t {
        "string" => value.is_string(),
        "integer" => value.as_i64().is_some() || value.as_u64().is_some(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true,
    };
    let ok = match schema.get("type") {
        Some(Value::String(t)) => fits(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(fits),
        _ => true,
    };
    if ok { Ok(()) } else { Err(format!("{value} does not have the argument's type {}", schema["type"])) }
}

/// Applies one declared tool's `fixed`, `params`, `effects` and `paginate`.
pub fn apply(tool: &mut Tool, intent: &ToolIntent, defs: &Defs, report: &mut Report) {
    let o = &intent.overlay;
    let at = |field: &str, key: &str| join_pointer(&join_pointer(&intent.pointer, field), key);
    let field_name = |f: &str| if intent.in_spec { format!("x-mcp-{f}") } else { f.to_owned() };
    for (key, value) in &o.fixed {
        if let Err(e) = fix(tool, key, value.clone(), defs) {
            let code = match e {
                FixError::Unknown(_) => codes::OVERLAY_UNKNOWN_ARG,
                FixError::Value(_) => codes::OVERLAY,
            };
            report.push(
                Diagnostic::error(code, format!("cannot fix {e}"))
                    .at(&intent.file, at(&field_name("fixed"), key))
                    .with_help(help_names(tool, key)),
            );
        }
    }
    let mut taken: BTreeSet<String> = tool.args.iter().map(|a| a.name.clone()).collect();
    for (key, p) in &o.params {
        let pointer = at(&field_name("params"), key);
        let Some(i) = tool.args.iter().position(|a| a.name == *key) else {
            report.push(
                Diagnostic::error(codes::OVERLAY_UNKNOWN_ARG, format!("`{key}` is not an argument of `{}`", tool.name))
                    .at(&intent.file, pointer)
                    .with_help(help_names(tool, key)),
            );
            continue;
        };
        if p.hidden {
            if tool.args[i].required {
                report.push(
                    Diagnostic::error(
                        codes::OVERLAY,
                        format!("`{key}` is required by the operation and cannot be hidden"),
                    )
                    .at(&intent.file, pointer)
                    .with_help(format!("fix its value instead: `fixed: {{{key}: …}}`")),
                );
            } else {
                taken.remove(key);
                let arg = tool.args.remove(i);
                tool.hidden.push(arg);
            }
            continue;
        }
        let arg = &mut tool.args[i];
        if p.required {
            arg.required = true;
        }
        // The user's to give: the model may leave it out, and is not asked to invent it.
        if p.ask.is_some() {
            arg.required = false;
        }
        if let Some(d) = &p.description {
            set_description(&mut arg.schema, &super::describe::clean(d));
        }
        if let Some(new) = &p.rename {
            if !valid_arg_name(new) {
                report.push(
                    Diagnostic::error(codes::OVERLAY, format!("`{new}` is not a valid argument name"))
                        .at(&intent.file, join_pointer(&pointer, "rename"))
                        .with_help("use 1-64 characters of [A-Za-z0-9_], starting with a letter"),
                );
            } else if new != key && taken.contains(new) {
                report.push(
                    Diagnostic::error(codes::OVERLAY, format!("`{}` already has an argument named `{new}`", tool.name))
                        .at(&intent.file, join_pointer(&pointer, "rename"))
                        .with_help("choose another name"),
                );
            } else {
                taken.remove(key);
                taken.insert(new.clone());
                arg.name = new.clone();
            }
        }
        let name = arg.name.clone();
        let described = arg.schema.get("description").and_then(Value::as_str).map(str::to_owned);
        if let Some(question) = &p.ask {
            tool.asks.push(super::Ask { arg: name.clone(), question: question.clone(), confirm: false });
        }
        if p.confirm {
            let question = described.unwrap_or_else(|| format!("the {name} given"));
            tool.asks.push(super::Ask { arg: name, question, confirm: true });
        }
    }
    if let Some(p) = &o.paginate {
        let exists = |n: &str| tool.args.iter().any(|a| a.name == n);
        for (field, name) in [("cursor", Some(&p.cursor)), ("limit", p.limit.as_ref())] {
            if let Some(name) = name
                && !exists(name)
            {
                report.push(
                    Diagnostic::error(
                        codes::OVERLAY_UNKNOWN_ARG,
                        format!("paginate.{field} `{name}` is not an argument of `{}`", tool.name),
                    )
                    .at(&intent.file, at(&field_name("paginate"), field))
                    .with_help(help_names(tool, name)),
                );
            }
        }
    }
    tool.effects = o.effects.clone();
    tool.approval_rule = o.approval.as_ref().map(|a| a.auto_if.clone());
}

/// `description` on an argument schema; beside a `$ref` it is a sibling (2020-12 allows that).
pub fn set_description(schema: &mut Value, text: &str) {
    if let Value::Object(map) = schema {
        map.insert("description".to_owned(), Value::String(text.to_owned()));
    } else if let Value::Bool(true) = schema {
        *schema = json!({"description": text});
    }
}

fn valid_arg_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn help_names(tool: &Tool, key: &str) -> String {
    // A parameter out of the model's view: a credential, a wire-format setting, a cursor only
    // the Link header gives, or one the overlay hid.
    if tool.hidden.iter().any(|a| a.name == key) {
        return format!(
            "`{key}` is the server's to send or to leave out, never an argument; `mcp-gen plan` lists it under `hidden`"
        );
    }
    let names: Vec<String> = tool.args.iter().map(|a| a.name.clone()).collect();
    help_for(key, &names, &tool.name)
}

/// The help line for `key`, which is none of `names` (the arguments of tool `tool`).
pub fn help_for(key: &str, names: &[String], tool: &str) -> String {
    match crate::overlay::closest(key, names.iter().cloned(), 0.5) {
        Some(n) => format!("did you mean `{n}`? (`mcp-gen plan` lists each tool's arguments)"),
        None if names.is_empty() => format!("`{tool}` has no arguments left"),
        None => format!("the arguments of `{tool}` are: {}", names.join(", ")),
    }
}
