//! Plan, approve, apply (CONTRACT R8): a tool whose effect cannot be undone and that a person
//! approves does not run on its first call. The call becomes a plan in the store (the caller,
//! the idempotency key, a digest of the arguments, what will happen, until when it may be
//! approved) and the model is told it awaits approval. An operator approves or rejects it (the
//! crate's `approvals` command, or the operator API); the same call with the same key then runs
//! once, through the idempotency record like any keyed call, and answers its result from then on.
//! Plans live in the store, so they survive restarts and are shared by replicas.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

use crate::error::{ToolError, codes};
use crate::store::{Store, StoreError, Transaction};

/// Created on first use by every process that reads or writes plans (both backends).
const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS mcpgen_plans (
    id TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    caller TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    arguments TEXT NOT NULL,
    summary TEXT NOT NULL,
    status TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL,
    decided_by TEXT,
    decided_ms BIGINT,
    reason TEXT,
    applied_ms BIGINT,
    UNIQUE (tool, caller, key)
)";

const COLUMNS: &str = "id, tool, caller, key, fingerprint, arguments, summary, status, created_ms, expires_ms, \
                       decided_by, decided_ms, reason, applied_ms";

/// Where a plan stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    AwaitingApproval,
    Approved,
    Rejected,
    /// Not decided before its expiry.
    Expired,
    /// Approved, and the call ran.
    Applied,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::AwaitingApproval => "awaiting_approval",
            Status::Approved => "approved",
            Status::Rejected => "rejected",
            Status::Expired => "expired",
            Status::Applied => "applied",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        [Status::AwaitingApproval, Status::Approved, Status::Rejected, Status::Expired, Status::Applied]
            .into_iter()
            .find(|v| v.as_str() == s)
    }
}

/// One planned call.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub id: String,
    pub tool: String,
    pub caller: String,
    #[serde(skip)]
    pub key: String,
    #[serde(skip)]
    pub fingerprint: String,
    /// The arguments, secrets redacted: what the approver reads.
    pub arguments: Value,
    pub summary: String,
    pub status: Status,
    pub created_ms: i64,
    pub expires_ms: i64,
    pub decided_by: Option<String>,
    pub decided_ms: Option<i64>,
    pub reason: Option<String>,
    pub applied_ms: Option<i64>,
}

impl Plan {
    /// The status as of `now_ms`: an undecided plan past its expiry is expired.
    fn settle(mut self, now_ms: i64) -> Plan {
        if self.status == Status::AwaitingApproval && now_ms >= self.expires_ms {
            self.status = Status::Expired;
        }
        self
    }

    fn from_row(row: &crate::store::Row) -> Result<Plan, StoreError> {
        let status: String = row.get("status")?;
        let arguments: String = row.get("arguments")?;
        Ok(Plan {
            id: row.get("id")?,
            tool: row.get("tool")?,
            caller: row.get("caller")?,
            key: row.get("key")?,
            fingerprint: row.get("fingerprint")?,
            arguments: serde_json::from_str(&arguments).unwrap_or(Value::String(arguments)),
            summary: row.get("summary")?,
            status: Status::parse(&status)
                .ok_or_else(|| StoreError::Query(format!("plan status `{status}` is not one this server knows")))?,
            created_ms: row.get("created_ms")?,
            expires_ms: row.get("expires_ms")?,
            decided_by: row.get("decided_by")?,
            decided_ms: row.get("decided_ms")?,
            reason: row.get("reason")?,
            applied_ms: row.get("applied_ms")?,
        })
    }
}

/// A new plan, before the store gives it its place.
pub struct Draft<'a> {
    pub tool: &'a str,
    pub caller: &'a str,
    pub key: &'a str,
    pub fingerprint: &'a str,
    pub arguments: &'a Value,
    pub summary: &'a str,
    pub now_ms: i64,
    pub ttl_ms: i64,
}

/// What an operator decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approve,
    Reject,
}

