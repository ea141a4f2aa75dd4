//! The shop's orders: the business logic both front ends share (the HTTP API in `api.rs`, the
//! MCP tools in `tools.rs`). Every function runs in a transaction on the service's database, the
//! same one the MCP runtime keeps its idempotency records in, so a tool's write and its record
//! commit together. SQL is written once for SQLite and PostgreSQL (`$1` placeholders, BIGINT and
//! TEXT columns).

use mcp_gen_runtime::store::{Store, StoreError, Transaction};

use crate::contract::types::{CreateOrderArgs, Currency, Line, Order, Reason as CancelReason, Status};

const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS orders (
        id TEXT PRIMARY KEY,
        customer TEXT NOT NULL,
        currency TEXT NOT NULL,
        status TEXT NOT NULL,
        total BIGINT NOT NULL,
        note TEXT,
        cancel_reason TEXT,
        created_ms BIGINT NOT NULL
    )",
    "CREATE INDEX IF NOT EXISTS orders_newest ON orders (created_ms, id)",
    "CREATE TABLE IF NOT EXISTS order_lines (
        order_id TEXT NOT NULL REFERENCES orders (id),
        position BIGINT NOT NULL,
        sku TEXT NOT NULL,
        quantity BIGINT NOT NULL,
        unit_price BIGINT NOT NULL,
        PRIMARY KEY (order_id, position)
    )",
];

/// Creates the tables (once; later calls change nothing).
pub async fn migrate(store: &dyn Store) -> Result<(), StoreError> {
    let mut tx = store.begin().await?;
    for statement in SCHEMA {
        tx.execute(statement, &[]).await?;
    }
    tx.commit().await
}

/// What a failed order operation tells its caller.
#[derive(Debug)]
pub enum Refused {
    NotFound(String),
    /// The order is no longer in a state that allows it, e.g. already cancelled.
    State {
        id: String,
        status: Status,
    },
    Store(StoreError),
}

impl From<StoreError> for Refused {
    fn from(e: StoreError) -> Self {
        Refused::Store(e)
    }
}

pub async fn create(tx: &mut Transaction, new: &CreateOrderArgs) -> Result<Order, StoreError> {
    let id = format!("ord_{}", &uuid::Uuid::new_v4().simple().to_string()[..16]);
    let total = new.lines.iter().map(|l| l.quantity.saturating_mul(l.unit_price)).fold(0_i64, i64::saturating_add);
    let created_ms = now_ms();
    tx.execute(
        "INSERT INTO orders (id, customer, currency, status, total, note, cancel_reason, created_ms)
         VALUES ($1, $2, $3, 'placed', $4, $5, NULL, $6)",
        &[
            id.clone().into(),
            new.customer.clone().into(),
            currency_text(new.currency).into(),
            total.into(),
            new.note.clone().into(),
            created_ms.into(),
        ],
    )
    .await?;
    for (position, line) in new.lines.iter().enumerate() {
        tx.execute(
            "INSERT INTO order_lines (order_id, position, sku, quantity, unit_price) VALUES ($1, $2, $3, $4, $5)",
            &[
                id.clone().into(),
                i64::try_from(position).unwrap_or(i64::MAX).into(),
                line.sku.clone().into(),
                line.quantity.into(),
                line.unit_price.into(),
            ],
        )
        .await?;
    }
    Ok(Order {
        id,
        customer: new.customer.clone(),
        currency: new.currency,
        status: Status::Placed,
        total,
        note: new.note.clone(),
        lines: new
            .lines
            .iter()
            .map(|l| Line { sku: l.sku.clone(), quantity: l.quantity, unit_price: l.unit_price })
            .collect(),
        cancel_reason: None,
        created_at: rfc3339(created_ms),
    })
}

pub async fn get(tx: &mut Transaction, id: &str) -> Result<Option<Order>, StoreError> {
    let Some(row) = tx
        .query_opt(
            "SELECT id, customer, currency, status, total, note, cancel_reason, created_ms FROM orders WHERE id = $1",
            &[id.into()],
        )
        .await?
    else {
        return Ok(None);
    };
    let mut order = order_of(&row)?;
    let lines = tx
        .query("SELECT sku, quantity, unit_price FROM order_lines WHERE order_id = $1 ORDER BY position", &[id.into()])
        .await?;
    order.lines = lines
        .iter()
        .map(|l| Ok(Line { sku: l.get("sku")?, quantity: l.get("quantity")?, unit_price: l.get("unit_price")? }))
        .collect::<Result<_, StoreError>>()?;
    Ok(Some(order))
}

/// Which orders a page lists.
#[derive(Debug, Default)]
pub struct Filter {
    pub customer: Option<String>,
    pub status: Option<Status>,
}

