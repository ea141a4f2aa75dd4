//! An overlay's `patches`: JSON Merge Patches (RFC 7396) applied to the description as
//! written, so a team corrects what its API really answers without editing a file it may not
//! own (a description an application publishes). Applied before anything reads the document.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::diag::{Diagnostic, Report, codes};

/// One `patches` entry: a JSON Merge Patch (RFC 7396) applied at a place in the description.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Patch {
    /// JSON Pointer into the description as written (`/definitions/Contents/properties/content`).
    pub pointer: String,
    /// Merged into the value there: keys set to `null` are removed, objects merge, anything
    /// else replaces.
    pub merge: Value,
    /// Why the description is wrong here (what was seen upstream).
    pub why: Option<String>,
}

/// Applies each patch in order; a pointer that reaches nothing is an error at the patch.
pub fn apply(doc: &mut Value, overlay_file: &str, patches: &[Patch], report: &mut Report) {
    for (i, p) in patches.iter().enumerate() {
        let at = format!("/patches/{i}/pointer");
        if !(p.pointer.is_empty() || p.pointer.starts_with('/')) {
            report.push(
                Diagnostic::error(codes::OVERLAY, format!("patch pointer `{}` is not a JSON Pointer", p.pointer))
                    .at(overlay_file, at)
                    .with_help("start it with `/`, e.g. `/definitions/Pet/properties/name`"),
            );
            continue;
        }
        match doc.pointer_mut(&p.pointer) {
            Some(target) => merge(target, &p.merge),
            None => report.push(
                Diagnostic::error(
                    codes::OVERLAY,
                    format!("patch pointer `{}` reaches nothing in the description", p.pointer),
                )
                .at(overlay_file, at)
                .with_help("point at a place that exists in the file as written (escape `/` as `~1`, `~` as `~0`)"),
            ),
        }
    }
}

/// RFC 7396: objects merge key by key, `null` removes a key, anything else replaces.
pub fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(changes) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    if let Value::Object(map) = target {
        for (k, v) in changes {
            if v.is_null() {
                map.remove(k);
            } else {
                merge(map.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merges_as_rfc_7396_says() {
        // The RFC's own example (section 3).
        let mut doc = json!({"title": "Goodbye!", "author": {"givenName": "John", "familyName": "Doe"},
            "tags": ["example", "sample"], "content": "This will be unchanged"});
        merge(
            &mut doc,
            &json!({"title": "Hello!", "phoneNumber": "+01-123-456-7890",
            "author": {"familyName": null}, "tags": ["example"]}),
        );
        assert_eq!(
            doc,
            json!({"title": "Hello!", "author": {"givenName": "John"}, "tags": ["example"],
            "content": "This will be unchanged", "phoneNumber": "+01-123-456-7890"})
        );
    }

    #[test]
    fn a_pointer_that_reaches_nothing_is_reported_at_the_patch() {
        let mut doc = json!({"definitions": {"Pet": {"type": "object"}}});
        let patches = [
            Patch { pointer: "/definitions/Pet".into(), merge: json!({"type": null}), why: None },
            Patch { pointer: "/definitions/Cat".into(), merge: json!({"type": "object"}), why: None },
        ];
        let mut report = Report::new();
        apply(&mut doc, "overlay.yaml", &patches, &mut report);
        assert_eq!(doc, json!({"definitions": {"Pet": {}}}));
        let d = &report.diagnostics[0];
        assert_eq!(report.diagnostics.len(), 1);
        assert!(d.message.contains("/definitions/Cat"), "{}", d.message);
        assert_eq!(d.location.as_ref().map(|l| l.pointer.as_str()), Some("/patches/1/pointer"));
    }
}
