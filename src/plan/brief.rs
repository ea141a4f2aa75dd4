//! What a schema says to the model, briefly (CONTRACT T6, D1): every constraint stays, but
//! annotations that only cost tokens go — `title` (the property name says it), `examples` and
//! `example` (not limits; a model copies them), `$comment` — and each `description` is cut to its
//! first sentence within a bound. An id hint ("Use an id returned by …", D2) always survives.
//! A description that only restates its property's name ("The ID of the user." on `user_id`)
//! goes too, and so does what the schema's `enum` or `const` already implies (`drop_implied`).
//! Field-behaviour labels ("Optional.", "Required.", "Output only.") are read for what they say
//! to the side the schema is on ([`Side`]).

use serde_json::Value;

use crate::plan::describe;
use crate::resolve::schema::for_each_subschema_mut;

/// Which side of a call a schema describes: what the model sends, or what it gets back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Input,
    Output,
}

impl Side {
    /// Description bound: arguments are read on every call; output schemas by hosts, rarely by
    /// the model.
    fn max(self) -> usize {
        match self {
            Side::Input => 160,
            Side::Output => 100,
        }
    }
}

const DROPPED: &[&str] = &["title", "examples", "example", "$comment"];

/// Shortens annotations in `schema` and every subschema.
pub fn brief(schema: &mut Value, side: Side) {
    if let Value::Object(map) = schema {
        for key in DROPPED {
            map.shift_remove(*key);
        }
        if let Some(Value::String(d)) = map.get_mut("description")
            && !already_brief(d, side.max())
        {
            let short = text(d, side);
            if short.is_empty() {
                map.shift_remove("description");
            } else {
                *d = short;
            }
        }
    }
    for_each_subschema_mut(schema, &mut |child| brief(child, side));
    if let Value::Object(map) = schema {
        let required: Vec<String> = match map.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        if let Some(Value::Object(props)) = map.get_mut("properties") {
            for (name, prop) in props.iter_mut() {
                if required.contains(name) {
                    drop_label(prop, "Required.");
                }
                drop_restating(prop, name, "");
            }
        }
    }
}

/// Removes a label from the opening of a description that the context already says: "Required."
/// of a property the schema lists as required, "Output only." of a tool argument (a path or
/// query parameter: output-only body fields are no arguments).
pub fn drop_label(schema: &mut Value, label: &str) {
    let Value::Object(map) = schema else { return };
    let Some(Value::String(d)) = map.get_mut("description") else { return };
    if let (Some(found), rest) = split_label(d.trim_start())
        && found == label
    {
        if rest.is_empty() {
            map.shift_remove("description");
        } else {
            *d = rest.to_owned();
        }
    }
}

/// Generic words a description adds to a name without saying more: articles, prepositions,
/// copulas, and what every identifier is.
const FILLER: &[&str] = &[
    "a",
    "an",
    "the",
    "of",
    "to",
    "for",
    "in",
    "on",
    "by",
    "with",
    "from",
    "at",
    "as",
    "is",
    "are",
    "be",
    "this",
    "that",
    "its",
    "which",
    "unique",
    "identifier",
    "id",
    "name",
    "value",
    "number",
    "string",
];

/// Abbreviations in names and the words descriptions spell them out with.
const SPELLED_OUT: &[(&str, &str)] = &[
    ("app", "application"),
    ("auth", "authentication"),
    ("config", "configuration"),
    ("desc", "description"),
    ("env", "environment"),
    ("info", "information"),
    ("max", "maximum"),
    ("min", "minimum"),
    ("msg", "message"),
    ("org", "organization"),
    ("param", "parameter"),
    ("ref", "reference"),
    ("repo", "repository"),
];

/// The lowercase, singular words of a name or a text (`PageToken`, `page_token` and "page
/// tokens" give the same words), one whitespace-separated token at a time so a reader can stop
/// at the first word it does not want.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split_whitespace().flat_map(|token| {
        heck::ToSnakeCase::to_snake_case(token)
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(crate::plan::naming::singular)
            .collect::<Vec<_>>()
    })
}

