//! Spec fidelity (CONTRACT I1, I2): every constraint of the source reaches the emitted input
//! schemas, every emitted schema is valid 2020-12, for each input dialect (Swagger 2.0, OpenAPI
//! 3.0, 3.1, multi-file), checked by `mcp_gen::fidelity` (the corpus sweep's checker).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use mcp_gen::fidelity::{self, Fidelity};
use mcp_gen::{Input, Settings, generate};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn settings() -> Settings {
    Settings::default().with_catalog_only(true)
}

fn check(path: &str) -> Fidelity {
    let input = Input::files(repo().join(path), None);
    fidelity::check_input(&input, &settings()).unwrap_or_else(|r| panic!("{path} does not compile:\n{r}"))
}

fn tool<'a>(output: &'a mcp_gen::Output, name: &str) -> &'a mcp_gen::schema::Tool {
    output.catalog.tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tool {name}"))
}

#[test]
fn every_fixture_and_example_keeps_every_constraint() {
    for (path, min_constraints) in [
        ("specs/petstore/openapi.yaml", 10),
        ("specs/bookshelf/openapi.json", 10),
        ("tests/fixtures/petstore-expanded.yaml", 1),
        ("tests/fixtures/swagger2-store.yaml", 19),
        ("tests/fixtures/edge-cases.yaml", 25),
        ("tests/fixtures/multi-file/openapi.yaml", 15),
    ] {
        let f = check(path);
        assert!(f.is_complete(), "{path}: {:?} {:?}", f.losses, f.invalid_schemas);
        assert!(f.constraints >= min_constraints, "{path}: only {} constraints checked", f.constraints);
        assert_eq!(f.constraints, f.preserved);
        assert!(f.schemas > 0);
    }
}

#[test]
fn the_checker_notices_a_dropped_constraint() {
    let path = repo().join("tests/fixtures/edge-cases.yaml");
    let input = Input::files(&path, None);
    let mut output = generate(&input, &settings()).unwrap();
    let source: Value = {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut sources = mcp_gen::load::Sources::default();
        let mut report = mcp_gen::Report::new();
        let (_, v) = mcp_gen::load::read_value(
            &mcp_gen::SourceInput::Text { name: "edge-cases.yaml".into(), text },
            &mut sources,
            &mut report,
        )
        .unwrap();
        v
    };
    assert!(fidelity::check(&source, &output.catalog).is_complete());

    let tool = output.catalog.tools.iter_mut().find(|t| t.name == "update_thing").unwrap();
    // Drop one bound deep inside a oneOf branch, and one through a `$defs` reference.
    let shape = tool.input_schema.pointer_mut("/properties/shape/oneOf/0/allOf/0/properties/radius").unwrap();
    shape.as_object_mut().unwrap().remove("exclusiveMinimum");
    let node = tool.input_schema.pointer_mut("/$defs/Node/properties/children").unwrap();
    node.as_object_mut().unwrap().remove("maxItems");
    let f = fidelity::check(&source, &output.catalog);
    let lost: Vec<(&str, &str)> = f.losses.iter().map(|l| (l.keyword.as_str(), l.at.as_str())).collect();
    assert!(lost.contains(&("exclusiveMinimum", "PUT /things/{id} body.shape<oneOf 0>.radius")), "{lost:?}");
    assert!(lost.contains(&("maxItems", "PUT /things/{id} body.tree.children")), "{lost:?}");
}

