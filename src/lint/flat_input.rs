//! I4: flat input schemas — deep nesting or a `oneOf`/`anyOf` needed to validate an argument
//! means the tool does too much; split it.

use serde_json::Value;

use super::{Context, Rule};
use crate::diag::Diagnostic;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::Map;

use crate::resolve::schema::{def_name, for_each_subschema};

pub struct FlatInput;

pub const CODE: &str = "I4-flat-input";
/// Object levels below the arguments themselves a model fills in reliably.
const MAX_OBJECT_DEPTH: usize = 4;

/// Object levels of `schema`, following `$ref`s into the tool's own `$defs`; each def is
/// measured once (memoised; a def on a cycle counts as flat where it recurs).
fn depth(
    schema: &Value,
    defs: Option<&Map<String, Value>>,
    memo: &mut BTreeMap<String, usize>,
    visiting: &mut BTreeSet<String>,
) -> usize {
    if let Some(name) = def_name(schema) {
        if let Some(d) = memo.get(name) {
            return *d;
        }
        let Some(target) = defs.and_then(|d| d.get(name)) else { return 0 };
        if !visiting.insert(name.to_owned()) {
            return 0;
        }
        let d = depth(target, defs, memo, visiting);
        visiting.remove(name);
        memo.insert(name.to_owned(), d);
        return d;
    }
    let mut deepest = 0;
    for_each_subschema(schema, &mut |child| deepest = deepest.max(depth(child, defs, memo, visiting)));
    deepest + usize::from(schema.get("properties").is_some())
}

impl Rule for FlatInput {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let defs = &ctx.catalog.defs;
        for tool in &ctx.catalog.tools {
            let own = tool.input_schema.get("$defs").and_then(Value::as_object);
            let mut memo = BTreeMap::new();
            for arg in &tool.args {
                let shape = defs.follow(&arg.schema);
                let emitted = tool.input_schema.get("properties").and_then(|p| p.get(&arg.name)).unwrap_or(&arg.schema);
                let d = depth(emitted, own, &mut memo, &mut BTreeSet::new());
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
