//! `agentrisk run`: the reference's `agentleak run` flags, on our core.

use crate::progress;
use agentrisk::analyser::{Analyser, CanarySetting, GateOverrides, Keep, Progress};
use agentrisk::review::{RunReview, RunSecrets};
use std::borrow::Cow;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// What `run --help` says about the command.
pub const ABOUT: &str = "Analyse AgentLeak traces and write one report per trace";

pub const LONG_ABOUT: &str = "\
Analyses AgentLeak traces exactly as `agentleak run` (fast tier) does and
writes one report per trace to DIR/<run_id>.json (default ./agentleak-reports;
`-o -` writes the JSON to stdout). A short summary per run goes to stderr
unless -q. Without -c every built-in detector runs; with any config file its
toggles apply, and finance and hr are off unless it switches them on (the
reference's behaviour, kept for parity).

With --review FILE, each report gets a top-level `reviewed` object (its
reviewed numbers: false positives out, accepted risks not blocking until
they expire; the reference's keys are unchanged), the summary line is
followed by the reviewed one, and the exit status follows the reviewed gate.

On a terminal, a trace of 4 MB or more shows its progress on stderr (not
with -q).";

pub const EXAMPLES: &str = "\
Examples:
  agentrisk run -t trace.json
  agentrisk run -t a.json -t b.json -c agentleak.yaml -o reports/
  agentrisk run -q -t trace.json -o - --fail-under 60 > report.json
  agentrisk run -t trace.json --review review.json --today 2026-06-01";

/// The report formats `-f` accepts: the reference also has others; here only
/// JSON reports are written.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ReportFormat {
    Json,
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// AgentLeak trace to analyse (repeat for more)
    #[arg(short = 't', long = "trace", value_name = "TRACE", required = true)]
    traces: Vec<String>,
    /// agentleak.yaml: detectors, weights, vault and gate
    #[arg(short = 'c', long = "config", value_name = "CONFIG")]
    config: Option<String>,
    /// Folder for the reports, or - to write them to stdout
    #[arg(short = 'o', long = "output", value_name = "DIR", default_value = "agentleak-reports")]
    out_dir: String,
    /// Report format
    #[arg(short = 'f', long = "format", value_enum, default_value = "json")]
    format: ReportFormat,
    /// Block a run whose privacy score is below N (replaces the config's fail_below)
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    fail_under: Option<i64>,
    /// JSON file of canary values: {"obvious": [...], "realistic": [...], "semantic": [...]}; used instead of a trace's own metadata.canaries
    #[arg(long, value_name = "FILE")]
    canaries: Option<String>,
    /// How OpenTelemetry span exports (OTLP JSON, JSON Lines, span lists) become runs
    #[arg(long, value_enum, value_name = "MAPPING", default_value = "structural")]
    pub(crate) span_mapping: crate::SpanMappingArg,
    #[command(flatten)]
    review: crate::review::ReviewFlags,
    /// No summary lines and no progress on stderr (errors still show)
    #[arg(short = 'q', long = "quiet")]
    quiet: bool,
    #[command(flatten)]
    jobs: crate::parallel::JobsFlag,
}

/// The analyser of the flags: the config (checked before any trace, as
/// the reference's runner checks it when it starts), `--fail-under` (which
/// replaces the config's fail_below, as in the reference) and the canaries;
/// or which file is wrong and why.
fn analyser_of(args: &RunArgs) -> Result<Analyser, String> {
    args.review.apply(
        crate::analyser(args.config.as_deref(), args.canaries.as_deref())?
            .with_span_mapping(args.span_mapping.into())
            .with_gate(GateOverrides { fail_below: args.fail_under, block_on_critical: None }),
    )
}

/// A canary-set file, read by the core's rule; errors name the file and
/// the place in it.
pub fn canaries_from_file(path: &str) -> Result<CanarySetting, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
    CanarySetting::from_file(path, &bytes).map_err(|e| format!("{path}: {e}"))
}

