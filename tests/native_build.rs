//! The build.rs front end in a real build (issue 29): a copy of the orders example built by cargo
//! reruns its build script when the spec, a file the spec `$ref`s, the overlay or a JSON Schema
//! file changes, and not otherwise; a broken spec fails the build with the diagnostic located.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use support::repo;

/// The example as a package of its own (same sources, absolute path dependencies).
fn copy_example(dir: &Path) {
    let src = repo().join("examples/orders");
    std::fs::create_dir_all(dir).unwrap();
    for entry in ["build.rs", "src", "spec", "benches"] {
        copy(&src.join(entry), &dir.join(entry));
    }
    let manifest = std::fs::read_to_string(src.join("Cargo.toml")).unwrap();
    // Named apart from the workspace's example, whose binary other tests run from the same target.
    let manifest = manifest
        .replace("name = \"orders-service\"", "name = \"orders-service-copy\"")
        .replace("rust-version.workspace = true", "")
        .replace("version.workspace = true", "version = \"0.1.0\"")
        .replace("edition.workspace = true", "edition = \"2024\"")
        .replace("license.workspace = true", "")
        .replace("[lints]\nworkspace = true\n", "")
        .replace("\"../../runtime\"", &format!("{:?}", repo().join("runtime")))
        .replace("\"../..\"", &format!("{:?}", repo()));
    std::fs::write(dir.join("Cargo.toml"), format!("{manifest}\n[workspace]\n")).unwrap();
    std::fs::copy(repo().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
}

fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            copy(&e.path(), &to.join(e.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

/// `cargo build -v` in `dir`: success, and cargo's stderr.
fn build(dir: &Path) -> (bool, String) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    // The workspace's target directory: the dependencies are already built there.
    let out = Command::new(cargo)
        .args(["build", "-v", "--color", "never"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", repo().join("target"))
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Whether this build ran the package's build script (not merely a fresh one).
fn ran_build_script(log: &str) -> bool {
    log.lines()
        .any(|l| l.contains("Running `") && l.contains("orders-service-copy-") && l.contains("build-script-build"))
}

/// Marks `file` changed without changing it.
fn touch(file: &Path) {
    let later = SystemTime::now() + Duration::from_secs(2);
    std::fs::File::options().write(true).open(file).unwrap().set_modified(later).unwrap();
}

#[test]
fn the_build_script_watches_every_input_and_fails_with_a_location() {
    let tmp = tempfile::tempdir().unwrap();
    let dir: PathBuf = tmp.path().join("orders");
    copy_example(&dir);

    let (ok, log) = build(&dir);
    assert!(ok, "the example builds:\n{log}");
    assert!(ran_build_script(&log), "the first build runs the build script:\n{log}");
    let (ok, log) = build(&dir);
    assert!(ok && !ran_build_script(&log), "nothing changed, nothing reruns:\n{log}");

    // The spec, a file it reaches through `$ref`, the overlay, and a schema file it names.
    for input in
        ["spec/openapi.yaml", "spec/schemas/money.yaml", "spec/overlay.yaml", "spec/schemas/shipping-quote.json"]
    {
        touch(&dir.join(input));
        let (ok, log) = build(&dir);
        assert!(ok, "{input}:\n{log}");
        assert!(ran_build_script(&log), "changing {input} reruns the build script:\n{log}");
    }

    // A reference to a schema that is not there: the build fails, naming the place.
    let spec = dir.join("spec/openapi.yaml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let line = text.lines().position(|l| l.contains("#/components/schemas/Line\" }")).unwrap() + 1;
    std::fs::write(&spec, text.replacen("#/components/schemas/Line\" }", "#/components/schemas/Lien\" }", 1)).unwrap();
    let (ok, log) = build(&dir);
    assert!(!ok, "a broken spec fails the build");
    assert!(log.contains(&format!("spec/openapi.yaml:{line}:")), "the error is located at line {line}:\n{log}");
    assert!(log.contains("Lien"), "{log}");
    std::fs::write(&spec, &text).unwrap();

    // Broken YAML in a file the spec `$ref`s is located in that file.
    let money = dir.join("spec/schemas/money.yaml");
    std::fs::write(&money, "Currency:\n  type: string\n  enum: [EUR, TRY\n").unwrap();
    let (ok, log) = build(&dir);
    assert!(!ok, "a broken referenced file fails the build");
    assert!(log.contains("spec/schemas/money.yaml:"), "the error names the referenced file:\n{log}");
}
