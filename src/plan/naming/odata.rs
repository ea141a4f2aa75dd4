//! Routes of OData services as Microsoft's OpenAPI converter describes them (Microsoft Graph:
//! 11,000 operations in v1.0, 22,000 in beta). Their operationIds spell the whole route
//! (`me.calendarGroups.calendars.events.instances.GetMultiValueExtendedProperties`,
//! `groups.group.events.event.instances.event.forward`), and what the route does is a segment of
//! its own: a bound action or function (`/microsoft.graph.forward`,
//! `/microsoft.graph.delta()`), a count (`/$count`), a type cast (`/microsoft.graph.group`), a
//! reference (`/$ref`) or a media stream (`/$value`). Such operations are named from the route,
//! verb first (T1): `forward_group_event_instance`, `count_me_contact_folder_contacts`,
//! `list_group_member_of_as_group`, `add_group_member_ref`. A name over [`MAX_LEN`] keeps its
//! verb, its root (whose data: `me`, a user, a group) and as many of the nearest collections as
//! fit, instead of losing its end to a hash.

use std::cmp::Reverse;
use std::collections::BTreeSet;

use super::shorten::{HASH_LEN, abbreviated, fit, tagged};
use super::{MAX_LEN, compound_verb, finished, is_action_verb, is_noise, last_segment, singular, snake_words};
use crate::resolve::{Method, Operation};

/// How many shortened names an operation may try when its full name is too long.
const MAX_SHORTENED: usize = 8;

/// The names of an OData operation, most wanted first, each with its rank: how much of the
/// route it leaves unsaid. Where names meet, the lowest rank keeps its name (a full name before a
/// shortening, `/me/calendar` before `/me/calendars/{id}`).
#[derive(Debug, Default, PartialEq)]
pub struct Names {
    pub names: Vec<String>,
    pub ranks: Vec<u32>,
    /// For a name too long to serve whole, the one no other route meets: the most nouns that fit
    /// beside a hash of the full name, and that full name (what prose says). Many routes reach
    /// one entity (`/users/{id}/calendars/{id}/calendarView/{id}/instances/{id}/…` and a dozen
    /// more), so every shortening of such a name may be taken; this one still says verb first
    /// what the tool does to what.
    pub hashed: Option<(String, String)>,
}

impl Names {
    fn push(&mut self, name: String, rank: u32) {
        if !self.names.contains(&name) {
            self.names.push(name);
            self.ranks.push(rank);
        }
    }

    /// Most wanted first, by rank (stable).
    fn sort(&mut self) {
        let mut pairs: Vec<(String, u32)> = self.names.drain(..).zip(self.ranks.drain(..)).collect();
        pairs.sort_by_key(|&(_, rank)| rank);
        (self.names, self.ranks) = pairs.into_iter().unzip();
    }
}

/// The rank of the first shortening.
const SHORTENED: u32 = 10;

/// Ranks count, within one form, the collections a name respells as one item
/// (`agreements/{id}/acceptances` said `agreement_acceptance`): among names alike, the one
/// closest to its route (`/agreementAcceptances`) keeps it.
const RESPELLINGS: u32 = 32;

/// The singleton segments of a document's routes, each by the route before it: `/me/calendar`
/// (the default calendar) beside `/me/calendars/{calendar-id}`. A keyed collection named as one
/// item reads like the singleton it shadows; written as the route writes it, it does not.
#[derive(Debug, Default)]
pub struct Singletons(BTreeSet<(String, String)>);

impl Singletons {
    pub fn of(operations: &[Operation]) -> Self {
        let mut out = BTreeSet::new();
        for op in operations {
            let segments: Vec<&str> = op.path.split('/').filter(|s| !s.is_empty()).collect();
            for (i, segment) in segments.iter().enumerate() {
                let keyed = segments.get(i + 1).is_some_and(|next| is_key(next));
                if !keyed && !is_key(segment) && !segment.starts_with('$') && qualified(segment).is_none() {
                    out.insert((route(&segments[..i]), snake_words(segment).join("_")));
                }
            }
        }
        Singletons(out)
    }

    /// Whether the collection `segment`, keyed after `parent`, shadows a singleton.
    fn shadowed(&self, parent: &[&str], segment: &str) -> bool {
        let mut words = snake_words(segment);
        if let Some(last) = words.last_mut() {
            *last = singular(last);
        }
        self.0.contains(&(route(parent), words.join("_")))
    }
}

