//! Obscured copies (spec 2.6): a value seen in clear earlier in the trace
//! that comes back reversed, ROT13-rotated, inside a decoded view, or split
//! into fragments across messages to one target. Runs once per trace, after
//! every event's own findings.
//!
//! The reference tests every anchor against every event; here each event's
//! canonical, reversed and rotated texts are computed once, and anchors are
//! looked up only where their text can occur. Results are the same.

use super::decoded::View;
use super::split::{split_copies_in_group, IdentifierTrie, TokenRuns};
use super::{canonical_value, canonical_value_into, contains_at_token_boundaries, Finding, TokenMatcher};
use crate::pyunicode::{casefold, is_alnum};
use crate::trace::Event;
use crate::util::{FxMap, FxSet};

/// Lists of items, one list per event, held in one vector (most events
/// have empty lists, and a vector per event costs 24 bytes even empty).
pub(super) struct PerEvent<T> {
    items: Vec<T>,
    /// End of each event's list in `items`.
    ends: Vec<u32>,
}

impl<T> PerEvent<T> {
    pub(super) fn with_capacity(events: usize) -> PerEvent<T> {
        PerEvent { items: Vec::new(), ends: Vec::with_capacity(events) }
    }

    /// Appends the next event's list.
    pub(super) fn push(&mut self, list: impl IntoIterator<Item = T>) {
        self.items.extend(list);
        self.ends.push(self.items.len() as u32);
    }

    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Appends the lists of `later`'s events.
    fn append(&mut self, later: PerEvent<T>) {
        let offset = self.items.len() as u32;
        self.items.extend(later.items);
        self.ends.extend(later.ends.iter().map(|end| end + offset));
    }

    pub(super) fn get(&self, event: usize) -> &[T] {
        let start = if event == 0 { 0 } else { self.ends[event - 1] as usize };
        &self.items[start..self.ends[event] as usize]
    }
}

/// The scanned events as this pass sees them, in trace order, with the
/// decoded views of each text (spec 2.4) from the per-event pass.
pub(super) struct Scanned<'t> {
    trace: &'t [Event],
    /// The position of each in the trace (its findings' `event_index`).
    indexes: Vec<u32>,
    views: PerEvent<View>,
}

impl<'t> Scanned<'t> {
    /// Room for every event of `trace` (skipped events are not pushed).
    pub(super) fn with_capacity(trace: &'t [Event]) -> Scanned<'t> {
        Scanned { trace, indexes: Vec::with_capacity(trace.len()), views: PerEvent::with_capacity(trace.len()) }
    }

    /// Adds the event at `index` in the trace.
    pub(super) fn push(&mut self, index: usize, views: Vec<View>) {
        self.indexes.push(index as u32);
        self.views.push(views);
    }
}

/// The scanned events by their place among them (the trace's events are
/// not copied: a list of references was the size of the positions twice).
#[derive(Clone, Copy)]
struct Events<'s, 't> {
    trace: &'t [Event],
    indexes: &'s [u32],
}

impl<'t> Events<'_, 't> {
    fn len(&self) -> usize {
        self.indexes.len()
    }

    fn iter(&self) -> impl Iterator<Item = &'t Event> + '_ {
        self.indexes.iter().map(|&i| &self.trace[i as usize])
    }
}

impl std::ops::Index<usize> for Events<'_, '_> {
    type Output = Event;
    fn index(&self, i: usize) -> &Event {
        &self.trace[self.indexes[i] as usize]
    }
}

/// Events searched for the long keys at a time, on one thread.
const STRETCH: usize = 4096;

/// Which long keys each event of a stretch holds in clear, reversed and
/// rotated.
struct KeysHeld {
    in_clear: PerEvent<u32>,
    in_reversed: PerEvent<u32>,
    in_rotated: PerEvent<u32>,
}

impl KeysHeld {
    fn with_capacity(events: usize) -> KeysHeld {
        KeysHeld {
            in_clear: PerEvent::with_capacity(events),
            in_reversed: PerEvent::with_capacity(events),
            in_rotated: PerEvent::with_capacity(events),
        }
    }
}

