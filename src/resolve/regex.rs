//! JSON Schema `pattern`s are ECMA-262 regular expressions (what the server's validator and
//! every JSON Schema client run), but many descriptions are written against Java, PCRE or
//! Python. This rewrites the idioms that have an exact ECMA-262 spelling; a pattern that still
//! does not compile is reported by the caller, never dropped.
//!
//! | source idiom                  | ECMA-262                         |
//! |-------------------------------|----------------------------------|
//! | `\A`, `\z`, `\Z`              | `^`, `$`, `$`                    |
//! | `\p{XDigit}` and the other POSIX classes of `java.util.regex` (US-ASCII) | the class spelled out |
//! | `x{,n}`                       | `x{0,n}`                         |
//! | `[\w-.]` (hyphen after a class escape, literal in Java) | `[\w\-.]`   |
//! | octal `\0nn`, `\nnn` in classes | `\xNN`                         |
//! | lone surrogates `\uD800`…`\uDFFF` in a class (match nothing in Unicode text) | removed |
//! | `{` or `}` that is no quantifier (literal in Java and PCRE) | `\{`, `\}` |

/// The POSIX character classes of `java.util.regex`, as class contents.
const POSIX: &[(&str, &str)] = &[
    ("XDigit", "0-9A-Fa-f"),
    ("Alpha", "A-Za-z"),
    ("Digit", "0-9"),
    ("Alnum", "A-Za-z0-9"),
    ("Upper", "A-Z"),
    ("Lower", "a-z"),
    ("Punct", "!-\\/:-@\\[-`{-~"),
    ("Space", " \\t\\n\\x0B\\f\\r"),
    ("Blank", " \\t"),
    ("Cntrl", "\\x00-\\x1F\\x7F"),
    ("ASCII", "\\x00-\\x7F"),
    ("Graph", "!-~"),
    ("Print", " -~"),
];

/// The ECMA-262 spelling of `pattern`, if it needs one (None: leave it as it is).
pub fn to_ecma(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut in_class = false;
    // The previous token inside a class was a class escape such as `\w` (a range cannot
    // start or end there, so Java reads a following `-` literally).
    let mut after_class_escape = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            let n = chars[i + 1];
            if (n == 'p' || n == 'P')
                && let Some((body, len)) = braced(&chars, i + 2)
                && let Some((_, set)) = POSIX.iter().find(|(name, _)| *name == body)
            {
                let negated = n == 'P';
                match (in_class, negated) {
                    (true, false) => out.push_str(set),
                    (false, false) => {
                        out.push('[');
                        out.push_str(set);
                        out.push(']');
                    }
                    (false, true) => {
                        out.push_str("[^");
                        out.push_str(set);
                        out.push(']');
                    }
                    // A negated class inside a class has no simple spelling.
                    (true, true) => return None,
                }
                after_class_escape = in_class;
                i += 2 + len;
                continue;
            }
            if !in_class && (n == 'A' || n == 'z' || n == 'Z') {
                out.push(if n == 'A' { '^' } else { '$' });
                i += 2;
                continue;
            }
            if in_class && let Some((len, skip)) = surrogates(&chars, i) {
                // Lone UTF-16 surrogates (and ranges of them) match nothing in valid Unicode
                // text, which is all JSON carries; ECMA-262 in Unicode mode rejects them.
                if skip {
                    i += len;
                    continue;
                }
            }
            if in_class && n.is_ascii_digit() && n < '8' {
                // Octal escape: up to three octal digits.
                let mut j = i + 1;
                let mut value = 0u32;
                while j < chars.len() && j < i + 4 && ('0'..='7').contains(&chars[j]) {
                    value = value * 8 + (chars[j] as u32 - '0' as u32);
                    j += 1;
                }
                if value <= 0xFF {
                    out.push_str(&format!("\\x{value:02X}"));
                    after_class_escape = false;
                    i = j;
                    continue;
                }
            }
            out.push(c);
            out.push(n);
            after_class_escape = in_class && matches!(n, 'w' | 'W' | 'd' | 'D' | 's' | 'S');
            i += 2;
            continue;
        }
        if in_class {
            if c == ']' {
                in_class = false;
            } else if c == '-' && (after_class_escape || next_is_class_escape(&chars, i + 1)) {
                out.push_str("\\-");
                after_class_escape = false;
                i += 1;
                continue;
            }
            after_class_escape = false;
            out.push(c);
            i += 1;
            continue;
        }
        if c == '[' {
            in_class = true;
            out.push(c);
            i += 1;
            // A leading `]` or `^]` is literal in Java; keep what follows as is.
            if chars.get(i) == Some(&'^') {
                out.push('^');
                i += 1;
            }
            continue;
        }
        if c == '{'
            && let Some(len) = quantifier_len(&chars, i)
        {
            out.extend(&chars[i..i + len]);
            i += len;
            continue;
        }
        if c == '{' && chars.get(i + 1) == Some(&',') {
            // `{,n}`: Java and Python read it as `{0,n}`.
            let mut j = i + 2;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            if j > i + 2 && chars.get(j) == Some(&'}') {
                out.push_str("{0,");
                out.extend(&chars[i + 2..j]);
                out.push('}');
                i = j + 1;
                continue;
            }
        }
        if c == '{' || c == '}' {
            // Not a quantifier: a literal brace to Java and PCRE, an error to ECMA-262 (u).
            out.push('\\');
        }
        out.push(c);
        i += 1;
    }
    (out != pattern).then_some(out)
}

