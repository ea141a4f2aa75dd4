//! Stage 4, plan: `Api` + `Intents` → `Catalog`. Chooses which operations become tools, names
//! them (T1), maps every argument to where it goes upstream, sets explicit annotations (T3),
//! writes titles and descriptions (D1, D2) and links id parameters to the tools that list them.
//! Schemas are assembled by the next stage; the plan only decides what goes into them.

pub mod brief;
mod catalog;
pub mod deprecation;
pub mod describe;
pub mod exposure;
mod ids;
pub(crate) use ids::names_new_item;
pub mod intent;
pub mod internals;
pub mod merge;
pub mod naming;
pub mod operations;
pub mod pages;
pub mod retry;
pub mod review;
pub mod search_text;
pub mod select;
pub mod split;
pub mod transport;

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

use heck::{ToKebabCase, ToShoutySnakeCase};
use serde_json::{Value, json};

use crate::diag::{Diagnostic, Report, codes};
use crate::overlay::Intents;
use crate::resolve::{Api, BodyEncoding, Defs, Method, Operation, ParamLocation, SchemeKind, template_names};
use crate::settings::Settings;

pub use catalog::{
    Annotations, Arg, Ask, BodyPlan, Catalog, Exclusion, Fixed, LongRunning, OperationRef, Pagination, Scheme,
    ServerInfo, SourceInfo, Target, Tool, Toolset,
};

pub fn plan(api: &Api, intents: &Intents, settings: &Settings, report: &mut Report) -> Catalog {
    let server = server_info(api, intents, settings);
    let mut excluded: Vec<Exclusion> = api
        .skipped
        .iter()
        .map(|s| Exclusion {
            operation: s.operation.clone(),
            operation_id: s.operation_id.clone(),
            reason: s.reason.clone(),
        })
        .collect();
    let mut chosen: Vec<(usize, &Operation)> = Vec::new();
    let defaults = select::defaults(&api.operations);
    for (i, op) in api.operations.iter().enumerate() {
        let kept = intents.included.contains(&i) || intents.tools.contains_key(&i);
        if intents.excluded.contains(&i) {
            excluded.push(Exclusion {
                operation: op.label(),
                operation_id: op.operation_id.clone(),
                reason: "excluded by the overlay".to_owned(),
            });
        } else if let Some(reason) = &defaults[i]
            && !kept
        {
            excluded.push(Exclusion {
                operation: op.label(),
                operation_id: op.operation_id.clone(),
                reason: format!("{reason} (T4; keep it with the overlay's `include`)"),
            });
        } else {
            chosen.push((i, op));
        }
    }
    let drafts = drafts(api, intents, &chosen);
    let names = assign_names(api, &drafts, report);
    let mut tools: Vec<Tool> = Vec::with_capacity(drafts.len());
    // A merged tool's routes are planned one by one, each keyed as a tool of its own, then
    // combined (overlay `merge`).
    let mut merges: BTreeMap<String, Vec<merge::Route>> = BTreeMap::new();
    for (draft, Assigned { name, said, rule }) in drafts.iter().zip(names) {
        match draft.merged() {
            Some(intent) => {
                let mut own = Report::new();
                let mut t = tool(api, draft, name, &said, intents, &mut own);
                t.name_rule = rule;
                retry::plan(&mut t, &intents.keys, &mut own);
                merges.entry(t.name.clone()).or_default().push(merge::Route {
                    order: intent.route,
                    tool: t,
                    report: own,
                });
            }
            None => {
                let mut t = tool(api, draft, name, &said, intents, report);
                t.name_rule = rule;
                retry::plan(&mut t, &intents.keys, report);
                tools.push(t);
            }
        }
    }
    tools.extend(merges.into_values().filter_map(|routes| merge::combine(routes, report)));
    // One rule for idempotentHint (T3, R3): a tool with an idempotency key answers a repeat of
    // the same arguments, key included, from its record, so repeating it has no further effect.
    for t in tools.iter_mut().filter(|t| t.key.is_some()) {
        t.annotations.idempotent = true;
    }
    decide_native(&mut tools, settings, report);
    ids::link_ids(&mut tools, &api.defs);
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    operations::finish(&mut tools);
    deprecation::add_aliases(&mut tools, report);
    if tools.is_empty() {
        report.push(
            Diagnostic::warning(codes::EMPTY_CATALOG, "no operation became a tool")
                .at(&api.file, "/paths")
                .with_help("check the overlay's exclude list and the warnings above"),
        );
    }
    let used: BTreeSet<&str> = tools.iter().flat_map(|t| t.security.iter().flatten().map(String::as_str)).collect();
    let schemes = schemes(api, &server.env_prefix, &used, &intents.server.credentials, report);
    excluded.sort_by(|a, b| a.operation.cmp(&b.operation));
    let toolsets = toolsets(api, intents, &tools, report);
    let mut catalog = Catalog {
        server,
        toolsets,
        budget: intents.budget,
        tools,
        schemes,
        default_upstream: api.servers.iter().find(|u| u.starts_with("http://") || u.starts_with("https://")).cloned(),
        excluded,
        defs: api.defs.clone(),
        source: SourceInfo {
            file_name: api.file_name.clone(),
            api_title: api.title.clone(),
            api_version: api.api_version.clone(),
            answers_admit_null: api.version != crate::load::SpecVersion::OpenApi31,
        },
    };
    search_text::fill(&mut catalog, api);
    catalog
}

fn server_info(api: &Api, intents: &Intents, settings: &Settings) -> ServerInfo {
    let raw =
        intents.server.name.clone().or_else(|| settings.name.clone()).unwrap_or_else(|| name_from_title(&api.title));
    let mut name = raw.to_kebab_case().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect::<String>();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name = format!("api-{name}");
    }
    let name = name.trim_end_matches('-').to_owned();
    let name = name.strip_suffix("-mcp").map(str::to_owned).unwrap_or(name);
    ServerInfo {
        crate_name: format!("{name}-mcp"),
        env_prefix: name.to_shouty_snake_case(),
        title: intents.server.title.clone().unwrap_or_else(|| api.title.clone()),
        // T7: the team's instructions, else the first sentences of the API's own description.
        instructions: intents
            .server
            .instructions
            .clone()
            .map(|s| s.trim().to_owned())
            .or_else(|| api.description.as_deref().map(instructions_from_spec))
            .filter(|s| !s.is_empty()),
        exposure: intents.server.exposure.unwrap_or_default(),
        name,
    }
}

