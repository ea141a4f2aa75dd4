//! Pages announced in a `Link` header (RFC 8288; GitHub, Meraki, Mastodon): the upstream puts
//! the next page's address in `Link: <…?after=abc&per_page=30>; rel="next"`, where the model
//! cannot see it. The server reads the query of that address, hands it out as a signed handle
//! (H1) beside the result's items, and when the handle comes back sends that query again over the
//! call's own parameters.

use crate::params;

/// The query of the `rel="next"` link among `Link` header values, as the upstream wrote it
/// (still percent-encoded, without `?` and fragment); `None` when there is no next link or it
/// carries no query.
pub fn next_query<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<String> {
    values.into_iter().flat_map(links).find(|(_, rels)| rels.iter().any(|r| r.eq_ignore_ascii_case("next"))).and_then(
        |(uri, _)| {
            let query = uri.split_once('?')?.1;
            let query = query.split_once('#').map_or(query, |(q, _)| q);
            (!query.is_empty()).then(|| query.to_owned())
        },
    )
}

/// Every link of one header value: its target and its relation types. Tolerant: a malformed
/// entry is skipped up to the next comma outside quotes.
fn links(value: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(open) = rest.find('<') {
        let Some(close) = rest[open..].find('>') else { break };
        let uri = rest[open + 1..open + close].trim().to_owned();
        rest = &rest[open + close + 1..];
        let mut rels = Vec::new();
        // Parameters up to the comma that ends this link (a comma inside quotes does not).
        let mut params_end = rest.len();
        let mut quoted = false;
        let mut escaped = false;
        for (i, c) in rest.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if quoted => escaped = true,
                '"' => quoted = !quoted,
                ',' if !quoted => {
                    params_end = i;
                    break;
                }
                _ => {}
            }
        }
        for param in split_params(&rest[..params_end]) {
            let Some((name, v)) = param.split_once('=') else { continue };
            if name.trim().eq_ignore_ascii_case("rel") {
                let v = v.trim().trim_matches('"');
                rels.extend(v.split_ascii_whitespace().map(str::to_owned));
            }
        }
        out.push((uri, rels));
        rest = &rest[params_end..];
    }
    out
}

/// `; rel="next"; title="a;b"` → `rel="next"`, `title="a;b"`.
fn split_params(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(text[start..].trim());
    out.into_iter().filter(|p| !p.is_empty()).collect()
}

/// The decoded name of one `name=value` query pair.
fn name_of(pair: &str) -> String {
    params::decode(pair.split_once('=').map_or(pair, |(n, _)| n))
}

/// `query` without the pairs that carry a credential, by name or by value: a handle's payload
/// is readable, and an upstream may echo its API key into its links.
pub fn without_secrets(query: &str, names: &[&str], values: &[&str]) -> String {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .filter(|pair| {
            let value = params::decode(pair.split_once('=').map_or("", |(_, v)| v));
            !names.contains(&name_of(pair).as_str()) && !values.iter().any(|s| !s.is_empty() && *s == value)
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Puts a next-page query over the call's own query pairs: each parameter the link sets
/// replaces the call's value of it, the others stay.
pub fn apply(query: &mut Vec<String>, next: &str) {
    let pairs: Vec<&str> = next.split('&').filter(|p| !p.is_empty()).collect();
    let names: Vec<String> = pairs.iter().map(|p| name_of(p)).collect();
    query.retain(|own| !names.contains(&name_of(own)));
    query.extend(pairs.into_iter().map(str::to_owned));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_links_query_is_found_among_the_others() {
        let github = r#"<https://api.github.com/orgs/o/dependabot/alerts?per_page=2&after=Y3Vy%3D%3D>; rel="next", <https://api.github.com/orgs/o/dependabot/alerts?per_page=2&before=Zm9v>; rel="prev""#;
        assert_eq!(next_query([github]).as_deref(), Some("per_page=2&after=Y3Vy%3D%3D"));
        // Several relation types, unquoted values, commas inside the address and quotes, and the
        // next link in a second header.
        let first = r#"</items?page=1>; rel="first"; title="a, b; c""#;
        let second = "</items?state=open,fixed&page=3#top>; rel=\"last next\"";
        assert_eq!(next_query([first, second]).as_deref(), Some("state=open,fixed&page=3"));
        assert_eq!(next_query(["<https://x/items?max_id=9>; rel=next"]).as_deref(), Some("max_id=9"));
        // No next link, a next link without a query, garbage.
        assert_eq!(next_query([r#"<https://x/items?page=1>; rel="prev""#]), None);
        assert_eq!(next_query([r#"<https://x/items>; rel="next""#]), None);
        assert_eq!(next_query(["not a link", "<unterminated; rel=next", ""]), None);
    }

    #[test]
    fn credentials_never_ride_in_a_next_query() {
        let q = "after=abc&api_key=s3cret&per_page=30&sig=tok%2B1";
        assert_eq!(without_secrets(q, &["api_key"], &["tok+1"]), "after=abc&per_page=30");
    }

    #[test]
    fn the_next_query_replaces_what_it_sets_and_keeps_the_rest() {
        let mut own = vec!["state=open".to_owned(), "after=old".to_owned(), "per_page=10".to_owned()];
        apply(&mut own, "per_page=10&after=Y3Vy%3D");
        assert_eq!(own, ["state=open", "per_page=10", "after=Y3Vy%3D"]);
    }
}
