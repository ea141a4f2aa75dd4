//! T1, T5: tool names are at most 64 characters of `[A-Za-z0-9_.-]`, unique, and snake_case.

use std::collections::BTreeSet;

use super::{Context, Rule};
use crate::diag::Diagnostic;

pub struct ToolName;

pub const CODE: &str = "T1-tool-name";

/// The intersection of what MCP clients accept (see `shared/reference`, SEP-986 and the
/// conformance check `tools-name-format`).
pub fn valid(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

impl Rule for ToolName {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let mut seen = BTreeSet::new();
        for tool in &ctx.catalog.tools {
            if !valid(&tool.name) {
                out.push(
                    ctx.at_tool(
                        Diagnostic::error(
                            CODE,
                            format!("tool name `{}` is not 1-64 characters of [A-Za-z0-9_.-]", tool.name),
                        )
                        .with_help("rename the tool in the overlay"),
                        tool,
                    ),
                );
            } else if tool.name.bytes().any(|b| b.is_ascii_uppercase() || b == b'-' || b == b'.') {
                out.push(
                    ctx.at_tool(
                        Diagnostic::warning(CODE, format!("tool name `{}` is not snake_case verb_noun", tool.name))
                            .with_help("rename the tool in the overlay, e.g. `get_user`"),
                        tool,
                    ),
                );
            }
            if !seen.insert(tool.name.as_str()) {
                out.push(
                    ctx.at_tool(
                        Diagnostic::error(CODE, format!("two tools are named `{}`", tool.name))
                            .with_help("give one of them another name in the overlay"),
                        tool,
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn validity() {
        assert!(super::valid("get_pet"));
        assert!(super::valid(&"a".repeat(64)));
        assert!(!super::valid(&"a".repeat(65)));
        assert!(!super::valid("get pet"));
        assert!(!super::valid(""));
    }
}
