//! Overlay `merge` (T1, D1, I1): several operations served by one tool. Its schema takes their
//! arguments together, its description says which do not combine, `plan` shows each operation's
//! own mapping, the fidelity checker finds every constraint, and a merge the server could not
//! route is a located error. (How calls are routed: runtime `route.rs`; against a real upstream:
//! `find_pets` in tests/e2e.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

use mcp_gen::{Input, Report, Settings, generate};
use serde_json::json;

const SPEC: &str = r##"
openapi: 3.0.3
info: { title: Users, version: "1" }
paths:
  /users:
    get:
      operationId: listUsers
      summary: List users
      parameters:
        - { name: status, in: query, schema: { type: string, enum: [active, invited] } }
        - { name: limit, in: query, schema: { type: integer, minimum: 1, maximum: 100 } }
      responses: { "200": { description: ok, content: { application/json: { schema: { type: array, items: { $ref: "#/components/schemas/User" } } } } } }
    post:
      operationId: createUser
      summary: Create a user
      requestBody: { required: true, content: { application/json: { schema: { $ref: "#/components/schemas/User" } } } }
      responses: { "201": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/User" } } } } }
  /users/search:
    get:
      operationId: searchUsers
      summary: Search users by status
      parameters:
        - { name: status, in: query, schema: { type: string, enum: [active, invited] } }
      responses: { "200": { description: ok, content: { application/json: { schema: { type: array, items: { $ref: "#/components/schemas/User" } } } } } }
  /users/{id}:
    get:
      operationId: getUser
      summary: Get a user
      parameters:
        - { name: id, in: path, required: true, schema: { type: integer, minimum: 1 } }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/User" } } } } }
  /users/by-email/{email}:
    get:
      operationId: getUserByEmail
      summary: Get a user by email
      parameters:
        - { name: email, in: path, required: true, schema: { type: string, format: email, maxLength: 254 } }
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/User" } } } } }
  /teams/{team_id}/users:
    get:
      operationId: listTeamUsers
      summary: List a team's users
      parameters:
        - { name: team_id, in: path, required: true, schema: { type: string, pattern: "^t_[a-z0-9]+$" } }
        - { name: status, in: query, schema: { type: string, enum: [active, invited] } }
        - { name: limit, in: query, schema: { type: integer, minimum: 1, maximum: 100 } }
      responses: { "200": { description: ok, content: { application/json: { schema: { type: array, items: { $ref: "#/components/schemas/User" } } } } } }
  /orgs/{id}/users:
    get:
      operationId: listOrgUsers
      summary: List an organisation's users
      parameters:
        - { name: id, in: path, required: true, schema: { type: string } }
      responses: { "200": { description: ok } }
components:
  schemas:
    User:
      type: object
      required: [name]
      properties:
        id: { type: integer, readOnly: true }
        name: { type: string, maxLength: 80 }
"##;

const OVERLAY: &str = r#"
mcp-gen: 1
tools:
  get_user:
    operation: getUser
    merge: [getUserByEmail]
  list_users:
    operation: listUsers
    merge: ["GET /teams/{team_id}/users"]
    params:
      team_id: { description: "Only this team's users." }
"#;

fn input(overlay: &str) -> Input {
    Input::text("users.yaml", SPEC, Some(overlay))
}

fn settings() -> Settings {
    Settings::default().with_catalog_only(true)
}

fn tool<'a>(out: &'a mcp_gen::Output, name: &str) -> &'a mcp_gen::schema::Tool {
    out.catalog.tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tool {name}"))
}

/// The diagnostics of an overlay that does not compile.
fn refused(overlay: &str) -> Report {
    match generate(&input(overlay), &settings()) {
        Ok(_) => panic!("the overlay compiled:\n{overlay}"),
        Err(report) => report,
    }
}