/// A route with its keys left unnamed (`/me/calendars/{}`), to compare routes by.
fn route(segments: &[&str]) -> String {
    segments.iter().map(|s| if is_key(s) { "{}" } else { s }).collect::<Vec<_>>().join("/")
}

/// The names of an OData operation, in a document with these singletons; `None` for any other
/// operation.
pub fn names(op: &Operation, singletons: &Singletons) -> Option<Names> {
    if !is_odata(op) {
        return None;
    }
    let reading = read(op, singletons)?;
    let mut names = reading.render();
    // A function that names its own verb may also be read as what it returns: the workbook's
    // `tables/count()` is `get_…_tables_count` beside `$count`'s `count_…_tables`.
    if let Some((verb, rest)) = &reading.returns {
        let other = Reading { verb: verb.clone(), rest: rest.clone(), returns: None, ..reading.clone() };
        let more = other.render();
        for (name, rank) in more.names.into_iter().zip(more.ranks) {
            names.push(name, rank + RESPELLINGS);
        }
        names.sort();
    }
    Some(names)
}

/// Operations of Microsoft's converter carry `x-ms-docs-operation-type`, except counts and type
/// casts, whose ids start with `Get.` (`Get.Count.contacts-31d1`,
/// `Get.microsoft.graph.directoryObject.Item.As.microsoft.graph.group-9623`). A count, a
/// reference or a media stream without an id is an OData convention on any service.
pub fn is_odata(op: &Operation) -> bool {
    let last = last_segment(&op.path).unwrap_or_default();
    match op.operation_id.as_deref() {
        _ if op.extensions.contains_key("x-ms-docs-operation-type") => true,
        Some(id) => id.starts_with("Get.") && (last == "$count" || qualified(last).is_some()),
        None => matches!(last, "$count" | "$ref" | "$value"),
    }
}

/// A namespace-qualified segment (`microsoft.graph.forward`, `microsoft.graph.security.applyHold`,
/// `microsoft.graph.range(address='{address}')`): its name and whether it is called with
/// parentheses (a function).
fn qualified(segment: &str) -> Option<(&str, bool)> {
    let (head, call) = match segment.split_once('(') {
        Some((head, _)) => (head, true),
        None => (segment, false),
    };
    let (namespace, name) = head.rsplit_once('.')?;
    let identifier = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    (namespace.split('.').all(identifier) && identifier(name)).then_some((name, call))
}

/// What a route reads as: the verb's words, the nouns along the route, and the words after the
/// nouns (an action's object, `ref`).
#[derive(Clone, Debug)]
struct Reading {
    verb: Vec<String>,
    nouns: Vec<Noun>,
    rest: Vec<String>,
    /// The names of a function's parameters, each as words (`getYammerDeviceUsageUserDetail(period=…)`
    /// and `(date=…)` are two functions).
    params: Vec<Vec<String>>,
    /// A function's other reading, as what it returns: `get` and all its words.
    returns: Option<(Vec<String>, Vec<String>)>,
    /// Whether the first noun says whose data this is (`me`, one user, one group) rather than
    /// which area of the service (`deviceManagement`, `admin`).
    owned: bool,
}

/// One segment's words, and whether they name one item: because a key follows
/// (`calendars/{calendar-id}`), or because the verb makes or names one (a create, a reference).
#[derive(Clone, Debug)]
struct Noun {
    words: Vec<String>,
    keyed: bool,
    one: bool,
    /// Keyed, and named as one item it reads like a singleton of the same route.
    shadows: bool,
}

impl Noun {
    fn new(words: Vec<String>) -> Self {
        Noun { words, keyed: false, one: false, shadows: false }
    }

    /// The words as named: one item in the singular. `as_written` keeps a keyed collection as
    /// the route writes it, the only difference between `/me/calendar/events` (the default
    /// calendar) and `/me/calendars/{calendar-id}/events`.
    fn said(&self, as_written: bool) -> impl Iterator<Item = String> + '_ {
        let singular_last = self.one || (self.keyed && !as_written);
        let n = self.words.len();
        self.words
            .iter()
            .enumerate()
            .map(move |(i, w)| if singular_last && i + 1 == n { singular(w) } else { w.clone() })
    }

    /// Whether naming it one item changes how it is spelled (`calendars/{id}` → `calendar`).
    fn respelled(&self, as_written: bool) -> bool {
        !self.one && self.keyed && !as_written && self.words.last().is_some_and(|w| singular(w) != *w)
    }
}

