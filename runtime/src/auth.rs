//! Upstream credentials, read once from the environment variables the generated README names
//! (CONTRACT S2). Secret values live only in memory: never logged, never in errors.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use base64::Engine as _;

use crate::decl::{KeyLocation, SchemeDecl, SchemeKind};
use crate::grants::{Client, ClientCredentials};

#[derive(Clone)]
pub enum Secret {
    ApiKey {
        location: KeyLocation,
        name: &'static str,
        value: String,
    },
    Bearer(String),
    /// `user:password`, base64-encoded.
    Basic(String),
    /// A token the server fetches for itself, sent as a bearer token.
    ClientCredentials(Arc<ClientCredentials>),
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

#[derive(Debug, Clone, Default)]
pub struct Credentials {
    by_scheme: BTreeMap<&'static str, Secret>,
    /// Environment variables of each scheme, for "not configured" hints.
    env_of: BTreeMap<&'static str, &'static [&'static str]>,
    /// Schemes that carry a bearer token: a caller's exchanged token stands in for them.
    bearer: BTreeSet<&'static str>,
    /// Credentials sent with every call (`SchemeKind::Always`), whichever alternative is chosen.
    always: Vec<Secret>,
}

impl Credentials {
    /// Reads each scheme's variables with `lookup` (the process environment in production).
    pub fn load(schemes: &'static [SchemeDecl], lookup: impl Fn(&str) -> Option<String>) -> Self {
        let mut c = Credentials::default();
        for s in schemes {
            c.env_of.insert(s.name, s.env);
            let get = |i: usize| s.env.get(i).and_then(|name| lookup(name)).filter(|v| !v.is_empty());
            if matches!(s.kind, SchemeKind::Bearer | SchemeKind::ClientCredentials { .. }) {
                c.bearer.insert(s.name);
            }
            let secret = match s.kind {
                SchemeKind::ApiKey { location, name } => get(0).map(|value| Secret::ApiKey { location, name, value }),
                SchemeKind::Bearer => get(0).map(Secret::Bearer),
                // A static token wins; otherwise the client's id and secret fetch one.
                SchemeKind::ClientCredentials { token_url, scopes } => get(0).map(Secret::Bearer).or_else(|| {
                    let id = get(1)?;
                    let url = get(3).unwrap_or_else(|| token_url.to_owned());
                    let client = Client { id, secret: get(2) };
                    Some(Secret::ClientCredentials(Arc::new(ClientCredentials::new(url, client, scopes))))
                }),
                SchemeKind::Always { location, name, prefix } => {
                    if let Some(value) = get(0) {
                        let value = match prefix {
                            Some(p) => format!("{p} {value}"),
                            None => value,
                        };
                        c.always.push(Secret::ApiKey { location, name, value });
                    }
                    None
                }
                SchemeKind::Basic => get(0).map(|user| {
                    let pass = get(1).unwrap_or_default();
                    Secret::Basic(base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}")))
                }),
            };
            if let Some(secret) = secret {
                c.by_scheme.insert(s.name, secret);
            }
        }
        c
    }

    /// The secrets of the first alternative that can be satisfied. `None` when the operation
    /// needs credentials that are not configured; an empty list when none are needed.
    /// The credentials sent with every call come first.
    pub fn choose<'a>(&'a self, alternatives: &[&[&str]]) -> Option<Vec<&'a Secret>> {
        let chosen = if alternatives.is_empty() {
            Some(Vec::new())
        } else {
            alternatives
                .iter()
                .find_map(|alt| alt.iter().map(|name| self.by_scheme.get(*name)).collect::<Option<Vec<_>>>())
        };
        chosen.map(|mut c| {
            c.splice(0..0, self.always.iter());
            c
        })
    }

    /// Whether some alternative takes a bearer token.
    pub fn has_bearer(&self, alternatives: &[&[&str]]) -> bool {
        alternatives.iter().any(|alt| alt.iter().any(|n| self.bearer.contains(n)))
    }

