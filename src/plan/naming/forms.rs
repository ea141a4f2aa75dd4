//! Operation ids written by generators and frameworks, each read as the verb_noun name it
//! means (T1): Google's discovery ids (`<api>.<collections>.<method>`, named for the collection
//! they act on), and ids that say the verb, the route or the method last — Django REST framework,
//! API Platform, FastAPI, Springfox, Magento — or a group first.

use heck::ToSnakeCase;

use super::{
    ACTIONS, METHOD_VERBS, PREPOSITIONS, VERBS, compound_verb, finished, first_word, id_words, is_action_verb,
    is_collection_route, is_method_word, is_noise, is_read_verb, is_verb, last_segment, leading_verb, singular,
    snake_words, verb_first,
};
use crate::resolve::{Method, Operation};

/// Ids that name the resource first and the verb last, as frameworks write them: Django REST
/// framework's `patient_communications_create`, `nodes_addon_read`, NetBox's
/// `dcim_cable-terminations_bulk_delete`, API Platform's `api_alert-log_get_collection`, App Store
/// Connect's `salesReports-get_collection`, Apideck's `drivesAll`. Turned verb first (T1):
/// `create_patient_communication`, `get_nodes_addon`, `bulk_delete_dcim_cable_terminations`,
/// `list_alert_logs`, `list_sales_reports`, `list_drives`; Django REST framework's `retrieve` and
/// `destroy` and Twitter's `show` as the get and delete they are. Only when the verb agrees with the
/// HTTP method (a `_create` served on GET is something else) and a resource comes before it.
pub(super) fn verb_last(id: &str, method: Method, path: &str) -> Option<String> {
    use Method::{Delete, Get, Patch, Post, Put};
    let words = id_words(id);
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
        (&["get", "id"], "get", &[Get]),
        (&["id", "put"], "update", &[Put]),
        (&["id", "patch"], "patch", &[Patch]),
        (&["id", "delete"], "delete", &[Delete]),
        (&["list"], "list", &[Get]),
        (&["inspect"], "inspect", &[Get]),
        (&["all"], "list", &[Get]),
        (&["read"], "get", &[Get]),
        (&["retrieve"], "get", &[Get]),
        (&["show"], "get", &[Get]),
        (&["destroy"], "delete", &[Delete]),
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
    // Not `POST …/read`: that marks the item as read (Linode's `eventRead`).
    let route_says =
        last_segment(path).is_some_and(|last| snake_words(last) == *tail) && (*tail != ["read"] || method == Get);
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
    // A `get` of a collection route lists it (`Users_Get` on `GET /Users`); a `retrieve` or a
    // `show` names one (`friendships.show` on `/friendships/show.json`).
    let collection = is_collection_route(path);
    let verb = match resource.last() {
        Some(last)
            if *verb == "get" && !matches!(*tail, ["retrieve"] | ["show"]) && collection && singular(last) != *last =>
        {
            "list"
        }
        _ => verb,
    };
    verb_first(verb, &[resource], &[])
}

