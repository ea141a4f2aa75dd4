//! Prometheus metrics (CONTRACT O2) on their own address (`serve --metrics ADDR`), away from
//! the MCP endpoint and its authentication: calls by tool and outcome, call latency,
//! idempotency replays and conflicts, upstream errors by class and refused handles. Recording
//! goes through the `metrics` facade, a no-op until `install` sets the Prometheus recorder.

use std::net::SocketAddr;

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

const CALLS: &str = "mcp_tool_calls_total";
const DURATION: &str = "mcp_tool_call_duration_seconds";
const REPLAYS: &str = "mcp_idempotency_replays_total";
const CONFLICTS: &str = "mcp_idempotency_conflicts_total";
const UPSTREAM_ERRORS: &str = "mcp_upstream_errors_total";
const HANDLE_REFUSALS: &str = "mcp_handle_refusals_total";
const UNEXPECTED_ANSWERS: &str = "mcp_unexpected_answers_total";

/// Latency buckets in seconds: a loopback upstream answers in about a millisecond, a slow one
/// in tens of seconds (the default upstream timeout is 30 s).
const BUCKETS: &[f64] = &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

/// Sets the process's Prometheus recorder; its handle renders the exposition.
pub fn install() -> Result<PrometheusHandle, String> {
    let handle = PrometheusBuilder::new()
        .set_buckets(BUCKETS)
        .map_err(|e| format!("metrics buckets: {e}"))?
        .install_recorder()
        .map_err(|e| format!("cannot install the metrics recorder: {e}"))?;
    metrics::describe_counter!(CALLS, "Tool calls answered, by tool and outcome (ok, or the error code).");
    metrics::describe_histogram!(DURATION, metrics::Unit::Seconds, "Time to answer a tool call, by tool.");
    metrics::describe_counter!(REPLAYS, "Calls answered from the idempotency record of an earlier call, by tool.");
    metrics::describe_counter!(
        CONFLICTS,
        "Calls refused for their idempotency key (in use by a running call, or reused with other arguments), by tool and code."
    );
    metrics::describe_counter!(UPSTREAM_ERRORS, "Calls the upstream failed, by error class.");
    metrics::describe_counter!(
        HANDLE_REFUSALS,
        "Next-page handles refused (forged, another caller's, expired), by tool."
    );
    metrics::describe_counter!(
        UNEXPECTED_ANSWERS,
        "Upstream answers outside the tool's outputSchema, by tool and the place (JSON Pointer, array indices as *) where they leave it."
    );
    Ok(handle)
}

/// Serves `GET /metrics` on `addr` until the process ends; `announce` gets the bound address.
pub async fn serve(
    handle: PrometheusHandle,
    addr: SocketAddr,
    announce: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    announce(listener.local_addr()?);
    let app = axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let handle = handle.clone();
            async move {
                // Histograms are drained into their buckets before each scrape.
                handle.run_upkeep();
                ([(http::header::CONTENT_TYPE, "text/plain; version=0.0.4")], handle.render())
            }
        }),
    );
    axum::serve(listener, app).await
}

/// One answered tool call: its outcome (`ok` or the error code), whether it was replayed, and
/// how long it took.
pub fn call(tool: &'static str, outcome: &str, replayed: bool, seconds: f64) {
    metrics::counter!(CALLS, "tool" => tool, "outcome" => outcome.to_owned()).increment(1);
    metrics::histogram!(DURATION, "tool" => tool).record(seconds);
    if replayed {
        metrics::counter!(REPLAYS, "tool" => tool).increment(1);
    }
    match outcome {
        crate::error::codes::IDEMPOTENCY_KEY_REUSED | crate::error::codes::IN_PROGRESS => {
            metrics::counter!(CONFLICTS, "tool" => tool, "code" => outcome.to_owned()).increment(1);
        }
        crate::error::codes::UPSTREAM_ERROR
        | crate::error::codes::UPSTREAM_UNAVAILABLE
        | crate::error::codes::UPSTREAM_REJECTED
        | crate::error::codes::DEADLINE_EXCEEDED => {
            metrics::counter!(UPSTREAM_ERRORS, "class" => outcome.to_owned()).increment(1);
        }
        _ => {}
    }
}

/// A next-page handle the server refused.
pub fn handle_refused(tool: &'static str) {
    metrics::counter!(HANDLE_REFUSALS, "tool" => tool).increment(1);
}

/// An upstream answer that left the tool's outputSchema at `pointer`.
pub fn unexpected_answer(tool: &'static str, pointer: &str) {
    metrics::counter!(UNEXPECTED_ANSWERS, "tool" => tool, "pointer" => pointer.to_owned()).increment(1);
}
