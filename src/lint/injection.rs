//! D3: no prompt-injection patterns in anything the model reads — tool descriptions, argument
//! and result descriptions, server instructions. Spec text is filtered when the plan is made;
//! this also holds the overlay's own text and every schema description to the rule.

use super::{Context, Rule, schema_texts, text_pointer};
use crate::diag::Diagnostic;
use crate::plan::describe;

pub struct Injection;

pub const CODE: &str = "D3-injection";

impl Rule for Injection {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let flag = |text: &str| describe::untrusted(text).1;
        if let Some(text) = &ctx.catalog.server.instructions {
            for s in flag(text) {
                out.push(
                    Diagnostic::warning(
                        CODE,
                        format!("the server instructions address the model: \"{}\"", describe::shorten(&s, 120)),
                    )
                    .with_help("state facts about the server; do not give the model orders"),
                );
            }
        }
        // Shared shapes repeat their descriptions in every tool that reaches them: judge each
        // distinct text once per slice of tools, slices on every core.
        let found = crate::par::map_slices(&ctx.catalog.tools, |tools| {
            let mut clean: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
            let mut out = Vec::new();
            for tool in tools {
                let schemas =
                    [("/inputSchema", Some(&tool.input_schema)), ("/outputSchema", tool.output_schema.as_ref())];
                let mut texts = vec![("", tool.description.as_str())];
                for (at, schema) in schemas {
                    let mut found = Vec::new();
                    if let Some(schema) = schema {
                        schema_texts(schema, &mut found);
                    }
                    texts.extend(found.into_iter().map(|t| (at, t)));
                }
                for (at, text) in texts {
                    if clean.contains(text) {
                        continue;
                    }
                    let flagged = flag(text);
                    if flagged.is_empty() {
                        clean.insert(text);
                        continue;
                    }
                    let pointer = match schemas.iter().find(|(a, _)| *a == at).and_then(|(_, s)| *s) {
                        Some(schema) => text_pointer(schema, at, text),
                        None => "/description".to_owned(),
                    };
                    for s in flagged {
                        out.push(
                            ctx.at_tool(
                                Diagnostic::warning(
                                    CODE,
                                    format!(
                                        "`{}` {pointer} addresses the model: \"{}\"",
                                        tool.name,
                                        describe::shorten(&s, 120)
                                    ),
                                )
                                .with_help("describe what the tool or field is; set the description in the overlay"),
                                tool,
                            ),
                        );
                    }
                }
            }
            out
        });
        out.extend(found.into_iter().flatten());
    }
}