/// One per long key seen in clear: tens of thousands in a long trace, all
/// held at the pass's memory peak, so positions are kept as `u32` (as
/// [`Scanned`] keeps events') and the identifier is boxed.
struct Anchor<'k> {
    /// Borrowed from the template keys.
    key: &'k str,
    /// Index among the long template keys.
    long_key: u32,
    /// The template finding's index.
    template: u32,
    first_seen: u32,
    /// `alnum(value)` when it is an identifier (≥ 8 chars, ≥ 4 digits).
    identifier: Option<Box<str>>,
}

/// ASCII letters and digits of `v`, lower-cased and concatenated.
fn ascii_alnum(v: &str) -> String {
    v.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

/// Maximal runs of ASCII letters and digits, lower-cased (the reference's
/// helper; `split::TokenRuns` holds them concatenated).
#[cfg(test)]
fn tokens(t: &str) -> Vec<String> {
    t.split(|c: char| !c.is_ascii_alphanumeric()).filter(|s| !s.is_empty()).map(str::to_ascii_lowercase).collect()
}

fn is_identifier(a: &str) -> bool {
    a.chars().count() >= 8 && a.chars().filter(char::is_ascii_digit).count() >= 4
}

/// Greatest length of consecutive whole tokens that spell `target[pos..]`'s prefix
/// (the reference's helper; `split` computes it for all identifiers at once).
#[cfg(test)]
fn frag(toks: &[String], target: &str, pos: usize) -> usize {
    let rest = &target[pos.min(target.len())..];
    let mut best = 0;
    for i in 0..toks.len() {
        let mut len = 0;
        for tok in &toks[i..] {
            if rest[len..].starts_with(tok.as_str()) {
                len += tok.len();
                best = best.max(len);
            } else {
                break;
            }
        }
    }
    best
}

fn rot13_char(c: char) -> char {
    match c {
        'a'..='z' => (((c as u8 - b'a') + 13) % 26 + b'a') as char,
        'A'..='Z' => (((c as u8 - b'A') + 13) % 26 + b'A') as char,
        _ => c,
    }
}

fn rot13(t: &str) -> String {
    t.chars().map(rot13_char).collect()
}

/// The alphanumeric key of step 5: the case-folded value's Unicode alphanumerics.
fn alnum_key(v: &str) -> String {
    casefold(v).chars().filter(|&c| is_alnum(c)).collect()
}

/// Appends the anchored copies to `findings` (continuing `counter`) and
/// removes the detector readings they replace. `findings` is in creation order.
pub(super) fn add_obscured_copies<'t>(scanned: &Scanned<'t>, findings: &mut Vec<Finding>, counter: &mut usize) {
    let events = Events { trace: scanned.trace, indexes: &scanned.indexes };
    if events.len() < 2 || findings.is_empty() {
        return;
    }
    let unique_ids = {
        let mut ids = FxSet::default();
        events.iter().all(|e| ids.insert(&*e.event_id))
    };
    // 1. Templates by canonical value, regardless of data type: (key,
    // template finding) in the order the keys were first seen. The map is
    // given back before the keys are searched, its keys moved out, not copied.
    let templates: Vec<(String, usize)> = {
        let mut by_key: FxMap<String, (usize, usize)> = FxMap::default();
        for (i, f) in findings.iter().enumerate() {
            if f.data_type == "employment_status" || f.data_type == "internal_note" {
                continue;
            }
            let key = canonical_value(&f.matched_value);
            match by_key.get_mut(&key) {
                None => {
                    let rank = by_key.len();
                    by_key.insert(key, (rank, i));
                }
                Some((_, template)) if f.level > findings[*template].level => *template = i,
                Some(_) => {}
            }
        }
        let mut ranked: Vec<(usize, String, usize)> =
            by_key.into_iter().map(|(key, (rank, template))| (rank, key, template)).collect();
        crate::util::sort_by_key(&mut ranked, |&(rank, _, _)| rank);
        ranked.into_iter().map(|(_, key, template)| (key, template)).collect()
    };
    // 2. Anchors: keys of 6+ code points seen in clear in some event.
    // One search per event finds each key in clear, reversed and rotated:
    // for ASCII text, the reversed (rotated) text holds a key at token
    // boundaries exactly when the text holds the reversed (rotated) key
    // there, so the keys are searched in all three spellings at once.
    // Other text is reversed and rotated (its case folding need not
    // commute with either), and only the plain spellings are read.
    let long_keys: Vec<(&str, usize)> =
        templates.iter().filter(|(k, _)| k.chars().count() >= 6).map(|(k, t)| (k.as_str(), *t)).collect();
    let n = long_keys.len();
    // The three spellings of every long key, in one buffer (tens of
    // thousands of keys: one allocation instead of one per spelling).
    let mut spelled = String::new();
    let mut ends: Vec<usize> = Vec::with_capacity(3 * n);
    for (key, _) in &long_keys {
        spelled.push_str(key);
        ends.push(spelled.len());
    }
    for (key, _) in &long_keys {
        spelled.extend(key.chars().rev());
        ends.push(spelled.len());
    }
    for (key, _) in &long_keys {
        spelled.extend(key.chars().map(rot13_char));
        ends.push(spelled.len());
    }
    let spellings: Vec<&str> =
        ends.iter().scan(0, |start, &end| Some(&spelled[std::mem::replace(start, end)..end])).collect();
    drop(ends);
    let key_matcher = TokenMatcher::new(&spellings);
    let plain = |hits: Vec<usize>| hits.into_iter().filter(|&k| k < n).map(|k| k as u32);
    // Which long keys each event holds in clear (kept for steps 3 and 4),
    // reversed and rotated, ascending.
    // Stretches of events are searched side by side where the build has
    // threads, and their lists joined in trace order.
    let stretches: Vec<std::ops::Range<usize>> =
        (0..events.len()).step_by(STRETCH).map(|start| start..(start + STRETCH).min(events.len())).collect();
    let found = crate::util::map_in_order(&stretches, |_, stretch| {
        let mut lists = KeysHeld::with_capacity(stretch.len());
        let mut canonical_text = String::new();
        for i in stretch.clone() {
            let event = &events[i];
            canonical_value_into(&event.text, &mut canonical_text);
            let hits = key_matcher.indexes_in(&canonical_text);
            if event.text.is_ascii() {
                // `hits` is ascending, so each spelling's keys come out ascending.
                let spelled = |s: usize| hits.iter().filter(move |&&k| k / n == s).map(|&k| (k % n) as u32);
                lists.in_clear.push(spelled(0));
                lists.in_reversed.push(spelled(1));
                lists.in_rotated.push(spelled(2));
            } else {
                lists.in_clear.push(plain(hits));
                let reversed = canonical_value(&event.text.chars().rev().collect::<String>());
                lists.in_reversed.push(plain(key_matcher.indexes_in(&reversed)));
                lists.in_rotated.push(plain(key_matcher.indexes_in(&canonical_value(&rot13(&event.text)))));
            }
        }
        lists
    });
    let mut held = KeysHeld::with_capacity(events.len());
    for lists in found {
        held.in_clear.append(lists.in_clear);
        held.in_reversed.append(lists.in_reversed);
        held.in_rotated.append(lists.in_rotated);
    }
    let KeysHeld { in_clear, in_reversed, in_rotated } = held;
    // The spellings and their matcher are done with.
    drop(key_matcher);
    drop(spellings);
    drop(spelled);
    let mut first_seen: Vec<Option<usize>> = vec![None; n];
    for i in 0..in_clear.len() {
        for &k in in_clear.get(i) {
            first_seen[k as usize].get_or_insert(i);
        }
    }
    // Room for every long key at once: growing by doubling would hold the
    // old and new lists together, and this pass is where a long trace's
    // analysis peaks in memory.
    let mut anchors: Vec<Anchor<'_>> = Vec::with_capacity(n);
    anchors.extend(long_keys.iter().enumerate().filter_map(|(k, &(key, template))| {
        let a = ascii_alnum(&findings[template].matched_value);
        Some(Anchor {
            key,
            long_key: k as u32,
            template: template as u32,
            first_seen: first_seen[k]? as u32,
            identifier: is_identifier(&a).then(|| a.into_boxed_str()),
        })
    }));
    drop((first_seen, long_keys));
    crate::util::sort_by_key(&mut anchors, |a| std::cmp::Reverse(a.key.chars().count()));
    if anchors.is_empty() {
        return;
    }
    // Anchor order position of each long key.
    let mut order_of: Vec<Option<usize>> = vec![None; n];
    for (pos, a) in anchors.iter().enumerate() {
        order_of[a.long_key as usize] = Some(pos);
    }
    let held_in_clear = |i: usize, a: &Anchor| in_clear.get(i).binary_search(&a.long_key).is_ok();

    struct Copy {
        event: usize,
        template: usize,
        transform: String,
        fragments: Vec<usize>,
    }
    let mut copies: Vec<Copy> = Vec::new();
    let mut reported: FxSet<(usize, usize)> = FxSet::default();

    // 3. Reversed, ROT13 and decoded-identifier copies. Only anchors that
    // occur in the reversed or rotated text, or that a decoded view spells,
    // can be recorded; the others never change `claimed`, so looking only
    // at those, in anchor order, gives the reference's result.
    let identifiers: Vec<(usize, &str)> =
        anchors.iter().enumerate().filter_map(|(pos, a)| a.identifier.as_deref().map(|g| (pos, g))).collect();
    let trie = IdentifierTrie::new(&identifiers);
    for i in 0..events.len() {
        let by_reversal: Vec<usize> = in_reversed.get(i).iter().filter_map(|&k| order_of[k as usize]).collect();
        let by_rotation: Vec<usize> = in_rotated.get(i).iter().filter_map(|&k| order_of[k as usize]).collect();
        // Decoded views spelling an identifier: (anchor position, transform of the first such view).
        let mut by_view: Vec<(usize, String)> = Vec::new();
        if !identifiers.is_empty() {
            for view in scanned.views.get(i) {
                for pos in trie.spelled_by(&TokenRuns::of(&view.text)) {
                    if !by_view.iter().any(|(p, _)| *p == pos) {
                        by_view.push((pos, view.transform.clone()));
                    }
                }
            }
        }
        let mut hits: Vec<usize> =
            by_reversal.iter().chain(&by_rotation).copied().chain(by_view.iter().map(|(p, _)| *p)).collect();
        hits.sort_unstable();
        hits.dedup();
        let mut claimed: Vec<&str> = Vec::new();
        for pos in hits {
            let anchor = &anchors[pos];
            let c = anchor.key;
            if i <= anchor.first_seen as usize
                || held_in_clear(i, anchor)
                || claimed.iter().any(|k| contains_at_token_boundaries(k, c))
            {
                continue;
            }
            let transform = if by_reversal.contains(&pos) {
                "reversed".to_owned()
            } else if by_rotation.contains(&pos) {
                "rot13".to_owned()
            } else {
                match by_view.iter().find(|(p, _)| *p == pos) {
                    Some((_, t)) => t.clone(),
                    None => continue,
                }
            };
            copies.push(Copy { event: i, template: anchor.template as usize, transform, fragments: Vec::new() });
            reported.insert((i, pos));
            claimed.push(c);
        }
    }

    // 4. Split copies, per target group (see `split`).
    drop((in_reversed, in_rotated));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: FxMap<&str, usize> = FxMap::default();
    for (i, e) in events.iter().enumerate() {
        match group_of.get(&*e.target) {
            Some(&g) => groups[g].push(i),
            None => {
                group_of.insert(&e.target, groups.len());
                groups.push(vec![i]);
            }
        }
    }
    let first_seen: Vec<usize> = anchors.iter().map(|a| a.first_seen as usize).collect();
    let earliest = trie.earliest_below(&first_seen);
    // Each group is searched on its own (side by side where the build has
    // threads); what is kept of its finds depends on the copies before it,
    // so they are taken in group order.
    groups.retain(|members| members.len() >= 2);
    let found = crate::util::map_in_order(&groups, |_, members| {
        let runs_of = |i: usize, runs: &mut TokenRuns| runs.refill(&events[members[i]].text);
        split_copies_in_group(&trie, members, &runs_of, &first_seen, &earliest)
    });
    for found in found {
        for (pos, used) in found {
            let anchor = &anchors[pos];
            let Some(&last) = used.last() else { continue };
            if used.iter().any(|&j| reported.contains(&(j, pos)) || held_in_clear(j, anchor)) {
                continue;
            }
            copies.push(Copy {
                event: last,
                template: anchor.template as usize,
                transform: "split".into(),
                fragments: used,
            });
            reported.insert((last, pos));
        }
    }

    // 5. Materialise, in record order. Removals only touch the copy's own
    // event (and only when ids are unique: they are skipped otherwise): its
    // detector readings, contiguous since findings are in creation order,
    // and the copies made on it so far.
    let readings = findings.len();
    findings.reserve_exact(copies.len());
    let mut copies_on: FxMap<usize, Vec<usize>> = FxMap::default();
    let mut removed = vec![false; findings.len()];
    for copy in &copies {
        let template = findings[copy.template].clone();
        let event = &events[copy.event];
        if unique_ids {
            let value_canon = canonical_value(&template.matched_value);
            let reversed: String = value_canon.chars().rev().collect();
            let key = alnum_key(&template.matched_value);
            let index = scanned.indexes[copy.event] as usize;
            let from = findings[..readings].partition_point(|f| f.event_index < index);
            let to = from + findings[from..readings].partition_point(|f| f.event_index == index);
            let made = copies_on.get(&copy.event).map(Vec::as_slice).unwrap_or_default();
            for j in (from..to).chain(made.iter().copied()) {
                let f = &findings[j];
                let reversed_reading = copy.transform == "reversed" && canonical_value(&f.matched_value) == reversed;
                let decoded_reading =
                    f.transform.is_some() && f.data_type == template.data_type && alnum_key(&f.matched_value) == key;
                if reversed_reading || decoded_reading {
                    removed[j] = true;
                }
            }
        }
        *counter += 1;
        let fragments: Vec<&str> = copy.fragments.iter().map(|&j| &*events[j].event_id).collect();
        let label = super::transform_label(&copy.transform);
        let kind = template.data_type.replace('_', " ");
        let how = if fragments.is_empty() { label } else { format!("{label} ({})", fragments.join(", ")) };
        if unique_ids {
            copies_on.entry(copy.event).or_default().push(findings.len());
        }
        removed.push(false);
        findings.push(Finding {
            number: *counter,
            event_index: scanned.indexes[copy.event] as usize,
            event_id: event.event_id.clone(),
            channel: event.channel,
            source: event.source.clone(),
            target: event.target.clone(),
            confidence: if copy.transform == "split" { 0.8 } else { 0.85 },
            recommendation: format!(
                "This {kind} reappears {how}; obscuring a value does not hide it from the recipient. {}",
                template.recommendation
            )
            .trim()
            .to_owned()
            .into(),
            transform: Some(copy.transform.clone()),
            ..template
        });
    }
    let mut keep = removed.iter().map(|r| !r);
    findings.retain(|_| keep.next().unwrap_or(true));
}

