//! Stage 7, emit: everything → `Output`, the generated crate as data (relative path → text).
//! Rust through quote and prettyplease (`rust`), the rest through minijinja templates embedded at
//! compile time, `tools.json` through the one canonical JSON writer (`catalog`). No I/O.

pub mod native;
pub mod rust;
pub mod types;
pub mod versions;

pub use versions::Kept;

use std::collections::BTreeMap;

use minijinja::Environment;
use minijinja::syntax::SyntaxConfig;
use serde::Serialize;
use serde_json::{Value, json};

use crate::diag::{Diagnostic, Report};
use crate::resolve::SchemeKind;
use crate::schema::Catalog;
use crate::schema::tools_json;
use crate::schema::variant::{self, Variant, VariantCatalog};
use crate::settings::{RuntimeDep, Settings};

/// Generated files, keyed by path relative to the crate root, with `/` separators.
pub type Files = BTreeMap<String, String>;

/// The tool search's index, beside `tools.json` (exposure `discover`).
pub const SEARCH_FILE: &str = "search.json";

pub fn emit(catalog: &Catalog, settings: &Settings, kept: &[Kept]) -> Result<Files, Report> {
    let mut files = Files::new();
    files.insert("tools.json".to_owned(), tools_json::tools_json(catalog));
    if settings.catalog_only {
        return Ok(files);
    }
    let internal =
        |e: String| Report::from(Diagnostic::error("internal", e).with_help("report this as an mcp-gen bug"));
    let modules = rust::module_names(&catalog.tools);
    let index = crate::plan::search_text::index(catalog.tools.iter().map(|t| &t.planned));
    files.insert(SEARCH_FILE.to_owned(), index.to_json());
    if settings.native {
        return emit_native(catalog, settings, &modules, files);
    }
    for (tool, module) in catalog.tools.iter().zip(&modules) {
        files.insert(format!("src/tools/{module}.rs"), rust::tool_file(catalog, tool).map_err(internal)?);
    }
    files.insert("src/tools/mod.rs".to_owned(), rust::tools_mod(catalog, &modules).map_err(internal)?);
    let variants = variant_files(catalog, &mut files);
    versions::attach(catalog, kept, &mut files).map_err(internal)?;
    files.insert("src/server.rs".to_owned(), rust::server_file(catalog, &variants, kept).map_err(internal)?);
    files.insert("src/main.rs".to_owned(), rust::main_file(catalog, !kept.is_empty()).map_err(internal)?);
    let env = templates();
    let mut ctx = template_context(catalog, settings, &variants);
    ctx["kept_versions"] = json!(kept.iter().map(|k| &k.name).collect::<Vec<_>>());
    ctx["contract_version"] = json!(current_version(kept));
    for (name, out) in [("Cargo.toml.j2", "Cargo.toml"), ("README.md.j2", "README.md")] {
        let text = env
            .get_template(name)
            .and_then(|t| t.render(minijinja::value::Serde(&ctx)))
            .map_err(|e| internal(format!("template {name}: {e}")))?;
        files.insert(out.to_owned(), text);
    }
    Ok(files)
}

/// The current contract's name: one past the newest kept version.
fn current_version(kept: &[Kept]) -> String {
    crate::versions::current(kept.iter().map(|k| k.name.as_str()))
}

/// Provider variants (CONTRACT I3): each catalog, the OpenAI export and one loss report.
fn variant_files(catalog: &Catalog, files: &mut Files) -> Vec<VariantCatalog> {
    let variants: Vec<VariantCatalog> = Variant::DERIVED.iter().map(|v| variant::catalog(catalog, *v)).collect();
    for v in &variants {
        files.insert(v.variant.file_name(), tools_json::variant_tools_json(catalog, v));
        if v.variant == Variant::OpenAiStrict {
            files.insert("openai-functions.json".to_owned(), pretty_json(&variant::openai_functions(catalog, v)));
        }
    }
    // Tool use examples, for providers that take them beside a tool's definition.
    files.insert("input-examples.json".to_owned(), pretty_json(&crate::schema::examples::input_examples(catalog)));
    let report: Vec<Value> = variants.iter().map(variant::losses_json).collect();
    files.insert("losses.json".to_owned(), pretty_json(&json!({ "variants": report })));
    variants
}

