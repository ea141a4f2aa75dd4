//! The tool error contract (CONTRACT E1–E4): every failure the model can act on is an
//! `isError: true` result whose text is a JSON body with a stable `code`, a `message`, whether a
//! retry can help, when, and a `recovery` sentence addressed to the model.

use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

/// Stable error codes (E3): renaming one is a breaking change.
pub mod codes {
    pub const INVALID_ARGUMENT: &str = "invalid_argument";
    pub const NOT_FOUND: &str = "not_found";
    pub const PERMISSION_DENIED: &str = "permission_denied";
    pub const UNAUTHENTICATED: &str = "unauthenticated";
    pub const CONFLICT: &str = "conflict";
    pub const RATE_LIMITED: &str = "rate_limited";
    pub const UPSTREAM_REJECTED: &str = "upstream_rejected";
    pub const UPSTREAM_ERROR: &str = "upstream_error";
    pub const UPSTREAM_UNAVAILABLE: &str = "upstream_unavailable";
    pub const DEADLINE_EXCEEDED: &str = "deadline_exceeded";
    pub const INTERNAL: &str = "internal_error";
    /// A call with the same idempotency key is still running (R4); retry it later.
    pub const IN_PROGRESS: &str = "in_progress";
    /// The idempotency key was used before with other arguments: a new intent needs a new key.
    pub const IDEMPOTENCY_KEY_REUSED: &str = "idempotency_key_reused";
    /// The server cannot run the call safely right now (its idempotency store is down).
    pub const UNAVAILABLE: &str = "unavailable";
    /// A next-page handle outlived its lifetime (H3): start from the first page again.
    pub const HANDLE_EXPIRED: &str = "handle_expired";
    /// The upstream carried out the call but answered outside the tool's outputSchema; the
    /// answer travels in the error body, since clients reject structured results off schema.
    pub const UNEXPECTED_ANSWER: &str = "unexpected_answer";
    /// The call is planned, not done: a person must approve it first (R8); the same call
    /// after approval carries it out.
    pub const AWAITING_APPROVAL: &str = "awaiting_approval";
    /// The plan was rejected: final.
    pub const APPROVAL_REJECTED: &str = "approval_rejected";
    /// Nobody approved the plan in time: final for this key.
    pub const APPROVAL_EXPIRED: &str = "approval_expired";
    /// The call needs a value only the user may give (M1); the model should ask them.
    pub const USER_INPUT_REQUIRED: &str = "user_input_required";
    /// The call needs the user's confirmation, which this client cannot ask for (M2).
    pub const CONFIRMATION_REQUIRED: &str = "confirmation_required";
    /// A deprecated tool called after its window closed (CONTRACT V3).
    pub const TOOL_RETIRED: &str = "tool_retired";
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolError {
    pub code: &'static str,
    pub message: String,
    /// Whether repeating the same call may succeed.
    pub retryable: bool,
    /// Always present (null when unknown), so the shape never varies.
    pub retry_after_ms: Option<u64>,
    /// What the model should do next, as an imperative sentence.
    pub recovery: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The upstream HTTP status, when the upstream answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// What some errors carry besides (boxed: errors travel in `Result`s and should stay small).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Box<Detail>>,
}

/// The parts of an error body only some errors have.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Detail {
    /// The upstream's answer, when the call took effect but its answer could not be the result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<serde_json::Value>,
    /// The plan a call that awaits approval made (R8): id, status, summary, expiry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<serde_json::Value>,
}

impl ToolError {
    pub fn new(code: &'static str, message: impl Into<String>, recovery: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
            retryable: false,
            retry_after_ms: None,
            recovery: recovery.into(),
            field: None,
            status: None,
            detail: None,
        }
    }

    pub fn retryable(mut self, after_ms: Option<u64>) -> Self {
        self.retryable = true;
        self.retry_after_ms = after_ms;
        self
    }

    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    pub fn status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    pub fn answer(mut self, answer: serde_json::Value) -> Self {
        self.detail.get_or_insert_default().answer = Some(answer);
        self
    }

    pub fn plan(mut self, plan: serde_json::Value) -> Self {
        self.detail.get_or_insert_default().plan = Some(plan);
        self
    }

    pub fn internal(message: impl Into<String>) -> Self {
        ToolError::new(codes::INTERNAL, message, "Report this to the server operator; do not retry.")
    }

    /// The `isError: true` result carrying this error as JSON text (E1).
    pub fn into_result(self) -> CallToolResult {
        let text = serde_json::to_string(&self).unwrap_or_else(|_| format!("{{\"code\":\"{}\"}}", self.code));
        CallToolResult::error(vec![ContentBlock::text(text)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_shape_is_stable() {
        let e = ToolError::new(codes::NOT_FOUND, "no pet 7", "Verify the id with list_pets.").status(404);
        assert_eq!(
            serde_json::to_string(&e).unwrap(),
            r#"{"code":"not_found","message":"no pet 7","retryable":false,"retry_after_ms":null,"recovery":"Verify the id with list_pets.","status":404}"#
        );
    }
}
