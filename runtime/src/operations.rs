//! Long-running operations: an operation that answers `202 Accepted` with a `Location` runs on
//! after its call. The call answers `{"status": "working", "operation": <handle>, …}` and the
//! catalog's status tool (`LongRunning::Follows`) reads the `Location` again each time it is
//! given the handle: `working` while the upstream still answers `202`, else `completed` with the
//! answer (a redirect to the result is followed). Clients that declare the tasks extension
//! (2026-07-28) get the same as a task: the handle is the task id, `tasks/get` polls.
//!
//! The handle is signed like a next-page handle (H1, H4): bound to the status tool and the
//! caller, with the starting tool, the address and the start time inside, so no store holds
//! operations and every replica that shares the handle key follows them.

use rmcp::model::{CallToolResult, ContentBlock, CreateTaskResult, DetailedTask, Task, TaskPayload, TaskStatus};
use serde_json::{Map, Value, json};

use crate::error::{ToolError, codes};
use crate::handle::{self, HandleKey};
use crate::upstream::Answer;

/// How long an operation's handle stays valid (the compiler states it in the catalog).
pub const TTL_SECS: u64 = 24 * 3600;
/// How long to wait between polls when the upstream does not say (`Retry-After`).
const DEFAULT_POLL_MS: u64 = 2000;

/// What the `Location` of an operation says.
pub enum Progress {
    /// Still running; wait this long (the upstream's `Retry-After`) before asking again.
    Working { poll_after_ms: Option<u64> },
    /// Ended: the answer, as a call's result.
    Completed(CallToolResult),
}

/// A starting call's answer as the envelope: `working` with the absolute address to follow (the
/// handler signs it into a handle before anything else sees it), or `completed` with the
/// answer of an operation that ended at once.
pub(crate) fn started(base: &str, answer: &Answer, result: CallToolResult) -> CallToolResult {
    if answer.status != 202 {
        return completed(result);
    }
    let location = answer.headers.get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok());
    let operation = match location.map(|l| followable(base, &answer.url, l)) {
        Some(Ok(url)) => Some(url),
        Some(Err(why)) => {
            tracing::warn!(location = ?location, why, "the operation cannot be followed");
            None
        }
        None => {
            tracing::warn!("the upstream accepted the operation without a Location to follow");
            None
        }
    };
    working_envelope(operation, answer.retry_after, result.structured_content)
}

/// `{"status": "working", "operation": …, "poll_after_ms": …, "accepted": …}`, without the
/// parts there are none of.
fn working_envelope(operation: Option<String>, poll_after_ms: Option<u64>, accepted: Option<Value>) -> CallToolResult {
    let mut out = Map::new();
    out.insert("status".into(), json!("working"));
    if let Some(operation) = operation {
        out.insert("operation".into(), Value::String(operation));
    }
    out.insert("poll_after_ms".into(), json!(poll_after_ms.unwrap_or(DEFAULT_POLL_MS)));
    if let Some(accepted) = accepted {
        out.insert("accepted".into(), accepted);
    }
    crate::util::structured(Value::Object(out))
}

/// `location` made absolute, if it stays on the upstream's origin: credentials go nowhere else.
fn followable(base: &str, answered_at: &reqwest::Url, location: &str) -> Result<String, &'static str> {
    let url = answered_at.join(location).map_err(|_| "the Location is not a URL")?;
    let base = reqwest::Url::parse(base).map_err(|_| "the upstream URL does not parse")?;
    if url.origin() != base.origin() {
        return Err("the Location is on another origin than the upstream's");
    }
    Ok(url.to_string())
}

/// An ended operation's answer under `result` (an error stays the error it is).
pub(crate) fn completed(result: CallToolResult) -> CallToolResult {
    if result.is_error == Some(true) {
        return result;
    }
    let answer = result.structured_content.unwrap_or_else(|| {
        Value::String(result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect())
    });
    let mut out = crate::util::structured(json!({"status": "completed", "result": answer}));
    out.meta = result.meta;
    out
}