/// A native build: `native.rs` beside the catalogs it embeds, its README, and, unless only the
/// module is wanted (build.rs), a library crate that includes it.
fn emit_native(catalog: &Catalog, settings: &Settings, modules: &[String], mut files: Files) -> Result<Files, Report> {
    let internal =
        |e: String| Report::from(Diagnostic::error("internal", e).with_help("report this as an mcp-gen bug"));
    let variants = variant_files(catalog, &mut files);
    let types = types::types(catalog);
    files.insert(native::FILE.to_owned(), native::native_file(catalog, &variants, modules, &types).map_err(internal)?);
    let mut ctx = template_context(catalog, settings, &variants);
    if let Some(rows) = ctx.get_mut("tools").and_then(Value::as_array_mut) {
        for ((row, tool), module) in rows.iter_mut().zip(&catalog.tools).zip(modules) {
            row["native"] = json!(tool.native);
            row["method"] = json!(module);
        }
    }
    ctx["type_count"] = json!(types.count);
    ctx["type_positions"] = json!(types.positions);
    let share = |n: usize| format!("{:.2}%", n as f64 / types.positions.max(1) as f64 * 100.0);
    ctx["open_positions"] = json!(types.open);
    ctx["open_share"] = json!(share(types.open));
    ctx["fallback_share"] = json!(share(types.fallbacks.len()));
    ctx["fallbacks"] =
        json!(types.fallbacks.iter().map(|f| json!({"place": f.place, "why": f.why})).collect::<Vec<_>>());
    let env = templates();
    let mut outputs = vec![("native-README.md.j2", "README.md")];
    if !settings.module_only {
        outputs.push(("native-Cargo.toml.j2", "Cargo.toml"));
        let doc = format!(
            " {}: the native MCP contract of {}, generated by mcp-gen.",
            catalog.server.crate_name, catalog.source.api_title
        );
        let lib = quote::quote! {
            #![doc = #doc]
            include!("../native.rs");
        };
        files.insert("src/lib.rs".to_owned(), rust::render(&rust::header(catalog), lib).map_err(internal)?);
    }
    for (name, out) in outputs {
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
        ("native-Cargo.toml.j2", include_str!("../../templates/native-Cargo.toml.j2")),
        ("native-README.md.j2", include_str!("../../templates/native-README.md.j2")),
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
    /// The OAuth scopes a caller's token needs (`a b`, alternatives `a b | c`), or empty.
    scopes: String,
}

#[derive(Serialize)]
struct SchemeRow {
    name: String,
    /// Each variable, with what it holds.
    env: Vec<(String, String)>,
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
            scopes: t.scopes.iter().map(|alt| alt.join(" ")).collect::<Vec<_>>().join(" | "),
        })
        .collect();
    let schemes: Vec<SchemeRow> = catalog
        .schemes
        .iter()
        .map(|s| {
            let what = |i: usize| -> String {
                match &s.kind {
                    SchemeKind::ApiKey { location, name } => format!("API key, sent as {} `{name}`", location.as_str()),
                    SchemeKind::Bearer => "bearer token".to_owned(),
                    SchemeKind::Basic if i == 0 => "basic-auth username".to_owned(),
                    SchemeKind::Basic => "basic-auth password".to_owned(),
                    SchemeKind::OAuth2 { client_credentials: Some(flow) } => match i {
                        0 => "a fixed OAuth 2 access token (instead of client credentials)".to_owned(),
                        1 => format!("OAuth 2 client id: the server fetches its token from `{}` (client credentials) and renews it before it expires", flow.token_url),
                        2 => "OAuth 2 client secret".to_owned(),
                        _ => format!("token endpoint to use instead of `{}`", flow.token_url),
                    },
                    SchemeKind::OAuth2 { client_credentials: None } => "OAuth 2 access token (sent as a bearer token)".to_owned(),
                    SchemeKind::OpenIdConnect => "OpenID Connect access token (sent as a bearer token)".to_owned(),
                    SchemeKind::Undeclared { location, name, prefix } => format!(
                        "credential from the overlay, sent with every call as {} `{name}`{}",
                        location.as_str(),
                        prefix.as_ref().map(|p| format!(" (`{p} <secret>`)")).unwrap_or_default()
                    ),
                }
            };
            SchemeRow { name: s.name.clone(), env: s.env.iter().enumerate().map(|(i, e)| (e.clone(), what(i))).collect() }
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
        "exposure": catalog.server.exposure.name(),
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
        "approval_tools": catalog
            .tools
            .iter()
            .filter_map(|t| {
                crate::plan::intent::approval(t).map(|(_, rule)| json!({"name": t.name, "rule": rule}))
            })
            .collect::<Vec<_>>(),
        // Overridden when the crate keeps earlier versions.
        "contract_version": "v1",
        "deprecated": catalog.tools.iter().filter_map(|t| t.sunset.as_ref().map(|s| json!({"name": t.name, "until": s.until, "use": s.use_instead}))).collect::<Vec<_>>(),
        "long_running": catalog.tools.iter().filter(|t| t.long_running == Some(crate::plan::LongRunning::Starts)).map(|t| t.name.clone()).collect::<Vec<_>>(),
        "status_tool": catalog.tools.iter().find(|t| t.long_running == Some(crate::plan::LongRunning::Follows)).map(|t| t.name.clone()),
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