/// The reference's search, position by position (kept to pin the fast one).
#[cfg(test)]
fn split_search_reference(later: &[usize], event_tokens: &[Vec<String>], g: &str) -> Option<Vec<usize>> {
    for s in 0..later.len() {
        let mut pos = 0;
        let mut used: Vec<usize> = Vec::new();
        for &member in later.iter().skip(s).take(8) {
            let k = frag(&event_tokens[member], g, pos);
            if k >= 3 || (k >= 1 && pos + k == g.len() && !used.is_empty()) {
                pos += k;
                used.push(member);
                if pos == g.len() {
                    return (used.len() >= 2).then_some(used);
                }
                if used.len() == 4 {
                    break;
                }
            } else if !used.is_empty() {
                break;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_follow_the_spec() {
        assert_eq!(ascii_alnum("12345-678 01é"), "1234567801");
        assert_eq!(tokens("part one 123456"), vec!["part", "one", "123456"]);
        assert_eq!(frag(&tokens("part two 78901"), "12345678901", 6), 5);
        assert_eq!(frag(&tokens("part one 123456"), "12345678901", 0), 6);
        assert_eq!(rot13("Grace.hopper"), "Tenpr.ubccre");
        assert!(is_identifier("12345678901"));
        assert!(is_identifier("abcd1234"));
        assert!(!is_identifier("abcde123"));
        assert!(!is_identifier("1234567"));
    }

    /// Runs the group search over single-text members 1, 2, … with every anchor first seen at event 0.
    fn split_in(texts: &[&str], identifiers: &[&str]) -> Vec<(usize, Vec<usize>)> {
        let members: Vec<usize> = (1..=texts.len()).collect();
        let runs_of = |i: usize, runs: &mut TokenRuns| runs.refill(texts[i]);
        let ids: Vec<(usize, &str)> = identifiers.iter().copied().enumerate().collect();
        let (trie, first_seen) = (IdentifierTrie::new(&ids), vec![0; ids.len()]);
        split_copies_in_group(&trie, &members, &runs_of, &first_seen, &trie.earliest_below(&first_seen))
    }

    #[test]
    fn split_copies_use_at_most_four_consecutive_members() {
        assert_eq!(split_in(&["part one 123456", "part two 78901"], &["12345678901"]), vec![(0, vec![1, 2])]);
        assert_eq!(split_in(&["123", "456", "789", "0123"], &["1234567890123"]), vec![(0, vec![1, 2, 3, 4])]);
        // A fifth fragment is never taken, and a gap ends the attempt.
        assert_eq!(split_in(&["123", "456", "789", "012", "345"], &["123456789012345"]), vec![]);
        assert_eq!(split_in(&["123456", "x", "78901"], &["12345678901"]), vec![]);
        // Holding the whole value as a first fragment ends that anchor's search empty-handed…
        assert_eq!(split_in(&["ID 12345678901", "123456", "78901"], &["12345678901"]), vec![]);
        // …but not the search of a longer identifier that merely starts the same way.
        assert_eq!(split_in(&["12345678", "901"], &["12345678", "12345678901"]), vec![(1, vec![1, 2])]);
        // Tokens are lower-cased ASCII runs; other characters separate them.
        assert_eq!(split_in(&["AB-12é34", "5678"], &["ab12345678"]), vec![(0, vec![1, 2])]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The one-pass group search decides every anchor exactly like the
        /// reference's walk over that anchor's later members.
        #[test]
        fn split_search_matches_the_reference(
            texts in proptest::collection::vec(proptest::collection::vec(
                proptest::sample::select(vec![
                    "12", "123", "1234", "12345678", "45", "456", "4567", "5678", "678", "78", "789", "890", "90",
                    "0", "x", "1", "3", "34", "56", "9", "1230", "91", "x9", "012", "345", "901", "2345",
                ]), 0..5), 1..14),
            anchors in proptest::collection::vec((
                proptest::sample::select(vec![
                    "12345678", "1234567890", "123456789", "4567891230", "12345690", "1234x9", "123456", "12378901",
                    "45678901", "1234567891", "123456789012345",
                ]),
                0usize..12,
            ), 1..6),
        ) {
            let event_tokens: Vec<Vec<String>> = texts.iter().map(|t| t.iter().map(|s| s.to_string()).collect()).collect();
            // Members are events 2, 4, 6, …; an anchor first seen at event f sees members after f.
            let members: Vec<usize> = (0..event_tokens.len()).map(|i| 2 * i + 2).collect();
            let mut by_event = vec![Vec::new(); 2 * event_tokens.len() + 3];
            for (i, toks) in event_tokens.iter().enumerate() {
                by_event[members[i]] = toks.clone();
            }
            let runs_of = |i: usize, runs: &mut TokenRuns| *runs = TokenRuns::from_tokens(&event_tokens[i]);
            let identifiers: Vec<(usize, &str)> = anchors.iter().enumerate().map(|(pos, (g, _))| (pos, *g)).collect();
            let first_seen: Vec<usize> = anchors.iter().map(|(_, f)| *f).collect();
            let trie = IdentifierTrie::new(&identifiers);
            let fast = split_copies_in_group(&trie, &members, &runs_of, &first_seen, &trie.earliest_below(&first_seen));
            let slow: Vec<(usize, Vec<usize>)> = anchors
                .iter()
                .enumerate()
                .filter_map(|(pos, (g, _))| {
                    let later: Vec<usize> = members.iter().copied().filter(|&m| m > first_seen[pos]).collect();
                    split_search_reference(&later, &by_event, g).map(|used| (pos, used))
                })
                .collect();
            proptest::prop_assert_eq!(fast, slow);
        }
    }
}
