//! D2: every argument that takes an id says which tool returns such ids, whether it is a path
//! parameter (the last or one before it), a `<noun>_id`, or a field named the noun itself that
//! holds an id (Stripe's `customer`) — and a field named so that holds something else is left
//! alone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use mcp_gen::{Input, Settings, generate};
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
    let input = Input::text("payments.yaml", spec, None);
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

/// A resource-oriented API in Google's manner (AIP-121): one `{name}` or `{parent}` parameter
/// holds a whole resource name, the dotted operationId says which resource it names, and
/// descriptions open with field-behaviour labels.
const RESOURCES: &str = r##"
openapi: 3.0.0
info: { title: Workstations, version: v1 }
paths:
  /v1/{parent}/workstationConfigs:
    get:
      operationId: workstations.projects.locations.workstationClusters.workstationConfigs.list
      parameters:
        - { name: parent, in: path, required: true, description: Required. Parent resource name., schema: { type: string } }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/ListConfigs" } } } } }
  /v1/{parent}/workstations:
    get:
      operationId: workstations.projects.locations.workstationClusters.workstationConfigs.workstations.list
      parameters:
        - { name: parent, in: path, required: true, description: Required. Parent resource name., schema: { type: string } }
        - { name: pageSize, in: query, description: Optional. Maximum number of items to return., schema: { type: integer } }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/ListWorkstations" } } } } }
    post:
      operationId: workstations.projects.locations.workstationClusters.workstationConfigs.workstations.create
      parameters:
        - { name: parent, in: path, required: true, description: Required. Parent resource name., schema: { type: string } }
        - { name: workstationId, in: query, description: Required. ID to use for the workstation., schema: { type: string } }
      requestBody: { content: { application/json: { schema: { $ref: "#/components/schemas/Workstation" } } } }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Workstation" } } } } }
  /v1/{name}:
    get:
      operationId: workstations.projects.locations.workstationClusters.workstationConfigs.workstations.get
      parameters:
        - { name: name, in: path, required: true, description: Required. Name of the requested resource., schema: { type: string } }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Workstation" } } } } }
  /v1/{name}:start:
    post:
      operationId: workstations.projects.locations.workstationClusters.workstationConfigs.workstations.start
      parameters:
        - { name: name, in: path, required: true, description: Required. Name of the workstation to start., schema: { type: string } }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Workstation" } } } } }
  /v1/{resource}:getIamPolicy:
    get:
      operationId: workstations.projects.locations.workstationClusters.workstationConfigs.workstations.getIamPolicy
      parameters:
        - { name: resource, in: path, required: true, description: "REQUIRED: The resource for which the policy is being requested.", schema: { type: string } }
      responses: { "200": { description: ok, content: { application/json: { schema: { type: object, properties: { etag: { type: string } } } } } } }
components:
  schemas:
    ListConfigs:
      type: object
      properties:
        workstationConfigs: { type: array, items: { type: object, properties: { name: { type: string } } } }
    ListWorkstations:
      type: object
      properties:
        workstations: { type: array, items: { $ref: "#/components/schemas/Workstation" } }
        nextPageToken: { type: string }
    Workstation:
      type: object
      properties:
        name: { type: string, description: Identifier. Full name of this workstation. }
        displayName: { type: string, description: Optional. Human-readable name for this workstation. }
        host: { type: string, description: "Optional: The host name, e.g. ws.example.com. Assigned on start." }
        reconciling: { type: boolean, description: Output only. Indicates whether this workstation is being updated. }
"##;

#[test]
fn a_whole_resource_name_says_which_list_returns_it() {
    let out = catalog(RESOURCES);
    let from = |list: &str| format!("Use an id returned by {list}; do not guess ids.");
    // The item the operation acts on: its resource's list.
    assert_eq!(
        said(&out, "get_workstation", "name"),
        format!("Name of the requested resource. {}", from("list_workstations"))
    );
    assert_eq!(said(&out, "start_workstation", "name"), from("list_workstations"));
    assert_eq!(
        said(&out, "get_workstation_iam_policy", "resource"),
        format!("The resource for which the policy is being requested. {}", from("list_workstations"))
    );
    // A parent followed by a collection: the list one level up.
    assert_eq!(
        said(&out, "list_workstations", "parent"),
        format!("Parent resource name. {}", from("list_workstation_configs"))
    );
    assert_eq!(
        said(&out, "create_workstation", "parent"),
        format!("Parent resource name. {}", from("list_workstation_configs"))
    );
    // Nothing lists the configurations' parents: nothing is claimed.
    assert_eq!(said(&out, "list_workstation_configs", "parent"), "Parent resource name.");
}

#[test]
fn the_id_a_create_chooses_for_its_new_item_comes_from_no_list() {
    let out = catalog(RESOURCES);
    // `workstationId` names the workstation being created; list_workstations cannot return it.
    assert_eq!(said(&out, "create_workstation", "workstationId"), "Required. ID to use for the workstation.");
}

