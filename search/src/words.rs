//! Identifiers as words: the index and the query must both see `pull_number`,
//! `listReposForUser` and `/repos/{owner}` as the words a person would write.

/// `text` with identifiers split into words: `_` and `.` become spaces (Unicode word
/// boundaries keep them inside a word), and a lower-case letter or digit followed by a capital
/// starts a new word, as does the last capital of a run followed by a lower-case letter
/// (`HTMLParser` → `HTML Parser`).
pub fn words(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' || c == '.' {
            out.push(' ');
            continue;
        }
        if c.is_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                out.push(' ');
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn splits_identifiers_and_leaves_prose_alone() {
        assert_eq!(words("listReposForUser"), "list Repos For User");
        assert_eq!(words("pull_number"), "pull number");
        assert_eq!(words("HTMLParser v2Token"), "HTML Parser v2 Token");
        assert_eq!(words("/repos/{owner}/{repo}"), "/repos/{owner}/{repo}");
        assert_eq!(words("Deletes a repository."), "Deletes a repository ");
        assert_eq!(words("GET"), "GET");
    }
}
