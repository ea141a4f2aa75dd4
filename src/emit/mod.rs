//! Stage 7, emit: everything → `Output`, the generated crate as data (relative path → text).
//! Rust through quote and prettyplease (`rust`), the rest through minijinja templates embedded at
//! compile time, `tools.json` through the one canonical JSON writer (`catalog`). No I/O.

pub mod catalog;
pub mod rust;

use std::collections::BTreeMap;

use minijinja::Environment;
use minijinja::syntax::SyntaxConfig;
use serde::Serialize;
use serde_json::{Value, json};

use crate::diag::{Diagnostic, Report};
use crate::plan::Catalog;
use crate::resolve::SchemeKind;
use crate::schema::variant::{self, Variant, VariantCatalog};
use crate::settings::{RuntimeDep, Settings};

/// Generated files, keyed by path relative to the crate root, with `/` separators.
pub type Files = BTreeMap<String, String>;

pub fn emit(catalog: &Catalog, settings: &Settings) -> Result<Files, Report> {
    let mut files = Files::new();
    files.insert("tools.json".to_owned(), catalog::tools_json(catalog));
    if settings.catalog_only {
        return Ok(files);
    }
    let internal =
        |e: String| Report::from(Diagnostic::error("internal", e).with_help("report this as an mcp-gen bug"));
    let modules = rust::module_names(&catalog.tools);
    for (tool, module) in catalog.tools.iter().zip(&modules) {
        files.insert(format!("src/tools/{module}.rs"), rust::tool_file(catalog, tool).map_err(internal)?);
    }
    files.insert("src/tools/mod.rs".to_owned(), rust::tools_mod(catalog, &modules).map_err(internal)?);
    // Provider variants (CONTRACT I3): each catalog, the OpenAI export and one loss report.
    let variants: Vec<VariantCatalog> = Variant::DERIVED.iter().map(|v| variant::catalog(catalog, *v)).collect();
    for v in &variants {
        files.insert(v.variant.file_name(), catalog::variant_tools_json(catalog, v));
        if v.variant == Variant::OpenAiStrict {
            files.insert("openai-functions.json".to_owned(), pretty_json(&variant::openai_functions(catalog, v)));
        }
    }
    let report: Vec<Value> = variants.iter().map(variant::losses_json).collect();
    files.insert("losses.json".to_owned(), pretty_json(&json!({ "variants": report })));
    files.insert("src/server.rs".to_owned(), rust::server_file(catalog, &variants).map_err(internal)?);
    files.insert("src/main.rs".to_owned(), rust::main_file(catalog).map_err(internal)?);
    let env = templates();
    let ctx = template_context(catalog, settings, &variants);
    for (name, out) in [("Cargo.toml.j2", "Cargo.toml"), ("README.md.j2", "README.md")] {
        let text = env
            .get_template(name)
            .and_then(|t| t.render(minijinja::value::Serde(&ctx)))
            .map_err(|e| internal(format!("template {name}: {e}")))?;
        files.insert(out.to_owned(), text);
    }
    Ok(files)
}

fn templates() -> Environment<'static> {
    let mut env = Environment::new();
    match SyntaxConfig::builder().keep_trailing_newline(true).trim_blocks(true).lstrip_blocks(true).build() {
        Ok(syntax) => env.set_syntax(syntax),
        Err(e) => panic!("built-in template syntax is invalid: {e}"),
    }
    env.add_filter("toml", |s: String| toml_string(&s));
    env.add_filter("cell", |s: String| s.replace('|', "\\|").replace('\n', " "));
    // Templates are part of the compiler binary: output never depends on files beside it.
    for (name, text) in [
        ("Cargo.toml.j2", include_str!("../../templates/Cargo.toml.j2")),
        ("README.md.j2", include_str!("../../templates/README.md.j2")),
    ] {
        // The templates are fixed at compile time and covered by the snapshot tests.
        if let Err(e) = env.add_template(name, text) {
            panic!("built-in template {name} is invalid: {e}");
        }
    }
    env
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[derive(Serialize)]
struct ToolRow {
    name: String,
    /// `METHOD /path` of each operation the tool calls (several for a merged tool).
    operations: Vec<String>,
    effect: &'static str,
    /// The retry guarantee (R6).
    retry: String,
}

