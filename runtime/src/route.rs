//! Which operation of a merged tool (overlay `merge`) a call goes to: the first, in the declared
//! order, that takes every argument given and whose required arguments are all given. Arguments
//! that no single operation takes together are a validation error that says which do not
//! combine (CONTRACT E2). A tool that merges nothing is its own only route.

use serde_json::{Map, Value};

use crate::decl::ToolDecl;
use crate::error::{ToolError, codes};

/// The route a call with these (validated) arguments takes.
pub fn choose(tool: &'static ToolDecl, args: &Map<String, Value>) -> Result<&'static ToolDecl, ToolError> {
    if tool.merged.is_empty() {
        return Ok(tool);
    }
    let routes: Vec<&'static ToolDecl> = std::iter::once(tool).chain(tool.merged.iter().copied()).collect();
    if let Some(route) = routes.iter().find(|r| takes_all(r, args) && has_required(r, args)) {
        return Ok(route);
    }
    let ways = routes.iter().map(|r| way(r, &routes)).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" | ");
    // Some route takes these arguments but needs more: name what is missing.
    if let Some(route) = routes.iter().find(|r| takes_all(r, args)) {
        let missing: Vec<&str> =
            route.args.iter().filter(|a| a.required && !args.contains_key(a.name)).map(|a| a.name).collect();
        let list = missing.join(", ");
        let mut err = ToolError::new(
            codes::INVALID_ARGUMENT,
            format!("invalid argument: {} needs {list} with these arguments", tool.name),
            format!("Add {list}, or call again with the arguments of one way: {ways}."),
        );
        if let Some(first) = missing.first() {
            err = err.field(*first);
        }
        return Err(err);
    }
    let own: Vec<&str> = args
        .keys()
        .filter(|k| !routes.iter().all(|r| r.args.iter().any(|a| a.name == k.as_str())))
        .map(String::as_str)
        .collect();
    Err(ToolError::new(
        codes::INVALID_ARGUMENT,
        format!("invalid argument: {} do not combine in one call of {}", own.join(" and "), tool.name),
        format!("Call again with the arguments of only one way: {ways}."),
    ))
}

fn takes_all(route: &ToolDecl, args: &Map<String, Value>) -> bool {
    route.rest_to_body || args.keys().all(|k| route.args.iter().any(|a| a.name == k.as_str()))
}

fn has_required(route: &ToolDecl, args: &Map<String, Value>) -> bool {
    route.args.iter().filter(|a| a.required).all(|a| args.contains_key(a.name))
}

/// The arguments that send a call to `route` (those not every route takes), e.g. `tags`.
fn way(route: &ToolDecl, routes: &[&ToolDecl]) -> String {
    route
        .args
        .iter()
        .filter(|a| !routes.iter().all(|r| r.args.iter().any(|b| b.name == a.name)))
        .map(|a| a.name)
        .collect::<Vec<_>>()
        .join(" and ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::{ArgDecl, Method, Style, Target};
    use serde_json::json;

    const fn query(name: &'static str, required: bool) -> ArgDecl {
        ArgDecl {
            name,
            target: Target::Query { name, style: Style::Form, explode: true, allow_reserved: false, json: false },
            required,
        }
    }

    const fn route(path: &'static str, args: &'static [ArgDecl], merged: &'static [&'static ToolDecl]) -> ToolDecl {
        ToolDecl {
            name: "find_pets",
            method: Method::Get,
            path,
            args,
            fixed: &[],
            body: None,
            rest_to_body: false,
            security: &[],
            scopes: &[],
            list_tool: None,
            idempotency: None,
            merged,
            handle: None,
            native: false,
            approval: None,
            asks: &[],
            long_running: None,
            sunset: None,
            result_budget: 8_000,
        }
    }

    static BY_TAGS: ToolDecl = route("/pet/findByTags", &[query("tags", true), query("limit", false)], &[]);
    static FIND: ToolDecl = route("/pet/findByStatus", &[query("status", false), query("limit", false)], &[&BY_TAGS]);

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_call_goes_to_the_first_operation_that_takes_it() {
        assert_eq!(choose(&FIND, &args(json!({}))).map(|r| r.path), Ok("/pet/findByStatus"));
        assert_eq!(
            choose(&FIND, &args(json!({"status": "sold", "limit": 2}))).map(|r| r.path),
            Ok("/pet/findByStatus")
        );
        assert_eq!(choose(&FIND, &args(json!({"tags": ["a"], "limit": 2}))).map(|r| r.path), Ok("/pet/findByTags"));
    }

    #[test]
    fn arguments_of_two_operations_do_not_combine() {
        let e = choose(&FIND, &args(json!({"status": "sold", "tags": ["a"]}))).unwrap_err();
        assert_eq!(e.code, codes::INVALID_ARGUMENT);
        assert!(e.message.contains("status and tags do not combine in one call of find_pets"), "{}", e.message);
        assert!(e.recovery.contains("status | tags"), "{}", e.recovery);
        assert!(!e.retryable);
    }

    #[test]
    fn a_missing_required_argument_is_named() {
        static BY_ID: ToolDecl = route("/users/{id}", &[query("id", true)], &[&BY_EMAIL]);
        static BY_EMAIL: ToolDecl = route("/users/by-email", &[query("email", true)], &[]);
        let e = choose(&BY_ID, &args(json!({}))).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("id"));
        assert!(e.recovery.contains("id | email"), "{}", e.recovery);
        assert_eq!(choose(&BY_ID, &args(json!({"email": "a@b.c"}))).map(|r| r.path), Ok("/users/by-email"));
    }
}