#[test]
fn swagger_2_is_upgraded_without_loss() {
    let input = Input::files(repo().join("tests/fixtures/swagger2-store.yaml"), None);
    let output = generate(&input, &settings()).unwrap();
    let create = tool(&output, "create_item");
    // Body properties become arguments; x-nullable is nullable; the boolean exclusive bound
    // is the 2020-12 number form.
    assert_eq!(
        create.input_schema["properties"]["price"],
        json!({"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.01})
    );
    assert_eq!(create.input_schema["properties"]["kind"]["enum"], json!(["book", "toy", null]));
    let list = tool(&output, "list_items");
    assert_eq!(list.input_schema["properties"]["tags"]["items"], json!({"type": "string", "maxLength": 20}));
    // collectionFormat: multi is form/explode.
    let tags = list.args.iter().find(|a| a.name == "tags").unwrap();
    assert!(matches!(&tags.target, mcp_gen::plan::Target::Query { explode: true, .. }), "{:?}", tags.target);
    // Java's \A and \z become ECMA-262 anchors; form data is a form body.
    let rename = tool(&output, "rename_item");
    assert_eq!(rename.input_schema["properties"]["name"]["pattern"], "^[a-z]+$");
    assert_eq!(rename.body.as_ref().unwrap().media_type, "application/x-www-form-urlencoded");
    // The output keeps the readOnly id the input leaves out.
    let get = tool(&output, "get_item");
    assert!(
        get.output_schema.as_ref().unwrap().pointer("/allOf").is_some()
            || get.output_schema.as_ref().unwrap()["properties"].get("id").is_some()
    );
    assert_eq!(output.catalog.default_upstream.as_deref(), Some("https://store.example.com/api"));
}

#[test]
fn normalisation_keeps_meaning() {
    let input = Input::files(repo().join("tests/fixtures/edge-cases.yaml"), None);
    let output = generate(&input, &settings()).unwrap();
    let put = tool(&output, "update_thing");
    let props = &put.input_schema["properties"];
    // Collisions: the path `id` keeps its name, the body `id` and the header `limit` are renamed.
    let names: Vec<&str> = put.args.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "id",
            "limit",
            "filter",
            "header_limit",
            "body_id",
            "secret",
            "note",
            "shape",
            "tree",
            "meta",
            "idempotency_key"
        ]
    );
    // readOnly leaves the input, writeOnly stays; nullable is 2020-12; examples are not limits
    // and cost tokens, so inputs leave them out (T6).
    assert!(props.get("created").is_none());
    assert_eq!(props["note"], json!({"type": ["string", "null"], "maxLength": 10}));
    // allOf of plain objects is merged exactly.
    assert_eq!(props["meta"]["required"], json!(["a"]));
    assert_eq!(props["meta"]["properties"]["b"], json!({"type": "integer", "maximum": 5}));
    // The discriminator mapping pins each branch.
    assert_eq!(props["shape"]["oneOf"][0]["properties"]["kind"], json!({"const": "circle"}));
    // Recursion stays a `$ref` into the tool's own `$defs`.
    assert_eq!(props["tree"], json!({"$ref": "#/$defs/Node"}));
    assert_eq!(put.input_schema["$defs"]["Node"]["properties"]["children"]["items"], json!({"$ref": "#/$defs/Node"}));
    // And the pinned oneOf now validates the way OpenAPI means it.
    let validator = jsonschema::validator_for(&put.input_schema).unwrap();
    let mut args = json!({"id": "8d3c6f5e-3c1f-4a57-9e77-25b3b1d1c001", "body_id": "x", "shape": {"kind": "circle", "radius": 2}, "idempotency_key": "k1"});
    assert!(validator.is_valid(&args));
    args["shape"] = json!({"kind": "square", "radius": 2});
    assert!(!validator.is_valid(&args), "a square needs a side");
}

#[test]
fn multi_file_descriptions_are_read_relative_to_each_file() {
    let input = Input::files(repo().join("tests/fixtures/multi-file/openapi.yaml"), None);
    let output = generate(&input, &settings()).unwrap();
    let names: Vec<&str> = output.catalog.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["create_dog", "get_dog", "list_dogs"]);
    let create = tool(&output, "create_dog");
    // Shapes keep the names they have in their own files.
    let defs: Vec<&String> = create.input_schema["$defs"].as_object().unwrap().keys().collect();
    assert_eq!(defs, ["NewDog", "Tag"]);
    assert_eq!(create.input_schema["$defs"]["Tag"]["enum"], json!(["good", "very-good"]));

    // A reference to a missing file is an error located in the file that holds it.
    let tmp = tempfile::tempdir().unwrap();
    for entry in ["openapi.yaml", "paths/dogs.yaml", "schemas/dog.yaml", "schemas/common.yaml"] {
        let from = repo().join("tests/fixtures/multi-file").join(entry);
        let to = tmp.path().join(entry);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        let text = std::fs::read_to_string(from).unwrap().replace("common.yaml#/schemas/Tag", "missing.yaml#/Tag");
        std::fs::write(to, text).unwrap();
    }
    let report = generate(&Input::files(tmp.path().join("openapi.yaml"), None), &settings()).unwrap_err();
    let text = report.to_string();
    assert!(text.contains("error[unknown-ref]: `$ref: missing.yaml#/Tag` names a file that cannot be read"), "{text}");
    assert!(text.contains("dog.yaml:14:11 (#/NewDog/properties/tag/$ref)"), "{text}");
}

