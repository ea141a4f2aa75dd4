//! D2: every argument that takes an id says which tool returns such ids, whether it is a path
//! parameter (the last or one before it), a `<noun>_id`, or a field named the noun itself that
//! holds an id (Stripe's `customer`) — and a field named so that holds something else is left
//! alone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use mcp_gen::{Input, Settings, SourceInput, generate};
use serde_json::Value;

/// A payments API in Stripe's manner: objects refer to each other by expandable fields (an id,
/// or the object itself), request bodies name the noun alone.
const SPEC: &str = r##"
openapi: 3.0.3
info: { title: Payments, version: "1" }
paths:
  /v1/customers:
    get:
      operationId: GetCustomers
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/customer_list" } } } } }
  /v1/customers/{customer}/sources/{id}:
    get:
      operationId: GetCustomerSource
      parameters:
        - { name: customer, in: path, required: true, schema: { type: string } }
        - { name: id, in: path, required: true, schema: { type: string } }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/source" } } } } }
  /v1/customers/{customer}/sources:
    get:
      operationId: GetCustomerSources
      parameters:
        - { name: customer, in: path, required: true, schema: { type: string } }
      responses: { "200": { description: ok, content: { application/json: { schema: { type: object, properties: { data: { type: array, items: { $ref: "#/components/schemas/source" } } } } } } } }
  /v1/charges:
    get:
      operationId: GetCharges
      parameters:
        - { name: customer, in: query, schema: { type: string } }
      responses: { "200": { description: ok, content: { application/json: { schema: { type: object, properties: { data: { type: array, items: { $ref: "#/components/schemas/charge" } } } } } } } }
    post:
      operationId: PostCharges
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              properties:
                amount: { type: integer }
                customer: { type: string, maxLength: 5000 }
                application_fee: { type: integer, description: An application fee to add on to this charge. }
                receipt: { type: string, description: The address the receipt goes to. }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/charge" } } } } }
  /v1/files:
    get:
      operationId: GetFiles
      responses: { "200": { description: ok, content: { application/json: { schema: { type: object, properties: { data: { type: array, items: { $ref: "#/components/schemas/file" } } } } } } } }
    post:
      operationId: PostFiles
      requestBody:
        content:
          multipart/form-data:
            schema:
              type: object
              properties:
                file: { type: string, description: A file to upload. }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/file" } } } } }
  /v1/file_links:
    post:
      operationId: PostFileLinks
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema: { type: object, properties: { file: { type: string } }, required: [file] }
      responses: { "200": { description: ok, content: { application/json: { schema: { type: object, properties: { url: { type: string } } } } } } }
  /v1/terminal/configurations:
    get:
      operationId: GetTerminalConfigurations
      responses: { "200": { description: ok, content: { application/json: { schema: { type: object, properties: { data: { type: array, items: { type: object, properties: { id: { type: string } } } } } } } } } }
  /v1/billing_portal/configurations:
    get:
      operationId: GetBillingPortalConfigurations
      responses: { "200": { description: ok, content: { application/json: { schema: { type: object, properties: { data: { type: array, items: { type: object, properties: { id: { type: string } } } } } } } } } }
  /v1/billing_portal/sessions:
    post:
      operationId: PostBillingPortalSessions
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              properties:
                configuration: { type: string, description: The ID of an existing configuration to use for this session. }
      responses: { "200": { description: ok, content: { application/json: { schema: { type: object, properties: { url: { type: string } } } } } } }
  /v1/repos:
    get:
      operationId: GetRepos
      responses: { "200": { description: ok, content: { application/json: { schema: { type: array, items: { $ref: "#/components/schemas/source" } } } } } }
  /v1/repos/{owner}/{repo}/issues:
    get:
      operationId: GetRepoIssues
      parameters:
        - { name: owner, in: path, required: true, schema: { type: string } }
        - { name: repo, in: path, required: true, schema: { type: string } }
      responses: { "200": { description: ok, content: { application/json: { schema: { type: array, items: { $ref: "#/components/schemas/source" } } } } } }
  /2010-04-01/Calls.json:
    get:
      operationId: ListCall
      responses: { "200": { description: ok, content: { application/json: { schema: { type: object, properties: { calls: { type: array, items: { $ref: "#/components/schemas/source" } } } } } } } }
  /2010-04-01/Calls/{Sid}.json:
    get:
      operationId: FetchCall
      parameters:
        - { name: Sid, in: path, required: true, schema: { type: string } }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/source" } } } } }
