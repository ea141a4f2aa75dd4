//! Standalone JSON Schema documents (draft-04, -06, -07, 2019-09, 2020-12), normalised the way
//! OpenAPI schemas are: one self-contained 2020-12 schema whose shared and recursive shapes sit
//! in its own `$defs`, ready to be a native tool's inputSchema (build.rs users who write their
//! own handlers). `mcp-gen normalize --schema FILE` is the command-line form.

use serde_json::Value;

use crate::diag::{Diagnostic, Report, codes};
use crate::load::{SourceInput, Sources, SpecVersion, read_bundled};
use crate::resolve::schema::SchemaTable;
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
