//! What a catalog costs a model (CONTRACT T6): o200k_base tokens (tiktoken-rs) of what the model
//! reads of each tool — its name, description and inputSchema (compact JSON, the form clients
//! forward) — and, separately, of its outputSchema.

use serde_json::Value;

use crate::schema::Catalog;

/// One tool's price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolTokens {
    pub name: String,
    /// Name + description + inputSchema: what every model call carries.
    pub visible: usize,
    /// The outputSchema, which some hosts also show.
    pub output: usize,
}

/// The price of a whole catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Sorted by tool name, like the catalog.
    pub tools: Vec<ToolTokens>,
}

impl Tokens {
    pub fn visible(&self) -> usize {
        self.tools.iter().map(|t| t.visible).sum()
    }

    pub fn output(&self) -> usize {
        self.tools.iter().map(|t| t.output).sum()
    }

    pub fn per_tool(&self) -> usize {
        self.visible().checked_div(self.tools.len()).unwrap_or(0)
    }

    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "encoding": "o200k_base",
            "tools": self.tools.len(),
            "visible_total": self.visible(),
            "visible_per_tool": self.per_tool(),
            "output_total": self.output(),
            "per_tool": self.tools.iter().map(|t| serde_json::json!({"name": t.name, "visible": t.visible, "output": t.output})).collect::<Vec<_>>(),
        })
    }
}

/// Counts o200k_base tokens of `text`.
pub fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len()
}

pub fn price(catalog: &Catalog) -> Tokens {
    let compact = |v: &Value| serde_json::to_string(v).unwrap_or_default();
    let tools = catalog
        .tools
        .iter()
        .map(|t| ToolTokens {
            name: t.name.clone(),
            visible: count(&t.name) + count(&t.description) + count(&compact(&t.input_schema)),
            output: t.output_schema.as_ref().map_or(0, |o| count(&compact(o))),
        })
        .collect();
    Tokens { tools }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn o200k_base_counts() {
        // Reference values from OpenAI's tiktoken (o200k_base).
        assert_eq!(count("hello world"), 2);
        assert_eq!(count(""), 0);
        assert!(count(r#"{"type":"object","properties":{"petId":{"type":"integer"}}}"#) > 10);
    }
}
