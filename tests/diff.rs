//! The contract diff's rule table, one case per rule: two versions of a small API compiled by
//! the real pipeline, diffed, and the one change each case plants found and classed; cosmetic
//! edits report nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use mcp_gen::diff::{Class, diff};
use mcp_gen::{Input, Settings, SourceInput, generate};
use serde_json::{Value, json};

/// A one-operation API: `POST /things` (operationId `createThing`) taking `body` and answering
/// `output`; `extra` is merged into the document (components, more paths).
fn api(body: Value, output: Value, extra: Value) -> Value {
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {"title": "Things", "version": "1"},
        "servers": [{"url": "https://things.example.com"}],
        "paths": {"/things": {"post": {
            "operationId": "createThing", "summary": "Create a thing.",
            "requestBody": {"required": true, "content": {"application/json": {"schema": body}}},
            "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": output}}}}
        }}}
    });
    for (k, v) in extra.as_object().unwrap() {
        if k == "paths" {
            for (p, item) in v.as_object().unwrap() {
                doc["paths"][p] = item.clone();
            }
        } else {
            doc[k] = v.clone();
        }
    }
    doc
}

fn compile(doc: &Value) -> Vec<mcp_gen::diff::Contract> {
    let overlay = r#"{"mcp-gen": 1, "server": {"instructions": "Things of one account."},
        "tools": {"create_thing": {"operation": "createThing",
          "effects": {"reversible": true, "approver": "none", "on_repeat": "replay", "idempotency": "caller"}}}}"#;
    let input = Input {
        spec: SourceInput::Text { name: "openapi.json".into(), text: doc.to_string() },
        overlay: Some(SourceInput::Text { name: "overlay.json".into(), text: overlay.into() }),
        versions: Vec::new(),
    };
    let out = generate(&input, &Settings::default()).unwrap_or_else(|r| panic!("{r}"));
    mcp_gen::diff::contracts(&out.catalog)
}

fn body(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required})
}

fn out(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required})
}

