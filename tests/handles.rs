//! Next-page handles end to end (CONTRACT H1–H5, M2): the generated invoices server, started as
//! a real process against a real upstream on loopback that pages with its own cursors, driven
//! with raw JSON-RPC over Streamable HTTP as two different callers. The model only ever sees
//! signed `h1_…` handles; the upstream only ever sees its own cursors.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Query, State};
use axum::routing::get;
use mcp_gen_runtime::handle::{HandleKey, mint, open};
use mcp_gen_runtime::idempotency::caller_identity;
use serde_json::{Value, json};

const KEY: &str = "a shared handle key of 32+ characters, for the test";

/// The cursors the upstream was asked for, in order (`None`: the first page).
type Seen = Arc<Mutex<Vec<Option<String>>>>;

fn invoice(n: u32) -> Value {
    json!({"id": format!("inv_{n:04}"), "customer": "cus_1", "currency": "EUR", "status": "open",
        "total": 100 * n, "due_date": null, "lines": [{"description": "Seat", "quantity": 1, "unit_amount": 100 * n}]})
}

/// Three invoices, two per page: cursor `cur_2` leads to the last page.
async fn list(State(seen): State<Seen>, Query(q): Query<BTreeMap<String, String>>) -> Json<Value> {
    let cursor = q.get("cursor").cloned();
    seen.lock().unwrap().push(cursor.clone());
    Json(match cursor.as_deref() {
        None => json!({"items": [invoice(1), invoice(2)], "next_cursor": "cur_2"}),
        _ => json!({"items": [invoice(3)], "next_cursor": null}),
    })
}

/// The queries `GET /v1/invoices/{id}/events` was asked with, in order.
type Queries = Arc<Mutex<Vec<BTreeMap<String, String>>>>;

