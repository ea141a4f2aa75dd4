//! Rust types for a native build: an argument type and a result type per native tool, read from
//! the very schemas `tools.json` serves, and one type per shared shape.
//!
//! Phases, after typify's: (1) every tool-local `$defs` entry gets a global name, shared by every
//! tool whose def and everything it reaches are the same JSON; (2) each tool's schemas have their
//! references rewritten to those names; (3) schemas convert to types, an inline shape seen twice
//! (same JSON) becoming one type; references inside a reference cycle are boxed; (4) items are
//! written sorted by name, so output never depends on discovery order.
//!
//! Types carry shape, not constraints: the runtime has validated every argument against the full
//! schema before a handler sees it, and checks every result against the outputSchema. A shape
//! Rust cannot state (`not`, `if`/`then`, an `allOf` of non-objects, mixed-type enums) becomes
//! `serde_json::Value` and is listed as a fallback.

use std::collections::{BTreeMap, BTreeSet};

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use super::rust::{KEYWORDS, docs, lit};
use crate::plan::retry::KeySource;
use crate::schema::{Catalog, Tool};

/// The types of one native build.
pub struct Types {
    /// The items of the `types` module.
    pub items: TokenStream,
    /// Per tool, in catalog order (empty paths for tools the crate does not run).
    pub tools: Vec<ToolTypes>,
    /// Shapes that became `serde_json::Value` although their schema says more.
    pub fallbacks: Vec<Fallback>,
    /// Every schema position converted (properties, items, variants, roots): the denominator of
    /// the fallback share.
    pub positions: usize,
    /// Positions whose schema admits any JSON value (no type, or an object's free-form values):
    /// `serde_json::Value` because that is what the schema says, not a fallback.
    pub open: usize,
    /// Named types written.
    pub count: usize,
}

