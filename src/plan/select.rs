//! T4: what is left out of tools/list unless the overlay asks for it — internal, admin and meta
//! endpoints (health and readiness checks, metrics, debug and admin routes, `x-internal`) and
//! deprecated operations, and one of the two copies of an action served on both GET and POST.
//! Each gets a reason, which the build and `mcp-gen plan` report.

use serde_json::Value;

use crate::plan::naming;
use crate::resolve::{BodyEncoding, Method, Operation};

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

/// Why each operation of an API is left out by default, if it is. The rules are judged against
/// the whole API: when most operations live under `/admin` (an admin API such as Google's Admin
/// SDK), that is the product, not a side door; when every operation is deprecated, the catalog is
/// not emptied.
pub fn defaults(ops: &[Operation]) -> Vec<Option<String>> {
    let mut reasons: Vec<Option<Reason>> = ops.iter().map(reason).collect();
    for (get, post) in same_actions(ops) {
        // The POST, unless its body is text the model would have to write itself (AWS's
        // converted documents give it `text/xml`, which the API does not read), or the action
        // reads: then the GET, whose arguments are query parameters.
        let text_body = ops[post].body.as_ref().is_some_and(|b| b.encoding == BodyEncoding::Text);
        // One springfox handler on both methods: the GET where its name leads with a read
        // (`getText`, `listPads`), so the tool stays a read.
        let reads = springfox_stem(&ops[get]).map(naming::first_word).is_some_and(|w| naming::is_read_verb(&w));
        let (out, kept) = if text_body || reads { (post, get) } else { (get, post) };
        if reasons[out].is_none() {
            let text = format!("the same action as {}, which is kept", ops[kept].label());
            reasons[out] = Some(Reason { kind: Kind::Duplicate, text });
        }
    }
    let count = |kind: Kind| reasons.iter().filter(|r| r.as_ref().is_some_and(|r| r.kind == kind)).count();
    let admin_api = count(Kind::Route) * 2 > ops.len();
    let all_deprecated = count(Kind::Deprecated) == ops.len();
    reasons
        .into_iter()
        .map(|r| {
            let waived = |r: &Reason| match r.kind {
                Kind::Route => admin_api,
                Kind::Deprecated => all_deprecated,
                Kind::Marked | Kind::Meta | Kind::Duplicate => false,
            };
            r.filter(|r| !waived(r)).map(|r| r.text)
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Marked,
    Deprecated,
    Meta,
    Route,
    Duplicate,
}

/// (GET, POST) pairs that are one action served on both methods: the same RPC action (the
/// route's fragment) and operationIds that differ only by the method they start with (AWS's
/// query API: `GET_DeleteDBProxy` and `POST_DeleteDBProxy` on `/#Action=DeleteDBProxy`); or the same route whose ids differ only by the method springfox
/// ends them with, one handler mapped to every method (Etherpad's `createGroupUsingGET` and
/// `createGroupUsingPOST` on `/createGroup`). A resource route's pair is a list and a create
/// (Stripe's `GetTestHelpersTestClocks` and `PostTestHelpersTestClocks`), whatever its ids say.
/// Two tools for one action double the catalog, and the GET one would look read-only while it
/// deletes.
fn same_actions(ops: &[Operation]) -> Vec<(usize, usize)> {
    use std::collections::BTreeMap;
    let mut posts: BTreeMap<(&str, String), usize> = BTreeMap::new();
    for (i, op) in ops.iter().enumerate() {
        if op.method == Method::Post
            && let Some(key) = action_key(op)
        {
            posts.insert(key, i);
        }
    }
    ops.iter()
        .enumerate()
        .filter(|(_, op)| op.method == Method::Get)
        .filter_map(|(i, op)| Some((i, *posts.get(&action_key(op)?)?)))
        .collect()
}

/// Where and what an action is: an RPC route's fragment and action (SQS serves
/// `GET /{AccountNumber}/{QueueName}/#Action=X` beside `POST /#Action=X`), or a route and
/// its springfox stem.
fn action_key(op: &Operation) -> Option<(&str, String)> {
    match op.path.split_once('#').filter(|_| naming::is_rpc_route(&op.path)) {
        Some((_, fragment)) => Some((fragment, action_of(op, fragment)?)),
        None => Some((op.path.as_str(), springfox_stem(op)?.to_owned())),
    }
}

/// The operationId without the `Using<METHOD>` springfox ends it with, for this operation's
/// method (`createGroupUsingGET` on a GET → `createGroup`).
fn springfox_stem(op: &Operation) -> Option<&str> {
    let id = op.operation_id.as_deref()?;
    let stem = id.strip_suffix(&format!("Using{}", op.method.as_lower().to_ascii_uppercase()))?;
    (!stem.is_empty()).then_some(stem)
}

/// The operationId's words past the method it starts with (`GET_DescribeX`, `get-describe-x`,
/// `getDescribeX` → `describex`); `None` unless it starts with its method and then a verb, or
/// then the action the route's fragment names (SQS's `GET_ReceiveMessage` on
/// `#Action=ReceiveMessage`).
fn action_of(op: &Operation, fragment: &str) -> Option<String> {
    let words = naming::after_method(op.operation_id.as_deref()?, op.method)?;
    let named = fragment.rsplit_once('=').map(|(_, action)| action.rsplit('.').next().unwrap_or(action));
    let said = named.is_some_and(|a| naming::snake_words(a) == words);
    (said || naming::is_action_verb(&words[0])).then(|| words.concat())
}

struct Reason {
    kind: Kind,
    text: String,
}

fn reason(op: &Operation) -> Option<Reason> {
    let r = |kind, text: String| Some(Reason { kind, text });
    let flag = |key: &str| op.extensions.get(key) == Some(&Value::Bool(true));
    if flag("x-internal") || flag("x-mcp-hidden") {
        return r(Kind::Marked, "marked internal in the spec".to_owned());
    }
    if op.deprecated {
        return r(Kind::Deprecated, "deprecated".to_owned());
    }
    let (kind, text) = route_reason(&op.path)?;
    r(kind, text)
}

/// Why a path alone looks internal or meta (T4), if it does.
fn route_reason(path: &str) -> Option<(Kind, String)> {
    let segments: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_matches('_').to_ascii_lowercase())
        .filter(|s| !is_version(s) && s != "api")
        .collect();
    if let [only] = segments.as_slice()
        && META.contains(&only.as_str())
    {
        return Some((Kind::Meta, format!("a meta endpoint (`{path}`)")));
    }
    if let Some(first) = segments.first()
        && INTERNAL.contains(&first.as_str())
    {
        return Some((Kind::Route, format!("an internal or admin route (`{path}`)")));
    }
    None
}

/// For lint: why a tool's route looks internal or meta.
pub fn looks_internal(path: &str) -> Option<String> {
    route_reason(path).map(|(_, text)| text)
}

/// `v1`, `v2.1`, `1.0`: not a bare number such as a status code.
fn is_version(segment: &str) -> bool {
    let (rest, prefixed) = match segment.strip_prefix('v') {
        Some(r) => (r, true),
        None => (segment, false),
    };
    !rest.is_empty()
        && rest.chars().all(|c| c.is_ascii_digit() || c == '.')
        && (prefixed || rest.contains('.'))
        && rest.starts_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Why `op` is left out, judged on its own (without the API-level waivers of `defaults`).
    fn left_out_by_default(op: &Operation) -> Option<String> {
        reason(op).map(|r| r.text)
    }

    fn op(path: &str, deprecated: bool, ext: Option<&str>) -> Operation {
        Operation {
            deprecated,
            extensions: ext.map(|k| [(k.to_owned(), Value::Bool(true))].into_iter().collect()).unwrap_or_default(),
            ..Operation::bare(Method::Get, path)
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
        for path in [
            "/pets",
            "/orders/{id}/status",
            "/v1/users/{id}/health-records",
            "/reports/metrics",
            "/versions",
            "/status/200",
        ] {
            assert_eq!(left_out_by_default(&op(path, false, None)), None, "{path}");
        }
    }

    #[test]
    fn an_admin_api_or_a_deprecated_one_keeps_its_tools() {
        let admin: Vec<Operation> =
            ["/admin/users", "/admin/groups", "/health"].iter().map(|p| op(p, false, None)).collect();
        let d = defaults(&admin);
        assert_eq!(d[0], None);
        assert_eq!(d[1], None);
        assert!(d[2].is_some(), "the probe still goes");
        let old: Vec<Operation> = ["/a", "/b"].iter().map(|p| op(p, true, None)).collect();
        assert_eq!(defaults(&old), vec![None, None]);
        let mixed: Vec<Operation> = vec![op("/a", true, None), op("/b", false, None), op("/admin/x", false, None)];
        let d = defaults(&mixed);
        assert!(d[0].is_some() && d[1].is_none() && d[2].is_some());
    }

    fn with_id(method: Method, path: &str, id: &str) -> Operation {
        Operation { operation_id: Some(id.to_owned()), ..Operation::bare(method, path) }
    }

    #[test]
    fn an_action_served_on_get_and_post_is_one_tool() {
        let path = "/#Action=DeleteDBProxy";
        let ops = vec![
            with_id(Method::Get, path, "GET_DeleteDBProxy"),
            with_id(Method::Post, path, "POST_DeleteDBProxy"),
            with_id(Method::Get, "/#Action=DescribeX", "GET_DescribeX"),
            with_id(Method::Post, "/#Action=DescribeX", "POST_DescribeX"),
            with_id(Method::Get, "/#X-Amz-Target=S.DeleteThing", "getDeleteThing"),
            with_id(Method::Post, "/#X-Amz-Target=S.DeleteThing", "postDeleteThing"),
        ];
        let d = defaults(&ops);
        assert_eq!(d[0].as_deref(), Some("the same action as POST /#Action=DeleteDBProxy, which is kept"));
        assert!(d[1].is_none() && d[2].is_some() && d[3].is_none());
        // A POST whose body is text (AWS's converted `text/xml`) gives way to the GET.
        let mut ops = ops;
        ops[1].body = Some(crate::resolve::RequestBody {
            required: true,
            media_type: "text/xml".to_owned(),
            encoding: BodyEncoding::Text,
            description: None,
            schema: serde_json::json!({"type": "object"}),
            pointer: String::new(),
        });
        let d = defaults(&ops);
        assert!(d[0].is_none(), "{d:?}");
        assert_eq!(d[1].as_deref(), Some("the same action as GET /#Action=DeleteDBProxy, which is kept"));
        assert!(d[4].is_some() && d[5].is_none(), "{d:?}");
        // A list and a create on one path are two actions (`GetCustomers`, `PostCustomers`), so
        // are ids that do not start with the method, or differ after it.
        for (path, get, post) in [
            ("/#Action=X", "GetCustomers", "PostCustomers"),
            ("/#Action=X", "listThings", "createThing"),
            ("/#Action=X", "getaway", "postaway"),
            ("/#Action=X", "GET_DeleteA", "POST_DeleteB"),
            // Only an RPC route: Stripe's test clocks are listed and created.
            ("/v1/test_helpers/test_clocks", "GetTestHelpersTestClocks", "PostTestHelpersTestClocks"),
        ] {
            let ops = vec![with_id(Method::Get, path, get), with_id(Method::Post, path, post)];
            assert_eq!(defaults(&ops), vec![None, None], "{path}: {get} / {post}");
        }
        // The action the fragment names, on the queue's route and on the bare one (SQS).
        let ops = vec![
            with_id(Method::Get, "/{AccountNumber}/{QueueName}/#Action=ReceiveMessage", "GET_ReceiveMessage"),
            with_id(Method::Post, "/#Action=ReceiveMessage", "POST_ReceiveMessage"),
        ];
        assert_eq!(
            defaults(&ops)[0].as_deref(),
            Some("the same action as POST /#Action=ReceiveMessage, which is kept")
        );
    }
}
