//! JSON documents: parsed by serde_json, and scanned on demand to find the line and column of
//! JSON Pointers for diagnostics. The scan skips every subtree that holds no target, so locating
//! a few pointers in a 47 MB document costs one pass over the bytes.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::diag::escape_token;

pub struct JsonError {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

pub fn parse(text: &str) -> Result<Value, JsonError> {
    if let Some((line, column)) = too_deep(text) {
        return Err(JsonError { message: format!("nesting deeper than {MAX_DEPTH} levels"), line, column });
    }
    let mut de = serde_json::Deserializer::from_str(text);
    // Real specs nest deeper than serde_json's default limit of 128 (Kubernetes does); depth is
    // bounded by `too_deep` above instead.
    de.disable_recursion_limit();
    let value: Result<Value, _> = serde::Deserialize::deserialize(&mut de);
    match value.and_then(|v| de.end().map(|()| v)) {
        Ok(v) => Ok(v),
        Err(e) => Err(JsonError { message: strip_position(&e.to_string()), line: e.line(), column: e.column() }),
    }
}

/// Documents nested deeper than this are rejected before deserialisation.
const MAX_DEPTH: usize = 400;

/// Checks nesting depth with a byte scan (strings skipped); returns the position of the first
/// opening bracket beyond `MAX_DEPTH`.
pub fn too_deep(text: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let (mut depth, mut i, mut line, mut line_start) = (0usize, 0usize, 1usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some((line, i - line_start + 1));
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// Line and column (1-based) of each pointer in `targets`: the key's position for object members,
/// the value's position otherwise.
pub fn locate(text: &str, targets: &BTreeSet<String>) -> BTreeMap<String, (usize, usize)> {
    let mut s = Scanner {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        targets,
        found: BTreeMap::new(),
        pointer: String::new(),
        cursor: (0, 1, 1),
    };
    s.ws();
    s.value(0);
    s.found
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    targets: &'a BTreeSet<String>,
    found: BTreeMap<String, (usize, usize)>,
    pointer: String,
    /// (byte offset, line, column) of the last position computed: the scan only moves
    /// forward, so positions are counted incrementally (minified documents are one long line).
    cursor: (usize, usize, usize),
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self.pos < self.bytes.len() && matches!(self.bytes[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn position(&mut self, at: usize) -> (usize, usize) {
        let (from, mut line, mut column) = self.cursor;
        if at < from {
            // Not expected (the scan moves forward), but stay correct if it ever happens.
            self.cursor = (0, 1, 1);
            return self.position(at);
        }
        for &b in &self.bytes[from..at] {
            if b == b'\n' {
                line += 1;
                column = 1;
            } else if b & 0xC0 != 0x80 {
                // Count characters, not UTF-8 continuation bytes.
                column += 1;
            }
        }
        self.cursor = (at, line, column);
        (line, column)
    }

    fn record(&mut self, at: usize) {
        if self.targets.contains(&self.pointer) && !self.found.contains_key(&self.pointer) {
            let pos = self.position(at);
            self.found.insert(self.pointer.clone(), pos);
        }
    }

    /// Whether any target lies at or under the current pointer.
    fn wanted(&self) -> bool {
        let p = &self.pointer;
        self.targets
            .range::<str, _>((std::ops::Bound::Included(p.as_str()), std::ops::Bound::Unbounded))
            .next()
            .is_some_and(|t| t.starts_with(p.as_str()) && (t.len() == p.len() || t.as_bytes()[p.len()] == b'/'))
    }

    fn value(&mut self, depth: usize) {
        if depth > MAX_DEPTH || self.pos >= self.bytes.len() {
            return;
        }
        self.record(self.pos);
        if !self.wanted() {
            self.skip();
            return;
        }
        match self.bytes[self.pos] {
            b'{' => {
                self.pos += 1;
                loop {
                    self.ws();
                    match self.bytes.get(self.pos) {
                        Some(b'}') | None => {
                            self.pos += 1;
                            return;
                        }
                        Some(b',') => {
                            self.pos += 1;
                            continue;
                        }
                        _ => {}
                    }
                    let key_at = self.pos;
                    let key = self.string();
                    let len = self.pointer.len();
                    self.pointer.push('/');
                    self.pointer.push_str(&escape_token(&key));
                    self.record(key_at);
                    self.ws();
                    if self.bytes.get(self.pos) == Some(&b':') {
                        self.pos += 1;
                    }
                    self.ws();
                    self.value(depth + 1);
                    self.pointer.truncate(len);
                }
            }
            b'[' => {
                self.pos += 1;
                let mut index = 0usize;
                loop {
                    self.ws();
                    match self.bytes.get(self.pos) {
                        Some(b']') | None => {
                            self.pos += 1;
                            return;
                        }
                        Some(b',') => {
                            self.pos += 1;
                            continue;
                        }
                        _ => {}
                    }
                    let len = self.pointer.len();
                    self.pointer.push('/');
                    self.pointer.push_str(&index.to_string());
                    self.value(depth + 1);
                    self.pointer.truncate(len);
                    index += 1;
                }
            }
            _ => self.skip(),
        }
    }

    /// Reads a string token and returns its decoded content.
    fn string(&mut self) -> String {
        let start = self.pos;
        self.skip_string();
        serde_json::from_str::<String>(&self.text[start..self.pos.min(self.text.len())]).unwrap_or_default()
    }

    fn skip_string(&mut self) {
        self.pos += 1;
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return;
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Skips one value of any kind.
    fn skip(&mut self) {
        let mut depth = 0usize;
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b'"' => {
                    self.skip_string();
                    if depth == 0 {
                        return;
                    }
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return;
                    }
                }
                b',' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => return,
                _ => {}
            }
            self.pos += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_keys_and_items() {
        let text = "{\n  \"a\": {\"b/c\": [1, {\"d\": true}]},\n  \"e\": \"x\"\n}";
        let targets: BTreeSet<String> = ["/a/b~1c/1/d".to_owned(), "/e".to_owned(), "/a/b~1c/0".to_owned()].into();
        let found = locate(text, &targets);
        assert_eq!(found.get("/a/b~1c/1/d"), Some(&(2, 21)));
        assert_eq!(found.get("/a/b~1c/0"), Some(&(2, 17)));
        assert_eq!(found.get("/e"), Some(&(3, 3)));
    }

    #[test]
    fn parse_errors_have_positions() {
        let Err(e) = parse("{\n  \"a\": 1,\n}") else { panic!("should fail") };
        assert_eq!((e.line, e.column), (3, 1));
    }

    #[test]
    fn depth_guard() {
        let deep = "[".repeat(MAX_DEPTH + 5);
        assert!(too_deep(&deep).is_some());
        assert!(too_deep("[[1]]").is_none());
    }
}
