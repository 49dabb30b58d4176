//! The views. Each takes props and emits callbacks; none reaches into the
//! state of another.

pub mod app;
pub mod batch;
pub mod canaries;
pub mod compare;
pub mod compliance;
pub mod download;
pub mod event_list;
pub mod findings;
pub mod flow;
pub mod heatmap;
pub mod ident;
pub mod pager;
pub mod provenance;
pub mod remediation;
pub mod review;
pub mod run_detail;
pub mod run_table;
pub mod scoring;
pub mod small_file;
pub mod span_mapping;
pub mod text;
pub mod trend;

/// A Risk Index as the viewer prints it: four decimals, like the report.
pub fn format_ri(ri: f64) -> String {
    format!("{ri:.4}")
}

/// The CSS class of a verdict badge, from the verdict text a report stores.
pub fn verdict_class(verdict: &str) -> &'static str {
    match agentrisk::Verdict::ALL.into_iter().find(|v| v.as_str() == verdict) {
        Some(v) => v.slug(),
        None => "unknown",
    }
}

/// `12345` → `12 345` (a narrow no-break space between groups of three).
pub fn group_digits(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push('\u{202F}');
        }
        out.push(c);
    }
    out
}