components:
  schemas:
    customer_list:
      type: object
      properties:
        data: { type: array, items: { $ref: "#/components/schemas/customer" } }
    customer:
      type: object
      properties: { id: { type: string }, name: { type: string } }
    source:
      type: object
      properties: { id: { type: string } }
    file:
      type: object
      properties: { id: { type: string } }
    application_fee:
      type: object
      properties: { id: { type: string }, amount: { type: integer } }
    charge:
      type: object
      properties:
        id: { type: string }
        customer:
          nullable: true
          anyOf: [ { type: string, maxLength: 5000 }, { $ref: "#/components/schemas/customer" } ]
        application_fee:
          anyOf: [ { type: string }, { $ref: "#/components/schemas/application_fee" } ]
        receipt: { type: string }
        file:
          anyOf: [ { type: string }, { $ref: "#/components/schemas/file" } ]
"##;

fn catalog(spec: &str) -> mcp_gen::Output {
    let input = Input { spec: SourceInput::Text { name: "payments.yaml".into(), text: spec.into() }, overlay: None };
    generate(&input, &Settings::default().with_catalog_only(true)).unwrap()
}

/// The description of a tool's argument, "" when it has none.
fn said(out: &mcp_gen::Output, tool: &str, arg: &str) -> String {
    let t = out.catalog.tools.iter().find(|t| t.name == tool).unwrap_or_else(|| {
        let names: Vec<&str> = out.catalog.tools.iter().map(|t| t.name.as_str()).collect();
        panic!("no tool {tool} in {names:?}")
    });
    let schema: &Value = &t.input_schema["properties"][arg];
    assert!(schema.is_object(), "{tool} has no argument {arg}: {}", t.input_schema);
    schema.get("description").and_then(Value::as_str).unwrap_or_default().to_owned()
}

#[test]
fn fields_named_for_a_listed_noun_that_hold_its_id_say_where_it_comes_from() {
    let out = catalog(SPEC);
    let from = |list: &str| format!("Use an id returned by {list}; do not guess ids.");
    // The API's objects hold `customer` as a customer or its id: a body's and a query's
    // `customer` are ids.
    assert_eq!(said(&out, "create_charge", "customer"), from("list_customers"));
    assert_eq!(said(&out, "list_charges", "customer"), from("list_customers"));
    assert_eq!(said(&out, "create_file_link", "file"), from("list_files"));
    // Every path parameter under a listed collection, not only the last one.
    assert_eq!(said(&out, "get_customer_source", "customer"), from("list_customers"));
    assert_eq!(said(&out, "get_customer_source", "id"), from("list_customer_sources"));
    // A collection written with its format lists what its items' routes read.
    assert_eq!(said(&out, "fetch_call", "Sid"), from("list_calls"));
    // Described as an id; of two collections of configurations, the one beside the tool's route.
    assert_eq!(
        said(&out, "create_billing_portal_session", "configuration"),
        format!(
            "The ID of an existing configuration to use for this session. {}",
            from("list_billing_portal_configurations")
        )
    );
}

#[test]
fn fields_named_for_a_listed_noun_that_hold_something_else_are_left_alone() {
    let out = catalog(SPEC);
    // An amount where the objects hold a fee's id: the types differ.
    assert_eq!(said(&out, "create_charge", "application_fee"), "An application fee to add on to this charge.");
    // The upload that creates a file is not a reference to one.
    assert_eq!(said(&out, "create_file", "file"), "A file to upload.");
    // A parameter followed by another is a key of the second, not an item of the collection.
    assert_eq!(said(&out, "list_repo_issues", "owner"), "");
    // `receipt` is listed nowhere.
    assert_eq!(said(&out, "create_charge", "receipt"), "The address the receipt goes to.");
    // Without the objects' expandable reference and without a word of id, `customer` may be a
    // name: nothing is claimed.
    let plain = SPEC.replace(
        "anyOf: [ { type: string, maxLength: 5000 }, { $ref: \"#/components/schemas/customer\" } ]",
        "type: string",
    );
    let out = catalog(&plain);
    assert_eq!(said(&out, "create_charge", "customer"), "");
    assert_eq!(said(&out, "list_charges", "customer"), "");
}
