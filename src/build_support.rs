//! build.rs integration: generate from a build script into `OUT_DIR`, with Cargo told which
//! inputs to watch. A thin wrapper over [`crate::generate`]; diagnostics become `cargo:warning`
//! lines so they show in the user's build output.
//!
//! ```no_run
//! // in build.rs's main:
//! let out = mcp_gen::build_support::Builder::new("openapi.yaml")
//!     .overlay("overlay.yaml")
//!     .run()
//!     .unwrap_or_else(|report| panic!("mcp-gen failed:\n{report}"));
//! // `$OUT_DIR/mcp-gen/tools.json` now holds the catalog; `out.catalog` the same as data.
//! assert!(!out.catalog.tools.is_empty());
//! ```

use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, Report, codes};
use crate::{Input, Output, Settings, generate};

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

    /// Where to write (default: `$OUT_DIR/mcp-gen`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Generates and writes the files, printing `cargo:rerun-if-changed` for the inputs and
    /// `cargo:warning` for each diagnostic.
    pub fn run(self) -> Result<Output, Report> {
        for p in std::iter::once(&self.spec).chain(self.overlay.as_ref()) {
            println!("cargo:rerun-if-changed={}", p.display());
        }
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
        let result = generate(&input, &self.settings);
        let report = match &result {
            Ok(o) => &o.diagnostics,
            Err(r) => r,
        };
        for d in &report.diagnostics {
            for line in d.to_string().lines() {
                println!("cargo:warning={line}");
            }
        }
        let output = result?;
        crate::write::write(&dir, &output.files).map_err(|e| {
            Report::from(
                Diagnostic::error(codes::IO, format!("cannot write {}: {e}", dir.display()))
                    .with_help("check that OUT_DIR is writable"),
            )
        })?;
        Ok(output)
    }
}
