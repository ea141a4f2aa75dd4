//! YAML → `serde_json::Value` on saphyr-parser's event stream, with the YAML 1.2 core schema,
//! anchors, aliases and `<<` merge keys; and the same walk, on demand, to find the line and
//! column of JSON Pointers for diagnostics. Keys are always strings (`200:` stays `"200"`).

use std::collections::{BTreeMap, BTreeSet};

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span, Tag};
use serde_json::{Map, Number, Value};

use crate::diag::escape_token;

/// Aliases can multiply a document (the "billion laughs" attack); past this many expanded nodes
/// the document is rejected instead of exhausting memory.
const MAX_ALIAS_NODES: usize = 5_000_000;
const MAX_DEPTH: usize = 400;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub message: String,
    /// 1-based line and column.
    pub line: usize,
    pub column: usize,
}

/// A non-fatal finding while reading (a duplicate key: the last one wins, as in most parsers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlWarning {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

pub struct Parsed {
    pub value: Value,
    pub warnings: Vec<YamlWarning>,
}

/// Parses the first document of `text`.
pub fn parse(text: &str) -> Result<Parsed, YamlError> {
    let mut walker = Walker::new(None);
    let value = walker.run(text)?;
    Ok(Parsed { value, warnings: walker.warnings })
}

/// Line and column (1-based) of each pointer in `targets` that exists in `text`: the key's
/// position for object members, the value's position otherwise.
pub fn locate(text: &str, targets: &BTreeSet<String>) -> BTreeMap<String, (usize, usize)> {
    let mut walker = Walker::new(Some(targets));
    // A document that parsed once parses again; if it does not, positions are simply unknown.
    let _ = walker.run(text);
    walker.found
}

struct Walker<'t> {
    targets: Option<&'t BTreeSet<String>>,
    found: BTreeMap<String, (usize, usize)>,
    anchors: BTreeMap<usize, Value>,
    alias_nodes: usize,
    warnings: Vec<YamlWarning>,
    pointer: String,
}

type Next<'a> = (Event<'a>, Span);

impl<'t> Walker<'t> {
    fn new(targets: Option<&'t BTreeSet<String>>) -> Self {
        Walker {
            targets,
            found: BTreeMap::new(),
            anchors: BTreeMap::new(),
            alias_nodes: 0,
            warnings: Vec::new(),
            pointer: String::new(),
        }
    }

    fn run(&mut self, text: &str) -> Result<Value, YamlError> {
        let mut parser = Parser::new_from_str(text);
        loop {
            let (event, span) = next(&mut parser)?;
            match event {
                Event::StreamStart | Event::Nothing => {}
                Event::DocumentStart(_) => {
                    let (event, span) = next(&mut parser)?;
                    return self.node(&mut parser, event, span, 0);
                }
                // An empty stream is an empty document.
                Event::StreamEnd => return Ok(Value::Null),
                other => return Err(error_at(span, format!("unexpected YAML event {other:?}"))),
            }
        }
    }

    fn record(&mut self, span: Span) {
        if let Some(targets) = self.targets
            && targets.contains(&self.pointer)
        {
            self.found.entry(self.pointer.clone()).or_insert((span.start.line(), span.start.col() + 1));
        }
    }

