//! What a schema says to the model, briefly (CONTRACT T6, D1): every constraint stays, but
//! annotations that only cost tokens go — `title` (the property name says it), `examples` and
//! `example` (not limits; a model copies them), `$comment` — and each `description` is cut to its
//! first sentence within a bound. An id hint ("Use an id returned by …", D2) always survives.

use serde_json::Value;

use crate::plan::describe;
use crate::resolve::schema::for_each_subschema_mut;

/// Description bound for arguments (what the model reads on every call).
pub const INPUT_DESCRIPTION: usize = 160;
/// Description bound inside output schemas (read by hosts, rarely by the model).
pub const OUTPUT_DESCRIPTION: usize = 100;

const DROPPED: &[&str] = &["title", "examples", "example", "$comment"];

/// Shortens annotations in `schema` and every subschema.
pub fn brief(schema: &mut Value, max: usize) {
    if let Value::Object(map) = schema {
        for key in DROPPED {
            map.shift_remove(*key);
        }
        if let Some(Value::String(d)) = map.get_mut("description")
            && !already_brief(d, max)
        {
            let short = text(d, max);
            if short.is_empty() {
                map.shift_remove("description");
            } else {
                *d = short;
            }
        }
    }
    for_each_subschema_mut(schema, &mut |child| brief(child, max));
}

/// One short sentence with nothing to clean: most descriptions, left as they are without work.
fn already_brief(d: &str, max: usize) -> bool {
    d.len() <= max
        && !d.is_empty()
        && d.trim().len() == d.len()
        && !d.bytes().any(|b| matches!(b, b'<' | b'&' | b'`' | b'*' | b'_' | b'[' | b'#' | b'|' | b'\n' | b'~' | b'>'))
        && !d.as_bytes().windows(2).any(|w| w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase())
        && !d.as_bytes().windows(2).any(|w| matches!(w[0], b'.' | b'!' | b'?') && w[1] == b' ')
}

/// The first sentence of `d` within `max` characters, keeping an id hint at its end.
pub fn text(d: &str, max: usize) -> String {
    const HINT: &str = describe::ID_HINT;
    let (body, hint) = match d.find(HINT) {
        Some(i) => (d[..i].trim(), Some(d[i..].trim())),
        None => (d.trim(), None),
    };
    // Spec text: markup and shouting cleaned, sentences that address the model left out (D3).
    let (kept, _) = describe::untrusted(&describe::clean(body));
    let first = describe::first_sentences(&kept, 1);
    let short = describe::shorten(&first, max);
    match hint {
        Some(h) if short.is_empty() => h.to_owned(),
        Some(h) => format!("{} {h}", describe::sentence(&short)),
        None => short,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn annotations_are_brief_and_constraints_stay() {
        let mut s = json!({
            "type": "object", "title": "Pet", "description": "A pet. It lives in the store and has an owner.",
            "properties": {
                "description": {"type": "string", "maxLength": 10, "examples": ["x"], "description": "Free text."},
                "id": {"type": "string", "description": "The pet's id. Opaque. Use an id returned by list_pets; do not guess ids."}
            },
            "required": ["id"]
        });
        brief(&mut s, 160);
        assert_eq!(
            s,
            json!({
                "type": "object", "description": "A pet.",
                "properties": {
                    "description": {"type": "string", "maxLength": 10, "description": "Free text."},
                    "id": {"type": "string", "description": "The pet's id. Use an id returned by list_pets; do not guess ids."}
                },
                "required": ["id"]
            })
        );
    }
}
