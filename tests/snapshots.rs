//! Snapshot tests: every `specs/<name>/` generates exactly the files in `generated/<name>/`
//! (stale, missing and stray files all fail). Bless with `cargo run -- bless`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use mcp_gen::write::Drift;
use mcp_gen::{Input, SourceInput, generate};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn generated_crates_match_their_specs() {
    let specs = mcp_gen::cli::repo_specs(&repo()).unwrap();
    assert!(specs.len() >= 2, "expected the example specs under specs/");
    let mut failures = Vec::new();
    for spec in &specs {
        let output = generate(&spec.input, &spec.settings)
            .unwrap_or_else(|r| panic!("specs/{} does not compile:\n{r}", spec.name));
        let label = format!("generated/{}", spec.name);
        let drifts = mcp_gen::write::diff(&spec.generated, &output.files, &label).unwrap();
        failures.extend(drifts.iter().map(|d: &Drift| format!("{label}: {d}")));
    }
    assert!(
        failures.is_empty(),
        "{}\n\nIf the change is intended, run `cargo run -- bless` and commit the result.",
        failures.join("\n")
    );
}

/// T5: the same input gives byte-identical output, and reordering the document (paths,
/// methods, components) does not change the catalog or the code.
#[test]
fn output_does_not_depend_on_document_order() {
    let path = repo().join("specs/petstore/openapi.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let input = Input {
        spec: SourceInput::Text { name: "openapi.yaml".into(), text: text.clone() },
        overlay: None,
        versions: Vec::new(),
    };
    let first = generate(&input, &Default::default()).unwrap();
    let again = generate(&input, &Default::default()).unwrap();
    assert_eq!(first.files, again.files);
    // The same document as JSON, through the compiler's own YAML reader.
    let doc = mcp_gen::load::yaml::parse(&text).unwrap().value;
    let reversed = reverse_maps(&doc, 0);
    let original = Input {
        spec: SourceInput::Text { name: "openapi.json".into(), text: doc.to_string() },
        overlay: None,
        versions: Vec::new(),
    };
    let shuffled = Input {
        spec: SourceInput::Text { name: "openapi.json".into(), text: reversed.to_string() },
        overlay: None,
        versions: Vec::new(),
    };
    let a = generate(&original, &Default::default()).unwrap();
    let b = generate(&shuffled, &Default::default()).unwrap();
    let names = |o: &mcp_gen::Output| o.catalog.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b));
    for (file, text) in &a.files {
        assert_eq!(Some(text), b.files.get(file), "{file} changed when the document was reordered");
    }
    assert_eq!(a.files.len(), b.files.len());
}

/// Reverses the key order of the maps that hold paths, methods and named components. Property
/// order inside schemas is left alone: it follows the document by design, as the author wrote it.
fn reverse_maps(v: &serde_json::Value, depth: usize) -> serde_json::Value {
    match v {
        serde_json::Value::Object(map) if depth < 3 => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.reverse();
            serde_json::Value::Object(
                entries.into_iter().map(|(k, v)| (k.clone(), reverse_maps(v, depth + 1))).collect(),
            )
        }
        other => other.clone(),
    }
}
