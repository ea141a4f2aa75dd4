//! Multi-file descriptions: every `$ref` to another file (`schemas/pet.yaml#/Pet`,
//! `./paths/pets.yaml`) is read here — the load stage is the only one that reads files — and
//! the referenced documents are embedded under `/x-mcp-gen-files/<key>` of the main document,
//! with every reference (in the main document and in the embedded ones, relative to the file
//! that holds it) rewritten to a local pointer. Later stages see one self-contained document.
//! Network references are never fetched: they are left for the resolver, which says so.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{SourceInput, Sources, read_value};
use crate::diag::{Diagnostic, Report, codes, escape_token, join_pointer};

/// What the load stage writes for a reference to a file it could not read (and reported).
pub const UNRESOLVED: &str = "#/x-mcp-gen-unresolved";

/// Where embedded documents live in the bundled main document.
pub const FILES_KEY: &str = "x-mcp-gen-files";

/// Keys whose values are data, never references.
const DATA: &[&str] = &["example", "default", "enum", "const", "value"];

/// Whether `v` holds a `$ref` to another file (a quick pass before the real one).
pub fn has_file_refs(v: &Value) -> bool {
    match v {
        Value::Object(map) => map.iter().any(|(k, child)| match (k.as_str(), child) {
            ("$ref", Value::String(r)) => !r.starts_with('#'),
            (k, _) if DATA.contains(&k) || k.starts_with("x-") => false,
            _ => has_file_refs(child),
        }),
        Value::Array(items) => items.iter().any(has_file_refs),
        _ => false,
    }
}

/// An embedded file: its key under [`FILES_KEY`] and its display name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Embedded {
    pub key: String,
    pub file: String,
}

struct Bundler<'a> {
    sources: &'a mut Sources,
    report: &'a mut Report,
    /// Canonical path → key.
    keys: BTreeMap<PathBuf, String>,
    embedded: Vec<(String, String, Value)>,
    /// Files that could not be read: their own errors are reported once, at the first reference.
    failed: std::collections::BTreeSet<PathBuf>,
}

/// Embeds the files `main` refers to. `path` is the main document's file (None for text input:
/// then file references are reported, relative to nothing).
pub fn bundle(
    main: &mut Value,
    file: &str,
    path: Option<&Path>,
    sources: &mut Sources,
    report: &mut Report,
) -> Vec<Embedded> {
    let mut b = Bundler { sources, report, keys: BTreeMap::new(), embedded: Vec::new(), failed: Default::default() };
    let dir = path.and_then(Path::parent).map(Path::to_path_buf);
    b.rewrite(main, dir.as_deref(), file, "", "");
    // Embedded files may refer to further files; each file is read once.
    let mut i = 0;
    while i < b.embedded.len() {
        let (key, name, mut value) =
            (b.embedded[i].0.clone(), b.embedded[i].1.clone(), std::mem::take(&mut b.embedded[i].2));
        let own_path = b.keys.iter().find(|(_, k)| **k == key).map(|(p, _)| p.clone());
        let prefix = format!("/{FILES_KEY}/{}", escape_token(&key));
        b.rewrite(&mut value, own_path.as_deref().and_then(Path::parent), &name, &prefix, "");
        b.embedded[i].2 = value;
        i += 1;
    }
    if b.embedded.is_empty() {
        return Vec::new();
    }
    let mut files = Map::new();
    let mut out = Vec::new();
    for (key, name, value) in b.embedded {
        files.insert(key.clone(), value);
        out.push(Embedded { key, file: name });
    }
    if let Value::Object(root) = main {
        root.insert(FILES_KEY.to_owned(), Value::Object(files));
    }
    out
}

impl Bundler<'_> {
    /// Rewrites the references inside `v` (which lives in `file`, whose own references resolve
    /// against `dir`, and sits at `prefix` in the bundle). `at` is its pointer within `file`.
    fn rewrite(&mut self, v: &mut Value, dir: Option<&Path>, file: &str, prefix: &str, at: &str) {
        match v {
            Value::Object(map) => {
                for (key, child) in map.iter_mut() {
                    let here = join_pointer(at, key);
                    if key == "$ref" {
                        if let Value::String(r) = child
                            && let Some(new) = self.reference(r, dir, file, prefix, &here)
                        {
                            *r = new;
                        }
                    } else if !DATA.contains(&key.as_str()) && !key.starts_with("x-") {
                        self.rewrite(child, dir, file, prefix, &here);
                    }
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    self.rewrite(item, dir, file, prefix, &format!("{at}/{i}"));
                }
            }
            _ => {}
        }
    }

    /// The bundled form of one reference, or None to leave it as it is.
    fn reference(&mut self, r: &str, dir: Option<&Path>, file: &str, prefix: &str, at: &str) -> Option<String> {
        if let Some(fragment) = r.strip_prefix('#') {
            // Local to the file that holds it.
            return (!prefix.is_empty()).then(|| format!("#{prefix}{fragment}"));
        }
        if r.contains("://") {
            return None;
        }
        let (target, fragment) = r.split_once('#').unwrap_or((r, ""));
        let decoded = percent_encoding::percent_decode_str(target).decode_utf8_lossy().into_owned();
        let Some(dir) = dir else {
            self.report.push(
                Diagnostic::error(
                    codes::EXTERNAL_REF,
                    format!("`$ref: {r}` points to another file, but this document has no directory"),
                )
                .at(file, at)
                .with_help("pass the document as a file so relative references can be read"),
            );
            return Some(UNRESOLVED.to_owned());
        };
        let path = lexical(&dir.join(&decoded));
        let key = match self.keys.get(&canonical(&path)) {
            Some(k) => k.clone(),
            None => {
                let unread = |b: &mut Self| {
                    // Say where the reference is (the file's own errors follow, once).
                    b.report.push(
                        Diagnostic::error(codes::UNKNOWN_REF, format!("`$ref: {r}` names a file that cannot be read"))
                            .at(file, at)
                            .with_help(format!("check that {} exists and is YAML or JSON", path.display())),
                    );
                    Some(UNRESOLVED.to_owned())
                };
                if self.failed.contains(&path) {
                    return unread(self);
                }
                let input = SourceInput::Path(path.clone());
                let mut own = Report::new();
                let Some((name, value)) = read_value(&input, self.sources, &mut own) else {
                    self.failed.insert(path.clone());
                    let out = unread(self);
                    self.report.extend(own.diagnostics);
                    return out;
                };
                self.report.extend(own.diagnostics);
                let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                let key = self.unique_key(&stem);
                self.keys.insert(canonical(&path), key.clone());
                self.embedded.push((key.clone(), name, value));
                key
            }
        };
        let fragment = percent_encoding::percent_decode_str(fragment).decode_utf8_lossy().into_owned();
        Some(format!("#/{FILES_KEY}/{}{fragment}", escape_token(&key)))
    }

    fn unique_key(&self, stem: &str) -> String {
        let base = match crate::text::def_key(stem) {
            s if s.is_empty() => "file".to_owned(),
            s => s,
        };
        crate::text::unique(&base, "_", |k| self.embedded.iter().any(|(key, _, _)| key == k))
    }
}

/// `a/./b/../c` as `a/c`, without touching the filesystem, so a file is named in diagnostics
/// as a person would write it.
fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.components().next_back(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}
