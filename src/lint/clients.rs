//! Client profiles (`mcp-gen lint --client NAME`, CONTRACT T6): what each model provider accepts
//! in one request, held against every endpoint the server serves. An endpoint over a provider's
//! hard cap fails and names the exposure that fixes it; one over the number of tools a model
//! still chooses well from is a warning.

use crate::diag::Diagnostic;
use crate::overlay::Exposure;
use crate::plan::exposure::{DISCOVER_TOOLS, Profile};
use crate::schema::Catalog;

/// Lint codes of this check.
pub const CAP: &str = "T6-client-cap";
pub const CROWDED: &str = "T6-client-crowded";
pub const NAME: &str = "T6-client-name";

/// Each endpoint the server serves, with the number of tools it lists: the main one under its
/// exposure, then each toolset's.
pub fn endpoints(catalog: &Catalog) -> Vec<(String, usize)> {
    let main = match catalog.server.exposure {
        Exposure::Flat => catalog.tools.len(),
        Exposure::Discover => DISCOVER_TOOLS,
    };
    let mut out = vec![("the main endpoint".to_owned(), main)];
    out.extend(catalog.toolsets.iter().map(|t| (format!("toolset `{}`", t.name), t.tools.len())));
    out
}

/// The catalog held to `profile`, located at the spec (`file`).
pub fn check(catalog: &Catalog, profile: &Profile, file: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let fix = "set `server.exposure: discover` in the overlay (or serve with `--exposure discover`): the endpoint then lists 3 tools that reach every tool";
    for (endpoint, count) in endpoints(catalog) {
        match profile.max_tools {
            Some(max) if count > max => out.push(
                Diagnostic::error(
                    CAP,
                    format!("{endpoint} lists {count} tools; {} accepts at most {max} in one request", profile.name),
                )
                .at(file, "")
                .with_help(fix),
            ),
            _ if count > profile.recommended => out.push(
                Diagnostic::warning(
                    CROWDED,
                    format!(
                        "{endpoint} lists {count} tools; a model of {} chooses well from about {}",
                        profile.name, profile.recommended
                    ),
                )
                .at(file, "")
                .with_help(format!("{fix}, or split the API into toolsets of at most {}", profile.recommended)),
            ),
            _ => {}
        }
    }
    for tool in catalog.tools.iter().filter(|t| !(profile.valid_name)(&t.name)) {
        out.push(
            Diagnostic::error(
                NAME,
                format!("`{}` is not a tool name {} accepts ({})", tool.name, profile.name, profile.name_rule),
            )
            .at(file, &tool.operation.pointer)
            .with_help("rename the tool in the overlay"),
        );
    }
    out
}
