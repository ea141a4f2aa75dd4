//! The `mcp-gen` binary; everything lives in the library (`mcp_gen::cli`).

fn main() -> std::process::ExitCode {
    mcp_gen::cli::main()
}
