//! A transaction on the store's database, handed to a native tool's handler (CONTRACT R6): the
//! handler's own writes and the call's idempotency record commit or roll back together, so a
//! side effect happens exactly once whatever crashes or retries come between.
//!
//! The same SQL runs on both backends for plain statements: placeholders are `$1`, `$2`, …
//! (PostgreSQL's; SQLite binds them by name), parameters are [`SqlValue`]s and rows read by
//! column name. Anything beyond that uses the backend's own client ([`Transaction::sqlite`],
//! [`Transaction::postgres`]). This module never commits on its own: the runtime commits after
//! it has written the record, and a transaction dropped unfinished rolls back.

use serde_json::Value;

use super::{Scope, StoreError, postgres, sqlite};

/// Which database a transaction runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A parameter or a column value. Integers bind to any integer column, text to any text
/// column (and to JSON on PostgreSQL), so one statement serves both backends.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
    Bool(bool),
}

macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for SqlValue {
            fn from(v: $t) -> Self {
                SqlValue::Integer(i64::from(v))
            }
        }
    )*};
}
from_int!(i8, i16, i32, i64, u8, u16, u32);

impl From<f64> for SqlValue {
    fn from(v: f64) -> Self {
        SqlValue::Real(v)
    }
}
impl From<bool> for SqlValue {
    fn from(v: bool) -> Self {
        SqlValue::Bool(v)
    }
}
impl From<&str> for SqlValue {
    fn from(v: &str) -> Self {
        SqlValue::Text(v.to_owned())
    }
}
impl From<String> for SqlValue {
    fn from(v: String) -> Self {
        SqlValue::Text(v)
    }
}
impl From<&String> for SqlValue {
    fn from(v: &String) -> Self {
        SqlValue::Text(v.clone())
    }
}
impl From<Vec<u8>> for SqlValue {
    fn from(v: Vec<u8>) -> Self {
        SqlValue::Blob(v)
    }
}
/// JSON is stored as its text.
impl From<&Value> for SqlValue {
    fn from(v: &Value) -> Self {
        SqlValue::Text(v.to_string())
    }
}
impl<T: Into<SqlValue>> From<Option<T>> for SqlValue {
    fn from(v: Option<T>) -> Self {
        v.map_or(SqlValue::Null, Into::into)
    }
}

/// A value read out of a [`Row`].
pub trait FromSqlValue: Sized {
    fn from_sql_value(value: &SqlValue) -> Result<Self, String>;
}

fn wrong(want: &str, got: &SqlValue) -> String {
    format!("expected {want}, found {got:?}")
}

impl FromSqlValue for i64 {
    fn from_sql_value(value: &SqlValue) -> Result<Self, String> {
        match value {
            SqlValue::Integer(i) => Ok(*i),
            other => Err(wrong("an integer", other)),
        }
    }
}
impl FromSqlValue for i32 {
    fn from_sql_value(value: &SqlValue) -> Result<Self, String> {
        let i = i64::from_sql_value(value)?;
        i32::try_from(i).map_err(|_| format!("{i} does not fit in i32"))
    }
}
impl FromSqlValue for u64 {
    fn from_sql_value(value: &SqlValue) -> Result<Self, String> {
        let i = i64::from_sql_value(value)?;
        u64::try_from(i).map_err(|_| format!("{i} is negative"))
    }
}
impl FromSqlValue for f64 {
    fn from_sql_value(value: &SqlValue) -> Result<Self, String> {
        match value {
            SqlValue::Real(f) => Ok(*f),
            // Integers are exact in f64 up to 2^53, which is what a REAL column gives back too.
            #[allow(clippy::cast_precision_loss)]
            SqlValue::Integer(i) => Ok(*i as f64),
            other => Err(wrong("a number", other)),
        }
    }
}
impl FromSqlValue for bool {
    fn from_sql_value(value: &SqlValue) -> Result<Self, String> {
        match value {
            SqlValue::Bool(b) => Ok(*b),
            // SQLite keeps booleans as 0 and 1.
            SqlValue::Integer(0) => Ok(false),
            SqlValue::Integer(1) => Ok(true),
            other => Err(wrong("a boolean", other)),
        }
    }
}
impl FromSqlValue for String {
    fn from_sql_value(value: &SqlValue) -> Result<Self, String> {
        match value {
            SqlValue::Text(s) => Ok(s.clone()),
            other => Err(wrong("text", other)),
        }
    }
}
impl FromSqlValue for Vec<u8> {
    fn from_sql_value(value: &SqlValue) -> Result<Self, String> {
        match value {
            SqlValue::Blob(b) => Ok(b.clone()),
            other => Err(wrong("bytes", other)),
        }
    }
}
/// JSON stored as text.
impl FromSqlValue for Value {
    fn from_sql_value(value: &SqlValue) -> Result<Self, String> {
        let text = String::from_sql_value(value)?;
        serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))
    }
}
impl<T: FromSqlValue> FromSqlValue for Option<T> {
    fn from_sql_value(value: &SqlValue) -> Result<Self, String> {
        match value {
            SqlValue::Null => Ok(None),
            other => T::from_sql_value(other).map(Some),
        }
    }
}

