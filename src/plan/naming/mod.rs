//! Tool names (CONTRACT T1): verb_noun in snake_case, at most 64 characters of `[A-Za-z0-9_.-]`,
//! unique and deterministic. From the operationId when there is one, otherwise from the method
//! and path (`GET /pets` → `list_pets`, `POST /pets/{id}/approve` → `approve_pet`).

mod forms;
mod odata;
mod shorten;

use heck::ToSnakeCase;

pub use forms::{api_namespace, scoped_names};
use forms::{function_name, group_verb, handler_after_route, route_verb, using_method, verb_last, versioned_service};
pub use odata::{Names, Singletons, is_odata, names as odata_names};
pub use shorten::{fit, fitted};

use crate::resolve::{Method, Operation};

pub const MAX_LEN: usize = 64;

/// One way of reading an operation into a verb_noun name. The tables below are tried in order,
/// and the first rule that gives a name names the operation; `mcp-gen plan` shows which one as
/// `name_rule`, and the name snapshot of the corpus sample records it beside every name.
pub struct Rule {
    /// Stable name, as `name_rule` shows it.
    pub name: &'static str,
    /// What it reads, in one line.
    pub doc: &'static str,
    /// `(METHOD /path, operationId, name)` cases the rule names first: its unit tests.
    pub examples: &'static [(&'static str, &'static str, &'static str)],
    read: fn(&str, &Operation) -> Option<String>,
}

/// Rules that read the operationId as it is written, in the order they are tried.
pub const ID_RULES: &[Rule] = &[
    Rule {
        name: "route_prefixed",
        doc: "HubSpot's ids: the route, then the method's handler (`get-/webhooks/v3/{appId}/subscriptions_getAll`)",
        examples: &[(
            "GET /webhooks/v3/{appId}/subscriptions",
            "get-/webhooks/v3/{appId}/subscriptions_getAll",
            "list_subscriptions",
        )],
        read: |id, op| route_prefixed(id, op),
    },
    Rule {
        name: "handler_after_route",
        doc: "Enunciate's JAX-RS ids: the route, the handler, the method (`resource__1.0_artist__mbid__getArtist_GET`)",
        examples: &[("GET /1.0/artist/{mbid}", "resource__1.0_artist__mbid__getArtist_GET", "get_artist")],
        read: |id, op| handler_after_route(id, op),
    },
    Rule {
        name: "namespaced",
        doc: "a namespaced id whose last part leads with a verb (`issues/create`, `youtube.activities.list`)",
        examples: &[("POST /repos/{owner}/{repo}/issues", "issues/create", "create_issue")],
        read: |id, _| namespaced(id),
    },
    Rule {
        name: "namespaced_kebab",
        doc: "a write's `namespace/verb-object` id whose verb is on no list (`issues/pin-comment`, `actions/force-cancel-workflow-run`): in that convention the first word after the slash is the verb",
        examples: &[(
            "PUT /repos/{owner}/{repo}/issues/comments/{comment_id}/pin",
            "issues/pin-comment",
            "pin_issue_comment",
        )],
        // A read names what it returns (`teams/external-idp-group-info-for-org`,
        // `search/issues-and-pull-requests`): the read rules name those.
        read: |id, op| if matches!(op.method, Method::Get | Method::Head) { None } else { namespaced_kebab(id) },
    },
    Rule {
        name: "noun_verb",
        doc: "an Azure-style `Group_Method` id (`ManagementPolicies_CreateOrUpdate`, `Users_GetById`)",
        examples: &[("GET /users/{id}", "Users_GetById", "get_user_by_id")],
        read: |id, op| noun_verb(id, op.method, &op.path),
    },
    Rule {
        name: "rpc_path",
        doc: "an id that spells a dotted RPC route (Slack's `admin_apps_approve` for `POST /admin.apps.approve`)",
        examples: &[("POST /admin.apps.approve", "admin_apps_approve", "approve_admin_app")],
        read: |id, op| rpc_path(id, &op.path, op.method),
    },
    Rule {
        name: "function_name",
        doc: "FastAPI's ids: handler, route and method (`create_application_api_v1_app__post`)",
        examples: &[("POST /api/v1/app/", "create_application_api_v1_app__post", "create_application")],
        read: |id, op| function_name(id, op),
    },
    Rule {
        name: "using_method",
        doc: "Springfox's ids: the handler and `Using` the method (`getActiveObjectCountUsingGET`)",
        examples: &[("GET /objects/count", "getActiveObjectCountUsingGET", "get_active_object_count")],
        read: |id, op| using_method(id, op.method),
    },
    Rule {
        name: "versioned_service",
        doc: "Magento's ids: service, version, method name, HTTP method (`catalogAttributeSetRepositoryV1DeleteByIdDelete`)",
        examples: &[(
            "DELETE /V1/products/attribute-sets/{attributeSetId}",
            "catalogAttributeSetRepositoryV1DeleteByIdDelete",
            "delete_catalog_attribute_set_repository_by_id",
        )],
        read: |id, op| versioned_service(id, op.method),
    },
    Rule {
        name: "verb_last",
        doc: "framework ids with the verb last (Django REST framework's `patient_communications_create`)",
        examples: &[("POST /patient_communications", "patient_communications_create", "create_patient_communication")],
        read: |id, op| verb_last(id, op.method, &op.path),
    },
    Rule {
        name: "route_verb",
        doc: "an id ending with the verb its RPC route ends with (Plaid's `bankTransferCancel`)",
        examples: &[("POST /bank_transfer/cancel", "bankTransferCancel", "cancel_bank_transfer")],
        read: |id, op| route_verb(id, &op.path),
    },
    Rule {
        name: "group_verb",
        doc: "a group, then the method (DigitalOcean's `databases_create_cluster`, Gitea's `orgAddTeamMember`)",
        examples: &[("POST /databases", "databases_create_cluster", "create_database_cluster")],
        read: |id, op| group_verb(id, op.method),
    },
];

/// Rules that read the operationId in snake_case, tried after [`ID_RULES`]; when none gives a
/// name, the snake_case id is the name (`snake_id`).
pub const SNAKE_RULES: &[Rule] = &[
    Rule {
        name: "restated",
        doc: "an id that only restates method and route (Stripe's `PostCustomersCustomer`)",
        examples: &[("POST /v1/customers/{customer}", "PostCustomersCustomer", "update_customer")],
        read: |snake, op| restated(snake, op.method, &op.path),
    },
    Rule {
        name: "bare_verb",
        doc: "a verb alone (`create`, Springfox's `delete_2`), completed by what the route names",
        examples: &[("POST /customers", "create", "create_customer")],
        read: |snake, op| bare_verb(snake, op.method, &op.path),
    },
    Rule {
        name: "posted",
        doc: "a post of what the collection holds (LaunchDarkly's `postCustomRole` on `/roles`), read as a create",
        examples: &[("POST /roles", "postCustomRole", "create_custom_role")],
        read: |snake, op| posted(snake, op.method, &op.path),
    },
    Rule {
        name: "method_prefixed",
        doc: "a method before the action's own verb (AWS's `GET_DescribeDBClusters`, Adyen's `post-createTestCardRanges`)",
        examples: &[("POST /createTestCardRanges", "post-createTestCardRanges", "create_test_card_ranges")],
        read: |snake, op| method_prefixed(snake, op.method, &op.path),
    },
    Rule {
        name: "noun_read",
        doc: "a read named by its noun alone (Postman's `allCollections`, Zoom's `userAssistants`)",
        examples: &[("GET /users/{userId}/assistants", "userAssistants", "list_user_assistants")],
        read: |snake, op| noun_read(snake, op.method, &op.path),
    },
];

/// A name and the rule that gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub name: String,
    pub rule: &'static str,
}

/// The name an operation gets before collisions are resolved, and before it is fitted to
/// [`MAX_LEN`] (see [`fitted`]).
pub fn base_name(op: &Operation) -> String {
    base_named(op).name
}

/// [`base_name`], with the rule that gave it.
pub fn base_named(op: &Operation) -> Named {
    if let Some(odata) = odata_names(op, &Singletons::default())
        && let Some(name) = odata.names.into_iter().next()
    {
        return Named { name, rule: "odata" };
    }
    // An operationId that leads with its verb says what the link route does in its own words.
    let id = operation_id(op);
    let link = match id {
        Some(id) if is_action_verb(&first_word(id)) => None,
        _ => relationship_link(op.method, &op.path),
    };
    let (raw, rule) = match (link, id) {
        (Some(link), _) => (link, "relationship_link"),
        (None, Some(id)) => first_rule(ID_RULES, id, op).unwrap_or_else(|| {
            let snake = id.to_snake_case();
            first_rule(SNAKE_RULES, &snake, op).unwrap_or((snake, "snake_id"))
        }),
        (None, None) => (from_route(op.method, &op.path), "route"),
    };
    Named { name: finished(&plural_list(raw, op.method, &op.path)), rule }
}

/// The naming chapter's reference (`docs/reference/naming.md`): the rules in the order they are
/// tried, each with its examples, written from the tables above.
pub fn rules_markdown() -> String {
    let mut out = String::from(
        "# Naming rules\n\n<!-- @generated by mcp-gen from src/plan/naming/mod.rs: `cargo run -q -- schema naming > docs/reference/naming.md` -->\n\n",
    );
    out.push_str(
        "A tool's name (CONTRACT T1) is verb_noun in snake_case, at most 64 characters. An OData route is named by its route (`odata`); an id that names a relationship link by the link (`relationship_link`); otherwise the operationId is read by the first rule below that gives a name, in this order, and an operation without one is named from its method and route (`route`). `mcp-gen plan` shows the rule as `name_rule`; `tests/names/` records it beside every name of the corpus sample.\n\n",
    );
    for (title, rules, after) in [
        ("Rules on the operationId as written", ID_RULES, ""),
        (
            "Rules on the operationId in snake_case",
            SNAKE_RULES,
            "When none of them gives a name, the operationId in snake_case is the name (`snake_id`).\n",
        ),
    ] {
        out.push_str(&format!("## {title}\n\n| rule | reads | example |\n| --- | --- | --- |\n"));
        for r in rules {
            let examples: Vec<String> =
                r.examples.iter().map(|(route, id, name)| format!("`{route}` `{id}` → `{name}`")).collect();
            out.push_str(&format!("| `{}` | {} | {} |\n", r.name, r.doc.replace('|', "\\|"), examples.join("<br>")));
        }
        out.push('\n');
        out.push_str(after);
        if !after.is_empty() {
            out.push('\n');
        }
    }
    out.push_str(
        "## When names meet\n\nCandidates are tried in order: scoped to more of the API's namespace (`scoped`), the derived name, a summary that leads with a verb (`summary`), the route's reading of an id that ends in its verb (`verb_route`), the operationId as written (`operation_id`). A name longer than 64 characters is shortened readably (`+shortened`) or with a stable hash (`+hashed`). Where operations still meet, a route that says more is named with its nearest other segments (`+in_context`), and the rest are numbered in (path, method) order (`+numbered`). Names the overlay declares (`overlay`), a split mega-endpoint's behaviours (`split`), deprecated aliases (`alias`) and the status tool of long-running operations (`status_tool`) are not derived.\n",
    );
    out
}

fn first_rule(rules: &[Rule], text: &str, op: &Operation) -> Option<(String, &'static str)> {
    rules.iter().find_map(|r| (r.read)(text, op).map(|name| (name, r.name)))
}

