//! D2: an id argument says where the id comes from ("the id returned by list_users; do not
//! guess ids"), so the model does not invent one.

use super::{Context, Rule, is_id};
use crate::diag::Diagnostic;
use crate::plan::Target;

pub struct IdSource;

pub const CODE: &str = "D2-id-source";
/// Phrases that tell the model where an id comes from.
const SOURCES: &[&str] = &["returned by", "from ", "as on", "as returned", "obtained", "given by", "listed by"];

impl Rule for IdSource {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for tool in &ctx.catalog.tools {
            for arg in &tool.args {
                let path_param = matches!(arg.target, Target::Path { .. });
                let id_path_param = path_param && arg.name.to_ascii_lowercase().ends_with("id");
                // The id a create chooses for its new item comes from the caller.
                if !(is_id(&arg.name) || id_path_param) || crate::plan::names_new_item(tool, &arg.name) {
                    continue;
                }
                let described =
                    ctx.catalog.defs.follow(&arg.schema).get("description").or_else(|| arg.schema.get("description"));
                let text = described.and_then(|d| d.as_str()).unwrap_or_default().to_lowercase();
                if !SOURCES.iter().any(|s| text.contains(s)) {
                    out.push(ctx.at_tool(
                        Diagnostic::note(CODE, format!("`{}` takes the id `{}` but does not say where it comes from", tool.name, arg.name))
                            .with_help(format!("add a list operation for it, or describe it in the overlay: `params: {{{}: {{description: \"The id returned by …\"}}}}`", arg.name)),
                        tool,
                    ));
                }
            }
        }
    }
}
