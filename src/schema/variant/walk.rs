//! Where a subschema sits: its argument field and its pointer in the canonical schema.

use crate::diag::escape_token;

/// The location of one schema node while a variant walks it.
#[derive(Debug, Clone, Default)]
pub struct At {
    /// JSON Pointer into the arguments, `*` for any array item or map value.
    pub field: String,
    /// JSON Pointer into the canonical inputSchema.
    pub pointer: String,
}

impl At {
    pub fn root() -> Self {
        At::default()
    }

    /// The def `name`, reached from the field `self` is at.
    pub fn def(&self, name: &str) -> At {
        At { field: self.field.clone(), pointer: format!("/$defs/{}", escape_token(name)) }
    }

    /// A subschema under `keyword` (with the property name or index `key` for maps and lists).
    pub fn child(&self, keyword: &str, key: Option<&str>) -> At {
        let pointer = match key {
            Some(k) => format!("{}/{keyword}/{}", self.pointer, escape_token(k)),
            None => format!("{}/{keyword}", self.pointer),
        };
        let field = match (keyword, key) {
            ("properties", Some(k)) => format!("{}/{}", self.field, escape_token(k)),
            ("prefixItems", Some(i)) => format!("{}/{i}", self.field),
            (
                "items"
                | "additionalItems"
                | "contains"
                | "unevaluatedItems"
                | "additionalProperties"
                | "patternProperties"
                | "unevaluatedProperties",
                _,
            ) => format!("{}/*", self.field),
            _ => self.field.clone(),
        };
        At { field, pointer }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_follow_the_data() {
        let at = At::root().child("properties", Some("lines")).child("items", None).child("properties", Some("a/b"));
        assert_eq!(at.field, "/lines/*/a~1b");
        assert_eq!(at.pointer, "/properties/lines/items/properties/a~1b");
        let branch = at.child("anyOf", Some("1"));
        assert_eq!(branch.field, at.field);
    }
}
