//! Exposure modes and client profiles (CONTRACT T6): how many tools each model provider accepts
//! in one request and chooses well from, and the exposure that fits a catalog to it. The linter
//! holds endpoints to a profile (`mcp-gen lint --client`); `mcp-gen plan` recommends a mode.

use crate::overlay::Exposure;

/// Tools the `discover` exposure lists: `search_tools`, `describe_tools`, `call_tool`.
pub const DISCOVER_TOOLS: usize = 3;

/// One provider's limits on the tools of one request.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    pub name: &'static str,
    /// Most tools one request may carry; `None` where the provider states none.
    pub max_tools: Option<usize>,
    /// The number of tools past which the provider's own guidance says selection degrades.
    pub recommended: usize,
    /// The rule a tool's name must follow, as the provider writes it.
    pub name_rule: &'static str,
    pub valid_name: fn(&str) -> bool,
}

/// `^[a-zA-Z0-9_-]{1,64}$`.
fn word_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A letter or underscore, then letters, digits, `_ . : -`; at most 64.
fn gemini_name(name: &str) -> bool {
    name.len() <= 64
        && name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

/// The known profiles. OpenAI refuses a request of more than 128 tools
/// (`array_above_max_length`) and advises fewer than 20 at the start of a turn; Anthropic states
/// no cap and advises tool search past a few dozen tools; Gemini's guidance is 10 to 20 active
/// tools.
pub const PROFILES: &[Profile] = &[
    Profile {
        name: "openai",
        max_tools: Some(128),
        recommended: 20,
        name_rule: "^[a-zA-Z0-9_-]{1,64}$",
        valid_name: word_name,
    },
    Profile {
        name: "anthropic",
        max_tools: None,
        recommended: 30,
        name_rule: "^[a-zA-Z0-9_-]{1,64}$",
        valid_name: word_name,
    },
    Profile {
        name: "gemini",
        max_tools: None,
        recommended: 20,
        name_rule: "a letter or underscore, then letters, digits, _ . : -, at most 64",
        valid_name: gemini_name,
    },
];

pub fn profile(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

pub fn names() -> Vec<&'static str> {
    PROFILES.iter().map(|p| p.name).collect()
}

/// The exposure to serve `n` tools with for `profile`: flat while the main endpoint stays
/// within the provider's advice, discover past it.
pub fn recommend(n: usize, profile: &Profile) -> (Exposure, String) {
    if n <= profile.recommended {
        (
            Exposure::Flat,
            format!("{n} tools: within the {} a model of {} chooses well from", profile.recommended, profile.name),
        )
    } else {
        (
            Exposure::Discover,
            format!(
                "{n} tools: past the {} a model of {} chooses well from; discover lists {DISCOVER_TOOLS} that reach them all",
                profile.recommended, profile.name
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_held_to_each_provider_s_rule() {
        assert!(word_name("create_issue-2") && !word_name("repos.get") && !word_name(&"a".repeat(65)));
        assert!(gemini_name("_x.y:z-1") && !gemini_name("1x") && !gemini_name(""));
    }

    #[test]
    fn every_profile_is_found_by_its_name() {
        for p in PROFILES {
            assert_eq!(profile(p.name).map(|f| f.name), Some(p.name));
            assert!(p.max_tools.is_none_or(|m| m >= p.recommended));
        }
        assert!(profile("mystery").is_none());
    }
}