/// At most two clean sentences of the spec's `info.description`, without model-directed text.
fn instructions_from_spec(text: &str) -> String {
    let (kept, _) = describe::untrusted(&describe::clean(text));
    describe::shorten(&describe::first_sentences(&kept, 2), 400)
}

/// `Swagger Petstore - OpenAPI 3.0` → `petstore`, `GitHub's official OpenAPI spec` → `github`:
/// the title's words without API jargon, versions, possessives and filler.
fn name_from_title(title: &str) -> String {
    const NOISE: &[&str] = &[
        "api",
        "apis",
        "openapi",
        "swagger",
        "rest",
        "restful",
        "http",
        "service",
        "services",
        "spec",
        "specification",
        "definition",
        "description",
        "document",
        "documentation",
        "schema",
        "official",
        "unofficial",
        "public",
        "version",
        "the",
        "a",
        "an",
        "of",
        "for",
        "and",
    ];
    let lower = title.to_lowercase().replace(['\u{2019}', '`'], "'");
    // A possessive is its noun (`github's` → `github`); other apostrophes join their word.
    let lower = lower.replace("'s ", " ").replace('\'', "");
    let lower = lower.strip_suffix("'s").unwrap_or(&lower);
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && !NOISE.contains(w) && !w.starts_with(|c: char| c.is_ascii_digit()))
        .filter(|w| !(w.len() > 1 && w.starts_with('v') && w[1..].chars().all(|c| c.is_ascii_digit())))
        .take(3)
        .collect();
    if words.is_empty() { "api".to_owned() } else { words.join("-") }
}

/// One tool to make (a draft; "spec" names the API description only): an operation, the team's
/// declaration for it if any, and the behaviour it was split into if it is one of several.
struct Draft<'a> {
    op: &'a Operation,
    intent: Option<&'a crate::overlay::ToolIntent>,
    /// The operation's behaviours, when it is a mega-endpoint.
    split: Option<split::Split>,
    /// Which behaviour this tool is, for an undeclared split.
    variant: Option<usize>,
}

impl Draft<'_> {
    /// The name before collisions: declared, the behaviour's, or derived from the operation.
    fn base_name(&self) -> String {
        self.base_named().name
    }

    /// [`Draft::base_name`], with what gave it (a naming rule, `overlay` or `split`).
    fn base_named(&self) -> naming::Named {
        if let Some(name) = self.intent.and_then(|i| i.name.clone()) {
            return naming::Named { name, rule: "overlay" };
        }
        match (&self.split, self.variant) {
            (Some(s), Some(v)) => naming::Named { name: s.variants[v].name.clone(), rule: "split" },
            _ => naming::base_named(self.op),
        }
    }

    /// The declaration, when it merges this operation with others into one tool (overlay `merge`).
    fn merged(&self) -> Option<&crate::overlay::ToolIntent> {
        self.intent.filter(|i| !i.overlay.merge.is_empty())
    }

    /// The names this tool may take, most wanted first, each with its rank (see
    /// `naming::Names`): a declared or behaviour name alone; otherwise, in a document whose
    /// operationIds all start with the API's name, the operation's names scoped to ever more of
    /// its parent collections (`naming::scoped_names`); an OData route's names
    /// (`naming::odata_names`); then the derived name, then the operationId as written.
    fn candidates(&self, scope: Option<&str>, singletons: &naming::Singletons) -> Vec<Candidate> {
        if self.declared_name() {
            let name = self.base_name();
            return vec![Candidate { said: name.clone(), name, rank: 0, rule: "overlay".to_owned() }];
        }
        let mut names = Vec::new();
        let mut ranks = Vec::new();
        let mut rules: Vec<&'static str> = Vec::new();
        let mut hashed = None;
        let mut guessed = false;
        // Whether the derived name leads with the method (`put_files_id_add_shared_link`).
        let mut transport = false;
        if self.variant.is_some() {
            names.push(self.base_name());
            rules.push("split");
        } else {
            names = scope.map(|api| naming::scoped_names(self.op, api)).unwrap_or_default();
            ranks = vec![0; names.len()];
            rules = vec!["scoped"; names.len()];
            // An OData route's first name is its derived name: not read twice.
            let derived = match naming::odata_names(self.op, singletons) {
                Some(odata) => {
                    rules.extend(std::iter::repeat_n("odata", odata.names.len()));
                    names.extend(odata.names);
                    ranks.extend(odata.ranks);
                    hashed = odata.hashed;
                    None
                }
                None => Some(self.base_named()),
            };
            guessed = derived.as_ref().is_some_and(|d| self.updates_by_post(&d.name));
            transport = derived.as_ref().is_some_and(|d| naming::is_transport_word(&naming::first_word(&d.name)));
            if let Some(d) = derived {
                names.push(d.name);
                rules.push(d.rule);
            }
        }
        // The fallbacks rank after every derived name.
        let last = ranks.iter().copied().max().map_or(0, |r| r + 1);
        ranks.resize(names.len(), last);
        // A POST to an item read as an update is a guess (Box's `POST /files/{id}` restores a
        // file): where a PUT or PATCH of the route is read so too, that one keeps the name.
        if guessed && let Some(rank) = ranks.last_mut() {
            *rank += 1;
        }
        // A name too long to serve becomes its shortenings (`naming::fitted`): a readable one a
        // rank lower, so that it yields to a tool whose own name it is, then the hashed one.
        let fitted = |((said, rank), rule): ((String, u32), &'static str)| {
            naming::fitted(&said, self.op).into_iter().map(move |(name, more)| Candidate {
                rule: shortening(rule, &name, &said),
                name,
                rank: rank + more,
                said: said.clone(),
            })
        };
        // After the derived names: where the id only restates method and route, a summary that
        // leads with a verb (`post_files_id`'s "Restore file" → `restore_file`; first when the
        // derived name is that id, and ranked after any name from the route); the operationId as
        // written or readably shortened; for an OData route whose every name is taken, its verb
        // and nouns hashed (`list_user_calendar_event_multi_value_extended_properties_31b8f6`);
        // last the operationId hashed (`users_calendars_events_instances_exception_…_1146cb`).
        let own = self.variant.is_none();
        let summary = own.then(|| naming::summary_name(self.op)).flatten();
        let summary =
            summary.map(|name| Candidate { said: name.clone(), name, rank: last + 1, rule: "summary".to_owned() });
        let id = own.then(|| naming::id_name(self.op)).flatten().map(|id| ((id, last), "operation_id"));
        let (id_hashed, by_id): (Vec<Candidate>, Vec<Candidate>) =
            id.into_iter().flat_map(fitted).partition(|c| c.name != c.said && c.name == naming::fit(&c.said));
        let hashed = hashed.map(|(name, said)| Candidate { name, rank: last, said, rule: "odata+hashed".to_owned() });
        let (first, next) = if transport { (summary, None) } else { (None, summary) };
        // Then, for such an id on a route that ends in its verb, the route's reading of it
        // (Stripe's `PostAppsSecretsDelete` → `delete_secrets`), before the id as written.
        let verb_route = (own && transport).then(|| naming::verb_route_name(self.op)).flatten();
        let verb_route =
            verb_route.map(|name| Candidate { said: name.clone(), name, rank: last, rule: "verb_route".to_owned() });
        let mut seen = BTreeSet::new();
        first
            .into_iter()
            .chain(verb_route)
            .chain(names.into_iter().zip(ranks).zip(rules).flat_map(fitted))
            .chain(next)
            .chain(by_id)
            .chain(hashed)
            .chain(id_hashed)
            .filter(|c| seen.insert(c.name.clone()))
            .collect()
    }

    /// Whether `name`, derived for this operation, reads a POST to an item as an update.
    fn updates_by_post(&self, name: &str) -> bool {
        self.op.method == Method::Post && self.op.path.ends_with('}') && naming::first_word(name) == "update"
    }

    fn declared_name(&self) -> bool {
        self.intent.is_some_and(|i| i.name.is_some())
    }
}

