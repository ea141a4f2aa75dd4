//! The types a native build writes (issue 29), one shape at a time: what each JSON Schema shape
//! becomes in Rust, and that the output is the same on every run. (The example, GitHub and Stripe
//! crates show they compile: tests/native*.rs and the issue note.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

const SPEC: &str = r##"
openapi: 3.1.0
info: { title: Shapes, version: "1" }
paths:
  /shapes:
    post:
      operationId: createShape
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [kind, shape, tags]
              properties:
                kind: { type: string, enum: [circle, square, "+1", "-1", ""] }
                shape: { $ref: "#/components/schemas/Shape" }
                tags: { type: array, items: { type: string } }
                labels: { type: object, additionalProperties: { type: integer } }
                parent: { $ref: "#/components/schemas/Node" }
                limit: { type: [integer, "null"] }
                fooBar: { type: string }
                foo_bar: { type: string }
                type: { type: boolean }
                mixed: { enum: [1, "a"] }
                meta: { type: object, description: free-form }
                merged:
                  allOf:
                    - { type: object, properties: { a: { type: string } }, required: [a] }
                    - { type: object, properties: { b: { type: number } } }
                either:
                  anyOf:
                    - { type: string }
                    - { type: integer }
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Node" }
components:
  schemas:
    Shape:
      oneOf:
        - type: object
          required: [type, radius]
          properties: { type: { const: circle }, radius: { type: number } }
        - type: object
          required: [type, side]
          properties: { type: { const: square }, side: { type: number } }
    Node:
      type: object
      required: [name]
      properties:
        name: { type: string }
        child: { $ref: "#/components/schemas/Node" }
        children: { type: array, items: { $ref: "#/components/schemas/Node" } }
"##;

fn native_rs() -> String {
    let input = mcp_gen::Input::text("shapes.yaml", SPEC, None);
    let out = mcp_gen::generate(&input, &mcp_gen::Settings::default().with_native(true)).unwrap();
    out.files["native.rs"].clone()
}

#[test]
fn each_shape_has_its_rust_type() {
    let rs = native_rs();
    let has = |needle: &str| assert!(rs.contains(needle), "`{needle}` not in:\n{rs}");
    // A string enum, its odd values named apart and renamed back.
    has("pub enum Kind {");
    has("#[serde(rename = \"+1\")]\n        Plus1,");
    has("#[serde(rename = \"-1\")]\n        Minus1,");
    has("#[serde(rename = \"\")]\n        Empty,");
    // A oneOf told apart by a const property: serde-tagged, the tag out of the variants.
    has("#[serde(crate = \"mcp_gen_runtime::serde\", tag = \"type\")]");
    has("Circle(ShapeCircle),");
    assert!(!rs.contains("pub struct ShapeCircle {\n        pub r#type"), "the tag is not a field:\n{rs}");
    // Recursion is boxed where it would otherwise have infinite size.
    has("pub child: ::std::option::Option<::std::boxed::Box<Node>>,");
    has("pub children: ::std::option::Option<::std::vec::Vec<Node>>,");
    // Maps, nullable, keywords, names that collide after snake_case.
    has(
        "pub labels: ::std::option::Option<\n            ::std::collections::BTreeMap<::std::string::String, i64>,\n        >,",
    );
    has("pub limit: ::std::option::Option<i64>,");
    has("pub r#type: ::std::option::Option<bool>,");
    has("#[serde(rename = \"fooBar\")]");
    has("pub foo_bar: ::std::option::Option<::std::string::String>,");
    has("pub foo_bar_2: ::std::option::Option<::std::string::String>,");
    // allOf of objects merged; anyOf of kinds untagged.
    has("pub struct Merged {");
    has("pub b: ::std::option::Option<f64>,");
    has("#[serde(crate = \"mcp_gen_runtime::serde\", untagged)]");
    has("String(::std::string::String),");
    has("Integer(i64),");
    // What Rust cannot state is JSON, and the README says where.
    has("pub mixed: ::std::option::Option<mcp_gen_runtime::serde_json::Value>,");
    has("pub meta: ::std::option::Option<");
    // The handler method takes the arguments and returns the spec's named result.
    has("args: types::CreateShapeArgs,");
    has("::std::result::Result<types::Node, mcp_gen_runtime::error::ToolError>");
}

#[test]
fn fallbacks_are_listed_and_output_is_deterministic() {
    let input = mcp_gen::Input::text("shapes.yaml", SPEC, None);
    let out = mcp_gen::generate(&input, &mcp_gen::Settings::default().with_native(true)).unwrap();
    let readme = &out.files["README.md"];
    assert!(readme.contains("an enum of values of different types"), "{readme}");
    assert!(readme.contains("/properties/mixed"), "{readme}");
    // A free-form object is JSON by contract: counted apart, not listed as a fallback.
    assert!(readme.contains("1 position(s) (") && readme.contains("admits any JSON value"), "{readme}");
    assert!(!readme.contains("/properties/meta"), "{readme}");
    assert_eq!(native_rs(), native_rs());
}
