//! Parameters that only choose how the upstream encodes its answer or takes an upload, not what
//! it does: a JSONP callback, pretty-printing, the error format's version, a media-upload
//! protocol (Google's standard parameters, on every operation of its 300 descriptions). The
//! server sends JSON and reads JSON results against their output schemas (T6), so it leaves these
//! at the upstream's default and the model never reads them (T6). So is whom the upstream counts
//! a call against (Google's `quotaUser`, "for quota purposes for server-side applications"): the
//! operator's bookkeeping, not a choice a model makes. What changes the content (`fields`,
//! `alt=media` downloads) stays an argument.

use crate::resolve::{ParamLocation, Parameter};

/// Whether a query parameter only sets the wire format or the quota a call counts against, so the
/// server leaves it at the upstream's default: by its name and what the spec says of it.
pub fn left_at_upstream_default(p: &Parameter) -> bool {
    if p.location != ParamLocation::Query {
        return false;
    }
    let description = p.schema.get("description").and_then(|d| d.as_str()).unwrap_or("").to_lowercase();
    let says = |words: &[&str]| words.iter().any(|w| description.contains(w));
    let boolean = p.schema.get("type").is_some_and(|t| t == "boolean");
    match heck::ToSnakeCase::to_snake_case(p.name.as_str()).as_str() {
        "callback" | "jsonp" => says(&["jsonp"]),
        "pretty_print" | "pretty" => boolean && says(&["indent", "line break", "pretty", "human-readable"]),
        // Google's `$.xgafv`: "V1 error format."
        "xgafv" => says(&["error format"]),
        "upload_protocol" | "upload_type" => says(&["upload protocol"]),
        "quota_user" => says(&["quota purposes"]),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn query(name: &str, schema: Value) -> Parameter {
        Parameter { schema, ..Parameter::bare(name, ParamLocation::Query, "") }
    }

    #[test]
    fn googles_wire_format_parameters_are_recognised_and_content_ones_are_not() {
        let s = |description: &str| json!({"type": "string", "description": description});
        let wire = [
            query("callback", s("JSONP")),
            query(
                "prettyPrint",
                json!({"type": "boolean", "description": "Returns response with indentations and line breaks."}),
            ),
            query("$.xgafv", json!({"type": "string", "enum": ["1", "2"], "description": "V1 error format."})),
            query("uploadType", s("Legacy upload protocol for media (e.g. \"media\", \"multipart\").")),
            query("upload_protocol", s("Upload protocol for media (e.g. \"raw\", \"multipart\").")),
            query(
                "quotaUser",
                s("Available to use for quota purposes for server-side applications. Can be any arbitrary string."),
            ),
        ];
        assert!(wire.iter().all(left_at_upstream_default));
        let content = [
            query(
                "alt",
                json!({"type": "string", "enum": ["json", "media", "proto"], "description": "Data format for response."}),
            ),
            query("fields", s("Selector specifying which fields to include in a partial response.")),
            query("callback", s("The URL we call when the job is done.")),
            query("pretty", s("Pretty name of the thing.")),
            query("uploadType", s("Kind of document uploaded.")),
            query("quotaUser", s("The user whose quota to show.")),
        ];
        assert!(!content.iter().any(left_at_upstream_default));
    }
}
