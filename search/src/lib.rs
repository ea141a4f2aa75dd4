//! The tool search of mcp-gen (CONTRACT T6, exposure `discover`): a BM25 index over each
//! tool's search text, built by the compiler and embedded in the generated server, where the
//! `search_tools` tool queries it; `mcp-gen search` queries the same index without a server.
//!
//! The index holds each tool's sparse BM25 embedding (the `bm25` crate's English tokenizer:
//! Unicode words, stop words, Snowball stems), so a server only loads it: the text it was
//! made from (whole operation descriptions, tag descriptions, routes, argument and response
//! field names) is far larger than the model ever sees, and is not shipped.

use std::collections::BTreeMap;

use bm25::{Embedder, EmbedderBuilder, Embedding, Language, Scorer, TokenEmbedding};
use serde::{Deserialize, Serialize};

mod synonyms;
mod words;

pub use words::words;

/// The index file does not parse, or is of another format.
#[derive(Debug, thiserror::Error)]
#[error("the search index {0} (regenerate the crate with mcp-gen)")]
pub struct IndexError(String);

/// One tool as the index sees it: two fields, each a list of token hash and BM25 weight, one
/// per distinct token, sorted by hash.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Entry {
    name: String,
    /// What names the tool's purpose in few words: its name, title, summary and tags.
    head: Vec<(u32, f32)>,
    /// Everything else: whole descriptions, arguments, result fields, the route.
    body: Vec<(u32, f32)>,
}

/// A tool's search text, in the two fields the index weighs apart.
#[derive(Debug, Clone, Copy)]
pub struct Document<'a> {
    pub name: &'a str,
    pub head: &'a str,
    pub body: &'a str,
}

/// How much a match in the head counts against one in the body. Each field is normalised by
/// its own length, so a long description no longer dilutes the tool's name; weighing the head
/// above that lost more goal-level requests than it won on the dev part of
/// `bench/retrieval` (recall@5 0.42 at 2.0 against 0.46 at 1.0).
const HEAD_WEIGHT: f32 = 1.0;

#[derive(Debug, Serialize, Deserialize)]
struct File {
    /// Bumped when the tokenizer or the weighting changes, so a stale index is refused.
    format: u32,
    tools: Vec<Entry>,
}

const FORMAT: u32 = 1;

/// A ranked tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit<'a> {
    pub name: &'a str,
    pub score: f32,
}

/// The searchable tools of one catalog.
pub struct Index {
    tools: Vec<Entry>,
    head: Scorer<usize, u32>,
    body: Scorer<usize, u32>,
    /// Embeds queries; document lengths do not matter for a query, only its tokens.
    embedder: Embedder<u32>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index").field("tools", &self.tools.len()).finish()
    }
}

