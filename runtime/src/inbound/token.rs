//! Bearer tokens of the callers (MCP authorization; RFC 9068 JWTs, RFC 7662 introspection):
//! who is calling and what it may do. JWTs are checked against the issuer's JWKS, discovered
//! from its metadata (RFC 8414 or OpenID discovery), cached, and fetched again when a token
//! names a key the cache lacks. Only asymmetric algorithms are accepted: `alg: none` does not
//! parse, and an HMAC token is refused before any key is looked at (an HS256 token "signed" with
//! the issuer's public key would otherwise verify against it).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::{Mutex, RwLock};

/// Clock skew tolerated on `exp` and `nbf`.
const LEEWAY_SECS: u64 = 30;
/// Keys are fetched again at most this often when a token names an unknown one, so random
/// `kid`s cannot make the server hammer the issuer.
const REFETCH_EVERY: Duration = Duration::from_secs(10);
/// Keys are refreshed after this long even when every `kid` is known (rotation).
const KEYS_TTL: Duration = Duration::from_secs(3600);
/// How long an introspection answer is trusted (never past the token's `exp`).
const INTROSPECTION_TTL: Duration = Duration::from_secs(30);

/// A validated caller: the token's issuer and subject, and the scopes it grants.
#[derive(Clone)]
pub struct Principal {
    pub issuer: String,
    pub subject: String,
    pub scopes: BTreeSet<String>,
    /// When the token expires (seconds since the epoch), for caches keyed on it.
    pub expires_at: Option<u64>,
    /// The token itself, only for an RFC 8693 / RFC 7523 exchange at the configured token
    /// endpoint; never forwarded upstream, logged or stored.
    token: Arc<str>,
}

impl std::fmt::Debug for Principal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Principal")
            .field("issuer", &self.issuer)
            .field("subject", &self.subject)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

impl Principal {
    /// The caller that idempotency records, handles and audit rows are scoped to.
    pub fn caller(&self) -> String {
        format!("{}#{}", self.issuer, self.subject)
    }

    /// Whether the token holds every scope of one of `alternatives` (none: any token will do).
    pub fn satisfies(&self, alternatives: &[&[&str]]) -> bool {
        alternatives.is_empty() || alternatives.iter().any(|alt| alt.iter().all(|s| self.scopes.contains(*s)))
    }

    /// The alternative this token is closest to holding, for an `insufficient_scope` answer.
    pub fn nearest<'a>(&self, alternatives: &[&'a [&'a str]]) -> &'a [&'a str] {
        alternatives
            .iter()
            .min_by_key(|alt| alt.iter().filter(|s| !self.scopes.contains(**s)).count())
            .copied()
            .unwrap_or(&[])
    }

    /// The inbound token, for a token exchange.
    pub fn token(&self) -> &str {
        &self.token
    }
}

/// Why a token was not accepted. The texts say what is wrong without echoing the token.
#[derive(Debug, thiserror::Error)]
pub enum Rejection {
    /// The token is malformed, forged, expired, for another audience or issuer: 401.
    #[error("{0}")]
    Invalid(String),
    /// The issuer could not be asked (discovery, JWKS, introspection down): 503.
    #[error("{0}")]
    Unavailable(String),
}

/// Where and how tokens are checked: `serve --auth-issuer … [--auth-audience …]
/// [--auth-introspection …]`.
#[derive(Debug, Clone)]
pub struct AuthConfig {
    /// The authorization server's issuer identifier, exactly as tokens carry it in `iss`.
    pub issuer: String,
    /// Audiences accepted besides the endpoint's own resource URI; when set, only these.
    pub audiences: Vec<String>,
    /// RFC 7662 endpoint for opaque (non-JWT) tokens.
    pub introspection: Option<String>,
    /// Client credentials for the introspection endpoint.
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
}

#[derive(Default)]
struct Keys {
    jwks_uri: Option<String>,
    by_kid: BTreeMap<String, (DecodingKey, Vec<Algorithm>)>,
    /// Keys without a `kid`, tried in turn.
    unnamed: Vec<(DecodingKey, Vec<Algorithm>)>,
    fetched: Option<Instant>,
}

pub struct Verifier {
    config: AuthConfig,
    http: reqwest::Client,
    keys: RwLock<Keys>,
    /// Serialises fetches, and remembers the last one for the refetch limit.
    fetching: Mutex<Option<Instant>>,
    introspected: Mutex<BTreeMap<String, (Principal, Instant)>>,
}

#[derive(Deserialize)]
struct Claims {
    iss: String,
    sub: Option<String>,
    client_id: Option<String>,
    exp: Option<u64>,
    scope: Option<String>,
    scp: Option<ScopeClaim>,
}

/// `scp` as some issuers write it: a list, or one space-separated string.
#[derive(Deserialize)]
#[serde(untagged)]
enum ScopeClaim {
    List(Vec<String>),
    Text(String),
}

fn scopes_of(scope: Option<&str>, scp: Option<&ScopeClaim>) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = scope.unwrap_or("").split_whitespace().map(str::to_owned).collect();
    match scp {
        Some(ScopeClaim::List(list)) => out.extend(list.iter().cloned()),
        Some(ScopeClaim::Text(text)) => out.extend(text.split_whitespace().map(str::to_owned)),
        None => {}
    }
    out
}

