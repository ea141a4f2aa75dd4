//! Stage 6, lint: the rules of CONTRACT.md that can be checked on the catalog, one rule per file,
//! each with a stable code (the contract id). Reads the catalog; never changes it.

mod description;
mod input_schema;
mod tool_name;

use crate::diag::Diagnostic;
use crate::plan::{Catalog, Tool};

/// One static rule of the contract.
pub trait Rule {
    /// Stable code, e.g. `T1-tool-name`.
    fn code(&self) -> &'static str;
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>);
}

/// What a rule sees: the catalog and the spec file its pointers refer to.
pub struct Context<'a> {
    pub catalog: &'a Catalog,
    pub spec_file: &'a str,
}

impl Context<'_> {
    /// A diagnostic located at the operation a tool came from.
    pub fn at_tool(&self, d: Diagnostic, tool: &Tool) -> Diagnostic {
        d.at(self.spec_file, &tool.operation.pointer)
    }
}

pub fn rules() -> Vec<Box<dyn Rule>> {
    vec![Box::new(tool_name::ToolName), Box::new(description::Description), Box::new(input_schema::InputSchema)]
}

pub fn lint(catalog: &Catalog, spec_file: &str) -> Vec<Diagnostic> {
    let ctx = Context { catalog, spec_file };
    let mut out = Vec::new();
    for rule in rules() {
        rule.check(&ctx, &mut out);
    }
    out
}