impl Index {
    /// Indexes `(tool name, search text)` pairs. Identifiers in the text (`pull_number`,
    /// `listReposForUser`, `/repos/{owner}`) are split into words first.
    pub fn build<'a>(documents: impl IntoIterator<Item = Document<'a>>) -> Index {
        let documents: Vec<(&str, String, String)> =
            documents.into_iter().map(|d| (d.name, words(d.head), words(d.body))).collect();
        let heads = field(documents.iter().map(|(_, head, _)| head.as_str()));
        let bodies = field(documents.iter().map(|(_, _, body)| body.as_str()));
        let tools = documents
            .iter()
            .zip(heads.into_iter().zip(bodies))
            .map(|((name, _, _), (head, body))| Entry { name: (*name).to_owned(), head, body })
            .collect();
        Index::from_entries(tools)
    }

    fn from_entries(tools: Vec<Entry>) -> Index {
        let scorer = |terms: fn(&Entry) -> &[(u32, f32)]| {
            let mut scorer = Scorer::new();
            for (i, tool) in tools.iter().enumerate() {
                let embedding = terms(tool).iter().map(|&(index, value)| TokenEmbedding { index, value }).collect();
                scorer.upsert(&i, Embedding(embedding));
            }
            scorer
        };
        let (head, body) = (scorer(|e| &e.head), scorer(|e| &e.body));
        let embedder = EmbedderBuilder::<u32>::with_avgdl(1.0).language_mode(Language::English).build();
        Index { tools, head, body, embedder }
    }

    /// The index as the file a generated server embeds (deterministic: same tools, same bytes).
    pub fn to_json(&self) -> String {
        let file = File { format: FORMAT, tools: self.tools.clone() };
        // Plain data of strings and numbers: serialising cannot fail.
        serde_json::to_string(&file).unwrap_or_default()
    }

    /// Loads an index written by [`Index::to_json`].
    pub fn from_json(text: &str) -> Result<Index, IndexError> {
        let file: File = serde_json::from_str(text).map_err(|e| IndexError(format!("does not parse: {e}")))?;
        if file.format != FORMAT {
            return Err(IndexError(format!("is of format {}, this server reads format {FORMAT}", file.format)));
        }
        Ok(Index::from_entries(file.tools))
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools that match `query`, best first (ties by name), at most `limit`. The query's
    /// words are widened with the everyday words people use for the same thing ("PR" for a
    /// pull request, "remove" for delete).
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit<'_>> {
        let query = synonyms::expand(&words(query));
        let embedding = self.embedder.embed(&query);
        let mut scores: BTreeMap<usize, f32> = BTreeMap::new();
        for m in self.head.matches(&embedding) {
            *scores.entry(m.id).or_default() += HEAD_WEIGHT * m.score;
        }
        for m in self.body.matches(&embedding) {
            *scores.entry(m.id).or_default() += m.score;
        }
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .filter_map(|(i, score)| self.tools.get(i).map(|t| Hit { name: t.name.as_str(), score }))
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.name.cmp(b.name)));
        hits.truncate(limit);
        hits
    }
}

/// One field of every document as BM25 weights, its average length fitted to the field.
fn field<'a>(texts: impl Iterator<Item = &'a str>) -> Vec<Vec<(u32, f32)>> {
    let texts: Vec<&str> = texts.collect();
    let embedder = EmbedderBuilder::<u32>::with_fit_to_corpus(Language::English, &texts).build();
    texts
        .iter()
        .map(|text| {
            // A token repeated in the text has one weight; the embedding lists it per
            // occurrence, and the scorer reads only the first.
            let mut terms = BTreeMap::new();
            for t in embedder.embed(text).iter() {
                terms.entry(t.index).or_insert(round(t.value));
            }
            terms.into_iter().collect()
        })
        .collect()
}

/// Four decimals keep rankings and halve the file.
fn round(value: f32) -> f32 {
    (value * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> Index {
        let doc = |name, head, body| Document { name, head, body };
        Index::build([
            doc("create_refund", "create refund", "Refunds a charge that was previously created. charge amount reason"),
            doc(
                "list_charges",
                "list charges",
                "Returns a list of charges you have previously created. customer limit",
            ),
            doc("merge_pull_request", "merge pull request", "Merges a pull request into the base branch. owner repo"),
            doc("delete_repository", "delete repository", "Deletes a repository. owner repo"),
        ])
    }

    #[test]
    fn ranks_the_tool_whose_words_the_request_uses() {
        let index = index();
        let hits = index.search("give the customer their money back for that charge, a refund", 3);
        assert_eq!(hits[0].name, "create_refund");
        assert!(hits[0].score > hits[1].score);
    }

    #[test]
    fn everyday_words_find_the_api_s_terms() {
        let index = index();
        assert_eq!(index.search("merge PR 42", 1)[0].name, "merge_pull_request");
        assert_eq!(index.search("remove my old repo", 1)[0].name, "delete_repository");
    }

    #[test]
    fn the_stored_index_ranks_as_the_built_one() {
        let built = index();
        let text = built.to_json();
        let loaded = Index::from_json(&text).unwrap();
        assert_eq!(loaded.to_json(), text, "a round trip changes nothing");
        for q in ["refund", "pull request", "list charges for a customer", "nothing matches this"] {
            assert_eq!(built.search(q, 4), loaded.search(q, 4), "{q}");
        }
        assert!(loaded.search("zebra", 4).is_empty());
    }

    #[test]
    fn a_stale_or_broken_index_is_refused_with_what_to_do() {
        let e = Index::from_json(r#"{"format": 0, "tools": []}"#).unwrap_err().to_string();
        assert!(e.contains("format 0") && e.contains("regenerate"), "{e}");
        assert!(Index::from_json("{").is_err());
    }
}
