//! R8: a tool whose calls wait for approval must be followable from its plan to its result, and
//! a rule that approves calls by itself must say something about the tool's own arguments. The
//! rule (`approval.auto_if`) is CEL, parsed here as the server will parse it; every name it reads
//! must be an argument of the tool's inputSchema, or the rule could never hold (or always fail).

use super::{Context, Rule, side_effecting};
use crate::diag::Diagnostic;
use crate::overlay::Approver;

pub struct ApprovalRule;

pub const CODE: &str = "R8-approval";

impl Rule for ApprovalRule {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for tool in &ctx.catalog.tools {
            let approver = tool.effects.as_ref().and_then(|e| e.approver);
            let gated = matches!(approver, Some(Approver::Human | Approver::Auto)) && side_effecting(tool);
            let mut error = |message: String, help: &str| {
                out.push(ctx.at_tool(Diagnostic::error(CODE, message).with_help(help), tool));
            };
            if gated && tool.key.is_none() {
                error(
                    format!("`{}` waits for approval, but has no idempotency key to follow its plan with", tool.name),
                    "give it a key (`effects.idempotency: caller`), or say `approver: none`",
                );
            }
            let rule = tool.approval_rule.as_deref();
            if approver == Some(Approver::Auto) && rule.is_none() {
                error(
                    format!("`{}` is approved by a rule (`approver: auto`), but names none", tool.name),
                    "add `approval: {auto_if: \"<CEL over the arguments>\"}`, or say `approver: human`",
                );
            }
            let Some(rule) = rule else { continue };
            if !gated {
                error(
                    format!(
                        "`{}` has an approval rule, but its calls are not approved (approver is not auto or human)",
                        tool.name
                    ),
                    "say `effects: {approver: auto}` to have the rule approve calls, or remove `approval`",
                );
                continue;
            }
            let program = match cel::Program::compile(rule) {
                Ok(p) => p,
                Err(e) => {
                    error(
                        format!("`{}`: approval.auto_if `{rule}` is not a CEL expression: {e}", tool.name),
                        "write a CEL expression over the arguments, e.g. `amount <= 10000 && currency == 'USD'`",
                    );
                    continue;
                }
            };
            let known: Vec<&str> = tool
                .input_schema
                .get("properties")
                .and_then(|p| p.as_object())
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let references = program.references();
            let mut unknown: Vec<&str> = references.variables().into_iter().filter(|v| !known.contains(v)).collect();
            unknown.sort_unstable();
            if !unknown.is_empty() {
                error(
                    format!(
                        "`{}`: approval.auto_if reads {}, which {} not an argument of the tool",
                        tool.name,
                        unknown.iter().map(|u| format!("`{u}`")).collect::<Vec<_>>().join(", "),
                        if unknown.len() == 1 { "is" } else { "are" }
                    ),
                    &format!("use the tool's arguments: {}", known.join(", ")),
                );
            }
        }
    }
}