#[cfg(test)]
mod rule_tests {
    use super::*;

    /// Every rule's examples are named by that rule, first, as the table says.
    #[test]
    fn each_rule_names_its_examples() {
        let mut failures = Vec::new();
        for rule in ID_RULES.iter().chain(SNAKE_RULES) {
            assert!(!rule.examples.is_empty(), "{} has no example", rule.name);
            for (route, id, want) in rule.examples {
                let (method, path) = route.split_once(' ').unwrap();
                let method = Method::parse(method).unwrap();
                let op = Operation { operation_id: Some((*id).to_owned()), ..Operation::bare(method, path) };
                let got = base_named(&op);
                if (got.name.as_str(), got.rule) != (*want, rule.name) {
                    failures.push(format!(
                        "{} {route} {id}: want {want} by {}, got {} by {}",
                        rule.name, rule.name, got.name, got.rule
                    ));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

/// A list named for one item (Twilio's `ListCall`, Kubernetes' `listNamespacedPod`) names its
/// collection as the route does: `list_calls` for `GET …/Calls.json`, `list_namespaced_pods`.
fn plural_list(name: String, method: Method, path: &str) -> String {
    let route = path.trim_end_matches('/');
    let last_segment = route.rsplit('/').next().unwrap_or_default();
    if method != Method::Get || !name.starts_with("list_") || last_segment.contains('{') {
        return name;
    }
    let collection = static_words(last_segment);
    let plural = collection.rsplit('_').next().unwrap_or_default();
    if plural.is_empty() || is_noise(last_segment) {
        return name;
    }
    match name.rsplit_once('_') {
        Some((stem, word)) if word != plural && singular(plural) == word => format!("{stem}_{plural}"),
        _ => name,
    }
}

/// A name as it would be served: without articles, in the allowed characters. It may be longer
/// than [`MAX_LEN`]: [`fitted`] gives what it can be served as.
fn finished(raw: &str) -> String {
    sanitize(&without_articles(raw))
}

/// The operationId as written (snake case, not yet fitted): what an operation falls back to when
/// its derived names collide (the caller drops it when it is the derived name).
pub fn id_name(op: &Operation) -> Option<String> {
    Some(sanitize(&operation_id(op)?.to_snake_case()))
}

/// The summary as a name, for an operation whose id only restates its method and route
/// (Box's `post_files_id`, SendGrid's `POST_templates-template_id`): what a tool falls back to
/// before that id when its derived name is taken. A short summary that leads with a verb says
/// what the operation does ("Restore file" → `restore_file`, "Duplicate a transactional
/// template" → `duplicate_transactional_template`). `None` for any other id or summary.
pub fn summary_name(op: &Operation) -> Option<String> {
    let method = first_word(&id_name(op)?);
    if method != op.method.as_lower() || !is_transport_word(&method) {
        return None;
    }
    let summary = op.summary.as_deref()?.trim().trim_end_matches('.');
    let words: Vec<String> = summary.split_whitespace().map(|w| w.to_lowercase()).collect();
    let plain = words.iter().all(|w| w.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    if !(2..=6).contains(&words.len()) || !plain || !is_action_verb(&words[0]) || is_transport_word(&words[0]) {
        return None;
    }
    let name = finished(&words.join("_").replace('-', "_"));
    (name.len() <= MAX_LEN && name.contains('_')).then_some(name)
}

/// The operationId, unless it is a database key rather than a name (see [`opaque`]).
fn operation_id(op: &Operation) -> Option<&str> {
    op.operation_id.as_deref().filter(|id| !opaque(id))
}

/// An operationId that is a database key, not a name (WMATA's and Halo's
/// `54763641281d830c946a3d78`, 24 hex digits): the route names the operation instead.
fn opaque(id: &str) -> bool {
    id.len() >= 16 && id.chars().all(|c| c.is_ascii_hexdigit()) && id.chars().any(|c| c.is_ascii_digit())
}

/// The words of an operationId in snake case, without versions and `api`.
fn id_words(id: &str) -> Vec<String> {
    snake_words(id).into_iter().filter(|w| !is_noise(w)).collect()
}

/// The last segment of a path that is not empty (`/bank_transfer/cancel/` → `cancel`).
fn last_segment(path: &str) -> Option<&str> {
    path.rsplit('/').find(|s| !s.is_empty())
}

/// Verbs an action path segment may be (`POST /payment_intents/{intent}/confirm`).
const ACTIONS: &[&str] = &[
    "accept",
    "activate",
    "approve",
    "archive",
    "attach",
    "cancel",
    "capture",
    "close",
    "commit",
    "complete",
    "confirm",
    "copy",
    "deactivate",
    "decline",
    "deliver",
    "detach",
    "disable",
    "enable",
    "expire",
    "fail",
    "finalize",
    "lock",
    "mark",
    "move",
    "pause",
    "pay",
    "publish",
    "reactivate",
    "refund",
    "reject",
    "release",
    "reopen",
    "reset",
    "restore",
    "resume",
    "retry",
    "return",
    "reverse",
    "revoke",
    "rotate",
    "search",
    "send",
    "ship",
    "start",
    "stop",
    "submit",
    "test",
    "unlock",
    "unpublish",
    "verify",
    "void",
];

/// Verbs that start an RPC-style path segment (`/createAccount`), besides [`ACTIONS`].
const VERBS: &[&str] = &[
    "add",
    "authorize",
    "calculate",
    "check",
    "create",
    "defend",
    "delete",
    "download",
    "execute",
    "export",
    "fetch",
    "find",
    "generate",
    "get",
    "import",
    "list",
    "login",
    "logout",
    "register",
    "remove",
    "request",
    "retrieve",
    "run",
    "set",
    "store",
    "supply",
    "sync",
    "terminate",
    "update",
    "upload",
    "validate",
];

/// Verbs of namespaced operationIds besides [`VERBS`] and [`ACTIONS`]: Google's `insert`,
/// `patch`, `watch`; GitHub's `repos/merge-upstream`, `gists/fork`, `users/block`; Slack's
/// `chat.postMessage`, `conversations.invite`, `views.open`. Only after a namespace, where the
/// part names a method, not a resource.
const METHOD_VERBS: &[&str] = &[
    "assign",
    "block",
    "compare",
    "connect",
    "convert",
    "deny",
    "disconnect",
    "dismiss",
    "end",
    "exchange",
    "failover",
    "follow",
    "fork",
    "insert",
    "invalidate",
    "invite",
    "join",
    "kick",
    "leave",
    "lookup",
    "merge",
    "open",
    "patch",
    "ping",
    "post",
    "push",
    "redeliver",
    "rename",
    "render",
    "replace",
    "rerequest",
    "restrict",
    "schedule",
    "share",
    "star",
    "suspend",
    "switchover",
    "transfer",
    "unarchive",
    "unblock",
    "unfollow",
    "unfurl",
    "uninstall",
    "unstar",
    "unsuspend",
    "watch",
];

/// Whether `word` is a verb a method name may start with.
fn is_verb(word: &str) -> bool {
    VERBS.contains(&word) || ACTIONS.contains(&word) || METHOD_VERBS.contains(&word)
}

/// Verbs an action's own name starts with (AWS's `DescribeDBClusters`, Azure's
/// `Databases_Failover`), besides those of [`is_verb`]. Only where the name is known to lead with
/// its verb: after a method prefix or an Azure-style `Noun_` group.
const ACTION_VERBS: &[&str] = &[
    "acknowledge",
    "allocate",
    "analyze",
    "apply",
    "associate",
    "backtrack",
    "backup",
    "change",
    "clear",
    "clone",
    "configure",
    "count",
    "deallocate",
    "define",
    "deprovision",
    "deregister",
    "describe",
    "destroy",
    "detect",
    "disassociate",
    "duplicate",
    "enumerate",
    "estimate",
    "evaluate",
    "failover",
    "inspect",
    "install",
    "invoke",
    "kill",
    "migrate",
    "modify",
    "preview",
    "promote",
    "provision",
    "prune",
    "purchase",
    "purge",
    "query",
    "read",
    "reboot",
    "redeploy",
    "refresh",
    "regenerate",
    "reimage",
    "renew",
    "restart",
    "resize",
    "revert",
    "rollback",
    "scale",
    "settle",
    "summarize",
    "swap",
    "switchover",
    "tag",
    "trigger",
    "unassign",
    "unpause",
    "untag",
    "upgrade",
];

/// Whether an action whose name starts with `word` names its verb first (see [`ACTION_VERBS`]).
pub fn is_action_verb(word: &str) -> bool {
    is_verb(word) || ACTION_VERBS.contains(&word)
}

/// A verb said in more than one word at the start of `words`: `create_or_update`, `add_or_replace`,
/// Graph's `createOrGet`, GitHub's `re-run`. The verb and how many words it takes.
pub fn compound_verb(words: &[String]) -> Option<(String, usize)> {
    match words {
        [first, or, second, ..]
            if or == "or" && is_action_verb(first) && (is_action_verb(second) || is_read_verb(second)) =>
        {
            Some((format!("{first}_or_{second}"), 3))
        }
        [re, verb, ..] if re == "re" && is_action_verb(verb) => Some((format!("re_{verb}"), 2)),
        _ => None,
    }
}

/// The verb `words` lead with: a [`compound_verb`], else the first word when `is_verb_here` says
/// it is one (each form has its own list). The verb and how many words it takes.
pub(super) fn leading_verb(words: &[String], is_verb_here: impl Fn(&str) -> bool) -> Option<(String, usize)> {
    compound_verb(words).or_else(|| words.first().filter(|w| is_verb_here(w)).map(|w| (w.clone(), 1)))
}

/// The first word of a name, lowercased (`DeleteDBProxy` → `delete`).
pub fn first_word(name: &str) -> String {
    snake_words(name).into_iter().next().unwrap_or_default()
}

/// The words of an operationId past the method it leads with (`GET_DeleteDBProxy` on a GET →
/// `[delete, db, proxy]`); `None` when it does not start with that method (`getaway`) or says
/// nothing more.
pub fn after_method(id: &str, method: Method) -> Option<Vec<String>> {
    let mut words = snake_words(id);
    (words.len() > 1 && words[0] == method.as_lower()).then(|| words.split_off(1))
}

/// The rest of a method named `GetAll…` (`GetAllPayments` → `[payments]`): a list.
fn lists_all(words: &[String]) -> Option<&[String]> {
    match words {
        [get, all, rest @ ..] if get == "get" && all == "all" => Some(rest),
        _ => None,
    }
}

/// An Azure-style `Group_Method` operationId (`ManagementPolicies_CreateOrUpdate`,
/// `GalleryImageVersions_ListByGalleryImage`, NSwag's `Users_GetById`) turned verb first:
/// `create_or_update_management_policy`, `list_gallery_image_versions_by_gallery_image`,
/// `get_user_by_id`. A `Put`/`Post`/`Patch` method word means what its HTTP method does
/// (DocuSign's `Tabs_PutTemplateDocumentTabs` → `update_template_document_tabs`). `None` unless
/// the id is exactly two PascalCase parts and the second starts with a verb.
fn noun_verb(id: &str, method: Method, path: &str) -> Option<String> {
    let (group, action) = id.split_once('_')?;
    let pascal =
        |s: &str| s.starts_with(|c: char| c.is_ascii_uppercase()) && s.chars().all(|c| c.is_ascii_alphanumeric());
    if !pascal(group) || !pascal(action) {
        return None;
    }
    let namespace = vec![snake_words(group)];
    // `GET_DescribeX`, `CREATE_Thing`, `Post_OrderLineItems`: the first part is a verb, not a
    // group (Azure's `Tag_GetByProduct` has a group that could be one).
    let shouted = group.len() > 1 && group.chars().all(|c| c.is_ascii_uppercase());
    if shouted || (namespace[0].len() == 1 && is_method_word(&namespace[0][0])) {
        return None;
    }
    let words = snake_words(action);
    if let Some(rest) = lists_all(&words) {
        return verb_first("list", &namespace, rest);
    }
    let verb = match (words.first()?.as_str(), method) {
        ("put", Method::Put) => "update".to_owned(),
        ("patch", Method::Patch) => "patch".to_owned(),
        ("post", Method::Post) => "create".to_owned(),
        (first, _) if is_transport_word(first) => return None,
        // `CreateOrUpdate`: one verb of two.
        _ if let Some((compound, _)) = compound_verb(&words) => compound,
        // A GET reads: `Line_StopPoints` names the stop points of a line.
        (first, Method::Get | Method::Head) if !is_read_verb(first) => return None,
        // NSwag's `Users_Get` on `GET /api/v2/Users` reads the collection: a list.
        ("get", Method::Get) if words.len() == 1 && lists_collection(&namespace[0], path) => "list".to_owned(),
        (first, _) if is_action_verb(first) => first.to_owned(),
        _ => return None,
    };
    let skip = if verb == "list" && words.first().is_some_and(|w| w == "get") { 1 } else { verb.split('_').count() };
    verb_first(&verb, &namespace, &words[skip..])
}

/// Whether a route ends with the plural collection a group names (`Users` on `/api/v2/Users`),
/// no id after it.
fn lists_collection(group: &[String], path: &str) -> bool {
    let Some(last) = group.last() else { return false };
    let route = last_segment(path).map(snake_words).unwrap_or_default();
    singular(last) != *last && route.last() == Some(last)
}

/// A route that names its action in a fragment (AWS's `/#Action=DeleteDBProxy`,
/// `/#X-Amz-Target=Service.DeleteThing`): its method says nothing about what the action does.
pub fn is_rpc_route(path: &str) -> bool {
    path.split_once('#').is_some_and(|(_, fragment)| fragment.contains('='))
}

/// Verbs of actions that only read.
pub fn is_read_verb(word: &str) -> bool {
    matches!(
        word,
        "analyze"
            | "calculate"
            | "check"
            | "compare"
            | "count"
            | "describe"
            | "download"
            | "enumerate"
            | "estimate"
            | "export"
            | "fetch"
            | "find"
            | "get"
            | "inspect"
            | "list"
            | "lookup"
            | "preview"
            | "query"
            | "read"
            | "retrieve"
            | "search"
            | "simulate"
            | "validate"
            | "view"
    )
}

/// HTTP method names, which some ids start with for transport only.
fn is_method_word(word: &str) -> bool {
    word == "get" || word == "delete" || is_transport_word(word)
}

/// Method names that are not the verb of what an action does (`get` and `delete` are).
pub fn is_transport_word(word: &str) -> bool {
    matches!(word, "put" | "post" | "patch" | "head" | "options")
}

/// Nouns a list does not pluralize.
const UNCOUNTABLE: &[&str] =
    &["analytics", "content", "data", "feedback", "history", "info", "information", "media", "metadata", "software"];

/// A simple English plural, the inverse of [`singular`] for regular nouns.
fn plural(word: &str) -> String {
    let vowel_before_y = word.len() > 1 && matches!(word.as_bytes()[word.len() - 2], b'a' | b'e' | b'o' | b'u');
    if word.ends_with('y') && !vowel_before_y {
        format!("{}ies", &word[..word.len() - 1])
    } else if ["s", "x", "ch", "sh", "z"].iter().any(|e| word.ends_with(e)) {
        format!("{word}es")
    } else {
        format!("{word}s")
    }
}

/// An operationId without the counter a generator added to keep ids unique (springfox's
/// `create_3`, `changeStatus_2`): the counter says nothing of the operation.
fn without_counter(id: &str) -> &str {
    match id.rsplit_once('_') {
        Some((stem, n))
            if !n.is_empty()
                && n.len() <= 3
                && n.chars().all(|c| c.is_ascii_digit())
                && stem.ends_with(|c: char| c.is_ascii_alphabetic()) =>
        {
            stem
        }
        _ => id,
    }
}

/// An id that is a verb alone (`create`, springfox's `delete_2`): the verb, then what the route
/// names (`POST /customers` → `create_customer`). `None` when the route names nothing else
/// (`GET /search`).
fn bare_verb(snake: &str, method: Method, path: &str) -> Option<String> {
    let verb = without_counter(snake);
    if !matches!(verb, "get" | "list" | "create" | "update" | "delete" | "add" | "remove" | "search" | "find") {
        return None;
    }
    let route = from_route(method, path);
    let (_, object) = route.split_once('_')?;
    let said = object.split('_').any(|w| w == verb || w == "root");
    (!said).then(|| format!("{verb}_{object}"))
}

/// An id that posts to a collection what the collection holds: `post` and the collection's
/// item, maybe qualified (LaunchDarkly's `postCustomRole` on `/roles`, Airflow's `post_dag_run`
/// on `/dags/{dag_id}/dagRuns`, loket's `PostDepartmentByEmployerId` on `…/departments`): it
/// creates one (T1), `create_custom_role`. A trailing `by_…` clause only names the route's
/// parameters and goes. `None` when a word is a verb (`postBestHitSearch`), or the route's last
/// segment is an action or a read (`/users/search`) or no collection of what is posted.
fn posted(snake: &str, method: Method, path: &str) -> Option<String> {
    let words: Vec<&str> = snake.split('_').filter(|w| !w.is_empty()).collect();
    if method != Method::Post || words.first() != Some(&"post") || path.contains(['#', '?', '=']) {
        return None;
    }
    let last = path.rsplit('/').find(|s| !s.is_empty()).filter(|s| !s.starts_with('{'))?;
    let collection = snake_words(last);
    let plural = collection.last()?;
    let item = singular(plural);
    if collection.iter().any(|w| is_action_verb(w) || is_read_verb(w)) || item == *plural {
        return None;
    }
    let by = words.iter().position(|w| *w == "by").unwrap_or(words.len());
    let mut rest = &words[1..by];
    // API Platform says which operation it is: `postCrawlCollection` posts to `/crawls`.
    if rest.len() > 1 && rest.last() == Some(&"collection") && !collection.iter().any(|w| w.starts_with("collection")) {
        rest = &rest[..rest.len() - 1];
    }
    // The item in the collection's own spelling, words run together or not: loket's
    // `PostAbpFundByEmploymentId` posts to `…/abpfunds`.
    let holds = rest.last() == Some(&item.as_str()) || rest.concat() == singular(&collection.concat());
    if !holds || rest.iter().any(|w| is_action_verb(w) || is_read_verb(w)) {
        return None;
    }
    Some(format!("create_{}", rest.join("_")))
}

/// An operationId that leads with a method before the action's own verb (AWS's
/// `GET_DescribeDBClusters` on `/#Action=DescribeDBClusters`, Adyen's `post-createTestCardRanges`):
/// the action's name (`describe_db_clusters`, `create_test_card_ranges`). On a GET of a resource
/// path the word after `get` is a noun (Zuora's `GET_RefundItemParts` reads a refund's parts):
/// only an RPC-style route names an action there.
fn method_prefixed(snake: &str, method: Method, path: &str) -> Option<String> {
    let words: Vec<&str> = snake.split('_').filter(|w| !w.is_empty()).collect();
    match words.as_slice() {
        // On an RPC route the id is the route's method, then the action (`GET_EnterStandby`);
        // elsewhere `get` and `delete` are verbs of their own (`DeleteRequestValidator`).
        [first, _, _, ..] if *first == method.as_lower() && is_rpc_route(path) => Some(words[1..].join("_")),
        [first, verb, _, ..] if is_action_verb(verb) && is_transport_word(first) && method != Method::Get => {
            Some(words[1..].join("_"))
        }
        _ => None,
    }
}

/// An id that names only what it reads, no verb (sportsdata's `PlayerDetailsByTeam`, Postman's
/// `allCollections`, Zoom's `userAssistants`, Halo's `Halo-5-Company`): a GET reads it, so the
/// name says so (T1): `list_` for a plural noun on a collection route, `get_` otherwise. `None`
/// when a word of the id is a verb (`userCheckFollowing`, `browseVmwareSnapshot` say what they
/// do in their own words) or starts with one (`getblock4`), and for other methods: a POST of a
/// noun may create or act, and a DELETE's id names its own verb (`destroy`, `unlink`, `kill`).
fn noun_read(snake: &str, method: Method, path: &str) -> Option<String> {
    if !matches!(method, Method::Get | Method::Head) {
        return None;
    }
    let mut words: Vec<&str> = snake.split('_').filter(|w| !w.is_empty()).collect();
    // `v3getFeedItemStatus`: a version before the verb.
    let glued = |w: &str| {
        let bare = w.strip_prefix('v').filter(|r| r.starts_with(|c: char| c.is_ascii_digit())).unwrap_or(w);
        let bare = bare.trim_start_matches(|c: char| c.is_ascii_digit());
        GLUED.iter().any(|v| w.len() > v.len() && bare.starts_with(v))
    };
    if words
        .iter()
        .any(|w| is_action_verb(w) || is_read_verb(w) || is_method_word(w) || OTHER_VERBS.contains(w) || glued(w))
    {
        return None;
    }
    // A word that is a noun at the end (`project_filter`) leads as a verb (`filterProjectEnvs`).
    if words.len() > 1 && ["compute", "filter", "index", "review", "split", "track"].contains(&words[0]) {
        return None;
    }
    // A group that the method names again says it once (`Stops_StopsByGeolocation`,
    // `Errors_ErrorLocation`): the second, nearer the rest.
    say_once(&mut words, &[3, 2, 1], |a, b| singular(a) == singular(b));
    // The noun is the last word before a qualifier (`player_details` of `…_by_team`).
    let noun = *words.iter().take_while(|w| !PREPOSITIONS.contains(w)).last()?;
    let verb = if is_collection_route(path) && singular(noun) != noun && !UNCOUNTABLE.contains(&noun) {
        "list"
    } else {
        "get"
    };
    Some(format!("{verb}_{}", words.join("_")))
}

/// Verbs that lead or end ids in the corpus besides those the forms above read (and words that
/// ask, `are_games_in_progress`): an id with one of them says what it does in its own words.
const OTHER_VERBS: &[&str] = &[
    "ack",
    "adopt",
    "aggregate",
    "animate",
    "anonymize",
    "are",
    "browse",
    "can",
    "clean",
    "compile",
    "contribute",
    "crawl",
    "decode",
    "del",
    "demote",
    "deschedule",
    "destroy",
    "discover",
    "do",
    "does",
    "echo",
    "edit",
    "eval",
    "exec",
    "exists",
    "expand",
    "extract",
    "flush",
    "geocode",
    "give",
    "go",
    "guess",
    "has",
    "have",
    "hide",
    "initiate",
    "is",
    "kill",
    "listen",
    "locate",
    "make",
    "mget",
    "notify",
    "optimize",
    "parse",
    "predict",
    "receive",
    "redirect",
    "reload",
    "resolve",
    "retain",
    "save",
    "see",
    "shorten",
    "show",
    "sign",
    "spellcheck",
    "suggest",
    "talk",
    "transform",
    "translate",
    "troubleshoot",
    "un",
    "unban",
    "uninvite",
    "unlike",
    "unlink",
    "unmark",
    "unregister",
    "unset",
    "unsubscribe",
    "unsuppress",
    "use",
    "visualize",
    "withdraw",
];

/// Verbs some ids glue to their noun (`getblock4`, `listtransactionsbyaddress`, `v3getFeed…`).
const GLUED: &[&str] =
    &["convert", "delete", "drop", "fetch", "find", "get", "list", "remove", "request", "retrieve", "search"];

/// Drops a run of `k` words (for each `k` of `runs`, longest first) that the next `k` words
/// repeat, by `same`: the later copy, nearer the rest of the name, stays.
fn say_once<T: AsRef<str>>(words: &mut Vec<T>, runs: &[usize], same: impl Fn(&str, &str) -> bool) {
    for &k in runs {
        let mut i = 0;
        while i + 2 * k <= words.len() {
            if (0..k).all(|j| same(words[i + j].as_ref(), words[i + k + j].as_ref())) {
                words.drain(i..i + k);
            } else {
                i += 1;
            }
        }
    }
}

/// Whether a route ends with a collection rather than an item's id (`/pets`, not `/pets/{id}`).
pub(crate) fn is_collection_route(path: &str) -> bool {
    !path.trim_end_matches('/').ends_with('}')
}

/// HubSpot's operationIds spell out the route and then name the method
/// (`get-/webhooks/v3/{appId}/subscriptions_getAll`): the method's verb and the route's last
/// resource (`list_subscriptions`, `get_subscription_by_id`, `archive_subscription`).
fn route_prefixed(id: &str, op: &Operation) -> Option<String> {
    let name = id.strip_prefix(op.method.as_lower())?.strip_prefix('-')?.strip_prefix(op.path.as_str())?;
    let words = snake_words(name.strip_prefix('_')?);
    let (verb, used) = leading_verb(&words, is_action_verb)?;
    // The last segment that is a resource: not a parameter, a version, an action (`/delete`)
    // nor a word of the method.
    let noun = op
        .path
        .split('/')
        .rev()
        .filter(|s| !s.is_empty() && !s.starts_with('{') && !is_noise(s) && !is_action_verb(&first_word(s)))
        .find(|s| !snake_words(s).iter().all(|w| words.contains(w)))?;
    let namespace = vec![snake_words(noun)];
    match lists_all(&words) {
        Some(rest) => verb_first("list", &namespace, rest),
        None => verb_first(&verb, &namespace, &words[used..]),
    }
}

/// Articles in a name made from a sentence (`retrieve_a_media_item` → `retrieve_media_item`).
/// A lone `a` before `record` is a DNS record type, and before `to` a letter (`a_to_z`), not an
/// article.
fn without_articles(name: &str) -> String {
    let words: Vec<&str> = name.split('_').collect();
    let kept: Vec<&str> = words
        .iter()
        .enumerate()
        .filter(|&(i, w)| {
            let article = matches!(*w, "a" | "an" | "the")
                && i > 0
                && i + 1 < words.len()
                && !(*w == "a" && (words[i + 1].starts_with("record") || words[i + 1] == "to"));
            !article
        })
        .map(|(_, w)| *w)
        .collect();
    kept.join("_")
}

/// Words that start a qualifier rather than a noun (`list-for-repo`).
const PREPOSITIONS: &[&str] = &["for", "in", "on", "by", "to", "from", "with", "of", "at"];

/// A namespaced operationId whose verb comes after the namespace (GitHub's `issues/create`,
/// `repos/list-branches`; Google's and Slack's `youtube.activities.list`, `admin.apps.approve`)
/// turned verb first (T1): `create_issue`, `list_repo_branches`, `list_youtube_activities`,
/// `approve_admin_app`. The namespace stays as the noun, singular unless the verb lists, and is
/// not repeated when the rest already names it (`issues/list-comments` → `list_issue_comments`,
/// `repos/get-repo-rule` → `get_repo_rule`). `None` when the id has no namespace or its last
/// part does not start with a verb.
fn namespaced(id: &str) -> Option<String> {
    let parts = method_parts(id);
    let (last, namespace) = parts.split_last()?;
    let (verb, used) = leading_verb(last, is_verb)?;
    if namespace.is_empty() {
        return None;
    }
    verb_first(&verb, namespace, &last[used..])
}

/// GitHub's convention, `namespace/verb-object` in kebab case, for verbs on no list: the first
/// word after the slash is the verb; a modifier and the known verb after it are one
/// (`force-cancel`). No other document of the corpus writes its ids so.
/// Words that lead a verb rather than name one (`force-cancel`, `bulk-delete`).
const VERB_MODIFIERS: &[&str] = &["force", "bulk", "batch"];

fn namespaced_kebab(id: &str) -> Option<String> {
    let (namespace, last) = id.split_once('/')?;
    let kebab = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !kebab(namespace) || !kebab(last) || !last.contains('-') {
        return None;
    }
    let words: Vec<String> = last.split('-').map(str::to_owned).collect();
    if words.iter().any(String::is_empty) || words[0].chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (verb, used) = match words.get(1) {
        Some(second) if words.len() > 2 && VERB_MODIFIERS.contains(&words[0].as_str()) && is_verb(second) => {
            (format!("{}_{second}", words[0]), 2)
        }
        _ => (words[0].clone(), 1),
    };
    verb_first(&verb, &[snake_words(namespace)], &words[used..])
}

/// `admin.apps.approve` → `[[admin], [apps], [approve]]`, each part's words in snake case.
fn method_parts(id: &str) -> Vec<Vec<String>> {
    id.split(['.', '/']).map(snake_words).filter(|words| !words.is_empty()).collect()
}

/// `listBranches` → `[list, branches]`: the words of a name part, in snake case.
pub(crate) fn snake_words(part: &str) -> Vec<String> {
    part.to_snake_case().split('_').filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

/// `verb`, then the namespace as the noun, then the rest of the method's words.
fn verb_first(verb: &str, namespace: &[Vec<String>], rest: &[String]) -> Option<String> {
    // Versions (`v1`, `2`) and `api` say nothing about the resource.
    let mut nouns: Vec<String> = namespace
        .iter()
        .flatten()
        .filter(|w| !is_noise(w) && !w.chars().all(|c| c.is_ascii_digit()))
        .cloned()
        .collect();
    let qualifier = rest.first().is_some_and(|w| PREPOSITIONS.contains(&w.as_str()));
    // The namespace names a collection: one item unless the verb lists them, or unless a noun
    // of the rest follows (`list_repo_branches`).
    let lists = verb == "list" || verb.ends_with("_list") || verb.starts_with("batch_") || verb.starts_with("bulk_");
    let one = !lists || (!rest.is_empty() && !qualifier);
    if let Some(noun) = nouns.last_mut() {
        // `Reservation_List` lists reservations.
        *noun = if one {
            singular(noun)
        } else if rest.is_empty()
            && singular(noun) == *noun
            && !UNCOUNTABLE.contains(&noun.as_str())
            && !noun.ends_with("ed")
        {
            plural(noun)
        } else {
            noun.clone()
        };
    }
    // The rest names the resource itself (`repos/get-repo-rule`, `SupplierPayment_GetAllPayments`):
    // said once, after the verb. Only before a qualifier: `CreateHeaderAttachmentBydebitNoteNumber`
    // keeps its group's `note`.
    let named_part: Vec<&String> =
        rest.iter().take_while(|w| !PREPOSITIONS.contains(&w.as_str()) && !w.starts_with("by")).collect();
    let said = |noun: &str| named_part.iter().any(|w| singular(w) == singular(noun));
    if nouns.iter().all(|n| said(n)) {
        nouns.clear();
    } else if nouns.last().is_some_and(|n| said(n)) {
        nouns.pop();
    }
    let words: Vec<&str> =
        std::iter::once(verb).chain(nouns.iter().map(String::as_str)).chain(rest.iter().map(String::as_str)).collect();
    (words.len() > 1).then(|| words.join("_"))
}

/// An operationId that spells out a dotted RPC path (Slack's `admin_apps_approve` for
/// `POST /admin.apps.approve`): the path's namespaces, verb first, as [`namespaced`] reads them;
/// a read whose method names what it returns, as [`read_method`] does.
fn rpc_path(id: &str, path: &str, method: Method) -> Option<String> {
    let rpc = path.trim_matches('/');
    if rpc.contains('/') || !rpc.contains('.') || id.to_snake_case() != rpc.replace('.', "_").to_snake_case() {
        return None;
    }
    namespaced(rpc).or_else(|| if method == Method::Get { read_method(rpc) } else { None })
}

/// A read whose RPC method is a noun (Slack's `conversations.info`, `conversations.history`,
/// `users.identity`): `get_conversation` (an `info` says nothing more), `list_conversation_history`
/// (a history or a plural lists), `get_user_identity`. `None` when the namespace is itself a verb
/// (`search.messages` reads well as it is) or the method a participle (`workflows.stepCompleted`
/// reports an event, whatever its HTTP method).
fn read_method(rpc: &str) -> Option<String> {
    let parts = method_parts(rpc);
    let (last, namespace) = parts.split_last()?;
    let first = namespace.first()?.first()?;
    let end = last.last()?;
    if is_verb(first) || last.first().is_some_and(|w| is_verb(w)) || end.ends_with("ed") {
        return None;
    }
    let lists = end == "history" || singular(end) != *end;
    let rest: &[String] = if last.len() == 1 && end == "info" { &[] } else { last };
    verb_first(if lists { "list" } else { "get" }, namespace, rest)
}

/// An operationId that only spells out the HTTP method and the path (Stripe's
/// `PostCustomersCustomer`, Box's `post_storage_policy_assignments`) names its verb after the
/// method: `post_customers` for a create, `get_customers` for a list. Such an id keeps its words
/// with the verb the route means (T1): `create_customer`, `list_customers`, `update_customer`,
/// `confirm_payment_intent`. `None` when the id says more than the route.
fn restated(snake: &str, method: Method, path: &str) -> Option<String> {
    // An id that leads with a transport method keeps its words here, so that a summary with a
    // verb comes first; [`verb_route_name`] offers the route's reading after it.
    read_restated(snake, method, path)
        .filter(|r| !(r.verb_route && is_transport_word(method.as_lower())))
        .map(|r| r.name)
}

/// The name of an operation whose id restates a route that ends in its verb, read as the route
/// does (Stripe's `PostAppsSecretsDelete` → `delete_secrets`): for an id that leads with a
/// transport method, which [`restated`] leaves as written (`post_oauth2_revoke`'s summary
/// "Revoke access token" names it first).
pub fn verb_route_name(op: &Operation) -> Option<String> {
    let id = operation_id(op)?;
    read_restated(&id.to_snake_case(), op.method, &op.path).filter(|r| r.verb_route).map(|r| finished(&r.name))
}

/// How an id that restates its route reads.
struct Restated {
    name: String,
    /// Read from a route that ends in its verb (`/v1/charges/search` → `search_charges`).
    verb_route: bool,
}

/// [`restated`]'s reading, whatever the method.
fn read_restated(snake: &str, method: Method, path: &str) -> Option<Restated> {
    let mut words: Vec<&str> = snake.split('_').filter(|w| !w.is_empty()).collect();
    // RPC-style routes (`/#Action=AcceptAddressTransfer`, `/checkAccountHolder`) carry their
    // verb in the path: the id is kept as written.
    if words.len() < 2 || words[0] != method.as_lower() || path.contains(['#', '?', '=']) {
        return None;
    }
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let at = segments.iter().rposition(|s| !s.starts_with('{'));
    let last_segment = at.map_or("", |i| segments[i]);
    // An action on an item (`/payment_intents/{intent}/confirm`) is REST; a verb anywhere else is RPC.
    let after_item = at.is_some_and(|i| i > 0 && segments[i - 1].starts_with('{'));
    let camel = last_segment.as_bytes().windows(2).any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    let segment_words = last_segment.to_snake_case();
    let verb_first = segment_words.split('_').next().is_some_and(|w| VERBS.contains(&w) || ACTIONS.contains(&w))
        && leads_with_verb(&segment_words);
    if camel {
        return None;
    }
    let route: Vec<String> = path.split(['/', '.', '-', '{', '}']).flat_map(snake_words).collect();
    if !words[1..].iter().all(|w| route.iter().any(|r| r == w || singular(r) == *w)) {
        return None;
    }
    // An id that restates a route whose last segment is its verb (Stripe's
    // `PostAppsSecretsDelete`, `GetChargesSearch`) reads as the route does, where the route
    // reads as that verb (`delete_secrets`, `search_charges`).
    if verb_first && !after_item {
        // Only a segment that is the verb alone, and ends the route: `get_opted_in_programs`
        // or `/get-server-strategies/{id}` say more than a verb and stay as the id says.
        let ends = segments.last() == Some(&last_segment);
        let name = route_name(method, path, true);
        // A verb without an object (Adyen's `post-cancel` on `/cancel`) says less than the
        // operation's summary, which then names it.
        let reads_so = name.split_once('_').is_some_and(|(verb, _)| verb == segment_words);
        return (ends && reads_so).then_some(Restated { name, verb_route: true });
    }
    words.remove(0);
    // Words only a parameter's name has (`app_id`'s `app`, `id`) name no resource: they go, and a
    // collection an id follows names one item (`collections/{collection_id}` → `collection`).
    let statics: Vec<String> = segments.iter().filter(|s| !s.starts_with('{')).flat_map(|s| snake_words(s)).collect();
    let in_statics = |w: &str| statics.iter().any(|s| s == w || singular(s) == w);
    // Only the words of id parameters (`{appId}`, `{file_id}`); `{person}` names its resource.
    let id_words: Vec<String> = segments
        .iter()
        .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .map(snake_words)
        .filter(|words| words.last().is_some_and(|w| w == "id"))
        .flatten()
        .collect();
    words.retain(|w| in_statics(w) || !id_words.iter().any(|i| i == w));
    // Each collection an id follows, by the last word of its segment, in route order: the
    // first such word of the id is that collection, named as one item.
    let mut item_of: Vec<String> = segments
        .windows(2)
        .filter(|p| !p[0].starts_with('{') && p[1].starts_with('{'))
        .filter_map(|p| p[0].to_snake_case().rsplit('_').next().map(str::to_owned))
        .collect();
    let words: Vec<String> = words
        .iter()
        .map(|w| match item_of.iter().position(|i| i == w) {
            Some(at) => {
                item_of.remove(at);
                singular(w)
            }
            None => (*w).to_owned(),
        })
        .collect();
    let mut words: Vec<&str> = words.iter().map(String::as_str).collect();
    if words.is_empty() {
        return None;
    }
    let ends_with_param = segments.last().is_some_and(|s| s.starts_with('{'));
    let last = words.last().copied().unwrap_or_default();
    let says_verb = words.first().is_some_and(|w| is_action_verb(w)) || (verb_first && after_item);
    let verb = match method {
        Method::Post if !ends_with_param && words.len() > 1 && ACTIONS.contains(&last) => {
            words.pop();
            last
        }
        // `POST /payments/{payment-id}/settle` named `PostSettlePayment`: the action leads.
        Method::Post if after_item && words.len() > 1 && words[0] == last_segment && is_action_verb(last_segment) => {
            words.remove(0);
            last_segment
        }
        Method::Get if !ends_with_param && singular(last) != last => "list",
        Method::Get | Method::Head => "get",
        Method::Post if ends_with_param => "update",
        Method::Post => "create",
        Method::Delete => "delete",
        // Where PUT and PATCH serve one path, both are update_x and meet: their ids keep them
        // apart (see `plan::assign_names`). An id or a route that says its own verb
        // (`PUT_DeactivateAccountingCode`, `…/accept-access`, `…/put-object`) keeps it.
        Method::Put | Method::Patch if !says_verb => "update",
        Method::Put | Method::Patch | Method::Options | Method::Trace => return None,
    };
    // `customers_customer` (a collection, then its id parameter) says `customer` once.
    let mut nouns: Vec<String> = Vec::with_capacity(words.len());
    for w in words {
        if nouns.last().is_some_and(|prev| prev == w || singular(prev) == w) {
            nouns.pop();
        }
        nouns.push(w.to_owned());
    }
    // `value_lists/{value_list}` says `value_list` once too.
    say_once(&mut nouns, &[3, 2], |a, b| a == b);
    if verb != "list"
        && let Some(last) = nouns.last_mut()
    {
        *last = singular(last);
    }
    Some(Restated { name: format!("{verb}_{}", nouns.join("_")), verb_route: false })
}

/// Keeps `[A-Za-z0-9_.-]`, turns everything else into `_`, and collapses repeats.
pub fn sanitize(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '.' | '-') { c } else { '_' };
        if c == '_' && (out.is_empty() || out.ends_with('_')) {
            continue;
        }
        out.push(c);
    }
    let out = out.trim_end_matches('_').to_owned();
    if out.is_empty() { "call_api".to_owned() } else { out }
}

/// `base`, or `base_2`, `base_3`… whichever is not taken yet; the result is taken.
pub fn numbered(base: &str, taken: &mut std::collections::BTreeSet<String>) -> String {
    let name = crate::text::unique(base, "_", |c| taken.contains(c));
    taken.insert(name.clone());
    name
}

/// Version segments (`v2`, `v1.1`) and `api` say nothing about the resource.
pub fn is_noise(segment: &str) -> bool {
    let s = segment.to_ascii_lowercase();
    let digits = s.strip_prefix('v').unwrap_or("");
    (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit() || c == '.')) || s == "api"
}

/// A simple English singular for resource nouns; plural forms it does not know are kept.
pub fn singular(word: &str) -> String {
    let lower = word.to_ascii_lowercase();
    // Nouns that end like plurals and are not.
    if matches!(lower.as_str(), "analytics" | "kubernetes" | "news" | "series" | "species" | "status") {
        return word.to_owned();
    }
    if lower == "ids" {
        return word[..2].to_owned();
    }
    // Not `taxes`, `faxes`: only the word itself.
    if lower == "axes" {
        return format!("{}is", &word[..2]);
    }
    // `aliases`, `statuses`: nouns in `s` that take `es` (not `databases` nor `houses`).
    const TAKE_ES: &[&str] = &["alias", "atlas", "bias", "bonus", "campus", "canvas", "census", "status", "virus"];
    if TAKE_ES.iter().any(|one| lower.ends_with(one)) || lower == "bus" || lower == "gas" {
        return word.to_owned();
    }
    let takes_es = TAKE_ES.iter().any(|one| lower.strip_suffix("es").is_some_and(|stem| stem.ends_with(one)));
    if takes_es || lower == "buses" || lower == "gases" {
        return word[..word.len() - 2].to_owned();
    }
    // `bookshelves`, `halves`; not `valves` nor `resolves`.
    for (plural, one) in [("shelves", "shelf"), ("halves", "half"), ("wolves", "wolf"), ("knives", "knife")] {
        if lower.ends_with(plural) {
            return format!("{}{one}", &word[..word.len() - plural.len()]);
        }
    }
    if let Some(stem) = lower.strip_suffix("ies")
        && stem.len() > 1
    {
        return format!("{}y", &word[..stem.len()]);
    }
    // `caches`, `niches`: a single vowel before `ches` ends the singular in `e` (not `coaches`).
    let b = lower.as_bytes();
    let vowel = |c: u8| matches!(c, b'a' | b'e' | b'i' | b'o' | b'u');
    if lower.ends_with("ches") && b.len() > 5 && vowel(b[b.len() - 5]) && !vowel(b[b.len() - 6]) {
        return word[..word.len() - 1].to_owned();
    }
    for ending in ["sses", "xes", "ches", "shes", "zzes"] {
        if lower.ends_with(ending) {
            return word[..word.len() - 2].to_owned();
        }
    }
    if lower.ends_with('s')
        && !lower.ends_with("ss")
        && !lower.ends_with("us")
        && !lower.ends_with("is")
        && lower.len() > 3
    {
        return word[..word.len() - 1].to_owned();
    }
    word.to_owned()
}

/// A JSON:API relationship route (`/v1/betaGroups/{id}/relationships/betaTesters`) acts on the
/// links between two resources, not on either resource, as the JSON:API specification defines
/// each method: `add_beta_group_beta_testers` (POST), `remove_…` (DELETE), `replace_…` (PATCH of
/// a to-many link; `set_…` of a to-one), `list_beta_group_beta_tester_ids` (GET; `get_…_id` of a
/// to-one). App Store Connect's ids (`betaGroups-betaTesters-create_to_many_relationship`) and
/// routes without ids (Up's `/transactions/{transactionId}/relationships/tags`) name no verb;
/// OSF's ids name the wrong one (`collections_linked_nodes_relationships_create` on a GET).
fn relationship_link(method: Method, path: &str) -> Option<String> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    // OSF writes the link's name first (`/collections/{id}/linked_nodes/relationships/`).
    let (parent, id, related) = match segments.as_slice() {
        [.., parent, id, "relationships", related] | [.., parent, id, related, "relationships"] => {
            (parent, id, related)
        }
        _ => return None,
    };
    let plain = |s: &str| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !id.starts_with('{') || !plain(parent) || !plain(related) {
        return None;
    }
    let parent = singular(&parent.to_snake_case());
    let related = related.to_snake_case();
    let one = singular(&related);
    let to_many = one != related;
    Some(match (method, to_many) {
        (Method::Get, true) => format!("list_{parent}_{one}_ids"),
        (Method::Get, false) => format!("get_{parent}_{one}_id"),
        (Method::Post, _) => format!("add_{parent}_{related}"),
        (Method::Delete, _) => format!("remove_{parent}_{related}"),
        (Method::Patch | Method::Put, true) => format!("replace_{parent}_{related}"),
        (Method::Patch | Method::Put, false) => format!("set_{parent}_{related}"),
        _ => return None,
    })
}

/// A route-derived name said with more of its route: the `k` nearest static segments before
/// the last that say words the name does not say yet, each as one item, after the verb
/// (`GET /v3/search/events` → `list_search_events` beside `/v3/events`' `list_events`;
/// `/user/votes/shows` → `list_vote_shows`, then `list_user_vote_shows`). `None` when the route
/// has fewer such segments, the name is not the route's (an operationId names it), or it would
/// not fit in [`MAX_LEN`].
pub fn in_context(op: &Operation, name: &str, k: usize) -> Option<String> {
    if operation_id(op).is_some() || k == 0 {
        return None;
    }
    let words: Vec<&str> = name.split('_').collect();
    let (verb, rest) = words.split_first()?;
    let statics = route_statics(&op.path);
    let (_, before) = statics.split_last()?;
    let mut context: Vec<String> = Vec::new();
    let mut used = 0;
    for segment in before.iter().rev().filter(|s| !s.templated) {
        if used == k {
            break;
        }
        let mut said: Vec<String> = segment.said.split('_').map(str::to_owned).collect();
        if let Some(last) = said.last_mut() {
            *last = singular(last);
        }
        said.retain(|w| !words.contains(&w.as_str()) && !context.contains(w));
        if !said.is_empty() {
            context.splice(0..0, said);
            used += 1;
        }
    }
    if used < k {
        return None;
    }
    let name = finished(
        &std::iter::once(*verb)
            .chain(context.iter().map(String::as_str))
            .chain(rest.iter().copied())
            .collect::<Vec<_>>()
            .join("_"),
    );
    (name.len() <= MAX_LEN).then_some(name)
}

/// A route or segment without its format extension, which says how, not what
/// (`/messages/send.json`, `/Accounts.json`).
pub fn without_format(route: &str) -> &str {
    match route.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && is_format(ext) => stem,
        _ => route,
    }
}

/// Whether a word names a response format (`json`, `xml`…).
pub fn is_format(word: &str) -> bool {
    const FORMATS: &[&str] = &["atom", "csv", "htm", "html", "json", "rss", "txt", "xml", "yaml", "yml"];
    FORMATS.contains(&word.to_ascii_lowercase().as_str())
}

/// A static segment's words without the parameters written into it: `within.{outputFormat}`
/// → `within`, `${participantId}` → nothing, and a query written into the path says what it
/// selects by (`airquality?postal_code={postal_code}` → `airquality_by_postal_code`).
fn static_words(segment: &str) -> String {
    let (head, query) = segment.split_once('?').unwrap_or((segment, ""));
    let mut plain = String::new();
    let mut depth = 0usize;
    for c in head.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let mut words = snake_words(without_format(&plain));
    let keys: Vec<String> = query.split('&').filter_map(|pair| pair.split('=').next()).flat_map(snake_words).collect();
    if !keys.is_empty() && !words.is_empty() {
        words.push("by".to_owned());
        words.extend(keys);
    }
    words.join("_")
}

/// A static segment of a route as route names read it.
struct Static {
    /// Its words, snake case (see [`static_words`]).
    said: String,
    /// A parameter follows it: it names one item (`/users/{id}`).
    keyed: bool,
    /// A parameter is written into it (`within.{outputFormat}`): it can name the route's last
    /// step, never its context.
    templated: bool,
}

/// The static segments of `path` that say something, without versions and `api`.
fn route_statics(path: &str) -> Vec<Static> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let mut out = Vec::new();
    for (i, segment) in segments.iter().enumerate() {
        if segment.starts_with('{') || is_noise(segment) {
            continue;
        }
        let said = static_words(segment);
        if !said.is_empty() {
            let keyed = segments.get(i + 1).is_some_and(|next| next.starts_with('{'));
            out.push(Static { said, keyed, templated: segment.contains('{') });
        }
    }
    out
}

/// Words that lead both verbs and nouns: before a plural they name a kind of thing (Stripe's
/// `test_clocks`, `report_types`), not an action on it.
const NOUN_ADJUNCTS: &[&str] = &["order", "report", "review", "test"];

/// Whether a segment (its words, snake case) leads with the verb of what it does: `send`,
/// `set_rules`, `create_from_calculation`, but not `test_clocks`.
fn leads_with_verb(said: &str) -> bool {
    let words: Vec<&str> = said.split('_').collect();
    let (Some(first), Some(last)) = (words.first(), words.last()) else { return false };
    is_action_verb(first) && !(words.len() > 1 && NOUN_ADJUNCTS.contains(first) && singular(last) != *last)
}

/// The name of a route whose last segment `last` leads with a verb: the verb, then the parents'
/// items and the collection before it (`/repositories/{id}/issues/export` →
/// `export_repository_issues`), then what the segment says after its verb
/// (`/tax/transactions/create_from_calculation` → `create_transactions_from_calculation`).
fn verb_led(last: &str, parents: &[String], statics: &[(String, bool)]) -> String {
    // Hetzner's `/firewalls/{id}/actions/set_rules`: `actions` only groups them.
    let before = statics
        .len()
        .checked_sub(2)
        .map(|i| &statics[i])
        .filter(|(s, keyed)| !keyed && !matches!(s.as_str(), "action" | "actions"));
    let object: Vec<String> = parents.iter().cloned().chain(before.map(|(s, _)| s.clone())).collect();
    if object.is_empty() {
        return last.to_owned();
    }
    let object = object.join("_");
    match last.split_once('_') {
        Some((verb, rest)) if PREPOSITIONS.contains(&rest.split('_').next().unwrap_or_default()) => {
            format!("{verb}_{object}_{rest}")
        }
        // What the verb sets on one item is that item's: `set_rules` on `/firewalls/{id}` →
        // `set_firewall_rules`. Under a collection the rest may be the segment's own object
        // (Mandrill's `/senders/add-domain`: `add_domain_senders`), so it stays as written.
        Some((verb, rest)) if before.is_none() => format!("{verb}_{object}_{rest}"),
        _ => format!("{last}_{object}"),
    }
}

fn from_route(method: Method, path: &str) -> String {
    route_name(method, path, false)
}

/// [`from_route`]; with `read_verbs`, a GET to a segment that leads with a verb that reads
/// names it too (`GET /charges/search` → `search_charges`). Only where an id restates such a
/// route: without one, a GET and a POST of a search route (star-trek's 40) would meet.
fn route_name(method: Method, path: &str, read_verbs: bool) -> String {
    // Static segments with whether a parameter follows each.
    let statics: Vec<(String, bool)> = route_statics(path).into_iter().map(|s| (s.said, s.keyed)).collect();
    let ends_with_param = path.split('/').rfind(|s| !s.is_empty()).is_some_and(|s| s.starts_with('{'));
    let Some((last, _)) = statics.last().cloned() else {
        return format!("{}_root", method.as_lower());
    };
    // Parent nouns (singular), e.g. /users/{id}/orders → user_orders.
    let parents: Vec<String> =
        statics[..statics.len() - 1].iter().filter(|(_, p)| *p).map(|(s, _)| singular(s)).collect();
    let prefix = if parents.is_empty() { String::new() } else { format!("{}_", parents.join("_")) };
    let action_after_item = !ends_with_param && statics.len() >= 2 && statics[statics.len() - 2].1;
    match method {
        Method::Post if action_after_item && singular(&last) == last => {
            // POST /pets/{id}/approve → approve_pet
            let parent = singular(&statics[statics.len() - 2].0);
            let grand: Vec<String> = parents[..parents.len().saturating_sub(1)].to_vec();
            let grand = if grand.is_empty() { String::new() } else { format!("{}_", grand.join("_")) };
            format!("{last}_{grand}{parent}")
        }
        // A POST to a segment that leads with a verb does what it says (`POST /login`,
        // `POST /containers/create`, Clubhouse's `POST /get_profile`), to the parents' items
        // and the collection before it: `/repositories/{id}/issues/export` →
        // `export_repository_issues`.
        Method::Post if !ends_with_param && leads_with_verb(&last) => verb_led(&last, &parents, &statics),
        Method::Get
            if read_verbs
                && !ends_with_param
                && leads_with_verb(&last)
                && last.split('_').next().is_some_and(is_read_verb) =>
        {
            verb_led(&last, &parents, &statics)
        }
        Method::Get if !ends_with_param => format!("list_{prefix}{last}"),
        Method::Get | Method::Head => format!("get_{prefix}{}", singular(&last)),
        Method::Post => format!("create_{prefix}{}", singular(&last)),
        Method::Put | Method::Patch => format!("update_{prefix}{}", singular(&last)),
        Method::Delete => format!("delete_{prefix}{}", singular(&last)),
        Method::Options | Method::Trace => format!("{}_{prefix}{last}", method.as_lower()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_become_verb_noun() {
        let cases = [
            (Method::Get, "/pets", "list_pets"),
            (Method::Get, "/pets/{id}", "get_pet"),
            (Method::Post, "/pets", "create_pet"),
            (Method::Put, "/pets/{id}", "update_pet"),
            (Method::Delete, "/v2/pets/{id}", "delete_pet"),
            (Method::Post, "/pets/{id}/approve", "approve_pet"),
            (Method::Get, "/users/{userId}/orders", "list_user_orders"),
            (Method::Post, "/users/{userId}/orders", "create_user_order"),
            (Method::Get, "/api/v1/categories/{id}", "get_category"),
            (Method::Get, "/", "get_root"),
            (Method::Post, "/login", "login"),
            (Method::Post, "/containers/create", "create_containers"),
            (Method::Post, "/repositories/{id}/issues/export", "export_repository_issues"),
            (Method::Post, "/get_profile", "get_profile"),
            (Method::Post, "/messages/send.json", "send_messages"),
            (Method::Post, "/firewalls/{id}/actions/set_rules", "set_firewall_rules"),
            (Method::Post, "/servers/{id}/actions/attach_to_network", "attach_server_to_network"),
            (Method::Post, "/tax/transactions/create_reversal", "create_reversal_transactions"),
            (Method::Post, "/tax/transactions/create_from_calculation", "create_transactions_from_calculation"),
            (Method::Post, "/test_helpers/test_clocks", "create_test_clock"),
            // Parameters written into a segment are the arguments' business, not the name's.
            (Method::Get, "/sites/within.{outputFormat}", "list_within"),
            (Method::Get, "/history/airquality?lat={lat}&lon={lon}", "list_airquality_by_lat_lon"),
            (Method::Delete, "/projects/{id}/participants/${participantId}", "delete_project_participant"),
        ];
        for (method, path, want) in cases {
            assert_eq!(from_route(method, path), want, "{method} {path}");
        }
    }

    #[test]
    fn a_list_named_for_one_item_names_its_collection() {
        let cases = [
            ("list_call", Method::Get, "/2010-04-01/Accounts/{AccountSid}/Calls.json", "list_calls"),
            ("list_core_v1_namespace", Method::Get, "/api/v1/namespaces", "list_core_v1_namespaces"),
            ("list_messaging_country", Method::Get, "/v1/Messaging/Countries", "list_messaging_countries"),
            ("list_hooks", Method::Get, "/v1/hooks/", "list_hooks"),
            // Not a collection route, not a list, or a route whose last word is no plural of it.
            ("list_member", Method::Get, "/teams/{id}/members/{username}", "list_member"),
            ("get_call", Method::Get, "/Calls", "get_call"),
            ("list_history", Method::Get, "/history", "list_history"),
            ("list_call", Method::Post, "/Calls", "list_call"),
        ];
        for (name, method, path, want) in cases {
            assert_eq!(plural_list(name.to_owned(), method, path), want, "{name} {path}");
        }
    }

    #[test]
    fn an_id_that_is_a_verb_alone_takes_its_object_from_the_route() {
        let cases = [
            ("create", Method::Post, "/v1/orders", Some("create_order")),
            ("delete_14", Method::Delete, "/tasks/{taskId}", Some("delete_task")),
            ("list", Method::Get, "/v1/domains", Some("list_domains")),
            ("update_2", Method::Put, "/customers/{customerId}", Some("update_customer")),
            // The route says no more than the verb, or the id is more than a verb.
            ("search", Method::Get, "/api/2/search", None),
            ("approve", Method::Post, "/pets/{id}/approve", None),
            ("create_order", Method::Post, "/orders", None),
        ];
        for (id, method, path, want) in cases {
            assert_eq!(bare_verb(id, method, path).as_deref(), want, "{id} {path}");
        }
        assert_eq!(without_counter("changeStatus_2"), "changeStatus");
        assert_eq!(without_counter("listPets_v2"), "listPets_v2");
        assert_eq!(without_counter("get_1234"), "get_1234");
    }

    #[test]
    fn an_id_that_posts_what_a_collection_holds_creates_one() {
        let cases = [
            ("post_custom_role", "/roles", Some("create_custom_role")),
            ("post_department_by_employer_id", "/employers/{employerId}/departments", Some("create_department")),
            ("post_a_comment", "/comments", Some("create_a_comment")),
            // A verb of its own, a search, an item route, or something the route does not hold.
            ("post_best_hit_search", "/besthitsearch", None),
            ("post_user_search", "/users/search", None),
            ("post_role", "/roles/{id}", None),
            ("post_new_third_party_job", "/Jobs/ThirdParty", None),
            ("post_abp_fund_by_employment_id", "/employments/{employmentId}/abpfunds", Some("create_abp_fund")),
            ("post_crawl_collection", "/crawls", Some("create_crawl")),
            ("post_role", "/#Action=PostRole", None),
        ];
        for (id, path, want) in cases {
            assert_eq!(posted(id, Method::Post, path).as_deref(), want, "{id} {path}");
        }
        assert_eq!(posted("post_custom_role", Method::Put, "/roles"), None);
    }

    #[test]
    fn a_route_name_in_context_says_the_nearest_segments_it_does_not_say_yet() {
        let op = |method, path: &str| Operation::bare(method, path);
        let shows = op(Method::Get, "/user/votes/shows");
        assert_eq!(in_context(&shows, "list_shows", 1).as_deref(), Some("list_vote_shows"));
        assert_eq!(in_context(&shows, "list_shows", 2).as_deref(), Some("list_user_vote_shows"));
        assert_eq!(in_context(&shows, "list_shows", 3), None);
        // Words the name says already are not said twice; parameters and versions are no context.
        let orders = op(Method::Get, "/api/v2/shops/{shop}/users/{id}/orders");
        assert_eq!(in_context(&orders, "list_user_orders", 1).as_deref(), Some("list_shop_user_orders"));
        // A segment with a parameter in it can be the last, never context.
        let within = op(Method::Get, "/sites/page-{n}/within.{outputFormat}");
        assert_eq!(
            in_context(&within, "list_within_output_format", 1).as_deref(),
            Some("list_site_within_output_format")
        );
        // A name an operationId gave is the team's words: not said in context.
        let named = Operation { operation_id: Some("listShows".to_owned()), ..op(Method::Get, "/user/votes/shows") };
        assert_eq!(in_context(&named, "list_shows", 1), None);
    }

    #[test]
    fn ids_that_restate_the_route_get_the_routes_verb() {
        let cases = [
            ("post_customers", Method::Post, "/v1/customers", Some("create_customer")),
            ("get_customers", Method::Get, "/v1/customers", Some("list_customers")),
            ("get_customers_customer", Method::Get, "/v1/customers/{customer}", Some("get_customer")),
            ("post_customers_customer", Method::Post, "/v1/customers/{customer}", Some("update_customer")),
            ("delete_customers_customer", Method::Delete, "/v1/customers/{customer}", Some("delete_customer")),
            (
                "post_payment_intents_intent_confirm",
                Method::Post,
                "/v1/payment_intents/{intent}/confirm",
                Some("confirm_payment_intent"),
            ),
            ("get_balance", Method::Get, "/v1/balance", Some("get_balance")),
            (
                "get_collections_id_items",
                Method::Get,
                "/collections/{collection_id}/items",
                Some("list_collection_items"),
            ),
            (
                "delete_organisations_id_applications_app_id_vhosts_favourite",
                Method::Delete,
                "/organisations/{id}/applications/{appId}/vhosts/favourite",
                Some("delete_organisation_application_vhosts_favourite"),
            ),
            (
                "get_customers_customer_balance_transactions_transaction",
                Method::Get,
                "/v1/customers/{customer}/balance_transactions/{transaction}",
                Some("get_customer_balance_transaction"),
            ),
            (
                "delete_accounts_account_people_person",
                Method::Delete,
                "/v1/accounts/{account}/people/{person}",
                Some("delete_account_people_person"),
            ),
            (
                "get_accounts_account_external_accounts",
                Method::Get,
                "/v1/accounts/{account}/external_accounts",
                Some("list_account_external_accounts"),
            ),
            (
                "delete_radar_value_lists_value_list",
                Method::Delete,
                "/v1/radar/value_lists/{value_list}",
                Some("delete_radar_value_list"),
            ),
            // RPC-style routes: kept.
            ("post_create_account", Method::Post, "/createAccount", None),
            ("post_accept_address_transfer", Method::Post, "/#Action=AcceptAddressTransfer", None),
            // PUT and PATCH update (where both serve one path, the names meet and the ids part them).
            ("put_files_id", Method::Put, "/files/{file_id}", Some("update_file")),
            ("patch_tasks_id", Method::Patch, "/tasks/{task_id}", Some("update_task")),
            // Words the path does not have, another method's verb, or the verb alone: kept.
            ("get_current_user", Method::Get, "/user", None),
            ("list_pets", Method::Get, "/pets", None),
            ("post_customers", Method::Get, "/v1/customers", None),
            ("get", Method::Get, "/v1/customers", None),
        ];
        for (id, method, path, want) in cases {
            assert_eq!(restated(id, method, path).as_deref(), want, "{id}");
        }
    }

    #[test]
    fn kebab_namespaced_ids_put_an_unlisted_verb_first() {
        for (id, want) in [
            ("issues/pin-comment", Some("pin_issue_comment")),
            ("actions/force-cancel-workflow-run", Some("force_cancel_action_workflow_run")),
            ("apps/scope-token", Some("scope_app_token")),
            ("issues/list", None),
            ("pets/Pet-By-Id", None),
            ("v2/2-things", None),
        ] {
            assert_eq!(namespaced_kebab(id).as_deref(), want, "{id}");
        }
    }

    #[test]
    fn namespaced_ids_put_their_verb_first() {
        for (id, want) in [
            ("issues/create", Some("create_issue")),
            ("issues/list", Some("list_issues")),
            ("pulls/get", Some("get_pull")),
            ("issues/list-for-repo", Some("list_issues_for_repo")),
            ("repos/list-branches", Some("list_repo_branches")),
            ("issues/list-comments-for-repo", Some("list_issue_comments_for_repo")),
            ("repos/get-repo-rule", Some("get_repo_rule")),
            ("checks/create-suite", Some("create_check_suite")),
            ("youtube.activities.list", Some("list_youtube_activities")),
            ("drive.files.get", Some("get_drive_file")),
            ("admin.apps.approve", Some("approve_admin_app")),
            ("youtube.videos.insert", Some("insert_youtube_video")),
            ("v1.0.getUsers", Some("get_users")),
            // No namespace, or no verb at the end: as written.
            ("listPets", None),
            ("search/code", None),
            ("chat.postMessage", Some("post_chat_message")),
            ("conversations.invite", Some("invite_conversation")),
            ("repos/merge-upstream", Some("merge_repo_upstream")),
            ("users/block", Some("block_user")),
            ("markdown/render-raw", Some("render_markdown_raw")),
            // A verb of two words stays whole, before the namespace.
            ("actions/create-or-update-org-secret", Some("create_or_update_action_org_secret")),
            ("teams/add-or-update-membership-for-user", Some("add_or_update_team_membership_for_user")),
            ("actions/re-run-workflow", Some("re_run_action_workflow")),
            ("app.onlineMeetings.createOrGet", Some("create_or_get_app_online_meeting")),
            ("chat.meMessage", None),
            ("compute.instances.aggregatedList", None),
            ("/create", None),
            ("v1/list", None),
        ] {
            assert_eq!(namespaced(id).as_deref(), want, "{id}");
        }
    }

    #[test]
    fn ids_that_spell_a_dotted_rpc_path_are_read_as_it() {
        let (get, post) = (Method::Get, Method::Post);
        for (id, method, path, want) in [
            ("admin_apps_approve", post, "/admin.apps.approve", Some("approve_admin_app")),
            ("conversations_list", get, "/conversations.list", Some("list_conversations")),
            ("chat_postMessage", post, "/chat.postMessage", Some("post_chat_message")),
            // Reads named by what they return.
            ("conversations_info", get, "/conversations.info", Some("get_conversation")),
            ("conversations_history", get, "/conversations.history", Some("list_conversation_history")),
            ("conversations_replies", get, "/conversations.replies", Some("list_conversation_replies")),
            ("team_accessLogs", get, "/team.accessLogs", Some("list_team_access_logs")),
            ("team_billableInfo", get, "/team.billableInfo", Some("get_team_billable_info")),
            ("users_identity", get, "/users.identity", Some("get_user_identity")),
            ("apps_permissions_info", get, "/apps.permissions.info", Some("get_apps_permission")),
            // As written: a write named by a noun, a verb for a namespace, a participle, an id
            // that does not spell its path, a path that is not an RPC method.
            ("chat_meMessage", post, "/chat.meMessage", None),
            ("api_test", get, "/api.test", None),
            ("search_messages", get, "/search.messages", None),
            ("workflows_stepCompleted", get, "/workflows.stepCompleted", None),
            ("approveApp", post, "/admin.apps.approve", None),
            ("pets_list", get, "/pets/list", None),
        ] {
            assert_eq!(rpc_path(id, path, method).as_deref(), want, "{id}");
        }
    }

    #[test]
    fn group_then_method_ids_put_their_verb_first() {
        let (get, put, post, patch, delete) = (Method::Get, Method::Put, Method::Post, Method::Patch, Method::Delete);
        for (id, method, want) in [
            ("ManagementPolicies_CreateOrUpdate", put, Some("create_or_update_management_policy")),
            ("GalleryImageVersions_ListByGalleryImage", get, Some("list_gallery_image_versions_by_gallery_image")),
            ("SyncAgents_ListLinkedDatabases", get, Some("list_sync_agent_linked_databases")),
            ("Operations_List", get, Some("list_operations")),
            ("Reservation_List", get, Some("list_reservations")),
            ("Caches_Delete", delete, Some("delete_cache")),
            ("Databases_Failover", post, Some("failover_database")),
            ("Users_GetById", get, Some("get_user_by_id")),
            ("Users_GetCurrentUser", get, Some("get_current_user")),
            ("Tag_GetByProduct", get, Some("get_tag_by_product")),
            ("Customer_GetAll", get, Some("list_customers")),
            ("SupplierPayment_GetAllPayments", get, Some("list_supplier_payments")),
            ("BrandExport_GetBrandExportFile", get, Some("get_brand_export_file")),
            (
                "CustomerDebitNote_CreateHeaderAttachmentBydebitNoteNumber",
                post,
                Some("create_customer_debit_note_header_attachment_bydebit_note_number"),
            ),
            // A method word means what its HTTP method does.
            ("Tabs_PutTemplateDocumentTabs", put, Some("update_template_document_tabs")),
            ("PurchaseOrder_Post", post, Some("create_purchase_order")),
            ("TaxRegions_PatchEntity", patch, Some("patch_tax_region_entity")),
            // As written: a verb or a method for the first part, no verb, a GET that is not a
            // read (`StopPoints` are a line's stops), not two PascalCase parts.
            ("GET_DescribeDBClusters", get, None),
            ("CREATE_PaymentServiceProviderCredential", post, None),
            ("Post_OrderLineItems", post, None),
            ("Alerts_MetaData", get, None),
            ("Line_StopPoints", get, None),
            ("post_storage_policy_assignments", post, None),
            ("Pets_List_All", get, None),
        ] {
            assert_eq!(noun_verb(id, method, "/x/{id}").as_deref(), want, "{id}");
        }
    }

    #[test]
    fn a_get_of_the_groups_collection_lists_it() {
        assert_eq!(noun_verb("Users_Get", Method::Get, "/api/v2/Users").as_deref(), Some("list_users"));
        assert_eq!(noun_verb("Users_Get", Method::Get, "/api/v2/Users/{id}").as_deref(), Some("get_user"));
        assert_eq!(
            noun_verb("SalesCreditNotes_Get", Method::Get, "/v1/salesCreditNotes").as_deref(),
            Some("list_sales_credit_notes")
        );
        assert_eq!(noun_verb("Status_Get", Method::Get, "/status").as_deref(), Some("get_status"));
    }

    #[test]
    fn a_get_whose_id_is_only_a_noun_reads_it() {
        let name = |method, path: &str, id: &str| {
            base_name(&Operation { operation_id: Some(id.to_owned()), ..Operation::bare(method, path) })
        };
        let cases = [
            (Method::Get, "/{format}/Player/{playerid}", "PlayerDetailsByPlayer", "get_player_details_by_player"),
            (Method::Get, "/{format}/Players", "PlayerDetailsByActive", "list_player_details_by_active"),
            (Method::Get, "/{format}/Players/{team}", "PlayersByTeam", "get_players_by_team"),
            (Method::Get, "/mocks", "allMocks", "list_all_mocks"),
            (Method::Get, "/info", "SystemInfo", "get_system_info"),
            (Method::Get, "/users/{userId}/assistants", "userAssistants", "list_user_assistants"),
            (Method::Get, "/h5/companies/{companyId}", "Halo-5-Company", "get_halo_5_company"),
            (Method::Get, "/atoz.atom", "A_to_Z_Landing_Feed", "get_a_to_z_landing_feed"),
            (Method::Get, "/v3/stops/location/{ll}", "Stops_StopsByGeolocation", "get_stops_by_geolocation"),
            (Method::Get, "/errors/{id}/location", "Errors_ErrorLocation", "get_error_location"),
            (Method::Get, "/brands", "Brands_Brands", "list_brands"),
            // Ids with a verb of their own, glued or not, keep it; other methods are not reads.
            (Method::Get, "/vmware/vm/snapshot/{id}/browse", "browseVmwareSnapshot", "browse_vmware_snapshot"),
            (Method::Get, "/v9/projects/{id}/env", "filterProjectEnvs", "filter_project_envs"),
            (Method::Get, "/v2/bitcoin/blocks/{block}", "getblock4", "getblock4"),
            (Method::Get, "/v3/feeds", "v3getFeedItemStatus", "v3get_feed_item_status"),
            (Method::Get, "/{format}/AreAnyGamesInProgress", "AreGamesInProgress", "are_games_in_progress"),
            (Method::Post, "/profile/address", "userAddress", "user_address"),
            (Method::Delete, "/sites/{id}/subscriptions", "UnsubscribeSite", "unsubscribe_site"),
        ];
        for (method, path, id, expected) in cases {
            assert_eq!(name(method, path, id), expected, "{id}");
        }
    }

    #[test]
    fn an_id_that_is_a_database_key_gives_way_to_the_route() {
        let op = Operation {
            operation_id: Some("5476364f031f5909e4fe3317".to_owned()),
            ..Operation::bare(Method::Get, "/StationEntrances")
        };
        assert_eq!(base_name(&op), "list_station_entrances");
        assert_eq!(id_name(&op), None);
        let dated = Operation { operation_id: Some("20240101".to_owned()), ..Operation::bare(Method::Get, "/x") };
        assert_eq!(id_name(&dated).as_deref(), Some("20240101"));
    }

    #[test]
    fn docker_and_azure_verbs_after_the_noun_lead() {
        let name = |method, path: &str, id: &str| {
            base_name(&Operation { operation_id: Some(id.to_owned()), ..Operation::bare(method, path) })
        };
        assert_eq!(name(Method::Get, "/secrets/{id}", "SecretInspect"), "inspect_secret");
        assert_eq!(name(Method::Post, "/containers/{id}/kill", "ContainerKill"), "kill_container");
        assert_eq!(name(Method::Post, "/containers/prune", "ContainerPrune"), "prune_containers");
        assert_eq!(name(Method::Post, "/bank_transfer/cancel", "bankTransferCancel"), "cancel_bank_transfer");
        assert_eq!(
            name(Method::Get, "/x/databaseInstances", "DatabaseInstances_EnumerateDatabaseInstances"),
            "enumerate_database_instances"
        );
    }

    #[test]
    fn a_method_before_the_actions_verb_is_dropped() {
        let (get, put, post, delete) = (Method::Get, Method::Put, Method::Post, Method::Delete);
        for (snake, method, path, want) in [
            ("get_describe_db_clusters", get, "/#Action=DescribeDBClusters", Some("describe_db_clusters")),
            ("get_delete_db_proxy", get, "/#Action=DeleteDBProxy", Some("delete_db_proxy")),
            ("get_enter_standby", get, "/#Action=EnterStandby", Some("enter_standby")),
            ("post_create_test_card_ranges", post, "/createTestCardRanges", Some("create_test_card_ranges")),
            ("put_accept_user_access", put, "/v1/users/{id}/accept-access", Some("accept_user_access")),
            // A GET of a resource names a noun next (Zuora's refund parts); `delete` is the verb
            // of `DeleteRequestValidator`, and of `DeleteThing` on an RPC route sent by POST.
            ("get_refund_item_parts", get, "/v1/refunds/{id}/parts", None),
            ("delete_request_validator", delete, "/restapis/{id}/requestvalidators/{vid}", None),
            ("delete_query_suggestions", post, "/#X-Amz-Target=Kendra.DeleteQuerySuggestions", None),
            ("post_search", post, "/search", None),
            ("post_put_thing", post, "/things", None),
            ("get_customers", get, "/#Action=GetCustomers", None),
        ] {
            assert_eq!(method_prefixed(snake, method, path).as_deref(), want, "{snake}");
        }
    }

    #[test]
    fn json_api_relationship_routes_name_the_links() {
        let op = |method, path: &str, id: Option<&str>| Operation {
            operation_id: id.map(str::to_owned),
            ..Operation::bare(method, path)
        };
        let testers = "/v1/betaGroups/{id}/relationships/betaTesters";
        let build = "/v1/appStoreVersions/{id}/relationships/build";
        for (op, want) in [
            (
                op(Method::Post, testers, Some("betaGroups-betaTesters-create_to_many_relationship")),
                "add_beta_group_beta_testers",
            ),
            (
                op(Method::Delete, testers, Some("betaGroups-betaTesters-delete_to_many_relationship")),
                "remove_beta_group_beta_testers",
            ),
            (
                op(Method::Patch, testers, Some("betaGroups-betaTesters-replace_to_many_relationship")),
                "replace_beta_group_beta_testers",
            ),
            (
                op(Method::Get, testers, Some("betaGroups-betaTesters-get_to_many_relationship")),
                "list_beta_group_beta_tester_ids",
            ),
            (
                op(Method::Get, build, Some("appStoreVersions-build-get_to_one_relationship")),
                "get_app_store_version_build_id",
            ),
            (
                op(Method::Patch, build, Some("appStoreVersions-build-update_to_one_relationship")),
                "set_app_store_version_build",
            ),
            (op(Method::Post, "/transactions/{transactionId}/relationships/tags", None), "add_transaction_tags"),
            (
                op(
                    Method::Get,
                    "/collections/{id}/linked_nodes/relationships/",
                    Some("collections_linked_nodes_relationships_create"),
                ),
                "list_collection_linked_node_ids",
            ),
            // An id that leads with its verb says it; the related resources' own route is no link.
            (op(Method::Post, testers, Some("addBetaTestersToGroup")), "add_beta_testers_to_group"),
            (op(Method::Get, "/v1/betaGroups/{id}/betaTesters", None), "list_beta_group_beta_testers"),
        ] {
            assert_eq!(base_name(&op), want, "{} {}", op.method.as_lower(), op.path);
        }
    }

    #[test]
    fn hubspot_ids_name_the_route_then_the_method() {
        let op = |method: Method, path: &str, name: &str| Operation {
            operation_id: Some(format!("{}-{path}_{name}", method.as_lower())),
            ..Operation::bare(method, path)
        };
        for (op, want) in [
            (op(Method::Get, "/webhooks/v3/{appId}/subscriptions", "getAll"), "list_subscriptions"),
            (op(Method::Get, "/webhooks/v3/{appId}/subscriptions/{id}", "getById"), "get_subscription_by_id"),
            (op(Method::Delete, "/webhooks/v3/{appId}/subscriptions/{id}", "archive"), "archive_subscription"),
            (
                op(Method::Post, "/webhooks/v3/{appId}/subscriptions/batch/update", "updateBatch"),
                "update_subscription_batch",
            ),
            (op(Method::Post, "/marketing/v3/events/delete", "archive"), "archive_event"),
            (op(Method::Put, "/automation/v4/functions/{functionId}", "createOrReplace"), "create_or_replace_function"),
        ] {
            assert_eq!(base_name(&op), want);
        }
        // Any other id that merely starts with its method is not read this way.
        assert_eq!(route_prefixed("get-things", &Operation::bare(Method::Get, "/things")), None);
    }

    #[test]
    fn articles_leave_names_made_from_sentences() {
        assert_eq!(without_articles("retrieve_a_media_item"), "retrieve_media_item");
        assert_eq!(without_articles("get_the_weekend_box_office"), "get_weekend_box_office");
        assert_eq!(without_articles("create_an_account"), "create_account");
        // A DNS A record, and a name that would lose its only noun, keep theirs.
        assert_eq!(without_articles("create_a_record"), "create_a_record");
        assert_eq!(without_articles("get_a"), "get_a");
    }

    #[test]
    fn singular_and_plural_of_regular_nouns() {
        for (plural_form, one) in [
            ("caches", "cache"),
            ("coaches", "coach"),
            ("matches", "match"),
            ("niches", "niche"),
            ("bookshelves", "bookshelf"),
            ("valves", "valve"),
            ("resolves", "resolve"),
            ("aliases", "alias"),
            ("alias", "alias"),
            ("canvas", "canvas"),
            ("statuses", "status"),
            ("buses", "bus"),
            ("databases", "database"),
            ("houses", "house"),
        ] {
            assert_eq!(singular(plural_form), one);
        }
        for (one, many) in [("policy", "policies"), ("key", "keys"), ("box", "boxes"), ("reservation", "reservations")]
        {
            assert_eq!(plural(one), many);
        }
    }

    #[test]
    fn sanitizing() {
        assert_eq!(sanitize("pets/list all"), "pets_list_all");
        assert_eq!(sanitize("__"), "call_api");
        assert_eq!(sanitize("a.b-c"), "a.b-c");
    }
}
