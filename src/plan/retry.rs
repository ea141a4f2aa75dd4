//! Retry safety in the plan (CONTRACT R1, R2, R5, R7): which key each side-effecting tool takes
//! and where it goes upstream. A read takes none; `idempotency: none` takes none; a `natural`
//! key is derived by the server from named arguments and a window; everything else gets a
//! `caller` key, the `idempotency_key` argument, required, forwarded upstream as configured.

use serde_json::{Value, json};

use super::{Arg, Target, Tool};
use crate::diag::{Diagnostic, Report, codes, join_pointer};
use crate::overlay::{Forward, Idempotency, KeyDefaults, KeyKind, parse_duration};

/// The argument a caller key travels in.
pub const KEY_ARG: &str = "idempotency_key";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub source: KeySource,
    /// How long a completed call is remembered and replayed (R5).
    pub ttl_secs: u64,
    /// The upstream header a derived key is sent in (a caller key goes where its argument goes).
    pub forward_header: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    Caller { arg: String },
    Natural { fields: Vec<String>, window: Window },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    Seconds(u64),
    /// A calendar day at a fixed offset from UTC, in minutes.
    Day {
        offset_minutes: i32,
    },
}

impl Window {
    /// `business_day`, `day` (UTC), `business_day+03:00`, or a duration (`24h`).
    pub fn parse(text: &str) -> Option<Window> {
        let text = text.trim();
        for prefix in ["business_day", "day"] {
            if let Some(rest) = text.strip_prefix(prefix) {
                if rest.is_empty() {
                    return Some(Window::Day { offset_minutes: 0 });
                }
                let sign = match rest.chars().next() {
                    Some('+') => 1,
                    Some('-') => -1,
                    _ => return None,
                };
                let (h, m) = rest[1..].split_once(':')?;
                let (h, m): (i32, i32) = (h.parse().ok()?, m.parse().ok()?);
                if !(0..=14).contains(&h) || !(0..60).contains(&m) {
                    return None;
                }
                return Some(Window::Day { offset_minutes: sign * (h * 60 + m) });
            }
        }
        parse_duration(text).map(Window::Seconds)
    }

    fn phrase(self) -> String {
        match self {
            Window::Day { offset_minutes: 0 } => "on the same day (UTC)".to_owned(),
            Window::Day { offset_minutes } => {
                let sign = if offset_minutes < 0 { '-' } else { '+' };
                let m = offset_minutes.unsigned_abs();
                format!("on the same day (UTC{sign}{:02}:{:02})", m / 60, m % 60)
            }
            Window::Seconds(s) => format!("within {}", span(s)),
        }
    }
}