/// What the last segment of a route does.
enum Tail {
    /// A plain entity set, entity or property: the method says what happens.
    Plain,
    Count,
    Ref,
    /// A bound action (POST) or function (called with parentheses), by its name's words.
    Call(Vec<String>),
    /// A type cast: the route's items of one derived type.
    Cast,
}

fn read(op: &Operation, singletons: &Singletons) -> Option<Reading> {
    let segments: Vec<&str> = op.path.split('/').filter(|s| !s.is_empty()).collect();
    let mut nouns: Vec<Noun> = Vec::new();
    let mut params = Vec::new();
    let mut returns = None;
    let mut tail = Tail::Plain;
    // Whether the last noun is one item (a key follows it).
    let mut item = false;
    let mut owned = segments.first() == Some(&"me");
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        if is_key(segment) {
            if let Some(noun) = nouns.last_mut() {
                noun.keyed = true;
                noun.shadows = i > 0 && singletons.shadowed(&segments[..i - 1], segments[i - 1]);
                item = true;
            }
            owned |= nouns.len() == 1;
            continue;
        }
        item = false;
        match *segment {
            "$count" => tail = Tail::Count,
            "$ref" => tail = Tail::Ref,
            "$value" => nouns.push(Noun::new(vec!["content".to_owned()])),
            _ => match qualified(segment) {
                Some((name, call)) if last && (call || op.method == Method::Post) => {
                    tail = Tail::Call(snake_words(name));
                    params = call_params(segment);
                }
                Some((name, false)) if last => {
                    tail = Tail::Cast;
                    nouns.push(Noun::new(std::iter::once("as".to_owned()).chain(snake_words(name)).collect()));
                }
                // A cast or a function inside the route narrows what follows.
                Some((name, call)) => {
                    let words = snake_words(name);
                    nouns.push(Noun::new(if call {
                        words
                    } else {
                        std::iter::once("as".to_owned()).chain(words).collect()
                    }));
                }
                None if is_noise(segment) => {}
                None => nouns.push(Noun::new(snake_words(segment))),
            },
        }
    }
    nouns.retain(|n| !n.words.is_empty());
    let said = said_verb(op);
    let (verb, rest) = match tail {
        Tail::Count => (vec!["count".to_owned()], Vec::new()),
        Tail::Call(words) if words.is_empty() => return None,
        // The workbook's functions (`…/workbook/functions/microsoft.graph.abs`) are Excel's
        // `ABS`, `VLOOKUP`…, not verbs.
        Tail::Call(words) if nouns.last().is_some_and(|n| n.words.last().is_some_and(|w| w == "functions")) => {
            if let Some(noun) = nouns.last_mut() {
                noun.one = true;
            }
            (vec!["call".to_owned()], words)
        }
        Tail::Call(words) if op.method == Method::Post => phrase(words),
        Tail::Call(words) if is_action_verb(&words[0]) => {
            returns = Some((vec!["get".to_owned()], words.clone()));
            phrase(words)
        }
        // A function named for what it returns (`delta()`, `recent()`, `usedRange()`).
        Tail::Call(words) => (vec!["get".to_owned()], words),
        Tail::Ref => {
            let verb = match op.method {
                Method::Post => "add",
                Method::Delete => "remove",
                Method::Put | Method::Patch => "set",
                Method::Get if item || said.as_deref() == Some("get") => "get",
                Method::Get => "list",
                _ => return None,
            };
            let list = verb == "list";
            if let Some(noun) = nouns.last_mut() {
                noun.one = true;
            }
            (vec![verb.to_owned()], vec![if list { "refs" } else { "ref" }.to_owned()])
        }
        Tail::Cast => {
            // `Get.…Items.As.…` lists, `Get.…Item.As.…` gets one; without an id the route says.
            let id = op.operation_id.as_deref().unwrap_or_default();
            let before = segments.len().checked_sub(2).and_then(|i| segments.get(i)).copied().unwrap_or_default();
            let list = if id.contains(".Items.As.") {
                true
            } else if id.contains(".Item.As.") {
                false
            } else {
                !before.starts_with('{') && plural(nouns.len().checked_sub(2).and_then(|i| nouns.get(i)))
            };
            (vec![if list { "list" } else { "get" }.to_owned()], Vec::new())
        }
        Tail::Plain => {
            let verb = match (said.as_deref(), op.method) {
                (Some(verb), _) => verb.to_owned(),
                (None, Method::Get | Method::Head) if !item && plural(nouns.last()) => "list".to_owned(),
                (None, Method::Get | Method::Head) => "get".to_owned(),
                (None, Method::Post) => "create".to_owned(),
                (None, Method::Put | Method::Patch) => "update".to_owned(),
                (None, Method::Delete) => "delete".to_owned(),
                (None, Method::Options | Method::Trace) => return None,
            };
            // A create makes one.
            if verb == "create"
                && let Some(noun) = nouns.last_mut()
            {
                noun.one = true;
            }
            (vec![verb], Vec::new())
        }
    };
    Some(Reading { verb, nouns, rest, params, returns, owned })
}

