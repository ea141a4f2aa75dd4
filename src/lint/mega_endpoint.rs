//! T2, I4: a mega-endpoint left whole — a writing tool whose behaviour is still chosen by an
//! argument (`action: create|delete`) or by a `oneOf` body — should be split into atomic tools.

use serde_json::Value;

use super::{Context, Rule};
use crate::diag::Diagnostic;
use crate::plan::{Target, split};

pub struct MegaEndpoint;

pub const CODE: &str = "T2-mega-endpoint";

impl Rule for MegaEndpoint {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for tool in ctx.catalog.tools.iter().filter(|t| super::side_effecting(t)) {
            let defs = &ctx.catalog.defs;
            for arg in &tool.args {
                let shape = defs.follow(&arg.schema);
                let selector = split::SELECTORS.contains(&arg.name.to_ascii_lowercase().as_str())
                    && shape.get("enum").and_then(Value::as_array).is_some_and(|e| e.len() >= 2);
                let discriminated = arg.target == Target::Body && shape.get("discriminator").is_some();
                if selector || discriminated {
                    out.push(
                        ctx.at_tool(
                            Diagnostic::warning(
                                CODE,
                                format!(
                                    "`{}` chooses its behaviour by `{}`: one tool does several things",
                                    tool.name, arg.name
                                ),
                            )
                            .with_help(
                                "split it in the overlay: one tool per behaviour, each with `fixed: {<selector>: <value>}`",
                            ),
                            tool,
                        ),
                    );
                }
            }
        }
    }
}
