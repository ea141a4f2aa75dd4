//! The embedded store: one SQLite file in WAL mode. The store's own statements run on a thread
//! of their own that holds one connection and commits what is queued together (one WAL commit
//! for many calls' statements, each answered only once it is committed); native handlers'
//! transactions each take a connection of their own from a small pool (`BEGIN IMMEDIATE`: SQLite has one writer at a time, and taking
//! the write lock first means a transaction never fails half-way on a busy database). Several
//! processes may share the file (SQLite serialises their writes).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OptionalExtension, Statement, params};

use super::tx::{Inner, Row, SqlValue, Transaction};
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
    /// The writer thread's queue.
    writer: std::sync::mpsc::Sender<Job>,
    path: String,
    /// Idle connections for transactions, opened on demand.
    idle: Pool,
    /// A private store's file, removed with the store.
    scratch: Option<PathBuf>,
}

type Pool = Arc<Mutex<Vec<Connection>>>;

/// One statement (or a few) for the writer thread; what it returns sends the outcome, given
/// whether the transaction it ran in committed.
type Job = Box<dyn FnOnce(&Connection) -> Reply + Send>;
type Reply = Box<dyn FnOnce(Option<&str>) + Send>;

/// Statements committed together at most.
const MAX_BATCH: usize = 256;

/// The writer thread: takes what is queued, runs it in one transaction, commits, then answers.
fn write_loop(conn: Connection, jobs: std::sync::mpsc::Receiver<Job>) {
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let grouped = batch.len() > 1 && conn.execute_batch("BEGIN IMMEDIATE").is_ok();
        let replies: Vec<Reply> = batch.into_iter().map(|job| job(&conn)).collect();
        let failed = if grouped { conn.execute_batch("COMMIT").err().map(|e| e.to_string()) } else { None };
        if failed.is_some() {
            let _ = conn.execute_batch("ROLLBACK");
        }
        for reply in replies {
            reply(failed.as_deref());
        }
    }
}

/// Transaction connections kept open between calls.
const IDLE: usize = 8;

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Sqlite(e.to_string())
}

/// A connection to the store's file, set up as every connection of the store is.
fn connect(path: &str) -> Result<Connection, StoreError> {
    let conn = Connection::open(path).map_err(|e| StoreError::Sqlite(format!("cannot open `{path}`: {e}")))?;
    conn.busy_timeout(std::time::Duration::from_secs(10)).map_err(err)?;
    // NORMAL sync in WAL mode is durable across process crashes (not power loss).
    conn.pragma_update(None, "synchronous", "NORMAL").map_err(err)?;
    Ok(conn)
}

impl SqliteStore {
    pub async fn open(path: &str) -> Result<Self, StoreError> {
        let owned = path.to_owned();
        let conn = tokio::task::spawn_blocking(move || -> Result<Connection, StoreError> {
            let conn = connect(&owned)?;
            // WAL: readers never block the writer.
            conn.pragma_update(None, "journal_mode", "WAL").map_err(err)?;
            conn.execute_batch(SCHEMA).map_err(err)?;
            Ok(conn)
        })
        .await
        .map_err(err)??;
        let (writer, jobs) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("store-writer".to_owned())
            .spawn(move || write_loop(conn, jobs))
            .map_err(|e| StoreError::Sqlite(format!("cannot start the store's writer thread: {e}")))?;
        Ok(SqliteStore { writer, path: path.to_owned(), idle: Arc::default(), scratch: None })
    }

    /// A private store in a file of its own under the temporary directory, removed when the
    /// store is dropped: transactions need connections that see the same database, which an
    /// in-memory SQLite database cannot give.
    pub async fn private() -> Result<Self, StoreError> {
        let file = std::env::temp_dir().join(format!("mcp-gen-store-{}.db", uuid::Uuid::new_v4().simple()));
        let path =
            file.to_str().ok_or_else(|| StoreError::Sqlite("the temporary directory is not UTF-8".to_owned()))?;
        let mut store = SqliteStore::open(path).await?;
        store.scratch = Some(file);
        Ok(store)
    }

