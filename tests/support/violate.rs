//! Arguments written from a tool's schema, independently of the runtime's mock: a valid set,
//! and one that breaks exactly one constraint a provider variant no longer states (a loss).

use std::sync::atomic::{AtomicUsize, Ordering};

use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Map, Value, json};

pub fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut s = schema;
    for _ in 0..16 {
        match s.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')).and_then(|p| root.pointer(p)) {
            Some(t) => s = t,
            None => break,
        }
    }
    s
}

/// A string `pattern` matches, from its syntax tree: the first alternative, the least
/// repetition, a letter or digit from each class where it has one. `None` for a pattern the
/// parser does not take (lookaround, backreferences).
pub fn from_pattern(pattern: &str) -> Option<String> {
    let hir = regex_syntax::ParserBuilder::new().build().parse(pattern).ok()?;
    let mut out = String::new();
    generate(&hir, &mut out)?;
    Some(out)
}

fn generate(hir: &Hir, out: &mut String) -> Option<()> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(l) => out.push_str(std::str::from_utf8(&l.0).ok()?),
        HirKind::Class(Class::Unicode(c)) => {
            let pick =
                c.ranges().iter().find_map(|r| ['a', 'A', '0'].into_iter().find(|x| r.start() <= *x && *x <= r.end()));
            out.push(pick.or_else(|| c.ranges().first().map(|r| r.start()))?);
        }
        HirKind::Class(Class::Bytes(c)) => out.push(char::from(c.ranges().first()?.start())),
        HirKind::Repetition(r) => {
            for _ in 0..r.min {
                generate(&r.sub, out)?;
            }
        }
        HirKind::Capture(c) => generate(&c.sub, out)?,
        HirKind::Concat(parts) => parts.iter().try_for_each(|p| generate(p, out))?,
        HirKind::Alternation(alts) => generate(alts.first()?, out)?,
    }
    Some(())
}

pub fn sample(schema: &Value, root: &Value, depth: usize) -> Value {
    let s = resolve(schema, root);
    if depth > 24 {
        return Value::Null; // the caller's validity check tells
    }
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array).and_then(|e| e.iter().find(|v| !v.is_null())) {
        return e.clone();
    }
    if let Some(members) = s.get("allOf").and_then(Value::as_array) {
        // Every member must hold: objects merged, otherwise the first member's value.
        let mut own = s.as_object().cloned().unwrap_or_default();
        own.retain(|k, _| !matches!(k.as_str(), "allOf" | "description" | "title" | "default" | "examples"));
        let own = (!own.is_empty()).then_some(Value::Object(own));
        let members = members.iter().filter(|m| m.as_object().is_none_or(|o| o.keys().any(|k| k != "description")));
        let parts = own.into_iter().chain(members.cloned());
        let mut merged: Option<Value> = None;
        for part in parts {
            let v = sample(&part, root, depth + 1);
            merged = match (merged, v) {
                (Some(Value::Object(mut a)), Value::Object(b)) => {
                    a.extend(b);
                    Some(Value::Object(a))
                }
                (None, v) => Some(v),
                (Some(Value::Object(a)), v) if a.is_empty() => Some(v),
                (kept, _) => kept,
            };
        }
        return merged.unwrap_or(Value::Null);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(first) = s.get(key).and_then(Value::as_array).and_then(|b| b.first()) {
            return sample(first, root, depth + 1);
        }
    }
    let t = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null"),
        _ if s.get("properties").is_some() => "object",
        _ => "string",
    };
    match t {
        "object" => {
            let mut out = Map::new();
            let props = s.get("properties").and_then(Value::as_object);
            for name in s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
                let prop = props.and_then(|p| p.get(name)).cloned().unwrap_or(json!({}));
                out.insert(name.to_owned(), sample(&prop, root, depth + 1));
            }
            let min = s.get("minProperties").and_then(Value::as_u64).unwrap_or(0) as usize;
            for (name, prop) in props.into_iter().flatten() {
                if out.len() >= min {
                    break;
                }
                if !out.contains_key(name) {
                    out.insert(name.clone(), sample(prop, root, depth + 1));
                }
            }
            if out.len() < min
                && let Some(extra) = s.get("additionalProperties").filter(|a| a.is_object())
            {
                for i in out.len()..min {
                    out.insert(format!("key{i}"), sample(extra, root, depth + 1));
                }
            }
            Value::Object(out)
        }
        "array" => {
            let n = s.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            let item = s.get("items").cloned().unwrap_or(json!({}));
            Value::Array((0..n).map(|i| distinct(sample(&item, root, depth + 1), i)).collect())
        }
        "integer" | "number" => {
            let min = s
                .get("minimum")
                .and_then(Value::as_i64)
                .or(s.get("exclusiveMinimum").and_then(Value::as_i64).map(|m| m + 1));
            json!(min.unwrap_or(1).max(s.get("maximum").and_then(Value::as_i64).map_or(i64::MIN, |m| m.min(1))))
        }
        "boolean" => json!(true),
        "null" => Value::Null,
        _ => {
            let base = match s.get("format").and_then(Value::as_str) {
                Some("date-time") => "2026-01-01T00:00:00Z".to_owned(),
                Some("date") => "2026-01-01".to_owned(),
                Some("email") => "someone@example.com".to_owned(),
                Some("uri") => "https://example.com/a".to_owned(),
                Some("uuid") => "123e4567-e89b-12d3-a456-426614174000".to_owned(),
                _ => match s.get("pattern").and_then(Value::as_str) {
                    Some(p) => from_pattern(p).unwrap_or_else(|| "a".to_owned()),
                    None => "a".to_owned(),
                },
            };
            let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            let mut text = base;
            while text.chars().count() < min {
                text.push('a');
            }
            json!(text)
        }
    }
}

