//! Obscured copies (spec 2.6): a value seen in clear earlier in the trace
//! that comes back reversed, ROT13-rotated, inside a decoded view, or split
//! into fragments across messages to one target. Runs once per trace, after
//! every event's own findings.
//!
//! The reference tests every anchor against every event; here each event's
//! canonical, reversed and rotated texts are computed once, and anchors are
//! looked up only where their text can occur. Results are the same.

use super::decoded::views;
use super::{canonical_value, contains_at_token_boundaries, Finding};
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
    let mut anchors: Vec<Anchor> = template_keys
        .iter()
        .filter(|k| k.chars().count() >= 6)
        .filter_map(|k| {
            let first_seen = canon.iter().position(|t| contains_at_token_boundaries(t, k))?;
            let template = template_of[k];
            let a = ascii_alnum(&findings[template].matched_value);
            Some(Anchor { key: k.clone(), template, first_seen, identifier: is_identifier(&a).then_some(a) })
        })
        .collect();
    anchors.sort_by_key(|a| std::cmp::Reverse(a.key.chars().count()));
    if anchors.is_empty() {
        return;
    }

    struct Copy {
        event: usize,
        template: usize,
        transform: String,
        fragments: Vec<usize>,
    }
    let mut copies: Vec<Copy> = Vec::new();
    let mut reported: HashSet<(usize, &str)> = HashSet::new();

    // 3. Reversed, ROT13 and decoded-identifier copies.
    for (i, event) in events.iter().enumerate() {
        let candidates: Vec<&Anchor> = anchors.iter().filter(|a| i > a.first_seen).collect();
        if candidates.is_empty() {
            continue;
        }
        let reversed = canonical_value(&event.text.chars().rev().collect::<String>());
        let rotated = canonical_value(&rot13(event.text));
        let mut event_views: Option<Vec<(String, Vec<String>)>> = None;
        let mut claimed: Vec<&str> = Vec::new();
        for anchor in candidates {
            let c = anchor.key.as_str();
            if contains_at_token_boundaries(&canon[i], c) || claimed.iter().any(|k| contains_at_token_boundaries(k, c))
            {
                continue;
            }
            let transform = if contains_at_token_boundaries(&reversed, c) {
                Some("reversed".to_owned())
            } else if contains_at_token_boundaries(&rotated, c) {
                Some("rot13".to_owned())
            } else if let Some(target) = &anchor.identifier {
                let views = event_views.get_or_insert_with(|| {
                    views(event.text).into_iter().map(|v| (v.transform, tokens(&v.text))).collect()
                });
                views.iter().find(|(_, toks)| spells(toks, target)).map(|(t, _)| t.clone())
            } else {
                None
            };
            if let Some(transform) = transform {
                copies.push(Copy { event: i, template: anchor.template, transform, fragments: Vec::new() });
                reported.insert((i, c));
                claimed.push(c);
            }
        }
    }

    // 4. Split copies, per target group.
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        match groups.iter_mut().find(|(t, _)| *t == e.target) {
            Some((_, members)) => members.push(i),
            None => groups.push((e.target, vec![i])),
        }
    }
    let event_tokens: Vec<Vec<String>> = events.iter().map(|e| tokens(e.text)).collect();
    for (_, members) in groups.iter().filter(|(_, m)| m.len() >= 2) {
        for anchor in &anchors {
            let Some(g) = &anchor.identifier else { continue };
            let later: Vec<usize> = members.iter().copied().filter(|&m| m > anchor.first_seen).collect();
            let Some(used) = split_search(&later, &event_tokens, g) else { continue };
            let Some(&last) = used.last() else { continue };
            let c = anchor.key.as_str();
            if used.iter().any(|&j| reported.contains(&(j, c)) || contains_at_token_boundaries(&canon[j], c)) {
                continue;
            }
            copies.push(Copy { event: last, template: anchor.template, transform: "split".into(), fragments: used });
            reported.insert((last, c));
        }
    }

    // 5. Materialise, in record order.
    let templates: Vec<Finding> = copies.iter().map(|c| findings[c.template].clone()).collect();
    for (copy, template) in copies.iter().zip(templates) {
        let event = &events[copy.event];
        if unique_ids {
            let value_canon = canonical_value(&template.matched_value);
            if copy.transform == "reversed" {
                let reversed: String = value_canon.chars().rev().collect();
                findings.retain(|f| !(f.event_id == event.event_id && canonical_value(&f.matched_value) == reversed));
            }
            let key = alnum_key(&template.matched_value);
            findings.retain(|f| {
                !(f.event_id == event.event_id
                    && f.transform.is_some()
                    && f.data_type == template.data_type
                    && alnum_key(&f.matched_value) == key)
            });
        }
        *counter += 1;
        let fragments: Vec<&str> = copy.fragments.iter().map(|&j| events[j].event_id).collect();
        let label = super::transform_label(&copy.transform);
        let kind = template.data_type.replace('_', " ");
        let how = if fragments.is_empty() { label } else { format!("{label} ({})", fragments.join(", ")) };
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
            coalesced_from: None,
            ..template
        });
    }
}

/// Some consecutive run of tokens concatenates to exactly `target`.
fn spells(toks: &[String], target: &str) -> bool {
    (0..toks.len()).any(|i| {
        let mut len = 0;
        for tok in &toks[i..] {
            if !target[len..].starts_with(tok.as_str()) {
                return false;
            }
            len += tok.len();
            if len == target.len() {
                return true;
            }
        }
        false
    })
}

/// The split-copy search of spec 2.6 step 4 over one group's later members.
fn split_search(later: &[usize], event_tokens: &[Vec<String>], g: &str) -> Option<Vec<usize>> {
    for s in 0..later.len() {
        let mut pos = 0;
        let mut used: Vec<usize> = Vec::new();
        for &member in later.iter().skip(s).take(8) {
            let k = frag(&event_tokens[member], g, pos);
            if k >= 3 || (k >= 1 && pos + k == g.len() && !used.is_empty()) {
                pos += k;
                used.push(member);
                if pos == g.len() {
                    // The search ends here, with or without a result.
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
}
