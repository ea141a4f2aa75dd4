//! The service's own HTTP API, as `spec/openapi.yaml` describes it, on the same order logic and
//! types as the MCP tools.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use mcp_gen_runtime::store::{Store, StoreError};
use std::sync::Arc;

use crate::contract::types::{CreateOrderArgs, ListOrdersArgs, ListOrdersResult, Reason};
use crate::orders::{self, Filter, Refused};

pub fn routes(store: Arc<dyn Store>) -> axum::Router {
    axum::Router::new()
        .route("/orders", get(list).post(create))
        .route("/orders/{order_id}", get(one))
        .route("/orders/{order_id}/cancel", post(cancel))
        .with_state(store)
}

fn problem(status: StatusCode, message: &str) -> Response {
    (status, Json(serde_json::json!({ "message": message }))).into_response()
}

fn store_error(e: StoreError) -> Response {
    tracing::error!(error = %e, "order store");
    problem(StatusCode::SERVICE_UNAVAILABLE, "the order store is unavailable")
}

async fn create(State(store): State<Arc<dyn Store>>, Json(new): Json<CreateOrderArgs>) -> Response {
    let result = async {
        let mut tx = store.begin().await?;
        let order = orders::create(&mut tx, &new).await?;
        tx.commit().await?;
        Ok::<_, StoreError>(order)
    }
    .await;
    match result {
        Ok(order) => (StatusCode::CREATED, Json(order)).into_response(),
        Err(e) => store_error(e),
    }
}

async fn one(State(store): State<Arc<dyn Store>>, Path(id): Path<String>) -> Response {
    let result = async {
        let mut tx = store.begin().await?;
        let order = orders::get(&mut tx, &id).await?;
        tx.commit().await?;
        Ok::<_, StoreError>(order)
    }
    .await;
    match result {
        Ok(Some(order)) => Json(order).into_response(),
        Ok(None) => problem(StatusCode::NOT_FOUND, &format!("no order {id}")),
        Err(e) => store_error(e),
    }
}

async fn list(State(store): State<Arc<dyn Store>>, Query(q): Query<ListOrdersArgs>) -> Response {
    let result = async {
        let mut tx = store.begin().await?;
        let filter = Filter { customer: q.customer, status: q.status };
        let page = orders::list(&mut tx, &filter, q.cursor.as_deref(), q.limit.unwrap_or(20).clamp(1, 100)).await?;
        tx.commit().await?;
        Ok::<_, StoreError>(page)
    }
    .await;
    match result {
        Ok((items, next_cursor)) => Json(ListOrdersResult { items, next_cursor }).into_response(),
        Err(e) => store_error(e),
    }
}

#[derive(serde::Deserialize)]
struct CancelBody {
    reason: Reason,
}

async fn cancel(State(store): State<Arc<dyn Store>>, Path(id): Path<String>, Json(body): Json<CancelBody>) -> Response {
    let result = async {
        let mut tx = store.begin().await.map_err(Refused::Store)?;
        let order = orders::cancel(&mut tx, &id, body.reason).await?;
        tx.commit().await.map_err(Refused::Store)?;
        Ok::<_, Refused>(order)
    }
    .await;
    match result {
        Ok(order) => Json(order).into_response(),
        Err(Refused::NotFound(id)) => problem(StatusCode::NOT_FOUND, &format!("no order {id}")),
        Err(Refused::State { id, status }) => {
            problem(StatusCode::CONFLICT, &format!("order {id} is {}", orders::status_text(status)))
        }
        Err(Refused::Store(e)) => store_error(e),
    }
}