/// A name a tool may take: as served, its rank (lower is wanted more), and the name in full
/// that it says, which prose uses where the served name was shortened to fit (`…_6d0a2b`).
struct Candidate {
    name: String,
    rank: u32,
    said: String,
    /// What gave the name: a naming rule, and any shortening step after it.
    rule: String,
}

/// `rule`, with the step that fitted `said` into `name` when it had to be shortened.
fn shortening(rule: &str, name: &str, said: &str) -> String {
    if name == said {
        rule.to_owned()
    } else if name == naming::fit(said) {
        format!("{rule}+hashed")
    } else {
        format!("{rule}+shortened")
    }
}

/// A tool's name as assigned: served, said in full, and what gave it.
struct Assigned {
    name: String,
    said: String,
    rule: String,
}

/// Declared tools as declared; an undeclared mega-endpoint split into one tool per behaviour
/// (T2); everything else one tool per operation.
fn drafts<'a>(api: &'a Api, intents: &'a Intents, chosen: &[(usize, &'a Operation)]) -> Vec<Draft<'a>> {
    let mut out = Vec::new();
    for (index, op) in chosen {
        let found = split::detect(op, &api.defs);
        match (intents.tools.get(index), found) {
            (Some(declared), found) => {
                for intent in declared {
                    out.push(Draft { op, intent: Some(intent), split: found.clone(), variant: None });
                }
            }
            (None, Some(s)) => {
                for v in 0..s.variants.len() {
                    out.push(Draft { op, intent: None, split: Some(s.clone()), variant: Some(v) });
                }
            }
            (None, None) => out.push(Draft { op, intent: None, split: None, variant: None }),
        }
    }
    out
}

