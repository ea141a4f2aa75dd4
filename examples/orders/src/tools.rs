//! The service's MCP tools: the generated `Handlers` trait, implemented on the same order logic
//! as the HTTP API. Each write goes into `cx.transaction()`, where the runtime also records the
//! call's idempotency key: the order and the record commit together (CONTRACT R6), so a retried
//! `create_order` never places a second order.

use std::sync::Arc;

use mcp_gen_runtime::error::{ToolError, codes};
use mcp_gen_runtime::native::Context;
use mcp_gen_runtime::store::Store;

use crate::contract::Handlers;
use crate::contract::types::{
    CancelOrderArgs, CreateOrderArgs, GetOrderArgs, ListOrdersArgs, ListOrdersResult, Order, QuoteShippingArgs,
    QuoteShippingResult, QuoteShippingResultCurrency,
};
use crate::crash::Crash;
use crate::orders::{self, Filter, Refused};

/// The tools, with what the crash experiment needs to arm its crash points.
#[derive(Clone, Default)]
pub struct Tools {
    pub crash: Crash,
    /// The crash experiment's control: place orders in a transaction of their own, committed
    /// before the call's idempotency record is (what a handler whose effect lives elsewhere
    /// gets: at-least-once with a key). Never in production.
    pub outside: Option<Arc<dyn Store>>,
}

fn not_found(id: &str) -> ToolError {
    ToolError::new(codes::NOT_FOUND, format!("no order {id}"), "Verify the id with list_orders; do not guess ids.")
        .field("order_id")
}

fn refused(e: Refused) -> ToolError {
    match e {
        Refused::NotFound(id) => not_found(&id),
        Refused::State { id, status } => ToolError::new(
            codes::CONFLICT,
            format!("order {id} is {}, so it cannot be cancelled", orders::status_text(status)),
            "Tell the user the order can no longer be cancelled; do not retry.",
        )
        .field("order_id"),
        Refused::Store(e) => e.into(),
    }
}

impl Handlers for Tools {
    async fn create_order(&self, cx: &mut Context, args: CreateOrderArgs) -> Result<Order, ToolError> {
        if let Some(store) = &self.outside {
            let mut own = store.begin().await?;
            let order = orders::create(&mut own, &args).await?;
            own.commit().await?;
            self.crash.point("after-write");
            return Ok(order);
        }
        let tx = cx.transaction().await?;
        let order = orders::create(tx, &args).await?;
        // The crash experiment's point: the order is written, nothing is committed yet.
        self.crash.point("after-write");
        Ok(order)
    }

    async fn get_order(&self, cx: &mut Context, args: GetOrderArgs) -> Result<Order, ToolError> {
        let tx = cx.transaction().await?;
        orders::get(tx, &args.order_id).await?.ok_or_else(|| not_found(&args.order_id))
    }

    async fn list_orders(&self, cx: &mut Context, args: ListOrdersArgs) -> Result<ListOrdersResult, ToolError> {
        let tx = cx.transaction().await?;
        let filter = Filter { customer: args.customer, status: args.status };
        // `cursor` is the raw cursor this tool returned: the runtime opened the handle.
        let (items, next_cursor) = orders::list(tx, &filter, args.cursor.as_deref(), args.limit.unwrap_or(20)).await?;
        Ok(ListOrdersResult { items, next_cursor })
    }

    async fn cancel_order(&self, cx: &mut Context, args: CancelOrderArgs) -> Result<Order, ToolError> {
        let tx = cx.transaction().await?;
        orders::cancel(tx, &args.order_id, args.reason).await.map_err(refused)
    }

    async fn quote_shipping(
        &self,
        _cx: &mut Context,
        args: QuoteShippingArgs,
    ) -> Result<QuoteShippingResult, ToolError> {
        // Flat rates by zone; Turkey and the EU ship from the same warehouse.
        let domestic = matches!(args.country.as_str(), "TR" | "DE" | "FR" | "NL" | "IT" | "ES");
        let per_kg = if domestic { 150 } else { 600 };
        let kilos = (args.weight_grams + 999) / 1000;
        let base = 490 + per_kg * kilos;
        let express = args.express.unwrap_or(false);
        Ok(QuoteShippingResult {
            currency: QuoteShippingResultCurrency::Eur,
            amount: if express { base * 2 } else { base },
            days: match (domestic, express) {
                (_, true) => 1,
                (true, false) => 3,
                (false, false) => 8,
            },
        })
    }
}
