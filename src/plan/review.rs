//! The review surface (`mcp-gen plan`): every tool with the operation it came from and where each
//! argument goes upstream, and every operation left out with the reason. Reviewers and checks read
//! this instead of the generated code.

use serde_json::{Value, json};

use super::{Catalog, Target};
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
    }
}

/// The plan as JSON (stable key order, tools sorted by name).
pub fn review(catalog: &Catalog) -> Value {
    let tools: Vec<Value> = catalog
        .tools
        .iter()
        .map(|t| {
            let a = t.annotations;
            let body = t.body.as_ref().map(|b| {
                json!({
                    "mediaType": b.media_type,
                    "encoding": format!("{:?}", b.encoding).to_lowercase(),
                    "required": b.required,
                    "files": b.files,
                })
            });
            json!({
                "name": t.name,
                "title": t.title,
                "operation": {
                    "method": t.operation.method.to_string(),
                    "path": t.operation.path,
                    "operationId": t.operation.operation_id,
                    "pointer": format!("#{}", t.operation.pointer),
                },
                "annotations": {
                    "readOnlyHint": a.read_only, "destructiveHint": a.destructive,
                    "idempotentHint": a.idempotent, "openWorldHint": a.open_world,
                },
                "arguments": t.args.iter().map(|arg| json!({
                    "name": arg.name, "required": arg.required, "source": source(&arg.target),
                })).collect::<Vec<_>>(),
                "extraArgumentsGoToBody": t.rest.is_some(),
                "body": body,
                "security": t.security,
                "idsFrom": t.list_tool,
            })
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
        "leftOut": left_out,
    })
}
