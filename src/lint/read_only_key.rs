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
            if keyed || arg {
                out.push(
                    ctx.at_tool(
                        Diagnostic::warning(CODE, format!("read-only `{}` takes an idempotency key", tool.name))
                            .with_help("remove `idempotency` from its effects: a read is safe to repeat"),
                        tool,
                    ),
                );
            }
        }
    }
}
