//! Small helpers shared by the runtime's modules.

/// The `{name}` placeholders left in a path template.
pub fn template_names(path: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        let Some(len) = rest[start..].find('}') else { break };
        names.push(rest[start + 1..start + len].to_owned());
        rest = &rest[start + len + 1..];
    }
    names
}

/// Seconds since the Unix epoch, as tokens count them.
pub fn now_secs() -> u64 {
    u64::try_from(crate::store::now_ms() / 1000).unwrap_or(0)
}
