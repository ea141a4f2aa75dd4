//! T7: server instructions say what the server is for and give general context; they do not
//! relist the tools, tell the model how to think, or run long.

use super::{Context, Rule};
use crate::diag::Diagnostic;

pub struct Instructions;

pub const CODE: &str = "T7-instructions";
/// Instructions are read on every session; beyond this they are documentation.
const MAX_CHARS: usize = 1200;
/// Naming this many tools is a tool list, which tools/list already is.
const MAX_TOOLS_NAMED: usize = 3;
const HOW_TO_THINK: &[&str] =
    &["step by step", "think carefully", "best judgement", "best judgment", "you are a", "you are an", "act as"];

impl Rule for Instructions {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let Some(text) = &ctx.catalog.server.instructions else {
            out.push(
                Diagnostic::note(CODE, "the server has no instructions")
                    .with_help("write `server.instructions` in the overlay: what the server is for, in two sentences"),
            );
            return;
        };
        let mut problems = Vec::new();
        let len = text.chars().count();
        if len > MAX_CHARS {
            problems.push(format!("the server instructions are {len} characters long (at most {MAX_CHARS})"));
        }
        let named = ctx.catalog.tools.iter().filter(|t| contains_word(text, &t.name)).count();
        if named >= MAX_TOOLS_NAMED {
            problems.push(format!("the server instructions name {named} tools (tools/list already lists them)"));
        }
        let lower = text.to_lowercase();
        if let Some(p) = HOW_TO_THINK.iter().find(|p| lower.contains(*p)) {
            problems.push(format!("the server instructions tell the model how to think (\"{p}\")"));
        }
        for p in problems {
            out.push(Diagnostic::warning(CODE, p).with_help(
                "say what the server is for and the context it works in (account, units, id formats), nothing more",
            ));
        }
    }
}

fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        boundary(before) && boundary(after)
    })
}