#[test]
fn uploads_take_base64_files() {
    let input = Input::files(repo().join("tests/fixtures/uploads.yaml"), None);
    let output = generate(&input, &settings()).unwrap();
    let upload = tool(&output, "upload_photo");
    let photo = &upload.input_schema["properties"]["photo"];
    assert_eq!(photo["contentEncoding"], "base64");
    assert_eq!(photo["maxLength"], 1000000);
    assert!(photo.get("format").is_none());
    assert_eq!(upload.input_schema["properties"]["extra"]["items"]["contentEncoding"], "base64");
    assert_eq!(upload.input_schema["properties"]["caption"], json!({"type": "string", "maxLength": 140}));
    let body = upload.body.as_ref().unwrap();
    assert_eq!(body.files, ["photo", "extra"]);
    let put = tool(&output, "update_document");
    assert_eq!(put.input_schema["properties"]["body"]["contentMediaType"], "application/pdf");
    let f = check("tests/fixtures/uploads.yaml");
    assert!(f.is_complete() && f.left_out.is_empty(), "{f:?}");
}

/// A shape repeated inline within one body is defined once in the tool's `$defs` (T6), and the
/// schema still holds every constraint and refuses what the inline form refused.
#[test]
fn repeated_inline_shapes_are_defined_once_with_every_constraint() {
    let path = "tests/fixtures/inline-repeats.yaml";
    let f = check(path);
    assert!(f.is_complete(), "{:?} {:?}", f.losses, f.invalid_schemas);
    assert!(f.constraints >= 20, "only {} constraints checked", f.constraints);

    let output = generate(&Input::files(repo().join(path), None), &settings()).unwrap();
    let schema = &tool(&output, "create_cardholder").input_schema;
    let controls = &schema["properties"]["spending_controls"]["properties"];
    assert_eq!(controls["allowed_categories"], json!({"$ref": "#/$defs/categories"}), "{schema:#}");
    assert_eq!(controls["blocked_categories"], controls["allowed_categories"]);
    assert_eq!(controls["spending_limits"]["items"]["properties"]["categories"], controls["allowed_categories"]);
    assert_eq!(schema["$defs"]["categories"]["maxItems"], 50);
    assert_eq!(schema["$defs"]["categories"]["items"]["enum"].as_array().map(Vec::len), Some(10));
    assert_eq!(schema["properties"]["billing"], schema["properties"]["shipping"]);

    use mcp_gen_runtime::validate;
    let validator = validate::compile(schema).unwrap();
    let call = |args: Value| validate::arguments(&validator, schema, args.as_object().cloned().unwrap());
    let ok = json!({"name": "Jo", "idempotency_key": "k1",
        "spending_controls": {"blocked_categories": ["aquariums"], "spending_limits": [{"amount": 5, "categories": ["antique_shops"]}]}});
    assert!(call(ok).is_ok());
    let bad = json!({"name": "Jo", "idempotency_key": "k1",
        "spending_controls": {"spending_limits": [{"amount": 5, "categories": ["casinos"]}]}});
    let err = call(bad).unwrap_err();
    assert_eq!(err.code, "invalid_argument");
    assert!(err.message.contains("spending_limits") && err.message.contains("categories"), "{}", err.message);
    let bad_address = json!({"name": "Jo", "idempotency_key": "k1", "shipping": {"line1": "x", "country": "GBR"}});
    assert!(call(bad_address).unwrap_err().message.contains("shipping"));
}

