//! Pagination (CONTRACT H1, H2, H5): the sentence that says how to page, and next-page handles.
//! When the overlay says where the next cursor is in the result (`paginate.next`) and the
//! response schema has it, the server hands out signed `h1_…` handles in its place (runtime
//! `handle.rs`): the cursor argument then takes a handle, its lifetime is stated, and the output
//! schema says the field is a handle or null. Without `next` the cursor stays the upstream's own.
//! When the next page's address is in the `Link` header instead (`paginate.link_header`, or a
//! cursor whose description says so), the result becomes the body under `items` beside
//! `next_cursor`, and the handle holds the next link's query (runtime `link.rs`).

use serde_json::{Value, json};

use super::{Pagination, Target, Tool};
use crate::diag::{Diagnostic, Report, codes, escape_token, join_pointer, unescape_token};
use crate::overlay::{Paginate, handle_ttl};
use crate::resolve::{Defs, Operation, ParamLocation};

/// How long a handle stays valid when the overlay does not say (H2).
pub const DEFAULT_TTL_SECS: u64 = 900;
/// The longest handle the runtime hands out (`mcp_gen_runtime::handle::MAX_LEN`).
pub const MAX_HANDLE_LEN: u64 = 2048;

/// Sets the tool's pagination from the declaration: handles where the next cursor can be found,
/// the cursor argument and the description saying how to page.
pub fn plan(
    tool: &mut Tool,
    op: &Operation,
    declared: &Paginate,
    default_ttl: Option<u64>,
    defs: &Defs,
    report: &mut Report,
) {
    // Where the declaration wrote `paginate.<field>`, for diagnostics.
    let at = |tool: &Tool, d: Diagnostic, field: &str| match &tool.declared {
        Some((file, pointer)) => d.at(file, join_pointer(&join_pointer(pointer, "paginate"), field)),
        None => d,
    };
    let ttl = match declared.handle_ttl.as_deref().map(handle_ttl) {
        None => default_ttl.unwrap_or(DEFAULT_TTL_SECS),
        Some(Ok(secs)) => secs,
        Some(Err(d)) => {
            report.push(at(tool, *d, "handle_ttl"));
            DEFAULT_TTL_SECS
        }
    };
    if declared.link_header {
        if declared.next.is_some() {
            let d = Diagnostic::warning(
                codes::OVERLAY,
                format!(
                    "paginate.next of `{}` is ignored: with link_header the next page comes from the Link header",
                    tool.name
                ),
            )
            .with_help("remove `next`, or `link_header` if the body does hold the next cursor");
            report.push(at(tool, d, "next"));
        }
        tool.output = Some(link_result(tool.output.take()));
        // Other cursors "as given in the Link header" (`before`): the model cannot see the
        // header, so it could only guess them.
        let (blind, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut tool.args)
            .into_iter()
            .partition(|a| a.name != declared.cursor && !a.required && link_described(op, &a.target).is_some());
        tool.args = kept;
        tool.hidden.extend(blind);
    }
    let declared_next = if declared.link_header { Some(LINK_NEXT) } else { declared.next.as_deref() };
    let next = declared_next.filter(|n| tool.output.as_ref().is_some_and(|o| reaches(o, n, defs)));
    if let (Some(n), None) = (declared_next, next) {
        let d = Diagnostic::warning(
            codes::OVERLAY,
            format!("paginate.next `{n}` of `{}` is not a field of its response: its cursors are passed on as they are, without handles", tool.name),
        )
        .with_help(if n.starts_with('/') {
            "point `next` at the response field that holds the next page's cursor, e.g. `/next_cursor`".to_owned()
        } else {
            format!("`next` is a JSON Pointer into the response: write `/{n}`")
        });
        report.push(at(tool, d, "next"));
    }
    let handle_ttl_secs = next.map(|_| ttl);
    let cursor = declared.cursor.clone();
    if let Some(field) = next.map(field_name)
        && let Some(arg) = tool.args.iter_mut().find(|a| a.name == cursor)
    {
        arg.schema = json!({
            "type": "string",
            "maxLength": MAX_HANDLE_LEN,
            "description": format!("The {field} of the previous page, as returned (a handle, valid {}).", lifetime(ttl)),
        });
    }
    let sentence = match (declared_next, handle_ttl_secs) {
        (Some(n), Some(ttl)) => {
            let field = field_name(n);
            format!(
                "Pages: pass the previous page's {field} as {cursor} (valid {}); a null {field} means the last page, a short page does not.",
                lifetime(ttl)
            )
        }
        (Some(n), None) => {
            let field = field_name(n);
            format!("Pages: pass the previous page's {field} as {cursor}; a null {field} means the last page.")
        }
        (None, _) => {
            format!("Pages: pass the cursor the previous page returned as {cursor}; a null cursor means the last page.")
        }
    };
    tool.description = format!("{} {sentence}", tool.description);
    tool.pagination = Some(Pagination {
        cursor,
        next: declared_next.map(str::to_owned),
        limit: declared.limit.clone(),
        handle_ttl_secs,
        link: declared.link_header,
    });
}

