//! T4: internal, admin and meta endpoints stay out of tools/list. They are left out by default;
//! this flags the ones an overlay brought back, so the choice is seen.

use super::{Context, Rule};
use crate::diag::Diagnostic;
use crate::plan::select;

pub struct Internal;

pub const CODE: &str = "T4-internal";

impl Rule for Internal {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        // An API that is mostly admin routes is an admin product (see `select::defaults`).
        let internal = ctx.catalog.tools.iter().filter(|t| select::looks_internal(&t.operation.path).is_some()).count();
        if internal * 2 > ctx.catalog.tools.len() {
            return;
        }
        for tool in &ctx.catalog.tools {
            if let Some(reason) = select::looks_internal(&tool.operation.path) {
                out.push(
                    ctx.at_tool(
                        Diagnostic::warning(CODE, format!("`{}` is {reason}: agents rarely need it", tool.name))
                            .with_help("drop it from the overlay's `include` unless an agent must call it"),
                        tool,
                    ),
                );
            }
        }
    }
}