/// A `\uXXXX` escape at `i` naming a surrogate, or a range of two of them: its length, and
/// whether it only names surrogates (so can go).
fn surrogates(chars: &[char], i: usize) -> Option<(usize, bool)> {
    let unit = |at: usize| -> Option<u32> {
        if chars.get(at) != Some(&'\\') || chars.get(at + 1) != Some(&'u') {
            return None;
        }
        let hex: String = chars.get(at + 2..at + 6)?.iter().collect();
        u32::from_str_radix(&hex, 16).ok()
    };
    let is_surrogate = |u: u32| (0xD800..=0xDFFF).contains(&u);
    let first = unit(i)?;
    if chars.get(i + 6) == Some(&'-')
        && let Some(last) = unit(i + 7)
    {
        return Some((13, is_surrogate(first) && is_surrogate(last)));
    }
    Some((6, is_surrogate(first)))
}

/// The length of a quantifier `{n}`, `{n,}` or `{n,m}` starting at `start`.
fn quantifier_len(chars: &[char], start: usize) -> Option<usize> {
    let mut j = start + 1;
    let digits = |j: &mut usize| {
        let from = *j;
        while *j < chars.len() && chars[*j].is_ascii_digit() {
            *j += 1;
        }
        *j > from
    };
    if !digits(&mut j) {
        return None;
    }
    if chars.get(j) == Some(&',') {
        j += 1;
        digits(&mut j);
    }
    (chars.get(j) == Some(&'}')).then_some(j + 1 - start)
}

/// `{name}` at `start`: the name and the length of `{name}`.
fn braced(chars: &[char], start: usize) -> Option<(String, usize)> {
    if chars.get(start) != Some(&'{') {
        return None;
    }
    let end = chars[start..].iter().position(|c| *c == '}')? + start;
    Some((chars[start + 1..end].iter().collect(), end - start + 1))
}

fn next_is_class_escape(chars: &[char], i: usize) -> bool {
    chars.get(i) == Some(&'\\') && chars.get(i + 1).is_some_and(|n| matches!(n, 'w' | 'W' | 'd' | 'D' | 's' | 'S'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_idioms_get_their_ecma_spelling() {
        assert_eq!(to_ecma(r"\A[a-z]+\Z").as_deref(), Some(r"^[a-z]+$"));
        assert_eq!(to_ecma(r"\p{XDigit}{8}").as_deref(), Some(r"[0-9A-Fa-f]{8}"));
        assert_eq!(to_ecma(r"^[\p{XDigit}:]*$").as_deref(), Some(r"^[0-9A-Fa-f:]*$"));
        assert_eq!(to_ecma(r"^[\w-.+]+@[\w-.+]+$").as_deref(), Some(r"^[\w\-.+]+@[\w\-.+]+$"));
        assert_eq!(to_ecma(r"^[a-z0-9\s-_]+$").as_deref(), Some(r"^[a-z0-9\s\-_]+$"));
        assert_eq!(to_ecma(r"[^/:|\000-\037]+").as_deref(), Some(r"[^/:|\x00-\x1F]+"));
        assert_eq!(to_ecma(r"1[0-9]{,2}").as_deref(), Some(r"1[0-9]{0,2}"));
        assert_eq!(
            to_ecma(r"[\u0020-\uD7FF\uE000-\uFFFD\uD800\uDBFF-\uDC00\uDFFF\t]*").as_deref(),
            Some(r"[\u0020-\uD7FF\uE000-\uFFFD\t]*")
        );
        assert_eq!(to_ecma(r"^(?:{[0-9]{4}}|x{2,})$").as_deref(), Some(r"^(?:\{[0-9]{4}\}|x{2,})$"));
        // Ranges stay ranges; valid ECMA-262 is left alone.
        assert_eq!(to_ecma(r"^[a-z\-]+-[0-9]$"), None);
        assert_eq!(to_ecma(r"^\d{3}-\d{4}$"), None);
    }

    #[test]
    fn translations_compile_and_match_the_same_strings() {
        for (pattern, yes, no) in [
            (r"\A\p{XDigit}{4}\z", "0aF9", "0aG9"),
            (r"^[\w-.]+$", "a-b.c", "a b"),
            (r"^[\x20-\x7e]{,3}$", "abc", "abcd"),
        ] {
            let ecma = to_ecma(pattern).unwrap_or_else(|| pattern.to_owned());
            let v = jsonschema::validator_for(&serde_json::json!({"pattern": ecma})).unwrap();
            assert!(v.is_valid(&serde_json::json!(yes)), "{ecma} should match {yes}");
            assert!(!v.is_valid(&serde_json::json!(no)), "{ecma} should not match {no}");
        }
    }
}