#[derive(Serialize)]
struct SchemeRow {
    name: String,
    env: Vec<String>,
    what: String,
}

/// Pretty JSON with a final newline: the generated JSON reports and `mcp-gen catalog --losses`.
pub fn pretty_json(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// One row of the README's variant table: what the variant gave up, by keyword.
fn variant_row(v: &VariantCatalog) -> Value {
    let (by_keyword, tools) = variant::summary(v);
    json!({
        "name": v.variant.name(),
        "file": v.variant.file_name(),
        "losses": v.losses.len(),
        "tools": tools,
        "by_keyword": by_keyword.iter().map(|(k, n)| format!("`{k}` {n}")).collect::<Vec<_>>().join(", "),
    })
}

fn template_context(catalog: &Catalog, settings: &Settings, variants: &[VariantCatalog]) -> Value {
    let tools: Vec<ToolRow> = catalog
        .tools
        .iter()
        .map(|t| ToolRow {
            name: t.name.clone(),
            operations: t.operations().map(|o| format!("{} {}", o.method, o.path)).collect(),
            effect: match (t.annotations.read_only, t.annotations.destructive) {
                (true, _) => "read-only",
                (false, true) => "writes (destructive)",
                (false, false) => "writes",
            },
            retry: crate::plan::retry::guarantee(t),
        })
        .collect();
    let schemes: Vec<SchemeRow> = catalog
        .schemes
        .iter()
        .map(|s| SchemeRow {
            name: s.name.clone(),
            env: s.env.clone(),
            what: match &s.kind {
                SchemeKind::ApiKey { location, name } => format!("API key, sent as {} `{name}`", location.as_str()),
                SchemeKind::Bearer => "bearer token".to_owned(),
                SchemeKind::Basic => "basic-auth username / password".to_owned(),
                SchemeKind::OAuth2 => "OAuth 2 access token (sent as a bearer token)".to_owned(),
                SchemeKind::OpenIdConnect => "OpenID Connect access token (sent as a bearer token)".to_owned(),
            },
        })
        .collect();
    let (runtime_path, runtime_version) = match &settings.runtime {
        RuntimeDep::Path(p) => (Some(p.clone()), None),
        RuntimeDep::Version(v) => (None, Some(v.clone())),
    };
    let excluded: Vec<BTreeMap<&str, String>> = catalog
        .excluded
        .iter()
        .map(|e| BTreeMap::from([("operation", e.operation.clone()), ("reason", e.reason.clone())]))
        .collect();
    let tokens = crate::tokens::price(catalog);
    json!({
        "tokens_visible": tokens.visible(),
        "tokens_per_tool": tokens.per_tool(),
        "tokens_output": tokens.output(),
        "mcp_gen_version": env!("CARGO_PKG_VERSION"),
        "source": catalog.source.file_name,
        "crate_name": catalog.server.crate_name,
        "env_prefix": catalog.server.env_prefix,
        "api_title": catalog.source.api_title,
        "api_version": catalog.source.api_version,
        "description": format!("MCP server for {}, generated by mcp-gen", catalog.source.api_title),
        "upstream": catalog.default_upstream,
        "runtime_path": runtime_path,
        "runtime_version": runtime_version,
        "tools": tools,
        "schemes": schemes,
        "excluded": excluded,
        "variants": variants.iter().map(variant_row).collect::<Vec<_>>(),
        "handle_tools": catalog.tools.iter().filter(|t| t.pagination.as_ref().and_then(|p| p.handle()).is_some()).map(|t| t.name.clone()).collect::<Vec<_>>(),
        "toolsets": catalog.toolsets.iter().map(|t| {
            let sub = crate::tokens::Tokens { tools: tokens.tools.iter().filter(|x| t.tools.contains(&x.name)).cloned().collect() };
            json!({"name": t.name, "description": t.description, "tools": t.tools, "tokens": sub.visible()})
        }).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn toml_strings_escape() {
        assert_eq!(super::toml_string("a \"b\"\\\n"), "\"a \\\"b\\\"\\\\\\n\"");
    }

    #[test]
    fn templates_parse() {
        let _ = super::templates();
    }
}