    fn node<'a>(
        &mut self,
        parser: &mut Parser<'a, impl saphyr_parser::Input>,
        event: Event<'a>,
        span: Span,
        depth: usize,
    ) -> Result<Value, YamlError> {
        if depth > MAX_DEPTH {
            return Err(error_at(span, format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        self.record(span);
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                let value = scalar(&text, style, tag.as_deref());
                if anchor > 0 {
                    self.anchors.insert(anchor, value.clone());
                }
                Ok(value)
            }
            Event::Alias(id) => {
                let value = self
                    .anchors
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| error_at(span, "alias refers to an unknown anchor".to_owned()))?;
                self.alias_nodes += count_nodes(&value);
                if self.alias_nodes > MAX_ALIAS_NODES {
                    return Err(error_at(span, format!("aliases expand to more than {MAX_ALIAS_NODES} nodes")));
                }
                Ok(value)
            }
            Event::SequenceStart(anchor, _) => {
                let mut items = Vec::new();
                loop {
                    let (event, span) = next(parser)?;
                    if matches!(event, Event::SequenceEnd) {
                        break;
                    }
                    let len = self.pointer.len();
                    if self.targets.is_some() {
                        self.pointer.push('/');
                        self.pointer.push_str(&items.len().to_string());
                    }
                    let item = self.node(parser, event, span, depth + 1);
                    self.pointer.truncate(len);
                    items.push(item?);
                }
                let value = Value::Array(items);
                if anchor > 0 {
                    self.anchors.insert(anchor, value.clone());
                }
                Ok(value)
            }
            Event::MappingStart(anchor, _) => {
                let mut map = Map::new();
                let mut merged: Vec<Map<String, Value>> = Vec::new();
                loop {
                    let (event, key_span) = next(parser)?;
                    let key = match event {
                        Event::MappingEnd => break,
                        Event::Scalar(text, _, _, _) => text.into_owned(),
                        Event::Alias(id) => match self.anchors.get(&id) {
                            Some(Value::String(s)) => s.clone(),
                            Some(other) if !other.is_object() && !other.is_array() => other.to_string(),
                            _ => return Err(error_at(key_span, "mapping keys must be scalars".to_owned())),
                        },
                        _ => return Err(error_at(key_span, "mapping keys must be scalars".to_owned())),
                    };
                    let len = self.pointer.len();
                    if self.targets.is_some() {
                        self.pointer.push('/');
                        self.pointer.push_str(&escape_token(&key));
                        self.record(key_span);
                    }
                    let (event, span) = next(parser)?;
                    let value = self.node(parser, event, span, depth + 1);
                    self.pointer.truncate(len);
                    let value = value?;
                    if key == "<<" {
                        // YAML 1.1 merge key, still common in hand-written specs.
                        match value {
                            Value::Object(m) => merged.push(m),
                            Value::Array(items) => merged.extend(items.into_iter().filter_map(|v| match v {
                                Value::Object(m) => Some(m),
                                _ => None,
                            })),
                            _ => return Err(error_at(key_span, "`<<` merge needs a mapping".to_owned())),
                        }
                        continue;
                    }
                    if map.contains_key(&key) {
                        self.warnings.push(YamlWarning {
                            message: format!("duplicate key `{key}`; the last value wins"),
                            line: key_span.start.line(),
                            column: key_span.start.col() + 1,
                        });
                    }
                    map.insert(key, value);
                }
                for m in merged {
                    for (k, v) in m {
                        map.entry(k).or_insert(v);
                    }
                }
                let value = Value::Object(map);
                if anchor > 0 {
                    self.anchors.insert(anchor, value.clone());
                }
                Ok(value)
            }
            other => Err(error_at(span, format!("unexpected YAML event {other:?}"))),
        }
    }
}

fn next<'a>(parser: &mut Parser<'a, impl saphyr_parser::Input>) -> Result<Next<'a>, YamlError> {
    match parser.next_event() {
        Some(Ok(pair)) => Ok(pair),
        Some(Err(e)) => Err(scan_error(&e)),
        None => Err(YamlError { message: "unexpected end of YAML input".to_owned(), line: 0, column: 0 }),
    }
}

fn scan_error(e: &ScanError) -> YamlError {
    YamlError { message: e.info().to_owned(), line: e.marker().line(), column: e.marker().col() + 1 }
}

fn error_at(span: Span, message: String) -> YamlError {
    YamlError { message, line: span.start.line(), column: span.start.col() + 1 }
}

fn count_nodes(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(count_nodes).sum::<usize>(),
        Value::Object(m) => 1 + m.values().map(count_nodes).sum::<usize>(),
        _ => 1,
    }
}