/// Why a decision was not taken.
#[derive(Debug, thiserror::Error)]
pub enum DecideError {
    #[error("no plan `{0}`")]
    NotFound(String),
    #[error("plan `{id}` is {}, not awaiting approval", status.as_str())]
    Settled { id: String, status: Status },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The plans in a store.
#[derive(Clone)]
pub struct Plans {
    store: Arc<dyn Store>,
    /// Set once the table is known to exist.
    ready: Arc<tokio::sync::OnceCell<()>>,
}

impl Plans {
    /// The plans of `store`; their table is created on first use.
    pub fn new(store: Arc<dyn Store>) -> Plans {
        Plans { store, ready: Arc::default() }
    }

    async fn tx(&self) -> Result<Transaction, StoreError> {
        self.ready
            .get_or_try_init(|| async {
                let mut tx = self.store.begin().await?;
                tx.execute(SCHEMA, &[]).await?;
                tx.commit().await
            })
            .await?;
        self.store.begin().await
    }

    /// The plan of this call (tool, caller, key): the one already there, or `draft` made one.
    pub async fn plan(&self, draft: &Draft<'_>) -> Result<Plan, StoreError> {
        let mut tx = self.tx().await?;
        let id = format!("plan_{}", uuid::Uuid::new_v4().simple());
        tx.execute(
            &format!(
                "INSERT INTO mcpgen_plans ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, 'awaiting_approval', $8, $9, NULL, NULL, NULL, NULL)
                 ON CONFLICT (tool, caller, key) DO NOTHING"
            ),
            &[
                id.into(),
                draft.tool.into(),
                draft.caller.into(),
                draft.key.into(),
                draft.fingerprint.into(),
                draft.arguments.to_string().into(),
                draft.summary.into(),
                draft.now_ms.into(),
                draft.now_ms.saturating_add(draft.ttl_ms).into(),
            ],
        )
        .await?;
        let row = tx
            .query_opt(
                &format!("SELECT {COLUMNS} FROM mcpgen_plans WHERE tool = $1 AND caller = $2 AND key = $3"),
                &[draft.tool.into(), draft.caller.into(), draft.key.into()],
            )
            .await?
            .ok_or_else(|| StoreError::Query("the plan just written is not there".to_owned()))?;
        tx.commit().await?;
        Ok(Plan::from_row(&row)?.settle(draft.now_ms))
    }

    pub async fn get(&self, id: &str, now_ms: i64) -> Result<Option<Plan>, StoreError> {
        let mut tx = self.tx().await?;
        let row = tx.query_opt(&format!("SELECT {COLUMNS} FROM mcpgen_plans WHERE id = $1"), &[id.into()]).await?;
        tx.commit().await?;
        row.map(|r| Plan::from_row(&r).map(|p| p.settle(now_ms))).transpose()
    }

    /// Every plan (or those with `status`), newest first.
    pub async fn list(&self, status: Option<Status>, now_ms: i64) -> Result<Vec<Plan>, StoreError> {
        let mut tx = self.tx().await?;
        let rows = tx.query(&format!("SELECT {COLUMNS} FROM mcpgen_plans ORDER BY created_ms DESC, id"), &[]).await?;
        tx.commit().await?;
        let plans = rows.iter().map(Plan::from_row).collect::<Result<Vec<_>, _>>()?;
        Ok(plans.into_iter().map(|p| p.settle(now_ms)).filter(|p| status.is_none_or(|s| p.status == s)).collect())
    }

    /// Approves or rejects a plan that awaits approval and has not expired.
    pub async fn decide(
        &self,
        id: &str,
        decision: Decision,
        by: &str,
        reason: Option<&str>,
        now_ms: i64,
    ) -> Result<Plan, DecideError> {
        let status = match decision {
            Decision::Approve => Status::Approved,
            Decision::Reject => Status::Rejected,
        };
        let mut tx = self.tx().await?;
        let changed = tx
            .execute(
                "UPDATE mcpgen_plans SET status = $2, decided_by = $3, decided_ms = $4, reason = $5
                 WHERE id = $1 AND status = 'awaiting_approval' AND expires_ms > $4",
                &[id.into(), status.as_str().into(), by.into(), now_ms.into(), reason.map(str::to_owned).into()],
            )
            .await?;
        let row = tx.query_opt(&format!("SELECT {COLUMNS} FROM mcpgen_plans WHERE id = $1"), &[id.into()]).await?;
        tx.commit().await?;
        let plan = row.map(|r| Plan::from_row(&r)).transpose()?.ok_or_else(|| DecideError::NotFound(id.to_owned()))?;
        let plan = plan.settle(now_ms);
        if changed == 0 {
            return Err(DecideError::Settled { id: plan.id, status: plan.status });
        }
        Ok(plan)
    }

