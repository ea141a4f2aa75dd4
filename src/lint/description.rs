//! D1: every tool has a description that states its purpose, and it stays short.

use super::{Context, Rule};
use crate::diag::Diagnostic;
use crate::plan::describe;

pub struct Description;

pub const CODE: &str = "D1-description";
/// Beyond this a description is documentation, not a contract; the model pays for it in tokens.
const MAX_CHARS: usize = 1024;

impl Rule for Description {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        // Plain text only: every text is cleaned when the plan is made, so markup here comes
        // from mcp-gen's own wording or an overlay path that skipped cleaning.
        let flag = |text: &str| describe::markup(text).map(|kind| vec![kind.to_owned()]).unwrap_or_default();
        out.extend(super::each_text(ctx.catalog, flag, |tool, pointer, kind| {
            ctx.at_tool(
                Diagnostic::warning(CODE, format!("`{}` {pointer} holds markup ({kind})", tool.name)).with_help(
                    "write plain text: clients show descriptions as they are and the model pays for markup in tokens",
                ),
                tool,
            )
        }));
        for tool in &ctx.catalog.tools {
            let len = tool.description.chars().count();
            if !describe::says_something(&tool.description) {
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