/// One page, newest first, from `after` (the previous page's cursor); the cursor of the next
/// page, or `None` on the last one.
pub async fn list(
    tx: &mut Transaction,
    filter: &Filter,
    after: Option<&str>,
    limit: i64,
) -> Result<(Vec<Order>, Option<String>), StoreError> {
    let (before_ms, before_id) = match after.and_then(|c| c.split_once('.')) {
        Some((ms, id)) => (ms.parse::<i64>().unwrap_or(i64::MAX), id.to_owned()),
        None => (i64::MAX, String::new()),
    };
    let rows = tx
        .query(
            "SELECT id FROM orders
             WHERE ($1 = '' OR customer = $1) AND ($2 = '' OR status = $2)
               AND (created_ms < $3 OR (created_ms = $3 AND ($4 = '' OR id < $4)))
             ORDER BY created_ms DESC, id DESC
             LIMIT $5",
            &[
                filter.customer.clone().unwrap_or_default().into(),
                filter.status.map(status_text).unwrap_or_default().into(),
                before_ms.into(),
                before_id.into(),
                (limit + 1).into(),
            ],
        )
        .await?;
    let mut orders = Vec::new();
    for row in rows.iter().take(usize::try_from(limit).unwrap_or(0)) {
        let id: String = row.get("id")?;
        if let Some(order) = get(tx, &id).await? {
            orders.push(order);
        }
    }
    let more = rows.len() > orders.len();
    let next = if more {
        orders.last().map(|o| format!("{}.{}", created_ms_of(&o.created_at).unwrap_or(0), o.id))
    } else {
        None
    };
    Ok((orders, next))
}

/// Cancels a placed order (irreversible: the customer is refunded).
pub async fn cancel(tx: &mut Transaction, id: &str, reason: CancelReason) -> Result<Order, Refused> {
    let Some(mut order) = get(tx, id).await? else { return Err(Refused::NotFound(id.to_owned())) };
    if order.status != Status::Placed {
        return Err(Refused::State { id: id.to_owned(), status: order.status });
    }
    tx.execute(
        "UPDATE orders SET status = 'cancelled', cancel_reason = $2 WHERE id = $1 AND status = 'placed'",
        &[id.into(), reason_text(reason).into()],
    )
    .await?;
    order.status = Status::Cancelled;
    order.cancel_reason = Some(reason);
    Ok(order)
}

fn order_of(row: &mcp_gen_runtime::store::Row) -> Result<Order, StoreError> {
    let text = |column: &str| row.get::<String>(column);
    let bad = |column: &str, value: String| StoreError::Query(format!("column `{column}` holds `{value}`"));
    let currency = text("currency")?;
    let status = text("status")?;
    let reason: Option<String> = row.get("cancel_reason")?;
    Ok(Order {
        id: text("id")?,
        customer: text("customer")?,
        currency: parse(&currency).ok_or_else(|| bad("currency", currency.clone()))?,
        status: parse(&status).ok_or_else(|| bad("status", status.clone()))?,
        total: row.get("total")?,
        note: row.get("note")?,
        lines: Vec::new(),
        cancel_reason: match reason {
            Some(r) => Some(parse(&r).ok_or_else(|| bad("cancel_reason", r.clone()))?),
            None => None,
        },
        created_at: rfc3339(row.get("created_ms")?),
    })
}

/// A generated enum from its wire value.
fn parse<T: serde::de::DeserializeOwned>(text: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(text.to_owned())).ok()
}

/// A generated enum's wire value.
fn wire<T: serde::Serialize>(value: T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

fn currency_text(c: Currency) -> String {
    wire(c)
}

pub fn status_text(s: Status) -> String {
    wire(s)
}

fn reason_text(r: CancelReason) -> String {
    wire(r)
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// `2026-12-05T09:30:00.123Z` for milliseconds since the epoch (UTC, proleptic Gregorian).
pub fn rfc3339(ms: i64) -> String {
    let (days, rest) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (rest / 3_600_000, rest / 60_000 % 60, rest / 1000 % 60, rest % 1000);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

/// The milliseconds an [`rfc3339`] text stands for.
fn created_ms_of(text: &str) -> Option<i64> {
    let (date, time) = text.trim_end_matches('Z').split_once('T')?;
    let mut d = date.split('-').map(str::parse::<i64>);
    let (year, month, day) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let (hms, milli) = time.split_once('.').unwrap_or((time, "0"));
    let mut t = hms.split(':').map(str::parse::<i64>);
    let (h, m, s) = (t.next()?.ok()?, t.next()?.ok()?, t.next()?.ok()?);
    // Howard Hinnant's days-from-civil.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400_000 + h * 3_600_000 + m * 60_000 + s * 1000 + milli.parse::<i64>().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_round_trip() {
        for ms in [0, 1_764_926_400_123, 951_782_400_000, -86_400_000] {
            assert_eq!(created_ms_of(&rfc3339(ms)), Some(ms), "{}", rfc3339(ms));
        }
        assert_eq!(rfc3339(1_764_926_400_123), "2025-12-05T09:20:00.123Z");
    }
}
