//! Values the user gives or confirms (CONTRACT M1–M3), through multi-round-trip requests (MRTR,
//! 2026-07-28): a call that leaves out an argument the overlay marks `ask`, or carries a value it
//! marks `confirm`, is answered `input_required` with one elicitation per value. The client asks
//! its user and sends the same call again with the answers and the `requestState` it was given.
//! That state carries what earlier rounds gathered; it is sealed with rmcp's request-state codec
//! (HMAC, ten-minute expiry), bound to the tool, the caller and the call's arguments, and taken
//! once. Two rounds at most: a third is refused. A client that cannot elicit gets an error that
//! says what to ask the user instead.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rmcp::model::{InputRequiredResult, RequestStateCodec, SealOptions};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::decl::{AskDecl, ToolDecl};
use crate::error::{ToolError, codes};

/// How long a client has to answer.
const STATE_TTL: Duration = Duration::from_secs(600);
/// Rounds of questions one call may take.
const MAX_ROUNDS: u8 = 2;

/// What a call needs before it runs.
pub enum Gathered {
    /// Everything is there: the arguments, with the user's answers in them.
    Ready(Map<String, Value>),
    /// Ask the user (an `input_required` result).
    Ask(Box<InputRequiredResult>),
    /// The call cannot go on.
    Refuse(ToolError),
}

#[derive(Serialize, Deserialize)]
struct State {
    /// Digest of the arguments the model sent.
    args: String,
    /// The round this state asked in.
    round: u8,
    /// Values and confirmations gathered so far (`confirm:<arg>` for a confirmation).
    values: Map<String, Value>,
    /// Single use.
    nonce: String,
}

/// The sealing key and the states already taken.
pub struct Asker {
    codec: RequestStateCodec,
    taken: Mutex<BTreeMap<String, Instant>>,
}

/// The question a call still needs answered.
fn needed<'a>(decl: &'a ToolDecl, args: &Map<String, Value>, values: &Map<String, Value>) -> Vec<&'a AskDecl> {
    decl.asks
        .iter()
        .filter(|a| {
            if a.confirm {
                args.contains_key(a.arg) && values.get(&format!("confirm:{}", a.arg)) != Some(&Value::Bool(true))
            } else {
                !args.contains_key(a.arg) && !values.contains_key(a.arg)
            }
        })
        .collect()
}

/// The elicitation schema of one argument: its flat, primitive part (what elicitation allows).
fn asked_schema(input: &Value, arg: &str) -> Value {
    let mut schema = input.pointer(&format!("/properties/{arg}")).cloned().unwrap_or(Value::Null);
    if let Some(target) = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
        schema = input.pointer(target).cloned().unwrap_or(Value::Null);
    }
    let mut out = Map::new();
    for key in ["type", "enum", "minimum", "maximum", "minLength", "maxLength", "description", "title", "format"] {
        if let Some(v) = schema.get(key) {
            out.insert(key.to_owned(), v.clone());
        }
    }
    // A union with null (an optional value) is asked as the value's own type.
    if let Some(Value::Array(types)) = out.get("type") {
        let first = types.iter().find(|t| t.as_str() != Some("null")).cloned().unwrap_or(json!("string"));
        out.insert("type".to_owned(), first);
    }
    out.entry("type").or_insert(json!("string"));
    Value::Object(out)
}

fn refused(message: String, recovery: &str) -> Gathered {
    Gathered::Refuse(ToolError::new(codes::INVALID_ARGUMENT, message, recovery).field("requestState"))
}

impl Asker {
    /// Seals with a key derived from `secret` (32 bytes or more).
    pub fn new(secret: Vec<u8>) -> Result<Asker, String> {
        let codec = RequestStateCodec::try_new(secret).map_err(|e| e.to_string())?;
        Ok(Asker { codec, taken: Mutex::new(BTreeMap::new()) })
    }

    /// Takes a state's nonce; false when it was taken before.
    fn take(&self, nonce: &str) -> bool {
        let Ok(mut taken) = self.taken.lock() else { return false };
        let now = Instant::now();
        taken.retain(|_, at| now.duration_since(*at) < STATE_TTL);
        taken.insert(nonce.to_owned(), now).is_none()
    }

