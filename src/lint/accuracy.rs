//! D4: descriptions are accurate — a tool that writes never claims to be read-only, and a
//! read-only tool does not claim to change things.

use super::{Context, Rule};
use crate::diag::Diagnostic;

pub struct Accuracy;

pub const CODE: &str = "D4-accuracy";
const CLAIMS_READ_ONLY: &[&str] = &[
    "read-only",
    "read only",
    "does not modify",
    "doesn't modify",
    "no side effect",
    "without side effects",
    "changes nothing",
    "safe to call",
];
const CLAIMS_WRITE: &[&str] = &["creates ", "deletes ", "updates ", "removes ", "sends ", "charges "];

impl Rule for Accuracy {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for tool in &ctx.catalog.tools {
            let lower = tool.description.to_lowercase();
            if !tool.annotations.read_only
                && let Some(p) = CLAIMS_READ_ONLY.iter().find(|p| lower.contains(*p))
            {
                out.push(ctx.at_tool(
                    Diagnostic::warning(CODE, format!("`{}` changes state but its description says \"{}\"", tool.name, p.trim()))
                        .with_help("describe what the tool changes; if it really changes nothing, set `effects: {read_only: true}`"),
                    tool,
                ));
            }
            if tool.annotations.read_only && CLAIMS_WRITE.iter().any(|p| lower.starts_with(p)) {
                out.push(
                    ctx.at_tool(
                        Diagnostic::warning(
                            CODE,
                            format!("`{}` is read-only but its description says it changes something", tool.name),
                        )
                        .with_help("fix the description, or the tool's effects in the overlay"),
                        tool,
                    ),
                );
            }
        }
    }
}
