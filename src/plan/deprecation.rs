//! Deprecation windows (CONTRACT V3): a tool the overlay marks `deprecated` is served until the
//! end of its date with a description that names its replacement, and a renamed tool keeps its
//! earlier names as aliases for a window. The server stops listing and running them after the
//! date (runtime `ToolDecl::sunset`): the catalog stays the same whatever day it is compiled, and
//! lint warns ahead of the date.

use super::{LongRunning, Tool};
use crate::diag::{Diagnostic, Report, codes, join_pointer};
use crate::overlay::{Deprecation, ToolOverlay, day_end_ms};

/// When a tool stops being served, and what replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sunset {
    /// The last day it is served, `YYYY-MM-DD` (UTC).
    pub until: String,
    /// The end of that day, in milliseconds since the epoch.
    pub until_ms: u64,
    pub use_instead: Option<String>,
}

/// The overlay's `deprecated` and `aliases` of one tool; bad dates are errors at their place.
pub fn apply(tool: &mut Tool, o: &ToolOverlay, file: &str, pointer: &str, report: &mut Report) {
    let mut date = |until: &str, at: String| {
        let ms = day_end_ms(until);
        if ms.is_none() {
            report.push(
                Diagnostic::error(codes::OVERLAY, format!("`{until}` is not a date"))
                    .at(file, at)
                    .with_help("write the last day the tool is served as YYYY-MM-DD (UTC), e.g. 2027-03-31"),
            );
        }
        ms
    };
    if let Some(Deprecation { until, use_instead }) = &o.deprecated
        && let Some(until_ms) = date(until, join_pointer(&join_pointer(pointer, "deprecated"), "until"))
    {
        let instead = use_instead.as_ref().map(|u| format!("call {u} instead; ")).unwrap_or_default();
        tool.description = format!("Deprecated: {instead}served until {until}. {}", tool.description);
        tool.sunset = Some(Sunset { until: until.clone(), until_ms, use_instead: use_instead.clone() });
    }
    for (i, alias) in o.aliases.iter().enumerate() {
        let at = join_pointer(&join_pointer(&join_pointer(pointer, "aliases"), &i.to_string()), "until");
        if let Some(until_ms) = date(&alias.until, at) {
            tool.aliases.push((alias.name.clone(), Sunset { until: alias.until.clone(), until_ms, use_instead: None }));
        }
    }
}

/// Each alias as a tool of its own: the same contract and mapping under the earlier name, its
/// description saying which tool to call instead. An alias that is another tool's name is an
/// error.
pub fn add_aliases(tools: &mut Vec<Tool>, report: &mut Report) {
    let mut added = Vec::new();
    for tool in tools.iter() {
        for (name, sunset) in &tool.aliases {
            if tools.iter().chain(&added).any(|t: &Tool| &t.name == name) {
                let mut d = Diagnostic::error(
                    codes::OVERLAY,
                    format!("alias `{name}` of `{}` is the name of another tool", tool.name),
                )
                .with_help("an alias keeps a renamed tool's earlier name; remove it or rename the other tool");
                if let Some((file, pointer)) = &tool.declared {
                    d = d.at(file, join_pointer(pointer, "aliases"));
                }
                report.push(d);
                continue;
            }
            let mut alias = tool.clone();
            alias.description = format!(
                "Deprecated name of {}, served until {}: call {} instead. {}",
                tool.name, sunset.until, tool.name, tool.description
            );
            alias.sunset = Some(Sunset { use_instead: Some(tool.name.clone()), ..sunset.clone() });
            alias.aliases = Vec::new();
            alias.name = name.clone();
            alias.name_rule = "alias".to_owned();
            // The one status tool follows every operation; an alias of it would be a second.
            if alias.long_running != Some(LongRunning::Follows) {
                added.push(alias);
            }
        }
    }
    tools.extend(added);
    tools.sort_by(|a, b| a.name.cmp(&b.name));
}

