//! Text helpers shared by the stages, each in one place (the load stage names embedded files'
//! shapes with them as the resolver names a spec's own).

/// `name` with only the characters safe in a `$defs` key and readable in a `$ref` (letters,
/// digits, `_`, `-`, `.`); every other run of characters becomes one `_`.
pub fn def_key(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_owned()
}

/// `base`, else `base{sep}2`, `base{sep}3`…: the first that `taken` does not hold. Every stage
/// that must make a name unique (defs, embedded files, tool names, Rust fields and variants)
/// numbers it this way.
pub fn unique(base: &str, sep: &str, mut taken: impl FnMut(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_owned();
    }
    (2..).map(|n| format!("{base}{sep}{n}")).find(|c| !taken(c)).unwrap_or_else(|| base.to_owned())
}

#[cfg(test)]
mod tests {
    #[test]
    fn unique_names_are_numbered_from_two() {
        let taken = ["a", "a_2"];
        assert_eq!(super::unique("b", "_", |c| taken.contains(&c)), "b");
        assert_eq!(super::unique("a", "_", |c| taken.contains(&c)), "a_3");
        assert_eq!(super::unique("a", "V", |c| taken.contains(&c)), "aV2");
    }

    #[test]
    fn def_keys_keep_what_a_ref_can_read() {
        assert_eq!(super::def_key("Pet Store/v2#Item"), "Pet_Store_v2_Item");
        assert_eq!(super::def_key("io.k8s.api-core_v1"), "io.k8s.api-core_v1");
    }
}