/// Items of a `uniqueItems` array must differ.
pub fn distinct(v: Value, i: usize) -> Value {
    match v {
        Value::String(s) if i > 0 && s.len() > 1 => {
            let mut s = s;
            s.pop();
            s.push(char::from(b'a' + (i % 26) as u8));
            Value::String(s)
        }
        Value::Number(n) if i > 0 => json!(n.as_i64().unwrap_or(0) + i as i64),
        other => other,
    }
}

// ---- one constraint broken ----

/// `args` with the value at `field` (a pointer, `*` for any item or map value) replaced by
/// `make(schema there, current value)`; the containers on the way are created from the schema.
/// Returns the field as the server names it (`lines[0].description`).
pub fn put(args: &mut Value, root: &Value, field: &str, make: &dyn Fn(&Value, &Value) -> Value) -> Option<String> {
    let tokens: Vec<String> = field.split('/').skip(1).map(|t| t.replace("~1", "/").replace("~0", "~")).collect();
    let mut schema = root;
    let mut here = args;
    let mut name = String::new();
    for token in &tokens {
        let s = resolve(schema, root);
        // Through combinators: the first branch or member that has where the path goes.
        let s = ["allOf", "anyOf", "oneOf"]
            .iter()
            .filter_map(|k| s.get(*k).and_then(Value::as_array))
            .flatten()
            .map(|b| resolve(b, root))
            .find(|b| {
                b.get("properties").and_then(|p| p.get(token)).is_some()
                    || (token == "*"
                        && (b.get("items").is_some() || b.get("additionalProperties").is_some_and(Value::is_object)))
            })
            .filter(|_| s.get("properties").and_then(|p| p.get(token)).is_none())
            .unwrap_or(s);
        if let Some(props) = s.get("properties").and_then(Value::as_object).filter(|_| token != "*") {
            schema = props.get(token)?;
            let obj = here.as_object_mut()?;
            if !obj.contains_key(token) {
                obj.insert(token.clone(), sample(schema, root, 0));
            }
            here = obj.get_mut(token).unwrap();
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(token);
        } else if let Some(items) = s.get("items").filter(|_| token == "*") {
            schema = items;
            let arr = here.as_array_mut()?;
            if arr.is_empty() {
                arr.push(sample(schema, root, 0));
            }
            here = &mut arr[0];
            name.push_str("[0]");
        } else if let Some(values) = s.get("additionalProperties").filter(|a| a.is_object() && token == "*") {
            schema = values;
            let obj = here.as_object_mut()?;
            if obj.is_empty() {
                obj.insert("key".to_owned(), sample(schema, root, 0));
            }
            let key = obj.keys().next()?.clone();
            here = obj.get_mut(&key)?;
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(&key);
        } else {
            return None;
        }
    }
    *here = make(resolve(schema, root), here);
    Some(name)
}

/// What [`violation`] wrote: the arguments, the same arguments with the field left valid (so
/// that a test can check nothing else is wrong), and the field the server must name.
pub struct Violation {
    pub args: Value,
    pub control: Value,
    pub field: String,
}