#[test]
fn merged_operations_are_one_tool_with_their_arguments_together() {
    let out = generate(&input(OVERLAY), &settings()).unwrap();
    let names: Vec<&str> = out.catalog.tools.iter().map(|t| t.name.as_str()).collect();
    assert!(!names.iter().any(|n| n.contains("by_email") || n.contains("team")), "{names:?}");

    let get = tool(&out, "get_user");
    let schema = &get.input_schema;
    assert_eq!(
        (&schema["properties"]["id"]["type"], &schema["properties"]["id"]["minimum"]),
        (&json!("integer"), &json!(1))
    );
    assert_eq!(schema["properties"]["email"]["maxLength"], 254);
    // Each is required by its own operation only: the server's routing requires it.
    assert!(schema.get("required").is_none(), "{schema}");
    assert_eq!(schema["additionalProperties"], false);
    assert!(get.description.ends_with("Takes either id or email, not both."), "{}", get.description);
    assert_eq!(get.title, "Get user");
    assert_eq!(get.routes.len(), 2);
    assert!(get.annotations.read_only);

    // A collection and its per-team view: `team_id` is an optional filter, no rule to state.
    let list = tool(&out, "list_users");
    let props: Vec<&String> = list.input_schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(props, ["status", "limit", "team_id"]);
    assert_eq!(list.input_schema["properties"]["team_id"]["description"], "Only this team's users.");
    assert!(!list.description.contains("not both"), "{}", list.description);

    // The review surface shows each operation's own mapping, in the order they are tried.
    let plan = mcp_gen::plan::review::review(&out.catalog);
    let list = plan["tools"].as_array().unwrap().iter().find(|t| t["name"] == "list_users").unwrap();
    let routes = list["routes"].as_array().unwrap();
    assert_eq!(routes[0]["operation"]["operationId"], "listUsers");
    assert_eq!(routes[1]["operation"]["operationId"], "listTeamUsers");
    let team = routes[1]["arguments"].as_array().unwrap().iter().find(|a| a["name"] == "team_id").unwrap();
    assert_eq!(team["required"], true);
    assert_eq!(team["source"]["in"], "path");
    assert!(
        plan["tools"].as_array().unwrap().iter().find(|t| t["name"] == "create_user").unwrap().get("routes").is_none()
    );
}

#[test]
fn every_merged_operation_says_where_its_ids_come_from() {
    // A user by id, or a team member by team and user id; the team's members are listed by a
    // merged list tool's second operation.
    let spec = SPEC.replace(
        "  /orgs/{id}/users:",
        "  /teams/{team_id}/users/{user_id}:\n    get:\n      operationId: getTeamUser\n      summary: Get a team member\n      parameters:\n        - { name: team_id, in: path, required: true, schema: { type: string } }\n        - { name: user_id, in: path, required: true, schema: { type: string } }\n      responses: { \"200\": { description: ok, content: { application/json: { schema: { $ref: \"#/components/schemas/User\" } } } } }\n  /orgs/{id}/users:",
    );
    let overlay = OVERLAY.replace("merge: [getUserByEmail]", "merge: [getTeamUser]");
    let input = Input::text("users.yaml", spec, Some(&overlay));
    let out = generate(&input, &settings()).unwrap();
    let get = tool(&out, "get_user");
    let lists: Vec<Option<&str>> = get.routes.iter().map(|r| r.list_tool.as_deref()).collect();
    assert_eq!(lists, [Some("list_users"), Some("list_users")]);
    assert_eq!(get.list_tool.as_deref(), Some("list_users"));
    for arg in ["id", "user_id"] {
        let d = get.input_schema["properties"][arg]["description"].as_str().unwrap_or_default();
        assert!(d.contains("returned by list_users"), "{arg}: {d}");
    }
    // The emitted route declaration carries it: a 404 on it names list_users (E4).
    let plan = mcp_gen::plan::review::review(&out.catalog);
    let get = plan["tools"].as_array().unwrap().iter().find(|t| t["name"] == "get_user").unwrap();
    assert_eq!(get["routes"][1]["idsFrom"], "list_users");
}

