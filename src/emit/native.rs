//! A native build's Rust: one file a crate includes (`mcp_gen_runtime::include_native!()` from
//! build.rs, or `include!` in a crate `mcp-gen build --native` writes) holding the typed
//! arguments and results of every tool, the handler trait the crate implements, the glue that
//! lets the runtime call it, and the server's declarations. Nothing in it is an inner attribute
//! or a `mod x;`, so `include!` takes it anywhere.

use quote::{format_ident, quote};

use super::rust::{decl, docs, handle_decl, header, lit, render, server_decl};
use super::types::Types;
use crate::schema::variant::VariantCatalog;
use crate::schema::{Catalog, Tool};

/// The name of the file, beside `tools.json`.
pub const FILE: &str = "native.rs";

/// The handler method of a tool (its name as a Rust identifier).
fn method(module: &str) -> proc_macro2::Ident {
    format_ident!("{}", module)
}

pub fn native_file(
    catalog: &Catalog,
    variants: &[VariantCatalog],
    modules: &[String],
    types: &Types,
) -> Result<String, String> {
    let native: Vec<(usize, &Tool)> = catalog.tools.iter().enumerate().filter(|(_, t)| t.native).collect();
    let consts: Vec<proc_macro2::Ident> =
        modules.iter().map(|m| format_ident!("{}", m.to_ascii_uppercase().trim_end_matches('_'))).collect();
    let decls = catalog.tools.iter().zip(&consts).map(|(tool, ident)| {
        let (first, others) = tool.calls().split_first().unwrap_or((tool, &[]));
        let route_idents: Vec<_> = (2..=others.len() + 1).map(|k| format_ident!("{}_ROUTE_{}", ident, k)).collect();
        let main = decl(&tool.name, first, first.list_tool.as_deref(), &route_idents, &handle_decl(tool), tool.native);
        let routes = others.iter().zip(&route_idents).map(|(route, id)| {
            let d = decl(&tool.name, route, route.list_tool.as_deref(), &[], &quote!(None), tool.native);
            quote!(pub const #id: ToolDecl = #d;)
        });
        let doc = format!(
            " `{}`{}.",
            tool.name,
            if tool.native { ", run by the crate's handler" } else { ", proxied upstream" }
        );
        quote! {
            #[doc = #doc]
            pub const #ident: ToolDecl = #main;
            #(#routes)*
        }
    });
    let methods = native.iter().map(|(i, tool)| {
        let m = method(&modules[*i]);
        let (args, result) = (&types.tools[*i].args, &types.tools[*i].result);
        let mut doc = docs(&tool.description);
        doc.push(String::new());
        doc.push(format!(" {}", effects_line(tool)));
        quote! {
            #(#[doc = #doc])*
            fn #m(
                &self,
                cx: &mut mcp_gen_runtime::native::Context,
                args: #args,
            ) -> impl ::std::future::Future<Output = ::std::result::Result<#result, mcp_gen_runtime::error::ToolError>> + Send;
        }
    });
    let arms = native.iter().map(|(i, tool)| {
        let m = method(&modules[*i]);
        let name = lit(&tool.name);
        quote! {
            #name => {
                let args = mcp_gen_runtime::native::arguments(tool, args)?;
                let result = self.0.#m(cx, args).await?;
                mcp_gen_runtime::native::result(tool, &result)
            }
        }
    });
    let server = server_decl(catalog, variants, "", &quote!(&[#(&#consts),*]), &super::rust::Kept::none());
    let type_items = &types.items;
    let title = &catalog.source.api_title;
    let trait_doc = format!(
        " The tools of {title} this crate runs itself: one method per tool, called with its arguments already validated against the tool's inputSchema."
    );
    let tokens = quote! {
        /// Argument and result types of the tools, from the schemas in `tools.json`.
        pub mod types {
            #type_items
        }

        #[doc = #trait_doc]
        ///
        /// A side-effecting method writes its effect in `cx.transaction()`: the runtime commits it
        /// with the call's idempotency record, so a retried call never runs twice (CONTRACT R6).
        /// An `Err` is the error the model reads (CONTRACT E2) and rolls the transaction back.
        pub trait Handlers: Send + Sync + 'static {
            #(#methods)*
        }

        /// [`Handlers`] as the runtime calls them.
        pub struct Native<H>(pub H);

        impl<H: Handlers> mcp_gen_runtime::native::Dispatch for Native<H> {
            fn call<'a>(
                &'a self,
                tool: &'a str,
                cx: &'a mut mcp_gen_runtime::native::Context,
                args: mcp_gen_runtime::native::Arguments,
            ) -> mcp_gen_runtime::native::BoxFuture<'a, ::std::result::Result<mcp_gen_runtime::native::Json, mcp_gen_runtime::error::ToolError>> {
                ::std::boxed::Box::pin(async move {
                    match tool {
                        #(#arms)*
                        _ => Err(mcp_gen_runtime::native::unknown(tool)),
                    }
                })
            }
        }

        /// The server's declarations: each tool's operation, idempotency key and handles, and
        /// the catalog it serves.
        pub mod decls {
            use mcp_gen_runtime::decl::*;
            #(#decls)*
            #server
        }

        pub use decls::SERVER;

        /// The server with `handlers` behind its native tools: give it a store (and an upstream
        /// for tools it proxies), then `build()`.
        #[allow(dead_code)]
        pub fn server<H: Handlers>(handlers: H) -> mcp_gen_runtime::Builder {
            mcp_gen_runtime::Handler::builder(&SERVER).native(Native(handlers))
        }

        /// The standard command line of a generated server (`serve`, `tools`), with `handlers`
        /// behind the native tools.
        #[allow(dead_code)]
        pub fn main_with<H: Handlers>(handlers: H) -> ::std::process::ExitCode {
            mcp_gen_runtime::main_native(&SERVER, Native(handlers))
        }
    };
    render(&header(catalog), tokens)
}

/// What the tool does to state, for its handler's doc.
fn effects_line(tool: &Tool) -> String {
    let a = tool.annotations;
    if a.read_only {
        return "Read-only.".to_owned();
    }
    let key = match &tool.key {
        Some(_) => "keyed: a repeat with the same idempotency key is answered from the store",
        None => "not keyed",
    };
    format!(
        "Writes; {}, {}; {key}.",
        if a.destructive { "destructive" } else { "additive" },
        if a.idempotent { "idempotent" } else { "not idempotent" }
    )
}
