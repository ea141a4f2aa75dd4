//! T5: the catalog is deterministic and snapshot-tested — a checked-in `tools.json`
//! (`mcp-gen lint --against FILE`) must be exactly what the spec and overlay compile to.

use super::{Context, Rule};
use crate::diag::Diagnostic;

pub struct Determinism;

pub const CODE: &str = "T5-stale-catalog";

impl Rule for Determinism {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let Some(checked_in) = ctx.checked_in else { return };
        let fresh = crate::schema::tools_json::tools_json(ctx.catalog);
        if fresh == checked_in {
            return;
        }
        let line = fresh
            .lines()
            .zip(checked_in.lines())
            .position(|(a, b)| a != b)
            .map_or_else(|| fresh.lines().count().min(checked_in.lines().count()) + 1, |i| i + 1);
        out.push(
            Diagnostic::error(
                CODE,
                format!("the checked-in tools.json differs from what the spec compiles to (first at line {line})"),
            )
            .with_help("regenerate (`mcp-gen build` or `mcp-gen bless`) and review the contract diff"),
        );
    }
}
