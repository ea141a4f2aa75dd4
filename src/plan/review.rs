//! The review surface (`mcp-gen plan`): every tool with the operation it came from and where each
//! argument goes upstream, and every operation left out with the reason. Reviewers and checks read
//! this instead of the generated code.

use serde_json::{Map, Value, json};

use super::{Catalog, Target, Tool};
use crate::diag::escape_token;

fn style(s: crate::resolve::Style) -> &'static str {
    use crate::resolve::Style;
    match s {
        Style::Simple => "simple",
        Style::Label => "label",
        Style::Matrix => "matrix",
        Style::Form => "form",
        Style::SpaceDelimited => "spaceDelimited",
        Style::PipeDelimited => "pipeDelimited",
        Style::DeepObject => "deepObject",
    }
}

fn source(target: &Target) -> Value {
    match target {
        Target::Path { name, style: s, explode } => {
            json!({"in": "path", "name": name, "style": style(*s), "explode": explode})
        }
        Target::Query { name, style: s, explode, allow_reserved, json } => json!({
            "in": "query", "name": name, "style": style(*s), "explode": explode,
            "allowReserved": allow_reserved, "json": json,
        }),
        Target::Header { name, json } => json!({"in": "header", "name": name, "json": json}),
        Target::Cookie { name, json } => json!({"in": "cookie", "name": name, "json": json}),
        Target::BodyField { name } => json!({"in": "body", "pointer": format!("/{}", escape_token(name))}),
        Target::Body => json!({"in": "body", "pointer": ""}),
        Target::Local => json!({"in": "server"}),
    }
}

/// The operation a tool (or one route of a merged tool) calls.
fn operation(t: &Tool) -> Value {
    json!({
        "method": t.operation.method.to_string(),
        "path": t.operation.path,
        "operationId": t.operation.operation_id,
        "pointer": format!("#{}", t.operation.pointer),
    })
}

/// Where a tool's (or one route's) arguments go upstream: arguments, fixed and hidden ones, body
/// and security.
fn mapping(t: &Tool, out: &mut Map<String, Value>) {
    let body = t.body.as_ref().map(|b| {
        json!({
            "mediaType": b.media_type,
            "encoding": format!("{:?}", b.encoding).to_lowercase(),
            "required": b.required,
            "files": b.files,
        })
    });
    let args =
        t.args.iter().map(|arg| json!({"name": arg.name, "required": arg.required, "source": source(&arg.target)}));
    out.insert("arguments".to_owned(), args.collect());
    let fixed = t.fixed.iter().map(|f| json!({"source": source(&f.arg.target), "value": f.value}));
    out.insert("fixed".to_owned(), fixed.collect());
    let hidden = t.hidden.iter().map(|a| json!({"name": a.name, "source": source(&a.target)}));
    out.insert("hidden".to_owned(), hidden.collect());
    out.insert("extraArgumentsGoToBody".to_owned(), json!(t.rest.is_some()));
    out.insert("body".to_owned(), json!(body));
    out.insert("security".to_owned(), json!(t.security));
    out.insert("scopes".to_owned(), json!(t.scopes));
}

/// Every tool's name and what gave it, one line each in name order: `name`, `name_rule` and the
/// operations it calls (`METHOD /path`), tab-separated.
pub fn names<T: std::ops::Deref<Target = Tool>>(catalog: &Catalog<T>) -> String {
    let mut out = String::new();
    for t in &catalog.tools {
        let routes: Vec<String> =
            t.operations().filter(|o| !o.path.is_empty()).map(|o| format!("{} {}", o.method, o.path)).collect();
        out.push_str(&format!("{}\t{}\t{}\n", t.name, t.name_rule, routes.join(", ")));
    }
    out
}