    /// [`Credentials::choose`] for a call made for a user whose exchanged token is `user`: it
    /// stands in for every bearer scheme, so an alternative with one is always chosen first.
    pub fn choose_for_user<'a>(&'a self, alternatives: &[&[&str]], user: &'a Secret) -> Option<Vec<&'a Secret>> {
        let with_user = alternatives.iter().find_map(|alt| {
            if !alt.iter().any(|n| self.bearer.contains(n)) {
                return None;
            }
            self.always
                .iter()
                .map(Some)
                .chain(alt.iter().map(|n| if self.bearer.contains(n) { Some(user) } else { self.by_scheme.get(*n) }))
                .collect::<Option<Vec<_>>>()
        });
        with_user.or_else(|| self.choose(alternatives))
    }

    /// The variables that would satisfy the first alternative, for an operator-facing hint.
    pub fn missing_hint(&self, alternatives: &[&[&str]]) -> Option<String> {
        let alt = alternatives.first()?;
        let vars: Vec<&str> =
            alt.iter().flat_map(|n| self.env_of.get(n).copied().unwrap_or_default().iter().copied()).collect();
        if vars.is_empty() { None } else { Some(vars.join(", ")) }
    }

    pub fn configured(&self) -> usize {
        self.by_scheme.len() + self.always.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SCHEMES: [SchemeDecl; 2] = [
        SchemeDecl {
            name: "key",
            kind: SchemeKind::ApiKey { location: KeyLocation::Header, name: "X-Key" },
            env: &["T_KEY"],
        },
        SchemeDecl { name: "basic", kind: SchemeKind::Basic, env: &["T_USER", "T_PASS"] },
    ];

    #[test]
    fn an_undeclared_credential_goes_with_every_call() {
        static ALWAYS: [SchemeDecl; 2] = [
            SchemeDecl {
                name: "key",
                kind: SchemeKind::ApiKey { location: KeyLocation::Header, name: "X-Key" },
                env: &["T_KEY"],
            },
            SchemeDecl {
                name: "jupyter_token",
                kind: SchemeKind::Always {
                    location: KeyLocation::Header,
                    name: "Authorization",
                    prefix: Some("token"),
                },
                env: &["T_JUPYTER"],
            },
        ];
        let c = Credentials::load(&ALWAYS, |k| match k {
            "T_JUPYTER" => Some("s3cret".to_owned()),
            "T_KEY" => Some("k".to_owned()),
            _ => None,
        });
        let sent = |alternatives: &[&[&str]]| -> Vec<String> {
            c.choose(alternatives)
                .unwrap_or_default()
                .iter()
                .map(|s| match s {
                    Secret::ApiKey { name, value, .. } => format!("{name}: {value}"),
                    other => format!("{other:?}"),
                })
                .collect()
        };
        assert_eq!(sent(&[]), ["Authorization: token s3cret"]);
        assert_eq!(sent(&[&["key"]]), ["Authorization: token s3cret", "X-Key: k"]);
        // Not configured: nothing is sent, and the operation's own schemes still decide.
        let none = Credentials::load(&ALWAYS, |_| None);
        assert_eq!(none.choose(&[]).map(|v| v.len()), Some(0));
        assert!(none.choose(&[&["key"]]).is_none());
    }

    #[test]
    fn picks_the_first_satisfiable_alternative() {
        let c = Credentials::load(&SCHEMES, |k| (k == "T_USER" || k == "T_PASS").then(|| "u".to_owned()));
        assert!(c.choose(&[&["key"]]).is_none());
        let chosen = c.choose(&[&["key"], &["basic"]]).unwrap();
        assert!(matches!(chosen[0], Secret::Basic(b) if b == "dTp1"));
        assert_eq!(c.choose(&[]).map(|v| v.len()), Some(0));
        assert_eq!(c.missing_hint(&[&["key"]]).as_deref(), Some("T_KEY"));
        assert_eq!(format!("{:?}", chosen[0]), "Secret(<redacted>)");
    }
}