    /// What `decl`'s call with `args` (already valid against `input`) needs from the user.
    #[allow(clippy::too_many_arguments)]
    pub fn gather(
        &self,
        decl: &ToolDecl,
        input: &Value,
        mut args: Map<String, Value>,
        caller: &str,
        can_elicit: bool,
        responses: Option<&BTreeMap<String, Value>>,
        request_state: Option<&str>,
    ) -> Gathered {
        if decl.asks.is_empty() {
            return Gathered::Ready(args);
        }
        let digest = crate::idempotency::digest(&crate::idempotency::canonical(&Value::Object(args.clone())));
        let bound = format!("{}\n{caller}", decl.name);
        let (mut values, round) = match request_state {
            None => (Map::new(), 0),
            Some(sealed) => {
                let state: State = match self.codec.open_json_with(sealed, bound.as_bytes()) {
                    Ok(s) => s,
                    Err(_) => {
                        return refused(
                            "the requestState is not one this server gave for this tool and caller, or it expired"
                                .into(),
                            "Send the call again without requestState and inputResponses.",
                        );
                    }
                };
                if state.args != digest {
                    return refused(
                        "the requestState belongs to a call with other arguments".into(),
                        "Send the call again without requestState and inputResponses.",
                    );
                }
                if !self.take(&state.nonce) {
                    return refused(
                        "the requestState was already used".into(),
                        "Send the call again without requestState and inputResponses.",
                    );
                }
                (state.values, state.round)
            }
        };
        // Answers count only with the state that asked for them.
        if request_state.is_some() {
            for (key, answer) in responses.into_iter().flatten() {
                let Some(ask) = decl.asks.iter().find(|a| key == &request_key(a)) else { continue };
                let action = answer.get("action").and_then(Value::as_str).unwrap_or("cancel");
                let content = answer.get("content");
                if action != "accept" {
                    return Gathered::Refuse(
                        ToolError::new(
                            codes::INVALID_ARGUMENT,
                            format!(
                                "the user declined to {} `{}`",
                                if ask.confirm { "confirm" } else { "give" },
                                ask.arg
                            ),
                            "Do not guess the value or call again on your own; tell the user the call needs it.",
                        )
                        .field(ask.arg),
                    );
                }
                if ask.confirm {
                    let yes = content.and_then(|c| c.get("confirm")).and_then(Value::as_bool) == Some(true);
                    if !yes {
                        return Gathered::Refuse(
                            ToolError::new(
                                codes::INVALID_ARGUMENT,
                                format!("the user did not confirm `{}`", ask.arg),
                                "Do not call again with this value unless the user asks for it.",
                            )
                            .field(ask.arg),
                        );
                    }
                    values.insert(format!("confirm:{}", ask.arg), Value::Bool(true));
                } else if let Some(v) = content.and_then(|c| c.get(ask.arg)) {
                    values.insert(ask.arg.to_owned(), v.clone());
                }
            }
        }
        let missing = needed(decl, &args, &values);
        if missing.is_empty() {
            for (k, v) in values {
                if !k.starts_with("confirm:") {
                    args.insert(k, v);
                }
            }
            return Gathered::Ready(args);
        }
        if !can_elicit {
            let ask = missing[0];
            return Gathered::Refuse(if ask.confirm {
                ToolError::new(
                    codes::CONFIRMATION_REQUIRED,
                    format!("{} runs only after the user confirms `{}` ({}), and this client cannot ask them", decl.name, ask.arg, ask.question),
                    "Tell the user this needs their confirmation in a client that supports elicitation; do not retry here.",
                )
            } else {
                ToolError::new(
                    codes::USER_INPUT_REQUIRED,
                    format!("{} needs `{}` from the user: {}", decl.name, ask.arg, ask.question),
                    format!("Ask the user \"{}\" and call again with `{}` set to their answer; do not guess it.", ask.question, ask.arg),
                )
            }
            .field(ask.arg));
        }
        if round >= MAX_ROUNDS {
            return Gathered::Refuse(
                ToolError::new(
                    codes::INVALID_ARGUMENT,
                    format!("{} asked the user {MAX_ROUNDS} times and still lacks `{}`", decl.name, missing[0].arg),
                    format!("Ask the user for `{}` yourself and call again with it.", missing[0].arg),
                )
                .field(missing[0].arg),
            );
        }
        let mut requests = Map::new();
        for ask in &missing {
            let (message, schema) = if ask.confirm {
                let value = args.get(ask.arg).map(|v| v.to_string()).unwrap_or_default();
                (
                    format!("{}: confirm {} = {value} ({})?", decl.name, ask.arg, ask.question),
                    json!({"type": "object", "properties": {"confirm": {"type": "boolean", "title": format!("Confirm {} = {value}", ask.arg)}}, "required": ["confirm"]}),
                )
            } else {
                (
                    ask.question.to_owned(),
                    json!({"type": "object", "properties": {ask.arg: asked_schema(input, ask.arg)}, "required": [ask.arg]}),
                )
            };
            requests.insert(
                request_key(ask),
                json!({"method": "elicitation/create", "params": {"mode": "form", "message": message, "requestedSchema": schema}}),
            );
        }
        let state = State { args: digest, round: round + 1, values, nonce: uuid::Uuid::new_v4().simple().to_string() };
        let options = SealOptions::new().associated_data(bound.as_bytes()).ttl(STATE_TTL);
        let sealed = match self.codec.seal_json_with(&state, &options) {
            Ok(s) => s,
            Err(e) => return Gathered::Refuse(ToolError::internal(format!("cannot seal the request state: {e}"))),
        };
        let result = json!({"resultType": "input_required", "inputRequests": requests, "requestState": sealed});
        match serde_json::from_value::<InputRequiredResult>(result) {
            Ok(r) => Gathered::Ask(Box::new(r)),
            Err(e) => Gathered::Refuse(ToolError::internal(format!("cannot build the input request: {e}"))),
        }
    }
}

/// The `inputRequests` key of one question.
fn request_key(ask: &AskDecl) -> String {
    format!("{}:{}", if ask.confirm { "confirm" } else { "ask" }, ask.arg)
}
