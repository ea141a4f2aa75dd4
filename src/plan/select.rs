//! T4: what is left out of tools/list unless the overlay asks for it — internal, admin and meta
//! endpoints (health and readiness checks, metrics, debug and admin routes, `x-internal`) and
//! deprecated operations. Each gets a reason, which the build and `mcp-gen plan` report.

use serde_json::Value;

use crate::resolve::Operation;

/// Path segments that name a probe or a meta endpoint when they are the whole path (besides
/// version segments and a leading `api`), such as `/health`, `/v1/readyz`, `/metrics`.
const META: &[&str] = &[
    "health",
    "healthz",
    "healthcheck",
    "health-check",
    "ready",
    "readyz",
    "readiness",
    "live",
    "livez",
    "liveness",
    "ping",
    "metrics",
    "heartbeat",
    "lbheartbeat",
    "version",
    "openapi",
    "openapi.json",
    "openapi.yaml",
    "swagger",
    "swagger.json",
    "api-docs",
    "docs",
    "status",
];
/// First path segments of admin and internal route trees.
const INTERNAL: &[&str] = &["admin", "internal", "_internal", "debug", "_debug", "__debug__"];

/// Why `op` is left out by default, if it is.
pub fn left_out_by_default(op: &Operation) -> Option<String> {
    let flag = |key: &str| op.extensions.get(key) == Some(&Value::Bool(true));
    if flag("x-internal") || flag("x-mcp-hidden") {
        return Some("marked internal in the spec".to_owned());
    }
    if op.deprecated {
        return Some("deprecated".to_owned());
    }
    let segments: Vec<String> = op
        .path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_matches('_').to_ascii_lowercase())
        .filter(|s| !is_version(s) && s != "api")
        .collect();
    if let [only] = segments.as_slice()
        && META.contains(&only.as_str())
    {
        return Some(format!("a meta endpoint (`{}`)", op.path));
    }
    if let Some(first) = segments.first()
        && INTERNAL.contains(&first.as_str())
    {
        return Some(format!("an internal or admin route (`{}`)", op.path));
    }
    None
}

fn is_version(segment: &str) -> bool {
    let rest = segment.strip_prefix('v').unwrap_or(segment);
    !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit() || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::Method;

    fn op(path: &str, deprecated: bool, ext: Option<&str>) -> Operation {
        Operation {
            method: Method::Get,
            path: path.to_owned(),
            operation_id: None,
            summary: None,
            description: None,
            tags: vec![],
            deprecated,
            parameters: vec![],
            body: None,
            success: None,
            security: vec![],
            pointer: String::new(),
            extensions: ext.map(|k| [(k.to_owned(), Value::Bool(true))].into_iter().collect()).unwrap_or_default(),
        }
    }

    #[test]
    fn probes_admin_internal_and_deprecated_are_left_out() {
        for path in [
            "/health",
            "/v1/healthz",
            "/api/v2/readyz",
            "/metrics",
            "/__heartbeat__",
            "/admin/users",
            "/internal/jobs/{id}",
        ] {
            assert!(left_out_by_default(&op(path, false, None)).is_some(), "{path}");
        }
        assert!(left_out_by_default(&op("/pets", true, None)).is_some());
        assert!(left_out_by_default(&op("/pets", false, Some("x-internal"))).is_some());
        // Resources that merely contain such words stay.
        for path in ["/pets", "/orders/{id}/status", "/v1/users/{id}/health-records", "/reports/metrics", "/versions"] {
            assert_eq!(left_out_by_default(&op(path, false, None)), None, "{path}");
        }
    }
}
