//! Tool names (CONTRACT T1): verb_noun in snake_case, at most 64 characters of `[A-Za-z0-9_.-]`,
//! unique and deterministic. From the operationId when there is one, otherwise from the method
//! and path (`GET /pets` → `list_pets`, `POST /pets/{id}/approve` → `approve_pet`).

use heck::ToSnakeCase;

use crate::resolve::{Method, Operation};

pub const MAX_LEN: usize = 64;

/// The name an operation gets before collisions are resolved.
pub fn base_name(op: &Operation) -> String {
    let raw = match &op.operation_id {
        Some(id) => route_prefixed(id, op)
            .or_else(|| namespaced(id))
            .or_else(|| noun_verb(id, op.method))
            .or_else(|| rpc_path(id, &op.path, op.method))
            .or_else(|| function_name(id, op))
            .or_else(|| using_method(id, op.method))
            .or_else(|| versioned_service(id, op.method))
            .or_else(|| verb_last(id, op.method, &op.path))
            .or_else(|| route_verb(id, &op.path))
            .or_else(|| group_verb(id, op.method))
            .unwrap_or_else(|| {
                let snake = id.to_snake_case();
                restated(&snake, op.method, &op.path)
                    .or_else(|| method_prefixed(&snake, op.method, &op.path))
                    .unwrap_or(snake)
            }),
        None => from_route(op.method, &op.path),
    };
    fit(&sanitize(&without_articles(&raw)))
}

/// The operationId as written (snake case, fitted) when [`base_name`] gave it the route's verb
/// instead: what two operations fall back to when their route names collide.
pub fn id_name(op: &Operation) -> Option<String> {
    let plain = fit(&sanitize(&op.operation_id.as_ref()?.to_snake_case()));
    (plain != base_name(op)).then_some(plain)
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
    "detect",
    "disassociate",
    "estimate",
    "evaluate",
    "failover",
    "install",
    "invoke",
    "migrate",
    "modify",
    "preview",
    "promote",
    "provision",
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
    "rollback",
    "scale",
    "settle",
    "summarize",
    "swap",
    "switchover",
    "tag",
    "trigger",
    "unassign",
    "untag",
    "upgrade",
];

/// Whether an action whose name starts with `word` names its verb first (see [`ACTION_VERBS`]).
pub fn is_action_verb(word: &str) -> bool {
    is_verb(word) || ACTION_VERBS.contains(&word)
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
fn noun_verb(id: &str, method: Method) -> Option<String> {
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
        (first, _) if words.get(1).is_some_and(|w| w == "or") && words.get(2).is_some_and(|w| is_action_verb(w)) => {
            format!("{first}_or_{}", words[2])
        }
        // A GET reads: `Line_StopPoints` names the stop points of a line.
        (first, Method::Get | Method::Head) if !is_read_verb(first) => return None,
        (first, _) if is_action_verb(first) => first.to_owned(),
        _ => return None,
    };
    let skip = verb.split('_').count();
    verb_first(&verb, &namespace, &words[skip..])
}