/// The algorithms a key may verify: its own `alg` if it names one, else its family's.
fn algorithms_of(jwk: &jsonwebtoken::jwk::Jwk) -> Option<Vec<Algorithm>> {
    let family: Vec<Algorithm> = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => vec![
            Algorithm::RS256,
            Algorithm::RS384,
            Algorithm::RS512,
            Algorithm::PS256,
            Algorithm::PS384,
            Algorithm::PS512,
        ],
        AlgorithmParameters::EllipticCurve(_) => vec![Algorithm::ES256, Algorithm::ES384],
        AlgorithmParameters::OctetKeyPair(_) => vec![Algorithm::EdDSA],
        // Symmetric keys have no place in a public JWKS.
        _ => return None,
    };
    match jwk.common.key_algorithm.and_then(|a| a.to_string().parse::<Algorithm>().ok()) {
        Some(alg) if family.contains(&alg) => Some(vec![alg]),
        Some(_) => None,
        None => Some(family),
    }
}

fn is_symmetric(alg: Algorithm) -> bool {
    matches!(alg, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512)
}

/// Where RFC 8414 and OpenID discovery put the issuer's metadata, in the order tried.
fn metadata_urls(issuer: &str) -> Vec<String> {
    let trimmed = issuer.trim_end_matches('/');
    let (origin, path) = match trimmed.find("://").and_then(|i| trimmed[i + 3..].find('/').map(|j| i + 3 + j)) {
        Some(at) => (&trimmed[..at], &trimmed[at..]),
        None => (trimmed, ""),
    };
    let mut urls = vec![format!("{origin}/.well-known/oauth-authorization-server{path}")];
    urls.push(format!("{trimmed}/.well-known/openid-configuration"));
    if !path.is_empty() {
        urls.push(format!("{origin}/.well-known/openid-configuration{path}"));
    }
    urls
}

