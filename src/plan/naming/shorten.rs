//! Names longer than [`MAX_LEN`] (T1: "readable shortening"). A long name is first said in
//! fewer words, the way a person would shorten it: common abbreviations, no version words, no
//! restated ids, no trailing clause that only names the arguments, then fewer parent nouns.
//! Only when that cannot fit, or when two shortened names meet, does a name fall back to its
//! front words and a hash of the whole, which two different names never share.

use super::{MAX_LEN, PREPOSITIONS, compound_verb, is_action_verb, is_read_verb, singular};
use crate::resolve::{Operation, ParamLocation};

/// The names a tool may be served as for this full name of `op`, most readable first, each with
/// what it adds to the name's rank (see `naming::Names`): the name itself when it fits;
/// otherwise its readable shortenings (when there are any), which say less than the full name
/// and so yield to a tool whose name is its own, then [`fit`], which no other name meets.
pub fn fitted(name: &str, op: &Operation) -> Vec<(String, u32)> {
    if name.len() <= MAX_LEN {
        return vec![(name.to_owned(), 0)];
    }
    let arguments: Vec<String> = op
        .parameters
        .iter()
        .filter(|p| matches!(p.location, ParamLocation::Path | ParamLocation::Query))
        .map(|p| p.name.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase())
        .collect();
    // Kubernetes says one resource in several versions (`…_autoscaling_v1_…`, `…_v2_…`): where
    // the shortenings without versions meet, those that keep them part.
    let without = readable(name, &arguments, false);
    let with = readable(name, &arguments, true).filter(|short| Some(short) != without.as_ref());
    without.into_iter().chain(with).map(|short| (short, 1)).chain([(fit(name), 0)]).collect()
}

/// Shortens a name to `MAX_LEN`: whole words from the front, then a stable hash of the full
/// name so that two long names that share a prefix stay distinct.
pub fn fit(name: &str) -> String {
    if name.len() <= MAX_LEN {
        return name.to_owned();
    }
    let budget = MAX_LEN - HASH_LEN - 1;
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
    tagged(&out, name)
}

/// How many hex digits of the hash a shortened name ends with.
pub const HASH_LEN: usize = 6;

/// `short` with a stable hash of `full` after it: the name that `full`, shortened to `short`,
/// shares with no other. `short` leaves room for the hash (at most `MAX_LEN - HASH_LEN - 1`).
pub fn tagged(short: &str, full: &str) -> String {
    let hash = format!("{:08x}", fnv1a(full.as_bytes()));
    format!("{short}_{}", &hash[..HASH_LEN])
}

