//! The idempotency store's semantics (CONTRACT R3–R5), one suite run against both backends:
//! SQLite (a temporary file) and PostgreSQL (127.0.0.1:5432, database `test`, a schema of its
//! own per run). Then the guard on top: concurrent identical calls run once, a reused key with
//! other arguments is refused, a replay is byte-identical, an expired key runs again.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_gen_runtime::decl::{KeyDecl, KeySource};
use mcp_gen_runtime::idempotency::{self, Begin, Guard};
use mcp_gen_runtime::store::{self, AuditRow, Claim, Reservation, Scope, Store};
use rmcp::model::CallToolResult;
use serde_json::{Map, Value, json};

const PG: &str = "postgres://postgres@127.0.0.1:5432/test";

/// A PostgreSQL store in a fresh schema, dropped by the returned guard's owner at the end.
async fn postgres() -> (Arc<dyn Store>, String) {
    let schema = format!("mcpgen_t_{}", uuid_like());
    let (client, conn) =
        tokio_postgres::connect(PG, tokio_postgres::NoTls).await.expect("PostgreSQL on 127.0.0.1:5432");
    tokio::spawn(conn);
    client.batch_execute(&format!("CREATE SCHEMA {schema}")).await.unwrap();
    let url = format!("{PG}?options=-csearch_path%3D{schema}");
    (store::open(&url).await.unwrap(), schema)
}

async fn drop_schema(schema: &str) {
    let (client, conn) = tokio_postgres::connect(PG, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    client.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
}

fn uuid_like() -> String {
    format!("{:x}{:x}", std::process::id(), store::now_ms()) + &format!("{:x}", rand_ish())
}

fn rand_ish() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(store::now_ms() as u64);
    h.finish()
}

fn scope(key: &str) -> Scope {
    Scope { tool: "create_invoice".into(), caller: "anonymous".into(), key: key.into() }
}

fn reservation(key: &str, fingerprint: &str, owner: &str, now: i64, lease: i64, ttl: i64) -> Reservation {
    Reservation {
        scope: scope(key),
        fingerprint: fingerprint.into(),
        owner: owner.into(),
        now_ms: now,
        lease_until_ms: now + lease,
        expires_ms: now + ttl,
    }
}

