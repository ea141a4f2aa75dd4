//! Swagger 2.0 → OpenAPI 3.0.3, so that every later stage reads one dialect.
//!
//! The upgrade is structural and loses no constraint: `definitions`, `parameters`, `responses`
//! and `securityDefinitions` move under `components`; `body` and `formData` parameters become a
//! `requestBody` (one content entry per `consumes` type); non-body parameters get a `schema`
//! built from their inline keywords, with `collectionFormat` turned into `style`/`explode`;
//! responses get one content entry per `produces` type; `host`/`basePath`/`schemes` become
//! `servers`. Schema dialect: `type: file` → binary string, `x-nullable` → `nullable`, a string
//! `discriminator` → `{propertyName}`. Every moved object is recorded in a [`PointerMap`] so
//! diagnostics point at the line of the 2.0 document, not at the upgraded one.

use serde_json::{Map, Value, json};

use crate::diag::{Diagnostic, Report, codes, join_pointer};

/// Upgraded-document pointer prefixes → source-document pointer prefixes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PointerMap {
    entries: Vec<(String, String)>,
}

impl PointerMap {
    pub fn add(&mut self, upgraded: impl Into<String>, source: impl Into<String>) {
        self.entries.push((upgraded.into(), source.into()));
    }

    /// The source pointer for a pointer into the upgraded document (the longest mapped prefix
    /// wins; unmapped pointers are the same in both).
    pub fn translate(&self, pointer: &str) -> String {
        let best = self
            .entries
            .iter()
            .filter(|(new, _)| {
                pointer == new
                    || (pointer.starts_with(new.as_str()) && pointer.as_bytes().get(new.len()) == Some(&b'/'))
            })
            .max_by_key(|(new, _)| new.len());
        match best {
            Some((new, old)) => format!("{old}{}", &pointer[new.len()..]),
            None => pointer.to_owned(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

const METHODS: &[&str] = &["get", "put", "post", "delete", "options", "head", "patch"];
/// Keywords a 2.0 non-body parameter (or `items` object, or header) shares with JSON Schema.
const PARAM_SCHEMA_KEYS: &[&str] = &[
    "type",
    "format",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "enum",
    "multipleOf",
];

struct Upgrader<'a> {
    doc: &'a Map<String, Value>,
    file: &'a str,
    map: PointerMap,
    report: &'a mut Report,
    consumes: Vec<String>,
    produces: Vec<String>,
}

/// Upgrades a Swagger 2.0 document. Problems that make part of it unreadable are reported
/// (located in the 2.0 document) and that part is left out; the rest is upgraded.
pub fn upgrade(doc: &Map<String, Value>, file: &str, report: &mut Report) -> (Value, PointerMap) {
    let media_list = |key: &str| -> Vec<String> {
        doc.get(key)
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let mut up = Upgrader {
        doc,
        file,
        map: PointerMap::default(),
        report,
        consumes: media_list("consumes"),
        produces: media_list("produces"),
    };
    let value = up.document();
    (value, up.map)
}

impl Upgrader<'_> {
    fn document(&mut self) -> Value {
        let doc = self.doc;
        let mut out = Map::new();
        out.insert("openapi".into(), json!("3.0.3"));
        self.map.add("/openapi", "/swagger");
        for (key, value) in doc {
            if key == "info" || key == "tags" || key == "externalDocs" || key == "security" || key.starts_with("x-") {
                out.insert(key.clone(), value.clone());
            }
        }
        if let Some(servers) = self.servers() {
            out.insert("servers".into(), servers);
        }
        let mut paths = Map::new();
        if let Some(source) = doc.get("paths").and_then(Value::as_object) {
            for (path, item) in source {
                let at = join_pointer("/paths", path);
                paths.insert(
                    path.clone(),
                    if path.starts_with("x-") { item.clone() } else { self.path_item(item, &at) },
                );
            }
        }
        out.insert("paths".into(), Value::Object(paths));
        let mut components = Map::new();
        if let Some(defs) = doc.get("definitions").and_then(Value::as_object) {
            self.map.add("/components/schemas", "/definitions");
            let schemas = defs.iter().map(|(k, v)| (k.clone(), schema(v))).collect();
            components.insert("schemas".into(), Value::Object(schemas));
        }
        if let Some(params) = doc.get("parameters").and_then(Value::as_object) {
            let mut out_params = Map::new();
            for (name, p) in params {
                let at = join_pointer("/parameters", name);
                // Body and form parameters have no 3.0 component form; they are inlined into
                // each operation's requestBody where they are used.
                if !matches!(p.get("in").and_then(Value::as_str), Some("body" | "formData")) {
                    self.map.add(join_pointer("/components/parameters", name), at.clone());
                    out_params.insert(name.clone(), self.parameter(p, &at));
                }
            }
            if !out_params.is_empty() {
                components.insert("parameters".into(), Value::Object(out_params));
            }
        }
        if let Some(responses) = doc.get("responses").and_then(Value::as_object) {
            let produces = self.produces.clone();
            let converted = responses
                .iter()
                .map(|(name, r)| {
                    let at = join_pointer("/responses", name);
                    let new_at = join_pointer("/components/responses", name);
                    (name.clone(), self.response(r, &at, &new_at, &produces))
                })
                .collect();
            components.insert("responses".into(), Value::Object(converted));
        }
        if let Some(defs) = doc.get("securityDefinitions").and_then(Value::as_object) {
            self.map.add("/components/securitySchemes", "/securityDefinitions");
            let schemes = defs.iter().map(|(k, v)| (k.clone(), security_scheme(v))).collect();
            components.insert("securitySchemes".into(), Value::Object(schemes));
        }
        if !components.is_empty() {
            out.insert("components".into(), Value::Object(components));
        }
        Value::Object(out)
    }

    /// `schemes` × `host` + `basePath`; a relative URL when there is no host.
    fn servers(&mut self) -> Option<Value> {
        let doc = self.doc;
        let base = doc.get("basePath").and_then(Value::as_str).unwrap_or("");
        let base = base.trim_end_matches('/');
        self.map.add("/servers", if doc.contains_key("host") { "/host" } else { "/basePath" });
        match doc.get("host").and_then(Value::as_str) {
            Some(host) => {
                let mut schemes: Vec<&str> = doc
                    .get("schemes")
                    .and_then(Value::as_array)
                    .map(|l| l.iter().filter_map(Value::as_str).filter(|s| s.starts_with("http")).collect())
                    .unwrap_or_default();
                if schemes.is_empty() {
                    schemes.push("https");
                }
                // https first: the same API over plain HTTP is the weaker choice.
                schemes.sort_by_key(|s| *s != "https");
                Some(Value::Array(schemes.iter().map(|s| json!({"url": format!("{s}://{host}{base}")})).collect()))
            }
            None if !base.is_empty() => Some(json!([{"url": base}])),
            None => None,
        }
    }

    fn path_item(&mut self, item: &Value, at: &str) -> Value {
        let Some(item) = item.as_object() else { return item.clone() };
        if let Some(r) = item.get("$ref") {
            // Path items in other files are not supported in 2.0 either; keep the reference.
            return json!({"$ref": r});
        }
        let shared: Vec<(Value, String)> = item
            .get("parameters")
            .and_then(Value::as_array)
            .map(|l| l.iter().enumerate().map(|(i, p)| (p.clone(), format!("{at}/parameters/{i}"))).collect())
            .unwrap_or_default();
        let mut out = Map::new();
        for (key, value) in item {
            if METHODS.contains(&key.as_str()) {
                let op_at = join_pointer(at, key);
                out.insert(key.clone(), self.operation(value, &op_at, &shared));
            } else if key.starts_with("x-") {
                out.insert(key.clone(), value.clone());
            }
        }
        // Shared non-body parameters stay on the path item; body and form ones were merged into
        // each operation above.
        let mut params = Vec::new();
        for (p, p_at) in &shared {
            let (resolved, _) = self.deref_param(p, p_at);
            if !matches!(resolved.get("in").and_then(Value::as_str), Some("body" | "formData")) {
                self.map.add(format!("{at}/parameters/{}", params.len()), p_at.clone());
                params.push(self.parameter_or_ref(p, p_at));
            }
        }
        if !params.is_empty() {
            out.insert("parameters".into(), Value::Array(params));
        }
        Value::Object(out)
    }

    /// A parameter object (following a `#/parameters/…` reference) and where it is.
    fn deref_param(&mut self, p: &Value, at: &str) -> (Value, String) {
        if let Some(r) = p.get("$ref").and_then(Value::as_str)
            && let Some(name) = r.strip_prefix("#/parameters/")
        {
            let name = unescape(name);
            if let Some(target) = self.doc.get("parameters").and_then(|ps| ps.get(&name)) {
                return (target.clone(), join_pointer("/parameters", &name));
            }
        }
        (p.clone(), at.to_owned())
    }

    fn parameter_or_ref(&mut self, p: &Value, at: &str) -> Value {
        match p.get("$ref").and_then(Value::as_str) {
            Some(r) => json!({"$ref": rewrite_ref(r)}),
            None => self.parameter(p, at),
        }
    }

    fn operation(&mut self, op: &Value, at: &str, shared: &[(Value, String)]) -> Value {
        let Some(src) = op.as_object() else { return op.clone() };
        let mut out = Map::new();
        for (key, value) in src {
            if matches!(
                key.as_str(),
                "tags" | "summary" | "description" | "externalDocs" | "operationId" | "deprecated" | "security"
            ) || key.starts_with("x-")
            {
                out.insert(key.clone(), value.clone());
            }
        }
        let consumes = media_override(src.get("consumes")).unwrap_or_else(|| self.consumes.clone());
        let produces = media_override(src.get("produces")).unwrap_or_else(|| self.produces.clone());

        // Operation parameters override shared ones with the same name and location.
        let own: Vec<(Value, String)> = src
            .get("parameters")
            .and_then(Value::as_array)
            .map(|l| l.iter().enumerate().map(|(i, p)| (p.clone(), format!("{at}/parameters/{i}"))).collect())
            .unwrap_or_default();
        let key_of = |this: &mut Self, p: &Value, p_at: &str| {
            let (r, _) = this.deref_param(p, p_at);
            let field = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
            (field("name"), field("in"))
        };
        let own_keys: Vec<(String, String)> = own.iter().map(|(p, a)| key_of(self, p, a)).collect();
        let mut all: Vec<(Value, String, bool)> = Vec::new();
        for (p, p_at) in shared {
            let k = key_of(self, p, p_at);
            if !own_keys.contains(&k) {
                all.push((p.clone(), p_at.clone(), true));
            }
        }
        all.extend(own.into_iter().map(|(p, a)| (p, a, false)));

        let mut params = Vec::new();
        let mut body: Option<(Value, String)> = None;
        let mut form: Vec<(Value, String)> = Vec::new();
        for (p, p_at, is_shared) in all {
            let (resolved, resolved_at) = self.deref_param(&p, &p_at);
            match resolved.get("in").and_then(Value::as_str) {
                Some("body") => body = Some((resolved, resolved_at)),
                Some("formData") => form.push((resolved, resolved_at)),
                // Shared non-body parameters stay on the path item.
                _ if is_shared => {}
                _ => {
                    self.map.add(format!("{at}/parameters/{}", params.len()), p_at.clone());
                    params.push(self.parameter_or_ref(&p, &p_at));
                }
            }
        }
        if !params.is_empty() {
            out.insert("parameters".into(), Value::Array(params));
        }
        let body_at = join_pointer(at, "requestBody");
        if let Some((p, p_at)) = body {
            let media = if consumes.is_empty() { vec!["application/json".to_owned()] } else { consumes.clone() };
            let mut content = Map::new();
            let body_schema = p.get("schema").map(schema).unwrap_or(json!({}));
            for m in &media {
                let schema_at = join_pointer(&join_pointer(&join_pointer(&body_at, "content"), m), "schema");
                self.map.add(schema_at, join_pointer(&p_at, "schema"));
                content.insert(m.clone(), json!({"schema": body_schema.clone()}));
            }
            self.map.add(body_at.clone(), p_at.clone());
            let mut rb = Map::new();
            if let Some(d) = p.get("description") {
                rb.insert("description".into(), d.clone());
            }
            rb.insert("content".into(), Value::Object(content));
            if p.get("required") == Some(&Value::Bool(true)) {
                rb.insert("required".into(), Value::Bool(true));
            }
            out.insert("requestBody".into(), Value::Object(rb));
        } else if !form.is_empty() {
            let has_file = form.iter().any(|(p, _)| p.get("type").and_then(Value::as_str) == Some("file"));
            let multipart = has_file || consumes.iter().any(|m| m.starts_with("multipart/form-data"));
            let media = if multipart { "multipart/form-data" } else { "application/x-www-form-urlencoded" };
            let schema_at = join_pointer(&join_pointer(&join_pointer(&body_at, "content"), media), "schema");
            let mut props = Map::new();
            let mut required = Vec::new();
            for (p, p_at) in &form {
                let Some(name) = p.get("name").and_then(Value::as_str) else { continue };
                self.map.add(join_pointer(&join_pointer(&schema_at, "properties"), name), p_at.clone());
                let mut s = param_schema(p);
                if let (Value::Object(m), Some(d)) = (&mut s, p.get("description")) {
                    m.insert("description".into(), d.clone());
                }
                props.insert(name.to_owned(), s);
                if p.get("required") == Some(&Value::Bool(true)) {
                    required.push(json!(name));
                }
            }
            let mut s = Map::new();
            s.insert("type".into(), json!("object"));
            s.insert("properties".into(), Value::Object(props));
            let any_required = !required.is_empty();
            if any_required {
                s.insert("required".into(), Value::Array(required));
            }
            let mut rb = Map::new();
            rb.insert("content".into(), json!({ media: {"schema": Value::Object(s)} }));
            if any_required {
                rb.insert("required".into(), Value::Bool(true));
            }
            out.insert("requestBody".into(), Value::Object(rb));
        }
        if let Some(responses) = src.get("responses").and_then(Value::as_object) {
            let mut converted = Map::new();
            for (code, r) in responses {
                let r_at = join_pointer(&join_pointer(at, "responses"), code);
                let value = if code.starts_with("x-") { r.clone() } else { self.response(r, &r_at, &r_at, &produces) };
                converted.insert(code.clone(), value);
            }
            out.insert("responses".into(), Value::Object(converted));
        }
        Value::Object(out)
    }

    fn response(&mut self, r: &Value, at: &str, new_at: &str, produces: &[String]) -> Value {
        if let Some(reference) = r.get("$ref").and_then(Value::as_str) {
            return json!({"$ref": rewrite_ref(reference)});
        }
        let Some(src) = r.as_object() else { return r.clone() };
        let mut out = Map::new();
        out.insert("description".into(), src.get("description").cloned().unwrap_or(json!("")));
        if let Some(s) = src.get("schema") {
            let media: Vec<String> =
                if produces.is_empty() { vec!["application/json".to_owned()] } else { produces.to_vec() };
            let converted = schema(s);
            let mut content = Map::new();
            for m in &media {
                let schema_at = join_pointer(&join_pointer(&join_pointer(new_at, "content"), m), "schema");
                self.map.add(schema_at, join_pointer(at, "schema"));
                content.insert(m.clone(), json!({"schema": converted.clone()}));
            }
            out.insert("content".into(), Value::Object(content));
        }
        if let Some(headers) = src.get("headers").and_then(Value::as_object) {
            let h: Map<String, Value> = headers
                .iter()
                .map(|(k, h)| {
                    let mut obj = Map::new();
                    if let Some(d) = h.get("description") {
                        obj.insert("description".into(), d.clone());
                    }
                    obj.insert("schema".into(), param_schema(h));
                    (k.clone(), Value::Object(obj))
                })
                .collect();
            out.insert("headers".into(), Value::Object(h));
        }
        for (k, v) in src {
            if k.starts_with("x-") {
                out.insert(k.clone(), v.clone());
            }
        }
        Value::Object(out)
    }

    /// A non-body parameter: inline keywords become `schema`, `collectionFormat` a style.
    fn parameter(&mut self, p: &Value, at: &str) -> Value {
        let Some(src) = p.as_object() else { return p.clone() };
        let mut out = Map::new();
        for key in ["name", "in", "description", "required", "allowEmptyValue", "deprecated"] {
            if let Some(v) = src.get(key) {
                out.insert(key.into(), v.clone());
            }
        }
        for (k, v) in src {
            if k.starts_with("x-") && k != "x-nullable" {
                out.insert(k.clone(), v.clone());
            }
        }
        let location = src.get("in").and_then(Value::as_str).unwrap_or("");
        if src.get("type").and_then(Value::as_str) == Some("array") {
            let format = src.get("collectionFormat").and_then(Value::as_str).unwrap_or("csv");
            let query_like = matches!(location, "query" | "formData");
            let (style, explode) = match format {
                "multi" => ("form", true),
                "ssv" if query_like => ("spaceDelimited", false),
                "pipes" if query_like => ("pipeDelimited", false),
                "csv" => (if query_like { "form" } else { "simple" }, false),
                other => {
                    self.report.push(
                        Diagnostic::warning(
                            codes::INVALID_SPEC,
                            format!(
                                "collectionFormat `{other}` has no OpenAPI 3 equivalent here; sent comma-separated"
                            ),
                        )
                        .at(self.file, join_pointer(at, "collectionFormat"))
                        .with_help("use csv, multi, ssv or pipes"),
                    );
                    (if query_like { "form" } else { "simple" }, false)
                }
            };
            out.insert("style".into(), json!(style));
            out.insert("explode".into(), json!(explode));
        }
        let schema_value = match src.get("schema") {
            Some(s) => schema(s),
            None => param_schema(p),
        };
        self.map.add(join_pointer(at, "schema"), at.to_owned());
        out.insert("schema".into(), schema_value);
        Value::Object(out)
    }
}

/// A 2.0 non-body parameter, header or `items` object as a JSON Schema.
fn param_schema(p: &Value) -> Value {
    let mut out = Map::new();
    for key in PARAM_SCHEMA_KEYS {
        if let Some(v) = p.get(*key) {
            out.insert((*key).to_owned(), v.clone());
        }
    }
    if out.get("type").and_then(Value::as_str) == Some("file") {
        out.insert("type".into(), json!("string"));
        out.insert("format".into(), json!("binary"));
    }
    if let Some(items) = p.get("items") {
        out.insert("items".into(), if items.get("$ref").is_some() { schema(items) } else { param_schema(items) });
    }
    if p.get("x-nullable") == Some(&Value::Bool(true)) {
        out.insert("nullable".into(), Value::Bool(true));
    }
    Value::Object(out)
}

/// A 2.0 schema in 3.0 dialect: references rewritten, `file`, `x-nullable` and string
/// discriminators translated. Data keywords (`example`, `default`, `enum`) are copied as is.
fn schema(s: &Value) -> Value {
    let Some(src) = s.as_object() else { return s.clone() };
    let mut out = Map::new();
    for (key, value) in src {
        let converted = match key.as_str() {
            "$ref" => match value.as_str() {
                Some(r) => json!(rewrite_ref(r)),
                None => value.clone(),
            },
            "x-nullable" => {
                if value == &Value::Bool(true) {
                    out.insert("nullable".into(), Value::Bool(true));
                }
                continue;
            }
            "type" if value == "file" => {
                out.insert("format".into(), json!("binary"));
                json!("string")
            }
            "discriminator" => match value {
                Value::String(name) => json!({"propertyName": name}),
                other => other.clone(),
            },
            "properties" | "patternProperties" | "definitions" => match value.as_object() {
                Some(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), schema(v))).collect()),
                None => value.clone(),
            },
            "allOf" | "anyOf" | "oneOf" => match value.as_array() {
                Some(l) => Value::Array(l.iter().map(schema).collect()),
                None => value.clone(),
            },
            "items" => match value {
                Value::Array(l) => Value::Array(l.iter().map(schema).collect()),
                other => schema(other),
            },
            "additionalProperties" | "not" | "additionalItems" => schema(value),
            _ => value.clone(),
        };
        out.insert(key.clone(), converted);
    }
    Value::Object(out)
}

