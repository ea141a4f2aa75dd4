//! Retry safety for side-effecting tools (CONTRACT R1–R5): the key a call carries or the server
//! derives, the reservation before the call, and byte-identical replay after it.
//!
//! What is remembered: a success, and every failure the upstream decided (a 4xx other than 408
//! and 429, or any error whose `retryable` is false) — a repeat gets the same answer. What is
//! forgotten, so that a retry runs the call again: failures marked `retryable` (the upstream was
//! unreachable, timed out, was rate-limited or answered 5xx). The key is forwarded upstream, so a
//! key-honouring upstream dedupes such a retry if the first attempt did land.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolResult, MetaObject};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::decl::{KeyDecl, KeySource, Window};
use crate::error::{ToolError, codes};
use crate::store::{AuditRow, Claim, Reservation, Scope, Store, StoreError, now_ms};

/// `_meta` key that marks a replayed result (R3: the result itself is unchanged).
pub const REPLAY_META: &str = "dev.mcp-gen/idempotency";

/// A call's key, resolved.
#[derive(Debug, Clone)]
pub struct Keyed {
    pub scope: Scope,
    pub fingerprint: String,
    pub ttl_ms: i64,
    /// A derived (natural) key, forwarded upstream in this header.
    pub forward: Option<(&'static str, String)>,
}

/// The store, and how long an owner is presumed alive and a repeat waits.
#[derive(Clone)]
pub struct Guard {
    store: Arc<dyn Store>,
    lease_ms: i64,
    wait: Duration,
}

/// What to do with a call after its reservation.
pub enum Begin {
    /// Run the call, then `finish` it.
    Run {
        owner: String,
    },
    /// The first call's result, as first sent, marked as a replay in `_meta`.
    Replay(CallToolResult),
    Refuse(ToolError),
}

impl Guard {
    /// `lease` should outlast the upstream timeout, so a live owner never loses its record.
    pub fn new(store: Arc<dyn Store>, lease: Duration, wait: Duration) -> Self {
        Guard { store, lease_ms: i64::try_from(lease.as_millis()).unwrap_or(i64::MAX), wait }
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Reserves the key, or waits (bounded) for a concurrent owner and replays its result.
    pub async fn begin(&self, keyed: &Keyed) -> Begin {
        let owner = uuid::Uuid::new_v4().simple().to_string();
        let deadline = tokio::time::Instant::now() + self.wait;
        let mut pause = Duration::from_millis(10);
        loop {
            let now = now_ms();
            let reservation = Reservation {
                scope: keyed.scope.clone(),
                fingerprint: keyed.fingerprint.clone(),
                owner: owner.clone(),
                now_ms: now,
                lease_until_ms: now.saturating_add(self.lease_ms),
                expires_ms: now.saturating_add(keyed.ttl_ms.max(self.lease_ms)),
            };
            let claim = match self.store.reserve(&reservation).await {
                Ok(c) => c,
                Err(e) => return Begin::Refuse(unavailable(&e)),
            };
            match claim {
                Claim::Owned => return Begin::Run { owner },
                Claim::Completed { fingerprint, .. } | Claim::InProgress { fingerprint, .. }
                    if fingerprint != keyed.fingerprint =>
                {
                    return Begin::Refuse(reused(&keyed.scope.key));
                }
                Claim::Completed { result, .. } => {
                    return match serde_json::from_str::<CallToolResult>(&result) {
                        Ok(r) => Begin::Replay(mark_replay(r)),
                        Err(e) => Begin::Refuse(ToolError::internal(format!("a stored result does not parse: {e}"))),
                    };
                }
                Claim::InProgress { lease_until_ms, .. } => {
                    let now_instant = tokio::time::Instant::now();
                    if now_instant >= deadline {
                        let left = u64::try_from(lease_until_ms.saturating_sub(now_ms())).unwrap_or(0);
                        return Begin::Refuse(in_progress(left.clamp(100, 2_000)));
                    }
                    tokio::time::sleep(pause.min(deadline - now_instant)).await;
                    pause = (pause * 2).min(Duration::from_millis(200));
                }
            }
        }
    }

    /// Records the outcome of an owned call: stored for replay, or forgotten when a retry may
    /// succeed; with `audit`, the call's audit row is written too, in the same commit as the
    /// record where the store can. A store failure here is logged: the call already happened,
    /// and its answer still goes to the caller.
    pub async fn finish(
        &self,
        keyed: &Keyed,
        owner: &str,
        result: &CallToolResult,
        retryable: bool,
        audit: Option<&AuditRow>,
    ) {
        let tool = &keyed.scope.tool;
        let text = match (retryable, serde_json::to_string(result)) {
            (true, _) => None,
            (false, Ok(text)) => Some(text),
            (false, Err(e)) => {
                tracing::error!(error = %e, "cannot serialise a result for replay");
                None
            }
        };
        let Some(text) = text else {
            if retryable && let Err(e) = self.store.release(&keyed.scope, owner).await {
                tracing::warn!(error = %e, tool = %tool, "cannot release an idempotency record");
            }
            if let Some(row) = audit
                && let Err(e) = self.store.audit(row).await
            {
                tracing::warn!(error = %e, tool = %tool, "cannot write the audit row");
            }
            return;
        };
        let expires = now_ms().saturating_add(keyed.ttl_ms);
        let stored = match audit {
            Some(row) => self.store.complete_audited(&keyed.scope, owner, &text, expires, row).await,
            None => self.store.complete(&keyed.scope, owner, &text, expires).await,
        };
        match stored {
            Ok(true) => {}
            Ok(false) => tracing::warn!(tool = %tool, "idempotency record taken over after its lease lapsed"),
            Err(e) => tracing::warn!(error = %e, tool = %tool, "cannot store a result for replay"),
        }
    }
}

fn mark_replay(mut result: CallToolResult) -> CallToolResult {
    let mut meta = result.meta.take().unwrap_or_default();
    meta.0.insert(REPLAY_META.to_owned(), json!({"replayed": true}));
    result.meta = Some(meta);
    result
}

/// Adds `extra` to a result's `_meta`, keeping what is there.
pub fn merge_meta(result: &mut CallToolResult, extra: &MetaObject) {
    let mut meta = result.meta.take().unwrap_or_default();
    for (k, v) in &extra.0 {
        meta.0.entry(k.clone()).or_insert_with(|| v.clone());
    }
    result.meta = Some(meta);
}

fn unavailable(e: &StoreError) -> ToolError {
    tracing::error!(error = %e, "idempotency store unavailable");
    ToolError::new(
        codes::UNAVAILABLE,
        "the server cannot record this call's idempotency key right now, so it did not run it",
        "Retry the same call with the same idempotency_key shortly.",
    )
    .retryable(Some(1000))
}

pub(crate) fn reused(key: &str) -> ToolError {
    ToolError::new(
        codes::IDEMPOTENCY_KEY_REUSED,
        format!("idempotency_key \"{key}\" was already used for a call with other arguments"),
        "Use a new idempotency_key for a new intent; reuse a key only to retry the identical call.",
    )
    .field("idempotency_key")
}

pub(crate) fn in_progress(after_ms: u64) -> ToolError {
    ToolError::new(
        codes::IN_PROGRESS,
        "the first call with this idempotency_key is still running",
        "Wait, then retry the same call with the same idempotency_key to get its result.",
    )
    .retryable(Some(after_ms))
}

/// The key of one call, or `None` when the tool has none or the caller key is absent (the schema
/// requires it, so absence means a tool generated without it).
pub fn resolve(
    tool: &'static str,
    decl: &KeyDecl,
    args: &Map<String, Value>,
    caller: &str,
    now_ms: i64,
) -> Option<Keyed> {
    let ttl_ms = i64::try_from(decl.ttl_secs.saturating_mul(1000)).unwrap_or(i64::MAX);
    let (key, forward, fingerprint) = match decl.source {
        KeySource::Caller { arg } => {
            let key = args.get(arg)?.as_str()?.to_owned();
            let mut rest = args.clone();
            rest.remove(arg);
            (key, None, digest(&canonical(&Value::Object(rest))))
        }
        KeySource::Natural { fields, window } => {
            let values: Vec<Value> = fields.iter().map(|f| args.get(*f).cloned().unwrap_or(Value::Null)).collect();
            let bucket = bucket(window, now_ms);
            let key = format!("n-{}", &digest(&format!("{}|{bucket}", canonical(&Value::Array(values))))[..32]);
            let forward = decl.forward_header.map(|h| (h, key.clone()));
            (key, forward, digest(&canonical(&Value::Object(args.clone()))))
        }
    };
    Some(Keyed { scope: Scope { tool: tool.to_owned(), caller: caller.to_owned(), key }, fingerprint, ttl_ms, forward })
}

/// Which window `now_ms` falls in.
fn bucket(window: Window, now_ms: i64) -> i64 {
    match window {
        Window::Seconds(s) => now_ms.div_euclid(i64::try_from(s.max(1)).unwrap_or(i64::MAX).saturating_mul(1000)),
        Window::Day { offset_minutes } => (now_ms + i64::from(offset_minutes) * 60_000).div_euclid(86_400_000),
    }
}

/// JSON with object keys sorted at every level: the same arguments in any order digest the same.
pub fn canonical(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&m[k]))).collect())
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(v).to_string()
}