/// The verb the converter's id states for a plain operation (`users.ListMemberOf`,
/// `groups.UpdatePhotoContent`, `applications.CreateRefOwners`), lowercased.
fn said_verb(op: &Operation) -> Option<String> {
    let id = op.operation_id.as_deref()?;
    let (_, last) = id.rsplit_once('.')?;
    let verb = snake_words(last).into_iter().next()?;
    matches!(verb.as_str(), "list" | "get" | "create" | "update" | "delete").then_some(verb)
}

/// Whether a noun's last word is a plural (`events`, not `calendar` nor `member_of`).
fn plural(noun: Option<&Noun>) -> bool {
    noun.and_then(|n| n.words.last()).is_some_and(|w| singular(w) != *w)
}

/// The parameters' names of a function call (`image(width={width},height={height})` →
/// `[[width], [height]]`).
fn call_params(segment: &str) -> Vec<Vec<String>> {
    let inside = segment.split_once('(').map_or("", |(_, args)| args.trim_end_matches(')'));
    inside.split(',').filter_map(|arg| arg.split_once('=')).map(|(name, _)| snake_words(name)).collect()
}

/// An action's words parted into its verb and its object: `sendMail` → `send` + `mail`,
/// `copyToSectionGroup` → `copy` + `to_section_group`. A modified verb stays whole
/// (`undoSoftDelete`, `tentativelyAccept`, `bulkRestore…`), and so does a verb with its particle
/// (`replyAll`, `setUp…`, `shutDown`, `clockIn`, `rebootNow`).
fn phrase(mut words: Vec<String>) -> (Vec<String>, Vec<String>) {
    let modifier = |w: &str| {
        (w.len() > 4 && w.ends_with("ly"))
            || matches!(w, "batch" | "bulk" | "force" | "hard" | "self" | "soft" | "undo")
    };
    // A product's name before the verb is part of the object (`onenotePatchContent`,
    // `windowsDefenderUpdateSignatures`).
    let lead = match words.first() {
        Some(first) if !modifier(first) && !is_action_verb(first) => {
            words.iter().position(|w| is_action_verb(w)).unwrap_or(0)
        }
        _ => 0,
    };
    let object: Vec<String> = words.drain(..lead).collect();
    // `createOrGet` is one verb.
    let mut n = compound_verb(&words).map_or(1, |(_, used)| used);
    while n < words.len() && modifier(&words[n - 1]) {
        n += 1;
    }
    let alone = n + 1 == words.len();
    if let Some(next) = words.get(n)
        && (matches!(next.as_str(), "down" | "now" | "off" | "out" | "up")
            || (alone && matches!(next.as_str(), "all" | "in")))
    {
        n += 1;
    }
    let rest = object.into_iter().chain(words[n..].iter().cloned()).collect();
    let mut verb = words;
    verb.truncate(n);
    (verb, rest)
}

/// A key segment: `{user-id}`, or a composite key (`id='{id}',policyId='{policyId}'`).
fn is_key(segment: &str) -> bool {
    segment.starts_with('{') || (segment.contains("={") || segment.contains("='{")) && !segment.contains('(')
}

impl Reading {
    /// The full name when it fits, then the nearest collections that fit, most kept first, with
    /// the owner kept (`me`, a user) and an area dropped first (`deviceManagement`). Each also
    /// with a keyed collection as written and with a function's parameters: what tells apart two
    /// routes that read alike. A name too long to serve whole may also be said in full with
    /// common abbreviations (`auth`, `config`), after all those; and gets [`Names::hashed`].
    fn render(&self) -> Names {
        let plain = Form { written: Written::None, params: 0 };
        let all: Vec<&Noun> = self.nouns.iter().collect();
        let mut out = self.ranked();
        let full = self.name(&all, plain);
        if full.len() > MAX_LEN {
            let short = self.abbreviated();
            let abbreviated = short.name(&short.nouns.iter().collect::<Vec<_>>(), plain);
            if abbreviated.len() <= MAX_LEN {
                out.push(abbreviated, out.ranks.iter().max().map_or(0, |r| r + 1));
            }
            // The hash is of the route's full name with every collection as written and every
            // parameter: what tells two routes apart.
            let whole = self.name(&all, Form { written: Written::All, params: self.params.len() });
            out.hashed = Some((short.hashed_name(&whole), full.clone()));
        }
        if out.names.is_empty() {
            out.push(full, 0);
        }
        out
    }

