"""Writes a stub binary crate implementing every handler of a generated native crate (for build timing)."""
import re, sys, os
src, out, libname = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(os.path.join(src, "native.rs")).read()
trait = text[text.index("pub trait Handlers"):]
trait = trait[:trait.index("\n}\n")]
methods = re.findall(r"fn (\w+)\(\s*&self,\s*cx: &mut mcp_gen_runtime::native::Context,\s*args: (types::\w+),\s*\) -> impl ::std::future::Future<\s*Output = ::std::result::Result<\s*(.*?),\s*mcp_gen_runtime::error::ToolError,?\s*>,\s*> \+ Send;", trait, re.S)
assert methods, "no methods parsed"
crate = libname.replace("-", "_")
body = []
for name, a, r in methods:
    body.append(f"    async fn {name}(&self, _cx: &mut Context, _args: {crate}::{a.strip()}) -> Result<{r.strip().replace('types::', crate + '::types::')}, ToolError> {{ Err(ToolError::new(\"not_implemented\", \"{name}\", \"none\")) }}")
os.makedirs(os.path.join(out, "src"), exist_ok=True)
open(os.path.join(out, "Cargo.toml"), "w").write(f"""[package]
name = "{libname}-stub"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
{libname} = {{ path = "{os.path.abspath(src)}" }}
mcp-gen-runtime = {{ path = "{os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'runtime'))}" }}

[workspace]
""")
open(os.path.join(out, "src", "main.rs"), "w").write(f"""use mcp_gen_runtime::error::ToolError;
use mcp_gen_runtime::native::Context;

struct Stub;

impl {crate}::Handlers for Stub {{
{chr(10).join(body)}
}}

fn main() -> std::process::ExitCode {{
    {crate}::main_with(Stub)
}}
""")
print(len(methods), "methods")
