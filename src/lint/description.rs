//! D1: every tool has a description that states its purpose, and it stays short.

use super::{Context, Rule};
use crate::diag::Diagnostic;

pub struct Description;

pub const CODE: &str = "D1-description";
/// Beyond this a description is documentation, not a contract; the model pays for it in tokens.
const MAX_CHARS: usize = 1024;

impl Rule for Description {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for tool in &ctx.catalog.tools {
            let len = tool.description.chars().count();
            if tool.description.trim().is_empty() {
                out.push(
                    ctx.at_tool(
                        Diagnostic::error(CODE, format!("tool `{}` has no description", tool.name))
                            .with_help("add a summary to the operation or a description in the overlay"),
                        tool,
                    ),
                );
            } else if len > MAX_CHARS {
                out.push(
                    ctx.at_tool(
                        Diagnostic::warning(
                            CODE,
                            format!("the description of `{}` is {len} characters long", tool.name),
                        )
                        .with_help(format!(
                            "shorten it to one sentence of purpose and one of rules (at most {MAX_CHARS} characters)"
                        )),
                        tool,
                    ),
                );
            }
        }
    }
}
