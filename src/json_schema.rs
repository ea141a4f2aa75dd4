//! Standalone JSON Schema documents (draft-04, -06, -07, 2019-09, 2020-12), normalised the way
//! OpenAPI schemas are: one self-contained 2020-12 schema whose shared and recursive shapes sit
//! in its own `$defs`, ready to be a native tool's inputSchema (build.rs users who write their
//! own handlers). `mcp-gen normalize --schema FILE` is the command-line form.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::diag::{Diagnostic, Report, codes, join_pointer};
use crate::load::{SourceInput, Sources, SpecVersion, read_bundled};
use crate::overlay::{Intents, ToolIntent};
use crate::resolve::schema::SchemaTable;
use crate::resolve::{Api, BodyEncoding, Method, Operation, RequestBody, Response};
use crate::schema::{Direction, Prepared, finish};

/// Which JSON Schema dialect a document declares (`$schema`), 2020-12 when it declares none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Draft {
    Draft4,
    Draft6,
    Draft7,
    Draft2019,
    Draft2020,
}

impl Draft {
    pub fn of(doc: &Value) -> Draft {
        let uri = doc.get("$schema").and_then(Value::as_str).unwrap_or("");
        if uri.contains("draft-04") {
            Draft::Draft4
        } else if uri.contains("draft-06") {
            Draft::Draft6
        } else if uri.contains("draft-07") {
            Draft::Draft7
        } else if uri.contains("2019-09") {
            Draft::Draft2019
        } else {
            Draft::Draft2020
        }
    }
}

/// The normalised schema and the warnings met on the way; `Err` holds the errors.
pub fn normalize(input: &SourceInput) -> Result<(Value, Report), Report> {
    let mut report = Report::new();
    let mut sources = Sources::default();
    let Some((file, doc)) = read_bundled(input, &mut sources, &mut report) else {
        return Err(sources.finish(report));
    };
    if !doc.is_object() && !doc.is_boolean() {
        report.push(
            Diagnostic::error(codes::NOT_A_SPEC, "a JSON Schema document is an object or a boolean")
                .at(&file, "")
                .with_help("pass a JSON Schema document"),
        );
        return Err(sources.finish(report));
    }
    // Up to draft-07, keywords beside `$ref` are ignored, and exclusive bounds are flags, the
    // rules OpenAPI 3.0 follows; from 2019-09 on, the rules of 3.1.
    let version = match Draft::of(&doc) {
        Draft::Draft4 | Draft::Draft6 | Draft::Draft7 => SpecVersion::OpenApi30,
        Draft::Draft2019 | Draft::Draft2020 => SpecVersion::OpenApi31,
    };
    let mut table = SchemaTable::for_json_schema(&doc, &file, version);
    let root = table.normalize(&doc, "", &mut report);
    table.finish(&mut report);
    if report.has_errors() {
        return Err(sources.finish(report));
    }
    let prepared = Prepared::new(&table.defs, Direction::Neither);
    let (mut schema, _) = finish(root, &prepared, None, false);
    if let Value::Object(map) = &mut schema {
        map.shift_insert(0, "$schema".to_owned(), Value::String("https://json-schema.org/draft/2020-12/schema".into()));
    }
    Ok((schema, sources.finish(report)))
}

/// One JSON Schema document, normalised, with its shared shapes as defs of their own (the
/// resolver's form: `#/$defs/NAME` references into `defs`).
fn read_schema(path: &Path, sources: &mut Sources, report: &mut Report) -> Option<(Value, BTreeMap<String, Value>)> {
    let (file, doc) = read_bundled(&SourceInput::Path(path.to_path_buf()), sources, report)?;
    if !doc.is_object() && !doc.is_boolean() {
        report.push(
            Diagnostic::error(codes::NOT_A_SPEC, "a JSON Schema document is an object or a boolean")
                .at(&file, "")
                .with_help("pass a JSON Schema document"),
        );
        return None;
    }
    let version = match Draft::of(&doc) {
        Draft::Draft4 | Draft::Draft6 | Draft::Draft7 => SpecVersion::OpenApi30,
        Draft::Draft2019 | Draft::Draft2020 => SpecVersion::OpenApi31,
    };
    let mut table = SchemaTable::for_json_schema(&doc, &file, version);
    let mut root = table.normalize(&doc, "", report);
    table.finish(report);
    if let Value::Object(map) = &mut root {
        map.remove("$schema");
        map.remove("title");
    }
    Some((root, table.defs.schemas))
}

/// Rewrites `#/$defs/OLD` references by `renamed`.
fn rename_refs(v: &mut Value, renamed: &BTreeMap<String, String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get_mut("$ref")
                && let Some(new) = r.strip_prefix("#/$defs/").and_then(|n| renamed.get(n))
            {
                *r = format!("#/$defs/{new}");
            }
            m.values_mut().for_each(|v| rename_refs(v, renamed));
        }
        Value::Array(a) => a.iter_mut().for_each(|v| rename_refs(v, renamed)),
        _ => {}
    }
}

/// Moves a schema file's defs into the API's, renaming one whose name is taken by another shape.
fn adopt_defs(api: &mut Api, tool: &str, schemas: &mut [&mut Value], defs: BTreeMap<String, Value>) {
    let mut renamed = BTreeMap::new();
    for name in defs.keys() {
        let mut new = name.clone();
        let mut n = 1;
        while api.defs.schemas.get(&new).is_some_and(|held| Some(held) != defs.get(name)) {
            new = if n == 1 { format!("{tool}.{name}") } else { format!("{tool}.{name}{n}") };
            n += 1;
        }
        renamed.insert(name.clone(), new);
    }
    for (name, mut schema) in defs {
        rename_refs(&mut schema, &renamed);
        api.defs.schemas.insert(renamed[&name].clone(), schema);
    }
    for s in schemas {
        rename_refs(s, &renamed);
    }
}