#[cfg(test)]
mod tests {
    use crate::diag::Severity;

    const SPEC: &str = r#"
openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /customers:
    get:
      operationId: searchCustomers
      responses: {'200': {description: ok}}
  /customers/export:
    get:
      operationId: exportCustomers
      responses: {'200': {description: ok}}
"#;

    fn compile(overlay: &str) -> Result<crate::Output, crate::Report> {
        crate::generate(&crate::Input::text("spec.yaml", SPEC, Some(overlay)), &crate::Settings::default())
    }

    #[test]
    fn the_day_ends_at_midnight_utc_and_other_text_is_no_date() {
        assert_eq!(crate::overlay::day_end_ms("2027-03-31"), Some(1_806_537_599_999));
        for bad in ["2027-3-31", "31.03.2027", "2027-02-30", "tomorrow", "2027-03-31T00:00:00Z"] {
            assert_eq!(crate::overlay::day_end_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn an_alias_serves_the_renamed_tool_under_its_old_name_until_its_day() {
        let overlay = r#"
mcp-gen: 1
tools:
  search_customers:
    operation: searchCustomers
    aliases: [{name: list_customers, until: "2999-03-31"}]
  export_customers:
    operation: exportCustomers
    deprecated: {until: "2999-01-31", use: search_customers}
"#;
        let out = compile(overlay).unwrap();
        let names: Vec<&str> = out.catalog.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["export_customers", "list_customers", "search_customers"]);
        let alias = &out.catalog.tools[1];
        assert!(
            alias.description.starts_with("Deprecated name of search_customers, served until 2999-03-31"),
            "{}",
            alias.description
        );
        assert_eq!(alias.sunset.as_ref().unwrap().use_instead.as_deref(), Some("search_customers"));
        assert_eq!(alias.operation, out.catalog.tools[2].operation, "the same operation");
        let old = &out.catalog.tools[0];
        assert!(
            old.description.starts_with("Deprecated: call search_customers instead; served until 2999-01-31."),
            "{}",
            old.description
        );
        let decl = &out.files["src/tools/export_customers.rs"];
        assert!(
            decl.contains("until: \"2999-01-31\"") && decl.contains("use_instead: Some(\"search_customers\")"),
            "{decl}"
        );
    }

    #[test]
    fn bad_dates_collisions_and_unknown_replacements_are_located() {
        let bad = compile(
            "mcp-gen: 1\ntools:\n  search_customers:\n    operation: searchCustomers\n    deprecated: {until: soon}\n",
        )
        .unwrap_err();
        let d = bad.diagnostics.iter().find(|d| d.message.contains("`soon` is not a date")).unwrap();
        let at = d.location.as_ref().unwrap();
        assert_eq!(at.pointer, "/tools/search_customers/deprecated/until");
        assert_eq!((at.file.as_str(), at.line), ("overlay.yaml", Some(5)));
        let taken = compile("mcp-gen: 1\ntools:\n  search_customers:\n    operation: searchCustomers\n    aliases: [{name: export_customers, until: \"2999-01-01\"}]\n").unwrap_err();
        assert!(taken.diagnostics.iter().any(|d| d.message.contains("is the name of another tool")), "{taken}");
        let unknown = compile("mcp-gen: 1\ntools:\n  export_customers:\n    operation: exportCustomers\n    deprecated: {until: \"2999-01-01\", use: find_customers}\n").unwrap_err();
        assert!(
            unknown.diagnostics.iter().any(|d| d.code == "V3-deprecation" && d.severity == Severity::Error),
            "{unknown}"
        );
        let past = compile("mcp-gen: 1\ntools:\n  export_customers:\n    operation: exportCustomers\n    deprecated: {until: \"2001-01-01\", use: search_customers}\n").unwrap();
        assert!(
            past.diagnostics
                .diagnostics
                .iter()
                .any(|d| d.code == "V3-deprecation" && d.message.contains("no longer lists")),
            "{}",
            past.diagnostics
        );
    }
}
