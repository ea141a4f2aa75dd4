//! The book (`docs/`, mdBook) and the README stay true: the overlay reference is what the
//! overlay's JSON Schema says, every chapter is in the table of contents, every Markdown link
//! and every repository path the book or the README names resolves, and the README stays a
//! short guide with the two set-up commands first.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

fn book() -> Vec<PathBuf> {
    let mut files = Vec::new();
    markdown_files(&repo().join("docs"), &mut files);
    files.sort();
    files
}

#[test]
fn the_overlay_reference_is_written_from_the_schema() {
    let checked_in = std::fs::read_to_string(repo().join("docs/reference/overlay.md")).unwrap();
    assert!(
        checked_in == mcp_gen::overlay_reference::markdown(),
        "docs/reference/overlay.md is stale: `cargo run -q -- schema overlay --markdown > docs/reference/overlay.md`"
    );
}

#[test]
fn the_naming_reference_is_written_from_the_rule_table() {
    let checked_in = std::fs::read_to_string(repo().join("docs/reference/naming.md")).unwrap();
    assert!(
        checked_in == mcp_gen::plan::naming::rules_markdown(),
        "docs/reference/naming.md is stale: `cargo run -q -- schema naming > docs/reference/naming.md`"
    );
}

#[test]
fn every_chapter_is_in_the_table_of_contents() {
    let summary = std::fs::read_to_string(repo().join("docs/SUMMARY.md")).unwrap();
    for file in book() {
        let rel = file.strip_prefix(repo().join("docs")).unwrap().to_string_lossy().replace('\\', "/");
        if rel != "SUMMARY.md" {
            assert!(summary.contains(&format!("]({rel})")), "docs/{rel} is not in docs/SUMMARY.md");
        }
    }
}

/// `[text](target)` links, and paths in backticks that name a file or directory of the
/// repository (`src/diff.rs`, `docs/native.md`, `tests/fixtures/`).
fn references(text: &str) -> (Vec<String>, Vec<String>) {
    let mut links = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        links.push(after[..end].to_owned());
        rest = &after[end..];
    }
    let roots = [
        "src/",
        "runtime/",
        "tests/",
        "docs/",
        "scripts/",
        "bench/",
        "specs/",
        "generated/",
        "examples/",
        "schemas/",
        "templates/",
        "fuzz/",
        ".ci/",
    ];
    let paths = text
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| roots.iter().any(|r| s.starts_with(r)))
        .filter(|s| !s.contains(['<', '*', ' ', '…', '{']))
        .map(|s| s.trim_end_matches([',', '.', ':']).to_owned())
        .collect();
    (links, paths)
}

#[test]
fn every_link_and_named_path_resolves() {
    let mut broken = Vec::new();
    let mut files = book();
    files.push(repo().join("README.md"));
    files.push(repo().join("CHANGELOG.md"));
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let (links, paths) = references(&text);
        for link in links {
            if link.starts_with("http://") || link.starts_with("https://") || link.starts_with("mailto:") {
                continue;
            }
            let (target, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target_file = if target.is_empty() { file.clone() } else { file.parent().unwrap().join(target) };
            if !target_file.exists() {
                broken.push(format!("{}: link `{link}`", file.display()));
            } else if !anchor.is_empty() {
                let body = std::fs::read_to_string(&target_file).unwrap_or_default();
                let found = body.lines().filter(|l| l.starts_with('#')).any(|h| {
                    let slug: String = h
                        .trim_start_matches('#')
                        .trim()
                        .to_lowercase()
                        .chars()
                        .filter_map(|c| {
                            if c.is_alphanumeric() || c == '-' || c == '_' {
                                Some(c)
                            } else if c == ' ' {
                                Some('-')
                            } else {
                                None
                            }
                        })
                        .collect();
                    slug == anchor
                });
                if !found {
                    broken.push(format!("{}: no heading for `#{anchor}` in {}", file.display(), target_file.display()));
                }
            }
        }
        for path in paths {
            if !repo().join(&path).exists() {
                broken.push(format!("{}: `{path}` does not exist", file.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken references:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_a_short_guide_with_the_two_commands_first() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(readme.lines().count() <= 150, "README.md has {} lines (at most 150)", readme.lines().count());
    let blocks: Vec<&str> = readme.split("```").skip(1).step_by(2).collect();
    assert!(blocks[0].contains("cargo run -q -- build") && blocks[0].contains("serve"), "first: generate and serve");
    assert_eq!(blocks[1].trim(), "sh\ncargo test --workspace", "second: the test command");
    let ci = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    assert!(ci.lines().any(|l| l.trim() == "cargo test --workspace"), ".ci/run runs the README's test command");
}
