//! E5: side-effecting tools confirm what changed. A success response declared as an empty
//! object (no properties) confirms nothing; an undeclared body gets the runtime's confirmation.

use serde_json::Value;

use super::{Context, Rule, side_effecting};
use crate::diag::Diagnostic;

pub struct Confirm;

pub const CODE: &str = "E5-confirm";

impl Rule for Confirm {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for tool in ctx.catalog.tools.iter().filter(|t| side_effecting(t)) {
            let Some(output) = &tool.output else { continue };
            let shape = ctx.catalog.defs.follow(output);
            let object = shape.get("type").and_then(Value::as_str) == Some("object");
            let empty = shape.get("properties").and_then(Value::as_object).is_none_or(|p| p.is_empty())
                && ["additionalProperties", "allOf", "anyOf", "oneOf", "$ref", "patternProperties"]
                    .iter()
                    .all(|k| shape.get(*k).is_none());
            if object && empty {
                out.push(ctx.at_tool(
                    Diagnostic::warning(CODE, format!("`{}` changes state but its result is declared as an empty object", tool.name))
                        .with_help("describe the success response in the spec: the changed resource, or at least its id and new state"),
                    tool,
                ));
            }
        }
    }
}
