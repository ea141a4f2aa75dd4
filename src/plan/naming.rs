//! Tool names (CONTRACT T1): verb_noun in snake_case, at most 64 characters of `[A-Za-z0-9_.-]`,
//! unique and deterministic. From the operationId when there is one, otherwise from the method
//! and path (`GET /pets` → `list_pets`, `POST /pets/{id}/approve` → `approve_pet`).

use heck::ToSnakeCase;

use crate::resolve::{Method, Operation};

pub const MAX_LEN: usize = 64;

/// The name an operation gets before collisions are resolved.
pub fn base_name(op: &Operation) -> String {
    let raw = match &op.operation_id {
        Some(id) => id.to_snake_case(),
        None => from_route(op.method, &op.path),
    };
    fit(&sanitize(&raw))
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
    if let Some(stem) = lower.strip_suffix("ies")
        && stem.len() > 1
    {
        return format!("{}y", &word[..stem.len()]);
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
}
