//! D3: no prompt-injection patterns in anything the model reads — tool descriptions, argument
//! and result descriptions, server instructions. Spec text is filtered when the plan is made;
//! this also holds the overlay's own text and every schema description to the rule.

use super::{Context, Rule};
use crate::diag::Diagnostic;
use crate::plan::describe;

pub struct Injection;

pub const CODE: &str = "D3-injection";

impl Rule for Injection {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let flag = |text: &str| describe::untrusted(text).1;
        if let Some(text) = &ctx.catalog.server.instructions {
            for s in flag(text) {
                out.push(
                    Diagnostic::warning(
                        CODE,
                        format!("the server instructions address the model: \"{}\"", describe::shorten(&s, 120)),
                    )
                    .with_help("state facts about the server; do not give the model orders"),
                );
            }
        }
        out.extend(super::each_text(ctx.catalog, flag, |tool, pointer, s| {
            ctx.at_tool(
                Diagnostic::warning(
                    CODE,
                    format!("`{}` {pointer} addresses the model: \"{}\"", tool.name, describe::shorten(&s, 120)),
                )
                .with_help("describe what the tool or field is; set the description in the overlay"),
                tool,
            )
        }));
    }
}
