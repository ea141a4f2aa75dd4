//! R7: read-only tools take no idempotency key (a spurious key is schema noise and tokens).

use super::{Context, Rule};
use crate::diag::Diagnostic;
use crate::overlay::{Idempotency, KeyKind};

pub struct ReadOnlyKey;

pub const CODE: &str = "R7-read-only-key";

impl Rule for ReadOnlyKey {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for tool in ctx.catalog.tools.iter().filter(|t| t.annotations.read_only) {
            let keyed = tool
                .effects
                .as_ref()
                .and_then(|e| e.idempotency.as_ref())
                .is_some_and(|i| *i != Idempotency::Kind(KeyKind::None));
            let arg = tool.args.iter().any(|a| a.name == crate::plan::retry::KEY_ARG);
            let diagnostic = if keyed {
                Diagnostic::warning(CODE, format!("read-only `{}` takes an idempotency key", tool.name))
                    .with_help("remove `idempotency` from its effects: a read is safe to repeat")
            } else if arg {
                // The spec's own parameter (Salesloft's `GET /tasks` filters by the key a task
                // was created with): data, but a model reads it as the retry key.
                Diagnostic::warning(
                    CODE,
                    format!(
                        "read-only `{}` has an argument named `{}`, which reads as a retry key",
                        tool.name,
                        crate::plan::retry::KEY_ARG
                    ),
                )
                .with_help(format!(
                    "it is the spec's own parameter: rename it in the overlay (`params: {{{}: {{rename: …}}}}`)",
                    crate::plan::retry::KEY_ARG
                ))
            } else {
                continue;
            };
            out.push(ctx.at_tool(diagnostic, tool));
        }
    }
}
