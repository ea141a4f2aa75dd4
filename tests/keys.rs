//! Idempotency keys in the plan (CONTRACT R2, R5–R7): which tools take one, where it goes
//! upstream, what the model reads about it, and the overlay's choices (natural keys, keyless
//! tools, TTL and forwarding) with located errors for bad ones.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use mcp_gen::plan::Target;
use mcp_gen::plan::retry::{KeySource, Window};
use mcp_gen::schema::Tool;

const SPEC: &str = r#"
openapi: 3.1.0
info: { title: Ledger, version: "1" }
paths:
  /accounts:
    get:
      operationId: listAccounts
      responses: { "200": { description: ok, content: { application/json: { schema: { type: array, items: { type: object } } } } } }
  /accounts/{account_id}:
    put:
      operationId: replaceAccount
      parameters:
        - { name: account_id, in: path, required: true, schema: { type: string } }
        - { name: Idempotency-Key, in: header, schema: { type: string, maxLength: 40 } }
      requestBody: { content: { application/json: { schema: { type: object, properties: { name: { type: string } } } } } }
      responses: { "200": { description: ok, content: { application/json: { schema: { type: object } } } } }
  /transfers:
    post:
      operationId: createTransfer
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [account, amount]
              properties: { account: { type: string }, amount: { type: integer } }
      responses: { "201": { description: ok, content: { application/json: { schema: { type: object } } } } }
"#;

fn compile(overlay: Option<&str>) -> Result<mcp_gen::Output, String> {
    let input = mcp_gen::Input {
        spec: mcp_gen::SourceInput::Text { name: "spec.yaml".into(), text: SPEC.into() },
        overlay: overlay.map(|o| mcp_gen::SourceInput::Text { name: "overlay.yaml".into(), text: o.into() }),
        versions: Vec::new(),
    };
    mcp_gen::generate(&input, &mcp_gen::Settings::default().with_catalog_only(true)).map_err(|r| r.to_string())
}

fn tool<'a>(out: &'a mcp_gen::Output, name: &str) -> &'a Tool {
    out.catalog.tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tool {name}"))
}

fn key_arg(t: &Tool) -> Option<&mcp_gen::plan::Arg> {
    t.args.iter().find(|a| a.name == "idempotency_key")
}

#[test]
fn every_write_takes_a_caller_key_and_reads_take_none() {
    let out = compile(None).unwrap();
    let list = tool(&out, "list_accounts");
    assert!(list.key.is_none() && key_arg(list).is_none(), "R7: a read takes no key");

    let create = tool(&out, "create_transfer");
    let arg = key_arg(create).unwrap();
    assert!(arg.required);
    assert_eq!(arg.target, Target::Header { name: "Idempotency-Key".into(), json: false });
    let props = &create.input_schema["properties"]["idempotency_key"];
    assert_eq!(props["type"], "string");
    assert_eq!(props["maxLength"], 64);
    let text = props["description"].as_str().unwrap();
    assert_eq!(text, "New UUID per intent; reuse only to retry.");
    assert!(
        create.description.ends_with(" Retry-safe for 24 h with the same idempotency_key."),
        "{}",
        create.description
    );
    assert!(create.input_schema["required"].as_array().unwrap().iter().any(|r| r == "idempotency_key"));
    let key = create.key.as_ref().unwrap();
    assert_eq!(key.source, KeySource::Caller { arg: "idempotency_key".into() });
    assert_eq!(key.ttl_secs, 86_400);

    // The operation's own Idempotency-Key header becomes the key: one argument, its bound kept.
    let replace = tool(&out, "replace_account");
    assert_eq!(replace.args.iter().filter(|a| a.name == "idempotency_key").count(), 1);
    assert!(!replace.args.iter().any(|a| a.name.eq_ignore_ascii_case("idempotency-key")));
    assert_eq!(replace.input_schema["properties"]["idempotency_key"]["maxLength"], 40);
    assert!(key_arg(replace).unwrap().required);

    // The plan and the generated README state the guarantee.
    let guarantee = mcp_gen::plan::retry::guarantee(create);
    assert!(guarantee.contains("exactly-once if the API dedupes on the key (header Idempotency-Key)"), "{guarantee}");
    assert_eq!(mcp_gen::plan::retry::guarantee(list), "safe to repeat (read-only)");
}

