//! Next-page handles (CONTRACT H1–H5): the upstream's cursor never reaches the model as it is.
//! The server hands out `h1_…` instead, an opaque, versioned, size-capped token signed with
//! HMAC-SHA256 that binds the cursor to the tool, the caller (a digest of its identity) and an
//! expiry. A handle comes back as the tool's cursor argument and is opened again: one the
//! server did not sign, or signed for another tool or caller, is refused without saying which (a
//! handle is not authority, H4); an expired one is `handle_expired` with a way to start over (H3).
//! Handles live in no store: replicas that share the key (`<PREFIX>_HANDLE_KEY`) open each
//! other's, and a restart with the same key keeps them valid (M2).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Map, Value, json};
use sha2::Sha256;

use crate::decl::{HandleDecl, ToolDecl};
use crate::error::{ToolError, codes};

/// The version prefix every handle starts with.
const PREFIX: &str = "h1_";
/// Bytes of the HMAC tag a handle carries (128 bits).
const TAG: usize = 16;
/// The longest handle the server hands out or takes (the cursor argument's `maxLength`).
pub const MAX_LEN: usize = 2048;

/// The key handles are signed with.
#[derive(Clone)]
pub struct HandleKey(Vec<u8>);

impl std::fmt::Debug for HandleKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HandleKey(..)")
    }
}

impl HandleKey {
    /// A key from configuration: at least 32 bytes of text.
    pub fn from_secret(secret: &str) -> Result<Self, String> {
        if secret.len() < 32 {
            return Err(format!("a handle key needs at least 32 characters (got {})", secret.len()));
        }
        Ok(HandleKey(secret.as_bytes().to_vec()))
    }

    /// A key of this process alone: its handles die with it.
    pub fn random() -> Self {
        let mut key = Vec::with_capacity(32);
        key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
        key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
        HandleKey(key)
    }

    /// A key for another purpose (`purpose` names it), derived from this one: replicas sharing
    /// the handle key share it too.
    pub(crate) fn derive(&self, purpose: &str) -> Vec<u8> {
        self.tag_full(purpose.as_bytes())
    }

    fn tag_full(&self, payload: &[u8]) -> Vec<u8> {
        self.mac(payload).map(|m| m.finalize().into_bytes().to_vec()).unwrap_or_else(|| self.0.clone())
    }

    /// The MAC of `payload`; HMAC takes keys of any length, so there is always one.
    fn mac(&self, payload: &[u8]) -> Option<Hmac<Sha256>> {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0).ok()?;
        mac.update(payload);
        Some(mac)
    }

    fn tag(&self, payload: &[u8]) -> Vec<u8> {
        self.mac(payload).map(|m| m.finalize().into_bytes()[..TAG].to_vec()).unwrap_or_default()
    }

    fn verify(&self, payload: &[u8], tag: &[u8]) -> bool {
        tag.len() == TAG && self.mac(payload).is_some_and(|m| m.verify_truncated_left(tag).is_ok())
    }
}

/// What a handle stands for.
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    /// The upstream's cursor, as the upstream returned it (`null`: the first page).
    pub cursor: Value,
    /// Items of that page already shown: a page cut to fit the result budget goes on here.
    pub skip: usize,
}

/// What a handle says of its caller: a digest. Handles are signed, not encrypted: their holder
/// can read them, and the only other thing in them is the upstream's own cursor, which carries
/// no credential (a next link's credentials are withheld, H2). The caller's identity (a token's
/// issuer and subject) is not the holder's to read in a value that may end up in a transcript.
fn bound_caller(caller: &str) -> String {
    crate::idempotency::digest(caller)[..32].to_owned()
}

/// Signs `cursor` for `tool` and `caller`, valid until `expires_ms`.
pub fn mint(key: &HandleKey, tool: &str, caller: &str, expires_ms: u64, cursor: &Value) -> Result<String, ToolError> {
    seal(key, json!({"t": tool, "c": bound_caller(caller), "e": expires_ms / 1000, "v": cursor}))
}

/// Signs the rest of a page cut to fit the result budget: the page's own cursor (`null` for the
/// first page) and how many of its items were shown.
pub fn mint_continuation(
    key: &HandleKey,
    tool: &str,
    caller: &str,
    expires_ms: u64,
    cursor: &Value,
    skip: usize,
) -> Result<String, ToolError> {
    seal(key, json!({"t": tool, "c": bound_caller(caller), "e": expires_ms / 1000, "v": cursor, "s": skip}))
}

