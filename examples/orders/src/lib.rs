//! orders-service as a library: its order logic, HTTP API, MCP contract and tools, for the
//! binary (`main.rs`), the tests and the overhead benchmark.

pub mod api;
pub mod contract;
pub mod crash;
pub mod orders;
pub mod tools;