    /// Marks an approved plan as carried out.
    pub async fn applied(&self, id: &str, now_ms: i64) -> Result<(), StoreError> {
        let mut tx = self.tx().await?;
        tx.execute(
            "UPDATE mcpgen_plans SET status = 'applied', applied_ms = $2 WHERE id = $1 AND status = 'approved'",
            &[id.into(), now_ms.into()],
        )
        .await?;
        tx.commit().await
    }
}

/// A one-line account of what the call will do: the tool and its arguments (secrets redacted,
/// long values cut), for the approver and the model alike.
pub fn summary(tool: &str, description: Option<&str>, arguments: &Value) -> String {
    let what = description
        .and_then(|d| d.split(". ").next())
        .map(|d| d.trim_end_matches('.').to_owned())
        .unwrap_or_else(|| tool.to_owned());
    let args: Vec<String> = arguments
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.as_str() != "idempotency_key")
        .map(|(k, v)| {
            let mut text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if text.chars().count() > 60 {
                text = text.chars().take(57).collect::<String>() + "...";
            }
            format!("{k}={text}")
        })
        .collect();
    if args.is_empty() { format!("{tool}: {what}") } else { format!("{tool}: {what} ({})", args.join(", ")) }
}

fn when(ms: i64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    humantime::format_rfc3339_seconds(at).to_string()
}

/// The answer to a call whose plan is not (or no longer) to run: awaiting approval (retryable:
/// the same call later may run), rejected or expired (final).
pub fn pending(plan: &Plan) -> ToolError {
    let detail =
        json!({"id": plan.id, "status": plan.status, "summary": plan.summary, "expires_at": when(plan.expires_ms)});
    let e = match plan.status {
        Status::Rejected => ToolError::new(
            codes::APPROVAL_REJECTED,
            format!(
                "plan {} was rejected{}: {}",
                plan.id,
                plan.reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default(),
                plan.summary
            ),
            "Tell the user it was not done and why; do not retry this call.",
        ),
        Status::Expired => ToolError::new(
            codes::APPROVAL_EXPIRED,
            format!("plan {} expired before anyone approved it: {}", plan.id, plan.summary),
            "Ask the user whether it is still wanted; if so, call again with a new idempotency_key to make a new plan.",
        ),
        _ => ToolError::new(
            codes::AWAITING_APPROVAL,
            format!("not done yet: plan {} awaits a person's approval until {}: {}", plan.id, when(plan.expires_ms), plan.summary),
            format!(
                "Tell the user plan {} awaits their approval. After it is approved, call {} again with the same arguments and idempotency_key to carry it out; a new key would make a second plan.",
                plan.id, plan.tool
            ),
        )
        .retryable(Some(30_000)),
    };
    e.plan(detail)
}

/// The operator API (`/admin/approvals`), outside the MCP path and its callers' tokens: only the
/// operator token from the environment opens it.
pub fn admin_router(plans: Plans, operator_token: &str) -> axum::Router {
    use axum::routing::{get, post};
    let state = Arc::new(Admin { plans, token: crate::idempotency::digest(operator_token) });
    axum::Router::new()
        .route("/admin/approvals", get(admin_list))
        .route("/admin/approvals/{id}", get(admin_show))
        .route("/admin/approvals/{id}/approve", post(admin_approve))
        .route("/admin/approvals/{id}/reject", post(admin_reject))
        .with_state(state)
}

struct Admin {
    plans: Plans,
    /// A digest of the operator token: compared digest to digest, so the comparison's timing
    /// says nothing about the token.
    token: String,
}

type AdminState = axum::extract::State<Arc<Admin>>;
type Answer = (http::StatusCode, axum::Json<Value>);

fn operator(admin: &Admin, headers: &http::HeaderMap) -> Result<(), Answer> {
    let given = crate::inbound::bearer(headers).map(crate::idempotency::digest);
    if given.as_deref() == Some(admin.token.as_str()) {
        return Ok(());
    }
    Err((http::StatusCode::UNAUTHORIZED, axum::Json(json!({"error": "the operator token is missing or wrong"}))))
}

