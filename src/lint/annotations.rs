//! T3: annotations are explicit and consistent — every tool has a title, and a tool on a method
//! that writes is not marked read-only unless that is plausible (a search sent as POST).

use super::{Context, Rule};
use crate::diag::Diagnostic;
use crate::resolve::Method;

pub struct AnnotationsRule;

pub const CODE: &str = "T3-annotations";

impl Rule for AnnotationsRule {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for tool in &ctx.catalog.tools {
            let a = tool.annotations;
            if tool.title.trim().is_empty() {
                out.push(
                    ctx.at_tool(
                        Diagnostic::warning(CODE, format!("`{}` has no title", tool.name))
                            .with_help("give the tool a `title` in the overlay"),
                        tool,
                    ),
                );
            }
            if a.read_only && a.destructive {
                out.push(
                    ctx.at_tool(
                        Diagnostic::error(CODE, format!("`{}` is marked both read-only and destructive", tool.name))
                            .with_help("fix the tool's `effects` in the overlay"),
                        tool,
                    ),
                );
            }
            if a.read_only && matches!(tool.operation.method, Method::Delete | Method::Put | Method::Patch) {
                out.push(ctx.at_tool(
                    Diagnostic::warning(
                        CODE,
                        format!("`{}` is marked read-only but calls {}, which changes state", tool.name, tool.operation.method),
                    )
                    .with_help("remove `read_only: true` from the tool's effects unless the endpoint really changes nothing"),
                    tool,
                ));
            }
        }
    }
}
