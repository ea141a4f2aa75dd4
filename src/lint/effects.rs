//! R9: every side-effecting tool answers three questions before it is emitted — reversible?,
//! who approves?, what does a repeat do? A tool the overlay declares must answer them (error);
//! an undeclared one runs on defaults, which this notes — or warns of, when its verb says the
//! effect may be one nobody can take back (delete, void, cancel, refund, send, transfer, pay…:
//! R8 asks who approves those).

use super::{Context, Rule, side_effecting};
use crate::diag::Diagnostic;

pub struct EffectsRule;

pub const CODE: &str = "R9-effects";

/// Verbs whose effect often cannot be taken back.
const IRREVERSIBLE_VERBS: &[&str] = &[
    "delete",
    "remove",
    "destroy",
    "purge",
    "void",
    "cancel",
    "refund",
    "send",
    "transfer",
    "pay",
    "payout",
    "charge",
    "capture",
    "publish",
    "close",
    "revoke",
    "terminate",
    "wipe",
];

impl Rule for EffectsRule {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for tool in ctx.catalog.tools.iter().filter(|t| side_effecting(t)) {
            let e = tool.effects.as_ref();
            let missing: Vec<&str> = [
                ("reversible", e.is_none_or(|e| e.reversible.is_none())),
                ("approver", e.is_none_or(|e| e.approver.is_none())),
                ("on_repeat", e.is_none_or(|e| e.on_repeat.is_none())),
            ]
            .iter()
            .filter(|(_, m)| *m)
            .map(|(k, _)| *k)
            .collect();
            if missing.is_empty() {
                continue;
            }
            let message = format!("`{}` changes state but does not say: {}", tool.name, missing.join(", "));
            let help = "answer in the overlay: `effects: {reversible: …, approver: none|auto|human, on_repeat: replay|no_effect|repeats}`";
            let verb = tool.name.split('_').next().unwrap_or_default();
            let d = if tool.declared.is_some() {
                Diagnostic::error(CODE, message)
            } else if IRREVERSIBLE_VERBS.contains(&verb) && missing.contains(&"reversible") {
                Diagnostic::warning(
                    CODE,
                    format!("{message}; `{verb}` may not be undoable, so say who approves it (R8)"),
                )
            } else {
                Diagnostic::note(CODE, message)
            };
            out.push(ctx.at_tool(d.with_help(help), tool));
        }
    }
}