/// Makes each of the overlay's JSON Schema tools an operation of the API that nothing calls
/// upstream (the tools run natively): its input schema is the operation's JSON body, its output
/// schema the success response's. Planned like any operation from then on, so keys, schemas,
/// lint and fidelity treat it alike. Files are read relative to the overlay (`base`).
pub fn attach_schema_tools(
    api: &mut Api,
    intents: &mut Intents,
    base: Option<&Path>,
    sources: &mut Sources,
    report: &mut Report,
) {
    let declared = std::mem::take(&mut intents.schema_tools);
    for tool in declared {
        let resolve = |file: &str| base.map_or_else(|| Path::new(file).to_path_buf(), |b| b.join(file));
        let Some(input_file) = tool.overlay.input.as_deref() else { continue };
        let input = read_schema(&resolve(input_file), sources, report);
        let output = tool.overlay.output.as_deref().map(|f| read_schema(&resolve(f), sources, report));
        let (Some((mut input, mut defs)), Some(output)) = (input, output.map_or(Some(None), |o| o.map(Some))) else {
            continue;
        };
        if input.get("type").and_then(Value::as_str) != Some("object") {
            report.push(
                Diagnostic::error(
                    codes::OVERLAY,
                    format!("the input schema of `{}` is not an object schema", tool.name),
                )
                .at(&tool.file, join_pointer(&tool.pointer, "input"))
                .with_help("a tool's arguments are an object: give the schema `type: object` and its `properties`"),
            );
            continue;
        }
        let mut output = output.map(|(schema, more)| {
            defs.extend(more);
            schema
        });
        let mut schemas: Vec<&mut Value> = std::iter::once(&mut input).chain(output.as_mut()).collect();
        adopt_defs(api, &tool.name, &mut schemas, defs);
        let index = api.operations.len();
        let overlay = &tool.overlay;
        api.operations.push(Operation {
            method: Method::Post,
            // Never called: the path only has to be unique and name the tool.
            path: format!("/{}", tool.name),
            operation_id: Some(tool.name.clone()),
            summary: overlay.title.clone(),
            description: overlay.description.clone(),
            tags: Vec::new(),
            deprecated: false,
            parameters: Vec::new(),
            body: Some(RequestBody {
                required: true,
                media_type: "application/json".to_owned(),
                encoding: BodyEncoding::Json,
                description: None,
                schema: input,
                pointer: join_pointer(&tool.pointer, "input"),
            }),
            success: Some(Response {
                status: "200".to_owned(),
                description: None,
                media_type: output.is_some().then(|| "application/json".to_owned()),
                schema: output,
            }),
            accepted: false,
            security: Vec::new(),
            scopes: Vec::new(),
            pointer: tool.pointer.clone(),
            extensions: Map::new(),
        });
        intents.included.insert(index);
        intents.schema_files.insert(tool.name.clone(), input_file.to_owned());
        intents.tools.entry(index).or_default().push(ToolIntent {
            name: Some(tool.name.clone()),
            overlay: tool.overlay.clone(),
            file: tool.file.clone(),
            pointer: tool.pointer.clone(),
            in_spec: false,
            route: 0,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn norm(v: Value) -> Value {
        let input = SourceInput::Text { name: "s.json".into(), text: v.to_string() };
        let (out, report) = normalize(&input).unwrap_or_else(|r| panic!("{r}"));
        assert!(!report.has_errors());
        out
    }

    #[test]
    fn draft_04_becomes_2020_12() {
        let out = norm(json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "id": "http://example.com/order",
            "type": "object",
            "required": ["qty"],
            "properties": {
                "qty": {"type": "integer", "minimum": 0, "exclusiveMinimum": true},
                "point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": false},
                "card": {"type": "string"},
                "billing": {"$ref": "#/definitions/Address"},
                "shipping": {"$ref": "#/definitions/Address"},
                "parent": {"$ref": "#"}
            },
            "dependencies": {"card": ["billing"], "shipping": {"required": ["billing"]}},
            "definitions": {"Address": {"type": "object", "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}}}}
        }));
        assert_eq!(out["properties"]["qty"], json!({"type": "integer", "exclusiveMinimum": 0}));
        assert_eq!(
            out["properties"]["point"],
            json!({"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": false})
        );
        assert_eq!(out["dependentRequired"], json!({"card": ["billing"]}));
        assert_eq!(out["dependentSchemas"], json!({"shipping": {"required": ["billing"]}}));
        assert_eq!(out["properties"]["billing"], json!({"$ref": "#/$defs/Address"}));
        assert!(out.get("definitions").is_none() && out.get("id").is_none());
        assert_eq!(out["$defs"]["Address"]["properties"]["zip"]["pattern"], "^[0-9]{5}$");
        // The recursive root is a def of its own.
        assert!(out["properties"]["parent"]["$ref"].as_str().unwrap().starts_with("#/$defs/"));
        assert!(jsonschema::draft202012::meta::is_valid(&out), "{out:#}");
    }

    #[test]
    fn unknown_refs_are_errors() {
        let input = SourceInput::Text {
            name: "s.json".into(),
            text: r##"{"properties": {"a": {"$ref": "#/$defs/Nope"}}}"##.into(),
        };
        let report = normalize(&input).unwrap_err();
        assert!(report.to_string().contains("error[unknown-ref]"), "{report}");
    }
}