    /// Every noun, then fewer: (front, back) windows of how many nouns are kept from the root
    /// and from the end, most kept first. An owner is kept before anything else; an area is the
    /// first to go.
    fn kept(&self) -> Vec<Vec<&Noun>> {
        let all: Vec<&Noun> = self.nouns.iter().collect();
        let n = all.len();
        let mut windows: Vec<(usize, usize)> =
            (0..n.saturating_sub(1)).flat_map(|front| (1..n - front).map(move |back| (front, back))).collect();
        let owned = self.owned;
        windows.sort_by_key(|&(front, back)| {
            let order = if owned { (front == 0, front > 1) } else { (front > 0, front > 1) };
            (Reverse(front + back), order, Reverse(back))
        });
        let fewer =
            windows.into_iter().map(|(front, back)| all[..front].iter().chain(&all[n - back..]).copied().collect());
        std::iter::once(all.clone()).chain(fewer).collect()
    }

    fn ranked(&self) -> Names {
        let plain = Form { written: Written::None, params: 0 };
        let mut kept = self.kept().into_iter();
        let all = kept.next().unwrap_or_default();
        let shortened = kept.filter(|kept| self.len(kept, plain) <= MAX_LEN).take(MAX_SHORTENED);
        let ranked = std::iter::once((0, all)).chain((SHORTENED..).step_by(3).zip(shortened));
        let mut out = Names::default();
        for (rank, kept) in ranked {
            // Each collection that shadows a singleton as written, in the full name; every keyed
            // collection as written, in any.
            let one_written =
                if rank == 0 { (0..kept.len()).filter(|&i| kept[i].shadows).collect() } else { Vec::new() };
            let forms = std::iter::once((plain, 0))
                .chain(one_written.into_iter().map(|i| (Form { written: Written::One(i), params: 0 }, 1)))
                .chain(self.with_params(&kept, Written::None).map(|f| (f, 1)))
                .chain([(Form { written: Written::All, params: 0 }, 2)])
                .chain(self.with_params(&kept, Written::All).map(|f| (f, 2)));
            for (form, worse) in forms {
                if self.len(&kept, form) <= MAX_LEN {
                    let respelled =
                        kept.iter().enumerate().filter(|&(i, n)| n.respelled(form.written.covers(i))).count();
                    let rank = (rank + worse) * RESPELLINGS
                        + u32::try_from(respelled).unwrap_or(RESPELLINGS - 1).min(RESPELLINGS - 1);
                    out.push(self.name(&kept, form), rank);
                }
            }
        }
        out
    }

    /// This reading with its nouns' and object's words abbreviated (`authentication` → `auth`).
    fn abbreviated(&self) -> Reading {
        let short = |words: &[String]| words.iter().map(|w| abbreviated(w).to_owned()).collect::<Vec<_>>();
        Reading {
            nouns: self.nouns.iter().map(|n| Noun { words: short(&n.words), ..n.clone() }).collect(),
            rest: short(&self.rest),
            ..self.clone()
        }
    }

    /// The name that leaves room for a hash of `whole` and says most: the most nouns that fit,
    /// else the verb and as many of the last words as fit (the object, what the tool acts on).
    fn hashed_name(&self, whole: &str) -> String {
        let plain = Form { written: Written::None, params: 0 };
        let room = MAX_LEN - HASH_LEN - 1;
        let fits = |name: &String| name.len() <= room;
        let by_nouns = self.kept().into_iter().map(|kept| self.name(&kept, plain)).find(fits);
        let by_ends = || {
            let words = self.words(&self.nouns.iter().collect::<Vec<_>>(), plain);
            let verb = self.verb.len().min(words.len());
            (verb + 1..words.len())
                .map(|from| {
                    finished(&words[..verb].iter().chain(&words[from..]).cloned().collect::<Vec<_>>().join("_"))
                })
                .find(fits)
        };
        match by_nouns.or_else(by_ends) {
            Some(short) => tagged(&short, whole),
            None => fit(whole),
        }
    }

