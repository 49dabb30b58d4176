//! The bundled example reports and traces (in `www/samples/`, copied to
//! `dist/samples/`).
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

/// The example traces under `samples/traces/`, in the order "Load example
/// traces" adds them: analysed in the worker like dropped traces.
pub const SAMPLE_TRACES: [&str; 10] = [
    "traces/customer_support_clean_trace.json",
    "traces/customer_support_trace.json",
    "traces/education_clean_trace.json",
    "traces/education_trace.json",
    "traces/finance_clean_trace.json",
    "traces/finance_trace.json",
    "traces/healthcare_clean_trace.json",
    "traces/healthcare_trace.json",
    "traces/hr_clean_trace.json",
    "traces/hr_trace.json",
];

/// The URL of a sample, relative to the page so the site works under any sub-path.
pub fn sample_url(name: &str) -> String {
    format!("samples/{name}")
}