/// `86400` → `24 h`, as a description states a window.
pub fn span(secs: u64) -> String {
    match secs {
        s if s % 86_400 == 0 && s >= 172_800 => format!("{} days", s / 86_400),
        s if s % 3_600 == 0 => format!("{} h", s / 3_600),
        s if s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

/// Sets `tool.key`, adds the key argument and states the rule in the description.
pub fn plan(tool: &mut Tool, defaults: &KeyDefaults, report: &mut Report) {
    if tool.annotations.read_only {
        return;
    }
    let declared = tool.effects.as_ref().and_then(|e| e.idempotency.clone());
    let at = tool.declared.clone();
    let error = |report: &mut Report, message: String, help: &str| {
        let mut d = Diagnostic::error(codes::OVERLAY, message).with_help(help.to_owned());
        if let Some((file, pointer)) = &at {
            d = d.at(file, join_pointer(&join_pointer(pointer, "effects"), "idempotency"));
        }
        report.push(d);
    };
    match declared {
        Some(Idempotency::Kind(KeyKind::None)) => {}
        Some(Idempotency::Natural { natural, window }) => {
            if natural.is_empty() {
                error(
                    report,
                    format!("`{}`: a natural key needs at least one field", tool.name),
                    "name the arguments that identify one intent",
                );
                return;
            }
            if let Some(missing) = natural.iter().find(|f| !tool.args.iter().any(|a| a.name == **f)) {
                let names: Vec<&str> = tool.args.iter().map(|a| a.name.as_str()).collect();
                error(
                    report,
                    format!("`{}`: natural key field `{missing}` is not an argument", tool.name),
                    &format!("the arguments are: {}", names.join(", ")),
                );
                return;
            }
            let window = match window.as_deref().map(Window::parse) {
                None => Window::Seconds(defaults.ttl_secs),
                Some(Some(w)) => w,
                Some(None) => {
                    error(
                        report,
                        format!("`{}`: window `{}` is not a window", tool.name, window.unwrap_or_default()),
                        "write `business_day`, `business_day+03:00` (a fixed UTC offset) or a duration such as `24h`",
                    );
                    return;
                }
            };
            let fields = natural.join(", ");
            tool.description = format!(
                "{} Retry-safe: the same {fields} {} returns the first result.",
                tool.description,
                window.phrase()
            );
            let window_secs = match window {
                Window::Seconds(s) => s,
                Window::Day { .. } => 86_400,
            };
            tool.key = Some(Key {
                source: KeySource::Natural { fields: natural, window },
                ttl_secs: defaults.ttl_secs.max(window_secs),
                forward_header: match &defaults.forward {
                    Forward::Header(h) => Some(h.clone()),
                    _ => None,
                },
            });
        }
        Some(Idempotency::Kind(KeyKind::Caller)) | None => {
            // The rule once, in few words (R2, R5): the window in the tool's description, how to
            // use the key in the argument's; 24 o200k tokens together.
            caller_arg(tool, &defaults.forward);
            tool.description =
                format!("{} Retry-safe for {} with the same {KEY_ARG}.", tool.description, span(defaults.ttl_secs));
            tool.key = Some(Key {
                source: KeySource::Caller { arg: KEY_ARG.to_owned() },
                ttl_secs: defaults.ttl_secs,
                forward_header: None,
            });
        }
    }
}

/// How to use the key (R2); the window is in the tool's description (R5).
const KEY_DESCRIPTION: &str = "New UUID per intent; reuse only to retry.";

fn key_schema() -> Value {
    json!({"type": "string", "maxLength": 64, "description": KEY_DESCRIPTION})
}

/// The `idempotency_key` argument: the operation's own key parameter when it has one (the
/// forward header, or an argument already named so), else a new one.
fn caller_arg(tool: &mut Tool, forward: &Forward) {
    let own = tool.args.iter().position(|a| a.name == KEY_ARG).or_else(|| {
        tool.args.iter().position(|a| match (&a.target, forward) {
            (Target::Header { name, .. }, Forward::Header(h)) => name.eq_ignore_ascii_case(h),
            (Target::BodyField { name }, Forward::Body(b)) | (Target::Query { name, .. }, Forward::Query(b)) => {
                name == b
            }
            _ => false,
        })
    });
    if let Some(i) = own {
        // The spec's own constraints stay; the bound and the rule are added.
        let arg = &mut tool.args[i];
        arg.name = KEY_ARG.to_owned();
        arg.required = true;
        if let Value::Object(m) = &mut arg.schema {
            m.entry("maxLength").or_insert(json!(64));
            m.insert("description".to_owned(), json!(KEY_DESCRIPTION));
        } else {
            arg.schema = key_schema();
        }
        return;
    }
    let target = match forward {
        Forward::Header(name) => Target::Header { name: name.clone(), json: false },
        Forward::Query(name) => Target::Query {
            name: name.clone(),
            style: crate::resolve::Style::Form,
            explode: true,
            allow_reserved: false,
            json: false,
        },
        Forward::Body(name) if tool.body.is_some() => Target::BodyField { name: name.clone() },
        Forward::Body(_) | Forward::None => Target::Local,
    };
    tool.args.push(Arg { name: KEY_ARG.to_owned(), target, required: true, schema: key_schema() });
}

/// Where the API receives the key, e.g. `header Idempotency-Key`; `None` when it does not.
pub fn forwarded(tool: &Tool) -> Option<String> {
    let key = tool.key.as_ref()?;
    match &key.source {
        KeySource::Natural { .. } => key.forward_header.as_ref().map(|h| format!("header {h}")),
        KeySource::Caller { arg } => match &tool.args.iter().find(|a| a.name == *arg)?.target {
            Target::Header { name, .. } => Some(format!("header {name}")),
            Target::Query { name, .. } => Some(format!("query {name}")),
            Target::BodyField { name } => Some(format!("body {name}")),
            Target::Cookie { name, .. } => Some(format!("cookie {name}")),
            Target::Path { name, .. } => Some(format!("path {name}")),
            Target::Body | Target::Local => None,
        },
    }
}

/// The retry guarantee a tool has (R6), as the contract report states it.
pub fn guarantee(tool: &Tool) -> String {
    if tool.annotations.read_only {
        return "safe to repeat (read-only)".to_owned();
    }
    let Some(key) = &tool.key else {
        return "not keyed: a repeat runs the call again".to_owned();
    };
    let kept = format!("replayed for {}", span(key.ttl_secs));
    if tool.native {
        return format!(
            "{kept}; exactly-once when the handler writes in `cx.transaction()` (R6), else at-least-once: pass `cx.idempotency_key()` on"
        );
    }
    match forwarded(tool) {
        Some(place) => format!(
            "{kept}; exactly-once if the API dedupes on the key ({place}), else a crash after its commit can repeat the effect"
        ),
        None => format!("{kept}; the API does not get the key, so a crash after its commit can repeat the effect"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_parse() {
        assert_eq!(Window::parse("business_day"), Some(Window::Day { offset_minutes: 0 }));
        assert_eq!(Window::parse("business_day+03:00"), Some(Window::Day { offset_minutes: 180 }));
        assert_eq!(Window::parse("day-05:30"), Some(Window::Day { offset_minutes: -330 }));
        assert_eq!(Window::parse("24h"), Some(Window::Seconds(86_400)));
        assert_eq!(Window::parse("business_week"), None);
        assert_eq!(Window::parse("day+3"), None);
    }

    #[test]
    fn spans_read_naturally() {
        assert_eq!(span(86_400), "24 h");
        assert_eq!(span(7 * 86_400), "7 days");
        assert_eq!(span(900), "15 min");
        assert_eq!(span(90), "90 s");
    }
}