/// Springfox's operationIds are the handler's name and `Using` the method
/// (`getActiveObjectCountUsingGET`): the handler's name (`get_active_object_count`); a GET of a
/// handler named by one noun reads it (`get_genes` for `genesUsingGET`).
pub(super) fn using_method(id: &str, method: Method) -> Option<String> {
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
pub(super) fn versioned_service(id: &str, method: Method) -> Option<String> {
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
pub(super) fn route_verb(id: &str, path: &str) -> Option<String> {
    let mut words = id_words(id);
    let last = last_segment(path)?;
    let verb = words.pop().filter(|w| is_action_verb(w) && snake_words(last) == [w.clone()])?;
    // `readAppsV1NamespacedDeploymentScale` reads a scale.
    if words.is_empty() || words.first().is_some_and(|w| is_action_verb(w) || is_read_verb(w) || is_method_word(w)) {
        return None;
    }
    // Verbs that act on a whole collection (`POST /containers/prune`) keep the route's plural
    // (`prune_containers`); others (`POST /payments/cancel`) act on the one the body names.
    const WHOLE: &[&str] = &["clear", "prune", "purge"];
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let before = segments.len().checked_sub(2).and_then(|i| segments.get(i)).filter(|s| !s.starts_with('{'));
    if let (Some(plural), Some(noun)) = (before.and_then(|s| snake_words(s).pop()), words.last_mut())
        && WHOLE.contains(&verb.as_str())
        && singular(&plural) == *noun
        && plural != *noun
    {
        *noun = plural;
        return Some(format!("{verb}_{}", words.join("_")));
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
pub(super) fn group_verb(id: &str, method: Method) -> Option<String> {
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
    if let Some((compound, used)) = compound_verb(&words) {
        return verb_first(&compound, &[group], &words[used..]);
    }
    if words[1] == "or" || words[1] == "and" {
        return None;
    }
    verb_first(verb, &[group], &words[1..])
}

/// Ids that spell out the route, then the handler's name and the HTTP method, as Enunciate writes
/// them for JAX-RS resources (setlist.fm's `resource__1.0_artist__mbid__getArtist_GET` for
/// `GET /1.0/artist/{mbid}`): the handler's name (`get_artist`); a handler that gets a plural on
/// a collection route lists it (`getArtistSetlists` on `…/{mbid}/setlists`:
/// `list_artist_setlists`). Only when the handler starts with an action verb.
pub(super) fn handler_after_route(id: &str, op: &Operation) -> Option<String> {
    let flat = |s: &str| -> String { s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect() };
    let route = flat(&op.path);
    if !route.chars().any(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let id = flat(id);
    let method = op.method.as_lower();
    let (body, tail) = id.split_at(id.len().checked_sub(method.len() + 1)?);
    if !tail.strip_prefix('_').is_some_and(|m| m.eq_ignore_ascii_case(method)) {
        return None;
    }
    let (_, after) = body.split_once(route.as_str())?;
    let words = snake_words(after.trim_matches('_'));
    if words.len() < 2 || !is_action_verb(&words[0]) {
        return None;
    }
    let plural = words.last().is_some_and(|w| singular(w) != *w);
    if words[0] == "get" && op.method == Method::Get && is_collection_route(&op.path) && plural {
        return Some(format!("list_{}", words[1..].join("_")));
    }
    Some(words.join("_"))
}

/// FastAPI's operationIds are the handler's name, the route and the method
/// (`create_application_api_v1_app__post` for `POST /api/v1/app/`): the handler's name is the
/// name (`create_application`), verb first when it ends with its verb, and a read of a noun
/// (`air_quality` on `GET /air_quality`) is `get_air_quality`.
pub(super) fn function_name(id: &str, op: &Operation) -> Option<String> {
    let route: String = op.path.chars().map(|c| if c.is_alphanumeric() || c == '_' { c } else { '_' }).collect();
    let name = id.strip_suffix(op.method.as_lower())?.strip_suffix('_')?.strip_suffix(route.as_str())?;
    let snake = name.to_snake_case();
    let first = first_word(name);
    if first.is_empty() {
        return None;
    }
    if is_action_verb(&first) {
        return Some(snake);
    }
    verb_last(name, op.method, &op.path)
        .or_else(|| Some(if op.method == Method::Get { format!("get_{snake}") } else { snake }))
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
        .map(|name| finished(&name))
        .collect()
}

/// The verb of a method part and the words after it: its first word when that is a verb or
/// nothing else fits (`undelete`, `query`); a verb run together with its object parted
/// (`addmessage` → `add`, `[message]`); a modified verb kept whole (`aggregatedList` →
/// `aggregated_list`, `batchGet` → `batch_get`). `None` for a method that starts with a
/// preposition (`by_content`): it names no action.
fn method_verb(words: &[String]) -> Option<(String, Vec<String>)> {
    let first = words.first()?.as_str();
    if let Some((verb, used)) = leading_verb(words, is_verb) {
        return Some((verb, words[used..].to_vec()));
    }
    if PREPOSITIONS.contains(&first) {
        return None;
    }
    if let [single] = words {
        let verb = VERBS
            .iter()
            .chain(ACTIONS)
            .chain(METHOD_VERBS)
            // Not among the method verbs: Visma's `CustomerContract_SetupAndActivate…` reads
            // better as written than set up first.
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

#[cfg(test)]
mod tests {
    use super::*;

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
            ("domains.apps.tokens.tags.createOrUpdate", vec!["create_or_update_tag"]),
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
            ("account_roles_retrieve", Method::Get, "/account_roles/{id}/", Some("get_account_role")),
            ("account_roles_destroy", Method::Delete, "/account_roles/{id}/", Some("delete_account_role")),
            ("friendships.show", Method::Get, "/friendships/show.json", Some("get_friendship")),
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
            ("databases_destroy_cluster", Method::Delete, Some("destroy_database_cluster")),
            ("apps_revert_rollback", Method::Post, Some("revert_app_rollback")),
            // A GET of a noun phrase or a verb too far in; one verb of two is said whole.
            ("orgAddTeamMember", Method::Put, Some("add_org_team_member")),
            ("order_return_items", Method::Get, None),
            ("actions/re-run-workflow", Method::Post, None),
            ("BatchGetNamedQuery", Method::Post, None),
            ("saveSyncConfig", Method::Post, None),
            ("batch_delete_things", Method::Post, None),
            ("Quote_Post_CreateQuote", Method::Post, None),
            ("settings_create_or_update", Method::Put, Some("create_or_update_setting")),
        ];
        for (id, method, want) in cases {
            assert_eq!(group_verb(id, method).as_deref(), want, "{id}");
        }
        assert_eq!(
            verb_last("bankTransferList", Method::Post, "/bank_transfer/list").as_deref(),
            Some("list_bank_transfers")
        );
        assert_eq!(verb_last("bankTransferList", Method::Post, "/bank_transfer/all").as_deref(), None);
        assert_eq!(verb_last("chart_axes_get_id", Method::Get, "/Charts/Axes/{id}").as_deref(), Some("get_chart_axis"));
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
