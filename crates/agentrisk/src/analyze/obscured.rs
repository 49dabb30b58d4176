//! Obscured copies (spec 2.6): a value seen in clear earlier in the trace
//! that comes back reversed, ROT13-rotated, inside a decoded view, or split
//! into fragments across messages to one target. Runs once per trace, after
//! every event's own findings.
//!
//! The reference tests every anchor against every event; here each event's
//! canonical, reversed and rotated texts are computed once, and anchors are
//! looked up only where their text can occur. Results are the same.

use super::decoded::views;
use super::{canonical_value, contains_at_token_boundaries, Finding, TokenMatcher};
use crate::pyunicode::{casefold, is_alnum};
use std::collections::{HashMap, HashSet};

/// A scanned event as this pass sees it.
pub(super) struct Scanned<'a> {
    pub event_id: &'a str,
    pub channel: crate::model::Channel,
    pub source: &'a str,
    pub target: &'a str,
    pub text: &'a str,
}

struct Anchor {
    key: String,
    /// Index among the long template keys.
    long_key: usize,
    template: usize,
    first_seen: usize,
    /// `alnum(value)` when it is an identifier (≥ 8 chars, ≥ 4 digits).
    identifier: Option<String>,
}

/// ASCII letters and digits of `v`, lower-cased and concatenated.
fn ascii_alnum(v: &str) -> String {
    v.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

/// Maximal runs of ASCII letters and digits, lower-cased.
fn tokens(t: &str) -> Vec<String> {
    t.split(|c: char| !c.is_ascii_alphanumeric()).filter(|s| !s.is_empty()).map(str::to_ascii_lowercase).collect()
}

fn is_identifier(a: &str) -> bool {
    a.chars().count() >= 8 && a.chars().filter(char::is_ascii_digit).count() >= 4
}

/// Greatest length of consecutive whole tokens that spell `target[pos..]`'s prefix.
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

fn rot13(t: &str) -> String {
    t.chars()
        .map(|c| match c {
            'a'..='z' => (((c as u8 - b'a') + 13) % 26 + b'a') as char,
            'A'..='Z' => (((c as u8 - b'A') + 13) % 26 + b'A') as char,
            _ => c,
        })
        .collect()
}

/// The alphanumeric key of step 5: the case-folded value's Unicode alphanumerics.
fn alnum_key(v: &str) -> String {
    casefold(v).chars().filter(|&c| is_alnum(c)).collect()
}

/// Appends the anchored copies to `findings` (continuing `counter`) and
/// removes the detector readings they replace. `findings` is in creation order.
pub(super) fn add_obscured_copies(events: &[Scanned<'_>], findings: &mut Vec<Finding>, counter: &mut usize) {
    if events.len() < 2 || findings.is_empty() {
        return;
    }
    let unique_ids = {
        let mut ids = HashSet::new();
        events.iter().all(|e| ids.insert(e.event_id))
    };
    // 1. Templates by canonical value, regardless of data type.
    let mut template_of: HashMap<String, usize> = HashMap::new();
    let mut template_keys: Vec<String> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        if f.data_type == "employment_status" || f.data_type == "internal_note" {
            continue;
        }
        let key = canonical_value(&f.matched_value);
        match template_of.get(&key) {
            None => {
                template_of.insert(key.clone(), i);
                template_keys.push(key);
            }
            Some(&t) if f.level > findings[t].level => {
                template_of.insert(key, i);
            }
            Some(_) => {}
        }
    }
    // 2. Anchors: keys of 6+ code points seen in clear in some event.
    let canon: Vec<String> = events.iter().map(|e| canonical_value(e.text)).collect();
    let long_keys: Vec<&String> = template_keys.iter().filter(|k| k.chars().count() >= 6).collect();
    let key_matcher = TokenMatcher::new(&long_keys);
    // Which long keys each event holds in clear (kept for steps 3 and 4).
    let in_clear: Vec<Vec<usize>> = canon.iter().map(|t| key_matcher.indexes_in(t)).collect();
    let mut first_seen: Vec<Option<usize>> = vec![None; long_keys.len()];
    for (i, keys) in in_clear.iter().enumerate() {
        for &k in keys {
            first_seen[k].get_or_insert(i);
        }
    }
    let mut anchors: Vec<Anchor> = long_keys
        .iter()
        .enumerate()
        .filter_map(|(k, key)| {
            let template = template_of[*key];
            let a = ascii_alnum(&findings[template].matched_value);
            Some(Anchor {
                key: (*key).clone(),
                long_key: k,
                template,
                first_seen: first_seen[k]?,
                identifier: is_identifier(&a).then_some(a),
            })
        })
        .collect();
    anchors.sort_by_key(|a| std::cmp::Reverse(a.key.chars().count()));
    if anchors.is_empty() {
        return;
    }
    // Anchor order position of each long key.
    let mut order_of: Vec<Option<usize>> = vec![None; long_keys.len()];
    for (pos, a) in anchors.iter().enumerate() {
        order_of[a.long_key] = Some(pos);
    }
    let held_in_clear = |i: usize, a: &Anchor| in_clear[i].binary_search(&a.long_key).is_ok();

    struct Copy {
        event: usize,
        template: usize,
        transform: String,
        fragments: Vec<usize>,
    }
    let mut copies: Vec<Copy> = Vec::new();
    let mut reported: HashSet<(usize, usize)> = HashSet::new();

    // 3. Reversed, ROT13 and decoded-identifier copies. Only anchors that
    // occur in the reversed or rotated text, or that a decoded view spells,
    // can be recorded; the others never change `claimed`, so looking only
    // at those, in anchor order, gives the reference's result.
    let identifiers: Vec<(usize, &str)> =
        anchors.iter().enumerate().filter_map(|(pos, a)| a.identifier.as_deref().map(|g| (pos, g))).collect();
    let identifier_matcher = TokenMatcher::new(&identifiers.iter().map(|(_, g)| *g).collect::<Vec<_>>());
    for (i, event) in events.iter().enumerate() {
        let reversed = canonical_value(&event.text.chars().rev().collect::<String>());
        let rotated = canonical_value(&rot13(event.text));
        let by_reversal: Vec<usize> =
            key_matcher.indexes_in(&reversed).into_iter().filter_map(|k| order_of[k]).collect();
        let by_rotation: Vec<usize> =
            key_matcher.indexes_in(&rotated).into_iter().filter_map(|k| order_of[k]).collect();
        // Decoded views spelling an identifier: (anchor position, transform of the first such view).
        let mut by_view: Vec<(usize, String)> = Vec::new();
        if !identifiers.is_empty() {
            for view in views(event.text) {
                let joined: String = tokens(&view.text).concat();
                for j in identifier_matcher.indexes_in_token_runs(&joined, &token_starts(&view.text)) {
                    let pos = identifiers[j].0;
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
            let c = anchor.key.as_str();
            if i <= anchor.first_seen
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
            copies.push(Copy { event: i, template: anchor.template, transform, fragments: Vec::new() });
            reported.insert((i, pos));
            claimed.push(c);
        }
    }

    // 4. Split copies, per target group. A search can only succeed if its
    // last fragment ends the identifier: some later member of the group has
    // a token equal to a proper suffix of it. Only those anchors are searched.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: HashMap<&str, usize> = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        match group_of.get(e.target) {
            Some(&g) => groups[g].push(i),
            None => {
                group_of.insert(e.target, groups.len());
                groups.push(vec![i]);
            }
        }
    }
    let mut by_suffix: HashMap<&str, Vec<usize>> = HashMap::new();
    for &(pos, g) in &identifiers {
        for p in 1..g.len() {
            by_suffix.entry(&g[p..]).or_default().push(pos);
        }
    }
    let event_tokens: Vec<Vec<String>> = events.iter().map(|e| tokens(e.text)).collect();
    let joined_tokens: Vec<(String, Vec<usize>)> = event_tokens
        .iter()
        .map(|toks| {
            let mut starts = Vec::with_capacity(toks.len());
            let mut at = 0;
            for t in toks {
                starts.push(at);
                at += t.len();
            }
            (toks.concat(), starts)
        })
        .collect();
    for members in groups.iter().filter(|m| m.len() >= 2) {
        // Token → positions (in `members`) of the members holding it.
        let mut holders: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut starts3: HashMap<&str, Vec<usize>> = HashMap::new();
        for (at, &m) in members.iter().enumerate() {
            for tok in &event_tokens[m] {
                let list = holders.entry(tok.as_str()).or_default();
                if list.last() != Some(&at) {
                    list.push(at);
                }
            }
            for (_, prefix) in token_start_trigrams(&joined_tokens[m]) {
                let list = starts3.entry(prefix).or_default();
                if list.last() != Some(&at) {
                    list.push(at);
                }
            }
        }
        let mut candidates: Vec<usize> = Vec::new();
        for (tok, list) in &holders {
            if let (Some(anchor_list), Some(&last)) = (by_suffix.get(tok), list.last()) {
                candidates.extend(anchor_list.iter().copied().filter(|&pos| members[last] > anchors[pos].first_seen));
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        for pos in candidates {
            let anchor = &anchors[pos];
            let Some(g) = &anchor.identifier else { continue };
            let first_later = members.partition_point(|&m| m <= anchor.first_seen);
            let Some(used) = split_search(&members[first_later..], &event_tokens, g, &holders, &starts3, first_later)
            else {
                continue;
            };
            let Some(&last) = used.last() else { continue };
            if used.iter().any(|&j| reported.contains(&(j, pos)) || held_in_clear(j, anchor)) {
                continue;
            }
            copies.push(Copy { event: last, template: anchor.template, transform: "split".into(), fragments: used });
            reported.insert((last, pos));
        }
    }

    // 5. Materialise, in record order. Removals only touch the copy's own
    // event, so findings are indexed by event id.
    let mut by_event: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, f) in findings.iter().enumerate() {
        by_event.entry(f.event_id.clone()).or_default().push(i);
    }
    let mut removed = vec![false; findings.len()];
    for copy in &copies {
        let template = findings[copy.template].clone();
        let event = &events[copy.event];
        if unique_ids {
            let value_canon = canonical_value(&template.matched_value);
            let reversed: String = value_canon.chars().rev().collect();
            let key = alnum_key(&template.matched_value);
            for &j in by_event.get(event.event_id).map(Vec::as_slice).unwrap_or_default() {
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
        let fragments: Vec<&str> = copy.fragments.iter().map(|&j| events[j].event_id).collect();
        let label = super::transform_label(&copy.transform);
        let kind = template.data_type.replace('_', " ");
        let how = if fragments.is_empty() { label } else { format!("{label} ({})", fragments.join(", ")) };
        by_event.entry(event.event_id.to_owned()).or_default().push(findings.len());
        removed.push(false);
        findings.push(Finding {
            finding_id: format!("finding_{:03}", *counter),
            event_index: copy.event,
            event_id: event.event_id.to_owned(),
            channel: event.channel,
            source: event.source.to_owned(),
            target: event.target.to_owned(),
            confidence: if copy.transform == "split" { 0.8 } else { 0.85 },
            recommendation: format!(
                "This {kind} reappears {how}; obscuring a value does not hide it from the recipient. {}",
                template.recommendation
            )
            .trim()
            .to_owned(),
            tier: format!("anchored:{}", copy.transform),
            transform: Some(copy.transform.clone()),
            fragments: fragments.iter().map(|s| (*s).to_owned()).collect(),
            coalesced_from: None,
            ..template
        });
    }
    let mut keep = removed.iter().map(|r| !r);
    findings.retain(|_| keep.next().unwrap_or(true));
}

/// The three characters read from each token start of a member's joined
/// tokens (runs may cross token ends).
fn token_start_trigrams((joined, starts): &(String, Vec<usize>)) -> impl Iterator<Item = (usize, &str)> {
    starts.iter().filter_map(move |&s| joined.get(s..s + 3).map(|p| (s, p)))
}

/// Byte offsets, in the concatenation of `tokens(t)`, where each token starts.
fn token_starts(t: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut at = 0;
    for tok in tokens(t) {
        starts.push(at);
        at += tok.len();
    }
    starts.push(at);
    starts
}

/// The split-copy search of spec 2.6 step 4 over one group's later members.
///
/// The reference tries an attempt from every start position `s` over the
/// window `later[s..s + 8]`; an attempt begins at the first member of the
/// window whose tokens spell at least 3 leading characters (a "starter")
/// and the search ends at the first attempt that spells the whole value.
/// Only a member holding a token equal to a suffix of the value can finish
/// an attempt (or, holding the whole value as its first fragment, end the
/// search with nothing), so only starters up to 7 members before such a
/// member are tried, in order — the same outcome without the quadratic walk.
/// `holders` maps tokens, and `starts3` the three characters read from each
/// token start, to positions in the whole group; `offset` is the position
/// of `later[0]` in it.
fn split_search<'a>(
    later: &[usize],
    event_tokens: &[Vec<String>],
    g: &str,
    holders: &'a HashMap<&str, Vec<usize>>,
    starts3: &'a HashMap<&str, Vec<usize>>,
    offset: usize,
) -> Option<Vec<usize>> {
    // Positions in the group, from `offset` on, of starters (members that
    // spell the first three characters from a token start) and of enders
    // (members holding a token equal to a suffix). Only starters with an
    // ender at most 7 members on can change the outcome; walk from the
    // shorter side.
    let after = |list: &'a [usize]| -> &'a [usize] { &list[list.partition_point(|&at| at < offset)..] };
    let starters: &[usize] = g.get(..3).and_then(|p| starts3.get(p)).map_or(&[], |l| after(l));
    let ender_lists: Vec<&[usize]> = (0..g.len()).filter_map(|p| holders.get(&g[p..])).map(|l| after(l)).collect();
    let ender_count: usize = ender_lists.iter().map(|l| l.len()).sum();
    let near = |list: &[usize], lo: usize, hi: usize| {
        let i = list.partition_point(|&at| at < lo);
        list.get(i).is_some_and(|&at| at <= hi)
    };
    let mut starts: Vec<usize> = if starters.len() <= ender_count {
        starters.iter().copied().filter(|&t| ender_lists.iter().any(|l| near(l, t, t + 7))).collect()
    } else {
        ender_lists
            .iter()
            .flat_map(|l| l.iter())
            .flat_map(|&e| {
                let lo = e.saturating_sub(7).max(offset);
                let i = starters.partition_point(|&t| t < lo);
                starters[i..].iter().copied().take_while(move |&t| t <= e)
            })
            .collect()
    };
    starts.sort_unstable();
    starts.dedup();
    let starts: Vec<usize> = starts.into_iter().map(|t| t - offset).collect();
    for t in starts {
        let k0 = frag(&event_tokens[later[t]], g, 0);
        if k0 < 3 {
            continue;
        }
        if k0 == g.len() {
            // A member holding the whole value ends the search, empty-handed.
            return None;
        }
        let (mut pos, mut used) = (k0, vec![later[t]]);
        for &member in later.iter().skip(t + 1).take(7) {
            let k = frag(&event_tokens[member], g, pos);
            if !(k >= 3 || (k >= 1 && pos + k == g.len())) {
                break;
            }
            pos += k;
            used.push(member);
            if pos == g.len() {
                return Some(used);
            }
            if used.len() == 4 {
                break;
            }
        }
    }
    None
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// The pruned split search decides exactly like the reference's walk.
        #[test]
        fn split_search_matches_the_reference(
            texts in proptest::collection::vec(proptest::collection::vec(
                proptest::sample::select(vec!["12", "123", "1234", "12345678", "45", "456", "4567", "5678", "678", "78", "789", "890", "90", "0", "x"]), 0..4), 1..14),
            g in proptest::sample::select(vec!["12345678", "1234567890", "123456789", "4567891230"]),
        ) {
            let event_tokens: Vec<Vec<String>> = texts.iter().map(|t| t.iter().map(|s| s.to_string()).collect()).collect();
            let later: Vec<usize> = (0..event_tokens.len()).collect();
            let joined: Vec<(String, Vec<usize>)> = event_tokens.iter().map(|toks| {
                let mut starts = vec![];
                let mut at = 0;
                for t in toks { starts.push(at); at += t.len(); }
                (toks.concat(), starts)
            }).collect();
            let mut holders: HashMap<&str, Vec<usize>> = HashMap::new();
            let mut starts3: HashMap<&str, Vec<usize>> = HashMap::new();
            for (at, toks) in event_tokens.iter().enumerate() {
                for tok in toks {
                    let list = holders.entry(tok.as_str()).or_default();
                    if list.last() != Some(&at) { list.push(at); }
                }
                for (_, p) in token_start_trigrams(&joined[at]) {
                    let list = starts3.entry(p).or_default();
                    if list.last() != Some(&at) { list.push(at); }
                }
            }
            proptest::prop_assert_eq!(
                split_search(&later, &event_tokens, g, &holders, &starts3, 0),
                split_search_reference(&later, &event_tokens, g)
            );
        }
    }
}