fn store_failure(e: &StoreError) -> Answer {
    tracing::warn!(error = %e, "operator API: store failed");
    (http::StatusCode::SERVICE_UNAVAILABLE, axum::Json(json!({"error": "the store is not reachable; retry"})))
}

async fn admin_list(
    axum::extract::State(admin): AdminState,
    headers: http::HeaderMap,
    query: axum::extract::Query<std::collections::BTreeMap<String, String>>,
) -> Answer {
    if let Err(e) = operator(&admin, &headers) {
        return e;
    }
    let status = match query.get("status") {
        Some(s) => match Status::parse(s) {
            Some(s) => Some(s),
            None => return (http::StatusCode::BAD_REQUEST, axum::Json(json!({"error": format!("no status `{s}`")}))),
        },
        None => None,
    };
    match admin.plans.list(status, crate::store::now_ms()).await {
        Ok(plans) => (http::StatusCode::OK, axum::Json(json!({"plans": plans}))),
        Err(e) => store_failure(&e),
    }
}

async fn admin_show(
    axum::extract::State(admin): AdminState,
    headers: http::HeaderMap,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Answer {
    if let Err(e) = operator(&admin, &headers) {
        return e;
    }
    match admin.plans.get(&id, crate::store::now_ms()).await {
        Ok(Some(plan)) => (http::StatusCode::OK, axum::Json(json!(plan))),
        Ok(None) => (http::StatusCode::NOT_FOUND, axum::Json(json!({"error": format!("no plan `{id}`")}))),
        Err(e) => store_failure(&e),
    }
}

#[derive(serde::Deserialize, Default)]
struct DecisionBody {
    reason: Option<String>,
}

async fn admin_decide(admin: &Admin, headers: &http::HeaderMap, id: &str, decision: Decision, body: &[u8]) -> Answer {
    if let Err(e) = operator(admin, headers) {
        return e;
    }
    let body: DecisionBody = if body.is_empty() {
        DecisionBody::default()
    } else {
        match serde_json::from_slice(body) {
            Ok(b) => b,
            Err(e) => {
                return (
                    http::StatusCode::BAD_REQUEST,
                    axum::Json(json!({"error": format!("the body is not {{\"reason\": \"…\"}}: {e}")})),
                );
            }
        }
    };
    match admin.plans.decide(id, decision, "operator-api", body.reason.as_deref(), crate::store::now_ms()).await {
        Ok(plan) => (http::StatusCode::OK, axum::Json(json!(plan))),
        Err(DecideError::NotFound(_)) => {
            (http::StatusCode::NOT_FOUND, axum::Json(json!({"error": format!("no plan `{id}`")})))
        }
        Err(e @ DecideError::Settled { .. }) => {
            (http::StatusCode::CONFLICT, axum::Json(json!({"error": e.to_string()})))
        }
        Err(DecideError::Store(e)) => store_failure(&e),
    }
}

async fn admin_approve(
    axum::extract::State(admin): AdminState,
    headers: http::HeaderMap,
    axum::extract::Path(id): axum::extract::Path<String>,
    body: axum::body::Bytes,
) -> Answer {
    admin_decide(&admin, &headers, &id, Decision::Approve, &body).await
}

async fn admin_reject(
    axum::extract::State(admin): AdminState,
    headers: http::HeaderMap,
    axum::extract::Path(id): axum::extract::Path<String>,
    body: axum::body::Bytes,
) -> Answer {
    admin_decide(&admin, &headers, &id, Decision::Reject, &body).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_rfc_3339_utc() {
        assert_eq!(when(0), "1970-01-01T00:00:00Z");
        assert_eq!(when(1_796_523_548_000), "2026-12-06T02:19:08Z");
        assert_eq!(when(951_782_400_000), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn summaries_name_the_tool_and_its_arguments() {
        let s = summary(
            "approve_withdrawal",
            Some("Approves a withdrawal that is pending review. The money is sent."),
            &json!({"id": "wd_1", "idempotency_key": "k", "note": "x".repeat(80)}),
        );
        assert_eq!(
            s,
            format!(
                "approve_withdrawal: Approves a withdrawal that is pending review (id=wd_1, note={}...)",
                "x".repeat(57)
            )
        );
    }
}
