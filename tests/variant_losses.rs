//! A property test across the corpus (CONTRACT I1, I3): for every document of the CI sample up to
//! a size, every tool and every provider variant, each constraint in the variant's loss report
//! is broken in arguments that are otherwise valid, and the server's own argument handling
//! (`mcp_gen_runtime::validate::arguments`, what a `tools/call` runs before the tool) refuses
//! them, naming the field.
//!
//! It needs the corpus, so it is ignored by default; CI runs it after fetching the corpus:
//! `MCPGEN_CORPUS=DIR cargo test --release --test variant_losses -- --ignored`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use mcp_gen::schema::variant::{self, Action, Variant};
use mcp_gen::{Input, Settings, generate};
use mcp_gen_runtime::validate;
use serde_json::Value;
use support::violate::{Violation, fresh_key, sample, violation};

/// Documents larger than this are left to the variant sweep (time).
const MAX_BYTES: u64 = 1_500_000;

fn corpus() -> PathBuf {
    let dir = std::env::var_os("MCPGEN_CORPUS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/mcp-gen-corpus")))
        .expect("MCPGEN_CORPUS or HOME");
    assert!(dir.join("index.tsv").is_file(), "no corpus at {} (scripts/get-corpus.sh DIR)", dir.display());
    dir
}

#[derive(Default)]
struct Tally {
    documents: usize,
    losses: usize,
    /// Narrowings and cut shapes: not a constraint the variant stopped stating.
    not_constraints: usize,
    /// Losses whose violating arguments the test could not write (a pattern it cannot sample,
    /// a valid base it could not find): reported, not hidden.
    unconstructed: BTreeMap<String, usize>,
    refused: usize,
    failures: Vec<String>,
}

#[test]
#[ignore = "needs the corpus: MCPGEN_CORPUS=DIR cargo test --release --test variant_losses -- --ignored"]
fn every_lost_constraint_is_refused_by_the_server_across_the_corpus() {
    let corpus = corpus();
    let sample_list = std::fs::read_to_string(support::repo().join("scripts/corpus-sample.txt")).unwrap();
    let docs: Vec<PathBuf> = sample_list
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| corpus.join(l))
        .filter(|p| p.metadata().is_ok_and(|m| m.len() <= MAX_BYTES))
        .collect();
    let mut t = Tally::default();
    for doc in &docs {
        let Ok(out) = generate(&Input::files(doc, None), &Settings::default().with_catalog_only(true)) else {
            continue;
        };
        t.documents += 1;
        let tools: BTreeMap<&str, &Value> =
            out.catalog.tools.iter().map(|tool| (tool.name.as_str(), &tool.input_schema)).collect();
        let mut validators = BTreeMap::new();
        for v in Variant::DERIVED {
            for loss in variant::catalog(&out.catalog, v).losses {
                t.losses += 1;
                if matches!(loss.action, Action::Narrowed | Action::Cut) {
                    t.not_constraints += 1;
                    continue;
                }
                let root = tools[loss.tool.as_str()];
                let validator = validators
                    .entry(loss.tool.clone())
                    .or_insert_with(|| validate::compile(root).expect("the canonical schema compiles"));
                let mut unconstructed =
                    |why: &str| *t.unconstructed.entry(format!("{} ({why})", loss.keyword)).or_default() += 1;
                // The base must be valid, or a refusal would prove nothing.
                let mut base = sample(root, root, 0);
                fresh_key(&mut base);
                if let Err(e) = validate::arguments(validator, root, base.as_object().cloned().unwrap_or_default()) {
                    if std::env::var_os("VARIANT_LOSSES_DEBUG").is_some() {
                        println!("no valid base: {} {}: {base} {}", doc.display(), loss.tool, e.message);
                    }
                    unconstructed("no valid base");
                    continue;
                }
                let loss_json = serde_json::to_value(&loss).unwrap();
                let Some(Violation { mut args, mut control, field }) = violation(root, &loss_json) else {
                    unconstructed("no violation written");
                    continue;
                };
                // The containers on the way to the field, sampled, must be valid too.
                fresh_key(&mut control);
                if validate::arguments(validator, root, control.as_object().cloned().unwrap_or_default()).is_err() {
                    unconstructed("no valid arguments around the field");
                    continue;
                }
                if loss.field != "/idempotency_key" {
                    fresh_key(&mut args);
                }
                // The server names the field, or the nearest enclosing one whose combinator
                // (`anyOf` branch, say) the broken value made fail.
                let names = |named: &str| {
                    field == named || field.starts_with(&format!("{named}.")) || field.starts_with(&format!("{named}["))
                };
                match validate::arguments(validator, root, args.as_object().cloned().unwrap_or_default()) {
                    Err(e) if e.field.as_deref().is_some_and(names) => t.refused += 1,
                    Err(e) => t.failures.push(format!(
                        "{} {} {}: {loss_json}: refused, but naming {:?} instead of {field}: {}",
                        doc.display(),
                        v.name(),
                        loss.tool,
                        e.field,
                        e.message
                    )),
                    Ok(_) => t.failures.push(format!(
                        "{} {} {}: {loss_json}: accepted {args}",
                        doc.display(),
                        v.name(),
                        loss.tool
                    )),
                }
            }
        }
    }
    let constraints = t.losses - t.not_constraints;
    let unconstructed: usize = t.unconstructed.values().sum();
    println!(
        "{} document(s); {} loss(es), {} of them narrowings or cut shapes; of the {constraints} constraints, \
         {} broken and refused naming the field, {} failures, {unconstructed} not constructed: {:?}",
        t.documents,
        t.losses,
        t.not_constraints,
        t.refused,
        t.failures.len(),
        t.unconstructed
    );
    assert!(
        t.failures.is_empty(),
        "{} failure(s):\n{}",
        t.failures.len(),
        t.failures[..t.failures.len().min(20)].join("\n")
    );
    assert!(t.documents >= 50, "only {} documents", t.documents);
    // The test must mostly construct what it checks: a sampler that gives up everywhere would pass vacuously.
    assert!(t.refused * 10 >= constraints * 9, "only {} of {constraints} constraints constructed", t.refused);
}
