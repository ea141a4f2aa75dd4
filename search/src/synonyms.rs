//! The everyday words people use in requests for what APIs name otherwise. A request says
//! "remove", "stop" or "PR" where the operation says delete, cancel or pull request; the
//! query gains the API's words beside its own. General vocabulary of software and web APIs
//! only: a vendor's own terms belong in its descriptions, which the index already holds.

/// Each entry: a word a request may use (lower case, as the query's words are compared), and
/// the words added when it appears.
const TABLE: &[(&str, &str)] = &[
    // Abbreviations.
    ("pr", "pull request"),
    ("prs", "pull requests"),
    ("repo", "repository"),
    ("repos", "repositories"),
    ("org", "organization"),
    ("orgs", "organizations"),
    ("dm", "direct message conversation"),
    ("dms", "direct messages conversations"),
    ("msg", "message"),
    ("config", "configuration settings"),
    ("settings", "configuration"),
    ("info", "information details"),
    ("admin", "administrator"),
    ("admins", "administrators"),
    ("env", "environment"),
    ("auth", "authentication authorization"),
    ("stats", "statistics"),
    ("docs", "documents"),
    ("doc", "document"),
    ("pic", "picture image"),
    ("avatar", "picture image"),
    // Verbs: what a request says, and what an operation is called.
    ("remove", "delete"),
    ("erase", "delete"),
    ("wipe", "delete"),
    ("destroy", "delete"),
    ("drop", "delete remove"),
    ("kick", "remove"),
    ("stop", "cancel disable"),
    ("abort", "cancel"),
    ("halt", "cancel"),
    ("pause", "disable"),
    ("resume", "enable"),
    ("turn", "enable disable"),
    ("make", "create"),
    ("add", "create"),
    ("new", "create"),
    ("start", "create"),
    ("open", "create"),
    ("set", "update"),
    ("change", "update"),
    ("modify", "update"),
    ("edit", "update"),
    ("rename", "update name"),
    ("show", "get list"),
    ("see", "get list"),
    ("view", "get"),
    ("fetch", "get"),
    ("find", "search get"),
    ("look", "search get"),
    ("lookup", "search get"),
    ("check", "get"),
    ("download", "get content"),
    ("upload", "create upload file"),
    ("send", "post create"),
    ("post", "create send"),
    ("invite", "add member invitation"),
    ("restore", "restore undelete"),
    ("undo", "restore revert"),
    ("undelete", "restore"),
    ("recover", "restore"),
    ("block", "block ban"),
    ("ban", "block"),
    ("unban", "unblock"),
    ("mute", "snooze"),
    ("star", "star favorite"),
    ("favorite", "star"),
    ("bookmark", "star save"),
    ("approve", "approve review"),
    ("reject", "decline"),
    ("decline", "reject"),
    ("void", "cancel"),
    ("charge", "payment"),
    ("money", "refund payment amount"),
    ("pay", "payment"),
    ("bill", "invoice"),
    ("billed", "invoice subscription"),
    ("receipt", "invoice"),
    ("people", "users members"),
    ("person", "user member"),
    ("someone", "user member"),
    ("everyone", "members all"),
    ("colleague", "user member"),
    ("coworker", "user member"),
    ("teammate", "member user"),
    ("group", "team"),
    ("note", "comment"),
    ("reply", "comment message"),
    ("emoji", "reaction"),
    ("react", "reaction"),
];

/// `query` followed by the words its words stand for.
pub fn expand(query: &str) -> String {
    let mut out = query.to_owned();
    for word in query.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let lower = word.to_lowercase();
        if let Some((_, more)) = TABLE.iter().find(|(w, _)| *w == lower) {
            out.push(' ');
            out.push_str(more);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_the_api_s_words_and_keeps_the_request_s() {
        assert_eq!(expand("close my PR"), "close my PR pull request");
        assert_eq!(expand("nothing here"), "nothing here");
    }

    #[test]
    fn every_word_is_listed_once() {
        let mut seen = std::collections::BTreeSet::new();
        for (w, _) in TABLE {
            assert!(seen.insert(*w), "{w} is listed twice");
            assert_eq!(*w, w.to_lowercase(), "{w} must be lower case");
        }
    }
}
