//! Coalescing (spec 2.7): within one data type, values that contain one
//! another at token boundaries become one secret, spelled as the narrowest.
//!
//! Reference behaviour kept on purpose: nothing happens unless a data type
//! has at least two distinct canonical values, so `diabetes` and `Diabetes`
//! alone stay two secrets (edge_case_variants); once a cluster forms, case
//! and spacing variants inside it are respelled too (edge_coalesce_overlap).
//!
//! The reference tests every pair of distinct values of a data type, which
//! is quadratic in the number of distinct values (thousands of account
//! numbers or emails in a long trace). Its clusters are the connected
//! components of "one value contains the other at token boundaries" — the
//! order in which the pairs are tried only decides which member is the
//! union-find root, never who is in a cluster — so here each value is
//! searched for all narrower ones at once with an Aho–Corasick automaton.

use super::{canonical_value, Finding, TokenMatcher};
use crate::util::FxMap;

pub(super) fn coalesce(findings: &mut [Finding]) {
    let canon: Vec<String> = findings.iter().map(|f| canonical_value(&f.matched_value)).collect();
    // Members of each data type, types in order of first appearance.
    let mut type_index: FxMap<&str, usize> = FxMap::default();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        let g = *type_index.entry(&f.data_type).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    for members in &groups {
        coalesce_group(findings, &canon, members);
    }
}

fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Coalesces the findings `members` (one data type, in list order).
fn coalesce_group(findings: &mut [Finding], canon: &[String], members: &[usize]) {
    // Distinct canonical values in first-seen order, with the raw spelling
    // of the first finding; `value_of[m]` = the value of `members[m]`.
    let mut index_of: FxMap<&str, usize> = FxMap::default();
    let mut values: Vec<(&str, usize)> = Vec::new();
    let value_of: Vec<usize> = members
        .iter()
        .map(|&i| {
            *index_of.entry(canon[i].as_str()).or_insert_with(|| {
                values.push((canon[i].as_str(), i));
                values.len() - 1
            })
        })
        .collect();
    if values.len() < 2 {
        return;
    }
    // Union of every value with each narrower value it contains at token
    // boundaries (a value can only contain narrower or equal ones, and the
    // values are distinct).
    let texts: Vec<&str> = values.iter().map(|(c, _)| *c).collect();
    let matcher = TokenMatcher::new(&texts);
    let mut parent: Vec<usize> = (0..values.len()).collect();
    for (wide, (haystack, _)) in values.iter().enumerate() {
        for narrow in matcher.indexes_in(haystack) {
            if narrow != wide {
                let (rw, rn) = (root(&mut parent, wide), root(&mut parent, narrow));
                if rw != rn {
                    parent[rn] = rw;
                }
            }
        }
    }
    let roots: Vec<usize> = (0..values.len()).map(|v| root(&mut parent, v)).collect();
    let mut size = vec![0usize; values.len()];
    for &r in &roots {
        size[r] += 1;
    }
    if size.iter().all(|&s| s < 2) {
        return;
    }
    // Per cluster: the representative (shortest canonical form, then the
    // smallest in code-point order) and the strongest severity, level and
    // confidence over its findings.
    struct Merged {
        rep: usize,
        severity: crate::model::Severity,
        level: crate::model::Level,
        confidence: f64,
    }
    let narrower = |a: usize, b: usize| {
        let (ca, cb) = (values[a].0, values[b].0);
        ca.chars().count().cmp(&cb.chars().count()).then_with(|| ca.cmp(cb)).is_lt()
    };
    let mut merged: FxMap<usize, Merged> = FxMap::default();
    for (m, &i) in members.iter().enumerate() {
        let v = value_of[m];
        let r = roots[v];
        if size[r] < 2 {
            continue;
        }
        let f = &findings[i];
        let entry =
            merged.entry(r).or_insert(Merged { rep: v, severity: f.severity, level: f.level, confidence: f64::MIN });
        if narrower(v, entry.rep) {
            entry.rep = v;
        }
        entry.severity = entry.severity.max(f.severity);
        entry.level = entry.level.max(f.level);
        entry.confidence = entry.confidence.max(f.confidence);
    }
    let reps: FxMap<usize, String> =
        merged.iter().map(|(&r, m)| (r, findings[values[m.rep].1].matched_value.clone())).collect();
    for (m, &i) in members.iter().enumerate() {
        let r = roots[value_of[m]];
        let (Some(cluster), Some(rep_raw)) = (merged.get(&r), reps.get(&r)) else { continue };
        let f = &mut findings[i];
        f.matched_value.clone_from(rep_raw);
        f.severity = cluster.severity;
        f.level = cluster.level;
        f.confidence = cluster.confidence;
    }
}