/// Where 2.0 component references point in 3.0: (2.0 prefix, 3.0 prefix).
const MOVED: &[(&str, &str)] = &[
    ("#/definitions/", "#/components/schemas/"),
    ("#/parameters/", "#/components/parameters/"),
    ("#/responses/", "#/components/responses/"),
];

fn rewrite_ref(r: &str) -> String {
    for (old, new) in MOVED {
        if let Some(rest) = r.strip_prefix(old) {
            return format!("{new}{rest}");
        }
    }
    r.to_owned()
}

/// A reference (or pointer) as the 2.0 document wrote it (for messages about upgraded references).
pub fn original_ref(r: &str) -> String {
    for (old, new) in MOVED {
        // With the `#` of a reference, or without it, as a pointer.
        for (o, n) in [(*old, *new), (&old[1..], &new[1..])] {
            if let Some(rest) = r.strip_prefix(n) {
                return format!("{o}{rest}");
            }
        }
    }
    r.to_owned()
}

fn unescape(token: &str) -> String {
    crate::diag::unescape_token(&percent_encoding::percent_decode_str(token).decode_utf8_lossy())
}

fn media_override(v: Option<&Value>) -> Option<Vec<String>> {
    let list: Vec<String> = v?.as_array()?.iter().filter_map(Value::as_str).map(str::to_owned).collect();
    (!list.is_empty()).then_some(list)
}

