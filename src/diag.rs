//! Diagnostics: what went wrong, where (file, JSON Pointer, line/column) and what to do about it.
//! Every stage reports through this type; rendering is text or JSON. No I/O here.

use std::fmt;

use serde::Serialize;

/// Stable diagnostic codes. Renaming one is a breaking change for users who filter on them.
pub mod codes {
    pub const IO: &str = "io";
    pub const PARSE: &str = "parse";
    pub const NOT_A_SPEC: &str = "not-a-spec";
    pub const UNSUPPORTED_VERSION: &str = "unsupported-version";
    pub const INVALID_SPEC: &str = "invalid-spec";
    pub const UNKNOWN_REF: &str = "unknown-ref";
    pub const INVALID_SCHEMA: &str = "invalid-schema";
    pub const PATTERN_REWRITTEN: &str = "pattern-rewritten";
    pub const EXTERNAL_REF: &str = "external-ref";
    pub const UNSUPPORTED_MEDIA_TYPE: &str = "unsupported-media-type";
    pub const DUPLICATE_KEY: &str = "duplicate-key";
    pub const OVERLAY: &str = "overlay";
    /// `mcp-gen verify`: the upstream answered other than the description says.
    pub const VERIFY: &str = "verify-mismatch";
    pub const OVERLAY_UNUSED: &str = "overlay-unused";
    pub const OVERLAY_UNKNOWN_TARGET: &str = "overlay-unknown-target";
    /// An overlay entry (`params`, `fixed`, `paginate`) names an argument the tool does not have.
    pub const OVERLAY_UNKNOWN_ARG: &str = "overlay-unknown-argument";
    pub const NAME_COLLISION: &str = "name-collision";
    pub const EMPTY_CATALOG: &str = "empty-catalog";
    pub const OUTPUT_TRIMMED: &str = "output-schema-trimmed";
    pub const INJECTION: &str = "D3-injection";
    /// An argument that asks for the agent's own state (I6), left out or refused.
    pub const AGENT_INTERNALS: &str = "I6-agent-internals";
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        })
    }
}

/// Where a diagnostic points: a file, a JSON Pointer into it, and (once located) line and column.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Location {
    pub file: String,
    pub pointer: String,
    /// 1-based.
    pub line: Option<usize>,
    /// 1-based.
    pub column: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub location: Option<Location>,
    /// Starts with the fix.
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Error, code, message: message.into(), location: None, help: None }
    }

    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(code, message) }
    }

    pub fn note(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Note, ..Diagnostic::error(code, message) }
    }

    /// Points the diagnostic at `pointer` in `file`; line and column are filled in later, in one
    /// pass per file (see `source::Sources::locate`).
    pub fn at(mut self, file: &str, pointer: impl Into<String>) -> Self {
        self.location = Some(Location { file: file.to_owned(), pointer: pointer.into(), line: None, column: None });
        self
    }

    /// Points at a known line and column (parse errors, where no pointer exists yet).
    pub fn at_line(mut self, file: &str, line: usize, column: usize) -> Self {
        self.location =
            Some(Location { file: file.to_owned(), pointer: String::new(), line: Some(line), column: Some(column) });
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]: {}", self.severity, self.code, self.message)?;
        if let Some(loc) = &self.location {
            write!(f, "\n  --> {}", loc.file)?;
            if let (Some(line), Some(col)) = (loc.line, loc.column) {
                write!(f, ":{line}:{col}")?;
            }
            if !loc.pointer.is_empty() {
                write!(f, " (#{})", loc.pointer)?;
            }
        }
        if let Some(help) = &self.help {
            write!(f, "\n  = help: {help}")?;
        }
        Ok(())
    }
}

/// A set of diagnostics, the error type of every fallible entry point.
#[derive(Clone, Default, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(transparent)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
}

/// The rendered diagnostics: what a build script returning `Result<(), Report>` (or a test's
/// `unwrap`) prints on failure is then readable, file:line:col first.
impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f)?;
        fmt::Display::fmt(self, f)
    }
}

impl Report {
    pub fn new() -> Self {
        Report::default()
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    pub fn extend(&mut self, other: impl IntoIterator<Item = Diagnostic>) {
        self.diagnostics.extend(other);
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    pub fn is_empty(&self) -> bool {
        self.diagnostics.is_empty()
    }

    /// Stable order: by file, then position, then code, so output never depends on discovery order.
    pub fn sort(&mut self) {
        self.diagnostics.sort_by(|a, b| {
            let key = |d: &Diagnostic| {
                d.location
                    .as_ref()
                    .map(|l| (l.file.clone(), l.line.unwrap_or(0), l.column.unwrap_or(0), l.pointer.clone()))
            };
            key(a)
                .cmp(&key(b))
                .then(a.severity.cmp(&b.severity))
                .then(a.code.cmp(b.code))
                .then(a.message.cmp(&b.message))
        });
    }

    /// JSON rendering for tools and CI.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.diagnostics).unwrap_or_else(|_| "[]".to_owned())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.diagnostics {
            writeln!(f, "{d}")?;
        }
        let errors = self.error_count();
        let warnings = self.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count();
        if errors > 0 || warnings > 0 {
            write!(f, "{errors} error(s), {warnings} warning(s)")?;
        }
        Ok(())
    }
}

impl From<Diagnostic> for Report {
    fn from(d: Diagnostic) -> Self {
        Report { diagnostics: vec![d] }
    }
}

/// Escapes one JSON Pointer reference token (RFC 6901).
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The token a JSON Pointer reference token stands for (RFC 6901: `~1` is `/`, `~0` is `~`).
pub fn unescape_token(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// Appends a token to a pointer.
pub fn join_pointer(base: &str, token: &str) -> String {
    format!("{base}/{}", escape_token(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_and_help() {
        let mut d = Diagnostic::error(codes::UNKNOWN_REF, "`#/x` does not resolve")
            .at("spec.yaml", "/paths/~1a")
            .with_help("define it");
        if let Some(l) = d.location.as_mut() {
            l.line = Some(3);
            l.column = Some(5);
        }
        assert_eq!(
            d.to_string(),
            "error[unknown-ref]: `#/x` does not resolve\n  --> spec.yaml:3:5 (#/paths/~1a)\n  = help: define it"
        );
    }

    #[test]
    fn pointer_tokens_are_escaped() {
        assert_eq!(join_pointer("/paths", "/pets/{id}"), "/paths/~1pets~1{id}");
        assert_eq!(escape_token("a~b"), "a~0b");
    }
}
