//! Kept contract versions in the crate (CONTRACT V5): each one's pinned inputs as they are, its
//! catalog (`versions/<name>/tools.json`) and its tool declarations (`src/versions/<name>/`),
//! from the version's own compilation; `server.rs` lists them beside the current contract.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::Files;
use super::rust::{header, lit, render};
use crate::schema::Catalog;

/// A kept version, compiled: its crate files and its pinned inputs (file name, text).
#[derive(Debug, Clone)]
pub struct Kept {
    pub name: String,
    pub files: Files,
    pub inputs: Vec<(String, String)>,
}

/// Adds every kept version's files to the crate's.
pub fn attach(catalog: &Catalog, kept: &[Kept], files: &mut Files) -> Result<(), String> {
    if kept.is_empty() {
        return Ok(());
    }
    for k in kept {
        let dir = format!("{}/{}", crate::versions::DIR, k.name);
        for (name, text) in &k.inputs {
            files.insert(format!("{dir}/{name}"), text.clone());
        }
        let tools = k.files.get("tools.json").ok_or("a kept version's compilation made no tools.json")?;
        files.insert(format!("{dir}/tools.json"), tools.clone());
        let mut kept_files = Files::new();
        for (path, text) in k.files.range("src/tools/".to_owned()..).take_while(|(p, _)| p.starts_with("src/tools/")) {
            let rest = &path["src/tools/".len()..];
            // A tool the versions declare alike is the current declaration, not a copy of it.
            let text = match (rest.strip_suffix(".rs"), files.get(path)) {
                (Some(module), Some(current)) if current == text && module != "mod" => {
                    same_as_current(catalog, module)?
                }
                _ => text.clone(),
            };
            kept_files.insert(format!("src/versions/{}/{rest}", k.name), text);
        }
        files.extend(kept_files);
    }
    let modules = kept.iter().map(|k| format_ident!("{}", k.name));
    let tokens = quote! {
        #![doc = " Earlier contract versions this server keeps serving, one module each (`versions/<name>/`)."]
        #(pub mod #modules;)*
    };
    files.insert("src/versions/mod.rs".to_owned(), render(&header(catalog), tokens)?);
    Ok(())
}

/// A kept tool module that is the current one: its declaration, re-exported.
fn same_as_current(catalog: &Catalog, module: &str) -> Result<String, String> {
    let ident = format_ident!("{}", module);
    let doc = format!(" `{module}`: declared in this version as in the current one.");
    let tokens = quote! {
        #![doc = #doc]
        pub use crate::tools::#ident::*;
    };
    render(&header(catalog), tokens)
}

/// `VersionDecl`s of the kept versions, for `ServerDecl::versions`.
pub fn decls(kept: &[Kept]) -> Vec<TokenStream> {
    kept.iter()
        .map(|k| {
            let name = lit(&k.name);
            let catalog = lit(&format!("../{}/{}/tools.json", crate::versions::DIR, k.name));
            let module = format_ident!("{}", k.name);
            quote!(VersionDecl { name: #name, catalog: include_str!(#catalog), tools: crate::versions::#module::ALL })
        })
        .collect()
}