/// One row of a query, read by column name.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub(crate) columns: std::sync::Arc<[String]>,
    pub(crate) values: Vec<SqlValue>,
}

impl Row {
    /// The value of `column`, converted; an error names the column and what it held.
    pub fn get<T: FromSqlValue>(&self, column: &str) -> Result<T, StoreError> {
        let Some(i) = self.columns.iter().position(|c| c == column) else {
            return Err(StoreError::Query(format!(
                "no column `{column}` in the row (it has: {})",
                self.columns.join(", ")
            )));
        };
        T::from_sql_value(&self.values[i]).map_err(|e| StoreError::Query(format!("column `{column}`: {e}")))
    }

    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    pub fn values(&self) -> &[SqlValue] {
        &self.values
    }
}

/// An open transaction. Dropped without the runtime committing it, it rolls back.
pub struct Transaction(pub(crate) Inner);

pub(crate) enum Inner {
    Sqlite(sqlite::Tx),
    Postgres(postgres::Tx),
}

impl std::fmt::Debug for Transaction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Transaction({:?})", self.backend())
    }
}

impl Transaction {
    pub fn backend(&self) -> Backend {
        match &self.0 {
            Inner::Sqlite(_) => Backend::Sqlite,
            Inner::Postgres(_) => Backend::Postgres,
        }
    }

    /// Runs one statement with `$1`, `$2`, … bound to `params`; returns the rows it changed.
    pub async fn execute(&mut self, sql: &str, params: &[SqlValue]) -> Result<u64, StoreError> {
        match &mut self.0 {
            Inner::Sqlite(tx) => tx.execute(sql, params).await,
            Inner::Postgres(tx) => tx.execute(sql, params).await,
        }
    }

    /// Runs one query with `$1`, `$2`, … bound to `params`; returns every row.
    pub async fn query(&mut self, sql: &str, params: &[SqlValue]) -> Result<Vec<Row>, StoreError> {
        match &mut self.0 {
            Inner::Sqlite(tx) => tx.query(sql, params).await,
            Inner::Postgres(tx) => tx.query(sql, params).await,
        }
    }

    /// The first row of a query, if any.
    pub async fn query_opt(&mut self, sql: &str, params: &[SqlValue]) -> Result<Option<Row>, StoreError> {
        Ok(self.query(sql, params).await?.into_iter().next())
    }

    /// Runs `f` on the SQLite connection inside this transaction, on the blocking pool. An error
    /// on PostgreSQL.
    pub async fn sqlite<T: Send + 'static>(
        &mut self,
        f: impl FnOnce(&rusqlite::Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        match &mut self.0 {
            Inner::Sqlite(tx) => tx.run(f).await,
            Inner::Postgres(_) => Err(StoreError::Query("this transaction is on PostgreSQL, not SQLite".to_owned())),
        }
    }

    /// The PostgreSQL client this transaction is open on (statements sent through it are part of
    /// the transaction); `None` on SQLite.
    pub fn postgres(&self) -> Option<&tokio_postgres::Client> {
        match &self.0 {
            Inner::Postgres(tx) => tx.client(),
            Inner::Sqlite(_) => None,
        }
    }

    /// Completes an owned idempotency record inside this transaction. False when the record is
    /// no longer this owner's: the caller must roll back.
    pub(crate) async fn complete_record(
        &mut self,
        scope: &Scope,
        owner: &str,
        result: &str,
        expires_ms: i64,
    ) -> Result<bool, StoreError> {
        let params = [
            SqlValue::from(&scope.tool),
            SqlValue::from(&scope.caller),
            SqlValue::from(&scope.key),
            SqlValue::from(owner),
            SqlValue::from(result),
            SqlValue::Integer(expires_ms),
        ];
        let n = self
            .execute(
                "UPDATE mcpgen_idempotency SET state = 'completed', result = $5, expires_ms = $6
                 WHERE tool = $1 AND caller = $2 AND key = $3 AND owner = $4",
                &params,
            )
            .await?;
        Ok(n == 1)
    }

    /// Commits (for a transaction the caller opened with `Store::begin`; a native handler's is
    /// committed by the runtime, which owns it).
    pub async fn commit(self) -> Result<(), StoreError> {
        match self.0 {
            Inner::Sqlite(tx) => tx.commit().await,
            Inner::Postgres(tx) => tx.commit().await,
        }
    }

    /// Rolls back; dropping an unfinished transaction does the same.
    pub async fn rollback(self) {
        match self.0 {
            Inner::Sqlite(tx) => tx.rollback().await,
            Inner::Postgres(tx) => tx.rollback().await,
        }
    }
}
