//! Credentials written as parameters: Slack's `token` header on every method, Google's `key`,
//! `access_token` and `oauth_token` query parameters, an `api_key` query parameter with no
//! security scheme at all. Upstream credentials come from the server's configuration, never from
//! the model (CONTRACT S2: upstream credentials come from configured secrets), so each
//! such parameter is marked with the security scheme that supplies it: the one the spec declares
//! for that name and place, else one made for it. The operation accepts that scheme beside its
//! own requirements (or without any, when the parameter was optional), and planning keeps the
//! parameter out of the tool's arguments.

use std::collections::BTreeMap;

use super::{Operation, ParamLocation, Parameter, SchemeKind, SecurityScheme};

/// Parameter names that only ever hold a credential (lower case, `-` as `_`).
const CREDENTIAL_NAMES: &[&str] = &[
    "access_token",
    "accesstoken",
    "api_key",
    "api_token",
    "apikey",
    "app_key",
    "appkey",
    "auth_token",
    "oauth_token",
    "ocp_apim_subscription_key",
    "private_token",
    "subscription_key",
    "x_access_token",
    "x_api_key",
    "x_api_token",
    "x_app_key",
    "x_auth_token",
];
/// Names that hold a credential when the description says so (`token`: "Authentication token").
const AMBIGUOUS_NAMES: &[&str] = &["key", "token", "x_token"];
/// What a credential's description says.
const CREDENTIAL_WORDS: &[&str] =
    &["api key", "apikey", "auth", "access token", "credential", "secret", "password", "bearer", "api token"];
/// What a page cursor's description says (`token`: "the NextToken … which page of results").
const PAGING_WORDS: &[&str] = &["page", "next", "cursor", "continuation", "pagination"];
/// Paths where a token is the subject, not the caller's credential (revoking, introspecting or
/// exchanging one).
const TOKEN_PATHS: &[&str] = &["token", "oauth", "revoke", "introspect"];

/// Marks every credential parameter with the scheme that supplies it and offers that scheme to
/// its operation; `schemes` gains the schemes made for parameters no scheme declares.
pub fn lift(operations: &mut [Operation], schemes: &mut BTreeMap<String, SecurityScheme>) {
    for op in operations {
        let path = op.path.to_ascii_lowercase();
        let token_path = TOKEN_PATHS.iter().any(|w| path.contains(w));
        for p in &mut op.parameters {
            let lifted = signature_part(p, schemes).or_else(|| {
                (!token_path)
                    .then(|| declared(p, schemes).or_else(|| is_credential(p).then(|| made_for(p, schemes))))?
            });
            let Some(scheme) = lifted else {
                continue;
            };
            if !op.security.iter().any(|alt| alt.contains(&scheme)) {
                let anonymous = op.security.is_empty() && !p.required;
                op.security.push(vec![scheme.clone()]);
                // An optional credential of an operation that needs none stays optional.
                if anonymous {
                    op.security.push(Vec::new());
                }
            }
            p.credential = Some(scheme);
        }
    }
}

/// The headers of an AWS Signature Version 4 request (every operation of the AWS descriptions
/// declares them): the signer computes them for each request from the credential.
const SIGNATURE_HEADERS: &[&str] = &[
    "x-amz-algorithm",
    "x-amz-content-sha256",
    "x-amz-credential",
    "x-amz-date",
    "x-amz-security-token",
    "x-amz-signature",
    "x-amz-signedheaders",
];

/// The scheme whose signature a signing header is part of: the API key the spec declares in the
/// `Authorization` header (AWS's `hmac`, "Amazon Signature authorization v4").
fn signature_part(p: &Parameter, schemes: &BTreeMap<String, SecurityScheme>) -> Option<String> {
    if p.location != ParamLocation::Header || !SIGNATURE_HEADERS.contains(&p.name.to_ascii_lowercase().as_str()) {
        return None;
    }
    schemes.values().find_map(|s| match &s.kind {
        SchemeKind::ApiKey { location: ParamLocation::Header, name } if name.eq_ignore_ascii_case("authorization") => {
            Some(s.name.clone())
        }
        _ => None,
    })
}

