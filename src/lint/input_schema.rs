//! MCP and I2: an inputSchema is an object-rooted JSON Schema whose `$ref`s all resolve inside it.

use super::{Context, Rule};
use crate::diag::Diagnostic;
use crate::resolve::schema::{def_name, for_each_subschema};

pub struct InputSchema;

pub const CODE: &str = "I2-input-schema";

fn unresolved<'a>(v: &'a serde_json::Value, root: &serde_json::Value, out: &mut Vec<&'a str>) {
    if let Some(r) = v.get("$ref").and_then(|r| r.as_str())
        && def_name(v).is_none_or(|n| root.pointer(&format!("/$defs/{n}")).is_none())
    {
        out.push(r);
    }
    for_each_subschema(v, &mut |child| unresolved(child, root, out));
}

impl Rule for InputSchema {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for tool in &ctx.catalog.tools {
            if tool.input_schema.get("type").and_then(|t| t.as_str()) != Some("object") {
                out.push(
                    ctx.at_tool(
                        Diagnostic::error(
                            CODE,
                            format!("the inputSchema of `{}` is not rooted at `type: object`", tool.name),
                        )
                        .with_help("report this as an mcp-gen bug"),
                        tool,
                    ),
                );
            }
            for schema in std::iter::once(&tool.input_schema).chain(tool.output_schema.as_ref()) {
                let mut refs = Vec::new();
                unresolved(schema, schema, &mut refs);
                for r in refs {
                    out.push(
                        ctx.at_tool(
                            Diagnostic::error(
                                CODE,
                                format!("a schema of `{}` refers to `{r}`, which it does not define", tool.name),
                            )
                            .with_help("fix the `$ref` in the spec"),
                            tool,
                        ),
                    );
                }
            }
        }
    }
}
