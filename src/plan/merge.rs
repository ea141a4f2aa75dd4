//! Overlay `merge`: several operations served by one tool — a search by status and a search by
//! tags as one `find_pets`, a collection and its per-customer view as one `list_invoices`.
//! Each operation is first planned as a tool of its own (a route, keyed like any tool); the
//! routes then become one tool whose arguments are theirs together, required where every route
//! requires them. The server sends a call to the first route that takes every argument given
//! and whose own required arguments are all given (runtime `route.rs`); this module checks that
//! every route can be reached and says in the description which arguments do not combine.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::retry::KEY_ARG;
use super::{Arg, Tool};
use crate::diag::{Diagnostic, Report, codes, join_pointer};

/// One planned route: its place in the declaration (0 for `operation`), the tool planned for
/// it, and what planning it reported.
pub struct Route {
    pub order: usize,
    pub tool: Tool,
    pub report: Report,
}

/// Makes one tool of a merge's routes (at least one). Diagnostics about the declaration's
/// `params`, `fixed` and `paginate` are kept only when no route could use the entry; everything
/// else each route reported is passed on.
pub fn combine(mut routes: Vec<Route>, report: &mut Report) -> Option<Tool> {
    routes.sort_by_key(|r| r.order);
    let (file, pointer) = routes.first()?.tool.declared.clone().unwrap_or_default();
    pass_on(&mut routes, &pointer, report);
    let mut tools: Vec<Tool> = routes.into_iter().map(|r| r.tool).collect();
    if tools.len() == 1 {
        return tools.pop();
    }
    let error = |report: &mut Report, message: String, help: &str| {
        report.push(
            Diagnostic::error(codes::OVERLAY, message).at(&file, join_pointer(&pointer, "merge")).with_help(help),
        );
    };
    let name = tools[0].name.clone();
    if tools.iter().any(|t| t.annotations.read_only != tools[0].annotations.read_only) {
        error(
            report,
            format!("`{name}` merges operations that read with operations that write"),
            "merge reads with reads and writes with writes; a write needs its own tool (CONTRACT T3)",
        );
        return None;
    }
    let args = union(&tools, &name, report)?;
    let own: Vec<BTreeSet<&str>> = tools.iter().map(|t| own_args(t, &tools)).collect();
    if own.iter().all(BTreeSet::is_empty) {
        error(
            report,
            format!("the operations `{name}` merges take the same arguments"),
            "the server chooses an operation by the arguments given: merge operations that differ in at least one",
        );
        return None;
    }
    for (k, later) in tools.iter().enumerate().skip(1) {
        if let Some(earlier) = tools[..k].iter().find(|e| shadows(e, later)) {
            error(
                report,
                format!(
                    "`{name}` never reaches {}: {} takes every call it could take",
                    later.operation_label(),
                    earlier.operation_label()
                ),
                "list the narrower operation first, or drop it from the merge",
            );
            return None;
        }
    }
    let mut merged = tools[0].clone();
    merged.args = args;
    merged.annotations.destructive = tools.iter().any(|t| t.annotations.destructive);
    merged.annotations.idempotent = tools.iter().all(|t| t.annotations.idempotent);
    merged.annotations.open_world = tools.iter().any(|t| t.annotations.open_world);
    let mut security: Vec<Vec<String>> = Vec::new();
    for alt in tools.iter().flat_map(|t| t.security.iter()) {
        if !security.contains(alt) {
            security.push(alt.clone());
        }
    }
    merged.security = security;
    // A caller may use the merged tool only if it may use every operation behind it.
    merged.scopes = all_scopes(&tools);
    merged.rest = tools.iter().find_map(|t| t.rest.clone());
    merged.output = output(&tools);
    merged.hidden = Vec::new();
    merged.fixed = Vec::new();
    if let Some(rule) = rule(&own) {
        merged.description = format!("{} {rule}", merged.description);
    }
    merged.routes = tools;
    Some(merged)
}

/// Each route's own diagnostics, except an entry of the declaration naming an argument that
/// some other route has (an argument only one of the operations takes).
fn pass_on(routes: &mut [Route], pointer: &str, report: &mut Report) {
    let entry = |d: &Diagnostic| -> Option<String> {
        let p = &d.location.as_ref()?.pointer;
        (d.code == codes::OVERLAY_UNKNOWN_ARG && p.starts_with(pointer)).then(|| p.clone())
    };
    let everywhere: BTreeSet<String> = {
        let mut sets =
            routes.iter().map(|r| r.report.diagnostics.iter().filter_map(entry).collect::<BTreeSet<String>>());
        let first = sets.next().unwrap_or_default();
        sets.fold(first, |acc, s| acc.intersection(&s).cloned().collect())
    };
    // The routes share one declaration: what each says of it is said once, an unknown argument
    // with a suggestion from all their arguments.
    let mut names: Vec<String> = Vec::new();
    for a in routes.iter().flat_map(|r| r.tool.args.iter()) {
        if !names.contains(&a.name) {
            names.push(a.name.clone());
        }
    }
    let mut said: Vec<Diagnostic> = Vec::new();
    let mut unknown: BTreeSet<String> = BTreeSet::new();
    for route in routes.iter_mut() {
        for mut d in std::mem::take(&mut route.report.diagnostics) {
            match entry(&d) {
                Some(p) if !everywhere.contains(&p) || !unknown.insert(p.clone()) => {}
                Some(p) => {
                    let key = crate::diag::unescape_token(p.rsplit('/').next().unwrap_or_default());
                    d.help = Some(super::intent::help_for(&key, &names, &route.tool.name));
                    said.push(d);
                }
                None if said.contains(&d) => {}
                None => said.push(d),
            }
        }
    }
    report.extend(said);
}

