//! The idempotency store (CONTRACT R3–R5) and the audit log (O3), behind one trait with two
//! backends: SQLite (the embedded default: one file, WAL) and PostgreSQL (shared by replicas).
//!
//! A record is keyed by (tool, caller, key) under a unique constraint, so whichever call inserts
//! it first owns it (R4); nothing reads before it writes. A record is `in_progress` while its
//! owner runs the call, with a lease: if the owner dies, a repeat with the same arguments may take
//! the record over once the lease has lapsed. A `completed` record holds the result exactly as
//! first sent, until it expires (R5).

mod postgres;
mod sqlite;
pub mod tx;

pub use tx::{Backend, FromSqlValue, Row, SqlValue, Transaction};
/// The database clients native handlers reach through [`Transaction::sqlite`] and
/// [`Transaction::postgres`], at the versions the runtime links.
pub use {rusqlite, tokio_postgres};

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where one key lives: keys are scoped to the tool and the caller's identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub tool: String,
    /// A digest of the caller's credentials (or `stdio`, `anonymous`).
    pub caller: String,
    pub key: String,
}

/// An attempt to own a key.
#[derive(Debug, Clone)]
pub struct Reservation {
    pub scope: Scope,
    /// Digest of the call's arguments without the key: the same key with other arguments is a
    /// different intent.
    pub fingerprint: String,
    /// Unique per attempt.
    pub owner: String,
    pub now_ms: i64,
    /// Until when the owner is presumed alive.
    pub lease_until_ms: i64,
    pub expires_ms: i64,
}

/// What the store holds for a key after a reservation attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// This attempt owns the key (a new record, an expired one, or a lapsed lease taken over).
    Owned,
    /// Another attempt owns it and is still within its lease.
    InProgress { fingerprint: String, lease_until_ms: i64 },
    /// The call completed; `result` is the serialised result as first sent.
    Completed { fingerprint: String, result: String },
}

/// One side-effecting call, as the audit log keeps it (O3).
#[derive(Debug, Clone)]
pub struct AuditRow {
    pub at_ms: i64,
    /// This server process.
    pub instance: String,
    /// The JSON-RPC request id.
    pub request_id: String,
    pub caller: String,
    pub tool: String,
    pub key: Option<String>,
    /// Arguments as JSON with secrets redacted.
    pub arguments: String,
    /// `ok`, or the error code.
    pub outcome: String,
    pub replayed: bool,
    pub duration_ms: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("store URL `{0}` is not sqlite://FILE or postgres://…")]
    Url(String),
    #[error("SQLite store: {0}")]
    Sqlite(String),
    #[error("PostgreSQL store: {0}")]
    Postgres(String),
    /// A statement a native handler sent failed (a constraint, a syntax error, a wrong column).
    #[error("query failed: {0}")]
    Query(String),
}

/// The store's operations. Every method is one atomic statement on the backend.
pub trait Store: Send + Sync {
    /// Inserts the reservation, or takes over an expired record or a lapsed lease held for the
    /// same fingerprint; otherwise reports what is there.
    fn reserve<'a>(&'a self, r: &'a Reservation) -> BoxFuture<'a, Result<Claim, StoreError>>;
    /// Stores the result of an owned call. False when the record is no longer this owner's
    /// (its lease lapsed and another attempt took it over).
    fn complete<'a>(
        &'a self,
        scope: &'a Scope,
        owner: &'a str,
        result: &'a str,
        expires_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;
    /// Forgets an owned in-progress record, so that a retry runs the call again.
    fn release<'a>(&'a self, scope: &'a Scope, owner: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;
    /// Deletes records expired at `now_ms`; returns how many.
    fn sweep(&self, now_ms: i64) -> BoxFuture<'_, Result<u64, StoreError>>;
    fn audit<'a>(&'a self, row: &'a AuditRow) -> BoxFuture<'a, Result<(), StoreError>>;
    /// [`Store::complete`] and [`Store::audit`] as one write where the backend can (one commit
    /// instead of two on PostgreSQL); the audit row is written even when the record is no longer
    /// this owner's.
    fn complete_audited<'a>(
        &'a self,
        scope: &'a Scope,
        owner: &'a str,
        result: &'a str,
        expires_ms: i64,
        row: &'a AuditRow,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let completed = self.complete(scope, owner, result, expires_ms).await?;
            self.audit(row).await?;
            Ok(completed)
        })
    }
    /// Opens a transaction on the store's database for a native handler (CONTRACT R6).
    fn begin(&self) -> BoxFuture<'_, Result<Transaction, StoreError>>;
    /// E.g. `sqlite:///var/lib/x.db`, without secrets.
    fn describe(&self) -> String;
}

/// Opens the store a `--store` URL names: `sqlite://PATH` (relative or absolute; `sqlite::memory:`
/// for a private store that is gone when the process ends) or `postgres://…` / `postgresql://…`.
/// Creates the tables.
pub async fn open(url: &str) -> Result<Arc<dyn Store>, StoreError> {
    if url == "sqlite::memory:" {
        return Ok(Arc::new(sqlite::SqliteStore::private().await?));
    }
    if let Some(path) = url.strip_prefix("sqlite://") {
        if path.is_empty() {
            return Err(StoreError::Url(url.to_owned()));
        }
        return Ok(Arc::new(sqlite::SqliteStore::open(path).await?));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(Arc::new(postgres::PgStore::open(url).await?));
    }
    Err(StoreError::Url(url.to_owned()))
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