/// Three events, two per page, the next page's address in the `Link` header as GitHub writes
/// it: the first page links to the second with an `after` cursor (and, carelessly, the bearer
/// token the upstream was called with); the last page links back only.
async fn events(
    State(seen): State<Queries>,
    headers: axum::http::HeaderMap,
    Query(q): Query<BTreeMap<String, String>>,
) -> (axum::http::HeaderMap, Json<Value>) {
    seen.lock().unwrap().push(q.clone());
    let host = headers.get("host").and_then(|h| h.to_str().ok()).unwrap_or("").to_owned();
    let event = |n: u32| json!({"id": format!("evt_{n}"), "type": "created", "created_at": "2026-01-01T00:00:00Z"});
    let mut out = axum::http::HeaderMap::new();
    let base = format!("http://{host}/v1/invoices/inv_00000000000001/events");
    let (link, body) = match q.get("after").map(String::as_str) {
        None => (
            format!(
                r#"<{base}?per_page=2&after=ZXZ0XzI%3D&access_token=t>; rel="next", <{base}?per_page=2&after=ZXZ0XzI%3D>; rel="last""#
            ),
            json!([event(1), event(2)]),
        ),
        Some(_) => (format!(r#"<{base}?per_page=2&before=ZXZ0XzM%3D>; rel="prev""#), json!([event(3)])),
    };
    out.insert("link", link.parse().unwrap());
    (out, Json(body))
}

fn upstream() -> (String, Seen) {
    let (url, seen, _) = upstream_with_events();
    (url, seen)
}

fn upstream_with_events() -> (String, Seen, Queries) {
    let seen: Seen = Arc::default();
    let queries: Queries = Arc::default();
    let events = axum::Router::new().route("/v1/invoices/{id}/events", get(events)).with_state(queries.clone());
    let app = axum::Router::new().route("/v1/invoices", get(list)).with_state(seen.clone()).merge(events);
    (format!("http://{}", support::serve_upstream(app)), seen, queries)
}

fn start(upstream: &str, key: &str) -> support::Server {
    support::serve_http(
        &support::binary("invoices-mcp"),
        &["--upstream", upstream],
        &[("INVOICES_BEARER_TOKEN", "t"), ("INVOICES_HANDLE_KEY", key)],
    )
}

/// One `tools/call` of `list_invoices` as a 2026-07-28 client sends it, with the caller's
/// `Authorization`; the structured result, or the error body of an `isError` result.
async fn list_invoices(url: &str, caller: &str, args: Value) -> Result<Value, Value> {
    call(url, caller, "list_invoices", args).await
}

async fn call(url: &str, caller: &str, tool: &str, args: Value) -> Result<Value, Value> {
    let reply = support::raw_tools_call(url, 1, tool, &args, &[("authorization", caller)]).await;
    let result = &reply["result"];
    if result["isError"] == true {
        return Err(serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap());
    }
    // The text block carries the same JSON as structuredContent (T8).
    let structured = result["structuredContent"].clone();
    assert_eq!(serde_json::from_str::<Value>(result["content"][0]["text"].as_str().unwrap()).unwrap(), structured);
    Ok(structured)
}

#[tokio::test(flavor = "multi_thread")]
async fn pages_are_followed_through_signed_handles_bound_to_tool_and_caller() {
    mcp_gen_runtime::init_tls();
    let (url, seen) = upstream();
    // Two replicas with the same key, and one with another.
    let (a, b, stranger) = (start(&url, KEY), start(&url, KEY), start(&url, "another key, also longer than 32 chars"));
    let alice = "Bearer alice";

    let first = list_invoices(&a.url, alice, json!({"limit": 2})).await.unwrap();
    assert_eq!(first["items"].as_array().unwrap().len(), 2);
    let handle = first["next_cursor"].as_str().unwrap().to_owned();
    assert!(handle.starts_with("h1_") && !handle.contains("cur_2"), "{handle}");

    // The handle opens on any replica sharing the key (M2); the upstream gets its own cursor.
    let last = list_invoices(&b.url, alice, json!({"limit": 2, "cursor": handle})).await.unwrap();
    assert_eq!(last["items"][0]["id"], "inv_0003");
    assert_eq!(last["next_cursor"], Value::Null, "the last page says so (H5)");
    assert_eq!(seen.lock().unwrap().clone(), [None, Some("cur_2".to_owned())]);

    // Refused alike, without reaching the upstream: another caller's (H4), another key's, an
    // edited one, and the upstream's raw cursor.
    let mut edited = handle.clone();
    edited.replace_range(5..6, if &handle[5..6] == "A" { "B" } else { "A" });
    for (case, server, caller, cursor) in [
        ("another caller", &a, "Bearer mallory", handle.as_str()),
        ("another key", &stranger, alice, handle.as_str()),
        ("edited", &a, alice, edited.as_str()),
        ("raw cursor", &a, alice, "cur_2"),
    ] {
        let e = list_invoices(&server.url, caller, json!({"cursor": cursor})).await.unwrap_err();
        assert_eq!(e["code"], "invalid_argument", "{case}: {e}");
        assert_eq!(e["field"], "cursor", "{case}");
        assert_eq!(e["retryable"], false, "{case}");
        assert!(e["recovery"].as_str().unwrap().contains("without cursor"), "{case}: {e}");
    }
    assert_eq!(seen.lock().unwrap().len(), 2, "a refused handle reached the upstream");

    // An expired handle is its own error, with the way to start over (H3).
    let key = HandleKey::from_secret(KEY).unwrap();
    let old = mint(&key, "list_invoices", &caller_identity(Some(alice)), 1_000, &json!("cur_2")).unwrap();
    let e = list_invoices(&a.url, alice, json!({"cursor": old})).await.unwrap_err();
    assert_eq!(e["code"], "handle_expired", "{e}");
    assert_eq!(e["retryable"], false);
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn pages_announced_in_the_link_header_are_followed_through_handles() {
    mcp_gen_runtime::init_tls();
    let (url, _, queries) = upstream_with_events();
    let server = start(&url, KEY);
    let alice = "Bearer alice";
    let args = json!({"invoice_id": "inv_00000000000001", "per_page": 2});

    let first = call(&server.url, alice, "list_invoice_events", args.clone()).await.unwrap();
    assert_eq!(first["items"].as_array().unwrap().len(), 2, "{first}");
    let handle = first["next_cursor"].as_str().unwrap().to_owned();
    assert!(handle.starts_with("h1_"), "{handle}");
    // A handle's payload is readable: it holds the next link's query, never a credential.
    let key = HandleKey::from_secret(KEY).unwrap();
    let opened = open(&key, "list_invoice_events", &caller_identity(Some(alice)), 0, "after", &handle).unwrap();
    assert_eq!(opened.cursor, "per_page=2&after=ZXZ0XzI%3D");

    let mut next = args.clone();
    next["after"] = json!(handle);
    let last = call(&server.url, alice, "list_invoice_events", next).await.unwrap();
    assert_eq!(last["items"][0]["id"], "evt_3");
    assert_eq!(last["next_cursor"], Value::Null, "no rel=next: the last page says so (H5)");
    let asked: Vec<BTreeMap<String, String>> = queries.lock().unwrap().clone();
    let q = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    assert_eq!(asked, vec![q(&[("per_page", "2")]), q(&[("per_page", "2"), ("after", "ZXZ0XzI=")])]);

    // A cursor the model made up is refused without reaching the upstream.
    let mut guessed = args;
    guessed["after"] = json!("ZXZ0XzI=");
    let e = call(&server.url, alice, "list_invoice_events", guessed).await.unwrap_err();
    assert_eq!(e["code"], "invalid_argument", "{e}");
    assert_eq!(queries.lock().unwrap().len(), 2);
}

#[test]
fn the_catalog_states_the_handle_and_its_lifetime() {
    let catalog: Value =
        serde_json::from_str(&std::fs::read_to_string(support::repo().join("generated/invoices/tools.json")).unwrap())
            .unwrap();
    let tool = catalog["tools"].as_array().unwrap().iter().find(|t| t["name"] == "list_invoices").unwrap();
    let description = tool["description"].as_str().unwrap();
    assert!(description.contains("valid ~15 min") && description.contains("null next_cursor means the last page"));
    assert_eq!(tool["inputSchema"]["properties"]["cursor"]["type"], "string");
    assert_eq!(tool["outputSchema"]["properties"]["next_cursor"]["type"], json!(["string", "null"]));
    // The cursor argument admits exactly the handles the runtime hands out.
    assert_eq!(tool["inputSchema"]["properties"]["cursor"]["maxLength"], mcp_gen_runtime::handle::MAX_LEN);
    assert_eq!(mcp_gen::plan::pages::MAX_HANDLE_LEN, mcp_gen_runtime::handle::MAX_LEN as u64);
}

/// The invoices spec with `overlay` instead of its own.
fn compile(overlay: &str) -> Result<mcp_gen::Output, mcp_gen::Report> {
    let spec = std::fs::read_to_string(support::repo().join("specs/invoices/openapi.yaml")).unwrap();
    let input = mcp_gen::Input {
        spec: mcp_gen::SourceInput::Text { name: "openapi.yaml".into(), text: spec },
        overlay: Some(mcp_gen::SourceInput::Text { name: "overlay.yaml".into(), text: overlay.into() }),
        versions: Vec::new(),
    };
    mcp_gen::generate(&input, &mcp_gen::Settings::default().with_catalog_only(true))
}

#[test]
fn a_cursor_without_a_known_next_stays_the_upstreams_and_a_bad_lifetime_is_located() {
    let tool = |out: &mcp_gen::Output| out.catalog.tools.iter().find(|t| t.name == "list_invoices").cloned().unwrap();
    // `next` names no field of the response: nothing to replace, so no handles.
    let out = compile("mcp-gen: 1\ntools:\n  list_invoices:\n    operation: GET /v1/invoices\n    paginate: { cursor: cursor, next: /next_page }\n").unwrap();
    let t = tool(&out);
    assert_eq!(t.pagination.as_ref().unwrap().handle_ttl_secs, None);
    let warned = out.diagnostics.diagnostics.iter().find(|d| d.message.contains("paginate.next `/next_page`")).unwrap();
    assert_eq!(warned.location.as_ref().unwrap().pointer, "/tools/list_invoices/paginate/next");
    assert_eq!(t.input_schema["properties"]["cursor"]["maxLength"], 512, "the spec's own cursor schema");
    assert!(!t.description.contains("valid ~"), "{}", t.description);
    // A lifetime of its own, and one that is not a duration.
    let out = compile("mcp-gen: 1\ndefaults: { handle_ttl: 1h }\ntools:\n  list_invoices:\n    operation: GET /v1/invoices\n    paginate: { cursor: cursor, next: /next_cursor }\n").unwrap();
    assert_eq!(tool(&out).pagination.clone().unwrap().handle_ttl_secs, Some(3600));
    assert!(tool(&out).description.contains("(valid ~1 h)"));
    let report = compile("mcp-gen: 1\ntools:\n  list_invoices:\n    operation: GET /v1/invoices\n    paginate: { cursor: cursor, next: /next_cursor, handle_ttl: soon }\n").unwrap_err();
    let d = report.diagnostics.iter().find(|d| d.message.contains("handle_ttl `soon`")).unwrap();
    assert_eq!(d.location.as_ref().unwrap().pointer, "/tools/list_invoices/paginate/handle_ttl");
    assert!(d.location.as_ref().unwrap().line.is_some(), "{d:?}");
}

#[test]
fn a_read_whose_result_hands_back_its_cursor_pages_with_handles_without_a_paginate_entry() {
    let tool = |out: &mcp_gen::Output| out.catalog.tools.iter().find(|t| t.name == "list_invoices").cloned().unwrap();
    let declared = tool(&compile("mcp-gen: 1\ntools:\n  list_invoices:\n    operation: GET /v1/invoices\n    paginate: { cursor: cursor, next: /next_cursor, limit: limit }\n").unwrap());
    // No overlay entry: `cursor` and the result's `next_cursor` are found, as declared.
    let found = tool(&compile("mcp-gen: 1\n").unwrap());
    assert_eq!(found.pagination, declared.pagination);
    assert_eq!(found.pagination.as_ref().and_then(|p| p.handle()), Some(("/next_cursor", 900)));
    assert_eq!(found.input_schema, declared.input_schema);
    assert_eq!(found.description, declared.description);
    // Renamed for the model: still the upstream's `cursor` that `next_cursor` hands back.
    let renamed = tool(&compile("mcp-gen: 1\ntools:\n  list_invoices:\n    operation: GET /v1/invoices\n    params:\n      cursor: { rename: page }\n").unwrap());
    assert_eq!(
        renamed.pagination.as_ref().map(|p| (p.cursor.as_str(), p.handle())),
        Some(("page", Some(("/next_cursor", 900))))
    );
    // Turned off for the API: the cursor is the upstream's own again.
    let off = tool(&compile("mcp-gen: 1\ndefaults: { detect_pagination: false }\n").unwrap());
    assert_eq!(off.pagination, None);
    assert_eq!(off.input_schema["properties"]["cursor"]["maxLength"], 512, "the spec's own cursor schema");
    assert!(!off.description.contains("Pages:"), "{}", off.description);
}

/// The tool `GET /things` becomes with these query parameters and this result schema, with no
/// overlay.
fn list_things(parameters: Value, result: Value) -> mcp_gen::schema::Tool {
    let spec = json!({
        "openapi": "3.1.0",
        "info": {"title": "Things", "version": "1"},
        "paths": {"/things": {"get": {
            "operationId": "listThings",
            "parameters": parameters,
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": result}}}}
        }}}
    });
    let input = mcp_gen::Input {
        spec: mcp_gen::SourceInput::Text { name: "things.json".into(), text: spec.to_string() },
        overlay: None,
        versions: Vec::new(),
    };
    let out = mcp_gen::generate(&input, &mcp_gen::Settings::default().with_catalog_only(true)).unwrap();
    out.catalog.tools.into_iter().next().unwrap()
}

/// The (cursor argument, next pointer) found for `GET /things` with these query parameters and
/// this result schema, with no overlay.
fn found(params: &str, result: Value) -> Option<(String, String)> {
    let p = list_things(serde_json::from_str(params).unwrap(), result).planned.pagination?;
    Some((p.cursor, p.next?))
}

#[test]
fn cursors_are_found_where_the_result_hands_them_back_and_nowhere_else() {
    let q = |names: &[&str]| {
        let ps: Vec<Value> =
            names.iter().map(|n| json!({"name": n, "in": "query", "schema": {"type": "string"}})).collect();
        Value::Array(ps).to_string()
    };
    let object = |props: Value| json!({"type": "object", "properties": props});
    let s = json!({"type": ["string", "null"]});
    let pair = |a: &str, b: &str| Some((a.to_owned(), b.to_owned()));
    // Same name both ways (AWS), `next_` before it (Google, Box), a start_ prefix (Notion), one
    // object down (Slack), under a `next…` object (HubSpot, Asana).
    assert_eq!(
        found(&q(&["NextToken"]), object(json!({"NextToken": s, "Items": {"type": "array"}}))),
        pair("NextToken", "/NextToken")
    );
    assert_eq!(
        found(&q(&["pageToken", "q"]), object(json!({"nextPageToken": s}))),
        pair("pageToken", "/nextPageToken")
    );
    assert_eq!(found(&q(&["marker"]), object(json!({"next_marker": s}))), pair("marker", "/next_marker"));
    assert_eq!(
        found(&q(&["start_cursor"]), object(json!({"next_cursor": s, "has_more": {"type": "boolean"}}))),
        pair("start_cursor", "/next_cursor")
    );
    assert_eq!(
        found(&q(&["cursor"]), object(json!({"response_metadata": object(json!({"next_cursor": s}))}))),
        pair("cursor", "/response_metadata/next_cursor")
    );
    assert_eq!(
        found(
            &q(&["after"]),
            object(json!({"paging": object(json!({"next": object(json!({"after": s, "link": s}))}))}))
        ),
        pair("after", "/paging/next/after")
    );
    assert_eq!(
        found(&q(&["offset"]), object(json!({"next_page": object(json!({"offset": s}))}))),
        pair("offset", "/next_page/offset")
    );
    // Not a cursor: a `token` both ways is a credential; a name with no cursor word; two
    // candidates; an integer page; an array result; a field deep in an item.
    assert_eq!(found(&q(&["token"]), object(json!({"token": s}))), None);
    assert_eq!(found(&q(&["name"]), object(json!({"next_name": s}))), None);
    assert_eq!(found(&q(&["cursor", "page_token"]), object(json!({"next_cursor": s, "next_page_token": s}))), None);
    assert_eq!(
        found(&q(&["cursor"]), object(json!({"next_cursor": s, "meta": object(json!({"next_cursor": s}))}))),
        None
    );
    let page = json!([{"name": "page", "in": "query", "schema": {"type": "integer"}}]).to_string();
    assert_eq!(found(&page, object(json!({"next_page": {"type": "integer"}}))), None);
    assert_eq!(found(&q(&["cursor"]), json!({"type": "array", "items": object(json!({"next_cursor": s}))})), None);
}

/// The events tool of the invoices spec with `overlay`.
fn events_tool(overlay: &str) -> (mcp_gen::schema::Tool, Vec<String>) {
    let out = compile(overlay).unwrap();
    let warnings = out.diagnostics.diagnostics.iter().map(|d| d.message.clone()).collect();
    (out.catalog.tools.iter().find(|t| t.name == "list_invoice_events").cloned().unwrap(), warnings)
}

#[test]
fn a_link_header_cursor_declared_in_the_overlay_is_the_one_found_without_it() {
    let (found, _) = events_tool("mcp-gen: 1\n");
    let (declared, _) = events_tool(
        "mcp-gen: 1\ntools:\n  list_invoice_events:\n    operation: GET /v1/invoices/{invoice_id}/events\n    paginate: { cursor: after, link_header: true, limit: per_page }\n",
    );
    let p = found.pagination.as_ref().unwrap();
    assert!(p.link && p.cursor == "after" && p.limit.as_deref() == Some("per_page"), "{p:?}");
    assert_eq!(found.pagination, declared.pagination);
    assert_eq!(found.input_schema, declared.input_schema);
    assert_eq!(found.output_schema, declared.output_schema);
    // `before`, the other cursor only the header gives, is not offered to the model.
    assert_eq!(found.hidden.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), ["before"]);
    assert!(found.input_schema["properties"].get("before").is_none());
    // The result is the upstream's array under `items`, beside the handle.
    let out = found.output_schema.as_ref().unwrap();
    assert_eq!(out["properties"]["items"]["type"], "array");
    assert_eq!(out["properties"]["next_cursor"]["type"], json!(["string", "null"]));
    assert_eq!(out["required"], json!(["items", "next_cursor"]));
    // `next` beside `link_header` is a located warning; detection off keeps the spec's cursor.
    let (_, warnings) = events_tool(
        "mcp-gen: 1\ntools:\n  list_invoice_events:\n    operation: GET /v1/invoices/{invoice_id}/events\n    paginate: { cursor: after, next: /next_cursor, link_header: true }\n",
    );
    assert!(warnings.iter().any(|w| w.contains("paginate.next of `list_invoice_events` is ignored")), "{warnings:?}");
    let (off, _) = events_tool("mcp-gen: 1\ndefaults: { detect_pagination: false }\n");
    assert!(off.pagination.is_none());
    assert_eq!(off.input_schema["properties"]["before"]["type"], "string");
}

/// The (cursor argument, arguments the model sees) found for `GET /things` with these query
/// parameters (name, type, description) and this result, when its pages are in the Link header.
fn linked(params: &[(&str, &str, &str)], result: Value) -> Option<(String, Vec<String>)> {
    let ps: Vec<Value> = params
        .iter()
        .map(|(n, t, d)| json!({"name": n, "in": "query", "description": d, "schema": {"type": t}}))
        .collect();
    let tool = list_things(Value::Array(ps), result);
    let p = tool.planned.pagination.clone().filter(|p| p.link)?;
    Some((p.cursor, tool.args.iter().map(|a| a.name.clone()).collect()))
}

#[test]
fn link_header_cursors_are_found_where_the_spec_points_there_and_nowhere_else() {
    let array = json!({"type": "array", "items": {"type": "object"}});
    let github = "A cursor, as given in the [Link header](https://docs.github.com/rest). Only results after it.";
    let got = |cursor: &str, args: &[&str]| Some((cursor.to_owned(), args.iter().map(|a| (*a).to_owned()).collect()));
    // GitHub (the backward cursor leaves the model's view), its deliveries ("Refer to the
    // `link` header" in a later sentence), Mastodon, Meraki.
    assert_eq!(
        linked(
            &[("before", "string", github), ("after", "string", github), ("per_page", "integer", "")],
            array.clone()
        ),
        got("after", &["after", "per_page"])
    );
    let deliveries =
        "The starting delivery of the page. Refer to the `link` header for the next and previous page cursors.";
    assert_eq!(linked(&[("cursor", "string", deliveries)], array.clone()), got("cursor", &["cursor"]));
    let mastodon = "Internal parameter. Use HTTP `Link` header for pagination.";
    assert_eq!(
        linked(&[("max_id", "string", mastodon), ("since_id", "string", mastodon)], array.clone()),
        got("max_id", &["max_id"])
    );
    let meraki = "A token used by the server to indicate the start of the page. The link in the HTTP Link header should define it.";
    assert_eq!(
        linked(&[("startingAfter", "string", meraki), ("endingBefore", "string", meraki)], array.clone()),
        got("startingAfter", &["startingAfter"])
    );
    // Not: an object result, no mention of the header (or "linked" words), an integer page,
    // only a backward cursor, two forward ones.
    let object = json!({"type": "object", "properties": {"data": array}});
    assert_eq!(linked(&[("after", "string", github)], object), None);
    assert_eq!(linked(&[("after", "string", "A cursor.")], array.clone()), None);
    assert_eq!(linked(&[("after", "string", "Items linked to this header image.")], array.clone()), None);
    assert_eq!(linked(&[("page", "integer", github)], array.clone()), None);
    assert_eq!(linked(&[("before", "string", github)], array.clone()), None);
    assert_eq!(linked(&[("after", "string", github), ("cursor", "string", github)], array), None);
}
