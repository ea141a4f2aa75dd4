//! The shared store for several replicas: PostgreSQL. The store's own statements (each a single
//! statement, prepared once per connection) and native handlers' transactions take connections
//! from one pool: concurrent calls commit on several connections at once, so PostgreSQL flushes
//! their commits together instead of one after another on a single connection.

use std::sync::Arc;

use bytes::BytesMut;
use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod};
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{Client, NoTls};

use super::tx::{Inner, Row, SqlValue, Transaction};
use super::{AuditRow, BoxFuture, Claim, Reservation, Scope, Store, StoreError};

/// Connections one process holds at most (two replicas stay well under PostgreSQL's default of
/// 100 connections).
const POOL: usize = 32;

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
    pool: Pool,
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
        let config: tokio_postgres::Config = url.parse().map_err(err)?;
        // `Fast` recycling hands out a pooled connection unless it is known closed; one that dies
        // unnoticed fails its statement once, which is sent again on another (`run`).
        let manager = Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = Pool::builder(manager).max_size(POOL).build().map_err(err)?;
        Ok(PgStore { url: url.to_owned(), pool })
    }

    async fn conn(&self) -> Result<Object, StoreError> {
        self.pool
            .get()
            .await
            .map_err(|e| StoreError::Postgres(format!("cannot get a connection ({e}); check that the server is up")))
    }

    /// Runs one of the store's statements on a pooled connection, prepared once per connection.
    /// A connection found closed (a restarted server, a killed backend) is dropped and the
    /// statement sent once more on another: it did not run, or ran as a whole and its repeat
    /// finds its own row (the idempotency statements change nothing more when repeated; an
    /// audit row can then be written twice, never lost).
    ///
    /// Every pooled connection may have been killed at once (a failover): each attempt drops
    /// one, so the pool's size bounds the attempts.
    async fn run(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<tokio_postgres::Row>, StoreError> {
        let mut attempts = 0;
        loop {
            let c = self.conn().await?;
            let outcome = match c.prepare_cached(sql).await {
                Ok(statement) => c.query(&statement, params).await,
                Err(e) => Err(e),
            };
            match outcome {
                Err(e) if lost(&e, &c) && attempts < POOL => {
                    tracing::warn!(error = %e, "PostgreSQL store connection lost; sending the statement again");
                    drop(Object::take(c));
                    attempts += 1;
                }
                outcome => return outcome.map_err(err),
            }
        }
    }
}