/// Whether `description` says nothing that `name` (and `context`, such as the tool's name) does
/// not: every word of it is filler or one of theirs. Words that qualify — units, formats,
/// "only", "deprecated", a number — are never filler, so such a description is kept.
pub fn restates(name: &str, description: &str, context: &str) -> bool {
    let mut known: Vec<String> = words(name).chain(words(context)).collect();
    let spelled: Vec<String> = known
        .iter()
        .filter_map(|w| SPELLED_OUT.iter().find(|(short, _)| short == w).map(|(_, long)| (*long).to_owned()))
        .collect();
    known.extend(spelled);
    let mut said = words(description).peekable();
    said.peek().is_some() && said.all(|w| FILLER.contains(&w.as_str()) || known.contains(&w))
}

/// Removes the description of `schema` (the schema of property or argument `name`) when it only
/// restates the name; an id hint after it stays (D2).
pub fn drop_restating(schema: &mut Value, name: &str, context: &str) {
    let Value::Object(map) = schema else { return };
    let Some(Value::String(d)) = map.get("description") else { return };
    let (body, hint) = split_hint(d);
    if !restates(name, body, context) {
        return;
    }
    match hint.map(str::to_owned) {
        Some(h) => {
            map.insert("description".to_owned(), Value::String(h));
        }
        None => {
            map.shift_remove("description");
        }
    }
}

/// Removes what a schema says twice, in every subschema: a `type` its `enum` or `const` already
/// implies (every listed value has that type), a length or numeric bound every listed value
/// meets (Stripe's `{"enum": ["offline", "online"], "maxLength": 5000}`), and an empty
/// `properties` below the root (it constrains nothing). The same values validate, in fewer
/// tokens.
pub fn drop_implied(schema: &mut Value) {
    for_each_subschema_mut(schema, &mut |child| {
        drop_implied(child);
        if let Value::Object(map) = child
            && map.get("properties").and_then(Value::as_object).is_some_and(serde_json::Map::is_empty)
        {
            map.shift_remove("properties");
        }
    });
    let Value::Object(map) = schema else { return };
    let implied: Vec<&str> = {
        let values: Vec<&Value> = match (map.get("enum"), map.get("const")) {
            (Some(Value::Array(values)), _) if !values.is_empty() => values.iter().collect(),
            (None, Some(value)) => vec![value],
            _ => return,
        };
        let mut implied: Vec<&str> =
            LIMITS.iter().copied().filter(|kw| map.get(*kw).is_some_and(|b| meets_all(&values, kw, b))).collect();
        if type_admits_all(map.get("type"), &values) {
            implied.push("type");
        }
        implied
    };
    for kw in implied {
        map.shift_remove(kw);
    }
}

/// Whether a declared `type` admits every value (then the values say it already).
fn type_admits_all(declared: Option<&Value>, values: &[&Value]) -> bool {
    let declared: Vec<&str> = match declared {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return false,
    };
    values.iter().all(|v| {
        let t = crate::resolve::schema::type_of(v);
        declared.iter().any(|d| *d == t || (*d == "number" && t == "integer"))
    })
}