/// The reference's pairwise walk (kept to pin the fast one).
#[cfg(test)]
fn coalesce_reference(findings: &mut [Finding]) {
    use super::contains_at_token_boundaries;
    let canon: Vec<String> = findings.iter().map(|f| canonical_value(&f.matched_value)).collect();
    let mut types: Vec<String> = Vec::new();
    for f in findings.iter() {
        if !types.iter().any(|t| *t == f.data_type) {
            types.push(f.data_type.to_string());
        }
    }
    for data_type in &types {
        let members: Vec<usize> =
            (0..findings.len()).filter(|&i| findings[i].data_type == data_type.as_str()).collect();
        let mut values: Vec<(String, String)> = Vec::new();
        for &i in &members {
            if !values.iter().any(|(c, _)| *c == canon[i]) {
                values.push((canon[i].clone(), findings[i].matched_value.clone()));
            }
        }
        if values.len() < 2 {
            continue;
        }
        crate::util::sort_by_key(&mut values, |(c, _)| std::cmp::Reverse(c.chars().count()));
        let mut parent: Vec<usize> = (0..values.len()).collect();
        for wide in 0..values.len() {
            for narrow in wide + 1..values.len() {
                let (rw, rn) = (root(&mut parent, wide), root(&mut parent, narrow));
                if rw != rn && contains_at_token_boundaries(&values[wide].0, &values[narrow].0) {
                    parent[rn] = rw;
                }
            }
        }
        let roots: Vec<usize> = (0..values.len()).map(|i| root(&mut parent, i)).collect();
        for cluster in 0..values.len() {
            let in_cluster: Vec<usize> = (0..values.len()).filter(|&i| roots[i] == cluster).collect();
            if in_cluster.len() < 2 {
                continue;
            }
            let rep = in_cluster
                .iter()
                .min_by(|&&a, &&b| {
                    let (ca, cb) = (&values[a].0, &values[b].0);
                    ca.chars().count().cmp(&cb.chars().count()).then_with(|| ca.cmp(cb))
                })
                .copied()
                .unwrap_or(cluster);
            let rep_raw = values[rep].1.clone();
            let touched: Vec<usize> =
                members.iter().copied().filter(|&i| in_cluster.iter().any(|&v| values[v].0 == canon[i])).collect();
            let severity = touched.iter().map(|&i| findings[i].severity).max();
            let level = touched.iter().map(|&i| findings[i].level).max();
            let confidence = touched.iter().map(|&i| findings[i].confidence).fold(f64::MIN, f64::max);
            for &i in &touched {
                let f = &mut findings[i];
                f.matched_value.clone_from(&rep_raw);
                if let (Some(s), Some(l)) = (severity, level) {
                    f.severity = s;
                    f.level = l;
                }
                f.confidence = confidence;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Channel, Level, Severity};

    fn finding(data_type: &str, value: &str, severity: Severity, level: u8, confidence: f64) -> Finding {
        Finding {
            number: 0,
            event_index: 0,
            event_id: "".into(),
            channel: Channel::ALL[0],
            source: "".into(),
            target: "".into(),
            data_type: data_type.to_owned().into(),
            severity,
            level: Level::clamped(i64::from(level)),
            confidence,
            matched_value: value.to_owned(),
            detector: "".into(),
            recommendation: "".into(),
            transform: None,
        }
    }

    #[test]
    fn wide_values_sharing_a_narrow_one_form_one_cluster() {
        let mut f = vec![
            finding("x", "Type 2 diabetes", Severity::Critical, 4, 0.9),
            finding("x", "diabetes", Severity::Medium, 2, 0.5),
            finding("x", "Diabetes  insipidus", Severity::Low, 1, 0.7),
            finding("y", "prediabetes", Severity::Low, 1, 0.4),
        ];
        coalesce(&mut f);
        let got: Vec<(&str, Severity, Level, f64)> =
            f.iter().map(|f| (f.matched_value.as_str(), f.severity, f.level, f.confidence)).collect();
        let (l1, l4) = (Level::clamped(1), Level::clamped(4));
        assert_eq!(
            got,
            vec![
                ("diabetes", Severity::Critical, l4, 0.9),
                ("diabetes", Severity::Critical, l4, 0.9),
                ("diabetes", Severity::Critical, l4, 0.9),
                ("prediabetes", Severity::Low, l1, 0.4),
            ]
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]
        /// The automaton-based clustering decides exactly like the pairwise walk.
        #[test]
        fn coalesce_matches_the_reference(
            items in proptest::collection::vec((
                proptest::sample::select(vec!["a", "b"]),
                proptest::collection::vec(proptest::sample::select(vec!["ab", "AB", "x", "ab1", "²", " ", "  ", "-", "ß", "ss", "c"]), 0..5),
                0u8..4,
                proptest::sample::select(vec![0.5, 0.75, 0.9]),
            ), 0..14),
        ) {
            let severities = [Severity::Low, Severity::Medium, Severity::High, Severity::Critical];
            let findings: Vec<Finding> = items
                .iter()
                .map(|(t, parts, s, c)| finding(t, &parts.concat(), severities[usize::from(*s)], s + 1, *c))
                .collect();
            let (mut fast, mut slow) = (findings.clone(), findings);
            coalesce(&mut fast);
            coalesce_reference(&mut slow);
            proptest::prop_assert_eq!(fast, slow);
        }
    }
}