impl Store for PgStore {
    fn reserve<'a>(&'a self, r: &'a Reservation) -> BoxFuture<'a, Result<Claim, StoreError>> {
        Box::pin(async move {
            let s = &r.scope;
            let won = self
                .run(
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
                .await?;
            if won.first().is_some_and(|row| row.get::<_, String>(0) == r.owner) {
                return Ok(Claim::Owned);
            }
            let held = self
                .run(
                    "SELECT fingerprint, state, result, lease_until_ms FROM mcpgen_idempotency
                     WHERE tool = $1 AND caller = $2 AND key = $3",
                    &[&s.tool, &s.caller, &s.key],
                )
                .await?;
            Ok(match held.first() {
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
            // RETURNING tells a repeat (after a lost connection) that the row is this owner's.
            let rows = self
                .run(
                    "UPDATE mcpgen_idempotency SET state = 'completed', result = $5, expires_ms = $6
                     WHERE tool = $1 AND caller = $2 AND key = $3 AND owner = $4 RETURNING 1",
                    &[&scope.tool, &scope.caller, &scope.key, &owner, &result, &expires_ms],
                )
                .await?;
            Ok(rows.len() == 1)
        })
    }

    fn release<'a>(&'a self, scope: &'a Scope, owner: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.run(
                "DELETE FROM mcpgen_idempotency
                 WHERE tool = $1 AND caller = $2 AND key = $3 AND owner = $4 AND state = 'in_progress'",
                &[&scope.tool, &scope.caller, &scope.key, &owner],
            )
            .await?;
            Ok(())
        })
    }

    fn sweep(&self, now_ms: i64) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(async move {
            let rows =
                self.run("DELETE FROM mcpgen_idempotency WHERE expires_ms <= $1 RETURNING 1", &[&now_ms]).await?;
            Ok(rows.len() as u64)
        })
    }

    fn audit<'a>(&'a self, row: &'a AuditRow) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.run(
                "INSERT INTO mcpgen_audit
                 (at_ms, instance, request_id, caller, tool, key, arguments, outcome, replayed, duration_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                &audit_values(row),
            )
            .await?;
            Ok(())
        })
    }

    fn complete_audited<'a>(
        &'a self,
        scope: &'a Scope,
        owner: &'a str,
        result: &'a str,
        expires_ms: i64,
        row: &'a AuditRow,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            // One statement, one commit: the record's result and the call's audit row.
            let rows = self
                .run(
                    "WITH done AS (
                        UPDATE mcpgen_idempotency SET state = 'completed', result = $5, expires_ms = $6
                        WHERE tool = $1 AND caller = $2 AND key = $3 AND owner = $4 RETURNING 1
                    ), logged AS (
                        INSERT INTO mcpgen_audit
                        (at_ms, instance, request_id, caller, tool, key, arguments, outcome, replayed, duration_ms)
                        VALUES ($7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING 1
                    )
                    SELECT (SELECT count(*) FROM done) AS completed, (SELECT count(*) FROM logged) AS audited",
                    &[&scope.tool as &(dyn ToSql + Sync), &scope.caller, &scope.key, &owner, &result, &expires_ms]
                        .into_iter()
                        .chain(audit_values(row))
                        .collect::<Vec<_>>(),
                )
                .await?;
            Ok(rows.first().is_some_and(|r| r.get::<_, i64>(0) == 1))
        })
    }

    fn begin(&self) -> BoxFuture<'_, Result<Transaction, StoreError>> {
        Box::pin(async move {
            let client = self.conn().await?;
            client.batch_execute("BEGIN").await.map_err(err)?;
            Ok(Transaction(Inner::Postgres(Tx { client: Some(client) })))
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

/// An audit row's columns, in the order the store's statements list them.
fn audit_values(row: &AuditRow) -> [&(dyn ToSql + Sync); 10] {
    [
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
    ]
}

/// Whether `e` means the connection is gone (closed, or its backend shut down by an operator or
/// a restart: SQLSTATE classes 57 and 08), rather than that the statement failed.
fn lost(e: &tokio_postgres::Error, c: &Client) -> bool {
    let class = e.code().map(|code| &code.code()[..2]);
    e.is_closed() || c.is_closed() || matches!(class, Some("57" | "08"))
}

/// A native handler's transaction on a pooled connection of its own.
pub struct Tx {
    client: Option<Object>,
}

fn query_error(e: &tokio_postgres::Error) -> StoreError {
    // The server's own message (`duplicate key value violates …`) says more than the wrapper's.
    match e.as_db_error() {
        Some(db) => StoreError::Query(db.message().to_owned()),
        None => StoreError::Query(e.to_string()),
    }
}

impl Tx {
    pub fn client(&self) -> Option<&Client> {
        self.client.as_deref().map(|c| &**c)
    }

    fn live(&self) -> Result<&Object, StoreError> {
        self.client.as_ref().ok_or_else(|| err("the transaction's connection was lost"))
    }

    pub async fn execute(&mut self, sql: &str, params: &[SqlValue]) -> Result<u64, StoreError> {
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        let c = self.live()?;
        let st = c.prepare_cached(sql).await.map_err(|e| query_error(&e))?;
        c.execute(&st, &refs).await.map_err(|e| query_error(&e))
    }

    pub async fn query(&mut self, sql: &str, params: &[SqlValue]) -> Result<Vec<Row>, StoreError> {
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        let c = self.live()?;
        let st = c.prepare_cached(sql).await.map_err(|e| query_error(&e))?;
        let rows = c.query(&st, &refs).await.map_err(|e| query_error(&e))?;
        let columns: Arc<[String]> = st.columns().iter().map(|c| c.name().to_owned()).collect();
        rows.iter()
            .map(|row| {
                let values = (0..columns.len()).map(|i| read(row, i)).collect::<Result<_, _>>()?;
                Ok(Row { columns: columns.clone(), values })
            })
            .collect()
    }

    pub async fn commit(mut self) -> Result<(), StoreError> {
        let c = self.live()?;
        c.batch_execute("COMMIT").await.map_err(err)?;
        self.client = None;
        Ok(())
    }

    pub async fn rollback(mut self) {
        if let Some(c) = self.client.take()
            && c.batch_execute("ROLLBACK").await.is_err()
        {
            drop(Object::take(c));
        }
    }
}

impl Drop for Tx {
    /// Unfinished: the connection leaves the pool and closes, and the server rolls back.
    fn drop(&mut self) {
        if let Some(c) = self.client.take() {
            drop(Object::take(c));
        }
    }
}

/// One column as a [`SqlValue`]; a type with no plain equivalent is an error that says to cast.
fn read(row: &tokio_postgres::Row, i: usize) -> Result<SqlValue, StoreError> {
    let column = &row.columns()[i];
    let ty = column.type_();
    let get_err = |e: tokio_postgres::Error| StoreError::Query(format!("column `{}`: {e}", column.name()));
    let value = match *ty {
        Type::INT2 => row.try_get::<_, Option<i16>>(i).map_err(get_err)?.map(|v| SqlValue::Integer(v.into())),
        Type::INT4 => row.try_get::<_, Option<i32>>(i).map_err(get_err)?.map(|v| SqlValue::Integer(v.into())),
        Type::INT8 => row.try_get::<_, Option<i64>>(i).map_err(get_err)?.map(SqlValue::Integer),
        Type::OID => row.try_get::<_, Option<u32>>(i).map_err(get_err)?.map(|v| SqlValue::Integer(v.into())),
        Type::FLOAT4 => row.try_get::<_, Option<f32>>(i).map_err(get_err)?.map(|v| SqlValue::Real(v.into())),
        Type::FLOAT8 => row.try_get::<_, Option<f64>>(i).map_err(get_err)?.map(SqlValue::Real),
        Type::BOOL => row.try_get::<_, Option<bool>>(i).map_err(get_err)?.map(SqlValue::Bool),
        Type::BYTEA => row.try_get::<_, Option<Vec<u8>>>(i).map_err(get_err)?.map(SqlValue::Blob),
        Type::JSON | Type::JSONB => {
            row.try_get::<_, Option<serde_json::Value>>(i).map_err(get_err)?.map(|v| SqlValue::Text(v.to_string()))
        }
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
            row.try_get::<_, Option<String>>(i).map_err(get_err)?.map(SqlValue::Text)
        }
        _ => {
            return Err(StoreError::Query(format!(
                "column `{}` is of type {ty}, which transactions do not read: cast it in the query (`{}::text`, or `::bigint`)",
                column.name(),
                column.name()
            )));
        }
    };
    Ok(value.unwrap_or(SqlValue::Null))
}

type BoxError = Box<dyn std::error::Error + Sync + Send>;

impl ToSql for SqlValue {
    /// Binds to the column's type where the value converts to it without loss.
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        let mismatch = || -> BoxError { format!("cannot bind {self:?} to a {ty} parameter").into() };
        match self {
            SqlValue::Null => Ok(IsNull::Yes),
            SqlValue::Integer(i) => match *ty {
                Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
                Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
                Type::INT8 => i.to_sql(ty, out),
                Type::OID => u32::try_from(*i)?.to_sql(ty, out),
                #[allow(clippy::cast_precision_loss)]
                Type::FLOAT8 => (*i as f64).to_sql(ty, out),
                Type::TEXT | Type::VARCHAR => i.to_string().to_sql(ty, out),
                _ => Err(mismatch()),
            },
            SqlValue::Real(f) => match *ty {
                Type::FLOAT8 => f.to_sql(ty, out),
                #[allow(clippy::cast_possible_truncation)]
                Type::FLOAT4 => (*f as f32).to_sql(ty, out),
                _ => Err(mismatch()),
            },
            SqlValue::Text(s) => match *ty {
                Type::JSON | Type::JSONB => serde_json::from_str::<serde_json::Value>(s)?.to_sql(ty, out),
                _ if <String as ToSql>::accepts(ty) => s.to_sql(ty, out),
                _ => Err(mismatch()),
            },
            SqlValue::Blob(b) => match *ty {
                Type::BYTEA => b.to_sql(ty, out),
                _ => Err(mismatch()),
            },
            SqlValue::Bool(b) => match *ty {
                Type::BOOL => b.to_sql(ty, out),
                Type::INT2 | Type::INT4 | Type::INT8 => SqlValue::Integer(i64::from(*b)).to_sql(ty, out),
                _ => Err(mismatch()),
            },
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}