/// What the compiler leaves out because it says nothing (T6): a bound every `enum` value meets,
/// an empty `properties`, a GET body that can only be `{}`. The checker agrees each time, and
/// still notices when an emitted value breaks a bound that was left out.
#[test]
fn what_is_left_out_for_saying_nothing_is_still_kept() {
    let spec = json!({
        "openapi": "3.1.0",
        "info": {"title": "Things", "version": "1"},
        "paths": {"/things": {
            "get": {
                "operationId": "listThings",
                "parameters": [{"name": "mode", "in": "query",
                    "schema": {"type": "string", "enum": ["offline", "online"], "maxLength": 5000}}],
                "requestBody": {"content": {"application/x-www-form-urlencoded": {"schema":
                    {"type": "object", "additionalProperties": false, "properties": {}}}}},
                "responses": {"200": {"description": "ok"}}
            },
            "post": {
                "operationId": "createThing",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {
                    "type": "object",
                    "properties": {"offline": {"type": "object", "properties": {}},
                                   "level": {"type": "integer", "enum": [1, 2], "minimum": 1, "maximum": 2}}
                }}}},
                "responses": {"200": {"description": "ok"}}
            }
        }}
    });
    let input = Input {
        spec: mcp_gen::SourceInput::Text { name: "things.json".into(), text: spec.to_string() },
        overlay: None,
        versions: Vec::new(),
    };
    let mut output = generate(&input, &settings()).unwrap();
    let list = tool(&output, "list_things");
    assert!(list.body.is_none() && list.input_schema["properties"].get("body").is_none());
    assert_eq!(list.input_schema["properties"]["mode"], json!({"enum": ["offline", "online"]}));
    let create = tool(&output, "create_thing");
    assert_eq!(create.input_schema["properties"]["offline"], json!({"type": "object"}));
    assert_eq!(create.input_schema["properties"]["level"], json!({"enum": [1, 2]}));
    let f = fidelity::check(&spec, &output.catalog);
    assert!(f.is_complete(), "{:?}", f.losses);
    assert_eq!((f.constraints, f.not_applicable), (f.preserved, 1), "the GET body counts as not applicable");

    // An emitted value the left-out bound would have refused is a loss.
    let t = output.catalog.tools.iter_mut().find(|t| t.name == "list_things").unwrap();
    t.input_schema["properties"]["mode"]["enum"] = json!(["offline", "online", "x".repeat(5001)]);
    let f = fidelity::check(&spec, &output.catalog);
    assert!(f.losses.iter().any(|l| l.keyword == "maxLength"), "{:?}", f.losses);
}

/// Google's converted documents keep the field-behaviour label "Output only." (Compute:
/// "[Output Only]") but not the `readOnly` it stands for.
const OUTPUT_ONLY: &str = r##"
openapi: 3.0.0
info: { title: Workstations, version: v1 }
paths:
  /v1/{parent}/workstations:
    post:
      operationId: workstations.projects.locations.workstations.create
      parameters:
        - { name: parent, in: path, required: true, schema: { type: string } }
      requestBody: { content: { application/json: { schema: { $ref: "#/components/schemas/Workstation" } } } }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Workstation" } } } } }
  /v1/{name}:
    put:
      operationId: workstations.projects.locations.workstations.update
      parameters:
        - { name: name, in: path, required: true, description: "Output only. Full name of this workstation.", schema: { type: string } }
      requestBody: { content: { application/json: { schema: { $ref: "#/components/schemas/Workstation" } } } }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Workstation" } } } } }
components:
  schemas:
    Workstation:
      type: object
      properties:
        displayName: { type: string, maxLength: 63, description: "Optional. Human-readable name for this workstation." }
        createTime: { type: string, format: google-datetime, description: "Output only. Time when this workstation was created." }
        uid: { type: string, maxLength: 36, description: "[Output Only] A system-assigned unique identifier." }
        state: { type: string, enum: [STATE_UNSPECIFIED, RUNNING], description: "Current state. Output only." }
        host: { $ref: "#/components/schemas/Host", description: "Output only. The host it runs on." }
        labels: { type: object, additionalProperties: { type: string }, description: "Read only. Labels that identify the workstation." }
    Host:
      type: object
      properties:
        zone: { type: string, minLength: 1 }
"##;

#[test]
fn output_only_fields_leave_inputs_and_stay_in_outputs() {
    let input = Input::text("workstations.yaml", OUTPUT_ONLY, None);
    let output = generate(&input, &settings()).unwrap();
    for name in ["create_workstation", "update_workstation"] {
        let t = tool(&output, name);
        let props = t.input_schema["properties"].as_object().unwrap();
        for gone in ["createTime", "uid", "state", "host"] {
            assert!(!props.contains_key(gone), "{name} asks for {gone}: {}", t.input_schema);
        }
        // "Read only" also labels fields that identify a request's subject: it is not read so.
        assert!(props.contains_key("displayName") && props.contains_key("labels"), "{}", t.input_schema);
        let out = t.output_schema.as_ref().unwrap().to_string();
        for kept in ["createTime", "uid", "state", "host", "zone"] {
            assert!(out.contains(kept), "{name}'s output lost {kept}: {out}");
        }
    }
    // A path parameter is an argument whatever its text says: the label goes, the sentence stays.
    let update = tool(&output, "update_workstation");
    assert!(update.input_schema["required"].as_array().unwrap().contains(&json!("name")), "{}", update.input_schema);
    let said = update.input_schema["properties"]["name"]["description"].as_str().unwrap();
    assert!(said.starts_with("Full name of this workstation."), "{said}");
    // The checker reads the label as the compiler does: every field it left out was the
    // server's to set, and nothing kept lost a constraint.
    let f = fidelity::check_input(&input, &settings()).unwrap();
    assert!(f.is_complete(), "{:?}", f.losses);
    assert_eq!(f.constraints, f.preserved);
    assert!(f.constraints >= 2, "{}", f.constraints);
}

