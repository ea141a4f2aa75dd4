//! I5: ids are strings (a long numeric id loses digits in a JSON number), and dates say their
//! format.

use serde_json::Value;

use super::{Context, Rule, is_id};
use crate::diag::Diagnostic;
use crate::plan::Target;

pub struct IdsAndUnits;

pub const CODE: &str = "I5-ids-and-units";
/// The largest integer a double holds exactly (2^53).
const EXACT: f64 = 9_007_199_254_740_992.0;

impl Rule for IdsAndUnits {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let defs = &ctx.catalog.defs;
        for tool in &ctx.catalog.tools {
            for arg in &tool.args {
                let shape = defs.follow(&arg.schema);
                let ty = shape.get("type").and_then(Value::as_str);
                // Path and query values travel as text; a body number is parsed as a double.
                let in_body = matches!(arg.target, Target::BodyField { .. });
                let bounded = shape.get("maximum").and_then(Value::as_f64).is_some_and(|m| m < EXACT);
                if in_body && is_id(&arg.name) && ty == Some("integer") && !bounded {
                    out.push(ctx.at_tool(
                        Diagnostic::warning(CODE, format!("`{}` takes the id `{}` as a JSON integer", tool.name, arg.name))
                            .with_help("ids above 2^53 lose digits in JSON numbers: make it a string in the spec, or bound it with `maximum`"),
                        tool,
                    ));
                }
                let snake = heck::ToSnakeCase::to_snake_case(arg.name.as_str());
                let date_like =
                    snake.ends_with("_at") || snake.ends_with("_date") || snake == "date" || snake.ends_with("_time");
                let said = shape.get("format").is_some()
                    || shape.get("pattern").is_some()
                    || shape
                        .get("description")
                        .or_else(|| arg.schema.get("description"))
                        .and_then(Value::as_str)
                        .is_some_and(|d| d.contains("ISO") || d.contains("RFC") || d.contains("YYYY"));
                if date_like && ty == Some("string") && !said {
                    out.push(ctx.at_tool(
                        Diagnostic::note(CODE, format!("`{}` argument `{}` looks like a date but does not say its format", tool.name, arg.name))
                            .with_help("give it `format: date-time` (or `date`) in the spec, or say the format in its description"),
                        tool,
                    ));
                }
            }
        }
    }
}
