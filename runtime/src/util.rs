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

/// A successful result carrying `value` (structured, and as its JSON text for clients that read
/// only text): rmcp's `CallToolResult::structured`, with the text written by serde_json's
/// writer instead of through `Display`, which costs several times more on every call.
pub fn structured(value: serde_json::Value) -> rmcp::model::CallToolResult {
    let text = serde_json::to_string(&value).unwrap_or_default();
    let mut result = rmcp::model::CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)]);
    result.structured_content = Some(value);
    result
}

/// The length in bytes of `value`'s compact JSON, without building it.
pub fn json_len(value: &serde_json::Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}