fn seal(key: &HandleKey, payload: Value) -> Result<String, ToolError> {
    let payload = payload.to_string();
    let tag = key.tag(payload.as_bytes());
    let handle = format!("{PREFIX}{}.{}", URL_SAFE_NO_PAD.encode(payload), URL_SAFE_NO_PAD.encode(tag));
    if handle.len() > MAX_LEN {
        return Err(ToolError::new(
            codes::UPSTREAM_ERROR,
            format!(
                "the upstream's cursor or address is too long to hand out as a handle ({} characters)",
                handle.len()
            ),
            "Narrow the request (filters, a smaller limit) and call again, or ask the server operator.",
        ));
    }
    Ok(handle)
}

/// Opens a handle `tool` handed out to `caller`; `arg` is the argument it came in (for errors).
pub fn open(
    key: &HandleKey,
    tool: &str,
    caller: &str,
    now_ms: u64,
    arg: &str,
    handle: &str,
) -> Result<Opened, ToolError> {
    let refused = || {
        ToolError::new(
            codes::INVALID_ARGUMENT,
            format!("invalid argument {arg}: not a handle {tool} returned to this caller"),
            format!(
                "Pass the next-page value of {tool}'s previous result exactly as returned, or call {tool} without {arg} for the first page; do not build or edit handles."
            ),
        )
        .field(arg)
    };
    let expired = || {
        ToolError::new(
            codes::HANDLE_EXPIRED,
            format!("the handle in {arg} expired; the pages it led to are no longer held"),
            format!("Call {tool} again without {arg} to start from the first page, then follow the new handles."),
        )
        .field(arg)
    };
    let fields = open_with(key, tool, caller, now_ms, handle, refused, expired)?;
    let skip = fields.get("s").and_then(Value::as_u64).and_then(|s| usize::try_from(s).ok()).unwrap_or(0);
    Ok(Opened { cursor: fields.get("v").cloned().unwrap_or(Value::Null), skip })
}

/// Opens a handle minted for `tool` and `caller`: its fields (`v` the value it holds, `s` a cut
/// page's items shown), or the error `refused` makes (not a handle, or another tool's or
/// caller's: alike, H4) or `expired` makes.
pub fn open_with(
    key: &HandleKey,
    tool: &str,
    caller: &str,
    now_ms: u64,
    handle: &str,
    refused: impl Fn() -> ToolError,
    expired: impl FnOnce() -> ToolError,
) -> Result<Map<String, Value>, ToolError> {
    let body = handle.strip_prefix(PREFIX).filter(|_| handle.len() <= MAX_LEN).ok_or_else(&refused)?;
    let (payload, tag) = body.split_once('.').ok_or_else(&refused)?;
    let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| refused())?;
    let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| refused())?;
    if !key.verify(&payload, &tag) {
        return Err(refused());
    }
    let fields: Map<String, Value> = serde_json::from_slice(&payload).map_err(|_| refused())?;
    // Another tool's or another caller's handle reads exactly like a forged one (H4).
    if fields.get("t").and_then(Value::as_str) != Some(tool)
        || fields.get("c").and_then(Value::as_str) != Some(bound_caller(caller).as_str())
    {
        return Err(refused());
    }
    let expires = fields.get("e").and_then(Value::as_u64).ok_or_else(&refused)?;
    if now_ms / 1000 >= expires {
        return Err(expired());
    }
    Ok(fields)
}

/// A call's arguments with the handle in the cursor argument opened to the upstream's cursor;
/// the number of that page's items already shown (0 but for the rest of a cut page).
pub fn open_arguments(
    key: &HandleKey,
    tool: &ToolDecl,
    caller: &str,
    now_ms: u64,
    args: &mut Map<String, Value>,
) -> Result<usize, ToolError> {
    let Some(h) = &tool.handle else { return Ok(0) };
    let Some(given) = args.get(h.cursor) else { return Ok(0) };
    let Some(text) = given.as_str() else { return Ok(0) };
    let opened = open(key, tool.name, caller, now_ms, h.cursor, text)?;
    // The rest of a cut first page is the first page again: no cursor.
    if opened.cursor.is_null() {
        args.remove(h.cursor);
    } else {
        args.insert(h.cursor.to_owned(), opened.cursor);
    }
    Ok(opened.skip)
}