/// Declared names first, then derived names. Where two operations meet on a derived name, one
/// may keep it (the one whose name says most of its route, see `naming::Names`) and the others
/// move on to their next candidate (see `Draft::candidates`), until none meet or none has another;
/// the rest get `_2`, `_3`… in (path, method) order. Which names meet does not
/// depend on the order of the document, so neither do the names. Each name comes with the name
/// in full that it says (see [`Candidate`]).
fn assign_names(api: &Api, drafts: &[Draft<'_>], report: &mut Report) -> Vec<Assigned> {
    let mut taken: BTreeSet<String> = drafts.iter().filter(|s| s.declared_name()).map(Draft::base_name).collect();
    let scope = naming::api_namespace(&api.operations);
    let singletons = naming::Singletons::of(&api.operations);
    let candidates: Vec<Vec<Candidate>> = drafts.iter().map(|s| s.candidates(scope.as_deref(), &singletons)).collect();
    // What moving on to its next name costs a tool: how much more of its route it leaves
    // unsaid (`None`: it has no next name).
    let cost = |k: usize, level: usize| match (candidates[k].get(level), candidates[k].get(level + 1)) {
        (Some(now), Some(next)) => Some(next.rank.saturating_sub(now.rank)),
        _ => None,
    };
    let mut level = vec![0usize; drafts.len()];
    loop {
        let mut meeting: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (k, draft) in drafts.iter().enumerate() {
            if !draft.declared_name() {
                meeting.entry(candidates[k][level[k]].name.as_str()).or_default().push(k);
            }
        }
        let mut moved = false;
        for (name, ks) in &meeting {
            if ks.len() > 1 || taken.contains(*name) {
                // A declared name, or one that a tool has no other name for, sends the others
                // on. Otherwise the lowest rank keeps it, then the tool that would lose most by
                // moving; on a tie every one moves on.
                let best = |k: usize| (Reverse(candidates[k][level[k]].rank), cost(k, level[k]));
                let top = ks.iter().map(|&k| best(k)).max();
                let mut tops = ks.iter().copied().filter(|&k| Some(best(k)) == top);
                let stays = match (tops.next(), tops.next()) {
                    _ if taken.contains(*name) || ks.iter().any(|&k| cost(k, level[k]).is_none()) => None,
                    (Some(k), None) => Some(k),
                    _ => None,
                };
                for &k in ks.iter().filter(|&&k| Some(k) != stays) {
                    if level[k] + 1 < candidates[k].len() {
                        level[k] += 1;
                        moved = true;
                    }
                }
            }
        }
        if !moved {
            break;
        }
    }
    let mut out = Vec::with_capacity(drafts.len());
    let mut regrouped: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (k, draft) in drafts.iter().enumerate() {
        let Candidate { name, said, rule, .. } = &candidates[k][level[k]];
        // A declared name is the team's: never renumbered.
        if !draft.declared_name() {
            regrouped.entry(name.clone()).or_default().push(k);
        }
        out.push(Assigned { name: name.clone(), said: said.clone(), rule: rule.clone() });
    }
    // Every name served, so that a name said in context meets none.
    let mut served: BTreeSet<String> = out.iter().map(|a| a.name.clone()).collect();
    let renamed = |k: usize, name: &str, unique: &str, report: &mut Report| {
        let op = drafts[k].op;
        report.push(
            Diagnostic::note(codes::NAME_COLLISION, format!("{} is named `{unique}`: `{name}` is taken", op.label()))
                .at(&api.file, &op.pointer)
                .with_help("name it in the overlay (`tools: {<name>: {operation: ...}}`)"),
        );
    };
    for (name, ks) in regrouped {
        let mut numbered = ks.clone();
        if ks.len() > 1 || taken.contains(&name) {
            // `served` holds every name `taken` does.
            for (k, unique) in in_context(drafts, &name, &ks, |n| served.contains(n)) {
                numbered.retain(|&n| n != k);
                renamed(k, &name, &unique, report);
                taken.insert(unique.clone());
                served.insert(unique.clone());
                let rule = format!("{}+in_context", out[k].rule);
                out[k] = Assigned { name: unique.clone(), said: unique, rule };
            }
        }
        // Indices went in ascending, and `drafts` is in (path, method) order.
        for (n, k) in numbered.into_iter().enumerate() {
            if n == 0 && !taken.contains(&name) {
                taken.insert(name.clone());
                continue;
            }
            let mut suffix = n + 1;
            let unique = loop {
                let candidate = naming::fit(&format!("{name}_{suffix}"));
                if !taken.contains(&candidate) {
                    break candidate;
                }
                suffix += 1;
            };
            renamed(k, &name, &unique, report);
            taken.insert(unique.clone());
            served.insert(unique.clone());
            out[k].name = unique;
            out[k].rule.push_str("+numbered");
        }
    }
    out
}

/// For the tools `ks` that meet on `name`, the names that more of their routes give
/// (`naming::in_context`): each route that says more than the name is named with its nearest
/// other segments (`list_search_events` beside `list_events`), as few as tell it apart from the
/// others and from every name `used`. A route that says no more keeps the name, and what no
/// more of its route tells apart is left out, to be numbered.
fn in_context(drafts: &[Draft<'_>], name: &str, ks: &[usize], used: impl Fn(&str) -> bool) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    // A route with no more to say drops out at the first level it cannot reach.
    let mut pending = ks.to_vec();
    let mut level = 1;
    while !pending.is_empty() {
        let tries: Vec<(usize, Option<String>)> =
            pending.iter().map(|&k| (k, naming::in_context(drafts[k].op, name, level))).collect();
        let mut meets: BTreeMap<&str, usize> = BTreeMap::new();
        for said in tries.iter().filter_map(|(_, t)| t.as_deref()) {
            *meets.entry(said).or_default() += 1;
        }
        let taken_here: BTreeSet<&str> = out.iter().map(|(_, n): &(usize, String)| n.as_str()).collect();
        let mut next = Vec::new();
        let mut found = Vec::new();
        for (k, tried) in &tries {
            match tried {
                Some(t) if meets[t.as_str()] == 1 && !used(t) && !taken_here.contains(t.as_str()) => {
                    found.push((*k, t.clone()));
                }
                Some(_) => next.push(*k),
                None => {}
            }
        }
        out.extend(found);
        pending = next;
        level += 1;
    }
    out
}

/// The tool `draft` plans, served as `name`; `said` is that name in full, for prose.
fn tool(api: &Api, draft: &Draft<'_>, name: String, said: &str, intents: &Intents, report: &mut Report) -> Tool {
    let overlay = draft.intent.map(|i| &i.overlay);
    // The behaviour this tool is: an undeclared split's variant, or the one a declared tool
    // fixes (`fixed: {action: approve}`), whose `oneOf` branch then gives its fields.
    let behaviour = match (&draft.split, draft.variant, overlay) {
        (Some(s), Some(v), _) => Some((s, &s.variants[v])),
        (Some(s), None, Some(o)) => {
            let key = s.selector.key();
            o.fixed
                .iter()
                .find(|(k, _)| **k == key || k.as_str() == s.selector.field())
                .and_then(|(_, value)| s.variant(value))
                .map(|v| (s, v))
        }
        _ => None,
    };
    let mut op = std::borrow::Cow::Borrowed(draft.op);
    if let Some((_, v)) = behaviour
        && let Some(branch) = &v.body
        && let Some(body) = &draft.op.body
    {
        let mut owned = draft.op.clone();
        owned.body = Some(crate::resolve::RequestBody { schema: branch.clone(), ..body.clone() });
        op = std::borrow::Cow::Owned(owned);
    }
    let op: &Operation = &op;
    let description = description(api, op, overlay, behaviour, said, report);
    let title = match (overlay.and_then(|o| o.title.clone()), behaviour) {
        (Some(t), _) => t,
        // A split's behaviour, or a merge of several operations: one summary speaks for one
        // operation only, so the tool's name gives the title.
        (None, Some(_)) => describe::humanize(said),
        (None, None) if draft.merged().is_some() => describe::humanize(said),
        (None, None) => describe::title(op, said),
    };
    let Arguments { mut args, hidden, body, mut rest } = arguments(api, op, report);
    // Examples cost tokens in a schema (brief drops them) but make tool use examples.
    let examples = args.iter().filter_map(|a| api.defs.example(&a.schema).map(|e| (a.target.clone(), e))).collect();
    brief_arguments(&mut args, rest.as_mut(), &name);
    let mut tool = Tool {
        title,
        description,
        annotations: Annotations::from_method(op.method),
        operation: OperationRef {
            method: op.method,
            path: op.path.clone(),
            operation_id: op.operation_id.clone(),
            pointer: op.pointer.clone(),
        },
        args,
        body,
        rest,
        output: if op.accepted { operations_result(op) } else { output(op) },
        security: op.security.clone(),
        scopes: match overlay.and_then(|o| o.scopes.as_ref()) {
            Some(scopes) if scopes.is_empty() => Vec::new(),
            Some(scopes) => vec![scopes.clone()],
            None => op.scopes.clone(),
        },
        list_tool: None,
        fixed: Vec::new(),
        hidden,
        asks: Vec::new(),
        effects: None,
        approval_rule: None,
        pagination: None,
        key: None,
        declared: draft.intent.map(|i| (i.file.clone(), i.pointer.clone())),
        allow: overlay.map(|o| o.allow.clone()).filter(|a| !a.is_empty()),
        routes: Vec::new(),
        run: overlay.and_then(|o| o.run).or(intents.run),
        native: false,
        schema_file: intents.schema_files.get(&name).cloned(),
        long_running: op.accepted.then_some(LongRunning::Starts),
        accepted_output: op
            .success
            .as_ref()
            .filter(|r| op.accepted && r.status == "202")
            .and_then(|r| r.schema.clone()),
        sunset: None,
        aliases: Vec::new(),
        search_text: Default::default(),
        result_budget: crate::overlay::DEFAULT_RESULT_BUDGET,
        examples,
        name_rule: String::new(),
        name,
    };
    // An undeclared split fixes its selector; a declared one says so in `fixed`.
    if let (Some((s, v)), None) = (behaviour, draft.intent)
        && let Err(e) = intent::fix(&mut tool, &s.selector.key(), v.value.clone(), &api.defs)
    {
        report.push(
            Diagnostic::warning(codes::INVALID_SPEC, format!("{}: cannot split on {e}", op.label()))
                .at(&api.file, &op.pointer)
                .with_help("split it in the overlay (tools with `fixed` values)"),
        );
    }
    if let Some(i) = draft.intent {
        intent::apply(&mut tool, i, &api.defs, report);
        deprecation::apply(&mut tool, &i.overlay, &i.file, &i.pointer, report);
    }
    internals::leave_out(&mut tool, draft.intent.map(|i| &i.overlay.params), &api.file, &op.pointer, report);
    tool.result_budget = match draft.intent.and_then(|i| i.overlay.max_result_tokens.map(|b| (i, b))) {
        Some((i, b)) => crate::overlay::check_budget(b).unwrap_or_else(|| {
            report.push(
                crate::overlay::budget_error(b).at(&i.file, crate::diag::join_pointer(&i.pointer, "max_result_tokens")),
            );
            crate::overlay::DEFAULT_RESULT_BUDGET
        }),
        None => intents.result_budget.unwrap_or(crate::overlay::DEFAULT_RESULT_BUDGET),
    };
    // A merged tool's arguments each go to the operation the call chooses: kept as they are.
    if draft.merged().is_none() {
        intent::fix_only_values(&mut tool, &api.defs);
    }
    tool.annotations = intent::annotations(&tool, &naming::base_name(op), tool.effects.as_ref());
    if intents.annotation_profile == crate::overlay::AnnotationProfile::Confirm {
        intent::confirm_profile(&mut tool);
    }
    // Declared pagination, else what the result shows (H1); a declaration naming no argument
    // of the tool was reported with the overlay.
    match draft.intent.and_then(|i| i.overlay.paginate.as_ref()) {
        Some(p) if tool.args.iter().any(|a| a.name == p.cursor) => {
            pages::plan(&mut tool, op, p, intents.handle_ttl_secs, &api.defs, report);
        }
        Some(_) => {}
        // A merged tool's operations would each page their own way: only declared there.
        None if intents.no_detected_pagination || draft.merged().is_some() => {}
        None => {
            if let Some(p) = pages::detect(&tool, op, &api.defs) {
                pages::plan(&mut tool, op, &p, intents.handle_ttl_secs, &api.defs, report);
            }
        }
    }
    tool
}

/// Which tools the crate's own handlers run: in a native build, every tool the overlay does not
/// keep as a proxy; in a proxy build none, and a tool that can only run natively is an error.
fn decide_native(tools: &mut [Tool], settings: &Settings, report: &mut Report) {
    use crate::overlay::Run;
    for tool in tools {
        if settings.native {
            tool.native = tool.run != Some(Run::Proxy);
            continue;
        }
        let why = if tool.schema_file.is_some() {
            "is made from JSON Schema files, so only a native handler can run it"
        } else if tool.run == Some(Run::Native) {
            "is declared `run: native`"
        } else {
            continue;
        };
        let help = if tool.schema_file.is_some() {
            "generate a native crate (build.rs `Builder::native()`, or `mcp-gen build --native`)"
        } else {
            "generate a native crate (build.rs `Builder::native()`, or `mcp-gen build --native`), or declare the tool `run: proxy`"
        };
        let mut d = Diagnostic::error(codes::OVERLAY, format!("tool `{}` {why}, but this is a proxy build", tool.name))
            .with_help(help);
        if let Some((file, pointer)) = &tool.declared {
            d = d.at(file, pointer);
        }
        report.push(d);
    }
}

/// The success response's schema; for a write whose success has no body, the confirmation the
/// runtime sends instead (E5: a side effect is never answered with nothing).
fn output(op: &Operation) -> Option<Value> {
    let declared = op.success.as_ref();
    if let Some(schema) = declared.and_then(|r| r.schema.clone()) {
        return Some(schema);
    }
    let writes = !Annotations::from_method(op.method).read_only;
    let no_body = declared.is_none_or(|r| r.media_type.is_none());
    (writes && no_body).then(|| {
        json!({
            "type": "object",
            "description": "Confirmation that the call succeeded (the API returns no body).",
            "required": ["ok", "status", "message"],
            "properties": {
                "ok": {"const": true},
                "status": {"type": "integer", "description": "The HTTP status of the upstream answer."},
                "message": {"type": "string"},
            },
        })
    })
}

/// What the model reads of a tool: the overlay's description, else the behaviour's or the
/// operation's, cleaned, without sentences that address the model (D3, reported).
fn description(
    api: &Api,
    op: &Operation,
    overlay: Option<&crate::overlay::ToolOverlay>,
    behaviour: Option<(&split::Split, &split::Variant)>,
    said: &str,
    report: &mut Report,
) -> String {
    let fallback = format!("{} ({}).", describe::humanize(said), op.label());
    // The overlay is the team's own text; the spec's is untrusted (D3).
    match overlay.and_then(|o| o.description.as_deref()) {
        Some(d) => describe::shorten(&describe::clean(d), 1024),
        None => {
            let written = match behaviour.and_then(|(_, v)| v.description.as_deref()) {
                Some(d) => describe::sentence(&describe::clean(d)),
                None if behaviour.is_some() => format!("{}.", describe::humanize(said)),
                None => describe::description(op, &naming::first_word(said), &fallback),
            };
            let (kept, _) = describe::untrusted(&written);
            // Reported from the whole spec text, also what is not emitted: the team should know
            // its spec addresses models.
            let (_, dropped) = describe::untrusted(&describe::full_text(op));
            if !dropped.is_empty() {
                report.push(
                    Diagnostic::warning(
                        codes::INJECTION,
                        format!(
                            "{}: {} sentence(s) of the description address the model and are left out: \"{}\"",
                            op.label(),
                            dropped.len(),
                            describe::shorten(&dropped.join(" "), 160)
                        ),
                    )
                    .at(&api.file, &op.pointer)
                    .with_help(
                        "describe what the operation does; set the tool's description in the overlay to override",
                    ),
                );
            }
            if kept.is_empty() { fallback.clone() } else { kept }
        }
    }
}

/// The spec's argument text, briefly (T6); the overlay's own descriptions and id hints come
/// after.
fn brief_arguments(args: &mut [Arg], rest: Option<&mut Value>, tool: &str) {
    for arg in args.iter_mut() {
        brief::drop_label(&mut arg.schema, brief::OUTPUT_ONLY);
        brief::brief(&mut arg.schema, brief::Side::Input);
        if arg.required {
            brief::drop_label(&mut arg.schema, "Required.");
        }
        brief::drop_restating(&mut arg.schema, &arg.name, tool);
    }
    if let Some(r) = rest {
        brief::brief(r, brief::Side::Input);
    }
}

/// A long-running operation's result: its final success answer, when the spec declares one
/// beside the `202` (the `202`'s own body is what acceptance says, not the result).
fn operations_result(op: &Operation) -> Option<Value> {
    op.success.as_ref().filter(|r| r.status != "202").and_then(|r| r.schema.clone())
}

/// Toolsets: each entry a tool name, or an operation rule taking every tool made from the
/// operations it matches.
fn toolsets(api: &Api, intents: &Intents, tools: &[Tool], report: &mut Report) -> Vec<Toolset> {
    let mut out = Vec::new();
    for set in &intents.toolsets {
        let mut names = BTreeSet::new();
        let from_op = |index: usize, names: &mut BTreeSet<String>| {
            let op = &api.operations[index];
            let calls = |t: &&Tool| t.operations().any(|o| o.method == op.method && o.path == op.path);
            for t in tools.iter().filter(calls) {
                names.insert(t.name.clone());
            }
        };
        for index in &set.operations {
            from_op(*index, &mut names);
        }
        for (entry, pointer) in &set.entries {
            if tools.iter().any(|t| t.name == *entry) {
                names.insert(entry.clone());
                continue;
            }
            let before = names.len();
            for index in crate::overlay::find_operation(api, entry) {
                from_op(index, &mut names);
            }
            if names.len() == before {
                let candidates = tools.iter().map(|t| t.name.clone());
                let help = match crate::overlay::closest(entry, candidates, 0.6) {
                    Some(n) => format!("did you mean `{n}`?"),
                    None => "name a tool, or an operation rule such as `tag:billing` (see `mcp-gen plan`)".to_owned(),
                };
                report.push(
                    Diagnostic::warning(
                        codes::OVERLAY_UNUSED,
                        format!("toolset `{}` entry `{entry}` matches no tool", set.name),
                    )
                    .at(&set.file, pointer)
                    .with_help(help),
                );
            }
        }
        if names.is_empty() {
            report.push(
                Diagnostic::warning(codes::OVERLAY_UNUSED, format!("toolset `{}` has no tools", set.name))
                    .at(&set.file, &set.pointer)
                    .with_help("list tool names or operation rules under `tools`"),
            );
            continue;
        }
        out.push(Toolset {
            name: set.name.clone(),
            description: set.description.clone(),
            tools: names.into_iter().collect(),
        });
    }
    out
}

/// Whether a schema admits the empty object and nothing else: no properties, no others.
fn only_empty(shape: &Value) -> bool {
    let Some(map) = shape.as_object() else { return false };
    map.get("type").is_none_or(|t| t == "object")
        && map.get("additionalProperties") == Some(&Value::Bool(false))
        && map.get("properties").and_then(Value::as_object).is_none_or(serde_json::Map::is_empty)
        && !map.keys().any(|k| k == "patternProperties" || WHOLE_BODY_KEYWORDS.contains(&k.as_str()))
}

/// A parameter the model does not set: a credential the server sends (resolve
/// `credentials.rs`) or a wire-format or quota setting it leaves at the upstream's default
/// (`transport.rs`).
fn servers_own(p: &crate::resolve::Parameter) -> bool {
    p.credential.is_some() || transport::left_at_upstream_default(p)
}

/// Where a parameter goes in the upstream request.
fn target_of(p: &crate::resolve::Parameter) -> Target {
    match p.location {
        ParamLocation::Path => Target::Path { name: p.name.clone(), style: p.style, explode: p.explode },
        ParamLocation::Query => Target::Query {
            name: p.name.clone(),
            style: p.style,
            explode: p.explode,
            allow_reserved: p.allow_reserved,
            json: p.json,
        },
        ParamLocation::Header => Target::Header { name: p.name.clone(), json: p.json },
        ParamLocation::Cookie => Target::Cookie { name: p.name.clone(), json: p.json },
    }
}

/// Keywords on a body object that constrain it as a whole; merging its properties into the
/// tool's top level would lose them, so such bodies stay one `body` argument.
const WHOLE_BODY_KEYWORDS: &[&str] = &[
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "$ref",
    "patternProperties",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "propertyNames",
    "unevaluatedProperties",
];

/// What an operation's parameters and body become.
struct Arguments {
    /// What the model sends.
    args: Vec<Arg>,
    /// Credentials the server sends and wire-format or quota settings left at their default: out of
    /// the model's view, listed for review.
    hidden: Vec<Arg>,
    body: Option<BodyPlan>,
    /// What unknown arguments are (see [`Tool::rest`]).
    rest: Option<Value>,
}

fn arguments(api: &Api, op: &Operation, report: &mut Report) -> Arguments {
    let mut taken = BTreeSet::new();
    let mut args = Vec::new();
    let mut hidden = Vec::new();
    let unique = |wanted: &str, prefix: &str, taken: &mut BTreeSet<String>| -> String {
        let base = if taken.contains(wanted) { format!("{prefix}_{wanted}") } else { wanted.to_owned() };
        naming::numbered(&base, taken)
    };
    // Path parameters in template order, then query, header and cookie in document order.
    let order = template_names(&op.path);
    let mut params: Vec<&crate::resolve::Parameter> = op.parameters.iter().collect();
    params.sort_by_key(|p| {
        let pos = order.iter().position(|n| *n == p.name && p.location == ParamLocation::Path).unwrap_or(usize::MAX);
        (p.location, pos)
    });
    for p in params {
        if p.location == ParamLocation::Path && !order.contains(&p.name) {
            report.push(
                Diagnostic::warning(
                    codes::INVALID_SPEC,
                    format!("{}: path parameter `{}` is not in the path template; ignored", op.label(), p.name),
                )
                .at(&api.file, &p.pointer)
                .with_help(format!("add `{{{}}}` to the path or remove the parameter", p.name)),
            );
            continue;
        }
        if servers_own(p) {
            hidden.push(Arg {
                name: p.name.clone(),
                target: target_of(p),
                required: p.required,
                schema: p.schema.clone(),
            });
            continue;
        }
        let name = unique(&p.name, p.location.as_str(), &mut taken);
        args.push(Arg { name, target: target_of(p), required: p.required, schema: p.schema.clone() });
    }
    // A body that can only be `{}` on a method whose body means nothing (Stripe declares one on
    // every GET) is no argument: there is nothing to send.
    let bodiless = matches!(op.method, Method::Get | Method::Head | Method::Delete | Method::Options);
    let Some(body) = op.body.as_ref().filter(|b| !(bodiless && only_empty(api.defs.follow(&b.schema)))) else {
        return Arguments { args, hidden, body: None, rest: None };
    };
    let mut plan = BodyPlan {
        media_type: body.media_type.clone(),
        encoding: body.encoding,
        required: body.required,
        files: Vec::new(),
    };
    let shape = api.defs.follow(&body.schema);
    // An optional body with required fields cannot be flattened: "these fields are required
    // when a body is sent" has no top-level form, so it stays one optional `body` argument.
    let required_inside = shape.get("required").and_then(Value::as_array).is_some_and(|r| !r.is_empty());
    let mergeable = (body.required || !required_inside)
        && !matches!(body.encoding, BodyEncoding::Text | BodyEncoding::Binary)
        && shape.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty())
        && shape.get("type").is_none_or(|t| t == "object")
        && !WHOLE_BODY_KEYWORDS.iter().any(|k| shape.get(*k).is_some());
    if !mergeable {
        let name = unique("body", "request", &mut taken);
        let mut schema = match body.encoding {
            BodyEncoding::Binary => as_base64(&body.schema, Some(&body.media_type)),
            _ => body.schema.clone(),
        };
        if let (Some(d), Value::Object(map)) = (&body.description, &mut schema)
            && !map.contains_key("description")
        {
            map.insert("description".to_owned(), Value::String(d.clone()));
        }
        args.push(Arg { name, target: Target::Body, required: body.required, schema });
        return Arguments { args, hidden, body: Some(plan), rest: None };
    }
    let required: BTreeSet<&str> = shape
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // An RPC route's action reads its body: an optional query parameter of a body field's name
    // repeats it (AWS's descriptions add `NextToken`, `MaxResults` query parameters to every
    // paginated action), so it is left unsent and the field keeps the plain name.
    let rpc = naming::is_rpc_route(&op.path);
    if let Some(props) = shape.get("properties").and_then(Value::as_object) {
        for (prop, schema) in props {
            // Server-assigned fields are not inputs.
            if brief::server_assigned(api.defs.follow(schema)) || brief::server_assigned(schema) {
                continue;
            }
            if rpc
                && let Some(i) = args
                    .iter()
                    .position(|a| !a.required && matches!(&a.target, Target::Query { name, .. } if name == prop))
            {
                let query = args.remove(i);
                taken.remove(&query.name);
                hidden.push(query);
            }
            let name = unique(prop, "body", &mut taken);
            let mut schema = schema.clone();
            if body.encoding == BodyEncoding::Multipart && is_binary(api.defs.follow(&schema), &api.defs) {
                schema = as_base64(&schema, None);
                plan.files.push(prop.clone());
            }
            args.push(Arg {
                name,
                target: Target::BodyField { name: prop.clone() },
                required: body.required && required.contains(prop.as_str()),
                schema,
            });
        }
    }
    let rest = match shape.get("additionalProperties") {
        Some(Value::Bool(false)) | None => None,
        Some(Value::Bool(true)) => Some(json!({})),
        Some(schema) => Some(schema.clone()),
    };
    Arguments { args, hidden, body: Some(plan), rest }
}

/// A file in a multipart body: a binary string (3.0 `format: binary`, 3.1 a media type without
/// an encoding), or an array of them.
fn is_binary(schema: &Value, defs: &Defs) -> bool {
    let binary = |s: &Value| {
        s.get("type").and_then(Value::as_str) == Some("string")
            && (s.get("format").and_then(Value::as_str) == Some("binary")
                || (s.get("contentMediaType").is_some() && s.get("contentEncoding").is_none()))
    };
    binary(schema)
        || (schema.get("type").and_then(Value::as_str) == Some("array")
            && schema.get("items").is_some_and(|i| binary(defs.follow(i))))
}

/// A file as a JSON argument: base64 text (`contentEncoding`), the format that only meant
/// "raw bytes" dropped, every other keyword kept.
fn as_base64(schema: &Value, media_type: Option<&str>) -> Value {
    let one = |s: &Value| {
        let mut m = s.as_object().cloned().unwrap_or_default();
        if m.get("format").and_then(Value::as_str) == Some("binary") {
            m.shift_remove("format");
        }
        m.insert("type".to_owned(), json!("string"));
        m.insert("contentEncoding".to_owned(), json!("base64"));
        if let Some(media) = media_type {
            m.entry("contentMediaType").or_insert_with(|| json!(media));
        }
        let note = "The file's bytes, base64-encoded.";
        match m.get_mut("description") {
            // First, so a shortened description keeps it.
            Some(Value::String(d)) if !d.contains("base64") => *d = format!("{note} {d}"),
            Some(_) => {}
            None => {
                m.insert("description".to_owned(), json!(note));
            }
        }
        Value::Object(m)
    };
    match schema.get("type").and_then(Value::as_str) {
        Some("array") => {
            let mut m = schema.as_object().cloned().unwrap_or_default();
            if let Some(items) = m.get("items").cloned() {
                m.insert("items".to_owned(), one(&items));
            }
            Value::Object(m)
        }
        _ => one(schema),
    }
}

/// The generated server's own environment variables, after its prefix (see the runtime's `cli`).
const SERVER_VARIABLES: &[&str] = &[
    "HTTP",
    "STDIO",
    "UPSTREAM_URL",
    "MOCK",
    "NO_ANSWER_CHECK",
    "BASE_PATH",
    "TIMEOUT_MS",
    "STORE",
    "WAIT_MS",
    "ALLOWED_HOSTS",
    "ALLOWED_ORIGINS",
    "MAX_PROTOCOL",
    "VARIANTS",
    "HANDLE_KEY",
    "LOG",
    "PUBLIC_URL",
    "AUTH_ISSUER",
    "AUTH_AUDIENCE",
    "AUTH_INTROSPECTION",
    "INTROSPECTION_CLIENT_ID",
    "INTROSPECTION_CLIENT_SECRET",
    "INSECURE_NO_AUTH",
    "RATE_LIMIT",
    "RATE_BURST",
    "MAX_IN_FLIGHT",
    "MAX_BODY_BYTES",
    "UPSTREAM_TOKEN_EXCHANGE",
    "UPSTREAM_EXCHANGE_GRANT",
    "UPSTREAM_EXCHANGE_AUDIENCE",
    "UPSTREAM_EXCHANGE_SCOPE",
    "EXCHANGE_CLIENT_ID",
    "EXCHANGE_CLIENT_SECRET",
];

fn schemes(
    api: &Api,
    prefix: &str,
    used: &BTreeSet<&str>,
    undeclared: &[crate::overlay::Credential],
    report: &mut Report,
) -> Vec<Scheme> {
    let mut out = Vec::new();
    // The server's own variables (`serve` flags, keys) are not a scheme's to take.
    let mut env_taken: BTreeSet<String> = SERVER_VARIABLES.iter().map(|v| format!("{prefix}_{v}")).collect();
    for name in used {
        let Some(s) = api.schemes.get(*name) else {
            report.push(
                Diagnostic::warning(
                    codes::INVALID_SPEC,
                    format!("security requirement names `{name}`, which is not in components/securitySchemes"),
                )
                .at(&api.file, "/components/securitySchemes")
                .with_help(format!("define `{name}` under components/securitySchemes")),
            );
            continue;
        };
        // `petstore_auth` under prefix PETSTORE is PETSTORE_AUTH, not PETSTORE_PETSTORE_AUTH.
        let shouty = name.to_shouty_snake_case();
        let base = if shouty.starts_with(&format!("{prefix}_")) { shouty } else { format!("{prefix}_{shouty}") };
        let with = |suffix: &str| if base.ends_with(suffix) { base.clone() } else { format!("{base}{suffix}") };
        let mut env = match &s.kind {
            SchemeKind::ApiKey { .. } => {
                vec![if base.ends_with("_KEY") || base.ends_with("_TOKEN") { base.clone() } else { with("_KEY") }]
            }
            // A static token, or the client's id and secret (and where to send them, when the
            // spec's token URL is not the one to use).
            SchemeKind::OAuth2 { client_credentials: Some(_) } => {
                vec![
                    with("_TOKEN"),
                    format!("{base}_CLIENT_ID"),
                    format!("{base}_CLIENT_SECRET"),
                    format!("{base}_TOKEN_URL"),
                ]
            }
            SchemeKind::Bearer | SchemeKind::OAuth2 { .. } | SchemeKind::OpenIdConnect => vec![with("_TOKEN")],
            SchemeKind::Basic => vec![format!("{base}_USERNAME"), format!("{base}_PASSWORD")],
            SchemeKind::Undeclared { .. } => vec![with("_KEY")],
        };
        for e in &mut env {
            while !env_taken.insert(e.clone()) {
                e.push_str("_2");
            }
        }
        out.push(Scheme { name: (*name).to_owned(), kind: s.kind.clone(), env });
    }
    // The overlay's own credentials keep the variable it names: the team chose it.
    for c in undeclared {
        let (location, name) = match (&c.header, &c.query, &c.cookie) {
            (Some(h), _, _) => (ParamLocation::Header, h),
            (_, Some(q), _) => (ParamLocation::Query, q),
            (_, _, Some(k)) => (ParamLocation::Cookie, k),
            // Reported by the overlay's check.
            _ => continue,
        };
        if !env_taken.insert(c.env.clone()) {
            report.push(
                Diagnostic::error(codes::OVERLAY, format!("credential variable `{}` is already the server's", c.env))
                    .with_help("name another variable in server.credentials"),
            );
            continue;
        }
        let kind = SchemeKind::Undeclared { location, name: name.clone(), prefix: c.prefix.clone() };
        out.push(Scheme { name: c.env.to_lowercase(), kind, env: vec![c.env.clone()] });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_names_from_titles() {
        assert_eq!(name_from_title("Swagger Petstore - OpenAPI 3.0"), "petstore");
        assert_eq!(name_from_title("GitHub v3 REST API"), "github");
        assert_eq!(name_from_title("API"), "api");
        assert_eq!(name_from_title("GitHub's official OpenAPI spec"), "github");
        assert_eq!(name_from_title("Adyen’s Checkout API"), "adyen-checkout");
        assert_eq!(name_from_title("The Twilio REST API for Voice"), "twilio-voice");
    }

    #[test]
    fn annotations_follow_http_semantics() {
        let get = Annotations::from_method(Method::Get);
        assert!(get.read_only && !get.destructive && get.idempotent);
        let post = Annotations::from_method(Method::Post);
        assert!(!post.read_only && !post.destructive && !post.idempotent);
        let put = Annotations::from_method(Method::Put);
        assert!(put.idempotent && put.destructive);
        let delete = Annotations::from_method(Method::Delete);
        assert!(delete.destructive && delete.idempotent);
    }
}
