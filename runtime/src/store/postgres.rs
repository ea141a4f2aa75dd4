//! The shared store for several replicas: PostgreSQL. One pipelined connection per process
//! (every operation is a single statement, so no transaction holds it), re-opened when it drops.

use std::sync::Arc;

use tokio::sync::RwLock;
use tokio_postgres::{Client, NoTls};

use super::{AuditRow, BoxFuture, Claim, Reservation, Scope, Store, StoreError};

// The advisory lock keeps replicas that start together from racing on CREATE ... IF NOT EXISTS.
const SCHEMA: &str = "
BEGIN;
SELECT pg_advisory_xact_lock(7305418820);
CREATE TABLE IF NOT EXISTS mcpgen_idempotency (
    tool TEXT NOT NULL,
    caller TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_progress', 'completed')),
    owner TEXT NOT NULL,
    result TEXT,
    created_ms BIGINT NOT NULL,
    lease_until_ms BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL,
    PRIMARY KEY (tool, caller, key)
);
CREATE INDEX IF NOT EXISTS mcpgen_idempotency_expires ON mcpgen_idempotency (expires_ms);
CREATE TABLE IF NOT EXISTS mcpgen_audit (
    id BIGSERIAL PRIMARY KEY,
    at_ms BIGINT NOT NULL,
    instance TEXT NOT NULL,
    request_id TEXT NOT NULL,
    caller TEXT NOT NULL,
    tool TEXT NOT NULL,
    key TEXT,
    arguments TEXT NOT NULL,
    outcome TEXT NOT NULL,
    replayed BOOLEAN NOT NULL,
    duration_ms BIGINT NOT NULL
);
COMMIT;
";

/// See the SQLite store: the same upsert, in PostgreSQL's placeholders.
const RESERVE: &str = "
INSERT INTO mcpgen_idempotency AS held
    (tool, caller, key, fingerprint, state, owner, result, created_ms, lease_until_ms, expires_ms)
VALUES ($1, $2, $3, $4, 'in_progress', $5, NULL, $6, $7, $8)
ON CONFLICT (tool, caller, key) DO UPDATE SET
    fingerprint = excluded.fingerprint, state = 'in_progress', owner = excluded.owner, result = NULL,
    created_ms = excluded.created_ms, lease_until_ms = excluded.lease_until_ms,
    expires_ms = excluded.expires_ms
WHERE held.expires_ms <= excluded.created_ms
   OR (held.state = 'in_progress'
       AND held.lease_until_ms <= excluded.created_ms
       AND held.fingerprint = excluded.fingerprint)
RETURNING owner";

pub struct PgStore {
    url: String,
    client: RwLock<Arc<Client>>,
}

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Postgres(e.to_string())
}

async fn connect(url: &str) -> Result<Client, StoreError> {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await.map_err(|e| {
        StoreError::Postgres(format!("cannot connect ({e}); check the --store URL and that the server is up"))
    })?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::warn!(error = %e, "PostgreSQL store connection closed");
        }
    });
    Ok(client)
}

impl PgStore {
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        let client = connect(url).await?;
        client.batch_execute(SCHEMA).await.map_err(err)?;
        Ok(PgStore { url: url.to_owned(), client: RwLock::new(Arc::new(client)) })
    }

    /// The live connection, re-opened if the last one closed.
    async fn client(&self) -> Result<Arc<Client>, StoreError> {
        let current = self.client.read().await.clone();
        if !current.is_closed() {
            return Ok(current);
        }
        let mut slot = self.client.write().await;
        if slot.is_closed() {
            *slot = Arc::new(connect(&self.url).await?);
        }
        Ok(slot.clone())
    }
}

impl Store for PgStore {
    fn reserve<'a>(&'a self, r: &'a Reservation) -> BoxFuture<'a, Result<Claim, StoreError>> {
        Box::pin(async move {
            let c = self.client().await?;
            let s = &r.scope;
            let won = c
                .query_opt(
                    RESERVE,
                    &[
                        &s.tool,
                        &s.caller,
                        &s.key,
                        &r.fingerprint,
                        &r.owner,
                        &r.now_ms,
                        &r.lease_until_ms,
                        &r.expires_ms,
                    ],
                )
                .await
                .map_err(err)?;
            if won.is_some_and(|row| row.get::<_, String>(0) == r.owner) {
                return Ok(Claim::Owned);
            }
            let held = c
                .query_opt(
                    "SELECT fingerprint, state, result, lease_until_ms FROM mcpgen_idempotency
                     WHERE tool = $1 AND caller = $2 AND key = $3",
                    &[&s.tool, &s.caller, &s.key],
                )
                .await
                .map_err(err)?;
            Ok(match held {
                Some(row) => {
                    let fingerprint: String = row.get(0);
                    let state: String = row.get(1);
                    match row.get::<_, Option<String>>(2) {
                        Some(result) if state == "completed" => Claim::Completed { fingerprint, result },
                        _ => Claim::InProgress { fingerprint, lease_until_ms: row.get(3) },
                    }
                }
                None => Claim::InProgress { fingerprint: r.fingerprint.clone(), lease_until_ms: 0 },
            })
        })
    }

    fn complete<'a>(
        &'a self,
        scope: &'a Scope,
        owner: &'a str,
        result: &'a str,
        expires_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let c = self.client().await?;
            let n = c
                .execute(
                    "UPDATE mcpgen_idempotency SET state = 'completed', result = $5, expires_ms = $6
                     WHERE tool = $1 AND caller = $2 AND key = $3 AND owner = $4",
                    &[&scope.tool, &scope.caller, &scope.key, &owner, &result, &expires_ms],
                )
                .await
                .map_err(err)?;
            Ok(n == 1)
        })
    }

    fn release<'a>(&'a self, scope: &'a Scope, owner: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let c = self.client().await?;
            c.execute(
                "DELETE FROM mcpgen_idempotency
                 WHERE tool = $1 AND caller = $2 AND key = $3 AND owner = $4 AND state = 'in_progress'",
                &[&scope.tool, &scope.caller, &scope.key, &owner],
            )
            .await
            .map_err(err)?;
            Ok(())
        })
    }

    fn sweep(&self, now_ms: i64) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(async move {
            let c = self.client().await?;
            c.execute("DELETE FROM mcpgen_idempotency WHERE expires_ms <= $1", &[&now_ms]).await.map_err(err)
        })
    }

    fn audit<'a>(&'a self, row: &'a AuditRow) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let c = self.client().await?;
            c.execute(
                "INSERT INTO mcpgen_audit
                 (at_ms, instance, request_id, caller, tool, key, arguments, outcome, replayed, duration_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                &[
                    &row.at_ms,
                    &row.instance,
                    &row.request_id,
                    &row.caller,
                    &row.tool,
                    &row.key,
                    &row.arguments,
                    &row.outcome,
                    &row.replayed,
                    &row.duration_ms,
                ],
            )
            .await
            .map_err(err)?;
            Ok(())
        })
    }

    fn describe(&self) -> String {
        // Without credentials.
        match self.url.split_once('@') {
            Some((scheme_user, rest)) => {
                let scheme = scheme_user.split("://").next().unwrap_or("postgres");
                format!("{scheme}://…@{rest}")
            }
            None => self.url.clone(),
        }
    }
}