/// FNV-1a, 32 bits: a stable hash that does not depend on the platform or the Rust version.
fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in bytes {
        h ^= u32::from(*b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// A long name in fewer words, without a hash; `None` when no step brings it to `MAX_LEN` with
/// three words or more left. Each step runs only while the name is still too long, so a
/// name loses no more than it must. `arguments` are the operation's path and query parameter
/// names, lowercased without separators; `keep_versions` keeps version words.
fn readable(name: &str, arguments: &[String], keep_versions: bool) -> Option<String> {
    let mut words: Vec<String> = name.split('_').map(|w| abbreviated(w).to_owned()).collect();
    if length(&words) > MAX_LEN && !keep_versions {
        drop_versions(&mut words);
    }
    if length(&words) > MAX_LEN {
        drop_restated_ids(&mut words);
    }
    if length(&words) > MAX_LEN {
        drop_argument_clauses(&mut words, arguments);
    }
    if length(&words) > MAX_LEN {
        drop_parents(&mut words);
    }
    (length(&words) <= MAX_LEN && words.len() >= 3).then(|| words.join("_"))
}

fn length(words: &[String]) -> usize {
    words.iter().map(|w| w.len() + 1).sum::<usize>().saturating_sub(1)
}

/// Abbreviations a developer reads without a second look.
pub(super) fn abbreviated(word: &str) -> &str {
    match word {
        "administrator" => "admin",
        "administrators" => "admins",
        "application" => "app",
        "applications" => "apps",
        "authentication" => "auth",
        "configuration" => "config",
        "configurations" => "configs",
        "database" => "db",
        "databases" => "dbs",
        "environment" => "env",
        "environments" => "envs",
        "identifier" => "id",
        "identifiers" => "ids",
        "information" => "info",
        "management" => "mgmt",
        "maximum" => "max",
        "minimum" => "min",
        "organisation" | "organization" => "org",
        "organisations" | "organizations" => "orgs",
        "parameter" => "param",
        "parameters" => "params",
        "repositories" => "repos",
        "repository" => "repo",
        "specification" => "spec",
        "specifications" => "specs",
        "statistics" => "stats",
        _ => word,
    }
}

/// `v1`, `v2.0` and Kubernetes' `v1beta1` say nothing about what the tool does. The first word
/// stays: it is the verb. (`api` stays too: in `api_credentials` it is part of the noun.)
fn drop_versions(words: &mut Vec<String>) {
    let mut first = true;
    words.retain(|w| std::mem::take(&mut first) || !is_version(w));
}

fn is_version(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next() == Some('v')
        && chars.next().is_some_and(|c| c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '.')
        && word.ends_with(|c: char| c.is_ascii_digit())
}

/// Ids the name states that the arguments already carry: `merchants_merchant_id` says
/// `merchants`, `organisations_id_plans` says `organisations_plans`, and clauses such as
/// `by_id_member` (Trello) or `by_base_for_employment_fund_calculation_id` (Loket) go.
fn drop_restated_ids(words: &mut Vec<String>) {
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        if w == "by" || (w == "and" && i > 0) {
            let end = (i + 1..words.len()).find(|&j| matches!(words[j].as_str(), "by" | "and")).unwrap_or(words.len());
            let clause = &words[i + 1..end];
            let names_an_id = clause.first().is_some_and(|c| c == "id")
                || clause.len() > 1 && clause.last().is_some_and(|c| c == "id" || c == "ids");
            if names_an_id {
                i = end;
                continue;
            }
        }
        if w == "id" {
            // `merchants_merchant_id`, `api_credentials_api_credential_id`: the noun again;
            // `organisations_id`: the collection's id. Other ids (`id_token`) are names.
            if let Some(k) = (1..=3).rev().find(|&k| restates(&out, k)) {
                let said = out.split_off(out.len() - k);
                // `…_allowed_origins_origin_id` at the end names one origin:
                // `…_allowed_origin`.
                if i + 1 == words.len()
                    && let Some(last) = out.last_mut().filter(|prev| singular(prev) == said[k - 1])
                {
                    last.clone_from(&said[k - 1]);
                }
                i += 1;
                continue;
            }
            if out.last().is_some_and(|prev| singular(prev) != *prev) {
                i += 1;
                continue;
            }
        }
        out.push(w.clone());
        i += 1;
    }
    if out.len() >= 3 {
        *words = out;
    }
}

/// Whether the last `k` words say again words that came before them (`merchants_merchant`,
/// `payment_method_settings_payment_method`), in the singular or the plural.
fn restates(words: &[String], k: usize) -> bool {
    let n = words.len();
    if n < 2 * k {
        return false;
    }
    let (earlier, named) = words.split_at(n - k);
    earlier.windows(k).any(|run| run.iter().zip(named).all(|(a, b)| singular(a) == singular(b)))
}

/// Words that start a qualifier of what the tool acts on.
const QUALIFIERS: &[&str] = &["and", "at", "by", "for", "from", "in", "on", "per", "using", "via", "with", "within"];

/// `get_operations_flightstatus_arrivals_by_airport_code_and_from_date_time` →
/// `get_operations_flightstatus_arrivals_by_airport_code`: trailing clauses that only name the
/// arguments (`airportCode`, `fromDateTime`), which the input schema says anyway. A clause that names
/// something else (`by_create_subscription_permission`) says what the tool does, and stays.
fn drop_argument_clauses(words: &mut Vec<String>, arguments: &[String]) {
    let names_argument = |w: &str| {
        QUALIFIERS.contains(&w) || w == "id" || w == "ids" || (w.len() > 2 && arguments.iter().any(|a| a.contains(w)))
    };
    let mut cut = words.len();
    while cut > 3 && names_argument(&words[cut - 1]) {
        cut -= 1;
    }
    // Of the clauses that may go, as few as make the name fit; the cut falls at a qualifier
    // (`…_arrivals_by_airport_code`, not `…_arrivals_by_airport`).
    if let Some(q) =
        (cut..words.len()).rev().find(|&q| QUALIFIERS.contains(&words[q].as_str()) && length(&words[..q]) <= MAX_LEN)
    {
        words.truncate(q);
        while words.len() > 3 && words.last().is_some_and(|w| QUALIFIERS.contains(&w.as_str())) {
            words.pop();
        }
    }
}

/// `delete_admissionregistration_collection_validating_webhook_config` →
/// `delete_collection_validating_webhook_config`: after a verb come the API's groups and parent
/// resources, most general first, and the resource acted on last; the parents go first.
fn drop_parents(words: &mut Vec<String>) {
    // A verb of more than one word (`create_or_update`) stays whole.
    let verb = match compound_verb(words) {
        Some((_, used)) => used,
        None if words.first().is_some_and(|w| is_action_verb(w) || is_read_verb(w)) => 1,
        None => return,
    };
    let mut kept = words.clone();
    while length(&kept) > MAX_LEN && kept.len() > verb + 2 {
        // A version that is kept stays: it is what tells this name from its siblings.
        let Some(parent) = (verb..kept.len() - 2).find(|&i| !is_version(&kept[i])) else { return };
        kept.remove(parent);
        // `change_status_of_the_origin…` does not become `change_of_the_origin…`.
        let next = kept[parent].as_str();
        if QUALIFIERS.contains(&next) || PREPOSITIONS.contains(&next) || next == "the" {
            return;
        }
    }
    *words = kept;
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_long_name_is_first_said_in_fewer_words() {
        for (long, arguments, short) in [
            // Abbreviations and versions, then the API group.
            (
                "delete_admissionregistration_v1_collection_validating_webhook_configuration",
                &[][..],
                "delete_collection_validating_webhook_config",
            ),
            (
                "get_managed_restorable_dropped_database_backup_short_term_retention_policy",
                &[],
                "get_restorable_dropped_db_backup_short_term_retention_policy",
            ),
            // Restated ids, when abbreviations are not enough.
            (
                "delete_merchants_merchant_id_split_configurations_split_configuration_id",
                &[],
                "delete_merchants_merchant_id_split_configs_split_config_id",
            ),
            (
                "get_companies_company_id_api_credentials_api_credential_id_allowed_origins",
                &[],
                "get_companies_api_credentials_allowed_origins",
            ),
            (
                "get_merchants_merchant_id_payment_method_settings_payment_method_id_get_apple_pay_domains",
                &[],
                "get_merchants_payment_method_settings_get_apple_pay_domains",
            ),
            (
                "get_companies_company_id_api_credentials_api_credential_id_allowed_origins_origin_id",
                &[],
                "get_companies_api_credentials_allowed_origin",
            ),
            (
                "delete_members_board_backgrounds_by_id_member_by_id_board_background",
                &[],
                "delete_members_board_backgrounds",
            ),
            (
                "delete_base_for_employment_fund_calculation_by_base_for_employment_fund_calculation_id",
                &[],
                "delete_base_for_employment_fund_calculation",
            ),
            // Trailing clauses that only name the arguments, as few as needed.
            (
                "get_operations_flightstatus_arrivals_by_airport_code_and_from_date_time",
                &["airportcode", "fromdatetime"],
                "get_operations_flightstatus_arrivals_by_airport_code",
            ),
            // A verb of two words stays whole while parents go.
            (
                "create_or_update_managed_database_vulnerability_assessment_rule_baseline",
                &[],
                "create_or_update_db_vulnerability_assessment_rule_baseline",
            ),
            // A clause that says what the tool does stays; a parent goes instead.
            (
                "list_billing_account_invoice_sections_by_create_subscription_permission",
                &["billingaccountname"],
                "list_account_invoice_sections_by_create_subscription_permission",
            ),
        ] {
            assert!(long.len() > MAX_LEN, "{long}");
            let arguments: Vec<String> = arguments.iter().map(|a: &&str| (*a).to_owned()).collect();
            assert_eq!(readable(long, &arguments, false).as_deref(), Some(short), "{long}");
        }
    }

    #[test]
    fn a_shortened_name_yields_then_falls_back_to_its_hash() {
        let op = Operation::bare(crate::resolve::Method::Get, "/x");
        assert_eq!(fitted("list_users", &op), [("list_users".to_owned(), 0)]);
        for (long, shortened) in [
            // Versions go first; where that is not enough to part two names, a shortening keeps
            // them.
            (
                "delete_admissionregistration_v1_collection_validating_webhook_configuration",
                &["delete_collection_validating_webhook_config", "delete_v1_collection_validating_webhook_config"][..],
            ),
            (
                "delete_autoscaling_v2_collection_namespaced_horizontal_pod_autoscaler",
                &[
                    "delete_collection_namespaced_horizontal_pod_autoscaler",
                    "delete_v2_collection_namespaced_horizontal_pod_autoscaler",
                ],
            ),
            // No verb to keep while parents go, no qualifier, no restatement: only the hash.
            ("game_center_enabled_versions_compatible_versions_create_to_many_relationship", &[]),
            // `change_status_of_the_origin…` does not lose its `status`.
            ("change_status_of_the_origin_allowlist_v1_allowlist_private_allowlist_id_origin_put", &[]),
        ] {
            let want: Vec<(String, u32)> =
                shortened.iter().map(|s| ((*s).to_owned(), 1)).chain([(fit(long), 0)]).collect();
            assert_eq!(fitted(long, &op), want, "{long}");
        }
    }
}