#[test]
fn the_overlay_chooses_natural_keys_keyless_tools_ttl_and_forwarding() {
    let overlay = r#"
mcp-gen: 1
defaults: { idempotency_ttl: 7d, idempotency_forward: body.request_id }
tools:
  create_transfer:
    operation: createTransfer
    effects: { reversible: false, approver: none, on_repeat: replay, idempotency: { natural: [account], window: business_day+03:00 } }
  replace_account:
    operation: replaceAccount
    effects: { reversible: true, approver: none, on_repeat: no_effect, idempotency: none }
"#;
    let out = compile(Some(overlay)).unwrap();
    let create = tool(&out, "create_transfer");
    assert!(key_arg(create).is_none(), "a natural key is never shown to the model");
    let key = create.key.as_ref().unwrap();
    assert_eq!(
        key.source,
        KeySource::Natural { fields: vec!["account".into()], window: Window::Day { offset_minutes: 180 } }
    );
    assert_eq!(key.ttl_secs, 7 * 86_400);
    assert!(create.description.contains("same account on the same day (UTC+03:00)"), "{}", create.description);
    let replace = tool(&out, "replace_account");
    assert!(replace.key.is_none());
    assert!(mcp_gen::plan::retry::guarantee(replace).starts_with("not keyed"));

    // Forwarding in a body field, and not at all.
    let body = compile(Some("mcp-gen: 1\ndefaults: { idempotency_forward: body.request_id, idempotency_ttl: 90m }\n"))
        .unwrap();
    let create = tool(&body, "create_transfer");
    assert_eq!(key_arg(create).unwrap().target, Target::BodyField { name: "request_id".into() });
    assert!(create.description.contains("Retry-safe for 90 min"), "{}", create.description);
    let none = compile(Some("mcp-gen: 1\ndefaults: { idempotency_forward: none }\n")).unwrap();
    let create = tool(&none, "create_transfer");
    assert_eq!(key_arg(create).unwrap().target, Target::Local);
    assert!(mcp_gen::plan::retry::guarantee(create).contains("the API does not get the key"));
}

#[test]
fn bad_key_settings_are_located_errors() {
    let err = compile(Some("mcp-gen: 1\ndefaults: { idempotency_ttl: soon }\n")).unwrap_err();
    assert!(
        err.contains("idempotency_ttl `soon` is not a duration") && err.contains("/defaults/idempotency_ttl"),
        "{err}"
    );
    let err = compile(Some("mcp-gen: 1\ndefaults: { idempotency_forward: trailer.X }\n")).unwrap_err();
    assert!(err.contains("`header.Idempotency-Key`"), "{err}");
    let natural = |fields: &str, window: &str| {
        format!(
            "mcp-gen: 1\ntools:\n  create_transfer:\n    operation: createTransfer\n    effects: {{ reversible: false, approver: none, on_repeat: replay, idempotency: {{ natural: {fields}, window: {window} }} }}\n"
        )
    };
    let err = compile(Some(&natural("[acount]", "24h"))).unwrap_err();
    assert!(err.contains("natural key field `acount` is not an argument"), "{err}");
    assert!(err.contains("/tools/create_transfer/effects/idempotency"), "{err}");
    let err = compile(Some(&natural("[account]", "fortnight"))).unwrap_err();
    assert!(err.contains("window `fortnight` is not a window"), "{err}");
}

/// One rule for idempotentHint (T3, R3): every keyed tool of every example says true (a repeat
/// with the same key replays), and the example's upload_file, keyed but undeclared, is among them.
#[test]
fn every_keyed_tool_is_idempotent() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut keyed = Vec::new();
    for spec in mcp_gen::cli::repo_specs(&root).unwrap() {
        let out = mcp_gen::generate(&spec.input, &spec.settings).unwrap();
        for t in out.catalog.tools.iter().filter(|t| t.key.is_some()) {
            assert!(t.annotations.idempotent, "{}: {} is keyed but not idempotentHint", spec.name, t.name);
            keyed.push(format!("{}/{}", spec.name, t.name));
        }
    }
    assert!(keyed.contains(&"petstore/upload_file".to_owned()), "{keyed:?}");
}