/// Where a `Link`-header tool's result holds the next page's handle.
const LINK_NEXT: &str = "/next_cursor";

/// A `Link`-header tool's result: the upstream's body under `items`, beside the next page
/// (runtime `upstream::success`).
fn link_result(body: Option<Value>) -> Value {
    json!({
        "type": "object",
        "properties": {
            "items": body.unwrap_or_else(|| json!({})),
            "next_cursor": {"type": ["string", "null"]},
        },
        "required": ["items", "next_cursor"],
    })
}

/// Words that make an argument a cursor: opaque state the upstream hands out for the next page.
const CURSOR_WORDS: &[&str] = &["cursor", "token", "marker", "continuation"];
/// Words that say a name is about pages.
const PAGE_WORDS: &[&str] = &["next", "page", "pagination", "paging", "continuation"];

/// Finds, without an overlay, the pagination of a read whose result says where the next page
/// starts, so its cursors become handles too (H1): a string argument whose cursor the response
/// hands back in a string field of the same name (`NextToken` → `NextToken`), of the name with
/// `next` before it (`page_token` → `next_page_token`, `start_cursor` → `next_cursor`), at the
/// top or up to two objects down (`response_metadata.next_cursor`), or under a `next…` object
/// (`after` → `paging.next.after`, `offset` → `next_page.offset`). Only an unambiguous match
/// counts: one such argument and one such field.
pub fn detect(tool: &Tool, op: &Operation, defs: &Defs) -> Option<Paginate> {
    if !tool.annotations.read_only {
        return None;
    }
    let fields = string_fields(tool.output.as_ref()?, defs);
    let mut found = tool.args.iter().filter(|a| is_string(&a.schema, defs)).filter_map(|arg| {
        // The upstream's name: the response names its cursor after that, not after an
        // overlay's rename.
        let words = snake(match &arg.target {
            Target::Query { name, .. } | Target::Header { name, .. } | Target::BodyField { name } => name,
            _ => &arg.name,
        });
        let has = |list: &[&str]| words.split('_').any(|w| list.contains(&w));
        let cursorish = has(CURSOR_WORDS);
        // The same name both ways only where the name says it is about pages (`NextToken`);
        // a `token` both ways is more likely a credential.
        let paging = cursorish && has(PAGE_WORDS);
        let stem = words.strip_prefix("start_").or_else(|| words.strip_prefix("starting_")).unwrap_or(&words);
        let (next_stem, next_words) = (format!("next_{stem}"), format!("next_{words}"));
        let mut at = fields.iter().filter(|(_, parent, leaf)| {
            let next_of = *leaf == next_stem || *leaf == next_words;
            let under_next = parent.split('_').next() == Some("next") && *leaf == words;
            (cursorish && next_of) || (paging && *leaf == words) || under_next
        });
        match (at.next(), at.next()) {
            (Some((pointer, ..)), None) => Some((arg, pointer.clone())),
            _ => None,
        }
    });
    let (cursor, next, link_header) = match (found.next(), found.next()) {
        (Some((arg, next)), None) => (arg, Some(next), false),
        (None, _) => (in_link(tool, op, defs)?, None, true),
        _ => return None,
    };
    const LIMITS: &[&str] = &["limit", "page_size", "per_page", "max_results", "max_items", "count"];
    let limit = tool.args.iter().find(|a| LIMITS.contains(&snake(&a.name).as_str())).map(|a| a.name.clone());
    Some(Paginate { cursor: cursor.name.clone(), next, link_header, limit, handle_ttl: None })
}

/// Names of a cursor that leads forward, the one a `rel="next"` link sets (GitHub's `after`,
/// Meraki's `startingAfter`, Mastodon's `max_id`, Flat's `next`).
const FORWARD: &[&str] = &["after", "cursor", "starting_after", "next", "max_id", "page_token", "marker"];

/// A list whose pages the upstream announces in its `Link` header, as its cursor argument's
/// description says ("A cursor, as given in the Link header"): that argument, when one leads
/// forward and the result is an array. The model cannot see the header, so without a handle
/// it could only guess such a cursor.
fn in_link<'t>(tool: &'t Tool, op: &Operation, defs: &Defs) -> Option<&'t super::Arg> {
    if !tool.output.as_ref().is_some_and(|o| only_type(o, defs, "array")) {
        return None;
    }
    let mut found = tool.args.iter().filter(|a| {
        link_described(op, &a.target).is_some_and(|name| FORWARD.contains(&snake(name).as_str()))
            && is_string(&a.schema, defs)
    });
    match (found.next(), found.next()) {
        (Some(arg), None) => Some(arg),
        _ => None,
    }
}

/// The upstream name of a query parameter whose description in the spec (whole: the
/// argument's own is cut to its first sentence) points to the `Link` header.
fn link_described<'a>(op: &Operation, target: &'a Target) -> Option<&'a str> {
    let Target::Query { name, .. } = target else { return None };
    let param = op.parameters.iter().find(|p| p.location == ParamLocation::Query && p.name == *name)?;
    mentions_link_header(param.schema.get("description")?.as_str()?).then_some(name.as_str())
}