/// A run id made safe as a file name: anything but letters, digits, `.`,
/// `_` and `-` becomes `_` (the reference writes the id unsanitised, so a
/// `/` in it escapes or breaks its output directory).
pub fn file_name_for(run_id: &str) -> String {
    let safe: String =
        run_id.chars().map(|c| if c.is_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' }).collect();
    match safe.as_str() {
        "" | "." | ".." => "run".to_owned(),
        _ if safe.len() > MAX_FILE_STEM => shortened_stem(&safe, run_id),
        _ => safe,
    }
}

/// Longest file name stem written, in bytes. File systems refuse names over
/// 255 bytes (the reference then fails to write its report); a longer id is
/// cut and given a hash of the whole id, so distinct ids keep distinct files.
const MAX_FILE_STEM: usize = 200;

fn shortened_stem(safe: &str, run_id: &str) -> String {
    let mut cut = MAX_FILE_STEM - 17;
    while !safe.is_char_boundary(cut) {
        cut -= 1;
    }
    // FNV-1a: stable across runs and machines, unlike std's hasher.
    let hash = run_id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("{}-{hash:016x}", safe.get(..cut).unwrap_or_default())
}

/// A run of a trace, analysed (and reviewed) on a thread of the pool,
/// waiting for its turn to be written: runs are written in the traces'
/// order, streamed from this thread, never held as one string.
struct Analysed {
    report: agentrisk::model::Report,
    secrets: Option<RunSecrets>,
    reviewed: Option<RunReview>,
}

pub fn run(args: &RunArgs) -> ExitCode {
    let ReportFormat::Json = args.format;
    let (analyser, pool) = match analyser_of(args).and_then(|analyser| Ok((analyser, args.jobs.pool()?))) {
        Ok(ready) => ready,
        Err(message) => {
            eprintln!("agentrisk: {message}");
            return ExitCode::from(2);
        }
    };
    let to_stdout = args.out_dir == "-";
    if !to_stdout {
        if let Err(e) = std::fs::create_dir_all(&args.out_dir) {
            eprintln!("agentrisk: {}: cannot create the output folder: {e}", args.out_dir);
            return ExitCode::from(2);
        }
    }
    let show_progress = progress::wanted(args.quiet);
    // Traces analysed at once each draw their bar on their own line.
    let bars = progress::analysis_bars();
    let analyse = |path: &String| -> Result<Vec<Analysed>, String> {
        let analyser = analyser.clone().with_generated_at(now_isoformat());
        // The file's bytes are dropped once parsed and the trace as soon as
        // the report stops reading it.
        let bar = show_progress
            .then(|| std::fs::metadata(path).ok())
            .flatten()
            .filter(|meta| meta.len() >= progress::LARGE_TRACE_BYTES)
            .map(|_| bars.add(progress::analysis_bar(path)));
        let observe = |p: Progress| {
            if let Some(bar) = &bar {
                progress::show_analysis(bar, p);
            }
        };
        let outcome = std::fs::read(path).map_err(|e| format!("{path}: cannot read: {e}")).and_then(|bytes| {
            analyser.analyse_runs(path, Cow::Owned(bytes), Some(&observe), Keep::ReportOnly).map_err(|e| e.to_string())
        });
        if let Some(bar) = &bar {
            bar.finish_and_clear();
        }
        Ok(outcome?
            .into_iter()
            .map(|analysis| {
                let report = analysis.report;
                let secrets = analyser.review().map(|_| analyser.trace_secrets(&report));
                let reviewed = secrets.as_ref().and_then(|s| analyser.reviewed(s));
                Analysed { report, secrets, reviewed }
            })
            .collect())
    };
    let (mut failed, mut blocked) = (false, false);
    let mut secrets = Vec::new();
    // Lines on stderr are printed between the bars' redraws.
    crate::parallel::prepare(&pool, args.traces.len());
    crate::parallel::in_order(&pool, &args.traces, analyse, |path, outcome| {
        bars.suspend(|| {
            let runs = match outcome {
                Ok(runs) => runs,
                Err(message) => {
                    eprintln!("agentrisk: {message}");
                    failed = true;
                    return;
                }
            };
            for Analysed { mut report, secrets: run_secrets, reviewed } in runs {
                secrets.extend(run_secrets);
                // On the pool: the report's long lists are written on its threads.
                let written = pool.install(|| write_out(args, to_stdout, &mut report, reviewed.as_ref()));
                let destination = match written {
                    Ok(destination) => destination,
                    Err(message) => {
                        eprintln!("agentrisk: {message}");
                        failed = true;
                        continue;
                    }
                };
                blocked |= reviewed.as_ref().map_or(report.blocked, |r| r.blocked);
                if report.event_count == 0 {
                    // The reference's numbers for an empty trace are a Pass, but
                    // nothing was looked at: say so even with --quiet.
                    eprintln!("agentrisk: warning: {path}: run {}: no events: nothing was analysed", report.run_id);
                }
                if !args.quiet {
                    let made = report
                        .span_source
                        .as_ref()
                        .map(|s| format!(" · from {} ({} mapping)", s.format.label(), s.mapping.as_str()))
                        .unwrap_or_default();
                    eprintln!(
                        "{path}: run {} · RI {:.4} · privacy score {} · {} · {} · {} findings{made} → {destination}",
                        report.run_id,
                        report.risk_index,
                        report.privacy_score,
                        report.verdict,
                        if report.blocked { "blocked" } else { "not blocked" },
                        report.findings.len(),
                    );
                    if let Some(reviewed) = &reviewed {
                        crate::review::reviewed_lines(reviewed).iter().for_each(|line| eprintln!("{line}"));
                    }
                } else if let Some(reviewed) = &reviewed {
                    crate::review::expired_warnings(path, reviewed).iter().for_each(|w| eprintln!("{w}"));
                }
            }
        })
    });
    if let Some((review, _)) = analyser.review() {
        crate::review::report_unmatched(&review.unmatched(&secrets.iter().collect::<Vec<_>>()));
    }
    if failed {
        ExitCode::from(2)
    } else if blocked {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Writes a report to stdout or to its file in the output folder; returns
/// where it went, or why it could not be written.
fn write_out(
    args: &RunArgs,
    to_stdout: bool,
    report: &mut agentrisk::model::Report,
    reviewed: Option<&RunReview>,
) -> Result<String, String> {
    if to_stdout {
        // Stdout is line-buffered; a pretty report has a line per value.
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        write_report(&mut out, report, reviewed)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush())
            .map_err(|e| format!("stdout: cannot write: {e}"))?;
        return Ok("stdout".to_owned());
    }
    let file: PathBuf = [args.out_dir.as_str(), &format!("{}.json", file_name_for(&report.run_id))].iter().collect();
    // No trailing newline, like the reference's json.dumps output.
    std::fs::File::create(&file)
        .and_then(|f| write_report(&mut std::io::BufWriter::new(f), report, reviewed))
        .map_err(|e| format!("{}: cannot write: {e}", file.display()))?;
    Ok(file.display().to_string())
}

/// Writes a report (with its `reviewed` object, when reviewed) as indented
/// JSON, its long lists on the pool's threads, and flushes.
fn write_report(
    out: &mut impl Write,
    report: &mut agentrisk::model::Report,
    reviewed: Option<&RunReview>,
) -> std::io::Result<()> {
    agentrisk::review::write_pretty(report, reviewed, out)?;
    out.flush()
}

/// The current UTC time as Python's `datetime.isoformat()` writes it.
pub fn now_isoformat() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    agentrisk::analyser::generated_at_from_unix(now.as_secs() as i64, now.subsec_micros())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_and_file_names() {
        assert_eq!(agentrisk::analyser::generated_at_from_unix(0, 0), "1970-01-01T00:00:00+00:00");
        assert_eq!(
            agentrisk::analyser::generated_at_from_unix(1_796_223_149, 778_071),
            "2026-12-02T14:52:29.778071+00:00"
        );
        assert_eq!(file_name_for("run_healthcare_001"), "run_healthcare_001");
        assert_eq!(file_name_for("../etc/x y"), ".._etc_x_y");
        assert_eq!(file_name_for(".."), "run");
        let long = "é".repeat(300);
        let name = file_name_for(&long);
        assert!(name.len() <= MAX_FILE_STEM, "{}", name.len());
        assert!(name.starts_with("éé") && name != file_name_for(&"é".repeat(301)));
        assert_eq!(name, file_name_for(&long), "stable");
    }
}
