//! An `arbitrary`-derived description of a plausible OpenAPI 3.0 / 3.1 (or Swagger 2.0)
//! document, built as a `serde_json::Value`, serialised and fed to the whole pipeline. Raw bytes
//! rarely get past the loader; this reaches the resolver, planner, schema assembly and emitter
//! with `$ref` graphs (existing, missing, self and mutual references), compositions, OpenAPI 3.0
//! dialect, path templates and parameter styles.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcp_gen::Input;
use serde_json::{Map, Value, json};

#[path = "common.rs"]
mod common;

/// Names drawn mostly from a small pool, so references often hit what is defined.
const POOL: &[&str] = &[
    "Pet", "Node", "Error", "id", "name", "a~b", "a/b", "~1", "~0/", "", "pets", "x-ext", "$ref", "with space",
    "ümlaut", "123", "Pet_2", "Schema", "self", "_", "-", "type", "properties", "%7B", "{id}", "items", "v1",
    "api", "users", "orders", "Status", "a.b", "crate", "petId", "fn", "default", "200",
];

#[derive(Arbitrary, Debug, Clone)]
enum Name {
    Pool(u8),
    Free(String),
}

impl Name {
    fn s(&self) -> String {
        match self {
            Name::Pool(i) => POOL[*i as usize % POOL.len()].to_owned(),
            Name::Free(s) => s.clone(),
        }
    }
}