/// The plan as JSON (stable key order, tools sorted by name). A merged tool also lists its
/// `routes`, each with its own upstream mapping, in the order the server tries them.
pub fn review<T: std::ops::Deref<Target = Tool>>(catalog: &Catalog<T>) -> Value {
    let tools: Vec<Value> = catalog
        .tools
        .iter()
        .map(|t| {
            let a = t.annotations;
            let mut out = Map::new();
            out.insert("name".to_owned(), json!(t.name));
            out.insert("title".to_owned(), json!(t.title));
            out.insert("operation".to_owned(), operation(t));
            out.insert("name_rule".to_owned(), json!(t.name_rule));
            out.insert(
                "annotations".to_owned(),
                json!({
                    "readOnlyHint": a.read_only, "destructiveHint": a.destructive,
                    "idempotentHint": a.idempotent, "openWorldHint": a.open_world,
                }),
            );
            mapping(t, &mut out);
            out.insert("idsFrom".to_owned(), json!(t.list_tool));
            out.insert("effects".to_owned(), t.effects.as_ref().map_or(Value::Null, effects));
            // R8: whether calls are planned and wait for approval, and the rule that approves
            // some of them by itself.
            let approval = crate::plan::intent::approval(t).map_or(Value::Null, |(ttl, rule)| {
                json!({"planned": true, "planTtlSecs": ttl, "autoIf": rule, "otherwise": "human"})
            });
            out.insert("approval".to_owned(), approval);
            let long_running = match t.long_running {
                Some(crate::plan::LongRunning::Starts) => json!("starts: 202 + Location, followed as a task or by handle"),
                Some(crate::plan::LongRunning::Follows) => json!("follows operations by handle"),
                None => Value::Null,
            };
            out.insert("longRunning".to_owned(), long_running);
            out.insert(
                "pagination".to_owned(),
                t.pagination
                    .as_ref()
                    .map_or(Value::Null, |p| json!({"cursor": p.cursor, "next": p.next, "limit": p.limit, "handleTtlSeconds": p.handle_ttl_secs, "linkHeader": p.link})),
            );
            out.insert("retry".to_owned(), retry(t));
            if !t.routes.is_empty() {
                let routes = t.routes.iter().map(|r| {
                    let mut route = Map::new();
                    route.insert("operation".to_owned(), operation(r));
                    mapping(r, &mut route);
                    route.insert("idsFrom".to_owned(), json!(r.list_tool));
                    Value::Object(route)
                });
                out.insert("routes".to_owned(), routes.collect());
            }
            Value::Object(out)
        })
        .collect();
    let left_out: Vec<Value> = catalog
        .excluded
        .iter()
        .map(|e| json!({"operation": e.operation, "operationId": e.operation_id, "reason": e.reason}))
        .collect();
    json!({
        "server": {"name": catalog.server.name, "crate": catalog.server.crate_name, "title": catalog.server.title},
        "source": {"file": catalog.source.file_name, "title": catalog.source.api_title, "version": catalog.source.api_version},
        "tools": tools,
        "toolsets": catalog.toolsets.iter().map(|t| json!({"name": t.name, "description": t.description, "tools": t.tools})).collect::<Vec<_>>(),
        "exposure": exposure(catalog.server.exposure, catalog.tools.len()),
        "leftOut": left_out,
    })
}

/// The exposure served, and the one each client profile recommends for this many tools (T6).
fn exposure(served: crate::overlay::Exposure, tools: usize) -> Value {
    let recommended: serde_json::Map<String, Value> = crate::plan::exposure::PROFILES
        .iter()
        .map(|p| {
            let (mode, why) = crate::plan::exposure::recommend(tools, p);
            (p.name.to_owned(), json!({"exposure": mode.name(), "why": why}))
        })
        .collect();
    json!({"served": served.name(), "recommended": recommended})
}

/// The tool's idempotency key and the guarantee it gives (R2, R6).
fn retry(t: &crate::plan::Tool) -> Value {
    use crate::plan::retry::{self, KeySource, Window};
    let key = t.key.as_ref().map(|k| match &k.source {
        KeySource::Caller { arg } => json!({"source": "caller", "argument": arg, "ttlSeconds": k.ttl_secs}),
        KeySource::Natural { fields, window } => json!({
            "source": "natural", "fields": fields, "ttlSeconds": k.ttl_secs,
            "window": match window {
                Window::Seconds(s) => json!({"seconds": s}),
                Window::Day { offset_minutes } => json!({"dayAtUtcOffsetMinutes": offset_minutes}),
            },
        }),
    });
    json!({"key": key, "forwarded": retry::forwarded(t), "guarantee": retry::guarantee(t)})
}

/// The team's answers (R9) as written, `null` where unanswered.
fn effects(e: &crate::overlay::Effects) -> Value {
    use crate::overlay::{Approver, Idempotency, KeyKind, OnRepeat};
    let idempotency = e.idempotency.as_ref().map(|i| match i {
        Idempotency::Kind(KeyKind::Caller) => json!("caller"),
        Idempotency::Kind(KeyKind::None) => json!("none"),
        Idempotency::Natural { natural, window } => json!({"natural": natural, "window": window}),
    });
    json!({
        "readOnly": e.read_only,
        "reversible": e.reversible,
        "approver": e.approver.map(|a| match a { Approver::None => "none", Approver::Auto => "auto", Approver::Human => "human" }),
        "onRepeat": e.on_repeat.map(|r| match r { OnRepeat::Replay => "replay", OnRepeat::NoEffect => "no_effect", OnRepeat::Repeats => "repeats" }),
        "idempotency": idempotency,
        "openWorld": e.open_world,
    })
}