/// Answers as servers send them: a Swagger 2.0 (or 3.0) description cannot say `null`, so its
/// output schemas let fields be `null`; a 3.1 description says it where it means it and is
/// served as written. Inputs are never widened.
#[test]
fn outputs_from_descriptions_that_cannot_say_null_admit_it() {
    let contents = json!({"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string"}, "content": {"type": "string"},
        "owner": {"$ref": "#/definitions/User"}}});
    let user = json!({"type": "object", "properties": {"login": {"type": "string"}}});
    let swagger = json!({
        "swagger": "2.0", "info": {"title": "Files", "version": "1"},
        "paths": {"/files/{name}": {"get": {"operationId": "getFile",
            "parameters": [{"name": "name", "in": "path", "required": true, "type": "string"}],
            "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/Contents"}}}}}},
        "definitions": {"Contents": contents, "User": user}
    });
    let text = swagger.to_string();
    let openapi31 = text
        .replace(r#""swagger":"2.0""#, r#""openapi":"3.1.0""#)
        .replace("#/definitions/", "#/components/schemas/")
        .replace(
            r##""schema":{"$ref":"#/components/schemas/Contents"}"##,
            r##""content":{"application/json":{"schema":{"$ref":"#/components/schemas/Contents"}}}"##,
        )
        .replace(r#""type":"string"}],"#, r#""schema":{"type":"string"}}],"#)
        .replace(r#""definitions":"#, r#""components":{"schemas":"#);
    let openapi31 = format!("{openapi31}}}");
    let answer = json!({"name": "a.txt", "content": null, "owner": {"login": null}});
    for (name, text, admits) in [("files.json", text, true), ("files31.json", openapi31, false)] {
        let input =
            Input { spec: mcp_gen::SourceInput::Text { name: name.into(), text }, overlay: None, versions: Vec::new() };
        let output = generate(&input, &settings()).unwrap_or_else(|r| panic!("{name}: {r:?}"));
        let get = tool(&output, "get_file");
        let schema = get.output_schema.clone().unwrap();
        let validator = jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(&schema).unwrap();
        assert_eq!(validator.is_valid(&answer), admits, "{name}: {schema}");
        // `name` is required: present, though it may be null; the answer's own shape is kept.
        assert!(!validator.is_valid(&json!({"content": "x"})), "{name}");
        assert!(!validator.is_valid(&json!(null)), "{name}");
        assert_eq!(get.input_schema["properties"]["name"]["type"], "string", "{name}");
    }
}

/// A hand-written definition that lists properties but no `type` (Jupyter Server's `Kernel`)
/// is an object: the output schema's root says `type: object`, as MCP requires, so clients of
/// every era read it as the object it is (and none wraps it as `{"result": …}`).
#[test]
fn an_output_root_with_properties_and_no_type_is_an_object() {
    let swagger = json!({
        "swagger": "2.0", "info": {"title": "Kernels", "version": "1"},
        "paths": {"/kernels": {"post": {"operationId": "startKernel",
            "responses": {"201": {"description": "ok", "schema": {"$ref": "#/definitions/Kernel"}}}}}},
        "definitions": {"Kernel": {"description": "Kernel information", "required": ["id"],
            "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}}
    });
    let input = Input {
        spec: mcp_gen::SourceInput::Text { name: "kernels.json".into(), text: swagger.to_string() },
        overlay: None,
        versions: Vec::new(),
    };
    let output = generate(&input, &settings()).unwrap_or_else(|r| panic!("{r:?}"));
    let schema = tool(&output, "start_kernel").output_schema.clone().unwrap();
    assert_eq!(schema["type"], "object", "{schema}");
    assert_eq!(schema["required"], json!(["id"]), "{schema}");
}