/// Resolves a scalar by the YAML 1.2 core schema; quoted and block scalars are strings.
fn scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Value {
    if let Some(tag) = tag
        && tag.is_yaml_core_schema()
    {
        return match tag.suffix.as_str() {
            "str" => Value::String(text.to_string()),
            "null" => Value::Null,
            "bool" => plain_bool(text).map_or_else(|| Value::String(text.to_string()), Value::Bool),
            "int" | "float" => plain_number(text).unwrap_or_else(|| Value::String(text.to_string())),
            _ => Value::String(text.to_string()),
        };
    }
    if style != ScalarStyle::Plain {
        return Value::String(text.to_string());
    }
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        _ => {}
    }
    if let Some(b) = plain_bool(text) {
        return Value::Bool(b);
    }
    plain_number(text).unwrap_or_else(|| Value::String(text.to_string()))
}

fn plain_bool(text: &str) -> Option<bool> {
    match text {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

fn plain_number(text: &str) -> Option<Value> {
    let bytes = text.as_bytes();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits(unsigned) {
        if let Ok(i) = text.parse::<i64>() {
            return Some(Value::Number(i.into()));
        }
        if let Ok(u) = text.trim_start_matches('+').parse::<u64>() {
            return Some(Value::Number(u.into()));
        }
        return text.parse::<f64>().ok().and_then(Number::from_f64).map(Value::Number);
    }
    if let Some(oct) = text.strip_prefix("0o") {
        return i64::from_str_radix(oct, 8).ok().map(|i| Value::Number(i.into()));
    }
    if let Some(hex) = text.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok().map(|i| Value::Number(i.into()));
    }
    // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
    let looks_float = !bytes.is_empty()
        && unsigned.bytes().any(|b| b.is_ascii_digit())
        && unsigned.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
        && unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.');
    if looks_float && let Ok(f) = text.parse::<f64>() {
        return Number::from_f64(f).map(Value::Number);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn core_schema_scalars() {
        let v = parse("a: 1\nb: 1.5\nc: true\nd: ~\ne: '1'\nf: 0x1F\ng: 1e3\nh: 3.0.1\n200: ok\n").unwrap().value;
        assert_eq!(
            v,
            json!({"a": 1, "b": 1.5, "c": true, "d": null, "e": "1", "f": 31, "g": 1000.0, "h": "3.0.1", "200": "ok"})
        );
    }

    #[test]
    fn anchors_aliases_and_merge() {
        let v = parse("base: &b {x: 1, y: 2}\nuse: *b\nm:\n  <<: *b\n  y: 3\n").unwrap().value;
        assert_eq!(v, json!({"base": {"x": 1, "y": 2}, "use": {"x": 1, "y": 2}, "m": {"y": 3, "x": 1}}));
    }

    #[test]
    fn billion_laughs_is_refused() {
        let mut doc = String::from("a: &a [x,x,x,x,x,x,x,x,x,x]\n");
        for i in 0..9 {
            let prev = (b'a' + i) as char;
            let cur = (b'a' + i + 1) as char;
            doc.push_str(&format!(
                "{cur}: &{cur} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
            ));
        }
        let err = parse(&doc).err().unwrap();
        assert!(err.message.contains("aliases expand"), "{err:?}");
    }

    #[test]
    fn syntax_errors_have_positions() {
        let err = parse("a: [1, 2\nb: c\n").err().unwrap();
        assert!(err.line >= 1, "{err:?}");
    }

    #[test]
    fn duplicate_keys_warn() {
        let p = parse("a: 1\na: 2\n").unwrap();
        assert_eq!(p.value, json!({"a": 2}));
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].line, 2);
    }

    #[test]
    fn locates_pointers() {
        let text = "openapi: 3.0.0\npaths:\n  /pets:\n    get:\n      responses: {}\n";
        let targets: BTreeSet<String> = ["/paths/~1pets/get".to_owned(), "/openapi".to_owned()].into();
        let found = locate(text, &targets);
        assert_eq!(found.get("/paths/~1pets/get"), Some(&(4, 5)));
        assert_eq!(found.get("/openapi"), Some(&(1, 1)));
    }
}
