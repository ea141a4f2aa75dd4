//! `tools.json`: the exact `tools/list` payload the server serves, `{"tools": [...]}`, sorted by
//! name (T5). Key order follows rmcp's `Tool` serialisation so the server re-serialises it byte
//! for byte.

use serde::Serialize;
use serde_json::Value;

use crate::schema::variant::{VariantCatalog, VariantTool};
use crate::schema::{Catalog, Tool};

/// One tool as rmcp serialises it, borrowing from the plan (a catalog can hold hundreds of
/// megabytes of schema; it is written, not copied).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolView<'a> {
    name: &'a str,
    title: &'a str,
    description: &'a str,
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_schema: Option<&'a Value>,
    annotations: AnnotationsView<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AnnotationsView<'a> {
    title: &'a str,
    read_only_hint: bool,
    destructive_hint: bool,
    idempotent_hint: bool,
    open_world_hint: bool,
}

fn view<'a>(tool: &'a Tool, schemas: Option<&'a VariantTool>) -> ToolView<'a> {
    let a = tool.annotations;
    ToolView {
        name: &tool.name,
        title: &tool.title,
        description: &tool.description,
        input_schema: schemas.map_or(&tool.input_schema, |v| &v.input_schema),
        output_schema: schemas.map_or(tool.output_schema.as_ref(), |v| v.output_schema.as_ref()),
        // T3: every hint explicit; clients assume the worst for a missing one.
        annotations: AnnotationsView {
            title: &tool.title,
            read_only_hint: a.read_only,
            destructive_hint: a.destructive,
            idempotent_hint: a.idempotent,
            open_world_hint: a.open_world,
        },
    }
}

/// Up to this many tools, `tools.json` is pretty-printed (a reviewer reads it); beyond, it holds
/// one compact tool per line, which keeps diffs per tool and the file a fraction of the size
/// (deep schemas indented two spaces a level are mostly whitespace).
pub const PRETTY_TOOLS_MAX: usize = 500;

/// `tools.json` with a final newline: the one canonical writer for the generated file and
/// `mcp-gen catalog`. Small catalogs are byte-identical to `serde_json::to_string_pretty` of
/// `{"tools": [...]}`; large ones put each tool on its own line ([`PRETTY_TOOLS_MAX`]). The
/// tools are rendered on every core, each slice in order.
pub fn tools_json(catalog: &Catalog) -> String {
    let views: Vec<ToolView<'_>> = catalog.tools.iter().map(|t| view(t, None)).collect();
    write_tools(&views)
}

/// [`tools_json`] with each tool's schemas taken from a provider variant (`tools.<variant>.json`).
pub fn variant_tools_json(catalog: &Catalog, variant: &VariantCatalog) -> String {
    let views: Vec<ToolView<'_>> = catalog.tools.iter().zip(&variant.tools).map(|(t, v)| view(t, Some(v))).collect();
    write_tools(&views)
}

fn write_tools(views: &[ToolView<'_>]) -> String {
    if views.is_empty() {
        return "{\n  \"tools\": []\n}\n".to_owned();
    }
    let pretty = views.len() <= PRETTY_TOOLS_MAX;
    let parts = crate::par::map_slices(views, |tools| render(tools, pretty));
    let mut text = Vec::with_capacity(parts.iter().map(Vec::len).sum::<usize>() + parts.len() * 2 + 32);
    text.extend_from_slice(if pretty { b"{\n  \"tools\": [\n" } else { b"{\"tools\": [\n" });
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            text.extend_from_slice(b",\n");
        }
        text.extend_from_slice(part);
    }
    text.extend_from_slice(if pretty { b"\n  ]\n}\n" } else { b"\n]}\n" });
    // serde_json writes UTF-8 only.
    String::from_utf8(text).unwrap_or_default()
}

/// A slice of tools, separated by `,\n`: pretty and indented to their place, or one per line.
fn render(tools: &[ToolView<'_>], pretty: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut scratch = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b",\n");
        }
        if !pretty {
            // Writing to a Vec cannot fail, and every key is a string.
            let _ = serde_json::to_writer(&mut out, tool);
            continue;
        }
        scratch.clear();
        let _ = serde_json::to_writer_pretty(&mut scratch, tool);
        // Pretty JSON has no raw newline inside a string, so every line can be indented.
        for (j, line) in scratch.split(|b| *b == b'\n').enumerate() {
            if j > 0 {
                out.push(b'\n');
            }
            out.extend_from_slice(b"    ");
            out.extend_from_slice(line);
        }
    }
    out
}