/// What a still-running operation's poll answers: its handle again, and the wait.
pub(crate) fn working(handle: &str, poll_after_ms: Option<u64>) -> CallToolResult {
    working_envelope(Some(handle.to_owned()), poll_after_ms, None)
}

/// What an operation's handle holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    /// The tool that started it (whose credentials and outputSchema apply).
    pub tool: String,
    /// The absolute address to read.
    pub location: String,
    /// When it started, in milliseconds since the epoch.
    pub since_ms: u64,
}

/// The `working` result's address replaced by a handle only `status_tool` opens, for `caller`.
pub(crate) fn mint_in_result(
    key: &HandleKey,
    status_tool: &str,
    tool: &str,
    caller: &str,
    now_ms: u64,
    result: &mut Value,
) -> Result<(), ToolError> {
    let Some(slot) = result.get_mut("operation") else { return Ok(()) };
    let Some(location) = slot.as_str() else { return Ok(()) };
    let held = json!({"tool": tool, "at": location, "since": now_ms});
    let expires = now_ms.saturating_add(TTL_SECS * 1000);
    *slot = Value::String(handle::mint(key, status_tool, caller, expires, &held)?);
    Ok(())
}

/// Opens an operation's handle given to `status_tool` by `caller`.
pub(crate) fn open(
    key: &HandleKey,
    status_tool: &str,
    caller: &str,
    now_ms: u64,
    given: &str,
) -> Result<Operation, ToolError> {
    let refused = || {
        ToolError::new(
            codes::INVALID_ARGUMENT,
            "invalid argument operation: not an operation handle this server gave this caller",
            "Pass the `operation` value of a result with status working exactly as returned; do not build or edit handles.",
        )
        .field("operation")
    };
    let expired = || {
        ToolError::new(
            codes::HANDLE_EXPIRED,
            format!("the operation handle expired ({} hours after the operation started)", TTL_SECS / 3600),
            "Look the result up with the API's read tools, or start the operation again if it is safe to.",
        )
        .field("operation")
    };
    let held = handle::open_with(key, status_tool, caller, now_ms, given, refused, expired)?
        .remove("v")
        .unwrap_or(Value::Null);
    let tool = held.get("tool").and_then(Value::as_str);
    let location = held.get("at").and_then(Value::as_str);
    match (tool, location, held.get("since").and_then(Value::as_u64)) {
        (Some(tool), Some(location), Some(since_ms)) => {
            Ok(Operation { tool: tool.to_owned(), location: location.to_owned(), since_ms })
        }
        _ => Err(refused()),
    }
}

/// A `working` envelope as the task the tasks extension makes of it (`None` for any other
/// result: an operation that ended at once is answered as it is).
pub(crate) fn as_task(result: &CallToolResult, now_ms: u64) -> Option<CreateTaskResult> {
    let value = result.structured_content.as_ref().filter(|_| result.is_error != Some(true))?;
    if value.get("status").and_then(Value::as_str) != Some("working") {
        return None;
    }
    let id = value.get("operation").and_then(Value::as_str)?;
    let poll = value.get("poll_after_ms").and_then(Value::as_u64).unwrap_or(DEFAULT_POLL_MS);
    let stamp = timestamp(now_ms);
    let task = Task::new(id, TaskStatus::Working, stamp.clone(), stamp)
        .with_ttl_ms(TTL_SECS * 1000)
        .with_poll_interval_ms(poll)
        .with_status_message("The operation runs on at the API.");
    Some(CreateTaskResult::new(task))
}