/// The store-level suite both backends pass.
async fn suite(store: Arc<dyn Store>) {
    let t0 = store::now_ms();
    // First reservation owns the key; a second one sees it in progress.
    assert_eq!(store.reserve(&reservation("k1", "f1", "a", t0, 10_000, 60_000)).await.unwrap(), Claim::Owned);
    match store.reserve(&reservation("k1", "f1", "b", t0 + 1, 10_000, 60_000)).await.unwrap() {
        Claim::InProgress { fingerprint, lease_until_ms } => {
            assert_eq!(fingerprint, "f1");
            assert_eq!(lease_until_ms, t0 + 10_000);
        }
        other => panic!("expected in progress, got {other:?}"),
    }
    // Completion stores the result exactly; a later reservation gets it back byte for byte.
    let result = r#"{"content":[{"type":"text","text":"{\"id\":\"inv_1\",\"amount\":1.10}"}],"isError":false}"#;
    assert!(store.complete(&scope("k1"), "a", result, t0 + 60_000).await.unwrap());
    assert!(!store.complete(&scope("k1"), "b", "other", t0 + 60_000).await.unwrap(), "only the owner completes");
    assert_eq!(
        store.reserve(&reservation("k1", "f2", "c", t0 + 2, 10_000, 60_000)).await.unwrap(),
        Claim::Completed { fingerprint: "f1".into(), result: result.into() }
    );

    // A lapsed lease is taken over by a repeat of the same call, never by another call.
    assert_eq!(store.reserve(&reservation("k2", "f1", "a", t0, 100, 60_000)).await.unwrap(), Claim::Owned);
    assert!(matches!(
        store.reserve(&reservation("k2", "f9", "b", t0 + 200, 100, 60_000)).await.unwrap(),
        Claim::InProgress { .. }
    ));
    assert_eq!(store.reserve(&reservation("k2", "f1", "b", t0 + 200, 100, 60_000)).await.unwrap(), Claim::Owned);
    assert!(!store.complete(&scope("k2"), "a", "late", t0 + 60_000).await.unwrap(), "the old owner lost the record");

    // Release forgets an owned record (a retryable failure); a retry owns it again.
    assert_eq!(store.reserve(&reservation("k3", "f1", "a", t0, 10_000, 60_000)).await.unwrap(), Claim::Owned);
    store.release(&scope("k3"), "b").await.unwrap();
    assert!(matches!(
        store.reserve(&reservation("k3", "f1", "x", t0, 10_000, 60_000)).await.unwrap(),
        Claim::InProgress { .. }
    ));
    store.release(&scope("k3"), "a").await.unwrap();
    assert_eq!(store.reserve(&reservation("k3", "f1", "b", t0 + 1, 10_000, 60_000)).await.unwrap(), Claim::Owned);

    // Expiry (R5): an expired record is a new key, whatever it held; the sweep deletes it.
    assert_eq!(store.reserve(&reservation("k4", "f1", "a", t0, 10, 50)).await.unwrap(), Claim::Owned);
    assert!(store.complete(&scope("k4"), "a", "first", t0 + 50).await.unwrap());
    assert_eq!(store.reserve(&reservation("k4", "f2", "b", t0 + 51, 10, 50)).await.unwrap(), Claim::Owned);
    assert!(store.complete(&scope("k4"), "b", "second", t0 + 100).await.unwrap());
    assert_eq!(store.sweep(t0 + 99).await.unwrap(), 0);
    assert!(store.sweep(t0 + 100).await.unwrap() >= 1);
    assert_eq!(store.reserve(&reservation("k4", "f2", "c", t0 + 101, 10, 50)).await.unwrap(), Claim::Owned);

    // Keys are scoped to tool and caller.
    let other_tool = Reservation {
        scope: Scope { tool: "void_invoice".into(), ..scope("k1") },
        ..reservation("k1", "f1", "z", t0, 10, 60_000)
    };
    assert_eq!(store.reserve(&other_tool).await.unwrap(), Claim::Owned);
    let other_caller = Reservation {
        scope: Scope { caller: "sha256:x".into(), ..scope("k1") },
        ..reservation("k1", "f1", "z", t0, 10, 60_000)
    };
    assert_eq!(store.reserve(&other_caller).await.unwrap(), Claim::Owned);

    // Uniqueness lives in the store (R4): of 32 concurrent reservations exactly one wins.
    let mut tasks = Vec::new();
    for i in 0..32 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store.reserve(&reservation("race", "f1", &format!("o{i}"), t0, 10_000, 60_000)).await.unwrap()
        }));
    }
    let mut owned = 0;
    for t in tasks {
        if t.await.unwrap() == Claim::Owned {
            owned += 1;
        }
    }
    assert_eq!(owned, 1);

    store
        .audit(&AuditRow {
            at_ms: t0,
            instance: "i".into(),
            request_id: "1".into(),
            caller: "anonymous".into(),
            tool: "create_invoice".into(),
            key: Some("k1".into()),
            arguments: "{}".into(),
            outcome: "ok".into(),
            replayed: false,
            duration_ms: 3,
        })
        .await
        .unwrap();
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

const KEY: KeyDecl =
    KeyDecl { source: KeySource::Caller { arg: "idempotency_key" }, ttl_secs: 1, forward_header: None };

