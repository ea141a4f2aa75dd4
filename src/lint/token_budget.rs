//! T6: the catalog is priced and held to the overlay's budget (o200k_base tokens of each tool's
//! name, description and inputSchema).

use super::{Context, Rule};
use crate::diag::Diagnostic;

pub struct TokenBudget;

pub const CODE: &str = "T6-token-budget";

impl Rule for TokenBudget {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        // Counting is only paid for when the team set a budget.
        let Some(budget) = ctx.catalog.budget else { return };
        let tokens = crate::tokens::price(ctx.catalog);
        if let Some(max) = budget.total
            && tokens.visible() as u64 > max
        {
            out.push(
                Diagnostic::error(
                    CODE,
                    format!("the catalog costs {} tokens, over its budget of {max}", tokens.visible()),
                )
                .with_help("shorten descriptions, split the API into toolsets, or raise `budget.total` in the overlay"),
            );
        }
        if let Some(max) = budget.per_tool {
            for (t, tool) in tokens.tools.iter().zip(&ctx.catalog.tools) {
                if t.visible as u64 > max {
                    out.push(ctx.at_tool(
                        Diagnostic::error(CODE, format!("`{}` costs {} tokens, over the per-tool budget of {max}", t.name, t.visible))
                            .with_help("shorten its description and argument descriptions, hide arguments it does not need, or raise `budget.per_tool`"),
                        tool,
                    ));
                }
            }
        }
    }
}
