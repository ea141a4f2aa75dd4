//! I4: flat input schemas — deep nesting or a `oneOf`/`anyOf` needed to validate an argument
//! means the tool does too much; split it.

use serde_json::Value;

use super::{Context, Rule};
use crate::diag::Diagnostic;
use crate::resolve::Defs;

pub struct FlatInput;

pub const CODE: &str = "I4-flat-input";
/// Object levels below the arguments themselves a model fills in reliably.
const MAX_OBJECT_DEPTH: usize = 4;

fn depth(schema: &Value, defs: &Defs, seen: &mut Vec<String>) -> usize {
    if let Some(name) = crate::resolve::schema::def_name(schema) {
        if seen.iter().any(|s| s == name) || seen.len() > 16 {
            return 0;
        }
        seen.push(name.to_owned());
        let d = depth(defs.follow(schema), defs, seen);
        seen.pop();
        return d;
    }
    let mut deepest = 0;
    crate::resolve::schema::for_each_subschema(schema, &mut |child| deepest = deepest.max(depth(child, defs, seen)));
    let is_object = schema.get("properties").is_some();
    deepest + usize::from(is_object)
}

impl Rule for FlatInput {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let defs = &ctx.catalog.defs;
        for tool in &ctx.catalog.tools {
            for arg in &tool.args {
                let shape = defs.follow(&arg.schema);
                let d = depth(&arg.schema, defs, &mut Vec::new());
                if d > MAX_OBJECT_DEPTH {
                    out.push(
                        ctx.at_tool(
                            Diagnostic::note(
                                CODE,
                                format!("`{}` argument `{}` nests objects {d} levels deep", tool.name, arg.name),
                            )
                            .with_help(
                                "hide the fields agents do not need (`params: {…: {hidden: true}}`) or split the tool",
                            ),
                            tool,
                        ),
                    );
                }
                if (shape.get("oneOf").is_some() || shape.get("anyOf").is_some())
                    && shape.get("discriminator").is_none()
                {
                    let kinds: Vec<&Value> = shape
                        .get("oneOf")
                        .or_else(|| shape.get("anyOf"))
                        .and_then(Value::as_array)
                        .map(|a| a.iter().collect())
                        .unwrap_or_default();
                    // `anyOf: [string, null]`-style unions of scalars are one value, not several behaviours.
                    let objects = kinds.iter().filter(|k| defs.follow(k).get("properties").is_some()).count();
                    if objects >= 2 {
                        out.push(
                            ctx.at_tool(
                                Diagnostic::note(
                                    CODE,
                                    format!(
                                        "`{}` argument `{}` is one of {objects} object shapes",
                                        tool.name, arg.name
                                    ),
                                )
                                .with_help("split the tool: one per shape, with `fixed` values in the overlay"),
                                tool,
                            ),
                        );
                    }
                }
            }
        }
    }
}