    /// The form with as many of a function's parameters as fit (at least one).
    fn with_params(&self, kept: &[&Noun], written: Written) -> Option<Form> {
        (1..=self.params.len()).rev().map(|params| Form { written, params }).find(|&f| self.len(kept, f) <= MAX_LEN)
    }

    fn words(&self, nouns: &[&Noun], form: Form) -> Vec<String> {
        let by = (form.params > 0).then(|| "by".to_owned());
        self.verb
            .iter()
            .cloned()
            .chain(nouns.iter().enumerate().flat_map(|(i, n)| n.said(form.written.covers(i))))
            .chain(self.rest.iter().cloned())
            .chain(by)
            .chain(self.params.iter().take(form.params).flatten().cloned())
            .collect()
    }

    /// The length of the name these nouns give, before it is finished.
    fn len(&self, nouns: &[&Noun], form: Form) -> usize {
        self.words(nouns, form).iter().map(|w| w.len() + 1).sum::<usize>().saturating_sub(1)
    }

    fn name(&self, nouns: &[&Noun], form: Form) -> String {
        finished(&self.words(nouns, form).join("_"))
    }
}

/// How a name is said: which keyed collections as written, how many of a function's parameters.
#[derive(Clone, Copy)]
struct Form {
    written: Written,
    params: usize,
}

#[derive(Clone, Copy)]
enum Written {
    None,
    One(usize),
    All,
}