impl Verifier {
    pub fn new(config: AuthConfig, timeout: Duration) -> Result<Self, String> {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| format!("cannot build the HTTP client for the authorization server: {e}"))?;
        Ok(Verifier {
            config,
            http,
            keys: RwLock::new(Keys::default()),
            fetching: Mutex::new(None),
            introspected: Mutex::new(BTreeMap::new()),
        })
    }

    pub fn issuer(&self) -> &str {
        &self.config.issuer
    }

    /// Discovers the issuer and loads its keys, so a misconfiguration shows at start.
    pub async fn warm_up(&self) -> Result<(), Rejection> {
        self.refresh(true).await.map(|_| ())
    }

    /// Checks `token` for a request to an endpoint whose resource URI is `resource`.
    pub async fn verify(&self, token: &str, resource: &[String]) -> Result<Principal, Rejection> {
        let audiences: Vec<String> =
            if self.config.audiences.is_empty() { resource.to_vec() } else { self.config.audiences.clone() };
        if token.split('.').count() == 3 {
            return self.verify_jwt(token, &audiences).await;
        }
        if self.config.introspection.is_some() {
            return self.introspect(token, &audiences).await;
        }
        Err(Rejection::Invalid("the token is not a JWT and this server has no introspection endpoint".into()))
    }

    async fn verify_jwt(&self, token: &str, audiences: &[String]) -> Result<Principal, Rejection> {
        let header = jsonwebtoken::decode_header(token).map_err(|e| {
            Rejection::Invalid(format!("the token's header is not valid ({e}); `alg: none` is refused"))
        })?;
        if is_symmetric(header.alg) {
            return Err(Rejection::Invalid(format!(
                "the token is signed with {:?}, a shared-secret algorithm; only the issuer's asymmetric keys are accepted",
                header.alg
            )));
        }
        let stale = self.keys.read().await.fetched.is_none_or(|at| at.elapsed() > KEYS_TTL);
        if stale {
            self.refresh(false).await?;
        }
        let candidates = self.candidates(header.kid.as_deref(), header.alg).await;
        let candidates = match (candidates.is_empty(), header.kid.is_some()) {
            // A key the cache does not know yet: the issuer may have rotated its keys.
            (true, true) => {
                if self.refresh(false).await? {
                    self.candidates(header.kid.as_deref(), header.alg).await
                } else {
                    candidates
                }
            }
            _ => candidates,
        };
        if candidates.is_empty() {
            return Err(Rejection::Invalid(format!(
                "no key of the issuer verifies {:?} tokens{}",
                header.alg,
                header.kid.as_deref().map(|k| format!(" with kid `{k}`")).unwrap_or_default()
            )));
        }
        let mut validation = Validation::new(header.alg);
        validation.algorithms = vec![header.alg];
        validation.leeway = LEEWAY_SECS;
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.config.issuer]);
        validation.set_audience(audiences);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let mut last = None;
        for key in &candidates {
            match jsonwebtoken::decode::<Claims>(token, key, &validation) {
                Ok(data) => return self.principal(data.claims, token),
                Err(e) => last = Some(e),
            }
        }
        let why = last.map(|e| describe(&e, audiences)).unwrap_or_default();
        Err(Rejection::Invalid(why))
    }

    fn principal(&self, claims: Claims, token: &str) -> Result<Principal, Rejection> {
        let subject = claims
            .sub
            .or(claims.client_id)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| Rejection::Invalid("the token names no subject (`sub`)".into()))?;
        Ok(Principal {
            issuer: claims.iss,
            subject,
            scopes: scopes_of(claims.scope.as_deref(), claims.scp.as_ref()),
            expires_at: claims.exp,
            token: Arc::from(token),
        })
    }

    async fn candidates(&self, kid: Option<&str>, alg: Algorithm) -> Vec<DecodingKey> {
        let keys = self.keys.read().await;
        let fits = |(key, algs): &(DecodingKey, Vec<Algorithm>)| algs.contains(&alg).then(|| key.clone());
        match kid {
            Some(kid) => keys.by_kid.get(kid).and_then(fits).into_iter().collect(),
            None => keys.by_kid.values().chain(&keys.unnamed).filter_map(fits).collect(),
        }
    }

    /// Fetches the metadata (once) and the JWKS. `false` when a fetch ran too recently to run
    /// again (unless `force`).
    async fn refresh(&self, force: bool) -> Result<bool, Rejection> {
        let mut last = self.fetching.lock().await;
        if !force && last.is_some_and(|at| at.elapsed() < REFETCH_EVERY) {
            return Ok(false);
        }
        *last = Some(Instant::now());
        let jwks_uri = match self.keys.read().await.jwks_uri.clone() {
            Some(uri) => uri,
            None => self.discover().await?,
        };
        let set: JwkSet = self.get_json(&jwks_uri).await?;
        let mut keys = Keys { jwks_uri: Some(jwks_uri), fetched: Some(Instant::now()), ..Keys::default() };
        for jwk in &set.keys {
            let Some(algs) = algorithms_of(jwk) else { continue };
            let Ok(key) = DecodingKey::from_jwk(jwk) else { continue };
            match &jwk.common.key_id {
                Some(kid) => {
                    keys.by_kid.insert(kid.clone(), (key, algs));
                }
                None => keys.unnamed.push((key, algs)),
            }
        }
        tracing::debug!(keys = keys.by_kid.len() + keys.unnamed.len(), "authorization server keys loaded");
        *self.keys.write().await = keys;
        Ok(true)
    }

    async fn discover(&self) -> Result<String, Rejection> {
        let mut tried = Vec::new();
        for url in metadata_urls(&self.config.issuer) {
            match self.get_json::<Value>(&url).await {
                Ok(meta) => {
                    let issuer = meta.get("issuer").and_then(Value::as_str).unwrap_or("");
                    if issuer != self.config.issuer {
                        return Err(Rejection::Unavailable(format!(
                            "the authorization server's metadata at {url} names issuer `{issuer}`, not `{}` (set --auth-issuer to the exact issuer)",
                            self.config.issuer
                        )));
                    }
                    return meta.get("jwks_uri").and_then(Value::as_str).map(str::to_owned).ok_or_else(|| {
                        Rejection::Unavailable(format!("the authorization server's metadata at {url} has no jwks_uri"))
                    });
                }
                Err(e) => tried.push(e.to_string()),
            }
        }
        Err(Rejection::Unavailable(format!("cannot discover the authorization server: {}", tried.join("; "))))
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, Rejection> {
        let response =
            self.http.get(url).send().await.map_err(|e| Rejection::Unavailable(format!("GET {url}: {e}")))?;
        if !response.status().is_success() {
            return Err(Rejection::Unavailable(format!("GET {url}: {}", response.status())));
        }
        response.json::<T>().await.map_err(|e| Rejection::Unavailable(format!("GET {url}: {e}")))
    }

    /// RFC 7662: asks the issuer about an opaque token; answers are cached briefly.
    async fn introspect(&self, token: &str, audiences: &[String]) -> Result<Principal, Rejection> {
        let digest = crate::idempotency::digest(token);
        {
            let cache = self.introspected.lock().await;
            if let Some((principal, at)) = cache.get(&digest)
                && at.elapsed() < INTROSPECTION_TTL
                && principal.expires_at.is_none_or(|exp| exp > crate::util::now_secs())
            {
                return Ok(principal.clone());
            }
        }
        let Some(url) = self.config.introspection.as_deref() else {
            return Err(Rejection::Invalid("no introspection endpoint".into()));
        };
        let mut request = self.http.post(url).form(&[("token", token), ("token_type_hint", "access_token")]);
        if let Some(id) = &self.config.client_id {
            request = request.basic_auth(id, self.config.client_secret.as_deref());
        }
        let response = request.send().await.map_err(|e| Rejection::Unavailable(format!("POST {url}: {e}")))?;
        if !response.status().is_success() {
            return Err(Rejection::Unavailable(format!("POST {url}: {}", response.status())));
        }
        let answer: Value = response.json().await.map_err(|e| Rejection::Unavailable(format!("POST {url}: {e}")))?;
        if answer.get("active").and_then(Value::as_bool) != Some(true) {
            return Err(Rejection::Invalid("the authorization server says the token is not active".into()));
        }
        let issuer = answer.get("iss").and_then(Value::as_str).unwrap_or(&self.config.issuer).to_owned();
        if issuer != self.config.issuer {
            return Err(Rejection::Invalid(format!("the token was issued by `{issuer}`, not by this server's issuer")));
        }
        let aud: Vec<&str> = match answer.get("aud") {
            Some(Value::String(a)) => vec![a.as_str()],
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !aud.is_empty() && !aud.iter().any(|a| audiences.iter().any(|b| b == a)) {
            return Err(Rejection::Invalid(format!(
                "the token is not for this server (audience {})",
                audiences.join(", ")
            )));
        }
        let exp = answer.get("exp").and_then(Value::as_u64);
        if exp.is_some_and(|exp| exp + LEEWAY_SECS < crate::util::now_secs()) {
            return Err(Rejection::Invalid("the token has expired".into()));
        }
        let claims = Claims {
            iss: issuer,
            sub: answer.get("sub").and_then(Value::as_str).map(str::to_owned),
            client_id: answer.get("client_id").and_then(Value::as_str).map(str::to_owned),
            exp,
            scope: answer.get("scope").and_then(Value::as_str).map(str::to_owned),
            scp: None,
        };
        let principal = self.principal(claims, token)?;
        let mut cache = self.introspected.lock().await;
        // Bounded: an attacker's stream of tokens cannot grow it without end.
        if cache.len() > 10_000 {
            cache.retain(|_, (_, at)| at.elapsed() < INTROSPECTION_TTL);
            if cache.len() > 10_000 {
                cache.clear();
            }
        }
        cache.insert(digest, (principal.clone(), Instant::now()));
        Ok(principal)
    }
}

/// What was wrong with a JWT, in words a client's developer can act on.
fn describe(e: &jsonwebtoken::errors::Error, audiences: &[String]) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match e.kind() {
        ErrorKind::InvalidSignature => "the token's signature does not verify with the issuer's keys".into(),
        ErrorKind::ExpiredSignature => "the token has expired".into(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".into(),
        ErrorKind::InvalidIssuer => "the token was issued by another authorization server".into(),
        ErrorKind::InvalidAudience => format!("the token is not for this server (audience {})", audiences.join(", ")),
        ErrorKind::MissingRequiredClaim(c) => format!("the token has no `{c}` claim"),
        ErrorKind::InvalidAlgorithm => "the token's algorithm does not match the issuer's key".into(),
        _ => format!("the token is not valid ({e})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_urls_follow_rfc_8414_and_openid_discovery() {
        assert_eq!(
            metadata_urls("https://as.example.com"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server",
                "https://as.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            metadata_urls("https://as.example.com/tenant/"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server/tenant",
                "https://as.example.com/tenant/.well-known/openid-configuration",
                "https://as.example.com/.well-known/openid-configuration/tenant"
            ]
        );
    }

    #[test]
    fn scopes_come_from_scope_and_scp() {
        let s = scopes_of(Some("a b"), Some(&ScopeClaim::List(vec!["c".into()])));
        assert_eq!(s.into_iter().collect::<Vec<_>>(), ["a", "b", "c"]);
        let p = Principal {
            issuer: "i".into(),
            subject: "s".into(),
            scopes: scopes_of(Some("read"), None),
            expires_at: None,
            token: Arc::from("secret-token"),
        };
        assert!(p.satisfies(&[]));
        assert!(p.satisfies(&[&["write"], &["read"]]));
        assert!(!p.satisfies(&[&["read", "write"]]));
        assert_eq!(p.nearest(&[&["x", "y"], &["read", "write"]]), ["read", "write"]);
        assert!(!format!("{p:?}").contains("secret-token"));
    }
}
