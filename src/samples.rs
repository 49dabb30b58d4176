//! The bundled example reports (in `www/samples/`, copied to `dist/samples/`).
//!
//! They are the reports `agentleak` 0.17.0 wrote for its own MIT-licensed
//! example traces (see `www/samples/NOTICE.md`).

/// File names under `samples/`, in the order "Load example" adds them.
pub const SAMPLE_REPORTS: [&str; 6] = [
    "healthcare_trace.report.json",
    "finance_trace.report.json",
    "hr_trace.report.json",
    "customer_support_trace.report.json",
    "education_trace.report.json",
    "healthcare_clean_trace.report.json",
];

/// The URL of a sample, relative to the page so the site works under any sub-path.
pub fn sample_url(name: &str) -> String {
    format!("samples/{name}")
}