impl Written {
    fn covers(self, i: usize) -> bool {
        match self {
            Written::None => false,
            Written::One(j) => i == j,
            Written::All => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn graph(method: Method, path: &str, id: &str) -> Operation {
        let mut op = Operation { operation_id: Some(id.to_owned()), ..Operation::bare(method, path) };
        if !id.starts_with("Get.") {
            op.extensions.insert("x-ms-docs-operation-type".to_owned(), json!("operation"));
        }
        op
    }

    fn first(op: &Operation) -> String {
        names(op, &Singletons::default()).and_then(|n| n.names.into_iter().next()).unwrap_or_default()
    }

    #[test]
    fn graph_routes_are_named_verb_first_from_the_route() {
        use Method::{Delete, Get, Patch, Post, Put};
        let cases = [
            (Get, "/users/{user-id}/memberOf", "users.ListMemberOf", "list_user_member_of"),
            (Get, "/me/calendar", "me.GetCalendar", "get_me_calendar"),
            (Get, "/me/messages/{message-id}", "me.GetMessages", "get_me_message"),
            (Post, "/me/messages", "me.CreateMessages", "create_me_message"),
            (
                Patch,
                "/directoryRoles/{directoryRole-id}",
                "directoryRoles.directoryRole.UpdateDirectoryRole",
                "update_directory_role",
            ),
            (
                Delete,
                "/groups/{group-id}/team/channels/{channel-id}",
                "groups.team.DeleteChannels",
                "delete_group_team_channel",
            ),
            // A singleton read, though the converter's verb is `Get` for lists of one as well.
            (
                Get,
                "/deviceAppManagement/androidManagedAppProtections/{androidManagedAppProtection-id}/deploymentSummary",
                "deviceAppManagement.androidManagedAppProtections.GetDeploymentSummary",
                "get_android_managed_app_protection_deployment_summary",
            ),
            // Bound actions: the action is the verb.
            (
                Post,
                "/groups/{group-id}/events/{event-id}/instances/{event-id1}/microsoft.graph.forward",
                "groups.group.events.event.instances.event.forward",
                "forward_group_event_instance",
            ),
            (Post, "/me/microsoft.graph.sendMail", "me.sendMail", "send_me_mail"),
            (
                Post,
                "/me/onlineMeetings/microsoft.graph.createOrGet",
                "me.onlineMeetings.createOrGet",
                "create_or_get_me_online_meetings",
            ),
            (Post, "/users/{user-id}/microsoft.graph.assignLicense", "users.user.assignLicense", "assign_user_license"),
            (
                Post,
                "/chats/{chat-id}/messages/{chatMessage-id}/microsoft.graph.undoSoftDelete",
                "chats.chat.messages.chatMessage.undoSoftDelete",
                "undo_soft_delete_chat_message",
            ),
            (
                Post,
                "/me/events/{event-id}/microsoft.graph.tentativelyAccept",
                "me.events.event.tentativelyAccept",
                "tentatively_accept_me_event",
            ),
            (
                Post,
                "/me/messages/{message-id}/microsoft.graph.replyAll",
                "me.messages.message.replyAll",
                "reply_all_me_message",
            ),
            (
                Post,
                "/me/messages/{message-id}/microsoft.graph.createReplyAll",
                "me.messages.message.createReplyAll",
                "create_me_message_reply_all",
            ),
            (
                Post,
                "/communications/calls/{call-id}/microsoft.graph.subscribeToTone",
                "communications.calls.call.subscribeToTone",
                "subscribe_communications_call_to_tone",
            ),
            (
                Post,
                "/security/cases/ediscoveryCases/{ediscoveryCase-id}/microsoft.graph.security.close",
                "security.cases.ediscoveryCases.ediscoveryCase.close",
                "close_security_cases_ediscovery_case",
            ),
            (
                Post,
                "/me/onenote/pages/{onenotePage-id}/microsoft.graph.onenotePatchContent",
                "me.onenote.pages.onenotePage.onenotePatchContent",
                "patch_me_onenote_page_onenote_content",
            ),
            // Excel's functions are called, not verbs.
            (
                Post,
                "/drives/{drive-id}/items/{driveItem-id}/workbook/functions/microsoft.graph.vlookup",
                "drives.drive.items.driveItem.workbook.functions.vlookup",
                "call_drive_item_workbook_function_vlookup",
            ),
            // Functions: their own verb, else what they return is read.
            (
                Get,
                "/reports/microsoft.graph.getEmailActivityCounts(period='{period}')",
                "reports.getEmailActivityCounts",
                "get_reports_email_activity_counts",
            ),
            (Get, "/users/microsoft.graph.delta()", "users.delta", "get_users_delta"),
            (Get, "/me/drive/microsoft.graph.search(q='{q}')", "me.drive.search", "search_me_drive"),
            (
                Get,
                "/deviceManagement/comanagedDevices/{managedDevice-id}/deviceHealthScriptStates/id='{id}',policyId='{policyId}',deviceId='{deviceId}'",
                "deviceManagement.comanagedDevices.GetDeviceHealthScriptStates",
                "get_comanaged_device_device_health_script_state",
            ),
            // Counts, casts, references and media.
            (
                Get,
                "/me/contactFolders/{contactFolder-id}/contacts/$count",
                "Get.Count.contacts-31d1",
                "count_me_contact_folder_contacts",
            ),
            (
                Get,
                "/users/{user-id}/memberOf/{directoryObject-id}/microsoft.graph.group",
                "Get.microsoft.graph.directoryObject.Item.As.microsoft.graph.group-9623",
                "get_user_member_of_as_group",
            ),
            (
                Get,
                "/applications/{application-id}/owners/microsoft.graph.user",
                "Get.microsoft.graph.directoryObject.Items.As.microsoft.graph.user-1a2b",
                "list_application_owners_as_user",
            ),
            (
                Get,
                "/me/memberOf/microsoft.graph.group/$count",
                "Get.Count.microsoft.graph.group-9580",
                "count_me_member_of_as_group",
            ),
            (Post, "/groups/{group-id}/members/$ref", "groups.CreateRefMembers", "add_group_member_ref"),
            (
                Delete,
                "/groups/{group-id}/members/{directoryObject-id}/$ref",
                "groups.DeleteRefMembers",
                "remove_group_member_ref",
            ),
            (Get, "/groups/{group-id}/members/$ref", "groups.ListRefMembers", "list_group_member_refs"),
            (Put, "/users/{user-id}/manager/$ref", "users.UpdateRefManager", "set_user_manager_ref"),
            (Get, "/groups/{group-id}/photo/$value", "groups.GetPhotoContent", "get_group_photo_content"),
            (Put, "/groups/{group-id}/photo/$value", "groups.UpdatePhotoContent", "update_group_photo_content"),
        ];
        for (method, path, id, want) in cases {
            assert_eq!(first(&graph(method, path, id)), want, "{method} {path}");
        }
    }

    #[test]
    fn long_names_keep_the_verb_the_root_and_the_nearest_collections() {
        let op = graph(
            Method::Get,
            "/me/calendarGroups/{calendarGroup-id}/calendars/{calendar-id}/events/{event-id}/instances/{event-id1}/multiValueExtendedProperties/{multiValueLegacyExtendedProperty-id}",
            "me.calendarGroups.calendars.events.instances.GetMultiValueExtendedProperties",
        );
        let got = names(&op, &Singletons::default()).map(|n| n.names).unwrap_or_default();
        assert_eq!(got[0], "get_me_calendar_event_instance_multi_value_extended_property");
        // Then the other shortenings, each fitting and each distinct.
        assert!(got.len() > 1 && got.iter().all(|n| n.len() <= MAX_LEN), "{got:?}");
        assert!(got.contains(&"get_me_event_instance_multi_value_extended_property".to_owned()), "{got:?}");
        let unique: std::collections::BTreeSet<&String> = got.iter().collect();
        assert_eq!(unique.len(), got.len());
    }

    #[test]
    fn a_name_too_long_whole_is_also_said_abbreviated_and_hashed() {
        let op = graph(
            Method::Get,
            "/authenticationMethodsPolicy/authenticationMethodConfigurations",
            "authenticationMethodsPolicy.ListAuthenticationMethodConfigurations",
        );
        let got = names(&op, &Singletons::default()).unwrap_or_default();
        // Fewer nouns first; every noun, abbreviated, after them.
        assert_eq!(got.names[0], "list_authentication_method_configurations");
        assert_eq!(got.names.last().map(String::as_str), Some("list_auth_methods_policy_auth_method_configs"));
        let (hashed, said) = got.hashed.unwrap_or_default();
        assert_eq!(said, "list_authentication_methods_policy_authentication_method_configurations");
        let (head, hash) = hashed.rsplit_once('_').unwrap_or_default();
        assert_eq!((head, hash.len()), ("list_auth_methods_policy_auth_method_configs", 6));
        // A name that fits whole has neither.
        let short = graph(Method::Get, "/me/calendar/events", "me.calendar.ListEvents");
        let got = names(&short, &Singletons::default()).unwrap_or_default();
        assert!(got.hashed.is_none() && !got.names.iter().any(|n| n.contains("auth")), "{got:?}");
    }

    #[test]
    fn routes_that_read_alike_have_other_names_to_move_to() {
        // `/me/calendar` is the default calendar, `/me/calendars/{id}` one of them.
        let keyed = graph(Method::Get, "/me/calendars/{calendar-id}/events", "me.calendars.ListEvents");
        let singleton = graph(Method::Get, "/me/calendar/events", "me.calendar.ListEvents");
        let singletons = Singletons::of(&[keyed.clone(), singleton]);
        let got = names(&keyed, &singletons).map(|n| n.names).unwrap_or_default();
        assert_eq!(got[..2], ["list_me_calendar_events", "list_me_calendars_events"]);
        // A function that says its verb also reads as what it returns.
        let count = graph(
            Method::Get,
            "/drives/{drive-id}/items/{driveItem-id}/workbook/tables/microsoft.graph.count()",
            "drives.drive.items.driveItem.workbook.tables.count",
        );
        let got = names(&count, &Singletons::default()).map(|n| n.names).unwrap_or_default();
        assert_eq!(got[0], "count_drive_item_workbook_tables");
        assert!(got.contains(&"get_drive_item_workbook_tables_count".to_owned()), "{got:?}");
        // Overloads differ by their parameters.
        let by = graph(
            Method::Get,
            "/reports/microsoft.graph.getYammerDeviceUsageUserDetail(date={date})",
            "reports.getYammerDeviceUsageUserDetail-1880",
        );
        let got = names(&by, &Singletons::default()).map(|n| n.names).unwrap_or_default();
        assert!(got.contains(&"get_reports_yammer_device_usage_user_detail_by_date".to_owned()), "{got:?}");
    }

    #[test]
    fn only_the_converters_operations_and_odata_conventions_are_read() {
        // Slack's dotted RPC paths and a plain REST operation are not OData.
        let slack = Operation {
            operation_id: Some("admin.apps.approve".to_owned()),
            ..Operation::bare(Method::Post, "/admin.apps.approve")
        };
        assert_eq!(names(&slack, &Singletons::default()), None);
        let rest = Operation { operation_id: Some("listPets".to_owned()), ..Operation::bare(Method::Get, "/pets") };
        assert_eq!(names(&rest, &Singletons::default()), None);
        // A count without an id is one on any service.
        let count = Operation::bare(Method::Get, "/api/hotels/{hotelId}/rateplans/$count");
        assert_eq!(first(&count), "count_hotel_rateplans");
    }
}