/// A status tool's result as the task state `tasks/get` answers.
pub(crate) fn detailed(id: &str, since_ms: u64, result: CallToolResult, now_ms: u64) -> DetailedTask {
    let value = result.structured_content.as_ref().filter(|_| result.is_error != Some(true));
    let running = value.and_then(|v| v.get("status")).and_then(Value::as_str) == Some("working");
    let ttl = (since_ms + TTL_SECS * 1000).saturating_sub(now_ms);
    let base = Task::new(id, TaskStatus::Working, timestamp(since_ms), timestamp(now_ms)).with_ttl_ms(ttl);
    if running {
        let poll = value.and_then(|v| v.get("poll_after_ms")).and_then(Value::as_u64).unwrap_or(DEFAULT_POLL_MS);
        return DetailedTask::new(base.with_poll_interval_ms(poll), TaskPayload::Working);
    }
    // A tool error is a completed call too: its result says what went wrong (E1).
    let result = match serde_json::to_value(&result) {
        Ok(Value::Object(map)) => map,
        _ => {
            let fallback = CallToolResult::error(vec![ContentBlock::text("the result could not be serialised")]);
            serde_json::to_value(fallback).ok().and_then(|v| v.as_object().cloned()).unwrap_or_default()
        }
    };
    DetailedTask::new(base, TaskPayload::Completed { result })
}

/// RFC 3339 in UTC, as task timestamps are written.
fn timestamp(ms: u64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
    humantime::format_rfc3339_millis(at).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> HandleKey {
        HandleKey::from_secret("0123456789abcdef0123456789abcdef").unwrap()
    }

    #[test]
    fn only_addresses_on_the_upstreams_origin_are_followed() {
        let at = reqwest::Url::parse("http://127.0.0.1:9/v1/invoices/in_1/pdf").unwrap();
        assert_eq!(
            followable("http://127.0.0.1:9/v1", &at, "/v1/renders/r1").unwrap(),
            "http://127.0.0.1:9/v1/renders/r1"
        );
        assert_eq!(followable("http://127.0.0.1:9/v1", &at, "r1").unwrap(), "http://127.0.0.1:9/v1/invoices/in_1/r1");
        assert!(followable("http://127.0.0.1:9/v1", &at, "https://elsewhere.example/r1").is_err());
        assert!(followable("http://127.0.0.1:9/v1", &at, "http://127.0.0.1:10/r1").is_err());
    }

    #[test]
    fn a_handle_opens_for_the_status_tool_and_its_caller_only() {
        let mut value = json!({"status": "working", "operation": "http://127.0.0.1:9/r/1"});
        mint_in_result(&key(), "get_operation_status", "render", "sha256:ab", 1_000, &mut value).unwrap();
        let h = value["operation"].as_str().unwrap();
        assert!(h.starts_with("h1_"));
        let op = open(&key(), "get_operation_status", "sha256:ab", 2_000, h).unwrap();
        assert_eq!(op, Operation { tool: "render".into(), location: "http://127.0.0.1:9/r/1".into(), since_ms: 1_000 });
        for (tool, caller) in [("get_operation_status", "sha256:cd"), ("list_invoices", "sha256:ab")] {
            assert_eq!(open(&key(), tool, caller, 2_000, h).unwrap_err().code, codes::INVALID_ARGUMENT);
        }
        let late = 1_000 + TTL_SECS * 1000;
        assert_eq!(open(&key(), "get_operation_status", "sha256:ab", late, h).unwrap_err().code, codes::HANDLE_EXPIRED);
    }

    #[test]
    fn a_working_envelope_becomes_a_task_and_an_ended_one_a_completed_task() {
        let task = as_task(&working("h1_x", Some(500)), 0).unwrap();
        assert_eq!(task.task.task_id, "h1_x");
        assert_eq!(task.task.poll_interval_ms, Some(500));
        assert!(as_task(&completed(CallToolResult::structured(json!({"a": 1}))), 0).is_none());
        let done = detailed("h1_x", 0, completed(CallToolResult::structured(json!({"a": 1}))), 10);
        assert_eq!(done.status(), TaskStatus::Completed);
        let wire = serde_json::to_value(&done).unwrap();
        assert_eq!(wire["result"]["structuredContent"], json!({"status": "completed", "result": {"a": 1}}));
        let failed = detailed("h1_x", 0, ToolError::internal("x").into_result(), 10);
        assert_eq!(failed.status(), TaskStatus::Completed, "a tool error is a completed call");
    }
}