    /// Runs `f` on the writer thread's connection; answers once its statements are committed.
    async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (sent, answer) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let outcome = f(conn).map_err(err);
            Box::new(move |commit_failed: Option<&str>| {
                let outcome = match commit_failed {
                    Some(why) => Err(StoreError::Sqlite(format!("the commit failed: {why}"))),
                    None => outcome,
                };
                let _ = sent.send(outcome);
            })
        });
        let stopped = || err("the store's writer thread has stopped");
        self.writer.send(job).map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }
}

fn complete(c: &Connection, scope: &Scope, owner: &str, result: &str, expires_ms: i64) -> rusqlite::Result<bool> {
    let n = c
        .prepare_cached(
            "UPDATE mcpgen_idempotency SET state = 'completed', result = ?5, expires_ms = ?6
             WHERE tool = ?1 AND caller = ?2 AND key = ?3 AND owner = ?4",
        )?
        .execute(params![scope.tool, scope.caller, scope.key, owner, result, expires_ms])?;
    Ok(n == 1)
}

fn audit(c: &Connection, row: &AuditRow) -> rusqlite::Result<()> {
    c.prepare_cached(
        "INSERT INTO mcpgen_audit
         (at_ms, instance, request_id, caller, tool, key, arguments, outcome, replayed, duration_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(params![
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
    ])?;
    Ok(())
}

impl Store for SqliteStore {
    fn reserve<'a>(&'a self, r: &'a Reservation) -> BoxFuture<'a, Result<Claim, StoreError>> {
        let r = r.clone();
        Box::pin(self.with(move |c| {
            let won: Option<String> = c
                .prepare_cached(RESERVE)?
                .query_row(
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
                .prepare_cached(
                    "SELECT fingerprint, state, result, lease_until_ms FROM mcpgen_idempotency
                     WHERE tool = ?1 AND caller = ?2 AND key = ?3",
                )?
                .query_row(params![r.scope.tool, r.scope.caller, r.scope.key], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, Option<String>>(2)?,
                        row.get::<_, i64>(3)?,
                    ))
                })
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
        Box::pin(self.with(move |c| complete(c, &scope, &owner, &result, expires_ms)))
    }

    fn complete_audited<'a>(
        &'a self,
        scope: &'a Scope,
        owner: &'a str,
        result: &'a str,
        expires_ms: i64,
        row: &'a AuditRow,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        // One trip to the writer thread for both statements.
        let (scope, owner, result, row) = (scope.clone(), owner.to_owned(), result.to_owned(), row.clone());
        Box::pin(self.with(move |c| {
            let completed = complete(c, &scope, &owner, &result, expires_ms)?;
            audit(c, &row)?;
            Ok(completed)
        }))
    }

    fn release<'a>(&'a self, scope: &'a Scope, owner: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        let (scope, owner) = (scope.clone(), owner.to_owned());
        Box::pin(self.with(move |c| {
            c.prepare_cached(
                "DELETE FROM mcpgen_idempotency
                 WHERE tool = ?1 AND caller = ?2 AND key = ?3 AND owner = ?4 AND state = 'in_progress'",
            )?
            .execute(params![scope.tool, scope.caller, scope.key, owner])?;
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
        Box::pin(self.with(move |c| audit(c, &row)))
    }

    fn begin(&self) -> BoxFuture<'_, Result<Transaction, StoreError>> {
        let (idle, path) = (self.idle.clone(), self.path.clone());
        Box::pin(async move {
            let reused = idle.lock().map_err(|_| err("the connection pool lock is poisoned"))?.pop();
            let conn = tokio::task::spawn_blocking(move || -> Result<Connection, StoreError> {
                let conn = match reused {
                    Some(c) => c,
                    None => {
                        let c = connect(&path)?;
                        c.pragma_update(None, "foreign_keys", "ON").map_err(err)?;
                        c
                    }
                };
                conn.execute_batch("BEGIN IMMEDIATE").map_err(err)?;
                Ok(conn)
            })
            .await
            .map_err(err)??;
            Ok(Transaction(Inner::Sqlite(Tx { conn: Some(conn), idle })))
        })
    }

    fn describe(&self) -> String {
        if self.scratch.is_some() { "sqlite::memory:".to_owned() } else { format!("sqlite://{}", self.path) }
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        if let Some(file) = &self.scratch {
            if let Ok(mut idle) = self.idle.lock() {
                idle.clear();
            }
            for suffix in ["", "-wal", "-shm"] {
                let mut name = file.clone().into_os_string();
                name.push(suffix);
                let _ = std::fs::remove_file(name);
            }
        }
    }
}

/// A native handler's transaction on a connection of its own. Statements run on the blocking
/// pool, the connection moved there and back, so the handler's future stays `Send`.
pub struct Tx {
    conn: Option<Connection>,
    idle: Pool,
}

impl Tx {
    pub async fn run<T: Send + 'static>(
        &mut self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let conn = self.conn.take().ok_or_else(|| err("the transaction's connection was lost"))?;
        let (conn, out) = tokio::task::spawn_blocking(move || {
            let out = f(&conn);
            (conn, out)
        })
        .await
        .map_err(err)?;
        self.conn = Some(conn);
        out.map_err(|e| StoreError::Query(e.to_string()))
    }

    pub async fn execute(&mut self, sql: &str, params: &[SqlValue]) -> Result<u64, StoreError> {
        let (sql, params) = (sql.to_owned(), params.to_vec());
        self.run(move |c| {
            let mut st = c.prepare_cached(&sql)?;
            bind(&mut st, &params)?;
            st.raw_execute().map(|n| n as u64)
        })
        .await
    }

    pub async fn query(&mut self, sql: &str, params: &[SqlValue]) -> Result<Vec<Row>, StoreError> {
        let (sql, params) = (sql.to_owned(), params.to_vec());
        self.run(move |c| {
            let mut st = c.prepare_cached(&sql)?;
            bind(&mut st, &params)?;
            let columns: Arc<[String]> = st.column_names().map(str::to_owned).collect();
            let mut rows = st.raw_query();
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                let values = (0..columns.len()).map(|i| row.get_ref(i).map(value)).collect::<Result<_, _>>()?;
                out.push(Row { columns: columns.clone(), values });
            }
            Ok(out)
        })
        .await
    }

    pub async fn commit(mut self) -> Result<(), StoreError> {
        self.finish("COMMIT").await
    }

    pub async fn rollback(mut self) {
        if let Err(e) = self.finish("ROLLBACK").await {
            tracing::warn!(error = %e, "cannot roll back a native transaction");
        }
    }

    /// Ends the transaction and puts the connection back for the next one.
    async fn finish(&mut self, statement: &'static str) -> Result<(), StoreError> {
        self.run(move |c| c.execute_batch(statement)).await?;
        if let (Some(conn), Ok(mut idle)) = (self.conn.take(), self.idle.lock())
            && idle.len() < IDLE
        {
            idle.push(conn);
        }
        Ok(())
    }
}

impl Drop for Tx {
    /// Unfinished (the handler's future was dropped, or the runtime chose not to commit): roll
    /// back here; the connection is closed rather than reused.
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            let _ = conn.execute_batch("ROLLBACK");
        }
    }
}