fn security_scheme(s: &Value) -> Value {
    let Some(src) = s.as_object() else { return s.clone() };
    let mut out = Map::new();
    match src.get("type").and_then(Value::as_str) {
        Some("basic") => {
            out.insert("type".into(), json!("http"));
            out.insert("scheme".into(), json!("basic"));
        }
        Some("oauth2") => {
            out.insert("type".into(), json!("oauth2"));
            let flow = match src.get("flow").and_then(Value::as_str) {
                Some("application") => "clientCredentials",
                Some("accessCode") => "authorizationCode",
                Some("password") => "password",
                _ => "implicit",
            };
            let mut f = Map::new();
            for key in ["authorizationUrl", "tokenUrl"] {
                if let Some(v) = src.get(key) {
                    f.insert(key.into(), v.clone());
                }
            }
            f.insert("scopes".into(), src.get("scopes").cloned().unwrap_or(json!({})));
            out.insert("flows".into(), json!({ flow: Value::Object(f) }));
        }
        _ => {
            for key in ["type", "name", "in"] {
                if let Some(v) = src.get(key) {
                    out.insert(key.into(), v.clone());
                }
            }
        }
    }
    if let Some(d) = src.get("description") {
        out.insert("description".into(), d.clone());
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn up(v: Value) -> (Value, PointerMap, Report) {
        let mut report = Report::new();
        let (out, map) = upgrade(v.as_object().unwrap(), "s.json", &mut report);
        (out, map, report)
    }

    #[test]
    fn bodies_parameters_and_responses_move_to_3_0_places() {
        let (out, map, report) = up(json!({
            "swagger": "2.0", "info": {"title": "T", "version": "1"},
            "host": "api.example.com", "basePath": "/v1/", "schemes": ["http", "https"],
            "consumes": ["application/json"], "produces": ["application/json"],
            "paths": {"/pets/{id}": {
                "parameters": [{"name": "id", "in": "path", "required": true, "type": "integer", "minimum": 1}],
                "put": {
                    "parameters": [
                        {"name": "tags", "in": "query", "type": "array", "items": {"type": "string", "maxLength": 5}, "collectionFormat": "multi"},
                        {"name": "pet", "in": "body", "required": true, "schema": {"$ref": "#/definitions/Pet"}}
                    ],
                    "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/Pet"}}}
                }
            }},
            "definitions": {"Pet": {"type": "object", "discriminator": "kind", "properties": {
                "kind": {"type": "string"}, "photo": {"type": "file"}, "age": {"type": "integer", "x-nullable": true}}}},
            "securityDefinitions": {"basic": {"type": "basic"}}
        }));
        assert!(report.is_empty(), "{report}");
        assert_eq!(
            out["servers"],
            json!([{"url": "https://api.example.com/v1"}, {"url": "http://api.example.com/v1"}])
        );
        let put = &out["paths"]["/pets/{id}"]["put"];
        assert_eq!(put["parameters"][0]["style"], "form");
        assert_eq!(put["parameters"][0]["explode"], true);
        assert_eq!(
            put["parameters"][0]["schema"],
            json!({"type": "array", "items": {"type": "string", "maxLength": 5}})
        );
        assert_eq!(put["requestBody"]["required"], true);
        assert_eq!(put["requestBody"]["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/Pet");
        assert_eq!(
            put["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/Pet"
        );
        assert_eq!(out["paths"]["/pets/{id}"]["parameters"][0]["schema"], json!({"type": "integer", "minimum": 1}));
        let pet = &out["components"]["schemas"]["Pet"];
        assert_eq!(pet["discriminator"], json!({"propertyName": "kind"}));
        assert_eq!(pet["properties"]["photo"], json!({"type": "string", "format": "binary"}));
        assert_eq!(pet["properties"]["age"]["nullable"], true);
        assert_eq!(out["components"]["securitySchemes"]["basic"], json!({"type": "http", "scheme": "basic"}));
        assert_eq!(map.translate("/components/schemas/Pet/properties/kind"), "/definitions/Pet/properties/kind");
        assert_eq!(
            map.translate("/paths/~1pets~1{id}/put/requestBody/content/application~1json/schema"),
            "/paths/~1pets~1{id}/put/parameters/1/schema"
        );
        assert_eq!(
            map.translate("/paths/~1pets~1{id}/put/parameters/0/schema"),
            "/paths/~1pets~1{id}/put/parameters/0"
        );
    }

    #[test]
    fn form_parameters_become_a_form_body() {
        let (out, _, _) = up(json!({
            "swagger": "2.0", "info": {"title": "T", "version": "1"},
            "paths": {"/login": {"post": {
                "consumes": ["application/x-www-form-urlencoded"],
                "parameters": [{"$ref": "#/parameters/User"}, {"name": "pw", "in": "formData", "type": "string", "minLength": 8}],
                "responses": {"204": {"description": "done"}}}}},
            "parameters": {"User": {"name": "user", "in": "formData", "required": true, "type": "string"}}
        }));
        let body = &out["paths"]["/login"]["post"]["requestBody"];
        assert_eq!(body["required"], true);
        let schema = &body["content"]["application/x-www-form-urlencoded"]["schema"];
        assert_eq!(schema["required"], json!(["user"]));
        assert_eq!(schema["properties"]["pw"], json!({"type": "string", "minLength": 8}));
        assert!(out["components"].get("parameters").is_none(), "form parameters are inlined, not components");
    }
}