/// Ids that name the resource first and the verb last, as frameworks write them: Django REST
/// framework's `patient_communications_create`, `nodes_addon_read`, NetBox's
/// `dcim_cable-terminations_bulk_delete`, API Platform's `api_alert-log_get_collection`, App Store
/// Connect's `salesReports-get_collection`, Apideck's `drivesAll`. Turned verb first (T1):
/// `create_patient_communication`, `get_nodes_addon`, `bulk_delete_dcim_cable_terminations`,
/// `list_alert_logs`, `list_sales_reports`, `list_drives`. Only when the verb agrees with the
/// HTTP method (a `_create` served on GET is something else) and a resource comes before it.
fn verb_last(id: &str, method: Method, path: &str) -> Option<String> {
    use Method::{Delete, Get, Patch, Post, Put};
    let words: Vec<String> = snake_words(id).into_iter().filter(|w| !is_noise(w)).collect();
    let ends = |tail: &[&str]| words.len() > tail.len() && words[words.len() - tail.len()..].iter().eq(tail.iter());
    // (the words the id ends with, the verb they mean, the methods that verb is served on)
    const TAILS: &[(&[&str], &str, &[Method])] = &[
        (&["get", "to", "many", "related"], "list", &[Get]),
        (&["get", "to", "one", "related"], "get", &[Get]),
        (&["get", "collection"], "list", &[Get]),
        (&["post", "collection"], "create", &[Post]),
        (&["get", "item"], "get", &[Get]),
        (&["get", "instance"], "get", &[Get]),
        (&["create", "instance"], "create", &[Post]),
        (&["put", "item"], "update", &[Put]),
        (&["update", "instance"], "update", &[Put, Patch, Post]),
        (&["patch", "item"], "patch", &[Patch]),
        (&["delete", "item"], "delete", &[Delete]),
        (&["delete", "instance"], "delete", &[Delete]),
        (&["bulk", "partial", "update"], "bulk_partial_update", &[Patch]),
        (&["bulk", "update"], "bulk_update", &[Put, Patch]),
        (&["bulk", "delete"], "bulk_delete", &[Delete]),
        (&["bulk", "create"], "bulk_create", &[Post]),
        (&["batch", "update"], "batch_update", &[Put, Patch, Post]),
        (&["batch", "delete"], "batch_delete", &[Delete, Post]),
        (&["batch", "create"], "batch_create", &[Post]),
        (&["partial", "update"], "partial_update", &[Patch]),
        (&["id", "get"], "get", &[Get]),
        (&["id", "put"], "update", &[Put]),
        (&["id", "patch"], "patch", &[Patch]),
        (&["id", "delete"], "delete", &[Delete]),
        (&["list"], "list", &[Get]),
        (&["all"], "list", &[Get]),
        (&["read"], "get", &[Get]),
        (&["one"], "get", &[Get]),
        (&["get"], "get", &[Get]),
        (&["create"], "create", &[Post]),
        (&["add"], "add", &[Post, Put]),
        (&["update"], "update", &[Put, Patch, Post]),
        (&["delete"], "delete", &[Delete]),
        (&["patch"], "patch", &[Patch]),
        (&["put"], "update", &[Put]),
    ];
    let (tail, verb, methods) = TAILS.iter().find(|(tail, _, _)| ends(tail))?;
    // An RPC route that ends with the verb says it whatever the method (Plaid's
    // `bankTransferList` is `POST /bank_transfer/list`).
    let route_says = path.rsplit('/').find(|s| !s.is_empty()).is_some_and(|last| snake_words(last) == *tail);
    // `issueGetMilestonesList` lists an issue's milestones: a `get` inside says nothing more.
    let mut resource: Vec<String> = words[..words.len() - tail.len()].iter().filter(|w| *w != "get").cloned().collect();
    // `search_users_list` already leads with its verb, `post_list` names no resource, and
    // `guestDiagnosticsSettings_CreateOrUpdate` ends with one verb of two.
    if !(methods.contains(&method) || route_says)
        || resource.first().is_none_or(|w| is_verb(w) || is_method_word(w))
        || resource.last().is_some_and(|w| w == "or" || w == "and")
    {
        return None;
    }
    // An action inside is what a `_create` does (Django REST framework's
    // `account_roles_activate_create` is a POST to `/account_roles/{id}/activate/`). Other verbs
    // inside are part of the resource's name (NetBox's `extras_export-templates_create`).
    if *tail == ["create"]
        && let Some(i) = resource.iter().position(|w| ACTIONS.contains(&w.as_str()))
    {
        let action = resource.remove(i);
        return verb_first(&action, &[resource], &[]);
    }
    // A `get` of a collection route lists it (`Users_Get` on `GET /Users`).
    let collection = !path.trim_end_matches('/').ends_with('}');
    let verb = match resource.last() {
        Some(last) if *verb == "get" && collection && singular(last) != *last => "list",
        _ => verb,
    };
    verb_first(verb, &[resource], &[])
}

