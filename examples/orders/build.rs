//! Compiles the service's API description and tool intents into its MCP contract: typed
//! arguments and results, the `Handlers` trait `src/tools.rs` implements, and the server's
//! declarations, written to `$OUT_DIR/mcp-gen/` for `mcp_gen_runtime::include_native!()`.
//! Cargo reruns this when the spec, a file it `$ref`s, the overlay or a schema file changes;
//! an error in any of them fails the build with its file:line:col.

fn main() -> Result<(), mcp_gen::Report> {
    mcp_gen::build_support::Builder::new("spec/openapi.yaml").overlay("spec/overlay.yaml").native().run()?;
    Ok(())
}
