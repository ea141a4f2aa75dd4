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

#[cfg(test)]
mod tests {
    #[test]
    fn def_keys_keep_what_a_ref_can_read() {
        assert_eq!(super::def_key("Pet Store/v2#Item"), "Pet_Store_v2_Item");
        assert_eq!(super::def_key("io.k8s.api-core_v1"), "io.k8s.api-core_v1");
    }
}