/// Arguments that break exactly the loss's constraint; `None` for a loss that is not a
/// constraint the variant dropped (a narrowing or a cut shape), or one this cannot write.
pub fn violation(root: &Value, loss: &Value) -> Option<Violation> {
    let field = loss["field"].as_str()?;
    let mut control = sample(root, root, 0);
    put(&mut control, root, field, &|_, cur| cur.clone())?;
    let (args, name) = break_one(root, loss)?;
    Some(Violation { args, control, field: name })
}

fn break_one(root: &Value, loss: &Value) -> Option<(Value, String)> {
    let keyword = loss["keyword"].as_str().unwrap();
    let value = loss["value"].clone();
    let field = loss["field"].as_str().unwrap();
    if matches!(loss["action"].as_str(), Some("narrowed" | "cut")) {
        return None;
    }
    let mut args = sample(root, root, 0);
    let n = value.as_u64().unwrap_or(0) as usize;
    let number = value.as_f64().unwrap_or(0.0);
    let name = match keyword {
        "maxLength" => put(&mut args, root, field, &|_, _| json!("x".repeat(n + 1)))?,
        "minLength" => put(&mut args, root, field, &|_, _| json!("x".repeat(n.saturating_sub(1))))?,
        "format" => {
            let bad = match value.as_str() {
                Some("email" | "idn-email") => "no-at-sign",
                Some("hostname" | "idn-hostname") => "bad host!",
                Some("regex") => "(unclosed",
                _ => "not a valid value",
            };
            put(&mut args, root, field, &|_, _| json!(bad))?
        }
        "uniqueItems" => put(&mut args, root, field, &|s, cur| {
            let item = cur.as_array().and_then(|a| a.first().cloned()).unwrap_or_else(|| sample(&s["items"], root, 0));
            json!([item.clone(), item])
        })?,
        "minProperties" => put(&mut args, root, field, &|_, _| json!({}))?,
        "maxProperties" => put(&mut args, root, field, &|s, _| {
            let v = sample(&s["additionalProperties"], root, 0);
            Value::Object((0..=n).map(|i| (format!("k{i}"), v.clone())).collect())
        })?,
        "minimum" => put(&mut args, root, field, &|_, _| json!(number - 1.0))?,
        "maximum" => put(&mut args, root, field, &|_, _| json!(number + 1.0))?,
        "exclusiveMinimum" | "exclusiveMaximum" => put(&mut args, root, field, &|_, _| value.clone())?,
        "multipleOf" => put(&mut args, root, field, &|_, _| json!(number * 1.5))?,
        // A value of the same type that is not listed.
        "enum" => {
            let values = value.as_array().cloned().unwrap_or_default();
            let outside = match values.iter().filter_map(Value::as_f64).reduce(f64::max) {
                Some(max) if values.iter().all(Value::is_number) => json!(max.floor() as i64 + 1),
                _ => json!("not-one-of-them"),
            };
            put(&mut args, root, field, &|_, _| outside.clone())?
        }
        "const" => put(&mut args, root, field, &|_, _| json!("not-the-constant"))?,
        "additionalProperties" => {
            // `false`: any extra key; a schema: an extra value of another type.
            let extra = match value.get("type").and_then(Value::as_str) {
                Some("integer" | "number" | "boolean") => json!("x"),
                Some(_) => json!(1),
                None => json!(1),
            };
            let mut name = put(&mut args, root, field, &|_, cur| {
                let mut obj = cur.as_object().cloned().unwrap_or_default();
                obj.insert("unexpected_field".to_owned(), extra.clone());
                Value::Object(obj)
            })?;
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str("unexpected_field");
            name
        }
        _ => return None,
    };
    Some((args, name))
}

static KEYS: AtomicUsize = AtomicUsize::new(0);

/// A fresh idempotency key, so that no two calls of the test are repeats of each other.
pub fn fresh_key(args: &mut Value) {
    if let Some(obj) = args.as_object_mut()
        && obj.contains_key("idempotency_key")
    {
        let n = KEYS.fetch_add(1, Ordering::Relaxed);
        obj.insert("idempotency_key".to_owned(), json!(format!("variant-test-{n}")));
    }
}

/// Every optional property of every object in `args` sent as `null`, as a strict client does.
pub fn with_nulls(args: &mut Value, schema: &Value, root: &Value) {
    let s = resolve(schema, root);
    if let Value::Object(obj) = args {
        let props = s.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        for (name, prop) in &props {
            match obj.get_mut(name) {
                Some(v) => with_nulls(v, prop, root),
                None => {
                    obj.insert(name.clone(), Value::Null);
                }
            }
        }
    } else if let (Value::Array(items), Some(item)) = (args, s.get("items")) {
        for v in items {
            with_nulls(v, item, root);
        }
    }
}
