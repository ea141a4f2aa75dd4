//! I6: argument names describe the data, never the agent's internals (system_prompt,
//! conversation_history, full_context): asking for those invites the model to leak them.

use super::{Context, Rule};
use crate::diag::Diagnostic;

pub struct ParamNames;

pub const CODE: &str = "I6-param-names";
const AGENT_INTERNALS: &[&str] = &[
    "system_prompt",
    "prompt_history",
    "conversation",
    "conversation_history",
    "chat_history",
    "full_context",
    "context_window",
    "previous_messages",
    "all_messages",
    "instructions_so_far",
    "agent_memory",
    "scratchpad",
    "reasoning",
    "chain_of_thought",
    "hidden_context",
];

impl Rule for ParamNames {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for tool in &ctx.catalog.tools {
            for arg in &tool.args {
                let snake = heck::ToSnakeCase::to_snake_case(arg.name.as_str());
                if AGENT_INTERNALS.contains(&snake.as_str()) {
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