/// Checks and labels in InfluxDB's manner: a post to a check's labels adds an existing label.
const LABELS: &str = r##"
openapi: 3.0.0
info: { title: Checks, version: "2" }
paths:
  /api/v2/labels:
    get:
      operationId: listLabels
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Labels" } } } } }
  /api/v2/checks/{checkID}/labels:
    get:
      operationId: listCheckLabels
      parameters:
        - { name: checkID, in: path, required: true, schema: { type: string } }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Labels" } } } } }
    post:
      operationId: addCheckLabel
      parameters:
        - { name: checkID, in: path, required: true, schema: { type: string } }
      requestBody:
        required: true
        content:
          application/json:
            schema: { type: object, required: [labelID], properties: { labelID: { type: string } } }
      responses: { "201": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Labels" } } } } }
components:
  schemas:
    Labels:
      type: object
      properties:
        labels: { type: array, items: { type: object, properties: { id: { type: string } } } }
"##;

#[test]
fn the_id_a_post_adds_to_a_collection_comes_from_the_list_of_all() {
    let out = catalog(LABELS);
    // A label added to a check is one of all the labels, not one the check has already.
    assert_eq!(said(&out, "add_check_label", "labelID"), "Use an id returned by list_labels; do not guess ids.");
}

#[test]
fn field_behaviour_labels_give_way_to_the_sentence_after_them() {
    let out = catalog(RESOURCES);
    // "Optional." says nothing the schema does not; the sentence after it is the description.
    assert_eq!(said(&out, "list_workstations", "pageSize"), "Maximum number of items to return.");
    assert_eq!(said(&out, "create_workstation", "displayName"), "Human-readable name for this workstation.");
    // "e.g." does not end the sentence.
    assert_eq!(said(&out, "create_workstation", "host"), "The host name, e.g. ws.example.com.");
    // Other labels stay with their sentence; "Required." stays where the schema does not say it.
    assert_eq!(said(&out, "create_workstation", "name"), "Identifier. Full name of this workstation.");
    // A field the caller cannot set is no argument (its output keeps it).
    let create = out.catalog.tools.iter().find(|t| t.name == "create_workstation").unwrap();
    assert!(create.input_schema["properties"].get("reconciling").is_none(), "{}", create.input_schema);
    assert_eq!(said(&out, "create_workstation", "workstationId"), "Required. ID to use for the workstation.");
}

/// Envelopes in DocuSign's manner (a create whose body and answer both hold the new item's
/// `envelopeId`, and another list of envelopes under a batch) beside a link in OnSched's (a post
/// that links an existing calendar and answers a link record with an `id` of its own).
const CREATES: &str = r##"
openapi: 3.0.0
info: { title: Envelopes, version: "2.1" }
paths:
  /accounts/{accountId}/envelopes:
    post:
      operationId: Envelopes_PostEnvelopes
      parameters:
        - { name: accountId, in: path, required: true, schema: { type: string } }
      requestBody:
        content:
          application/json:
            schema: { type: object, properties: { envelopeId: { type: string, description: The envelope's GUID. }, emailSubject: { type: string } } }
      responses: { "201": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/EnvelopeSummary" } } } } }
  /accounts/{accountId}/bulk_send_batch/{batchId}/envelopes:
    get:
      operationId: BulkSend_GetBatchEnvelopes
      parameters:
        - { name: accountId, in: path, required: true, schema: { type: string } }
        - { name: batchId, in: path, required: true, schema: { type: string } }
      responses: { "200": { description: ok, content: { application/json: { schema: { type: object, properties: { envelopes: { type: array, items: { $ref: "#/components/schemas/EnvelopeSummary" } } } } } } } }
  /calendars:
    get:
      operationId: ListCalendars
      responses: { "200": { description: ok, content: { application/json: { schema: { type: object, properties: { data: { type: array, items: { $ref: "#/components/schemas/Calendar" } } } } } } } }
  /services/calendar:
    post:
      operationId: LinkServiceCalendar
      requestBody:
        content:
          application/json:
            schema: { type: object, properties: { calendarId: { type: string }, serviceId: { type: string } } }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/ServiceCalendar" } } } } }
components:
  schemas:
    EnvelopeSummary: { type: object, properties: { envelopeId: { type: string }, status: { type: string } } }
    Calendar: { type: object, properties: { id: { type: string }, name: { type: string } } }
    ServiceCalendar: { type: object, properties: { id: { type: string }, calendarId: { type: string }, serviceId: { type: string } } }
"##;

#[test]
fn the_id_a_create_answers_with_names_its_new_item_and_a_link_keeps_its_list() {
    let out = catalog(CREATES);
    // The envelope being created: no list returns its id, least of all a batch's envelopes.
    assert_eq!(said(&out, "create_envelopes", "envelopeId"), "The envelope's GUID.");
    // A link record has an id of its own: the calendar it links is one list_calendars returns.
    assert_eq!(
        said(&out, "link_service_calendar", "calendarId"),
        "Use an id returned by list_calendars; do not guess ids."
    );
}