/// Each rule: the change it plants, as (class, rule, pointer).
#[test]
fn every_rule_of_the_table_is_found_and_classed() {
    let name = json!({"type": "string", "maxLength": 50});
    let base_out = out(json!({"id": {"type": "string"}, "name": {"type": "string"}}), &["id", "name"]);
    let base = || {
        api(
            body(json!({"name": name, "count": {"type": "integer", "maximum": 10}}), &["name"]),
            base_out.clone(),
            json!({}),
        )
    };
    let cases: Vec<(&str, Value, Class, &str, &str)> = vec![
        (
            "argument removed",
            api(body(json!({"name": name}), &["name"]), base_out.clone(), json!({})),
            Class::Breaking,
            "argument removed",
            "/inputSchema/properties/count",
        ),
        (
            "argument renamed",
            api(
                body(json!({"name": name, "item_count": {"type": "integer", "maximum": 10}}), &["name"]),
                base_out.clone(),
                json!({}),
            ),
            Class::Breaking,
            "argument renamed",
            "/inputSchema/properties/count",
        ),
        (
            "new required argument",
            api(
                body(
                    json!({"name": name, "count": {"type": "integer", "maximum": 10}, "owner": {"type": "string"}}),
                    &["name", "owner"],
                ),
                base_out.clone(),
                json!({}),
            ),
            Class::Breaking,
            "new required argument",
            "/inputSchema/properties/owner",
        ),
        (
            "new optional argument",
            api(
                body(
                    json!({"name": name, "count": {"type": "integer", "maximum": 10}, "owner": {"type": "string"}}),
                    &["name"],
                ),
                base_out.clone(),
                json!({}),
            ),
            Class::Additive,
            "new optional argument",
            "/inputSchema/properties/owner",
        ),
        (
            "type changed",
            api(body(json!({"name": name, "count": {"type": "string"}}), &["name"]), base_out.clone(), json!({})),
            Class::Breaking,
            "type changed",
            "/inputSchema/properties/count/type",
        ),
        (
            "maximum lowered",
            api(
                body(json!({"name": name, "count": {"type": "integer", "maximum": 5}}), &["name"]),
                base_out.clone(),
                json!({}),
            ),
            Class::Breaking,
            "input constraint tightened",
            "/inputSchema/properties/count/maximum",
        ),
        (
            "maximum raised",
            api(
                body(json!({"name": name, "count": {"type": "integer", "maximum": 50}}), &["name"]),
                base_out.clone(),
                json!({}),
            ),
            Class::Additive,
            "input constraint widened",
            "/inputSchema/properties/count/maximum",
        ),
        (
            "maxLength shortened",
            api(
                body(
                    json!({"name": {"type": "string", "maxLength": 20}, "count": {"type": "integer", "maximum": 10}}),
                    &["name"],
                ),
                base_out.clone(),
                json!({}),
            ),
            Class::Breaking,
            "input constraint tightened",
            "/inputSchema/properties/name/maxLength",
        ),
        (
            "pattern added",
            api(
                body(
                    json!({"name": {"type": "string", "maxLength": 50, "pattern": "^[a-z]+$"}, "count": {"type": "integer", "maximum": 10}}),
                    &["name"],
                ),
                base_out.clone(),
                json!({}),
            ),
            Class::Breaking,
            "input constraint tightened",
            "/inputSchema/properties/name/pattern",
        ),
        (
            "argument became required",
            api(
                body(json!({"name": name, "count": {"type": "integer", "maximum": 10}}), &["name", "count"]),
                base_out.clone(),
                json!({}),
            ),
            Class::Breaking,
            "argument became required",
            "/inputSchema/properties/count/required",
        ),
        (
            "default changed",
            api(
                body(json!({"name": name, "count": {"type": "integer", "maximum": 10, "default": 3}}), &["name"]),
                base_out.clone(),
                json!({}),
            ),
            Class::Semantic,
            "default changed",
            "/inputSchema/properties/count/default",
        ),
        (
            "output field removed",
            api(
                body(json!({"name": name, "count": {"type": "integer", "maximum": 10}}), &["name"]),
                out(json!({"id": {"type": "string"}}), &["id"]),
                json!({}),
            ),
            Class::Breaking,
            "output field removed",
            "/outputSchema/properties/name",
        ),
        (
            "output field added",
            api(
                body(json!({"name": name, "count": {"type": "integer", "maximum": 10}}), &["name"]),
                out(
                    json!({"id": {"type": "string"}, "name": {"type": "string"}, "size": {"type": "integer"}}),
                    &["id", "name"],
                ),
                json!({}),
            ),
            Class::Additive,
            "new output field",
            "/outputSchema/properties/size",
        ),
        (
            "output field retyped",
            api(
                body(json!({"name": name, "count": {"type": "integer", "maximum": 10}}), &["name"]),
                out(json!({"id": {"type": "integer"}, "name": {"type": "string"}}), &["id", "name"]),
                json!({}),
            ),
            Class::Breaking,
            "type changed",
            "/outputSchema/properties/id/type",
        ),
        (
            "output field no longer always there",
            api(
                body(json!({"name": name, "count": {"type": "integer", "maximum": 10}}), &["name"]),
                out(json!({"id": {"type": "string"}, "name": {"type": "string"}}), &["id"]),
                json!({}),
            ),
            Class::Breaking,
            "output field no longer always present",
            "/outputSchema/properties/name/required",
        ),
        (
            "new tool",
            api(
                body(json!({"name": name, "count": {"type": "integer", "maximum": 10}}), &["name"]),
                base_out.clone(),
                json!({"paths": {"/things/{id}": {"get": {"operationId": "getThing", "summary": "Get a thing.",
                    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                    "responses": {"200": {"description": "OK"}}}}}}),
            ),
            Class::Additive,
            "new tool",
            "",
        ),
    ];
    let old = compile(&base());
    let mut failures = Vec::new();
    for (case, doc, class, rule, pointer) in cases {
        let changes = diff(&old, &compile(&doc));
        let found: Vec<(Class, &str, &str)> = changes.iter().map(|c| (c.class, c.rule, c.pointer.as_str())).collect();
        if found != [(class, rule, pointer)] {
            failures.push(format!("{case}: expected [{class:?} {rule} {pointer}], got {found:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Reordered properties, a renamed component of the same shape, titles and examples: nothing.
#[test]
fn cosmetic_edits_are_not_changes() {
    let thing = json!({"type": "object", "properties": {"name": {"type": "string", "title": "Name"}, "count": {"type": "integer"}}, "required": ["name"]});
    let old = api(
        json!({"$ref": "#/components/schemas/Thing"}),
        thing.clone(),
        json!({"components": {"schemas": {"Thing": thing}}}),
    );
    let moved = json!({"type": "object", "required": ["name"],
        "properties": {"count": {"type": "integer", "examples": [3]}, "name": {"type": "string", "title": "The name"}}});
    let new = api(
        json!({"$ref": "#/components/schemas/Item"}),
        moved.clone(),
        json!({"components": {"schemas": {"Item": moved}}}),
    );
    let changes = diff(&compile(&old), &compile(&new));
    assert!(changes.is_empty(), "{changes:#?}");
}

/// A change inside a shared component reaches every tool that uses it.
#[test]
fn a_shared_component_change_reaches_each_tool_and_sets_the_exit_code() {
    let money = |max: u64| json!({"type": "object", "properties": {"amount": {"type": "integer", "maximum": max}}, "required": ["amount"]});
    let doc = |max: u64| {
        api(
            json!({"type": "object", "properties": {"price": {"$ref": "#/components/schemas/Money"}}, "required": ["price"]}),
            json!({"type": "object"}),
            json!({"components": {"schemas": {"Money": money(max)}}, "paths": {"/quotes": {"post": {
                "operationId": "createQuote", "summary": "Create a quote.",
                "requestBody": {"required": true, "content": {"application/json": {"schema":
                    {"type": "object", "properties": {"total": {"$ref": "#/components/schemas/Money"}}, "required": ["total"]}}}},
                "responses": {"200": {"description": "OK"}}}}}}),
        )
    };
    let changes = diff(&compile(&doc(1000)), &compile(&doc(500)));
    let tools: Vec<&str> = changes.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(tools, ["create_quote", "create_thing"], "{changes:#?}");
    assert!(
        changes.iter().all(|c| c.class == Class::Breaking && c.pointer.ends_with("/amount/maximum")),
        "{changes:#?}"
    );
    assert_eq!(mcp_gen::diff::exit_code(&changes), 3);
    let md = mcp_gen::diff::markdown(&changes);
    assert!(md.contains("2 breaking, 0 semantic, 0 additive") && md.contains("`create_quote`"), "{md}");
}

/// A realistic pair (the shop example: its kept v1, `generated/shop/versions/v1/`, → its current
/// spec, `specs/shop/`, with overlays): 31
/// labelled changes in all three classes — some inside shared components (`Address`, `Product`,
/// `Order`), so one edit reaches several tools — and five edits that change no contract (the
/// `Money` component renamed `Amount` with the same shape, its title, `Product`'s properties
/// reordered, an example value, `info.version`). Every change is found and classed as labelled
/// in `shop-changes.json`, and nothing else is reported.
#[test]
fn a_realistic_version_pair_is_classed_as_labelled() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/fixtures/diff");
    let load = |dir: &str| {
        let dir = root.join(dir);
        let input = Input::files(dir.join("openapi.yaml"), Some(dir.join("overlay.yaml")));
        mcp_gen::diff::contracts(&generate(&input, &Settings::default()).unwrap_or_else(|r| panic!("{r}")).catalog)
    };
    let changes = diff(&load("generated/shop/versions/v1"), &load("specs/shop"));
    let found: Vec<Value> =
        changes.iter().map(|c| json!([serde_json::to_value(c.class).unwrap(), c.tool, c.pointer, c.rule])).collect();
    let labelled: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("shop-changes.json")).unwrap()).unwrap();
    assert_eq!(found, labelled);
    assert!(labelled.len() >= 25);
    for class in ["breaking", "semantic", "additive"] {
        assert!(labelled.iter().any(|l| l[0] == class), "no {class} change labelled");
    }
    // The rename is one change, not a removal and a new tool.
    assert!(
        changes
            .iter()
            .any(|c| c.rule == "tool renamed" && c.before == "list_customers" && c.after == "search_customers")
    );
}

/// What diffing real version pairs of the corpus taught (issue note): fields moved into `allOf`
/// are the same fields; a description beside a `$ref` is compared; an output that became
/// nullable is still compared inside; an input that became free-form widened; an output enum
/// that gained and lost values says both.
#[test]
fn shapes_seen_in_real_version_pairs() {
    let flat =
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]});
    let composed = json!({"allOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"type": "object", "properties": {"b": {"type": "integer"}}}]});
    let none = diff(
        &compile(&api(flat.clone(), flat.clone(), json!({}))),
        &compile(&api(composed.clone(), composed, json!({}))),
    );
    assert!(none.is_empty(), "allOf: {none:#?}");

    let with_ref = |d: &str| {
        api(
            json!({"type": "object", "properties": {"price": {"$ref": "#/components/schemas/Money", "description": d}}}),
            json!({"type": "object"}),
            json!({"components": {"schemas": {"Money": {"type": "object", "properties": {"amount": {"type": "integer"}}}}}}),
        )
    };
    let described = diff(&compile(&with_ref("Net price.")), &compile(&with_ref("Gross price, taxes included.")));
    let found: Vec<(&str, &str)> = described.iter().map(|c| (c.rule, c.pointer.as_str())).collect();
    assert_eq!(found, [("description changed", "/inputSchema/properties/price/description")], "{described:#?}");

    let output = |nullable: bool, field: &str| {
        let ty = if nullable { json!(["object", "null"]) } else { json!("object") };
        api(
            json!({"type": "object"}),
            json!({"type": "object", "properties": {"owner": {"type": ty, "properties": {field: {"type": "string"}}}}}),
            json!({}),
        )
    };
    let nullable = diff(&compile(&output(false, "login")), &compile(&output(true, "email")));
    let rules: Vec<&str> = nullable.iter().map(|c| c.rule).collect();
    assert_eq!(rules, ["output field removed", "type changed", "new output field"], "{nullable:#?}");

    let spec = |s: Value| api(body(json!({"spec": s}), &["spec"]), json!({"type": "object"}), json!({}));
    let free = diff(
        &compile(&spec(json!({"type": "object", "properties": {"a": {"type": "string"}}}))),
        &compile(&spec(json!({"type": "object"}))),
    );
    let found: Vec<(Class, &str)> = free.iter().map(|c| (c.class, c.rule)).collect();
    assert_eq!(found, [(Class::Additive, "input constraint widened")], "{free:#?}");

    let status = |values: Value| {
        api(json!({"type": "object"}), out(json!({"status": {"type": "string", "enum": values}}), &[]), json!({}))
    };
    let both = diff(&compile(&status(json!(["online", "offline"]))), &compile(&status(json!(["offline", "updating"]))));
    let rules: Vec<(Class, &str)> = both.iter().map(|c| (c.class, c.rule)).collect();
    assert_eq!(
        rules,
        [(Class::Semantic, "output enum value added"), (Class::Additive, "output enum value removed")],
        "{both:#?}"
    );
}