pub fn digest(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let hash = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(hash.len() * 2);
    for b in hash {
        out.push(HEX[usize::from(b >> 4)] as char);
        out.push(HEX[usize::from(b & 15)] as char);
    }
    out
}

/// Who is calling: a digest of the inbound credentials, so keys of one caller never collide with
/// another's and no secret is stored.
pub fn caller_identity(authorization: Option<&str>) -> String {
    match authorization {
        Some(a) if !a.is_empty() => format!("sha256:{}", &digest(a)[..32]),
        _ => "anonymous".to_owned(),
    }
}

/// Argument names whose values never reach the audit log: anywhere in the name…
const SECRET_PARTS: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "authorization",
    "credential",
    "private_key",
    "card_number",
    "cardnumber",
];
/// …or as a whole word of it (`pin` must not catch `shipping`).
const SECRET_WORDS: &[&str] = &["pin", "ssn", "cvc", "cvv"];

fn is_secret(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower != "idempotency_key"
        && (SECRET_PARTS.iter().any(|s| lower.contains(s))
            || lower.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| SECRET_WORDS.contains(&w)))
}

/// The arguments with secret-looking fields replaced, at any depth (O1, O3).
pub fn redact(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    (k.clone(), if is_secret(k) { Value::String("[redacted]".to_owned()) } else { redact(v) })
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(redact).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_ignores_key_order() {
        let a = json!({"b": 1, "a": {"y": [1, {"q": 1, "p": 2}], "x": null}});
        let b = json!({"a": {"x": null, "y": [1, {"p": 2, "q": 1}]}, "b": 1});
        assert_eq!(canonical(&a), canonical(&b));
        assert_ne!(canonical(&json!([1, 2])), canonical(&json!([2, 1])));
    }

    #[test]
    fn caller_keys_exclude_the_key_from_the_fingerprint() {
        let decl = KeyDecl { source: KeySource::Caller { arg: "idempotency_key" }, ttl_secs: 60, forward_header: None };
        let mut args = json!({"amount": 5, "idempotency_key": "k1"}).as_object().cloned().unwrap_or_default();
        let first = resolve("t", &decl, &args, "c", 0).map(|k| k.fingerprint);
        args.insert("idempotency_key".into(), json!("k2"));
        let second = resolve("t", &decl, &args, "c", 0).map(|k| k.fingerprint);
        assert_eq!(first, second);
        args.remove("idempotency_key");
        assert!(resolve("t", &decl, &args, "c", 0).is_none());
    }

    #[test]
    fn natural_keys_change_with_the_window() {
        let decl = KeyDecl {
            source: KeySource::Natural { fields: &["account"], window: Window::Day { offset_minutes: 180 } },
            ttl_secs: 86_400,
            forward_header: Some("Idempotency-Key"),
        };
        let args = json!({"account": "a1", "amount": 5}).as_object().cloned().unwrap_or_default();
        let day = 86_400_000;
        // 20:00 and 20:59 UTC are the same Istanbul day; 21:00 UTC is the next one.
        let at = |ms: i64| resolve("t", &decl, &args, "c", ms).map(|k| k.scope.key);
        assert_eq!(at(day + 20 * 3_600_000), at(day + 20 * 3_600_000 + 59 * 60_000));
        assert_ne!(at(day + 20 * 3_600_000), at(day + 21 * 3_600_000));
        let other = json!({"account": "a2", "amount": 5}).as_object().cloned().unwrap_or_default();
        assert_ne!(at(day), resolve("t", &decl, &other, "c", day).map(|k| k.scope.key));
    }

    #[test]
    fn secrets_are_redacted_at_any_depth() {
        let v = redact(&json!({"shipping": "x", "auth": {"api_key": "s", "card_pin": "1"}, "idempotency_key": "k"}));
        assert_eq!(
            v,
            json!({"shipping": "x", "auth": {"api_key": "[redacted]", "card_pin": "[redacted]"}, "idempotency_key": "k"})
        );
    }
}