/// The guard on top of a store: what the handler does around an upstream call.
async fn guard_suite(store: Arc<dyn Store>) {
    let guard = Guard::new(store, Duration::from_secs(5), Duration::from_secs(5));
    let effects = Arc::new(AtomicUsize::new(0));
    let call = |guard: Guard, effects: Arc<AtomicUsize>, a: Map<String, Value>| async move {
        let keyed = idempotency::resolve("create_invoice", &KEY, &a, "anonymous", store::now_ms()).unwrap();
        match guard.begin(&keyed).await {
            Begin::Run { owner } => {
                let n = effects.fetch_add(1, Ordering::SeqCst) + 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
                let result = CallToolResult::structured(json!({"invoice": format!("inv_{n}"), "total": 0.1 + 0.2}));
                let text = serde_json::to_string(&result).unwrap();
                guard.finish(&keyed, &owner, &result, false, None).await;
                (text, false)
            }
            Begin::Replay(mut r) => {
                assert_eq!(r.meta.as_ref().unwrap().0[idempotency::REPLAY_META]["replayed"], true);
                r.meta = None;
                (serde_json::to_string(&r).unwrap(), true)
            }
            Begin::Refuse(e) => (serde_json::to_string(&e).unwrap(), false),
        }
    };
    // Eight concurrent identical calls: one side effect, seven byte-identical replays.
    let a = args(json!({"customer": "c1", "amount": 5, "idempotency_key": "intent-1"}));
    let mut tasks = Vec::new();
    for _ in 0..8 {
        tasks.push(tokio::spawn(call(guard.clone(), effects.clone(), a.clone())));
    }
    let mut outs = Vec::new();
    for t in tasks {
        outs.push(t.await.unwrap());
    }
    assert_eq!(effects.load(Ordering::SeqCst), 1);
    assert_eq!(outs.iter().filter(|(_, replayed)| *replayed).count(), 7);
    assert!(outs.iter().all(|(text, _)| *text == outs[0].0), "{outs:?}");
    // The same arguments in another order are the same intent.
    let reordered = args(json!({"idempotency_key": "intent-1", "amount": 5, "customer": "c1"}));
    let (text, replayed) = call(guard.clone(), effects.clone(), reordered).await;
    assert!(replayed);
    assert_eq!(text, outs[0].0);
    // The same key with other arguments is a new intent under an old key: refused.
    let (text, _) = call(
        guard.clone(),
        effects.clone(),
        args(json!({"customer": "c1", "amount": 6, "idempotency_key": "intent-1"})),
    )
    .await;
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body["code"], "idempotency_key_reused");
    assert_eq!(body["retryable"], false);
    assert_eq!(body["field"], "idempotency_key");
    assert_eq!(effects.load(Ordering::SeqCst), 1);
    // After the TTL (1 s here) the key is forgotten: the call runs again.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let (_, replayed) = call(guard.clone(), effects.clone(), a.clone()).await;
    assert!(!replayed);
    assert_eq!(effects.load(Ordering::SeqCst), 2);

    // A retryable failure is not remembered: the retry runs the call again.
    let b = args(json!({"customer": "c2", "idempotency_key": "intent-2"}));
    let keyed = idempotency::resolve("create_invoice", &KEY, &b, "anonymous", store::now_ms()).unwrap();
    let Begin::Run { owner } = guard.begin(&keyed).await else { panic!("fresh key") };
    let failed = mcp_gen_runtime::error::ToolError::new("upstream_unavailable", "down", "Retry.").retryable(Some(10));
    guard.finish(&keyed, &owner, &failed.into_result(), true, None).await;
    assert!(matches!(guard.begin(&keyed).await, Begin::Run { .. }));
    // A definitive failure is: the retry gets the same error.
    let c = args(json!({"customer": "c3", "idempotency_key": "intent-3"}));
    let keyed = idempotency::resolve("create_invoice", &KEY, &c, "anonymous", store::now_ms()).unwrap();
    let Begin::Run { owner } = guard.begin(&keyed).await else { panic!("fresh key") };
    let rejected = mcp_gen_runtime::error::ToolError::new("invalid_argument", "no such customer", "Check it.");
    guard.finish(&keyed, &owner, &rejected.into_result(), false, None).await;
    match guard.begin(&keyed).await {
        Begin::Replay(r) => assert_eq!(r.is_error, Some(true)),
        _ => panic!("a definitive failure is replayed"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_store() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("store.db").display());
    suite(store::open(&url).await.unwrap()).await;
    let url = format!("sqlite://{}", dir.path().join("guard.db").display());
    guard_suite(store::open(&url).await.unwrap()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_store() {
    let (store, schema) = postgres().await;
    suite(store).await;
    drop_schema(&schema).await;
    let (store, schema) = postgres().await;
    guard_suite(store).await;
    drop_schema(&schema).await;
}

#[tokio::test]
async fn bad_store_urls_say_what_is_expected() {
    let e = store::open("mysql://x").await.err().unwrap().to_string();
    assert!(e.contains("sqlite://FILE"), "{e}");
    let e = store::open("sqlite:///no/such/dir/x.db").await.err().unwrap().to_string();
    assert!(e.contains("/no/such/dir/x.db"), "{e}");
}