/// The result with the upstream's next cursor (at `next`) replaced by a handle; `null` or a
/// missing cursor (the last page, H5) stays as it is.
pub fn mint_in_result(
    key: &HandleKey,
    tool: &str,
    h: &HandleDecl,
    caller: &str,
    now_ms: u64,
    result: &mut Value,
) -> Result<(), ToolError> {
    let Some(slot) = result.pointer_mut(h.next) else { return Ok(()) };
    if slot.is_null() || slot.as_str() == Some("") {
        return Ok(());
    }
    let expires = now_ms.saturating_add(h.ttl_secs.saturating_mul(1000));
    *slot = Value::String(mint(key, tool, caller, expires, slot)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_800_000_000_000;

    fn key() -> HandleKey {
        HandleKey::from_secret("0123456789abcdef0123456789abcdef").unwrap()
    }

    #[test]
    fn a_handle_opens_for_its_tool_and_caller_until_it_expires() {
        let h = mint(&key(), "list_invoices", "sha256:ab", NOW + 60_000, &json!("cur_2")).unwrap();
        assert!(h.starts_with("h1_"), "{h}");
        assert!(!h.contains("cur_2"), "the cursor is not readable as it is: {h}");
        let opened = open(&key(), "list_invoices", "sha256:ab", NOW, "cursor", &h).unwrap();
        assert_eq!(opened.cursor, json!("cur_2"));
        let expired = open(&key(), "list_invoices", "sha256:ab", NOW + 60_000, "cursor", &h).unwrap_err();
        assert_eq!(expired.code, "handle_expired");
        assert!(!expired.retryable);
        assert!(expired.recovery.contains("without cursor to start"), "{}", expired.recovery);
    }

    #[test]
    fn forged_edited_and_foreign_handles_are_refused_alike() {
        let h = mint(&key(), "list_invoices", "sha256:ab", NOW + 60_000, &json!(2)).unwrap();
        let other_key = HandleKey::from_secret("another key, also 32 characters!").unwrap();
        let mut edited = h.clone();
        edited.insert(10, 'x');
        let forged = format!(
            "h1_{}.AAAA",
            URL_SAFE_NO_PAD.encode(r#"{"t":"list_invoices","c":"sha256:ab","e":9999999999,"v":3}"#)
        );
        for (case, key, tool, caller, handle) in [
            ("other key", &other_key, "list_invoices", "sha256:ab", h.as_str()),
            ("other tool", &key(), "list_customers", "sha256:ab", h.as_str()),
            ("other caller", &key(), "list_invoices", "sha256:cd", h.as_str()),
            ("edited", &key(), "list_invoices", "sha256:ab", edited.as_str()),
            ("forged", &key(), "list_invoices", "sha256:ab", forged.as_str()),
            ("not a handle", &key(), "list_invoices", "sha256:ab", "cur_2"),
        ] {
            let e = open(key, tool, caller, NOW, "cursor", handle).unwrap_err();
            assert_eq!(e.code, codes::INVALID_ARGUMENT, "{case}");
            assert_eq!(e.field.as_deref(), Some("cursor"), "{case}");
            // The same words whoever's handle it was (H4).
            assert_eq!(
                e.message,
                format!("invalid argument cursor: not a handle {tool} returned to this caller"),
                "{case}"
            );
        }
    }

    #[test]
    fn the_next_cursor_in_a_result_becomes_a_handle_and_null_stays() {
        let decl = HandleDecl { cursor: "cursor", next: "/next_cursor", ttl_secs: 900, link: false };
        let mut page = json!({"items": [1], "next_cursor": "cur_2"});
        mint_in_result(&key(), "list_invoices", &decl, "anonymous", NOW, &mut page).unwrap();
        let h = page["next_cursor"].as_str().unwrap().to_owned();
        assert_eq!(open(&key(), "list_invoices", "anonymous", NOW + 899_000, "cursor", &h).unwrap().cursor, "cur_2");
        assert_eq!(
            open(&key(), "list_invoices", "anonymous", NOW + 900_000, "cursor", &h).unwrap_err().code,
            "handle_expired"
        );
        let mut last = json!({"items": [], "next_cursor": null});
        mint_in_result(&key(), "list_invoices", &decl, "anonymous", NOW, &mut last).unwrap();
        assert_eq!(last["next_cursor"], Value::Null);
    }

    #[test]
    fn a_short_secret_is_refused() {
        assert!(HandleKey::from_secret("short").is_err());
    }
}
