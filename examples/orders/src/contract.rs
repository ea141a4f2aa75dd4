//! The MCP contract build.rs compiled from `spec/`: `types` (every tool's arguments and result),
//! the `Handlers` trait, `SERVER`, `server(handlers)` and `main_with(handlers)`.

#![allow(missing_docs)]

mcp_gen_runtime::include_native!();