/// The API key scheme the spec declares for this parameter's name and place.
fn declared(p: &Parameter, schemes: &BTreeMap<String, SecurityScheme>) -> Option<String> {
    schemes.values().find_map(|s| match &s.kind {
        SchemeKind::ApiKey { location, name } if *location == p.location && same_name(p, name) => Some(s.name.clone()),
        _ => None,
    })
}

/// Header names are case-insensitive; query and cookie names are not.
fn same_name(p: &Parameter, name: &str) -> bool {
    if p.location == ParamLocation::Header { p.name.eq_ignore_ascii_case(name) } else { p.name == name }
}

/// Whether a query, header or cookie parameter holds a credential, by its name and description.
fn is_credential(p: &Parameter) -> bool {
    if p.location == ParamLocation::Path {
        return false;
    }
    let string = p.schema.get("type").is_none_or(|t| t == "string");
    let description = p.schema.get("description").and_then(|d| d.as_str()).unwrap_or("").to_lowercase();
    let says = |words: &[&str]| words.iter().any(|w| description.contains(w));
    let name = p.name.to_ascii_lowercase().replace('-', "_");
    if !string || says(PAGING_WORDS) {
        return false;
    }
    if CREDENTIAL_NAMES.contains(&name.as_str()) {
        return description.is_empty() || says(CREDENTIAL_WORDS) || says(&["key", "token"]);
    }
    if name == "secret" {
        return p.location == ParamLocation::Header;
    }
    AMBIGUOUS_NAMES.contains(&name.as_str()) && says(CREDENTIAL_WORDS)
}

