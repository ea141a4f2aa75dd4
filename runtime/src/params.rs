//! Parameter serialisation as OpenAPI defines it: path styles simple, label and matrix; query
//! styles form, spaceDelimited, pipeDelimited and deepObject, exploded or not; headers and
//! cookies. Values are percent-encoded here, once.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

use crate::decl::Style;

/// Everything but RFC 3986 unreserved characters is encoded.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');
/// `allowReserved: true` keeps RFC 3986 reserved characters as they are.
const RESERVED_OK: &AsciiSet = &COMPONENT
    .remove(b':')
    .remove(b'/')
    .remove(b'?')
    .remove(b'#')
    .remove(b'[')
    .remove(b']')
    .remove(b'@')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=');

pub fn encode(s: &str) -> String {
    utf8_percent_encode(s, COMPONENT).to_string()
}

/// Percent-decoded text (invalid UTF-8 replaced), to compare query names and values.
pub fn decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned()
}

fn encode_with(s: &str, allow_reserved: bool) -> String {
    utf8_percent_encode(s, if allow_reserved { RESERVED_OK } else { COMPONENT }).to_string()
}

/// A scalar as text; nested structures as JSON text.
pub fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A path parameter's replacement for `{name}`.
pub fn path(name: &str, value: &Value, style: Style, explode: bool) -> String {
    let enc = |s: &str| encode(s);
    match (style, value) {
        (Style::Label, Value::Array(items)) => {
            let sep = if explode { "." } else { "," };
            format!(".{}", items.iter().map(|i| enc(&scalar(i))).collect::<Vec<_>>().join(sep))
        }
        (Style::Label, Value::Object(map)) => {
            if explode {
                map.iter().map(|(k, v)| format!(".{}={}", enc(k), enc(&scalar(v)))).collect()
            } else {
                format!(".{}", map.iter().flat_map(|(k, v)| [enc(k), enc(&scalar(v))]).collect::<Vec<_>>().join(","))
            }
        }
        (Style::Label, v) => format!(".{}", enc(&scalar(v))),
        (Style::Matrix, Value::Array(items)) => {
            if explode {
                items.iter().map(|i| format!(";{}={}", enc(name), enc(&scalar(i)))).collect()
            } else {
                format!(";{}={}", enc(name), items.iter().map(|i| enc(&scalar(i))).collect::<Vec<_>>().join(","))
            }
        }
        (Style::Matrix, Value::Object(map)) => {
            if explode {
                map.iter().map(|(k, v)| format!(";{}={}", enc(k), enc(&scalar(v)))).collect()
            } else {
                format!(
                    ";{}={}",
                    enc(name),
                    map.iter().flat_map(|(k, v)| [enc(k), enc(&scalar(v))]).collect::<Vec<_>>().join(",")
                )
            }
        }
        (Style::Matrix, v) => format!(";{}={}", enc(name), enc(&scalar(v))),
        (_, v) => simple(v, explode, enc),
    }
}

/// `simple` style, shared by path and header parameters.
fn simple(value: &Value, explode: bool, enc: impl Fn(&str) -> String) -> String {
    match value {
        Value::Array(items) => items.iter().map(|i| enc(&scalar(i))).collect::<Vec<_>>().join(","),
        Value::Object(map) => {
            if explode {
                map.iter().map(|(k, v)| format!("{}={}", enc(k), enc(&scalar(v)))).collect::<Vec<_>>().join(",")
            } else {
                map.iter().flat_map(|(k, v)| [enc(k), enc(&scalar(v))]).collect::<Vec<_>>().join(",")
            }
        }
        v => enc(&scalar(v)),
    }
}