/// Springfox's operationIds are the handler's name and `Using` the method
/// (`getActiveObjectCountUsingGET`): the handler's name (`get_active_object_count`); a GET of a
/// handler named by one noun reads it (`get_genes` for `genesUsingGET`).
fn using_method(id: &str, method: Method) -> Option<String> {
    // Not `getUserUsingGET_1`, the second handler of that name: the first is `get_user`.
    let words = snake_words(id);
    let [name @ .., using, verb] = words.as_slice() else { return None };
    if using != "using" || *verb != method.as_lower() || name.is_empty() {
        return None;
    }
    let snake = name.join("_");
    Some(if name.len() > 1 || is_action_verb(&name[0]) || method != Method::Get {
        snake
    } else {
        format!("get_{snake}")
    })
}

/// Magento's operationIds are the service, its version, the method's name and the HTTP method
/// (`catalogAttributeSetRepositoryV1DeleteByIdDelete`): the method's verb first, then the
/// service and the rest of the method (`delete_catalog_attribute_set_repository_by_id`).
fn versioned_service(id: &str, method: Method) -> Option<String> {
    let mut words = snake_words(id);
    let v =
        words.iter().position(|w| w.len() > 1 && w.starts_with('v') && w[1..].chars().all(|c| c.is_ascii_digit()))?;
    let verb = words.get(v + 1).filter(|w| is_action_verb(w))?.clone();
    if v == 0 || words.last().is_none_or(|w| *w != method.as_lower()) || words.len() < v + 3 {
        return None;
    }
    words.pop();
    let rest = words.split_off(v + 2);
    words.truncate(v);
    verb_first(&verb, &[words], &rest)
}

/// An id that ends with the verb its RPC route ends with (Plaid's `bankTransferCancel` for
/// `POST /bank_transfer/cancel`): that verb, then the rest (`cancel_bank_transfer`).
fn route_verb(id: &str, path: &str) -> Option<String> {
    let mut words: Vec<String> = snake_words(id).into_iter().filter(|w| !is_noise(w)).collect();
    let last = path.rsplit('/').find(|s| !s.is_empty())?;
    let verb = words.pop().filter(|w| is_action_verb(w) && snake_words(last) == [w.clone()])?;
    // `readAppsV1NamespacedDeploymentScale` reads a scale.
    if words.is_empty() || words.first().is_some_and(|w| is_action_verb(w) || is_read_verb(w) || is_method_word(w)) {
        return None;
    }
    verb_first(&verb, &[words], &[])
}

/// Ids that name a group and then the method (DigitalOcean's `databases_create_cluster`, App
/// Center's `apps_transferToOrg`, Gitea's `orgAddTeamMember`): verb first,
/// `create_database_cluster`, `transfer_app_to_org`, `add_org_team_member`. The group is what
/// comes before the first separator, and the method starts with its verb and names an object;
/// without a separator only one word and a plain verb are read so (`BatchGetNamedQuery` and
/// `saveSyncConfig` start with verbs of their own). A GET's verb must read: `order_return_items`
/// on a GET reads an order return's items.
fn group_verb(id: &str, method: Method) -> Option<String> {
    const PLAIN: &[&str] = &["add", "create", "delete", "get", "list", "patch", "remove", "set", "update"];
    const MODIFIERS: &[&str] = &["async", "batch", "bulk", "do", "mass", "multi", "re"];
    let (group, words) = match id.split_once(['_', '/', '#', '.', '-', ':']) {
        Some((group, method)) => (snake_words(group), snake_words(method)),
        None => {
            let mut words = snake_words(id);
            if words.get(1).is_none_or(|w| !PLAIN.contains(&w.as_str())) {
                return None;
            }
            let rest = words.split_off(1);
            (words, rest)
        }
    };
    let group: Vec<String> = group.into_iter().filter(|w| !is_noise(w)).collect();
    let verb = words.first()?.as_str();
    let plain_group =
        |w: &String| !is_verb(w) && !is_method_word(w) && !is_read_verb(w) && !MODIFIERS.contains(&w.as_str());
    // `Quote_Post_CreateQuote…`: a method word is transport, not the action.
    if !(1..=2).contains(&group.len())
        || !group.iter().all(plain_group)
        || !is_action_verb(verb)
        || matches!(verb, "post" | "put" | "head" | "options")
        || words.len() < 2
    {
        return None;
    }
    if matches!(method, Method::Get | Method::Head) && !is_read_verb(verb) {
        return None;
    }
    // `CreateOrUpdate` is one verb of two.
    if words[1] == "or" || words[1] == "and" {
        return None;
    }
    verb_first(verb, &[group], &words[1..])
}