#[test]
fn the_checker_finds_every_constraint_of_every_merged_operation() {
    let f = mcp_gen::fidelity::check_input(&input(OVERLAY), &settings()).unwrap();
    assert!(f.is_complete(), "{:?} {:?}", f.losses, f.invalid_schemas);
    assert!(f.left_out.is_empty(), "{:?}", f.left_out);
    // id: required + minimum; email: required + format + maxLength; team_id: required + pattern;
    // status ×3 enums; limit ×2 (minimum, maximum); the body's name: required + maxLength.
    assert!(f.constraints >= 17, "{}", f.constraints);
    assert_eq!(f.preserved, f.constraints);
}

#[test]
fn a_merge_the_server_could_not_route_is_a_located_error() {
    for (overlay, says, pointer) in [
        (
            "mcp-gen: 1\ntools:\n  user:\n    operation: getUser\n    merge: [createUser]\n",
            "merges operations that read with operations that write",
            "/tools/user/merge",
        ),
        (
            "mcp-gen: 1\ntools:\n  list_users:\n    operation: listUsers\n    merge: [searchUsers]\n",
            "never reaches GET /users/search: GET /users takes every call it could take",
            "/tools/list_users/merge",
        ),
        (
            "mcp-gen: 1\ntools:\n  get_user:\n    operation: getUser\n    merge: [getUserByMail]\n",
            "merges `getUserByMail`, which is not an operation of the spec",
            "/tools/get_user/merge/0",
        ),
        (
            "mcp-gen: 1\ntools:\n  get_user:\n    operation: getUser\n    merge: [getUser]\n",
            "names `getUser` twice",
            "/tools/get_user/merge/0",
        ),
        (
            "mcp-gen: 1\ntools:\n  users:\n    operation: getUser\n    merge: [listOrgUsers]\n",
            "argument `id` takes different values in GET /users/{id} and GET /orgs/{id}/users",
            "/tools/users/merge",
        ),
        (
            "mcp-gen: 1\nexclude: [getUserByEmail]\ntools:\n  get_user:\n    operation: getUser\n    merge: [getUserByEmail]\n",
            "which the overlay also excludes",
            "/tools/get_user/merge/0",
        ),
    ] {
        let report = refused(overlay);
        let found = report.diagnostics.iter().find(|d| d.message.contains(says));
        let d = found.unwrap_or_else(|| panic!("no `{says}` in:\n{report}"));
        assert!(d.is_error());
        assert_eq!(d.location.as_ref().unwrap().pointer, pointer, "{d:?}");
        assert!(d.help.as_deref().is_some_and(|h| !h.is_empty()));
    }
    assert!(
        refused("mcp-gen: 1\ntools:\n  get_user:\n    operation: getUser\n    merge: [getUserByMail]\n")
            .diagnostics
            .iter()
            .any(|d| d.help.as_deref() == Some("did you mean `getUserByEmail`?"))
    );
}

#[test]
fn an_entry_is_an_error_only_when_no_merged_operation_has_the_argument() {
    let overlay = "mcp-gen: 1\ntools:\n  list_users:\n    operation: listUsers\n    merge: [listTeamUsers]\n    params:\n      team_id: { description: Only this team. }\n      teamid: { hidden: true }\n";
    let report = refused(overlay);
    let unknown: Vec<_> = report.diagnostics.iter().filter(|d| d.code == "overlay-unknown-argument").collect();
    assert_eq!(unknown.len(), 1, "{report}");
    assert!(unknown[0].message.contains("`teamid` is not an argument of `list_users`"), "{}", unknown[0].message);
    assert_eq!(unknown[0].location.as_ref().unwrap().pointer, "/tools/list_users/params/teamid");
    // The suggestion comes from every merged operation's arguments.
    assert_eq!(
        unknown[0].help.as_deref(),
        Some("did you mean `team_id`? (`mcp-gen plan` lists each tool's arguments)")
    );
}