pub struct ToolTypes {
    pub args: TokenStream,
    pub result: TokenStream,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback {
    /// The tool and where in its schema, e.g. `create_x inputSchema /properties/rule`.
    pub place: String,
    pub why: String,
}

/// Path of the JSON value type in generated code.
fn json_value() -> TokenStream {
    quote!(mcp_gen_runtime::serde_json::Value)
}

/// Builds the types of every native tool of `catalog`.
pub fn types(catalog: &Catalog) -> Types {
    let mut b = Gen::default();
    let names: Vec<String> = catalog.tools.iter().map(|t| pascal(&t.name)).collect();
    // Root names first, so a tool's own types get the plain names.
    for (tool, name) in catalog.tools.iter().zip(&names) {
        if tool.native {
            b.taken.insert(format!("{name}Args"));
        }
    }
    let mut tools = Vec::with_capacity(catalog.tools.len());
    for (tool, name) in catalog.tools.iter().zip(&names) {
        if !tool.native {
            tools.push(ToolTypes { args: TokenStream::new(), result: TokenStream::new() });
            continue;
        }
        let args = b.tool_args(tool, name);
        let result = b.tool_result(tool, name);
        tools.push(ToolTypes { args, result });
    }
    let count = b.items.len();
    let items = b.items.values();
    let items = quote! {
        #![allow(clippy::large_enum_variant, clippy::enum_variant_names, clippy::doc_lazy_continuation, clippy::doc_overindented_list_items)]
        use mcp_gen_runtime::serde::{Deserialize, Serialize};
        #(#items)*
    };
    Types { items, tools, fallbacks: b.fallbacks, positions: b.positions, open: b.open, count }
}

#[derive(Default)]
struct Gen {
    /// Type name → its item.
    items: BTreeMap<String, TokenStream>,
    /// Names given or reserved.
    taken: BTreeSet<String>,
    /// Canonical JSON of a shape (references already global) → its type's name.
    shapes: BTreeMap<String, String>,
    /// Closure key of a tool-local def → its global name.
    defs: BTreeMap<String, String>,
    /// Global def name → its schema (references global), converted on first use.
    def_schemas: BTreeMap<String, Value>,
    /// Types being written: a reference to one of them closes a cycle.
    writing: BTreeSet<String>,
    /// The position being converted is already behind a pointer (a `Vec`'s item, a map's
    /// value): a cycle through it needs no box.
    indirect: bool,
    fallbacks: Vec<Fallback>,
    positions: usize,
    open: usize,
}

/// Where a schema is being converted: for names, boxing and fallback reports.
#[derive(Clone)]
struct At {
    /// The name an inline type here would take (`Currency` for a property `currency`).
    hint: String,
    /// The enclosing type's name, to tell two `Status`es apart (`OrderStatus`).
    parent: String,
    /// `tool inputSchema /pointer`, for fallback reports.
    place: String,
}

impl At {
    fn child(&self, parent: &str, hint: String, pointer: &str) -> Self {
        At { hint, parent: parent.to_owned(), place: format!("{}{pointer}", self.place) }
    }
}

const REF_PREFIX: &str = "#/$defs/";
/// References after rewriting name global types.
const GLOBAL_PREFIX: &str = "#/types/";

impl Gen {
    fn tool_args(&mut self, tool: &Tool, name: &str) -> TokenStream {
        let mut schema = self.globalise(&tool.name, &tool.input_schema);
        // The runtime keeps the caller's idempotency key; the handler reads it from its context.
        if let Some(KeySource::Caller { arg }) = tool.key.as_ref().map(|k| &k.source)
            && let Some(obj) = schema.as_object_mut()
        {
            if let Some(Value::Object(props)) = obj.get_mut("properties") {
                props.shift_remove(arg.as_str());
            }
            if let Some(Value::Array(req)) = obj.get_mut("required") {
                req.retain(|r| r.as_str() != Some(arg.as_str()));
            }
        }
        let type_name = format!("{name}Args");
        let at = At { hint: type_name.clone(), parent: String::new(), place: format!("{} inputSchema ", tool.name) };
        let doc = format!("Arguments of `{}`: {}", tool.name, tool.title);
        self.positions += 1;
        // An argument type is a struct even when it has no properties.
        let item = self.object_item(&type_name, &schema, &at, Some(&doc));
        self.items.insert(type_name.clone(), item);
        let ident = ident(&type_name);
        quote!(types::#ident)
    }

    fn tool_result(&mut self, tool: &Tool, name: &str) -> TokenStream {
        let Some(output) = &tool.output_schema else {
            // No output schema: the result is whatever JSON the handler returns.
            self.positions += 1;
            return self.any();
        };
        let schema = self.globalise(&tool.name, output);
        // The name the spec gave the result's shape, when it referred to one.
        let hint = tool
            .output
            .as_ref()
            .and_then(|o| o.get("$ref"))
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix(REF_PREFIX))
            .map(pascal)
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| format!("{name}Result"));
        let at = At { hint, parent: name.to_owned(), place: format!("{} outputSchema ", tool.name) };
        let ty = self.ty(&schema, &at);
        let text = ty.to_string();
        if syn::parse_str::<Ident>(&text).is_ok() {
            return quote!(types::#ty);
        }
        if matches!(text.as_str(), "i64" | "f64" | "bool" | "()") || text.starts_with("mcp_gen_runtime") {
            return ty;
        }
        // A composite type (a list, a map, an option) gets a name the trait can use.
        let alias = self.unique(&format!("{name}Result"), "", &tool.name);
        let id = ident(&alias);
        self.items.insert(alias, quote!(#[doc = " The result of this tool."] pub type #id = #ty;));
        quote!(types::#id)
    }

    /// A tool's schema with its `$defs` taken out, each def registered under a global name, and
    /// references rewritten to those names.
    fn globalise(&mut self, tool: &str, schema: &Value) -> Value {
        let mut schema = schema.clone();
        let local: Map<String, Value> = match schema.as_object_mut().and_then(|o| o.shift_remove("$defs")) {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        if let Some(o) = schema.as_object_mut() {
            o.shift_remove("$schema");
        }
        // Local name → the local defs it reaches (itself included).
        let mut closure: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for name in local.keys() {
            let mut seen = BTreeSet::from([name.as_str()]);
            let mut todo = vec![name.as_str()];
            while let Some(n) = todo.pop() {
                let mut refs = Vec::new();
                if let Some(s) = local.get(n) {
                    local_refs(s, &mut refs);
                }
                for r in refs {
                    if local.contains_key(r) && seen.insert(r) {
                        todo.push(r);
                    }
                }
            }
            closure.insert(name.as_str(), seen);
        }
        let mut renamed: BTreeMap<String, String> = BTreeMap::new();
        for (name, reach) in &closure {
            // The def and all it reaches, by local name: equal keys mean the same types.
            let parts: Vec<String> = reach.iter().map(|n| format!("{n}={}", local[*n])).collect();
            let key = format!("{name}|{}", parts.join("|"));
            let global = match self.defs.get(&key) {
                Some(g) => g.clone(),
                None => {
                    let g = self.unique(&pascal(name), "", tool);
                    self.defs.insert(key, g.clone());
                    g
                }
            };
            renamed.insert((*name).to_owned(), global);
        }
        for (name, def) in &local {
            let global = &renamed[name];
            if !self.def_schemas.contains_key(global) {
                let mut def = def.clone();
                rewrite_refs(&mut def, &renamed);
                // An inline copy of the def (the schema stage writes a shape used once in place)
                // is the def's type, under the def's name.
                self.shapes.entry(skeleton(&def).to_string()).or_insert_with(|| global.clone());
                self.def_schemas.insert(global.clone(), def);
            }
        }
        rewrite_refs(&mut schema, &renamed);
        schema
    }

    /// A free type name like `base` (`parent`, then `tool`, disambiguate a clash).
    fn unique(&mut self, base: &str, parent: &str, tool: &str) -> String {
        let base = if base.is_empty() { "Shape".to_owned() } else { base.to_owned() };
        let with_parent = if base.starts_with(parent) { base.clone() } else { format!("{parent}{base}") };
        let with_tool = format!("{}{base}", pascal(tool));
        for candidate in [&base, &with_parent, &with_tool] {
            if self.taken.insert(candidate.clone()) {
                return candidate.clone();
            }
        }
        (2..).map(|n| format!("{with_parent}{n}")).find(|c| self.taken.insert(c.clone())).unwrap_or(base)
    }

    /// The type of `schema` at `at`, as tokens (a path relative to the `types` module).
    fn ty(&mut self, schema: &Value, at: &At) -> TokenStream {
        self.positions += 1;
        let indirect = std::mem::take(&mut self.indirect);
        let Some(obj) = schema.as_object() else { return self.any() };
        if let Some(target) = obj.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(GLOBAL_PREFIX)) {
            let target = target.to_owned();
            self.def_type(&target);
            return self.named(&target, indirect);
        }
        if let Some(ty) = nullable(obj) {
            let inner = self.ty(&ty, at);
            return quote!(::std::option::Option<#inner>);
        }
        for key in ["not", "if", "then", "else"] {
            if obj.contains_key(key) {
                return self.fallback(at, &format!("`{key}` has no Rust type"));
            }
        }
        if let Some(Value::Array(branches)) = obj.get("allOf") {
            return match merge_all_of(obj, branches, &self.def_schemas) {
                Some(merged) => self.ty(&merged, at),
                None => self.fallback(at, "an `allOf` of shapes that are not all objects"),
            };
        }
        if let Some(Value::Array(branches)) = obj.get("oneOf").or_else(|| obj.get("anyOf")) {
            return self.union(schema, branches, at);
        }
        if let Some(Value::Array(values)) = obj.get("enum") {
            return self.enumeration(schema, values, at);
        }
        if let Some(value) = obj.get("const") {
            return self.enumeration(schema, std::slice::from_ref(value), at);
        }
        match types_of(obj).as_slice() {
            [] if obj.contains_key("properties") => self.named_object(schema, at),
            [] => self.any(),
            ["string"] => quote!(::std::string::String),
            ["integer"] => quote!(i64),
            ["number"] => quote!(f64),
            ["boolean"] => quote!(bool),
            ["null"] => quote!(()),
            ["array"] => self.array(obj, at),
            ["object"] => self.named_object(schema, at),
            _ => self.union(schema, &split_types(obj), at),
        }
    }

    /// A position the schema leaves open to any JSON value.
    fn any(&mut self) -> TokenStream {
        self.open += 1;
        json_value()
    }

    fn fallback(&mut self, at: &At, why: &str) -> TokenStream {
        self.fallbacks.push(Fallback { place: at.place.trim_end().to_owned(), why: why.to_owned() });
        json_value()
    }

    /// A reference to a named type. One still being written is what encloses this position: the
    /// reference closes a cycle, and is boxed so the type has a finite size. (Every cycle closes
    /// this way once, whichever of its types is written first.)
    fn named(&self, name: &str, indirect: bool) -> TokenStream {
        let id = ident(name);
        if self.writing.contains(name) && !indirect { quote!(::std::boxed::Box<#id>) } else { quote!(#id) }
    }

    /// Converts a global def once.
    fn def_type(&mut self, name: &str) {
        if self.items.contains_key(name) {
            return;
        }
        let Some(schema) = self.def_schemas.get(name).cloned() else { return };
        // Reserve the item first: a def reaching itself converts once.
        self.items.insert(name.to_owned(), TokenStream::new());
        self.writing.insert(name.to_owned());
        let place = format!("$defs/{name} ");
        let at = At { hint: name.to_owned(), parent: name.to_owned(), place };
        let item = match self.item_for(&schema, name, &at) {
            Some(item) => item,
            None => {
                // Not a struct or enum: an alias to what it is.
                let ty = self.ty(&schema, &At { hint: format!("{name}Value"), ..at.clone() });
                let id = ident(name);
                let doc = description(&schema).map(|d| docs(&d)).unwrap_or_default();
                quote!(#(#[doc = #doc])* pub type #id = #ty;)
            }
        };
        self.items.insert(name.to_owned(), item);
        self.writing.remove(name);
    }

    /// The struct or enum item for `schema` named `name`, when it is one.
    fn item_for(&mut self, schema: &Value, name: &str, at: &At) -> Option<TokenStream> {
        let obj = schema.as_object()?;
        if obj.contains_key("$ref") || nullable(obj).is_some() {
            return None;
        }
        let strings = string_values(obj);
        if let Some(values) = strings {
            return Some(string_enum(name, &values, description(schema).as_deref()));
        }
        if let Some(Value::Array(branches)) = obj.get("oneOf").or_else(|| obj.get("anyOf")) {
            let branches = branches.clone();
            return self.union_item(schema, &branches, name, at);
        }
        if let Some(Value::Array(branches)) = obj.get("allOf") {
            let merged = merge_all_of(obj, branches, &self.def_schemas)?;
            return self.item_for(&merged, name, at);
        }
        let kinds = types_of(obj);
        let is_object = kinds == ["object"] || (kinds.is_empty() && obj.contains_key("properties"));
        if is_object
            && (obj.contains_key("properties") || !matches!(obj.get("additionalProperties"), Some(Value::Object(_))))
        {
            return Some(self.object_item(name, schema, at, None));
        }
        None
    }

    /// An object: a struct named for `at`, or a map when it only has additional properties.
    fn named_object(&mut self, schema: &Value, at: &At) -> TokenStream {
        let obj = schema.as_object();
        let props = obj.and_then(|o| o.get("properties")).and_then(Value::as_object);
        let extra = obj.and_then(|o| o.get("additionalProperties"));
        if props.is_none_or(Map::is_empty) {
            let value = match extra {
                Some(s @ Value::Object(_)) => {
                    self.ty(s, &at.child(&at.hint, format!("{}Value", at.hint), "/additionalProperties"))
                }
                _ => self.any(),
            };
            return quote!(::std::collections::BTreeMap<::std::string::String, #value>);
        }
        self.shared(schema, at, |g, name| g.object_item(name, schema, at, None))
    }

    /// The type of an inline shape: one per distinct JSON, named for where it was first seen.
    fn shared(&mut self, schema: &Value, at: &At, make: impl FnOnce(&mut Self, &str) -> TokenStream) -> TokenStream {
        self.shared_as(skeleton(schema).to_string(), at, make)
    }

    /// [`Gen::shared`] under a key of the caller's.
    fn shared_as(&mut self, key: String, at: &At, make: impl FnOnce(&mut Self, &str) -> TokenStream) -> TokenStream {
        if let Some(name) = self.shapes.get(&key).cloned() {
            if self.def_schemas.contains_key(&name) {
                self.def_type(&name);
            }
            return self.named(&name, false);
        }
        let tool = at.place.split(' ').next().unwrap_or_default().to_owned();
        let name = self.unique(&at.hint, &at.parent, &tool);
        self.shapes.insert(key, name.clone());
        self.items.insert(name.clone(), TokenStream::new());
        self.writing.insert(name.clone());
        let item = make(self, &name);
        self.writing.remove(&name);
        self.items.insert(name.clone(), item);
        let id = ident(&name);
        quote!(#id)
    }

    fn object_item(&mut self, name: &str, schema: &Value, at: &At, doc: Option<&str>) -> TokenStream {
        let empty = Map::new();
        let obj = schema.as_object().unwrap_or(&empty);
        let props = obj.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        let required: BTreeSet<&str> =
            obj.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let mut used = BTreeSet::new();
        let mut fields = Vec::new();
        for (prop, sub) in props {
            let field = unique_field(&field_name(prop), &mut used);
            let child = at.child(name, pascal(prop), &format!("/properties/{}", crate::diag::escape_token(prop)));
            let ty = self.ty(sub, &child);
            let optional = !required.contains(prop.as_str());
            let nullable_already = ty.to_string().starts_with(":: std :: option :: Option");
            let ty = if optional && !nullable_already { quote!(::std::option::Option<#ty>) } else { ty };
            let field_doc = description(sub).map(|d| docs(&d)).unwrap_or_default();
            let rename = (field != *prop).then(|| {
                let p = lit(prop);
                quote!(#[serde(rename = #p)])
            });
            let skip =
                optional.then(|| quote!(#[serde(default, skip_serializing_if = "::std::option::Option::is_none")]));
            let id = field_ident(&field);
            fields.push(quote! {
                #(#[doc = #field_doc])*
                #rename
                #skip
                pub #id: #ty,
            });
        }
        if let Some(extra @ Value::Object(_)) = obj.get("additionalProperties") {
            let value = self.ty(extra, &at.child(name, format!("{name}Value"), "/additionalProperties"));
            let field = unique_field("additional", &mut used);
            let id = field_ident(&field);
            fields.push(quote! {
                /// Properties beyond the named ones.
                #[serde(flatten)]
                pub #id: ::std::collections::BTreeMap<::std::string::String, #value>,
            });
        }
        let text = doc.map(str::to_owned).or_else(|| description(schema));
        let doc = text.map(|d| docs(&d)).unwrap_or_default();
        let id = ident(name);
        quote! {
            #(#[doc = #doc])*
            #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
            #[serde(crate = "mcp_gen_runtime::serde")]
            pub struct #id {
                #(#fields)*
            }
        }
    }

    fn array(&mut self, obj: &Map<String, Value>, at: &At) -> TokenStream {
        if let Some(Value::Array(prefix)) = obj.get("prefixItems") {
            if obj.get("items") == Some(&Value::Bool(false)) {
                let parts: Vec<TokenStream> = prefix
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        self.ty(s, &at.child(&at.parent, format!("{}{}", at.hint, i + 1), &format!("/prefixItems/{i}")))
                    })
                    .collect();
                return quote!((#(#parts,)*));
            }
            return self.fallback(at, "a tuple followed by more items");
        }
        let item = match obj.get("items") {
            Some(items) => {
                self.indirect = true;
                self.ty(items, &at.child(&at.parent, singular_hint(&at.hint), "/items"))
            }
            None => self.any(),
        };
        quote!(::std::vec::Vec<#item>)
    }

    /// An `enum` or `const`: a Rust enum for strings, the base type otherwise.
    fn enumeration(&mut self, schema: &Value, values: &[Value], at: &At) -> TokenStream {
        let obj = schema.as_object();
        if let Some(values) = obj.and_then(string_values) {
            // The same values are the same enum, however each schema spells the rest.
            let key = format!("enum:{}", Value::from(values.clone()));
            return self.shared_as(key, at, |_, name| string_enum(name, &values, description(schema).as_deref()));
        }
        let non_null: Vec<&Value> = values.iter().filter(|v| !v.is_null()).collect();
        let base = if non_null.iter().all(|v| v.is_i64() || v.is_u64()) {
            quote!(i64)
        } else if non_null.iter().all(|v| v.is_number()) {
            quote!(f64)
        } else if non_null.iter().all(|v| v.is_boolean()) {
            quote!(bool)
        } else {
            return self.fallback(at, "an enum of values of different types");
        };
        if non_null.len() < values.len() { quote!(::std::option::Option<#base>) } else { base }
    }

    fn union(&mut self, schema: &Value, branches: &[Value], at: &At) -> TokenStream {
        let branches = branches.to_vec();
        let mut made = None;
        let ty = self.shared(schema, at, |g, name| {
            let item = g.union_item(schema, &branches, name, at);
            made = Some(item.is_some());
            item.unwrap_or_default()
        });
        if made == Some(false) {
            // Nothing to name: forget the reservation and take the JSON value.
            let key = skeleton(schema).to_string();
            if let Some(name) = self.shapes.remove(&key) {
                self.items.remove(&name);
            }
            return self.fallback(at, "a union with no branch to tell apart");
        }
        ty
    }

    /// A `oneOf`/`anyOf` as an enum: serde-tagged when every branch is an object telling itself
    /// apart by one string `const` property, untagged otherwise (string `const`s are
    /// single-value enums, so an untagged enum still picks the right branch).
    fn union_item(&mut self, schema: &Value, branches: &[Value], name: &str, at: &At) -> Option<TokenStream> {
        if branches.is_empty() {
            return None;
        }
        let doc = description(schema).map(|d| docs(&d)).unwrap_or_default();
        let id = ident(name);
        if let Some(tag) = discriminator(branches) {
            let mut used = BTreeSet::new();
            let variants: Vec<TokenStream> = branches
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let value = b["properties"][&tag]["const"].as_str().unwrap_or_default().to_owned();
                    let variant = unique_variant(&variant_name(&value), &mut used);
                    let mut fields = b.clone();
                    if let Some(props) = fields.get_mut("properties").and_then(Value::as_object_mut) {
                        props.shift_remove(&tag);
                    }
                    let child = at.child(name, format!("{name}{variant}"), &format!("/oneOf/{i}"));
                    let inner = self.shared(&fields, &child, |g, n| g.object_item(n, &fields, &child, None));
                    let v = format_ident!("{}", variant);
                    let value = lit(&value);
                    quote!(#[serde(rename = #value)] #v(#inner),)
                })
                .collect();
            let tag = lit(&tag);
            return Some(quote! {
                #(#[doc = #doc])*
                #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
                #[serde(crate = "mcp_gen_runtime::serde", tag = #tag)]
                pub enum #id {
                    #(#variants)*
                }
            });
        }
        let mut used = BTreeSet::new();
        let mut variants = Vec::new();
        let mut catch_all = Vec::new();
        for (i, b) in branches.iter().enumerate() {
            let base = branch_name(b, i);
            let variant = unique_variant(&base, &mut used);
            let child = at.child(name, format!("{name}{variant}"), &format!("/anyOf/{i}"));
            let inner = self.ty(b, &child);
            let v = format_ident!("{}", variant);
            let tokens = quote!(#v(#inner),);
            // A branch that accepts anything would shadow the ones after it.
            if accepts_anything(b) { catch_all.push(tokens) } else { variants.push(tokens) }
        }
        variants.extend(catch_all);
        Some(quote! {
            #(#[doc = #doc])*
            #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
            #[serde(crate = "mcp_gen_runtime::serde", untagged)]
            pub enum #id {
                #(#variants)*
            }
        })
    }
}

/// `anyOf: [X, {type: null}]`, `type: [X, "null"]`, `enum` with `null`: the non-null schema.
fn nullable(obj: &Map<String, Value>) -> Option<Value> {
    if let Some(Value::Array(branches)) = obj.get("anyOf").or_else(|| obj.get("oneOf")) {
        let (nulls, others): (Vec<&Value>, Vec<&Value>) = branches.iter().partition(|b| is_null_schema(b));
        if !nulls.is_empty() && !others.is_empty() {
            let mut rest = obj.clone();
            let key = if obj.contains_key("anyOf") { "anyOf" } else { "oneOf" };
            rest.shift_remove(key);
            if let [only] = others.as_slice() {
                // The branch itself, with this schema's description.
                let mut single = (*only).clone();
                if let (Some(d), Some(o)) = (rest.get("description"), single.as_object_mut()) {
                    o.entry("description").or_insert_with(|| d.clone());
                }
                return Some(single);
            }
            rest.insert(key.to_owned(), Value::Array(others.into_iter().cloned().collect()));
            return Some(Value::Object(rest));
        }
    }
    if let Some(Value::Array(kinds)) = obj.get("type")
        && kinds.iter().any(|k| k == "null")
        && kinds.len() > 1
    {
        let rest: Vec<Value> = kinds.iter().filter(|k| *k != "null").cloned().collect();
        let mut out = obj.clone();
        out.insert("type".to_owned(), if rest.len() == 1 { rest[0].clone() } else { Value::Array(rest) });
        if let Some(Value::Array(values)) = out.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
        return Some(Value::Object(out));
    }
    if let Some(Value::Array(values)) = obj.get("enum")
        && values.iter().any(Value::is_null)
        && values.len() > 1
    {
        let mut out = obj.clone();
        out.insert("enum".to_owned(), Value::Array(values.iter().filter(|v| !v.is_null()).cloned().collect()));
        return Some(Value::Object(out));
    }
    None
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
        || v.get("enum").and_then(Value::as_array).is_some_and(|e| e.len() == 1 && e[0].is_null())
        || v.get("const").is_some_and(Value::is_null)
}

/// The schema's `type`, as a list.
fn types_of(obj: &Map<String, Value>) -> Vec<&str> {
    match obj.get("type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// `type: [a, b]` as one branch per type.
fn split_types(obj: &Map<String, Value>) -> Vec<Value> {
    types_of(obj)
        .into_iter()
        .map(|t| {
            let mut branch = obj.clone();
            branch.insert("type".to_owned(), Value::String(t.to_owned()));
            branch.shift_remove("description");
            Value::Object(branch)
        })
        .collect()
}

/// The string values of an `enum` or `const` of strings only, without repeats.
fn string_values(obj: &Map<String, Value>) -> Option<Vec<String>> {
    let values: Vec<&Value> = match (obj.get("enum"), obj.get("const")) {
        (Some(Value::Array(v)), _) => v.iter().collect(),
        (None, Some(c)) => vec![c],
        _ => return None,
    };
    if values.is_empty() || !values.iter().all(|v| v.is_string()) {
        return None;
    }
    let mut seen = BTreeSet::new();
    Some(values.iter().filter_map(|v| v.as_str()).filter(|s| seen.insert(*s)).map(str::to_owned).collect())
}

fn string_enum(name: &str, values: &[String], doc: Option<&str>) -> TokenStream {
    let mut used = BTreeSet::new();
    let variants = values.iter().map(|v| {
        let variant = unique_variant(&variant_name(v), &mut used);
        let id = format_ident!("{}", variant);
        let value = lit(v);
        quote!(#[serde(rename = #value)] #id,)
    });
    let doc = doc.map(docs).unwrap_or_default();
    let id = ident(name);
    quote! {
        #(#[doc = #doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(crate = "mcp_gen_runtime::serde")]
        pub enum #id {
            #(#variants)*
        }
    }
}

/// The property every branch fixes to its own string `const`, when there is one and every
/// branch is an inline object.
fn discriminator(branches: &[Value]) -> Option<String> {
    let first = branches.first()?.get("properties")?.as_object()?;
    let mut candidates: Vec<&String> =
        first.iter().filter(|(_, s)| s.get("const").is_some_and(Value::is_string)).map(|(k, _)| k).collect();
    candidates.retain(|tag| {
        let mut values = BTreeSet::new();
        branches.iter().all(|b| {
            b.get("$ref").is_none()
                && b.get("properties")
                    .and_then(|p| p.get(tag.as_str()))
                    .and_then(|t| t.get("const"))
                    .and_then(Value::as_str)
                    .is_some_and(|v| values.insert(v))
                && b.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|x| x == tag.as_str()))
        })
    });
    candidates.first().map(|t| (*t).clone())
}

/// A branch's variant name: its type's name, its `const`, or what kind of value it is.
fn branch_name(b: &Value, i: usize) -> String {
    if let Some(target) = b.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(GLOBAL_PREFIX)) {
        return target.to_owned();
    }
    if let Some(obj) = b.as_object() {
        if let Some(values) = string_values(obj) {
            if let [one] = values.as_slice() {
                let name = variant_name(one);
                return if one.is_empty() { "Empty".to_owned() } else { name };
            }
            return "Choice".to_owned();
        }
        if let Some(title) = obj.get("title").and_then(Value::as_str) {
            let n = pascal(title);
            if !n.is_empty() {
                return n;
            }
        }
        match types_of(obj).as_slice() {
            ["string"] => return "String".to_owned(),
            ["integer"] => return "Integer".to_owned(),
            ["number"] => return "Number".to_owned(),
            ["boolean"] => return "Boolean".to_owned(),
            ["array"] => return "List".to_owned(),
            ["object"] => return "Object".to_owned(),
            _ => {}
        }
    }
    format!("Variant{}", i + 1)
}

/// A schema every JSON value (or every object) fits: it must come last in an untagged enum.
fn accepts_anything(b: &Value) -> bool {
    let Some(obj) = b.as_object() else { return true };
    let constrained = ["type", "$ref", "enum", "const", "anyOf", "oneOf", "allOf"].iter().any(|k| obj.contains_key(*k));
    if !constrained {
        return true;
    }
    obj.get("type").and_then(Value::as_str) == Some("object")
        && obj.get("required").and_then(Value::as_array).is_none_or(Vec::is_empty)
}

/// Merges `allOf` branches that are all objects (references followed) into one object.
fn merge_all_of(obj: &Map<String, Value>, branches: &[Value], defs: &BTreeMap<String, Value>) -> Option<Value> {
    let mut props = Map::new();
    let mut required: Vec<Value> = Vec::new();
    let mut extra = None;
    let mut base = obj.clone();
    base.shift_remove("allOf");
    let mut parts: Vec<Value> = branches.to_vec();
    if base.contains_key("properties") {
        parts.push(Value::Object(base.clone()));
    }
    for part in &parts {
        let mut part = part.clone();
        for _ in 0..16 {
            let Some(target) = part.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(GLOBAL_PREFIX))
            else {
                break;
            };
            part = defs.get(target)?.clone();
        }
        let p = part.as_object()?;
        if let Some(Value::Array(inner)) = p.get("allOf") {
            let merged = merge_all_of(p, inner, defs)?;
            part = merged;
        }
        let p = part.as_object()?;
        let kinds = types_of(p);
        let only_notes = p.keys().all(|k| matches!(k.as_str(), "description" | "title" | "examples" | "default"));
        if only_notes {
            continue;
        }
        if !(kinds == ["object"] || (kinds.is_empty() && p.contains_key("properties"))) {
            return None;
        }
        if let Some(Value::Object(ps)) = p.get("properties") {
            for (k, v) in ps {
                props.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        if let Some(Value::Array(r)) = p.get("required") {
            for x in r {
                if !required.contains(x) {
                    required.push(x.clone());
                }
            }
        }
        if let Some(a @ Value::Object(_)) = p.get("additionalProperties") {
            extra = Some(a.clone());
        }
    }
    let mut out = Map::new();
    out.insert("type".to_owned(), Value::String("object".to_owned()));
    if let Some(d) = obj.get("description") {
        out.insert("description".to_owned(), d.clone());
    }
    out.insert("properties".to_owned(), Value::Object(props));
    if !required.is_empty() {
        out.insert("required".to_owned(), Value::Array(required));
    }
    if let Some(e) = extra {
        out.insert("additionalProperties".to_owned(), e);
    }
    Some(Value::Object(out))
}

fn local_refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(REF_PREFIX)) {
                out.push(r);
            }
            m.values().for_each(|v| local_refs(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| local_refs(v, out)),
        _ => {}
    }
}

/// Local `#/$defs/X` references → `#/types/<global name>`.
fn rewrite_refs(v: &mut Value, renamed: &BTreeMap<String, String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get_mut("$ref")
                && let Some(new) = r.strip_prefix(REF_PREFIX).and_then(|n| renamed.get(n))
            {
                *r = format!("{GLOBAL_PREFIX}{new}");
            }
            m.values_mut().for_each(|v| rewrite_refs(v, renamed));
        }
        Value::Array(a) => a.iter_mut().for_each(|v| rewrite_refs(v, renamed)),
        _ => {}
    }
}

/// What decides a shape's Rust type, and nothing else: two schemas that differ only in
/// descriptions, formats or limits (which the runtime checks) get one type.
fn skeleton(v: &Value) -> Value {
    const TYPED: &[&str] = &[
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "not",
        "if",
        "then",
        "else",
    ];
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| TYPED.contains(&k.as_str()))
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        // Property names are data, not keywords: keep every one.
                        ("properties", Value::Object(props)) => {
                            Value::Object(props.iter().map(|(p, s)| (p.clone(), skeleton(s))).collect())
                        }
                        ("enum" | "const" | "required", v) => v.clone(),
                        (_, v) => skeleton(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(skeleton).collect()),
        other => other.clone(),
    }
}

fn description(schema: &Value) -> Option<String> {
    schema.get("description").and_then(Value::as_str).filter(|d| !d.trim().is_empty()).map(str::to_owned)
}

/// A PascalCase type name from any text: letters and digits only, never starting with a digit.
pub fn pascal(text: &str) -> String {
    let spaced: String = text
        .chars()
        .map(|c| match c {
            '+' => " plus ".to_owned(),
            c if c.is_ascii_alphanumeric() => c.to_string(),
            _ => " ".to_owned(),
        })
        .collect();
    let mut name = spaced.to_upper_camel_case();
    name.retain(|c| c.is_ascii_alphanumeric());
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'T');
    }
    if name == "Self" {
        name.push('_');
    }
    name
}

fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

fn singular_hint(hint: &str) -> String {
    // `OrderLines` → `OrderLine`: an item of a list is one of them.
    let snake = hint.to_snake_case();
    let (head, last) = snake.rsplit_once('_').unwrap_or(("", &snake));
    let one = crate::plan::naming::singular(last);
    let name = pascal(&format!("{head} {one}"));
    if name == hint { format!("{hint}Item") } else { name }
}

/// A variant name for a string value: PascalCase, `+` and `-` kept apart (`+1`, `-1`).
fn variant_name(value: &str) -> String {
    if value.is_empty() {
        return "Empty".to_owned();
    }
    let spaced: String = value
        .chars()
        .map(|c| match c {
            '+' => " plus ".to_owned(),
            '-' if value.starts_with('-') => " minus ".to_owned(),
            c => c.to_string(),
        })
        .collect();
    let name = pascal(&spaced);
    if name.is_empty() { "Value".to_owned() } else { name }
}

fn unique_variant(base: &str, used: &mut BTreeSet<String>) -> String {
    let name = crate::text::unique(base, "V", |c| used.contains(c));
    used.insert(name.clone());
    name
}

/// A snake_case field name from a property name.
fn field_name(prop: &str) -> String {
    let spaced: String = prop
        .chars()
        .map(|c| match c {
            '+' => " plus ".to_owned(),
            '-' if prop.starts_with('-') => " minus ".to_owned(),
            '@' | '$' => " ".to_owned(),
            c if c.is_ascii_alphanumeric() => c.to_string(),
            _ => " ".to_owned(),
        })
        .collect();
    let mut name = spaced.to_snake_case();
    name.retain(|c| c.is_ascii_alphanumeric() || c == '_');
    if name.is_empty() {
        name = "field".to_owned();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert_str(0, "n_");
    }
    name
}

fn unique_field(base: &str, used: &mut BTreeSet<String>) -> String {
    let name = crate::text::unique(base, "_", |c| used.contains(c));
    used.insert(name.clone());
    name
}

/// A field identifier: raw for keywords, suffixed for the ones that cannot be raw.
fn field_ident(name: &str) -> Ident {
    match name {
        "self" | "super" | "crate" | "Self" | "_" => format_ident!("{}_", name),
        n if KEYWORDS.contains(&n) => Ident::new_raw(n, Span::call_site()),
        n => format_ident!("{}", n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_identifiers() {
        assert_eq!(pascal("create_order"), "CreateOrder");
        assert_eq!(pascal("3d-secure"), "T3dSecure");
        assert_eq!(variant_name("+1"), "Plus1");
        assert_eq!(variant_name("-1"), "Minus1");
        assert_eq!(variant_name("Etc/GMT+1"), "EtcGmtPlus1");
        assert_eq!(variant_name(""), "Empty");
        assert_eq!(field_name("+1"), "plus_1");
        assert_eq!(field_name("-1"), "minus_1");
        assert_eq!(field_name("@odata.type"), "odata_type");
        assert_eq!(field_name("3ds"), "n_3ds");
        assert_eq!(field_ident("type").to_string(), "r#type");
        assert_eq!(field_ident("self").to_string(), "self_");
        assert_eq!(singular_hint("OrderLines"), "OrderLine");
    }
}
