//! build.rs integration: generate from a build script into `OUT_DIR`, with Cargo told which
//! inputs to watch (the spec, every file its `$ref`s reach, the overlay and the JSON Schema files
//! it names). A thin wrapper over [`crate::compile`]; warnings become `cargo:warning` lines, and
//! errors fail the build with each diagnostic's file:line:col.
//!
//! A native build (see docs/native.md):
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), mcp_gen::Report> {
//!     mcp_gen::build_support::Builder::new("openapi.yaml").overlay("overlay.yaml").native().run()?;
//!     Ok(())
//! }
//! // src/main.rs (or any module): the types, the `Handlers` trait and `SERVER`.
//! // mcp_gen_runtime::include_native!();
//! ```

use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, Report, Severity, codes};
use crate::{Input, Output, Settings, compile};

#[derive(Debug, Clone)]
pub struct Builder {
    spec: PathBuf,
    overlay: Option<PathBuf>,
    settings: Settings,
    out_dir: Option<PathBuf>,
}

impl Builder {
    pub fn new(spec: impl Into<PathBuf>) -> Self {
        Builder { spec: spec.into(), overlay: None, settings: Settings::default(), out_dir: None }
    }

    pub fn overlay(mut self, overlay: impl Into<PathBuf>) -> Self {
        self.overlay = Some(overlay.into());
        self
    }

    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }

    /// A native build: the crate implements the tools itself (the generated `Handlers` trait);
    /// tools the overlay declares `run: proxy` still call the upstream. Writes `native.rs` and
    /// the catalogs it embeds, for `mcp_gen_runtime::include_native!()`.
    pub fn native(mut self) -> Self {
        self.settings.native = true;
        self.settings.module_only = true;
        self
    }

    /// Where to write (default: `$OUT_DIR/mcp-gen`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Generates and writes the files, printing `cargo:rerun-if-changed` for every input and
    /// `cargo:warning` for each warning. On errors nothing is written, and the returned report
    /// prints the located diagnostics.
    pub fn run(self) -> Result<Output, Report> {
        let dir =
            match self.out_dir.clone().or_else(|| std::env::var_os("OUT_DIR").map(|d| Path::new(&d).join("mcp-gen"))) {
                Some(d) => d,
                None => {
                    return Err(Diagnostic::error(codes::IO, "OUT_DIR is not set")
                        .with_help("call this from a build script, or set the directory with `.out_dir(..)`")
                        .into());
                }
            };
        let input = Input::files(&self.spec, self.overlay.clone());
        let compiled = compile(&input, &self.settings);
        // Watched even when they failed to read: creating a missing `$ref` target reruns.
        for p in &compiled.inputs {
            println!("cargo:rerun-if-changed={}", p.display());
        }
        let output = compiled.result?;
        for d in output.diagnostics.diagnostics.iter().filter(|d| d.severity == Severity::Warning) {
            for line in d.to_string().lines() {
                println!("cargo:warning={line}");
            }
        }
        crate::write::write(&dir, &output.files).map_err(|e| {
            Report::from(
                Diagnostic::error(codes::IO, format!("cannot write {}: {e}", dir.display()))
                    .with_help("check that OUT_DIR is writable"),
            )
        })?;
        Ok(output)
    }
}