/// FastAPI's operationIds are the handler's name, the route and the method
/// (`create_application_api_v1_app__post` for `POST /api/v1/app/`): the handler's name is the
/// name (`create_application`), verb first when it ends with its verb, and a read of a noun
/// (`air_quality` on `GET /air_quality`) is `get_air_quality`.
fn function_name(id: &str, op: &Operation) -> Option<String> {
    let route: String = op.path.chars().map(|c| if c.is_alphanumeric() || c == '_' { c } else { '_' }).collect();
    let name = id.strip_suffix(op.method.as_lower())?.strip_suffix('_')?.strip_suffix(route.as_str())?;
    let snake = name.to_snake_case();
    let first = snake.split('_').find(|w| !w.is_empty())?.to_owned();
    if is_action_verb(&first) {
        return Some(snake);
    }
    verb_last(name, op.method, &op.path)
        .or_else(|| Some(if op.method == Method::Get { format!("get_{snake}") } else { snake }))
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
        "calculate"
            | "check"
            | "compare"
            | "count"
            | "describe"
            | "download"
            | "estimate"
            | "export"
            | "fetch"
            | "find"
            | "get"
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
fn is_transport_word(word: &str) -> bool {
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

/// HubSpot's operationIds spell out the route and then name the method
/// (`get-/webhooks/v3/{appId}/subscriptions_getAll`): the method's verb and the route's last
/// resource (`list_subscriptions`, `get_subscription_by_id`, `archive_subscription`).
fn route_prefixed(id: &str, op: &Operation) -> Option<String> {
    let name = id.strip_prefix(op.method.as_lower())?.strip_prefix('-')?.strip_prefix(op.path.as_str())?;
    let words = snake_words(name.strip_prefix('_')?);
    let verb = words.first()?.as_str();
    if !is_action_verb(verb) {
        return None;
    }
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
        None => verb_first(verb, &namespace, &words[1..]),
    }
}

/// Articles in a name made from a sentence (`retrieve_a_media_item` → `retrieve_media_item`).
/// A lone `a` before `record` is a DNS record type, not an article.
fn without_articles(name: &str) -> String {
    let words: Vec<&str> = name.split('_').collect();
    let kept: Vec<&str> = words
        .iter()
        .enumerate()
        .filter(|&(i, w)| {
            let article = matches!(*w, "a" | "an" | "the")
                && i > 0
                && i + 1 < words.len()
                && !(*w == "a" && words[i + 1].starts_with("record"));
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
    let verb = last.first()?.as_str();
    if namespace.is_empty() || !is_verb(verb) {
        return None;
    }
    verb_first(verb, namespace, &last[1..])
}

/// `admin.apps.approve` → `[[admin], [apps], [approve]]`, each part's words in snake case.
fn method_parts(id: &str) -> Vec<Vec<String>> {
    id.split(['.', '/']).map(snake_words).filter(|words| !words.is_empty()).collect()
}

/// `listBranches` → `[list, branches]`: the words of a name part, in snake case.
fn snake_words(part: &str) -> Vec<String> {
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

/// The name of the API that every operationId of a document starts with, as in Google's
/// discovery-generated documents (`domains` of `domains.projects.locations.registrations.get`):
/// every tool of the document would say it, so none needs to. `None` unless every operation has
/// an operationId of at least three dotted parts and they all share the first.
pub fn api_namespace<'a>(ops: impl IntoIterator<Item = &'a Operation>) -> Option<String> {
    let mut first: Option<&str> = None;
    for op in ops {
        let id = op.operation_id.as_deref()?;
        let mut parts = id.split('.');
        let head = parts.next()?;
        if parts.count() < 2 || head.is_empty() || first.is_some_and(|f| f != head) {
            return None;
        }
        first = Some(head);
    }
    first.map(str::to_owned)
}

/// The names of an operation whose id is `<api>.<collection>….<collection>.<method>` (see
/// [`api_namespace`]), shortest first: the method and the collection it acts on
/// (`registrations.configureContactSettings` → `configure_registration_contact_settings`), then
/// with each parent collection in turn (`list_operations`, `list_locations_operations`…), for
/// when two collections of the API share a name. The method part is the verb whatever it is
/// (`undelete`, `aggregatedList`), a verb run together with its object is parted (`addmessage`
/// → `add_message`). Empty when the id does not have that form.
pub fn scoped_names(op: &Operation, api: &str) -> Vec<String> {
    let Some(id) = op.operation_id.as_deref() else { return Vec::new() };
    let Some(scoped) = id.strip_prefix(api).and_then(|s| s.strip_prefix('.')) else { return Vec::new() };
    let parts: Vec<Vec<String>> = scoped.split('.').map(snake_words).collect();
    let Some((method, collections)) = parts.split_last() else { return Vec::new() };
    if collections.is_empty() || method.is_empty() || collections.iter().any(Vec::is_empty) {
        return Vec::new();
    }
    let Some((verb, rest)) = method_verb(method) else { return Vec::new() };
    (1..=collections.len())
        .filter_map(|k| verb_first(&verb, &collections[collections.len() - k..], &rest))
        .map(|name| fit(&sanitize(&name)))
        .collect()
}

/// The verb of a method part and the words after it: its first word when that is a verb or
/// nothing else fits (`undelete`, `query`); a verb run together with its object parted
/// (`addmessage` → `add`, `[message]`); a modified verb kept whole (`aggregatedList` →
/// `aggregated_list`, `batchGet` → `batch_get`). `None` for a method that starts with a
/// preposition (`by_content`): it names no action.
fn method_verb(words: &[String]) -> Option<(String, Vec<String>)> {
    let first = words.first()?.as_str();
    if is_verb(first) {
        return Some((first.to_owned(), words[1..].to_vec()));
    }
    if PREPOSITIONS.contains(&first) {
        return None;
    }
    if let [single] = words {
        let verb = VERBS
            .iter()
            .chain(ACTIONS)
            .chain(METHOD_VERBS)
            .chain(&["setup"])
            .filter(|v| single.len() >= v.len() + 4 && single.starts_with(**v))
            .max_by_key(|v| v.len());
        if let Some(verb) = verb {
            return Some(((*verb).to_owned(), vec![single[verb.len()..].to_owned()]));
        }
    }
    if let Some(last) = words.iter().rposition(|w| is_verb(w))
        && last > 0
    {
        return Some((words[..=last].join("_"), words[last + 1..].to_vec()));
    }
    Some((first.to_owned(), words[1..].to_vec()))
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
    let verb_first =
        last_segment.to_snake_case().split('_').next().is_some_and(|w| VERBS.contains(&w) || ACTIONS.contains(&w));
    if camel || (verb_first && !after_item) {
        return None;
    }
    let route: Vec<String> = path.split(['/', '.', '-', '{', '}']).flat_map(snake_words).collect();
    if !words[1..].iter().all(|w| route.iter().any(|r| r == w || singular(r) == *w)) {
        return None;
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
        // PUT and PATCH on one path would both be update_x; their ids keep them apart.
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
    for k in [3, 2] {
        let mut i = 0;
        while i + 2 * k <= nouns.len() {
            if nouns[i..i + k] == nouns[i + k..i + 2 * k] {
                nouns.drain(i + k..i + 2 * k);
            } else {
                i += 1;
            }
        }
    }
    if verb != "list"
        && let Some(last) = nouns.last_mut()
    {
        *last = singular(last);
    }
    Some(format!("{verb}_{}", nouns.join("_")))
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

/// Shortens a name to `MAX_LEN` readably: whole words from the front, then a stable hash of the
/// full name so that two long names that share a prefix stay distinct.
pub fn fit(name: &str) -> String {
    if name.len() <= MAX_LEN {
        return name.to_owned();
    }
    let hash = format!("{:08x}", fnv1a(name.as_bytes()));
    let suffix = &hash[..6];
    let budget = MAX_LEN - suffix.len() - 1;
    let mut out = String::new();
    for word in name.split('_') {
        let extra = if out.is_empty() { word.len() } else { word.len() + 1 };
        if out.len() + extra > budget {
            break;
        }
        if !out.is_empty() {
            out.push('_');
        }
        out.push_str(word);
    }
    if out.is_empty() {
        out = name[..budget].to_owned();
    }
    format!("{out}_{suffix}")
}

/// `base`, or `base_2`, `base_3`… whichever is not taken yet; the result is taken.
pub fn numbered(base: &str, taken: &mut std::collections::BTreeSet<String>) -> String {
    let mut name = base.to_owned();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

/// FNV-1a, 32 bits: a stable hash that does not depend on the platform or the Rust version.
pub fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in bytes {
        h ^= u32::from(*b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
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

fn from_route(method: Method, path: &str) -> String {
    // Static segments with the position of the parameter that follows each, if any.
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let mut statics: Vec<(String, bool)> = Vec::new();
    for (i, seg) in segments.iter().enumerate() {
        if seg.starts_with('{') || is_noise(seg) {
            continue;
        }
        let followed_by_param = segments.get(i + 1).is_some_and(|n| n.starts_with('{'));
        statics.push((seg.to_snake_case(), followed_by_param));
    }
    let ends_with_param = segments.last().is_some_and(|s| s.starts_with('{'));
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
        ];
        for (method, path, want) in cases {
            assert_eq!(from_route(method, path), want, "{method} {path}");
        }
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
            // RPC-style routes, and PUT/PATCH (which could share a path): kept.
            ("post_create_account", Method::Post, "/createAccount", None),
            ("post_accept_address_transfer", Method::Post, "/#Action=AcceptAddressTransfer", None),
            ("put_files_id", Method::Put, "/files/{file_id}", None),
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
            assert_eq!(noun_verb(id, method).as_deref(), want, "{id}");
        }
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
        for (plural_form, one) in [("caches", "cache"), ("coaches", "coach"), ("matches", "match"), ("niches", "niche")]
        {
            assert_eq!(singular(plural_form), one);
        }
        for (one, many) in [("policy", "policies"), ("key", "keys"), ("box", "boxes"), ("reservation", "reservations")]
        {
            assert_eq!(plural(one), many);
        }
    }

    #[test]
    fn long_names_are_shortened_stably() {
        let long = "get_".to_owned() + &"very_long_segment_".repeat(6) + "end";
        let a = fit(&long);
        assert!(a.len() <= MAX_LEN, "{a}");
        assert_eq!(a, fit(&long));
        assert_ne!(a, fit(&(long.clone() + "x")));
        assert!(a.starts_with("get_very_long_segment"));
    }

    #[test]
    fn sanitizing() {
        assert_eq!(sanitize("pets/list all"), "pets_list_all");
        assert_eq!(sanitize("__"), "call_api");
        assert_eq!(sanitize("a.b-c"), "a.b-c");
    }

    fn with_id(method: Method, path: &str, id: &str) -> Operation {
        Operation { operation_id: Some(id.to_owned()), ..Operation::bare(method, path) }
    }

    #[test]
    fn the_api_namespace_is_the_first_part_every_operation_id_shares() {
        let google = [
            with_id(Method::Get, "/v1/{name}", "domains.projects.locations.registrations.get"),
            with_id(Method::Get, "/v1/{name}/locations", "domains.projects.locations.list"),
        ];
        assert_eq!(api_namespace(&google).as_deref(), Some("domains"));
        // Slack's namespaces differ, two-part ids name no API, an operation without an id
        // could be anything.
        let slack = [
            with_id(Method::Get, "/admin.apps.approved.list", "admin.apps.approved.list"),
            with_id(Method::Post, "/chat.postMessage", "chat.postMessage"),
        ];
        assert_eq!(api_namespace(&slack), None);
        assert_eq!(api_namespace(&[with_id(Method::Get, "/a", "youtube.list")]), None);
        let unnamed = [google[0].clone(), Operation::bare(Method::Get, "/x")];
        assert_eq!(api_namespace(&unnamed), None);
    }

    #[test]
    fn scoped_names_say_the_method_and_its_collection_then_the_parents() {
        let cases = [
            (
                "domains.projects.locations.registrations.get",
                vec!["get_registration", "get_locations_registration", "get_projects_locations_registration"],
            ),
            ("domains.projects.locations.operations.list", vec!["list_operations", "list_locations_operations"]),
            ("domains.projects.locations.list", vec!["list_locations", "list_projects_locations"]),
            (
                "domains.projects.locations.registrations.configureContactSettings",
                vec!["configure_registration_contact_settings", "configure_locations_registration_contact_settings"],
            ),
            ("domains.projects.locations.registrations.getIamPolicy", vec!["get_registration_iam_policy"]),
            ("domains.projects.instances.undelete", vec!["undelete_instance"]),
            ("domains.projects.instances.failover", vec!["failover_instance"]),
            ("domains.instances.aggregatedList", vec!["aggregated_list_instances"]),
            ("domains.photos.batchGet", vec!["batch_get_photos"]),
            ("domains.flightclass.addmessage", vec!["add_flightclass_message"]),
            ("domains.proposals.setupcomplete", vec!["setup_proposal_complete"]),
        ];
        for (id, want) in cases {
            let got = scoped_names(&with_id(Method::Post, "/x", id), "domains");
            assert_eq!(got[..want.len()], want[..], "{id}");
        }
        // A method that names no action, or an id of another API: no scoped name.
        assert!(scoped_names(&with_id(Method::Get, "/x", "domains.similarity.by_content"), "domains").is_empty());
        assert!(scoped_names(&with_id(Method::Get, "/x", "dns.projects.get"), "domains").is_empty());
    }

    #[test]
    fn ids_that_end_with_their_verb_put_it_first() {
        let cases = [
            (
                "patient_communications_create",
                Method::Post,
                "/api/patient_communications",
                Some("create_patient_communication"),
            ),
            ("allergies_list", Method::Get, "/api/allergies", Some("list_allergies")),
            ("allergies_read", Method::Get, "/api/allergies/{id}", Some("get_allergy")),
            ("allergies_partial_update", Method::Patch, "/api/allergies/{id}", Some("partial_update_allergy")),
            (
                "dcim_cable-terminations_bulk_delete",
                Method::Delete,
                "/dcim/cable-terminations/",
                Some("bulk_delete_dcim_cable_terminations"),
            ),
            ("api_alert-log_get_collection", Method::Get, "/api/alert-log", Some("list_alert_logs")),
            ("api_alert-log_get_item", Method::Get, "/api/alert-log/{id}", Some("get_alert_log")),
            ("salesReports-get_collection", Method::Get, "/v1/salesReports", Some("list_sales_reports")),
            ("drivesAll", Method::Get, "/file-storage/drives", Some("list_drives")),
            ("drivesOne", Method::Get, "/file-storage/drives/{id}", Some("get_drive")),
            ("Users_Get", Method::Get, "/api/v2/Users", Some("list_users")),
            ("Users_Get", Method::Get, "/api/v2/Users/{id}", Some("get_user")),
            ("issueGetMilestonesList", Method::Get, "/repos/{owner}/{repo}/milestones", Some("list_issue_milestones")),
            (
                "account_roles_activate_create",
                Method::Post,
                "/account_roles/{id}/activate/",
                Some("activate_account_role"),
            ),
            ("DataPoints_BatchDelete", Method::Delete, "/datapoints/batch", Some("batch_delete_data_points")),
            // The verb disagrees with the method, leads already, or is one of two.
            ("allergies_create", Method::Get, "/api/allergies", None),
            ("search_users_list", Method::Get, "/users", None),
            ("guestDiagnosticsSettings_CreateOrUpdate", Method::Put, "/settings/{name}", None),
            ("cinema-detail_search_read", Method::Get, "/cinema-detail/search/{id}", Some("get_cinema_detail_search")),
            (
                "extras_export-templates_create",
                Method::Post,
                "/extras/export-templates/",
                Some("create_extras_export_template"),
            ),
        ];
        for (id, method, path, want) in cases {
            assert_eq!(verb_last(id, method, path).as_deref(), want, "{id}");
        }
    }

    #[test]
    fn handler_names_with_the_method_appended_are_the_handlers() {
        assert_eq!(
            using_method("getActiveObjectCountUsingGET", Method::Get).as_deref(),
            Some("get_active_object_count")
        );
        assert_eq!(using_method("appendTextUsingGET", Method::Get).as_deref(), Some("append_text"));
        assert_eq!(using_method("genesUsingGET", Method::Get).as_deref(), Some("get_genes"));
        assert_eq!(using_method("getUserUsingGET_1", Method::Get), None);
        assert_eq!(using_method("createUserUsingPOST", Method::Get), None);
        assert_eq!(
            versioned_service("catalogAttributeSetRepositoryV1DeleteByIdDelete", Method::Delete).as_deref(),
            Some("delete_catalog_attribute_set_repository_by_id")
        );
        assert_eq!(
            versioned_service("amazonPaymentOrderInformationManagementV1RemoveOrderReferenceDelete", Method::Delete)
                .as_deref(),
            Some("remove_amazon_payment_order_information_management_order_reference")
        );
        assert_eq!(
            versioned_service("analyticsLinkProviderV1GetGet", Method::Get).as_deref(),
            Some("get_analytics_link_provider")
        );
        assert_eq!(versioned_service("analyticsLinkProviderV1GetPost", Method::Get), None);
    }

    #[test]
    fn ids_that_name_a_group_then_the_method_put_the_verb_first() {
        let cases = [
            ("databases_create_cluster", Method::Post, Some("create_database_cluster")),
            ("kubernetes_list_options", Method::Get, Some("list_kubernetes_options")),
            ("apps_transferToOrg", Method::Post, Some("transfer_app_to_org")),
            ("repoDeleteGitHook", Method::Delete, Some("delete_repo_git_hook")),
            ("monitoring_get_dropletLoad5Metrics", Method::Get, Some("get_monitoring_droplet_load5_metrics")),
            // A GET of a noun phrase, a verb too far in, or one verb of two.
            ("orgAddTeamMember", Method::Put, Some("add_org_team_member")),
            ("order_return_items", Method::Get, None),
            ("actions/re-run-workflow", Method::Post, None),
            ("BatchGetNamedQuery", Method::Post, None),
            ("saveSyncConfig", Method::Post, None),
            ("batch_delete_things", Method::Post, None),
            ("Quote_Post_CreateQuote", Method::Post, None),
            ("settings_create_or_update", Method::Put, None),
        ];
        for (id, method, want) in cases {
            assert_eq!(group_verb(id, method).as_deref(), want, "{id}");
        }
        assert_eq!(
            verb_last("bankTransferList", Method::Post, "/bank_transfer/list").as_deref(),
            Some("list_bank_transfers")
        );
        assert_eq!(verb_last("bankTransferList", Method::Post, "/bank_transfer/all").as_deref(), None);
        assert_eq!(route_verb("bankTransferCancel", "/bank_transfer/cancel").as_deref(), Some("cancel_bank_transfer"));
        assert_eq!(route_verb("bankTransferCancel", "/bank_transfer/{id}").as_deref(), None);
        assert_eq!(route_verb("readAppsV1NamespacedDeploymentScale", "/apis/apps/v1/deployments/{name}/scale"), None);
    }

    #[test]
    fn fastapi_ids_are_named_for_their_handler() {
        let cases = [
            ("create_application_api_v1_app__post", Method::Post, "/api/v1/app/", Some("create_application")),
            (
                "expunge_attempt_content_api_v1_app__app_id__msg__msg_id__attempt__attempt_id__content__delete",
                Method::Delete,
                "/api/v1/app/{app_id}/msg/{msg_id}/attempt/{attempt_id}/content/",
                Some("expunge_attempt_content"),
            ),
            ("Add_voice_v1_voices_add_post", Method::Post, "/v1/voices/add", Some("add_voice")),
            ("air_quality_air_quality_get", Method::Get, "/air_quality", Some("get_air_quality")),
            ("cities_get_v2_cities_get", Method::Get, "/v2/cities", Some("list_cities")),
            ("imageDelete_images__id__delete", Method::Delete, "/images/{id}", Some("delete_image")),
            // Not the route: not FastAPI's.
            ("create_application_post", Method::Post, "/api/v1/app/", None),
        ];
        for (id, method, path, want) in cases {
            let op = with_id(method, path, id);
            assert_eq!(function_name(id, &op).as_deref(), want, "{id}");
        }
    }
}