/// Bounds an `enum` or `const` can make redundant.
const LIMITS: &[&str] = &["minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];

/// Whether every value meets bound `kw` (a bound that does not apply to a value's type is met).
fn meets_all(values: &[&Value], kw: &str, bound: &Value) -> bool {
    let Some(b) = bound.as_f64() else { return false };
    values.iter().all(|v| match (kw, v) {
        ("minLength", Value::String(s)) => s.chars().count() as f64 >= b,
        ("maxLength", Value::String(s)) => s.chars().count() as f64 <= b,
        ("minimum", Value::Number(n)) => n.as_f64().is_some_and(|n| n >= b),
        ("maximum", Value::Number(n)) => n.as_f64().is_some_and(|n| n <= b),
        ("exclusiveMinimum", Value::Number(n)) => n.as_f64().is_some_and(|n| n > b),
        ("exclusiveMaximum", Value::Number(n)) => n.as_f64().is_some_and(|n| n < b),
        // A bound does not apply to a value of another type.
        _ => true,
    })
}

/// A description's text and the id hint at its end (D2), each trimmed.
fn split_hint(d: &str) -> (&str, Option<&str>) {
    match d.find(describe::ID_HINT) {
        Some(i) => (d[..i].trim(), Some(d[i..].trim())),
        None => (d.trim(), None),
    }
}

/// One short sentence with nothing to clean: most descriptions, left as they are without work.
fn already_brief(d: &str, max: usize) -> bool {
    d.len() <= max
        && split_label(d).1.len() == d.len()
        && !d.is_empty()
        && d.trim().len() == d.len()
        && !d.bytes().any(|b| matches!(b, b'<' | b'&' | b'`' | b'*' | b'_' | b'[' | b'#' | b'|' | b'\n' | b'~' | b'>'))
        && !d.as_bytes().windows(2).any(|w| w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase())
        && !d.as_bytes().windows(2).any(|w| matches!(w[0], b'.' | b'!' | b'?') && w[1] == b' ')
}

/// The label of a field only the server sets, as the brief writes it.
pub const OUTPUT_ONLY: &str = "Output only.";

/// Field-behaviour labels that open a description in some APIs (Google's AIP-203:
/// "Required. The name of…", "Output only. Time when…"), each as the brief writes it; `None`
/// for "Optional.", which says nothing a schema does not, and for "Automatically added", what
/// APIs.guru's converter writes on a path parameter the original left undeclared (295 times in
/// 23 of the corpus's documents): a note on the document, nothing about the argument.
const LABELS: &[(&str, Option<&str>)] = &[
    ("required", Some("Required.")),
    ("optional", None),
    ("automatically added", None),
    ("output only", Some(OUTPUT_ONLY)),
    ("output-only", Some(OUTPUT_ONLY)),
    ("input only", Some("Input only.")),
    ("immutable", Some("Immutable.")),
    ("identifier", Some("Identifier.")),
];

/// A description's opening label ("Required.", "OPTIONAL:", Compute's "[Output Only]") and the
/// text after it.
fn split_label(text: &str) -> (Option<&'static str>, &str) {
    if let Some((inside, rest)) = text.strip_prefix('[').and_then(|t| t.split_once(']'))
        && let Some((_, written)) = LABELS.iter().find(|(label, _)| inside.trim().eq_ignore_ascii_case(label))
    {
        return (*written, rest.trim_start());
    }
    for (label, written) in LABELS {
        let Some(head) = text.get(..label.len()).filter(|h| h.eq_ignore_ascii_case(label)) else { continue };
        let rest = &text[head.len()..];
        if rest.trim().is_empty() {
            return (*written, "");
        }
        if let Some(rest) = rest.strip_prefix(['.', ':']).filter(|r| r.is_empty() || r.starts_with(' ')) {
            return (*written, rest.trim_start());
        }
    }
    (None, text)
}

/// Whether a field is set by the server only, so it is no argument: marked `readOnly`, or
/// described as output only (`says_output_only`). The compiler and the fidelity checker both
/// read a field's role through this.
pub fn server_assigned(schema: &Value) -> bool {
    schema.get("readOnly") == Some(&Value::Bool(true)) || described_output_only(schema)
}

/// Whether a schema's own description labels it output only.
pub fn described_output_only(schema: &Value) -> bool {
    schema.get("description").and_then(Value::as_str).is_some_and(says_output_only)
}

/// Whether a description labels its field output only, as a sentence of its own or an opening
/// label: Google's field-behaviour label ("Output only. The time…", AIP-203) or Compute's
/// "[Output Only] Creation timestamp…". Google's converted documents drop the `readOnly` the
/// label stands for. "Read-only" is not read so: APIs also say it of a field that cannot change
/// but identifies what a request is about (Zuora's `chargeNumber`: "Read only. Identifies the
/// charge to be updated.").
pub fn says_output_only(description: &str) -> bool {
    let is_label = |s: &str| {
        let s = s.trim().trim_matches(|c| matches!(c, '[' | ']' | '(' | ')')).trim();
        matches!(split_label(s), (Some(OUTPUT_ONLY), ""))
    };
    let text = description.trim_start();
    let bracketed = text
        .strip_prefix(['[', '('])
        .and_then(|rest| rest.split_once([']', ')']))
        .is_some_and(|(inside, _)| is_label(inside));
    bracketed || text.split(['.', ';', '\n']).any(is_label)
}

/// The first sentence of `d` within the side's bound, keeping an id hint at its end.
///
/// Field-behaviour labels ("Required. Immutable. The name of…") are not that sentence. In an
/// input they say what the schema may not (a body field required, set once) and stay before
/// it, except "Output only.", which is all a caller needs to know of such a field; a response
/// needs none of them.
fn text(d: &str, side: Side) -> String {
    let (body, hint) = split_hint(d);
    // Spec text: markup and shouting cleaned, sentences that address the model left out (D3).
    let (kept, _) = describe::untrusted(&describe::clean(body));
    let mut labels: Vec<String> = Vec::new();
    let mut rest = kept.as_str();
    while let (label, after) = split_label(rest)
        && after.len() < rest.len()
    {
        labels.extend(label.filter(|_| side == Side::Input).map(str::to_owned));
        rest = after;
    }
    if !labels.iter().any(|l| l == OUTPUT_ONLY) {
        labels.push(describe::first_sentences(rest, 1));
    }
    let first = labels.join(" ").trim().to_owned();
    let short = describe::shorten(&first, side.max());
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
    fn an_output_only_label_marks_a_server_assigned_field() {
        for d in [
            "Output only. The time when the proposal was last revised.",
            "Required. Output only. Revision Id",
            "[Output Only] Creation timestamp in RFC3339 text format.",
            "The name of the table. Output-only.",
            "Output only",
        ] {
            assert!(says_output_only(d), "{d}");
        }
        for d in [
            "Read only. Identifies the charge to be updated.",
            "Outputs only the fields named here.",
            "Set output only when verbose is false.",
            "",
        ] {
            assert!(!says_output_only(d), "{d}");
        }
        assert!(server_assigned(&json!({"type": "string", "readOnly": true})));
        assert!(server_assigned(&json!({"$ref": "#/$defs/Attempt", "description": "Output only. The attempt."})));
        assert!(!server_assigned(&json!({"type": "string", "description": "The display name."})));
    }

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
        brief(&mut s, Side::Input);
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

    #[test]
    fn field_behaviour_labels_are_not_the_description() {
        let mut s = json!({"type": "object", "properties": {
            "parent": {"type": "string", "description": "Required. The project that owns the key."},
            "key": {"type": "string", "description": "REQUIRED: The key to look up."},
            "limit": {"type": "integer", "description": "Optional."},
            "appId": {"type": "string", "description": "Automatically added"},
            "zone": {"type": "string", "description": "Automatically added. The zone it runs in."},
            "etag": {"type": "string", "description": "Optional: The etag to match. Sent as If-Match."},
            "state": {"type": "string", "description": "Output only. The key's state. Set by the server."},
            "kind": {"type": "string", "description": "Required. Immutable. The key's kind. Set once."}
        }, "required": ["parent"]});
        brief(&mut s, Side::Input);
        // Listed as required: the label says it twice.
        assert_eq!(s["properties"]["parent"]["description"], "The project that owns the key.");
        // Not listed: the label is all that says it.
        assert_eq!(s["properties"]["key"]["description"], "Required. The key to look up.");
        assert!(s["properties"]["limit"].get("description").is_none());
        // A converter's note on the document says nothing about the argument.
        assert!(s["properties"]["appId"].get("description").is_none(), "{}", s["properties"]["appId"]);
        assert_eq!(s["properties"]["zone"]["description"], "The zone it runs in.");
        assert_eq!(s["properties"]["etag"]["description"], "The etag to match.");
        // A caller needs no more of a field it cannot set.
        assert_eq!(s["properties"]["state"]["description"], "Output only.");
        assert_eq!(s["properties"]["kind"]["description"], "Required. Immutable. The key's kind.");

        // A response needs none of the labels, and the sentence of an output-only field.
        let mut out = json!({"type": "object", "properties": {
            "state": {"type": "string", "description": "Output only. The key's state. Set by the server."},
            "kind": {"type": "string", "description": "Required. Immutable. The key's kind. Set once."},
            "created": {"type": "string", "description": "[Output Only] Creation timestamp in RFC3339 text format."}
        }});
        brief(&mut out, Side::Output);
        assert_eq!(out["properties"]["created"]["description"], "Creation timestamp in RFC3339 text format.");
        assert_eq!(out["properties"]["state"]["description"], "The key's state.");
        assert_eq!(out["properties"]["kind"]["description"], "The key's kind.");
    }

    #[test]
    fn descriptions_that_restate_the_name_go_and_the_rest_stay() {
        assert!(restates("user_id", "The ID of the user.", ""));
        assert!(restates("repo", "The name of the repository.", ""));
        assert!(restates("PageToken", "The page token.", ""));
        assert!(restates("channel_id", "The channel to rename.", "rename_conversation"));
        // Anything more — a bound, a unit, a qualifier — keeps the description.
        assert!(!restates("per_page", "The number of results per page (max 100).", ""));
        assert!(!restates("timeout", "Timeout in seconds.", ""));
        assert!(!restates("status", "Only active users.", "list_users"));
        assert!(!restates("owner", "The account owner of the repository.", ""));
        assert!(!restates("name", "", ""));

        let mut s = json!({"type": "object", "properties": {
            "team_id": {"type": "integer", "description": "The unique identifier of the team. Use an id returned by list_teams; do not guess ids."},
            "team_name": {"type": "string", "description": "The name of the team."},
            "name": {"type": "string", "description": "The name of the team."},
            "since": {"type": "string", "description": "Only teams created after this time (ISO 8601)."}
        }});
        brief(&mut s, Side::Input);
        assert_eq!(s["properties"]["team_id"]["description"], "Use an id returned by list_teams; do not guess ids.");
        assert!(s["properties"]["team_name"].get("description").is_none());
        // A nested property knows only its own name: "team" says something there.
        assert_eq!(s["properties"]["name"]["description"], "The name of the team.");
        assert_eq!(s["properties"]["since"]["description"], "Only teams created after this time (ISO 8601).");
    }

    #[test]
    fn bounds_that_enum_or_const_meets_and_empty_properties_go() {
        let mut s = json!({"type": "object", "properties": {
            "a": {"enum": ["offline", "online"], "maxLength": 5000, "minLength": 1},
            "b": {"enum": ["offline", "online"], "maxLength": 6},
            "c": {"enum": [1, 5, null], "minimum": 1, "maximum": 5, "exclusiveMaximum": 5},
            "d": {"const": "x", "maxLength": 1},
            "e": {"type": "object", "properties": {}},
            "f": {"type": "string", "maxLength": 10}
        }});
        drop_implied(&mut s);
        let p = &s["properties"];
        assert_eq!(p["a"], json!({"enum": ["offline", "online"]}));
        // Kept where a value would break the bound alone: `offline` is 7 characters, 5 is not < 5.
        assert_eq!(p["b"]["maxLength"], 6);
        assert_eq!(p["c"], json!({"enum": [1, 5, null], "exclusiveMaximum": 5}));
        assert_eq!(p["d"], json!({"const": "x"}));
        assert_eq!(p["e"], json!({"type": "object"}));
        assert_eq!(p["f"]["maxLength"], 10);
        // The root's own `properties` stays, even empty: clients read it.
        let mut root = json!({"type": "object", "properties": {}});
        drop_implied(&mut root);
        assert_eq!(root["properties"], json!({}));
    }

    #[test]
    fn a_type_that_enum_or_const_implies_goes() {
        let mut s = json!({"type": "object", "properties": {
            "a": {"type": "string", "enum": ["x", "y"]},
            "b": {"type": ["string", "null"], "enum": ["x", null]},
            "c": {"type": "number", "enum": [1, 2.5]},
            "d": {"type": "string", "const": ""},
            "e": {"type": "integer", "enum": [1.5]},
            "f": {"type": "string", "enum": ["x", 1]},
            "g": {"anyOf": [{"type": "string", "enum": [""]}, {"type": "integer"}]}
        }});
        drop_implied(&mut s);
        let p = &s["properties"];
        assert_eq!(p["a"], json!({"enum": ["x", "y"]}));
        assert_eq!(p["b"], json!({"enum": ["x", null]}));
        assert_eq!(p["c"], json!({"enum": [1, 2.5]}));
        assert_eq!(p["d"], json!({"const": ""}));
        // Kept where the values alone would admit something the type refuses.
        assert_eq!(p["e"]["type"], "integer");
        assert_eq!(p["f"]["type"], "string");
        assert_eq!(p["g"], json!({"anyOf": [{"enum": [""]}, {"type": "integer"}]}));
        assert_eq!(s["type"], "object");
    }
}