/// Binds `$1`, `$2`, … by name, so that one statement text serves SQLite and PostgreSQL.
fn bind(st: &mut Statement<'_>, params: &[SqlValue]) -> rusqlite::Result<()> {
    let expected = st.parameter_count();
    if expected != params.len() {
        return Err(rusqlite::Error::InvalidParameterCount(params.len(), expected));
    }
    for (i, v) in params.iter().enumerate() {
        let name = format!("${}", i + 1);
        let Some(index) = st.parameter_index(&name)? else {
            return Err(rusqlite::Error::InvalidParameterName(format!(
                "{name} (write parameters as $1, $2, … in order)"
            )));
        };
        st.raw_bind_parameter(index, v)?;
    }
    Ok(())
}

fn value(v: ValueRef<'_>) -> SqlValue {
    match v {
        ValueRef::Null => SqlValue::Null,
        ValueRef::Integer(i) => SqlValue::Integer(i),
        ValueRef::Real(f) => SqlValue::Real(f),
        ValueRef::Text(t) => SqlValue::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => SqlValue::Blob(b.to_vec()),
    }
}

impl rusqlite::ToSql for SqlValue {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            SqlValue::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            SqlValue::Integer(i) => ToSqlOutput::Borrowed(ValueRef::Integer(*i)),
            SqlValue::Real(f) => ToSqlOutput::Borrowed(ValueRef::Real(*f)),
            SqlValue::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            SqlValue::Blob(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
            SqlValue::Bool(b) => ToSqlOutput::Borrowed(ValueRef::Integer(i64::from(*b))),
        })
    }
}