/// Encoded `key=value` pairs for one query parameter.
pub fn query(name: &str, value: &Value, style: Style, explode: bool, allow_reserved: bool) -> Vec<String> {
    let enc = |s: &str| encode_with(s, allow_reserved);
    let key = encode(name);
    match (style, value) {
        (Style::DeepObject, Value::Object(map)) => {
            map.iter().map(|(k, v)| format!("{key}%5B{}%5D={}", encode(k), enc(&scalar(v)))).collect()
        }
        (Style::SpaceDelimited | Style::PipeDelimited, Value::Array(items)) if !explode => {
            let sep = if style == Style::SpaceDelimited { "%20" } else { "%7C" };
            vec![format!("{key}={}", items.iter().map(|i| enc(&scalar(i))).collect::<Vec<_>>().join(sep))]
        }
        (_, Value::Array(items)) => {
            if explode {
                items.iter().map(|i| format!("{key}={}", enc(&scalar(i)))).collect()
            } else {
                vec![format!("{key}={}", items.iter().map(|i| enc(&scalar(i))).collect::<Vec<_>>().join(","))]
            }
        }
        (_, Value::Object(map)) => {
            if explode {
                map.iter().map(|(k, v)| format!("{}={}", encode(k), enc(&scalar(v)))).collect()
            } else {
                vec![format!(
                    "{key}={}",
                    map.iter().flat_map(|(k, v)| [enc(k), enc(&scalar(v))]).collect::<Vec<_>>().join(",")
                )]
            }
        }
        (_, v) => vec![format!("{key}={}", enc(&scalar(v)))],
    }
}

/// A header value (`simple` style). Header values are not percent-encoded.
pub fn header(value: &Value) -> String {
    simple(value, false, str::to_owned)
}

/// One `name=value` cookie pair (`form` style, not exploded).
pub fn cookie(name: &str, value: &Value) -> String {
    format!("{name}={}", encode(&simple(value, false, str::to_owned)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Examples from the OpenAPI 3.0.3 specification, "Style Examples".
    #[test]
    fn path_styles() {
        let color = json!(["blue", "black", "brown"]);
        let rgb = json!({"R": 100, "G": 200, "B": 150});
        assert_eq!(path("color", &json!("blue"), Style::Simple, false), "blue");
        assert_eq!(path("color", &color, Style::Simple, false), "blue,black,brown");
        assert_eq!(path("color", &rgb, Style::Simple, true), "R=100,G=200,B=150");
        assert_eq!(path("color", &color, Style::Label, true), ".blue.black.brown");
        assert_eq!(path("color", &rgb, Style::Label, false), ".R,100,G,200,B,150");
        assert_eq!(path("color", &json!("blue"), Style::Matrix, false), ";color=blue");
        assert_eq!(path("color", &color, Style::Matrix, true), ";color=blue;color=black;color=brown");
        assert_eq!(path("color", &rgb, Style::Matrix, false), ";color=R,100,G,200,B,150");
        assert_eq!(path("id", &json!("a/b c"), Style::Simple, false), "a%2Fb%20c");
    }

    #[test]
    fn query_styles() {
        let color = json!(["blue", "black", "brown"]);
        let rgb = json!({"R": 100, "G": 200, "B": 150});
        assert_eq!(query("color", &color, Style::Form, true, false), vec!["color=blue", "color=black", "color=brown"]);
        assert_eq!(query("color", &color, Style::Form, false, false), vec!["color=blue,black,brown"]);
        assert_eq!(query("color", &rgb, Style::Form, true, false), vec!["R=100", "G=200", "B=150"]);
        assert_eq!(query("color", &color, Style::SpaceDelimited, false, false), vec!["color=blue%20black%20brown"]);
        assert_eq!(query("color", &color, Style::PipeDelimited, false, false), vec!["color=blue%7Cblack%7Cbrown"]);
        assert_eq!(
            query("color", &rgb, Style::DeepObject, true, false),
            vec!["color%5BR%5D=100", "color%5BG%5D=200", "color%5BB%5D=150"]
        );
        assert_eq!(query("q", &json!("a&b"), Style::Form, true, false), vec!["q=a%26b"]);
        assert_eq!(query("u", &json!("http://x/y"), Style::Form, true, true), vec!["u=http://x/y"]);
    }
}
