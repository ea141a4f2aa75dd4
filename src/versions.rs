//! Contract versions served side by side (CONTRACT V5): when a spec change breaks tools, the crate
//! can keep serving the earlier contract at `/mcp/v1` beside the current one at `/mcp/v2`. A
//! kept version is its inputs, pinned into the crate under `versions/<name>/` (the spec, bundled
//! or as it was, and its overlay); every build compiles them again beside the current spec, so
//! the kept tools are declared with today's runtime and call today's upstream with their own
//! mapping, and each version validates against its own schemas.

use std::path::{Path, PathBuf};

use crate::load::SourceInput;

/// One kept contract version: its name (`v1`) and its pinned inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub name: String,
    pub spec: SourceInput,
    pub overlay: Option<SourceInput>,
}

/// Where a crate keeps its earlier versions.
pub const DIR: &str = "versions";

/// A version name: `v` and a number from 1 (what `/mcp/<name>` serves).
pub fn valid_name(name: &str) -> bool {
    name.strip_prefix('v')
        .is_some_and(|n| !n.is_empty() && !n.starts_with('0') && n.chars().all(|c| c.is_ascii_digit()))
}

fn number(name: &str) -> u64 {
    name.trim_start_matches('v').parse().unwrap_or(0)
}

/// The current contract's name: one past the newest kept version (`v1` when none is kept).
pub fn current<'a>(kept: impl IntoIterator<Item = &'a str>) -> String {
    format!("v{}", kept.into_iter().map(number).max().unwrap_or(0) + 1)
}

/// The versions kept in the crate at `dir` (`dir/versions/v<N>/`), oldest first.
pub fn discover(dir: &Path) -> Result<Vec<Kept>, String> {
    let root = dir.join(DIR);
    let entries = match std::fs::read_dir(&root) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", root.display())),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", root.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !entry.path().is_dir() {
            continue;
        }
        if !valid_name(&name) {
            return Err(format!(
                "{}: a kept version is named v1, v2, …; rename or remove `{name}`",
                entry.path().display()
            ));
        }
        out.push(inputs(&entry.path(), name)?);
    }
    out.sort_by_key(|k| number(&k.name));
    Ok(out)
}

/// The spec and overlay pinned in one version's directory: `overlay.{yaml,yml,json}` is the
/// overlay, `tools.json` is generated, and the one other YAML or JSON file is the spec.
fn inputs(dir: &Path, name: String) -> Result<Kept, String> {
    let mut spec: Option<PathBuf> = None;
    let mut overlay = None;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for path in files {
        let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if file == "tools.json" || !matches!(ext, "yaml" | "yml" | "json") {
            continue;
        }
        if file.starts_with("overlay.") {
            overlay = Some(SourceInput::Path(path));
        } else if let Some(other) = &spec {
            return Err(format!(
                "{}: two specs ({} and {file}); a kept version holds one spec and its overlay",
                dir.display(),
                other.display()
            ));
        } else {
            spec = Some(path);
        }
    }
    let spec =
        spec.ok_or_else(|| format!("{}: no spec (openapi.yaml or the like) to serve {name} from", dir.display()))?;
    Ok(Kept { name, spec: SourceInput::Path(spec), overlay })
}

/// Pins `spec` (and `overlay`) into the crate at `dir` as version `name`. A version already
/// pinned with other inputs is refused: a served contract never changes under its clients.
pub fn pin(dir: &Path, name: &str, spec: &Path, overlay: Option<&Path>) -> Result<(), String> {
    if !valid_name(name) {
        return Err(format!("--keep-version `{name}`: name versions v1, v2, …"));
    }
    let target = dir.join(DIR).join(name);
    let spec_name = spec.file_name().ok_or_else(|| format!("{} names no file", spec.display()))?;
    let mut copies = vec![(spec.to_path_buf(), target.join(spec_name))];
    if let Some(o) = overlay {
        let ext = o.extension().and_then(|e| e.to_str()).unwrap_or("yaml");
        copies.push((o.to_path_buf(), target.join(format!("overlay.{ext}"))));
    }
    let mut texts = Vec::new();
    for (from, to) in &copies {
        let text = std::fs::read(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
        texts.push((to, text));
    }
    if target.exists() {
        let same = texts.iter().all(|(to, text)| std::fs::read(to).is_ok_and(|t| &t == text));
        if same {
            return Ok(());
        }
        return Err(format!(
            "{} is pinned already with other inputs: a kept version does not change; keep the new contract as another version",
            target.display()
        ));
    }
    std::fs::create_dir_all(&target).map_err(|e| format!("cannot create {}: {e}", target.display()))?;
    for (to, text) in texts {
        std::fs::write(to, text).map_err(|e| format!("cannot write {}: {e}", to.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_numbered_and_the_current_one_follows_the_newest() {
        assert!(valid_name("v1") && valid_name("v12"));
        assert!(!valid_name("v0") && !valid_name("v01") && !valid_name("1") && !valid_name("v") && !valid_name("beta"));
        assert_eq!(current([]), "v1");
        assert_eq!(current(["v1", "v3"]), "v4");
    }

    #[test]
    fn a_pinned_version_is_found_again_and_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let spec = dir.path().join("openapi.yaml");
        let overlay = dir.path().join("o.yaml");
        std::fs::write(&spec, "openapi: 3.0.3\n").unwrap();
        std::fs::write(&overlay, "mcp-gen: 1\n").unwrap();
        let krate = dir.path().join("crate");
        pin(&krate, "v1", &spec, Some(&overlay)).unwrap();
        pin(&krate, "v1", &spec, Some(&overlay)).unwrap();
        let found = discover(&krate).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].spec, SourceInput::Path(krate.join("versions/v1/openapi.yaml")));
        assert_eq!(found[0].overlay, Some(SourceInput::Path(krate.join("versions/v1/overlay.yaml"))));
        std::fs::write(&spec, "openapi: 3.1.0\n").unwrap();
        assert!(pin(&krate, "v1", &spec, None).unwrap_err().contains("pinned already"));
        assert!(pin(&krate, "latest", &spec, None).is_err());
    }
}
