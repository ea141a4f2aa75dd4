//! Native tools: a crate's own Rust functions behind the generated contract, instead of an
//! upstream HTTP API. Generated code implements [`Dispatch`] over the crate's typed handler
//! trait; the runtime keeps everything else exactly as for proxied tools (validation against the
//! full schema, idempotency, handles, the error contract, annotations, transports).
//!
//! Exactly-once (CONTRACT R6): a handler's [`Context::transaction`] is a transaction on the
//! server's store in which the runtime also completes the call's idempotency record, so the
//! handler's writes and the record commit together or not at all. A handler whose effect lives
//! elsewhere (another service) gets at-least-once with a key instead: it passes
//! [`Context::idempotency_key`] on, and that service dedupes on it.

use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{ToolError, codes};
pub use crate::store::BoxFuture;
use crate::store::{Store, StoreError, Transaction};

/// A call's validated arguments, as JSON.
pub type Arguments = Map<String, Value>;
/// A result as JSON.
pub type Json = Value;

/// What a generated crate implements to run its native tools: a tool's name and its validated
/// arguments in, its result (or a tool error) out. Object-safe, so the runtime holds it as
/// `Arc<dyn Dispatch>`; generated code forwards to the crate's typed trait.
pub trait Dispatch: Send + Sync + 'static {
    fn call<'a>(
        &'a self,
        tool: &'a str,
        cx: &'a mut Context,
        args: Arguments,
    ) -> BoxFuture<'a, Result<Json, ToolError>>;
}

/// The error for a tool the dispatcher has no handler for (the crate and its catalog disagree).
pub fn unknown(tool: &str) -> ToolError {
    ToolError::internal(format!("{tool} has no native handler in this build"))
}

/// One call, as a native handler sees it: who is calling, the call's idempotency key, and the
/// store transaction its writes go into.
pub struct Context {
    tool: &'static str,
    caller: String,
    request_id: String,
    key: Option<String>,
    store: Option<Arc<dyn Store>>,
    tx: Option<Transaction>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("tool", &self.tool)
            .field("caller", &self.caller)
            .field("request_id", &self.request_id)
            .field("key", &self.key)
            .field("transaction", &self.tx)
            .finish_non_exhaustive()
    }
}

impl Context {
    pub(crate) fn new(
        tool: &'static str,
        caller: String,
        request_id: String,
        key: Option<String>,
        store: Option<Arc<dyn Store>>,
    ) -> Self {
        Context { tool, caller, request_id, key, store, tx: None }
    }

    /// A context for calling a handler directly (tests, benchmarks): no store, so
    /// [`Context::transaction`] fails.
    pub fn detached(tool: &'static str) -> Self {
        Context::new(tool, "anonymous".to_owned(), String::new(), None, None)
    }

    /// A context for calling a handler directly with a store to run its transaction on; the
    /// transaction is rolled back when the context is dropped.
    pub fn with_store(tool: &'static str, store: Arc<dyn Store>) -> Self {
        Context::new(tool, "anonymous".to_owned(), String::new(), None, Some(store))
    }

    /// The tool being called.
    pub fn tool(&self) -> &'static str {
        self.tool
    }

    /// Who is calling: a digest of the caller's credentials, `stdio`, or `anonymous`. The same
    /// caller always gets the same value; it is what idempotency records and handles are
    /// scoped to.
    pub fn caller(&self) -> &str {
        &self.caller
    }

    /// The JSON-RPC request id of this call.
    pub fn request_id(&self) -> &str {
        &self.request_id
    }

    /// The call's idempotency key (the caller's, or the one the server derived), for a
    /// side-effecting tool that has one. Pass it on to any other service the effect reaches, so
    /// that a retry after a crash is deduplicated there too (at-least-once with a key).
    pub fn idempotency_key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// The call's transaction on the server's store, begun on first use. Write the tool's effect
    /// in it: the runtime commits it together with the idempotency record once the handler
    /// returns `Ok`, and rolls it back when the handler returns an error.
    pub async fn transaction(&mut self) -> Result<&mut Transaction, ToolError> {
        if self.tx.is_none() {
            let Some(store) = &self.store else {
                return Err(ToolError::internal("this server has no store, so a native handler has no transaction"));
            };
            let tx = store.begin().await.map_err(ToolError::from)?;
            self.tx = Some(tx);
        }
        match self.tx.as_mut() {
            Some(tx) => Ok(tx),
            None => Err(ToolError::internal("the transaction could not be kept")),
        }
    }

    /// Commits what a handler called directly (with [`Context::with_store`]) wrote; the server
    /// commits its calls' transactions itself.
    pub async fn commit(mut self) -> Result<(), StoreError> {
        match self.tx.take() {
            Some(tx) => tx.commit().await,
            None => Ok(()),
        }
    }

    /// The transaction, if the handler began one; the runtime finishes it.
    pub(crate) fn take_transaction(&mut self) -> Option<Transaction> {
        self.tx.take()
    }
}

/// A store failure as the model sees it: the database being unreachable is worth a retry; a
/// statement it refused is not. Details go to the operator's log, not to the model (E4).
impl From<StoreError> for ToolError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Query(detail) => {
                tracing::error!(error = %detail, "a native handler's statement failed");
                ToolError::internal("the server's database refused the operation")
            }
            other => {
                tracing::error!(error = %other, "a native handler's store is unavailable");
                ToolError::new(
                    codes::UNAVAILABLE,
                    "the server's database is unavailable, so the call did not run",
                    "Retry the same call shortly.",
                )
                .retryable(Some(1000))
            }
        }
    }
}

/// The validated arguments as the tool's argument type. They passed the tool's full schema, so
/// a failure here means the type and the schema disagree: an internal error naming the place.
pub fn arguments<T: DeserializeOwned>(tool: &str, args: Map<String, Value>) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(Value::Object(args)).map_err(|e| {
        tracing::error!(tool, path = %e.path(), error = %e.inner(), "validated arguments do not fit the tool's argument type");
        ToolError::internal(format!(
            "the arguments of {tool} passed its inputSchema but do not fit its Rust type at `{}`: {}",
            e.path(),
            e.inner()
        ))
    })
}

/// A handler's typed result as the JSON the runtime checks against the outputSchema and sends.
pub fn result<T: Serialize>(tool: &str, value: &T) -> Result<Value, ToolError> {
    serde_json::to_value(value)
        .map_err(|e| ToolError::internal(format!("the result of {tool} cannot be written as JSON: {e}")))
}
