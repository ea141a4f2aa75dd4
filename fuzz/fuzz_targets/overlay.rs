//! A fixed small valid spec + arbitrary overlay text, through the whole pipeline including the
//! Rust emitter (the overlay's names, titles and instructions end up in generated code).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_gen::Input;

#[path = "common.rs"]
mod common;

const SPEC: &str = r##"openapi: 3.0.3
info: {title: Fuzz Pet Store API, version: "1.0"}
servers: [{url: "https://pets.example.com/v1"}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Api-Key}
    bearer: {type: http, scheme: bearer}
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        id: {type: integer, readOnly: true}
        name: {type: string}
        tag: {type: string, nullable: true}
paths:
  /pets:
    get:
      operationId: listPets
      summary: List pets
      parameters:
        - {name: limit, in: query, schema: {type: integer, minimum: 1}}
      responses:
        "200":
          description: ok
          content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/Pet"}}}}
    post:
      operationId: createPet
      security: [{key: []}]
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/Pet"}}}
      responses: {"201": {description: created}}
  /pets/{petId}:
    parameters: [{name: petId, in: path, required: true, schema: {type: integer}}]
    get:
      operationId: getPetById
      responses:
        "200":
          description: ok
          content: {application/json: {schema: {$ref: "#/components/schemas/Pet"}}}
    delete:
      operationId: deletePet
      security: [{bearer: []}]
      responses: {"204": {description: gone}}
  /pets/findByStatus:
    get:
      operationId: findPetsByStatus
      parameters:
        - {name: status, in: query, style: form, explode: false, schema: {type: array, items: {type: string, enum: [available, sold]}}}
      responses: {"200": {description: ok}}
  /health:
    get:
      operationId: health
      responses: {"200": {description: ok, content: {text/plain: {}}}}
"##;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut names = vec!["overlay.yaml"];
    if text.trim_start().starts_with('{') {
        names.push("overlay.json");
    }
    for name in names {
        let input = Input { spec: common::text("openapi.yaml", SPEC), overlay: Some(common::text(name, text)), versions: Vec::new() };
        common::run(&input, true);
    }
});
