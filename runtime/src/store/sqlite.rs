//! The embedded store: one SQLite file in WAL mode. Calls run on the blocking pool behind one
//! connection; several processes may share the file (SQLite serialises their writes).

use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension, params};

use super::{AuditRow, BoxFuture, Claim, Reservation, Scope, Store, StoreError};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS mcpgen_idempotency (
    tool TEXT NOT NULL,
    caller TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_progress', 'completed')),
    owner TEXT NOT NULL,
    result TEXT,
    created_ms INTEGER NOT NULL,
    lease_until_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL,
    PRIMARY KEY (tool, caller, key)
);
CREATE INDEX IF NOT EXISTS mcpgen_idempotency_expires ON mcpgen_idempotency (expires_ms);
CREATE TABLE IF NOT EXISTS mcpgen_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms INTEGER NOT NULL,
    instance TEXT NOT NULL,
    request_id TEXT NOT NULL,
    caller TEXT NOT NULL,
    tool TEXT NOT NULL,
    key TEXT,
    arguments TEXT NOT NULL,
    outcome TEXT NOT NULL,
    replayed INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL
);
";

/// The upsert both backends share in spirit: insert, or take over a record that expired or
/// whose owner's lease lapsed (same arguments only); RETURNING tells whether this attempt won.
const RESERVE: &str = "
INSERT INTO mcpgen_idempotency
    (tool, caller, key, fingerprint, state, owner, result, created_ms, lease_until_ms, expires_ms)
VALUES (?1, ?2, ?3, ?4, 'in_progress', ?5, NULL, ?6, ?7, ?8)
ON CONFLICT (tool, caller, key) DO UPDATE SET
    fingerprint = excluded.fingerprint, state = 'in_progress', owner = excluded.owner, result = NULL,
    created_ms = excluded.created_ms, lease_until_ms = excluded.lease_until_ms,
    expires_ms = excluded.expires_ms
WHERE mcpgen_idempotency.expires_ms <= excluded.created_ms
   OR (mcpgen_idempotency.state = 'in_progress'
       AND mcpgen_idempotency.lease_until_ms <= excluded.created_ms
       AND mcpgen_idempotency.fingerprint = excluded.fingerprint)
RETURNING owner";

pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
    path: String,
}

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Sqlite(e.to_string())
}

impl SqliteStore {
    pub async fn open(path: &str) -> Result<Self, StoreError> {
        let owned = path.to_owned();
        let conn = tokio::task::spawn_blocking(move || -> Result<Connection, StoreError> {
            let conn =
                Connection::open(&owned).map_err(|e| StoreError::Sqlite(format!("cannot open `{owned}`: {e}")))?;
            conn.busy_timeout(std::time::Duration::from_secs(10)).map_err(err)?;
            // WAL: readers never block the writer; NORMAL sync is durable across process crashes.
            conn.pragma_update(None, "journal_mode", "WAL").map_err(err)?;
            conn.pragma_update(None, "synchronous", "NORMAL").map_err(err)?;
            conn.execute_batch(SCHEMA).map_err(err)?;
            Ok(conn)
        })
        .await
        .map_err(err)??;
        Ok(SqliteStore { conn: Arc::new(Mutex::new(conn)), path: path.to_owned() })
    }

    /// Runs `f` on the connection on the blocking pool.
    async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || {
            let guard = conn.lock().map_err(|_| StoreError::Sqlite("the connection lock is poisoned".to_owned()))?;
            f(&guard).map_err(err)
        })
        .await
        .map_err(err)?
    }
}

impl Store for SqliteStore {
    fn reserve<'a>(&'a self, r: &'a Reservation) -> BoxFuture<'a, Result<Claim, StoreError>> {
        let r = r.clone();
        Box::pin(self.with(move |c| {
            let won: Option<String> = c
                .query_row(
                    RESERVE,
                    params![
                        r.scope.tool,
                        r.scope.caller,
                        r.scope.key,
                        r.fingerprint,
                        r.owner,
                        r.now_ms,
                        r.lease_until_ms,
                        r.expires_ms
                    ],
                    |row| row.get(0),
                )
                .optional()?;
            if won.as_deref() == Some(r.owner.as_str()) {
                return Ok(Claim::Owned);
            }
            let held = c
                .query_row(
                    "SELECT fingerprint, state, result, lease_until_ms FROM mcpgen_idempotency
                     WHERE tool = ?1 AND caller = ?2 AND key = ?3",
                    params![r.scope.tool, r.scope.caller, r.scope.key],
                    |row| {
                        Ok((
                            row.get::<_, String>(0)?,
                            row.get::<_, String>(1)?,
                            row.get::<_, Option<String>>(2)?,
                            row.get::<_, i64>(3)?,
                        ))
                    },
                )
                .optional()?;
            Ok(match held {
                Some((fingerprint, state, Some(result), _)) if state == "completed" => {
                    Claim::Completed { fingerprint, result }
                }
                Some((fingerprint, _, _, lease_until_ms)) => Claim::InProgress { fingerprint, lease_until_ms },
                // Swept between the two statements: report a lapsed lease so the caller retries.
                None => Claim::InProgress { fingerprint: r.fingerprint.clone(), lease_until_ms: 0 },
            })
        }))
    }

    fn complete<'a>(
        &'a self,
        scope: &'a Scope,
        owner: &'a str,
        result: &'a str,
        expires_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let (scope, owner, result) = (scope.clone(), owner.to_owned(), result.to_owned());
        Box::pin(self.with(move |c| {
            let n = c.execute(
                "UPDATE mcpgen_idempotency SET state = 'completed', result = ?5, expires_ms = ?6
                 WHERE tool = ?1 AND caller = ?2 AND key = ?3 AND owner = ?4",
                params![scope.tool, scope.caller, scope.key, owner, result, expires_ms],
            )?;
            Ok(n == 1)
        }))
    }

    fn release<'a>(&'a self, scope: &'a Scope, owner: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        let (scope, owner) = (scope.clone(), owner.to_owned());
        Box::pin(self.with(move |c| {
            c.execute(
                "DELETE FROM mcpgen_idempotency
                 WHERE tool = ?1 AND caller = ?2 AND key = ?3 AND owner = ?4 AND state = 'in_progress'",
                params![scope.tool, scope.caller, scope.key, owner],
            )?;
            Ok(())
        }))
    }

    fn sweep(&self, now_ms: i64) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(self.with(move |c| {
            let n = c.execute("DELETE FROM mcpgen_idempotency WHERE expires_ms <= ?1", params![now_ms])?;
            Ok(n as u64)
        }))
    }

    fn audit<'a>(&'a self, row: &'a AuditRow) -> BoxFuture<'a, Result<(), StoreError>> {
        let row = row.clone();
        Box::pin(self.with(move |c| {
            c.execute(
                "INSERT INTO mcpgen_audit
                 (at_ms, instance, request_id, caller, tool, key, arguments, outcome, replayed, duration_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    row.at_ms,
                    row.instance,
                    row.request_id,
                    row.caller,
                    row.tool,
                    row.key,
                    row.arguments,
                    row.outcome,
                    row.replayed,
                    row.duration_ms
                ],
            )?;
            Ok(())
        }))
    }

    fn describe(&self) -> String {
        format!("sqlite://{}", self.path)
    }
}
