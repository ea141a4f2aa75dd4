//! Response budgets: a result the model reads stays within the tool's token budget
//! (`defaults.max_result_tokens`, 8,000 unless the overlay says otherwise; o200k_base). A list
//! over budget is cut at an item boundary, and where the tool hands out next-page handles the
//! rest of the page is one more handle away (the same page fetched again, the items already
//! shown skipped); an object over budget drops its largest optional parts first. Either way a
//! note says what was left out.

use serde_json::Value;

/// Tokens of `text`, o200k_base. A token is at least one byte, so a text no longer than the
/// budget in bytes is within it without counting.
pub fn tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len()
}

fn within(text: &str, budget: usize) -> bool {
    text.len() <= budget || tokens(text) <= budget
}

/// Room left for the note and the handle beside what a cut keeps.
const MARGIN: usize = 200;

/// What a budget did to a result.
#[derive(Debug, PartialEq)]
pub enum Fitted {
    /// Within budget as it was.
    Whole,
    /// A list cut: `kept` items shown of the `total` this page holds from where the call began.
    Cut { kept: usize, total: usize },
    /// An object's optional properties left out, largest first.
    Dropped { fields: Vec<String> },
    /// Over budget even so: nothing optional left to drop, or one item alone is over.
    Over,
}

/// Where a result's list is: the result itself, or its largest array property.
fn list_of(value: &mut Value) -> Option<&mut Vec<Value>> {
    if value.is_array() {
        return value.as_array_mut();
    }
    let map = value.as_object_mut()?;
    let key = map
        .iter()
        .filter_map(|(k, v)| v.as_array().map(|a| (k.clone(), a.len())))
        .max_by_key(|(_, n)| *n)
        .map(|(k, _)| k)?;
    map.get_mut(&key).and_then(Value::as_array_mut)
}

/// Drops the first `skip` items of the result's list (a continuation of a cut page).
pub fn skip(value: &mut Value, skip: usize) {
    if let Some(items) = list_of(value) {
        items.drain(..skip.min(items.len()));
    }
}

/// Fits `value` into `budget` tokens. `required` names the object properties that may not be
/// dropped (the outputSchema's `required`).
pub fn fit(value: &mut Value, budget: usize, required: &[&str]) -> Fitted {
    // A result never has more tokens than bytes: most are measured without being written out.
    if crate::util::json_len(value) <= budget {
        return Fitted::Whole;
    }
    let room = budget.saturating_sub(MARGIN);
    if let Some(total) = list_of(value).map(|items| items.len()) {
        // The result without its items, then items while they fit: a long list is counted only
        // as far as the budget reaches. An item costs its text and the comma after it.
        let items = list_of(value).map(std::mem::take).unwrap_or_default();
        let shell = tokens(&value.to_string());
        let mut costs = Vec::new();
        let mut used = shell;
        for item in &items {
            used += tokens(&item.to_string()) + 1;
            costs.push(used);
            if used > budget {
                break;
            }
        }
        if let Some(slot) = list_of(value) {
            *slot = items;
        }
        if costs.len() == total && used <= budget {
            return Fitted::Whole;
        }
        // Cut where the note and the handle still fit beside what is kept; one item at least.
        let kept = costs.iter().take_while(|c| **c <= room).count().max(1);
        if let Some(items) = list_of(value) {
            items.truncate(kept);
        }
        return Fitted::Cut { kept, total };
    }
    if tokens(&value.to_string()) <= budget {
        return Fitted::Whole;
    }
    let Some(map) = value.as_object_mut() else { return Fitted::Over };
    let mut optional: Vec<(String, usize)> = map
        .iter()
        .filter(|(k, _)| !required.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.to_string().len()))
        .collect();
    optional.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut fields = Vec::new();
    for (key, _) in optional {
        map.shift_remove(&key);
        fields.push(key);
        if within(&Value::Object(map.clone()).to_string(), room) {
            return Fitted::Dropped { fields };
        }
    }
    Fitted::Over
}

/// The note beside a fitted result, for the model.
pub fn note(fitted: &Fitted, budget: usize, next: Option<&str>) -> Option<String> {
    match fitted {
        Fitted::Whole => None,
        Fitted::Cut { kept, total } => Some(match next {
            Some(arg) => format!(
                "Cut to fit the {budget}-token result budget: {kept} of the {total} items this page holds are shown. For the rest, call again with {arg} set to the next_cursor value returned here."
            ),
            None => format!(
                "Cut to fit the {budget}-token result budget: {kept} of {total} items are shown and this tool has no next page. Narrow the request (filters, a smaller limit) to see the others."
            ),
        }),
        Fitted::Dropped { fields } => Some(format!(
            "Cut to fit the {budget}-token result budget: the optional field(s) {} were left out. Ask for the item on its own if you need them.",
            fields.join(", ")
        )),
        Fitted::Over => {
            Some(format!("This result is over the {budget}-token result budget and has nothing optional to leave out."))
        }
    }
}

/// The outputSchema's required properties at the root.
pub fn required(schema: Option<&Value>) -> Vec<&str> {
    schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item(i: usize) -> Value {
        json!({"id": format!("evt_{i:06}"), "kind": "paid", "note": "x".repeat(200)})
    }

    #[test]
    fn a_small_result_is_left_whole_without_counting() {
        let mut v = json!({"items": [item(1)], "next_cursor": null});
        assert_eq!(fit(&mut v, 8_000, &[]), Fitted::Whole);
    }

    #[test]
    fn a_long_list_is_cut_at_an_item_boundary_within_the_budget() {
        let mut v = json!({"items": (0..500).map(item).collect::<Vec<_>>(), "next_cursor": "c2"});
        let Fitted::Cut { kept, total } = fit(&mut v, 2_000, &["items"]) else { panic!("cut") };
        assert_eq!(total, 500);
        assert!(kept > 1 && kept < 500);
        assert_eq!(v["items"].as_array().unwrap().len(), kept);
        assert_eq!(v["items"][kept - 1], item(kept - 1), "the kept items are the first ones, whole");
        assert!(tokens(&v.to_string()) <= 2_000 - MARGIN);
        let mut rest = json!({"items": (0..500).map(item).collect::<Vec<_>>(), "next_cursor": "c2"});
        skip(&mut rest, kept);
        assert_eq!(rest["items"][0], item(kept), "a continuation starts after the last item shown");
    }

    #[test]
    fn an_object_drops_its_largest_optional_parts_first_and_says_which() {
        let mut v = json!({"id": "a", "summary": "s", "history": (0..400).map(item).collect::<Vec<_>>().len(),
            "raw": "y".repeat(40_000), "attachments_text": "z".repeat(20_000)});
        let fitted = fit(&mut v, 1_000, &["id"]);
        assert_eq!(fitted, Fitted::Dropped { fields: vec!["raw".into(), "attachments_text".into()] });
        assert_eq!(v["id"], "a");
        assert!(note(&fitted, 1_000, None).unwrap().contains("raw, attachments_text"));
        let mut required_only = json!({"id": "q".repeat(40_000)});
        assert_eq!(fit(&mut required_only, 1_000, &["id"]), Fitted::Over);
    }
}
