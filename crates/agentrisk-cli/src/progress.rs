//! Progress bars on stderr for long work: `batch` over many files, `run` on
//! a large trace. They are drawn only for a person watching (stderr is a
//! terminal and `-q` was not given), so scripts, pipes and CI logs get the
//! same bytes as ever; stdout, where reports and JSON go, is never touched.

use agentrisk::analyser::Progress;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A trace smaller than this is analysed in well under a second (100 000
/// events, about 20 MB, take about one), so a bar would only flash.
pub const LARGE_TRACE_BYTES: u64 = 4 << 20;

/// Whether progress is shown at all.
pub fn wanted(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

fn bar(length: u64, template: &str) -> ProgressBar {
    let style = ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
    ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::stderr()).with_style(style.progress_chars("=> "))
}

/// A bar over the files of a batch; the message is the file being read.
pub fn files_bar(files: usize) -> ProgressBar {
    bar(files as u64, "[{bar:30}] {pos}/{len} files {wide_msg}")
}

/// Per-mille steps of one trace's analysis.
const ANALYSIS_STEPS: u64 = 1000;

/// The bars of traces analysed at once, a line each on stderr.
pub fn analysis_bars() -> MultiProgress {
    MultiProgress::with_draw_target(ProgressDrawTarget::stderr())
}

/// A bar over one trace's analysis, named by its path.
pub fn analysis_bar(path: &str) -> ProgressBar {
    bar(ANALYSIS_STEPS, "{prefix} [{bar:30}] {percent:>3}% {msg}").with_prefix(path.to_owned())
}

/// Moves an analysis bar to where the core says the analysis is.
pub fn show_analysis(bar: &ProgressBar, progress: Progress) {
    bar.set_message(progress.stage.label());
    bar.set_position((progress.overall() * ANALYSIS_STEPS as f64).round() as u64);
}