/// "as given in the [Link header](…)", "Refer to the `link` header", "Use HTTP `Link` header".
fn mentions_link_header(description: &str) -> bool {
    let lower = description.to_ascii_lowercase();
    lower.match_indices("link").any(|(i, _)| {
        let starts_word = !lower[..i].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric());
        let after = &lower[i + 4..];
        let window: String = after.chars().take(12).collect();
        starts_word && window.trim_start_matches(|c: char| !c.is_ascii_alphanumeric()).starts_with("header")
    })
}

fn snake(name: &str) -> String {
    heck::ToSnakeCase::to_snake_case(name)
}

/// Whether a schema takes strings only (a `type` of `string`, or `string` and `null`).
fn is_string(schema: &Value, defs: &Defs) -> bool {
    only_type(schema, defs, "string")
}

/// Whether a schema's `type` is `ty`, or `ty` and `null`; an `allOf` says its members' type
/// (AWS's `{allOf: [{$ref: NextToken}, {description: …}]}`).
fn only_type(schema: &Value, defs: &Defs, ty: &str) -> bool {
    let schema = defs.follow(schema);
    if schema.get("type").is_none()
        && let Some(all) = schema.get("allOf").and_then(Value::as_array)
    {
        let typed: Vec<&Value> = all.iter().filter(|m| defs.follow(m).get("type").is_some()).collect();
        return !typed.is_empty() && typed.iter().all(|m| only_type(m, defs, ty));
    }
    match schema.get("type") {
        Some(Value::String(t)) => t == ty,
        Some(Value::Array(ts)) => ts.iter().any(|t| t == ty) && ts.iter().all(|t| t == ty || t == "null"),
        _ => false,
    }
}

/// The string fields of an object result, at the top and one or two objects down: (JSON
/// Pointer, the property holding it or "", its name), names in snake case.
fn string_fields(output: &Value, defs: &Defs) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![(output, String::new(), String::new(), 0)];
    // Parents are pushed in snake case already.
    while let Some((schema, pointer, parent, depth)) = stack.pop() {
        let Some(props) = defs.follow(schema).get("properties").and_then(Value::as_object) else { continue };
        for (name, prop) in props {
            let here = join_pointer(&pointer, name);
            if is_string(prop, defs) {
                out.push((here, parent.clone(), snake(name)));
            } else if depth < 2 {
                stack.push((prop, here, snake(name), depth + 1));
            }
        }
    }
    out.sort();
    out
}

/// `/next_cursor` → `next_cursor`, `/meta/next` → `meta.next`: how a description names it.
fn field_name(pointer: &str) -> String {
    pointer.trim_start_matches('/').split('/').map(unescape_token).collect::<Vec<_>>().join(".")
}

/// `~15 min`, as a description states a lifetime.
fn lifetime(secs: u64) -> String {
    format!("~{}", super::retry::span(secs))
}

/// Whether the response schema has a property at `pointer` (object properties only, through
/// named shapes).
fn reaches(output: &Value, pointer: &str, defs: &Defs) -> bool {
    let Some(rest) = pointer.strip_prefix('/') else { return false };
    let mut node = output;
    for segment in rest.split('/').map(unescape_token) {
        match defs.follow(node).get("properties").and_then(|p| p.get(&segment)) {
            Some(next) => node = next,
            None => return false,
        }
    }
    true
}

/// In an assembled output schema, the field at `pointer` described as a handle or null.
/// Returns whether it was found.
pub fn describe_in_output(schema: &mut Value, pointer: &str, ttl_secs: u64) -> bool {
    let Some(rest) = pointer.strip_prefix('/') else { return false };
    let mut at = String::new();
    for segment in rest.split('/').map(unescape_token) {
        // Through a local `$ref` into the schema's own `$defs`.
        if let Some(target) = schema.pointer(&at).and_then(|n| n.get("$ref")).and_then(Value::as_str) {
            match target.strip_prefix('#') {
                Some(p) if p.starts_with("/$defs/") => at = p.to_owned(),
                _ => return false,
            }
        }
        at = format!("{at}/properties/{}", escape_token(&segment));
        if schema.pointer(&at).is_none() {
            return false;
        }
    }
    match schema.pointer_mut(&at) {
        Some(slot) => {
            *slot = json!({
                "type": ["string", "null"],
                "description": format!("The handle of the next page (valid {}); null on the last page.", lifetime(ttl_secs)),
            });
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_field_in_an_output_schema_becomes_a_handle() {
        let mut s = json!({"type": "object", "properties": {
            "items": {"type": "array"},
            "meta": {"$ref": "#/$defs/Meta"}
        }, "$defs": {"Meta": {"type": "object", "properties": {"next": {"type": "integer"}}}}});
        assert!(describe_in_output(&mut s, "/meta/next", 900));
        assert_eq!(s["$defs"]["Meta"]["properties"]["next"]["type"], json!(["string", "null"]));
        assert!(!describe_in_output(&mut s, "/missing", 900));
        assert_eq!(field_name("/meta/next"), "meta.next");
        assert_eq!(lifetime(900), "~15 min");
    }
}
