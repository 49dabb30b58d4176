//! Coalescing (spec 2.7): within one data type, values that contain one
//! another at token boundaries become one secret, spelled as the narrowest.
//!
//! Reference behaviour kept on purpose: nothing happens unless a data type
//! has at least two distinct canonical values, so `diabetes` and `Diabetes`
//! alone stay two secrets (edge_case_variants); once a cluster forms, case
//! and spacing variants inside it are respelled too (edge_coalesce_overlap).

use super::{canonical_value, contains_at_token_boundaries, Finding};

pub(super) fn coalesce(findings: &mut [Finding]) {
    let canon: Vec<String> = findings.iter().map(|f| canonical_value(&f.matched_value)).collect();
    let mut types: Vec<&str> = Vec::new();
    for f in findings.iter() {
        if !types.contains(&f.data_type.as_str()) {
            types.push(&f.data_type);
        }
    }
    let types: Vec<String> = types.into_iter().map(str::to_owned).collect();
    for data_type in &types {
        let members: Vec<usize> = (0..findings.len()).filter(|&i| &findings[i].data_type == data_type).collect();
        // Distinct canonical values, with the raw spelling of the first finding.
        let mut values: Vec<(String, String)> = Vec::new();
        for &i in &members {
            if !values.iter().any(|(c, _)| *c == canon[i]) {
                values.push((canon[i].clone(), findings[i].matched_value.clone()));
            }
        }
        if values.len() < 2 {
            continue;
        }
        values.sort_by_key(|(c, _)| std::cmp::Reverse(c.chars().count()));
        let mut parent: Vec<usize> = (0..values.len()).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
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
            let (rep_canon, rep_raw) = values[rep].clone();
            let touched: Vec<usize> =
                members.iter().copied().filter(|&i| in_cluster.iter().any(|&v| values[v].0 == canon[i])).collect();
            let severity = touched.iter().map(|&i| findings[i].severity).max();
            let level = touched.iter().map(|&i| findings[i].level).max();
            let confidence = touched.iter().map(|&i| findings[i].confidence).fold(f64::MIN, f64::max);
            for &i in &touched {
                let f = &mut findings[i];
                if canon[i] != rep_canon {
                    f.coalesced_from = Some(f.matched_value.clone());
                }
                f.matched_value = rep_raw.clone();
                if let (Some(s), Some(l)) = (severity, level) {
                    f.severity = s;
                    f.level = l;
                }
                f.confidence = confidence;
            }
        }
    }
}
