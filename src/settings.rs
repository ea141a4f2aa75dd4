//! Settings for one generation: the knobs a front end (CLI, build.rs, tests) may turn. Plain data;
//! reading the environment or the filesystem to fill them is the front end's business.

/// How the generated crate depends on mcp-gen-runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeDep {
    /// A path dependency, written into Cargo.toml as given (relative to the generated crate).
    Path(String),
    /// A registry dependency on this version.
    Version(String),
}

impl Default for RuntimeDep {
    fn default() -> Self {
        RuntimeDep::Version(env!("CARGO_PKG_VERSION").to_owned())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Short server name (the crate is `<name>-mcp`); the overlay's `server.name` wins.
    pub name: Option<String>,
    pub runtime: RuntimeDep,
    /// Produce the catalog only (no crate files): what `mcp-gen catalog` needs.
    pub catalog_only: bool,
    /// A native build: typed argument and result types, a handler trait the crate implements,
    /// and the server declarations, as one module a crate includes (build.rs) — instead of a
    /// proxy server crate. Tools the overlay declares `run: proxy` still call the upstream.
    pub native: bool,
    /// A native build's module and catalogs only, no crate around them (what build.rs includes).
    pub module_only: bool,
}

impl Settings {
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    pub fn with_runtime(mut self, runtime: RuntimeDep) -> Self {
        self.runtime = runtime;
        self
    }

    pub fn with_native(mut self, native: bool) -> Self {
        self.native = native;
        self
    }

    pub fn with_catalog_only(mut self, catalog_only: bool) -> Self {
        self.catalog_only = catalog_only;
        self
    }
}
