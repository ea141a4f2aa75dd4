//! I6: argument names describe the data, never the agent's internals (system_prompt,
//! conversation_history, full_context): asking for those invites the model to leak them. The
//! plan leaves such arguments out unless the overlay keeps one; this warns about those kept.

use super::{Context, Rule};
use crate::diag::Diagnostic;

pub struct ParamNames;

pub const CODE: &str = "I6-param-names";

impl Rule for ParamNames {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for tool in &ctx.catalog.tools {
            for arg in &tool.args {
                let description = arg.schema.get("description").and_then(serde_json::Value::as_str);
                if crate::plan::internals::asks_for_internals(&arg.name, description) {
                    out.push(
                        ctx.at_tool(
                            Diagnostic::warning(
                                CODE,
                                format!(
                                    "`{}` asks for `{}`, which is the agent's own state, not data",
                                    tool.name, arg.name
                                ),
                            )
                            .with_help("rename it for the data it carries (`params: {…: {rename: …}}`) or hide it"),
                            tool,
                        ),
                    );
                }
            }
        }
    }
}