fn esc(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

fn pct(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

const FIXED_REFS: &[&str] = &[
    "#",
    "",
    "#/",
    "#/components",
    "#/components/schemas",
    "#/components/schemas/",
    "other.yaml#/X",
    "https://example.com/s.json#/X",
    "#/paths/~1pets/get/responses/200/content/application~1json/schema",
    "#/components/schemas/Pet/properties/id",
    "#/components/schemas/Node/items",
    "#/info",
    "#/info/title",
    "#/$defs/Pet",
    "#/definitions/Pet",
    "#/components/schemas/a%2Fb",
    "#/components/schemas/a~1b",
    "#/components/schemas/%7E",
    "#/components/schemas/%FF",
    "#/components/schemas/Pet/allOf/0",
    "#/paths",
    "#/components/parameters/id/schema",
];

#[derive(Arbitrary, Debug, Clone)]
enum Ref {
    Schema(Name),
    SchemaPct(Name),
    SchemaUnescaped(Name),
    Deep(Name, Vec<Name>),
    Definition(Name),
    Param(Name),
    Body(Name),
    Response(Name),
    PathItem(Name),
    Fixed(u8),
    Raw(String),
    NotAString(Leaf),
}

impl Ref {
    fn v(&self) -> Value {
        let s = match self {
            Ref::Schema(n) => format!("#/components/schemas/{}", esc(&n.s())),
            Ref::SchemaPct(n) => format!("#/components/schemas/{}", pct(&esc(&n.s()))),
            Ref::SchemaUnescaped(n) => format!("#/components/schemas/{}", n.s()),
            Ref::Deep(n, rest) => {
                let mut s = format!("#/components/schemas/{}", esc(&n.s()));
                for r in rest {
                    s.push('/');
                    s.push_str(&esc(&r.s()));
                }
                s
            }
            Ref::Definition(n) => format!("#/definitions/{}", esc(&n.s())),
            Ref::Param(n) => format!("#/components/parameters/{}", esc(&n.s())),
            Ref::Body(n) => format!("#/components/requestBodies/{}", esc(&n.s())),
            Ref::Response(n) => format!("#/components/responses/{}", esc(&n.s())),
            Ref::PathItem(n) => format!("#/paths/{}", esc(&format!("/{}", n.s()))),
            Ref::Fixed(i) => FIXED_REFS[*i as usize % FIXED_REFS.len()].to_owned(),
            Ref::Raw(s) => s.clone(),
            Ref::NotAString(l) => return l.v(),
        };
        Value::String(s)
    }
}

/// Data values (enum, default, example...): may even look like references.
#[derive(Arbitrary, Debug, Clone)]
enum Leaf {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Name(Name),
    List(Vec<Leaf>),
    Obj(Vec<(Name, Leaf)>),
    RefLike(Box<Ref>),
}

impl Leaf {
    fn v(&self) -> Value {
        match self {
            Leaf::Null => Value::Null,
            Leaf::Bool(b) => json!(b),
            Leaf::Int(i) => json!(i),
            Leaf::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Leaf::Str(s) => json!(s),
            Leaf::Name(n) => json!(n.s()),
            Leaf::List(l) => Value::Array(l.iter().map(Leaf::v).collect()),
            Leaf::Obj(m) => Value::Object(m.iter().map(|(k, v)| (k.s(), v.v())).collect()),
            Leaf::RefLike(r) => json!({"$ref": r.v()}),
        }
    }
}

const TYPES: &[&str] = &["string", "integer", "number", "boolean", "object", "array", "null", "file", "String"];

#[derive(Arbitrary, Debug, Clone)]
enum Ty {
    One(u8),
    Many(Vec<u8>),
    Bad(Leaf),
}

impl Ty {
    fn v(&self) -> Value {
        let t = |i: &u8| json!(TYPES[*i as usize % TYPES.len()]);
        match self {
            Ty::One(i) => t(i),
            Ty::Many(l) => Value::Array(l.iter().map(t).collect()),
            Ty::Bad(l) => l.v(),
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum BoolOrNum {
    Bool(bool),
    Num(i64),
    Other(Leaf),
}

impl BoolOrNum {
    fn v(&self) -> Value {
        match self {
            BoolOrNum::Bool(b) => json!(b),
            BoolOrNum::Num(n) => json!(n),
            BoolOrNum::Other(l) => l.v(),
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum Keyword {
    Type(Ty),
    Properties(Vec<(Name, Schema)>),
    PropertiesNotMap(Leaf),
    Required(Vec<Name>),
    RequiredBad(Leaf),
    Items(Box<Schema>),
    ItemsTuple(Vec<Schema>),
    AdditionalProperties(Box<Schema>),
    AllOf(Vec<Schema>),
    OneOf(Vec<Schema>),
    AnyOf(Vec<Schema>),
    ListNotArray(u8, Leaf),
    Not(Box<Schema>),
    IfThenElse(Box<Schema>, Option<Box<Schema>>, Option<Box<Schema>>),
    PrefixItems(Vec<Schema>),
    PatternProperties(Vec<(String, Schema)>),
    Dependencies(Vec<(Name, Leaf)>),
    Defs(bool, Vec<(Name, Schema)>),
    Nullable(Leaf),
    ExclusiveMinimum(BoolOrNum),
    ExclusiveMaximum(BoolOrNum),
    Minimum(Leaf),
    Maximum(Leaf),
    Discriminator(Option<Name>, Vec<(Name, Ref)>),
    DiscriminatorBad(Leaf),
    ReadOnly(Leaf),
    WriteOnly(Leaf),
    Enum(Vec<Leaf>),
    Const(Leaf),
    Pattern(String),
    Format(Name),
    Description(String),
    Title(String),
    Default(Leaf),
    Example(Leaf),
    Examples(Leaf),
    Deprecated(Leaf),
    Extension(Name, Leaf),
    Unknown(Name, Leaf),
    Sized(u8, Leaf),
    Xml(Leaf),
    /// Swagger 2.0 dialect.
    XNullable(Leaf),
    DiscriminatorString(Name),
}

const LIST_KEYS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items", "enum", "required"];
const SIZE_KEYS: &[&str] =
    &["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "multipleOf", "uniqueItems"];

#[derive(Arbitrary, Debug, Clone)]
enum Schema {
    Ref(Ref, Vec<Keyword>),
    Obj(Vec<Keyword>),
    Bool(bool),
    NotASchema(Leaf),
}

fn schemas(l: &[Schema]) -> Value {
    Value::Array(l.iter().map(Schema::v).collect())
}

fn schema_map<K: AsRef<str>>(m: impl Iterator<Item = (K, Value)>) -> Value {
    Value::Object(m.map(|(k, v)| (k.as_ref().to_owned(), v)).collect())
}

impl Schema {
    fn v(&self) -> Value {
        match self {
            Schema::Ref(r, kws) => {
                let mut m = Map::new();
                m.insert("$ref".into(), r.v());
                for k in kws {
                    k.apply(&mut m);
                }
                Value::Object(m)
            }
            Schema::Obj(kws) => {
                let mut m = Map::new();
                for k in kws {
                    k.apply(&mut m);
                }
                Value::Object(m)
            }
            Schema::Bool(b) => json!(b),
            Schema::NotASchema(l) => l.v(),
        }
    }
}

impl Keyword {
    fn apply(&self, m: &mut Map<String, Value>) {
        let (k, v): (String, Value) = match self {
            Keyword::Type(t) => ("type".into(), t.v()),
            Keyword::Properties(p) => ("properties".into(), schema_map(p.iter().map(|(n, s)| (n.s(), s.v())))),
            Keyword::PropertiesNotMap(l) => ("properties".into(), l.v()),
            Keyword::Required(r) => ("required".into(), Value::Array(r.iter().map(|n| json!(n.s())).collect())),
            Keyword::RequiredBad(l) => ("required".into(), l.v()),
            Keyword::Items(s) => ("items".into(), s.v()),
            Keyword::ItemsTuple(l) => ("items".into(), schemas(l)),
            Keyword::AdditionalProperties(s) => ("additionalProperties".into(), s.v()),
            Keyword::AllOf(l) => ("allOf".into(), schemas(l)),
            Keyword::OneOf(l) => ("oneOf".into(), schemas(l)),
            Keyword::AnyOf(l) => ("anyOf".into(), schemas(l)),
            Keyword::ListNotArray(i, l) => (LIST_KEYS[*i as usize % LIST_KEYS.len()].into(), l.v()),
            Keyword::Not(s) => ("not".into(), s.v()),
            Keyword::IfThenElse(i, t, e) => {
                if let Some(t) = t {
                    m.insert("then".into(), t.v());
                }
                if let Some(e) = e {
                    m.insert("else".into(), e.v());
                }
                ("if".into(), i.v())
            }
            Keyword::PrefixItems(l) => ("prefixItems".into(), schemas(l)),
            Keyword::PatternProperties(p) => {
                ("patternProperties".into(), schema_map(p.iter().map(|(n, s)| (n.clone(), s.v()))))
            }
            Keyword::Dependencies(d) => {
                ("dependencies".into(), Value::Object(d.iter().map(|(n, l)| (n.s(), l.v())).collect()))
            }
            Keyword::Defs(dollar, d) => (
                if *dollar { "$defs" } else { "definitions" }.into(),
                schema_map(d.iter().map(|(n, s)| (n.s(), s.v()))),
            ),
            Keyword::Nullable(l) => ("nullable".into(), l.v()),
            Keyword::ExclusiveMinimum(b) => ("exclusiveMinimum".into(), b.v()),
            Keyword::ExclusiveMaximum(b) => ("exclusiveMaximum".into(), b.v()),
            Keyword::Minimum(l) => ("minimum".into(), l.v()),
            Keyword::Maximum(l) => ("maximum".into(), l.v()),
            Keyword::Discriminator(p, mapping) => {
                let mut d = Map::new();
                if let Some(p) = p {
                    d.insert("propertyName".into(), json!(p.s()));
                }
                if !mapping.is_empty() {
                    d.insert("mapping".into(), Value::Object(mapping.iter().map(|(n, r)| (n.s(), r.v())).collect()));
                }
                ("discriminator".into(), Value::Object(d))
            }
            Keyword::DiscriminatorBad(l) => ("discriminator".into(), l.v()),
            Keyword::ReadOnly(l) => ("readOnly".into(), l.v()),
            Keyword::WriteOnly(l) => ("writeOnly".into(), l.v()),
            Keyword::Enum(l) => ("enum".into(), Value::Array(l.iter().map(Leaf::v).collect())),
            Keyword::Const(l) => ("const".into(), l.v()),
            Keyword::Pattern(p) => ("pattern".into(), json!(p)),
            Keyword::Format(n) => ("format".into(), json!(n.s())),
            Keyword::Description(s) => ("description".into(), json!(s)),
            Keyword::Title(s) => ("title".into(), json!(s)),
            Keyword::Default(l) => ("default".into(), l.v()),
            Keyword::Example(l) => ("example".into(), l.v()),
            Keyword::Examples(l) => ("examples".into(), l.v()),
            Keyword::Deprecated(l) => ("deprecated".into(), l.v()),
            Keyword::Extension(n, l) => (format!("x-{}", n.s()), l.v()),
            Keyword::Unknown(n, l) => (n.s(), l.v()),
            Keyword::Sized(i, l) => (SIZE_KEYS[*i as usize % SIZE_KEYS.len()].into(), l.v()),
            Keyword::Xml(l) => ("xml".into(), l.v()),
            Keyword::XNullable(l) => ("x-nullable".into(), l.v()),
            Keyword::DiscriminatorString(n) => ("discriminator".into(), json!(n.s())),
        };
        m.insert(k, v);
    }
}

const MEDIA: &[&str] = &[
    "application/json",
    "application/json; charset=utf-8",
    "APPLICATION/JSON",
    "application/problem+json",
    "*/*",
    "application/x-www-form-urlencoded",
    "text/plain",
    "text/csv",
    "multipart/form-data",
    "application/octet-stream",
    "application/xml",
    "application/jsonl",
    "",
];

#[derive(Arbitrary, Debug, Clone)]
enum Media {
    Known(u8),
    Raw(String),
}

impl Media {
    fn s(&self) -> String {
        match self {
            Media::Known(i) => MEDIA[*i as usize % MEDIA.len()].to_owned(),
            Media::Raw(s) => s.clone(),
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
struct MediaObj {
    media: Media,
    schema: Option<Schema>,
    example: Option<Leaf>,
}

fn content(c: &[MediaObj]) -> Value {
    Value::Object(
        c.iter()
            .map(|m| {
                let mut o = Map::new();
                if let Some(s) = &m.schema {
                    o.insert("schema".into(), s.v());
                }
                if let Some(e) = &m.example {
                    o.insert("example".into(), e.v());
                }
                (m.media.s(), Value::Object(o))
            })
            .collect(),
    )
}

const LOCATIONS: &[&str] = &["path", "query", "header", "cookie", "body", "formData", "Query", ""];
const STYLES: &[&str] =
    &["simple", "label", "matrix", "form", "spaceDelimited", "pipeDelimited", "deepObject", "Form", ""];
const SPECIAL_HEADERS: &[&str] = &["Accept", "content-type", "Authorization", "X-Request-Id"];

#[derive(Arbitrary, Debug, Clone)]
enum ParamName {
    Name(Name),
    SpecialHeader(u8),
    NotAString(Leaf),
}

#[derive(Arbitrary, Debug, Clone)]
enum Param {
    Ref(Ref),
    Obj {
        name: Option<ParamName>,
        location: Option<u8>,
        required: Option<Leaf>,
        deprecated: Option<bool>,
        style: Option<u8>,
        explode: Option<Leaf>,
        allow_reserved: Option<bool>,
        schema: Option<Schema>,
        content: Option<Vec<MediaObj>>,
        description: Option<String>,
        example: Option<Leaf>,
        examples: Option<Vec<(Name, Option<Leaf>)>>,
    },
    NotAnObject(Leaf),
}

impl Param {
    fn v(&self) -> Value {
        match self {
            Param::Ref(r) => json!({"$ref": r.v()}),
            Param::NotAnObject(l) => l.v(),
            Param::Obj {
                name,
                location,
                required,
                deprecated,
                style,
                explode,
                allow_reserved,
                schema,
                content: c,
                description,
                example,
                examples,
            } => {
                let mut m = Map::new();
                if let Some(n) = name {
                    let v = match n {
                        ParamName::Name(n) => json!(n.s()),
                        ParamName::SpecialHeader(i) => json!(SPECIAL_HEADERS[*i as usize % SPECIAL_HEADERS.len()]),
                        ParamName::NotAString(l) => l.v(),
                    };
                    m.insert("name".into(), v);
                }
                if let Some(i) = location {
                    m.insert("in".into(), json!(LOCATIONS[*i as usize % LOCATIONS.len()]));
                }
                if let Some(r) = required {
                    m.insert("required".into(), r.v());
                }
                if let Some(d) = deprecated {
                    m.insert("deprecated".into(), json!(d));
                }
                if let Some(i) = style {
                    m.insert("style".into(), json!(STYLES[*i as usize % STYLES.len()]));
                }
                if let Some(e) = explode {
                    m.insert("explode".into(), e.v());
                }
                if let Some(a) = allow_reserved {
                    m.insert("allowReserved".into(), json!(a));
                }
                if let Some(s) = schema {
                    m.insert("schema".into(), s.v());
                }
                if let Some(c) = c {
                    m.insert("content".into(), content(c));
                }
                if let Some(d) = description {
                    m.insert("description".into(), json!(d));
                }
                if let Some(e) = example {
                    m.insert("example".into(), e.v());
                }
                if let Some(ex) = examples {
                    let map = ex
                        .iter()
                        .map(|(n, v)| (n.s(), v.as_ref().map_or(json!({"summary": "s"}), |v| json!({"value": v.v()}))))
                        .collect();
                    m.insert("examples".into(), Value::Object(map));
                }
                Value::Object(m)
            }
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum Body {
    Ref(Ref),
    Obj { required: Option<bool>, description: Option<String>, content: Option<Vec<MediaObj>> },
    NotAnObject(Leaf),
}

impl Body {
    fn v(&self) -> Value {
        match self {
            Body::Ref(r) => json!({"$ref": r.v()}),
            Body::NotAnObject(l) => l.v(),
            Body::Obj { required, description, content: c } => {
                let mut m = Map::new();
                if let Some(r) = required {
                    m.insert("required".into(), json!(r));
                }
                if let Some(d) = description {
                    m.insert("description".into(), json!(d));
                }
                if let Some(c) = c {
                    m.insert("content".into(), content(c));
                }
                Value::Object(m)
            }
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum Resp {
    Ref(Ref),
    Obj { description: Option<String>, content: Option<Vec<MediaObj>> },
    NotAnObject(Leaf),
}

impl Resp {
    fn v(&self) -> Value {
        match self {
            Resp::Ref(r) => json!({"$ref": r.v()}),
            Resp::NotAnObject(l) => l.v(),
            Resp::Obj { description, content: c } => {
                let mut m = Map::new();
                if let Some(d) = description {
                    m.insert("description".into(), json!(d));
                }
                if let Some(c) = c {
                    m.insert("content".into(), content(c));
                }
                Value::Object(m)
            }
        }
    }
}

const STATUSES: &[&str] = &["200", "201", "204", "2XX", "default", "404", "500", "20", "2", "299x"];

#[derive(Arbitrary, Debug, Clone)]
enum Status {
    Known(u8),
    Raw(String),
}

const METHODS: &[&str] =
    &["get", "put", "post", "delete", "options", "head", "patch", "trace", "GET", "query", "x-op", "summary"];

#[derive(Arbitrary, Debug, Clone)]
struct Operation {
    method: u8,
    operation_id: Option<Name>,
    summary: Option<String>,
    description: Option<String>,
    tags: Option<Vec<Name>>,
    deprecated: Option<Leaf>,
    parameters: Option<Vec<Param>>,
    parameters_not_list: Option<Leaf>,
    request_body: Option<Body>,
    responses: Option<Vec<(Status, Resp)>>,
    security: Option<Security>,
    extension: Option<(Name, Leaf)>,
    not_an_object: Option<Leaf>,
}

impl Operation {
    fn v(&self) -> Value {
        if let Some(l) = &self.not_an_object {
            return l.v();
        }
        let mut m = Map::new();
        if let Some(id) = &self.operation_id {
            m.insert("operationId".into(), json!(id.s()));
        }
        if let Some(s) = &self.summary {
            m.insert("summary".into(), json!(s));
        }
        if let Some(d) = &self.description {
            m.insert("description".into(), json!(d));
        }
        if let Some(t) = &self.tags {
            m.insert("tags".into(), Value::Array(t.iter().map(|n| json!(n.s())).collect()));
        }
        if let Some(d) = &self.deprecated {
            m.insert("deprecated".into(), d.v());
        }
        if let Some(p) = &self.parameters {
            m.insert("parameters".into(), Value::Array(p.iter().map(Param::v).collect()));
        } else if let Some(l) = &self.parameters_not_list {
            m.insert("parameters".into(), l.v());
        }
        if let Some(b) = &self.request_body {
            m.insert("requestBody".into(), b.v());
        }
        if let Some(r) = &self.responses {
            let map = r
                .iter()
                .map(|(s, r)| {
                    let s = match s {
                        Status::Known(i) => STATUSES[*i as usize % STATUSES.len()].to_owned(),
                        Status::Raw(s) => s.clone(),
                    };
                    (s, r.v())
                })
                .collect();
            m.insert("responses".into(), Value::Object(map));
        }
        if let Some(s) = &self.security {
            m.insert("security".into(), s.v());
        }
        if let Some((n, l)) = &self.extension {
            m.insert(format!("x-{}", n.s()), l.v());
        }
        Value::Object(m)
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum Security {
    List(Vec<Vec<(Name, Vec<Name>)>>),
    Bad(Leaf),
}

impl Security {
    fn v(&self) -> Value {
        match self {
            Security::List(l) => Value::Array(
                l.iter()
                    .map(|alt| {
                        Value::Object(
                            alt.iter()
                                .map(|(n, scopes)| (n.s(), Value::Array(scopes.iter().map(|s| json!(s.s())).collect())))
                                .collect(),
                        )
                    })
                    .collect(),
            ),
            Security::Bad(l) => l.v(),
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum Segment {
    Lit(Name),
    Template(Name),
    Raw(String),
    Unclosed(Name),
    Empty,
}

#[derive(Arbitrary, Debug, Clone)]
struct PathItem {
    segments: Vec<Segment>,
    raw_key: Option<String>,
    item_ref: Option<Ref>,
    parameters: Option<Vec<Param>>,
    operations: Vec<Operation>,
    not_an_object: Option<Leaf>,
}

impl PathItem {
    fn key(&self) -> String {
        if let Some(k) = &self.raw_key {
            return k.clone();
        }
        let mut s = String::new();
        for seg in &self.segments {
            s.push('/');
            match seg {
                Segment::Lit(n) => s.push_str(&n.s()),
                Segment::Template(n) => s.push_str(&format!("{{{}}}", n.s())),
                Segment::Raw(r) => s.push_str(r),
                Segment::Unclosed(n) => s.push_str(&format!("{{{}", n.s())),
                Segment::Empty => {}
            }
        }
        if s.is_empty() { "/".to_owned() } else { s }
    }

    fn v(&self) -> Value {
        if let Some(l) = &self.not_an_object {
            return l.v();
        }
        let mut m = Map::new();
        if let Some(r) = &self.item_ref {
            m.insert("$ref".into(), r.v());
        }
        if let Some(p) = &self.parameters {
            m.insert("parameters".into(), Value::Array(p.iter().map(Param::v).collect()));
        }
        for op in &self.operations {
            m.insert(METHODS[op.method as usize % METHODS.len()].into(), op.v());
        }
        Value::Object(m)
    }
}

const SCHEME_TYPES: &[&str] = &["apiKey", "http", "oauth2", "openIdConnect", "mutualTLS", "basic"];
const HTTP_SCHEMES: &[&str] = &["bearer", "Bearer", "basic", "digest", ""];

#[derive(Arbitrary, Debug, Clone)]
enum SecScheme {
    Ref(Ref),
    Obj { kind: Option<u8>, location: Option<u8>, name: Option<Name>, scheme: Option<u8>, description: Option<String> },
}

impl SecScheme {
    fn v(&self) -> Value {
        match self {
            SecScheme::Ref(r) => json!({"$ref": r.v()}),
            SecScheme::Obj { kind, location, name, scheme, description } => {
                let mut m = Map::new();
                if let Some(k) = kind {
                    m.insert("type".into(), json!(SCHEME_TYPES[*k as usize % SCHEME_TYPES.len()]));
                }
                if let Some(l) = location {
                    m.insert("in".into(), json!(LOCATIONS[*l as usize % LOCATIONS.len()]));
                }
                if let Some(n) = name {
                    m.insert("name".into(), json!(n.s()));
                }
                if let Some(s) = scheme {
                    m.insert("scheme".into(), json!(HTTP_SCHEMES[*s as usize % HTTP_SCHEMES.len()]));
                }
                if let Some(d) = description {
                    m.insert("description".into(), json!(d));
                }
                Value::Object(m)
            }
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum Version {
    V30(u8),
    V31(u8),
    V32,
    Swagger20,
    Number(f64),
    Other(String),
}

#[derive(Arbitrary, Debug, Clone)]
struct Server {
    url: Name,
    variables: Vec<(Name, Option<Leaf>)>,
}

#[derive(Arbitrary, Debug, Clone)]
struct Doc {
    version: Version,
    title: Option<Leaf>,
    api_version: Option<Leaf>,
    info_missing: bool,
    description: Option<String>,
    servers: Vec<Server>,
    paths: Vec<PathItem>,
    paths_not_an_object: Option<Leaf>,
    schemas: Vec<(Name, Schema)>,
    definitions: Vec<(Name, Schema)>,
    parameters: Vec<(Name, Param)>,
    request_bodies: Vec<(Name, Body)>,
    responses: Vec<(Name, Resp)>,
    security_schemes: Vec<(Name, SecScheme)>,
    security: Option<Security>,
    /// Used when `version` is Swagger 2.0: how the 3.x-shaped model is turned into 2.0.
    swagger: SwaggerOpts,
    /// Also run the Rust emitter.
    full_emit: bool,
    /// Serialise pretty (multi-line) rather than compact.
    pretty: bool,
    /// Feed the JSON text under a `.yaml` name (JSON is YAML): the YAML reader and locator run.
    as_yaml: bool,
}

impl Doc {
    fn v(&self) -> Value {
        let mut root = Map::new();
        match &self.version {
            Version::V30(p) => {
                root.insert("openapi".into(), json!(format!("3.0.{}", p % 5)));
            }
            Version::V31(p) => {
                root.insert("openapi".into(), json!(format!("3.1.{}", p % 3)));
            }
            Version::V32 => {
                root.insert("openapi".into(), json!("3.2.0"));
            }
            Version::Swagger20 => {
                root.insert("swagger".into(), json!("2.0"));
            }
            Version::Number(n) => {
                root.insert("openapi".into(), serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number));
            }
            Version::Other(s) => {
                root.insert("openapi".into(), json!(s));
            }
        }
        if !self.info_missing {
            let mut info = Map::new();
            if let Some(t) = &self.title {
                info.insert("title".into(), t.v());
            }
            if let Some(v) = &self.api_version {
                info.insert("version".into(), v.v());
            }
            if let Some(d) = &self.description {
                info.insert("description".into(), json!(d));
            }
            root.insert("info".into(), Value::Object(info));
        }
        if !self.servers.is_empty() {
            let servers = self
                .servers
                .iter()
                .map(|s| {
                    let vars: Map<String, Value> = s
                        .variables
                        .iter()
                        .map(|(n, d)| (n.s(), d.as_ref().map_or(json!({}), |d| json!({"default": d.v()}))))
                        .collect();
                    json!({"url": s.url.s(), "variables": vars})
                })
                .collect();
            root.insert("servers".into(), Value::Array(servers));
        }
        if let Some(l) = &self.paths_not_an_object {
            root.insert("paths".into(), l.v());
        } else {
            root.insert("paths".into(), Value::Object(self.paths.iter().map(|p| (p.key(), p.v())).collect()));
        }
        let mut components = Map::new();
        let mut put = |key: &str, entries: Map<String, Value>| {
            if !entries.is_empty() {
                components.insert(key.into(), Value::Object(entries));
            }
        };
        put("schemas", self.schemas.iter().map(|(n, s)| (n.s(), s.v())).collect());
        put("parameters", self.parameters.iter().map(|(n, p)| (n.s(), p.v())).collect());
        put("requestBodies", self.request_bodies.iter().map(|(n, b)| (n.s(), b.v())).collect());
        put("responses", self.responses.iter().map(|(n, r)| (n.s(), r.v())).collect());
        put("securitySchemes", self.security_schemes.iter().map(|(n, s)| (n.s(), s.v())).collect());
        if !components.is_empty() {
            root.insert("components".into(), Value::Object(components));
        }
        if !self.definitions.is_empty() {
            root.insert("definitions".into(), schema_map(self.definitions.iter().map(|(n, s)| (n.s(), s.v()))));
        }
        if let Some(s) = &self.security {
            root.insert("security".into(), s.v());
        }
        Value::Object(root)
    }
}

const COLLECTION_FORMATS: &[&str] = &["csv", "ssv", "tsv", "pipes", "multi", "bogus"];
const URL_SCHEMES: &[&str] = &["https", "http", "ws", "HTTPS"];

#[derive(Arbitrary, Debug, Clone)]
struct SwaggerOpts {
    host: Option<Name>,
    base_path: Option<Name>,
    schemes: Vec<u8>,
    consumes: Option<Vec<Media>>,
    produces: Option<Vec<Media>>,
    /// Per-operation overrides of consumes/produces, by operation order.
    op_media: Vec<(Option<Vec<Media>>, Option<Vec<Media>>)>,
    /// Non-body parameters: schema keywords inline (2.0 style) rather than under `schema`.
    inline_params: bool,
    collection_format: Option<u8>,
    /// Request bodies become `formData` parameters (from the schema's properties).
    bodies_as_form: bool,
    /// Keep the request body's name when it is a component (then referenced as a parameter).
    body_name: Name,
}

fn rewrite_refs(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get_mut("$ref") {
                for (old, new) in [
                    ("#/components/schemas/", "#/definitions/"),
                    ("#/components/parameters/", "#/parameters/"),
                    ("#/components/requestBodies/", "#/parameters/"),
                    ("#/components/responses/", "#/responses/"),
                ] {
                    if let Some(rest) = r.strip_prefix(old) {
                        *r = format!("{new}{rest}");
                        break;
                    }
                }
            }
            m.values_mut().for_each(rewrite_refs);
        }
        Value::Array(l) => l.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}

fn media_list(l: &[Media]) -> Value {
    Value::Array(l.iter().map(|m| json!(m.s())).collect())
}

/// The first schema of a `content` map, if any.
fn first_schema(content: Option<&Value>) -> Option<Value> {
    content?.as_object()?.values().find_map(|m| m.get("schema").cloned())
}

/// A 3.x request body → 2.0 `body` or `formData` parameters.
fn body_params(body: &Value, o: &SwaggerOpts) -> Vec<Value> {
    if let Some(r) = body.get("$ref") {
        return vec![json!({"$ref": r})];
    }
    let schema = first_schema(body.get("content")).unwrap_or(json!({"type": "object"}));
    if o.bodies_as_form
        && let Some(props) = schema.get("properties").and_then(Value::as_object)
    {
        let required = schema.get("required").cloned().unwrap_or(json!([]));
        return props
            .iter()
            .map(|(name, s)| {
                let mut p = s.as_object().cloned().unwrap_or_default();
                p.insert("name".into(), json!(name));
                p.insert("in".into(), json!("formData"));
                if required.as_array().is_some_and(|r| r.contains(&json!(name))) {
                    p.insert("required".into(), json!(true));
                }
                Value::Object(p)
            })
            .collect();
    }
    let mut p = Map::new();
    p.insert("name".into(), json!(o.body_name.s()));
    p.insert("in".into(), json!("body"));
    p.insert("schema".into(), schema);
    for k in ["required", "description"] {
        if let Some(v) = body.get(k) {
            p.insert(k.into(), v.clone());
        }
    }
    vec![Value::Object(p)]
}

/// A 3.x non-body parameter → 2.0 (keywords inline, `collectionFormat`).
fn param2(p: &Value, o: &SwaggerOpts) -> Value {
    let Some(m) = p.as_object() else { return p.clone() };
    if m.contains_key("$ref") {
        return p.clone();
    }
    let mut out = m.clone();
    out.shift_remove("style");
    out.shift_remove("explode");
    let content = out.shift_remove("content");
    let schema = out.shift_remove("schema").or_else(|| first_schema(content.as_ref()));
    if let Some(schema) = schema {
        if o.inline_params && let Value::Object(s) = schema {
            for (k, v) in s {
                out.entry(k).or_insert(v);
            }
        } else {
            out.insert("schema".into(), schema);
        }
    }
    if let Some(i) = o.collection_format {
        out.insert("collectionFormat".into(), json!(COLLECTION_FORMATS[i as usize % COLLECTION_FORMATS.len()]));
    }
    Value::Object(out)
}

fn response2(r: &Value) -> Value {
    let Some(m) = r.as_object() else { return r.clone() };
    if m.contains_key("$ref") {
        return r.clone();
    }
    let mut out = Map::new();
    if let Some(d) = m.get("description") {
        out.insert("description".into(), d.clone());
    }
    if let Some(s) = first_schema(m.get("content")) {
        out.insert("schema".into(), s);
    }
    Value::Object(out)
}

/// Reshapes the 3.x-shaped model into a Swagger 2.0 document.
fn to_swagger2(mut v: Value, o: &SwaggerOpts) -> Value {
    rewrite_refs(&mut v);
    let Value::Object(mut root) = v else { return v };
    root.shift_remove("servers");
    if let Some(h) = &o.host {
        root.insert("host".into(), json!(h.s()));
    }
    if let Some(b) = &o.base_path {
        root.insert("basePath".into(), json!(format!("/{}", b.s())));
    }
    if !o.schemes.is_empty() {
        let s: Vec<Value> = o.schemes.iter().map(|i| json!(URL_SCHEMES[*i as usize % URL_SCHEMES.len()])).collect();
        root.insert("schemes".into(), Value::Array(s));
    }
    if let Some(c) = &o.consumes {
        root.insert("consumes".into(), media_list(c));
    }
    if let Some(p) = &o.produces {
        root.insert("produces".into(), media_list(p));
    }
    let mut op_index = 0;
    if let Some(Value::Object(paths)) = root.get_mut("paths") {
        for item in paths.values_mut() {
            let Value::Object(item) = item else { continue };
            if let Some(Value::Array(ps)) = item.get_mut("parameters") {
                for p in ps.iter_mut() {
                    *p = param2(p, o);
                }
            }
            for (_, op) in item.iter_mut().filter(|(k, _)| METHODS.contains(&k.as_str())) {
                let Value::Object(op) = op else { continue };
                let mut params: Vec<Value> = match op.shift_remove("parameters") {
                    Some(Value::Array(ps)) => ps.iter().map(|p| param2(p, o)).collect(),
                    _ => Vec::new(),
                };
                if let Some(body) = op.shift_remove("requestBody") {
                    params.extend(body_params(&body, o));
                }
                if !params.is_empty() {
                    op.insert("parameters".into(), Value::Array(params));
                }
                if let Some(Value::Object(rs)) = op.get_mut("responses") {
                    for r in rs.values_mut() {
                        *r = response2(r);
                    }
                }
                if let Some((c, p)) = o.op_media.get(op_index) {
                    if let Some(c) = c {
                        op.insert("consumes".into(), media_list(c));
                    }
                    if let Some(p) = p {
                        op.insert("produces".into(), media_list(p));
                    }
                }
                op_index += 1;
            }
        }
    }
    if let Some(Value::Object(mut components)) = root.shift_remove("components") {
        if let Some(s) = components.shift_remove("schemas") {
            root.insert("definitions".into(), s);
        }
        let mut params = Map::new();
        if let Some(Value::Object(ps)) = components.shift_remove("parameters") {
            params.extend(ps.iter().map(|(k, p)| (k.clone(), param2(p, o))));
        }
        if let Some(Value::Object(bodies)) = components.shift_remove("requestBodies") {
            for (k, b) in bodies {
                if let Some(p) = body_params(&b, o).into_iter().next() {
                    params.insert(k, p);
                }
            }
        }
        if !params.is_empty() {
            root.insert("parameters".into(), Value::Object(params));
        }
        if let Some(Value::Object(rs)) = components.shift_remove("responses") {
            root.insert("responses".into(), Value::Object(rs.iter().map(|(k, r)| (k.clone(), response2(r))).collect()));
        }
        if let Some(Value::Object(ss)) = components.shift_remove("securitySchemes") {
            let schemes = ss
                .into_iter()
                .map(|(k, mut s)| {
                    if let Value::Object(m) = &mut s
                        && m.get("type") == Some(&json!("http"))
                    {
                        m.insert("type".into(), json!("basic"));
                        m.shift_remove("scheme");
                    }
                    if let Value::Object(m) = &mut s
                        && m.get("type") == Some(&json!("oauth2"))
                    {
                        m.insert("flow".into(), json!("accessCode"));
                        m.insert("scopes".into(), json!({"read": "r"}));
                    }
                    (k, s)
                })
                .collect();
            root.insert("securityDefinitions".into(), Value::Object(schemes));
        }
    }
    Value::Object(root)
}

fuzz_target!(|doc: Doc| {
    let mut value = doc.v();
    if matches!(doc.version, Version::Swagger20) {
        value = to_swagger2(value, &doc.swagger);
    }
    let text = if doc.pretty { serde_json::to_string_pretty(&value) } else { serde_json::to_string(&value) };
    let Ok(text) = text else { return };
    let name = if doc.as_yaml { "openapi.yaml" } else { "openapi.json" };
    let input = Input { spec: common::text(name, &text), overlay: None, versions: Vec::new() };
    common::run(&input, doc.full_emit);
});
