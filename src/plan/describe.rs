//! Titles and descriptions written for a model (CONTRACT D1, D2): plain sentences cleaned of
//! markdown and HTML, the purpose first, kept short. Upstream text is untrusted and only cleaned
//! here; the linter judges it.

use crate::resolve::Operation;

/// Longest description kept from the spec, in characters, before cutting at a sentence end.
const MAX_DESCRIPTION: usize = 480;
const MAX_TITLE: usize = 72;

/// Markdown and HTML reduced to plain text on one line.
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // HTML tags and comments.
            '<' if chars.peek().is_some_and(|n| n.is_ascii_alphabetic() || *n == '/' || *n == '!') => {
                for n in chars.by_ref() {
                    if n == '>' {
                        break;
                    }
                }
                out.push(' ');
            }
            // [text](url) → text
            '[' => {
                let mut label = String::new();
                let mut closed = false;
                while let Some(&n) = chars.peek() {
                    chars.next();
                    if n == ']' {
                        closed = true;
                        break;
                    }
                    label.push(n);
                }
                if closed && chars.peek() == Some(&'(') {
                    for n in chars.by_ref() {
                        if n == ')' {
                            break;
                        }
                    }
                    out.push_str(&label);
                } else {
                    out.push('[');
                    out.push_str(&label);
                    if closed {
                        out.push(']');
                    }
                }
            }
            '*' | '#' | '_' if is_markup(&out, c, chars.peek().copied()) => {}
            c if c.is_whitespace() => out.push(' '),
            c => out.push(c),
        }
    }
    decode_entities(&out).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Emphasis and heading marks, not underscores inside identifiers like `pet_id`.
fn is_markup(before: &str, c: char, next: Option<char>) -> bool {
    let prev_word = before.chars().last().is_some_and(|p| p.is_alphanumeric());
    let next_word = next.is_some_and(|n| n.is_alphanumeric());
    match c {
        '_' => !(prev_word && next_word),
        '#' => !prev_word,
        _ => true,
    }
}

fn decode_entities(s: &str) -> String {
    s.replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Cuts at the last sentence end within `max` characters (or the last word, with an ellipsis).
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max).collect();
    if let Some(i) = cut.rfind(". ")
        && i > max / 3
    {
        return cut[..=i].to_owned();
    }
    match cut.rfind(' ') {
        Some(i) => format!("{}…", cut[..i].trim_end_matches([',', ';', ':'])),
        None => format!("{cut}…"),
    }
}

/// Ends the text with a full stop unless it already ends a sentence.
pub fn sentence(text: &str) -> String {
    let t = text.trim();
    if t.is_empty() || t.ends_with(['.', '!', '?', '…', ':']) { t.to_owned() } else { format!("{t}.") }
}

/// One purpose sentence from the summary, then what the description adds, within bounds.
pub fn description(op: &Operation, fallback: &str) -> String {
    let summary = op.summary.as_deref().map(clean).filter(|s| !s.is_empty());
    let body = op.description.as_deref().map(clean).filter(|s| !s.is_empty());
    let text = match (summary, body) {
        (Some(s), Some(b)) => {
            if says_the_same(&s, &b) {
                sentence(&b)
            } else {
                format!("{} {}", sentence(&s), sentence(&b))
            }
        }
        (Some(s), None) => sentence(&s),
        (None, Some(b)) => sentence(&b),
        (None, None) => sentence(fallback),
    };
    shorten(&text, MAX_DESCRIPTION)
}

/// Whether a description only repeats the summary ("Deletes a pet" / "Delete a pet.").
fn says_the_same(summary: &str, description: &str) -> bool {
    let norm = |t: &str| t.trim().trim_end_matches(['.', '!']).to_lowercase();
    let (s, d) = (norm(summary), norm(description));
    if d.starts_with(&s) {
        return true;
    }
    // Edit distance is quadratic: only texts of similar, sentence-like length can be "the
    // same" (a similarity above 0.8 needs lengths within 20% anyway).
    let (a, b) = (s.chars().count(), d.chars().count());
    if a.abs_diff(b) * 5 > a.max(b) || a.max(b) > 1_000 {
        return false;
    }
    strsim::normalized_levenshtein(&s, &d) > 0.8
}

/// A short human title: the summary, or the tool name in words.
pub fn title(op: &Operation, name: &str) -> String {
    if let Some(s) = op.summary.as_deref().map(clean).filter(|s| !s.is_empty()) {
        let s = s.trim_end_matches('.').to_owned();
        if s.chars().count() <= MAX_TITLE {
            return s;
        }
    }
    humanize(name)
}

/// `get_pet_by_id` → `Get pet by id`.
pub fn humanize(name: &str) -> String {
    let words = name.replace(['_', '-', '.'], " ");
    let mut chars = words.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleans_markdown_and_html() {
        assert_eq!(
            clean("**Find** a <b>pet</b> by [id](https://x.example).\n\n# Notes\nUse `pet_id`."),
            "Find a pet by id. Notes Use `pet_id`."
        );
        assert_eq!(clean("a &amp; b"), "a & b");
        assert_eq!(clean("&nbsp; <i class=\"fa\"></i>"), "");
    }

    #[test]
    fn shortens_at_sentence_ends() {
        let text = "First sentence here. Second sentence is longer than the rest of it.";
        assert_eq!(shorten(text, 30), "First sentence here.");
        assert_eq!(shorten("word ".repeat(10).trim(), 12), "word word…");
    }

    #[test]
    fn repeated_summaries_are_dropped() {
        assert!(says_the_same("Deletes a pet", "Delete a pet."));
        assert!(says_the_same("Find pet", "Find pet by id or name."));
        assert!(!says_the_same("Find pet by ID", "Returns a single pet."));
    }

    #[test]
    fn humanizes_names() {
        assert_eq!(humanize("get_pet_by_id"), "Get pet by id");
    }
}