/// The routes' arguments together, in route order with the idempotency key last; required
/// where every route requires it. An argument two routes share must mean the same there.
fn union(tools: &[Tool], name: &str, report: &mut Report) -> Option<Vec<Arg>> {
    let mut out: Vec<Arg> = Vec::new();
    for t in tools {
        for arg in &t.args {
            match out.iter().find(|a| a.name == arg.name) {
                Some(seen) if without_description(&seen.schema) != without_description(&arg.schema) => {
                    let (file, pointer) = t.declared.clone().unwrap_or_default();
                    report.push(
                        Diagnostic::error(
                            codes::OVERLAY,
                            format!(
                                "`{name}`: argument `{}` takes different values in {} and {}",
                                arg.name,
                                tools[0].operation_label(),
                                t.operation_label()
                            ),
                        )
                        .at(&file, join_pointer(&pointer, "merge"))
                        .with_help(
                            "merge operations whose shared arguments mean the same, or rename one with `params`",
                        ),
                    );
                    return None;
                }
                Some(_) => {}
                None => out.push(Arg {
                    required: tools.iter().all(|o| o.args.iter().any(|a| a.name == arg.name && a.required)),
                    ..arg.clone()
                }),
            }
        }
    }
    if let Some(i) = out.iter().position(|a| a.name == KEY_ARG) {
        let key = out.remove(i);
        out.push(key);
    }
    Some(out)
}

fn without_description(schema: &Value) -> Value {
    match schema {
        Value::Object(m) => Value::Object(
            m.iter().filter(|(k, _)| *k != "description").map(|(k, v)| (k.clone(), v.clone())).collect::<Map<_, _>>(),
        ),
        other => other.clone(),
    }
}

/// The arguments of `tool` that not every route takes: what sends a call its way.
fn own_args<'t>(tool: &'t Tool, all: &[Tool]) -> BTreeSet<&'t str> {
    tool.args
        .iter()
        .map(|a| a.name.as_str())
        .filter(|n| !all.iter().all(|t| t.args.iter().any(|a| a.name == *n)))
        .collect()
}

/// Whether every call `later` could take goes to `earlier` first: `earlier` takes all of
/// `later`'s arguments and requires none that `later` does not.
fn shadows(earlier: &Tool, later: &Tool) -> bool {
    let takes = |t: &Tool, n: &str| t.args.iter().any(|a| a.name == n);
    let unbounded = |t: &Tool| t.rest.is_some();
    later.args.iter().all(|a| takes(earlier, &a.name))
        && (!unbounded(later) || unbounded(earlier))
        && earlier.args.iter().filter(|a| a.required).all(|a| later.args.iter().any(|b| b.name == a.name && b.required))
}

/// The response: the routes' one schema, or any of theirs.
fn output(tools: &[Tool]) -> Option<Value> {
    let mut distinct: Vec<Value> = Vec::new();
    for t in tools {
        let o = t.output.clone()?;
        if !distinct.contains(&o) {
            distinct.push(o);
        }
    }
    match distinct.len() {
        1 => distinct.pop(),
        _ => Some(json!({ "anyOf": distinct })),
    }
}

/// The rule the description states (D1): which arguments belong to different operations and so
/// do not combine. Nothing when at most one route has arguments of its own (they are then
/// plain optional arguments to the model).
fn rule(own: &[BTreeSet<&str>]) -> Option<String> {
    let groups: Vec<String> = own
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| {
            let names: Vec<&str> = s.iter().copied().filter(|n| *n != KEY_ARG).collect();
            match names.as_slice() {
                [one] => (*one).to_owned(),
                many => format!("({})", many.join(" and ")),
            }
        })
        .collect();
    match groups.as_slice() {
        [] | [_] => None,
        [a, b] => Some(format!("Takes either {a} or {b}, not both.")),
        [init @ .., last] => Some(format!("Takes one of {} or {last}, not more.", init.join(", "))),
    }
}

/// The scope alternatives that admit a caller to every one of `tools`: each combination of one
/// alternative per tool, joined. Tools without a requirement add nothing.
fn all_scopes(tools: &[Tool]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new()];
    for t in tools.iter().filter(|t| !t.scopes.is_empty()) {
        let mut next = Vec::new();
        for have in &out {
            for alt in &t.scopes {
                let mut joined: Vec<String> = have.iter().chain(alt).cloned().collect();
                joined.sort();
                joined.dedup();
                if !next.contains(&joined) {
                    next.push(joined);
                }
            }
        }
        out = next;
    }
    out.retain(|alt| !alt.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_names_what_does_not_combine() {
        let set = |v: &[&'static str]| v.iter().copied().collect::<BTreeSet<&str>>();
        assert_eq!(
            rule(&[set(&["status"]), set(&["tags"])]).as_deref(),
            Some("Takes either status or tags, not both.")
        );
        assert_eq!(
            rule(&[set(&["id"]), set(&["email"]), set(&["first", "last"])]).as_deref(),
            Some("Takes one of id, email or (first and last), not more.")
        );
        assert_eq!(rule(&[set(&[]), set(&["customer_id"])]), None);
    }
}