/// The scheme made for a credential parameter no scheme declares, made once per name and place:
/// named after the parameter (`token`, `x_api_key`), with its place when that name is taken.
fn made_for(p: &Parameter, schemes: &mut BTreeMap<String, SecurityScheme>) -> String {
    let kind = SchemeKind::ApiKey { location: p.location, name: p.name.clone() };
    let base = heck::ToSnakeCase::to_snake_case(p.name.as_str());
    let base = if base.is_empty() { "credential".to_owned() } else { base };
    let place = p.location.as_str();
    let mut name = base.clone();
    for n in 1.. {
        match schemes.get(&name) {
            Some(s) if s.kind == kind => return name,
            Some(_) => name = if n == 1 { format!("{base}_{place}") } else { format!("{base}_{place}_{n}") },
            None => break,
        }
    }
    let description = format!("the {} {place} parameter the spec declares on its operations", p.name);
    schemes.insert(name.clone(), SecurityScheme { name: name.clone(), kind, description: Some(description) });
    name
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::Method;

    fn param(name: &str, location: ParamLocation, required: bool, description: &str) -> Parameter {
        Parameter { required, ..Parameter::bare(name, location, description) }
    }

    fn op(path: &str, security: Vec<Vec<String>>, parameters: Vec<Parameter>) -> Operation {
        let mut op = Operation::bare(Method::Get, path);
        op.security = security;
        op.parameters = parameters;
        op
    }

    /// An API key scheme sent in a header.
    fn header_key(name: &str, header: &str) -> SecurityScheme {
        SecurityScheme {
            name: name.to_owned(),
            kind: SchemeKind::ApiKey { location: ParamLocation::Header, name: header.to_owned() },
            description: None,
        }
    }

    #[test]
    fn credential_parameters_are_supplied_by_a_scheme() {
        use ParamLocation::{Header, Query};
        let mut schemes = BTreeMap::new();
        schemes.insert("apiKey".to_owned(), header_key("apiKey", "X-API-Key"));
        schemes.insert(
            "slackAuth".to_owned(),
            SecurityScheme {
                name: "slackAuth".to_owned(),
                kind: SchemeKind::OAuth2 { client_credentials: None },
                description: None,
            },
        );
        let oauth = vec![vec!["slackAuth".to_owned()]];
        let mut ops = vec![
            // Slack: a required token header beside OAuth 2.
            op("/chat.postMessage", oauth.clone(), vec![param("token", Header, true, "Authentication token.")]),
            // A declared key written out again as a parameter (header names ignore case).
            op("/things", Vec::new(), vec![param("x-api-key", Header, true, "")]),
            // An optional key on an operation that needs none.
            op("/geo", Vec::new(), vec![param("api_key", Query, false, ""), param("q", Query, true, "")]),
            // Not credentials: a page token, an object key, a token being revoked.
            op(
                "/items",
                Vec::new(),
                vec![
                    param("token", Query, false, "The NextToken of the previous page."),
                    param("key", Query, true, "The key of the object."),
                ],
            ),
            op("/auth.revoke", oauth, vec![param("token", Header, true, "Authentication token.")]),
        ];
        lift(&mut ops, &mut schemes);
        let marks = |op: &Operation| op.parameters.iter().map(|p| p.credential.clone()).collect::<Vec<_>>();
        assert_eq!(marks(&ops[0]), [Some("token".to_owned())]);
        assert_eq!(ops[0].security, [vec!["slackAuth".to_owned()], vec!["token".to_owned()]]);
        assert_eq!(schemes["token"].kind, SchemeKind::ApiKey { location: Header, name: "token".to_owned() });
        assert_eq!(marks(&ops[1]), [Some("apiKey".to_owned())]);
        assert_eq!(ops[1].security, [vec!["apiKey".to_owned()]]);
        assert_eq!(marks(&ops[2]), [Some("api_key".to_owned()), None]);
        assert_eq!(ops[2].security, [vec!["api_key".to_owned()], Vec::new()]);
        assert_eq!(marks(&ops[3]), [None, None]);
        assert!(ops[3].security.is_empty());
        assert_eq!(marks(&ops[4]), [None]);
        assert_eq!(schemes.len(), 4, "one scheme made per name and place: {:?}", schemes.keys());
    }

    #[test]
    fn aws_signing_headers_are_part_of_the_signature_scheme() {
        use ParamLocation::Header;
        let mut schemes = BTreeMap::new();
        schemes.insert("hmac".to_owned(), header_key("hmac", "Authorization"));
        let signed = vec![vec!["hmac".to_owned()]];
        let headers = || {
            vec![
                param("X-Amz-Date", Header, false, ""),
                param("X-Amz-Security-Token", Header, false, ""),
                param("X-Amz-Target", Header, true, ""),
            ]
        };
        // On a token route too: the signature is the caller's whatever the action is about.
        let mut ops = vec![
            op("/#X-Amz-Target=Codes.ListRepositories", signed.clone(), headers()),
            op("/#X-Amz-Target=Ecr.GetAuthorizationToken", signed, headers()),
        ];
        lift(&mut ops, &mut schemes);
        for op in &ops {
            let marks: Vec<_> = op.parameters.iter().map(|p| p.credential.as_deref()).collect();
            assert_eq!(marks, [Some("hmac"), Some("hmac"), None], "{}", op.path);
            assert_eq!(op.security, [vec!["hmac".to_owned()]]);
        }
        assert_eq!(schemes.len(), 1, "no scheme made per header");
        // Without a signature scheme they are left alone.
        let mut none = BTreeMap::new();
        let mut ops = vec![op("/x", Vec::new(), vec![param("X-Amz-Date", Header, false, "")])];
        lift(&mut ops, &mut none);
        assert_eq!(ops[0].parameters[0].credential, None);
    }

    #[test]
    fn a_made_scheme_does_not_take_a_declared_name() {
        let mut schemes = BTreeMap::new();
        schemes.insert(
            "token".to_owned(),
            SecurityScheme { name: "token".to_owned(), kind: SchemeKind::Bearer, description: None },
        );
        let p = param("token", ParamLocation::Query, true, "API token.");
        assert_eq!(made_for(&p, &mut schemes), "token_query");
        assert_eq!(made_for(&p, &mut schemes), "token_query", "made once");
        assert_eq!(schemes.len(), 2);
    }
}
