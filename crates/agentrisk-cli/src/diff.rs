//! `agentrisk diff BASE NEW` (what changed between two batches, and the
//! regression gate of a CI job) and `agentrisk history INPUT...` (batches
//! over time). Both read their inputs as `batch` does and print what one
//! core call gives: `agentrisk::compare::diff`, `compare::history::history`.

use crate::batch::{confidence_level, read_runs};
use agentrisk::analyser::{interval_method, Analyser, BatchRuns};
use agentrisk::compare::history::{history, HistoryInput};
use agentrisk::compare::{diff, FailRule, GateOutcome, Side};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub const DIFF_ABOUT: &str = "What changed between two batches of runs; a regression gate for CI";

pub const DIFF_LONG_ABOUT: &str = "\
Compares two batches, BASE and NEW: each a file or a folder, read as
`agentrisk batch` reads it (traces analysed with -c and --canaries, reports
as stored, scorecards' rows). Runs are matched by run_id, then by
scenario_id (runs with the same id pair in input order; one run a side is
compared whatever its ids). For each matched run: the secrets NEW leaks
that BASE did not, those resolved (data type, level, channel, redacted
value), per-channel RI changes, verdict and gate changes. For each rate of
the batch summary (leak, block, per channel, per level): both Wilson rates
and NEW − BASE with Newcombe's hybrid score interval (method 10). Over the
matched pairs: the paired leak counts and the exact McNemar p-value.

--fail-on RULE (repeatable) makes it a gate: new-leak[:L1..L4] (a matched
run leaks a secret it did not, at that level or above; default L1), verdict
(a matched run's verdict got worse), score-drop:N (a matched run's privacy
score fell by more than N points), leak-rate (the leak rate difference's
interval lies above 0). Exit status 1 when a rule fires, 0 when none does,
2 on bad input: a file that cannot be read, a side without runs, or a rule
the inputs cannot answer (e.g. new-leak on a scorecard without per-run
secrets, or no run matched).";

pub const DIFF_EXAMPLES: &str = "\
Examples:
  agentrisk diff baseline/ candidate/
  agentrisk diff baseline/ candidate/ --fail-on new-leak:L3 --format markdown > comment.md
  agentrisk diff last-week.scorecard.json runs/ --fail-on verdict --fail-on score-drop:10 --format json";

pub const HISTORY_ABOUT: &str = "Batches over time: leak and block rates with intervals, mean RI, verdict shares";

pub const HISTORY_LONG_ABOUT: &str = "\
Summarises each input as one batch — a scorecard, or a folder of runs (any
file or folder `agentrisk batch` takes) — and lists them oldest first: the
leak rate and block rate with Wilson score intervals, the mean Risk Index
and the verdict shares.

Order: by the batch's generated_at (a batch that is one scorecard file has
its scorecard's; `agentrisk batch --scorecard` writes it), else by its name
(a folder's name, a file's path as given), compared as text: generated_at
is UTC (2026-12-07T09:30:00+00:00), so it sorts by time, and so do folders
named by date (2026-12-07/). Equal keys keep the order given.";

pub const HISTORY_EXAMPLES: &str = "\
Examples:
  agentrisk history week49.json week50.json week51.json
  agentrisk history runs/2026-12-01 runs/2026-12-08 --json
  agentrisk history scorecards/*.json --format markdown";

/// How a result is printed.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Markdown,
}

/// The flags `diff` and `history` share with `batch`.
#[derive(clap::Args)]
pub struct ReadArgs {
    /// Interval confidence level, 0 < C < 1
    #[arg(long, value_name = "C", default_value = "0.95", value_parser = confidence_level)]
    confidence: f64,
    /// Wilson intervals with continuity correction (and Newcombe's method 11 for differences)
    #[arg(long)]
    continuity_correction: bool,
    /// agentleak.yaml for analysing traces
    #[arg(short = 'c', long = "config", value_name = "CONFIG")]
    config: Option<String>,
    /// JSON file of canary values, used for every trace instead of its own metadata.canaries
    #[arg(long, value_name = "FILE")]
    canaries: Option<String>,
    /// No progress bar on stderr (errors still show)
    #[arg(short = 'q', long = "quiet")]
    quiet: bool,
    #[command(flatten)]
    jobs: crate::parallel::JobsFlag,
}

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The batch before: a file or a folder
    #[arg(value_name = "BASE")]
    base: String,
    /// The batch after: a file or a folder
    #[arg(value_name = "NEW")]
    new: String,
    /// Exit 1 when this rule fires (repeatable): new-leak[:L1..L4], verdict, score-drop:N, leak-rate
    #[arg(long = "fail-on", value_name = "RULE", value_parser = fail_rule, action = clap::ArgAction::Append)]
    fail_on: Vec<FailRule>,
    /// Output: text (default), json, or markdown (a compact pull-request comment)
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    #[command(flatten)]
    read: ReadArgs,
}

#[derive(clap::Args)]
pub struct HistoryArgs {
    /// Batches: scorecards, or folders of runs (each input is one batch)
    #[arg(value_name = "INPUT", required = true)]
    inputs: Vec<String>,
    /// Print JSON (the same as --format json)
    #[arg(long)]
    json: bool,
    /// Output: text (default), json, or markdown
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    #[command(flatten)]
    read: ReadArgs,
}

/// `--fail-on`: a rule by the core's name for it.
fn fail_rule(text: &str) -> Result<FailRule, String> {
    FailRule::from_text(text).map_err(|e| e.to_string())
}

/// A batch as the user named it: a folder by its name (as `batch` names
/// its folders), a file by its path as given.
fn batch_name(input: &str) -> String {
    let path = Path::new(input);
    if path.is_dir() {
        crate::inputs::folder_name(path)
    } else {
        input.to_owned()
    }
}

/// One input read as one batch, or the messages that say why not (each
/// unreadable file and folder, or that it holds no run).
fn read_batch(reader: &Reader, input: &str, read: &ReadArgs) -> Result<BatchRuns, Vec<String>> {
    let (batch, unlisted) = read_runs(&reader.analyser, &reader.pool, &[input.to_owned()], read.quiet);
    let mut problems: Vec<String> = unlisted;
    problems.extend(batch.errors.iter().map(|e| e.to_string()));
    if problems.is_empty() && batch.runs.is_empty() {
        problems.push(format!("{input}: no runs found (traces, reports or scorecards)"));
    }
    if problems.is_empty() {
        Ok(batch)
    } else {
        Err(problems)
    }
}

/// What reads each batch: the analyser and the threads.
struct Reader {
    analyser: Analyser,
    pool: crate::parallel::ThreadPool,
}

/// The reader and interval method of the shared flags, or exit 2.
fn setup(read: &ReadArgs) -> Result<(Reader, agentrisk::stats::IntervalMethod), ExitCode> {
    let method = interval_method(read.confidence, read.continuity_correction).map_err(|e| {
        eprintln!("agentrisk: --confidence {}: {}", read.confidence, e.problem);
        ExitCode::from(2)
    })?;
    let analyser = crate::analyser(read.config.as_deref(), read.canaries.as_deref()).map_err(|message| {
        eprintln!("agentrisk: {message}");
        ExitCode::from(2)
    })?;
    let pool = read.jobs.pool().map_err(|message| {
        eprintln!("agentrisk: {message}");
        ExitCode::from(2)
    })?;
    Ok((Reader { analyser, pool }, method))
}

pub fn run_diff(args: &DiffArgs) -> ExitCode {
    let (reader, method) = match setup(&args.read) {
        Ok(setup) => setup,
        Err(code) => return code,
    };
    let mut sides = Vec::new();
    let mut problems = Vec::new();
    for input in [&args.base, &args.new] {
        match read_batch(&reader, input, &args.read) {
            Ok(batch) => sides.push((batch_name(input), batch)),
            Err(messages) => problems.extend(messages),
        }
    }
    let [(base_name, base), (new_name, new)] = match <[_; 2]>::try_from(sides) {
        Ok(sides) if problems.is_empty() => sides,
        _ => {
            for message in problems {
                eprintln!("agentrisk: {message}");
            }
            eprintln!("agentrisk: diff: nothing compared (exit 2)");
            return ExitCode::from(2);
        }
    };
    let d = diff(
        Side { name: &base_name, runs: &base.runs },
        Side { name: &new_name, runs: &new.runs },
        method,
        &args.fail_on,
    );
    let text = match args.format {
        Format::Text => d.to_text(),
        Format::Markdown => d.to_markdown() + "\n",
        Format::Json => match serde_json::to_string_pretty(&d) {
            Ok(json) => json + "\n",
            Err(e) => {
                eprintln!("agentrisk: cannot write JSON: {e}");
                return ExitCode::from(2);
            }
        },
    };
    if let Err(message) = write_stdout(&text) {
        eprintln!("agentrisk: {message}");
        return ExitCode::from(2);
    }
    match d.gate() {
        GateOutcome::Clear => ExitCode::SUCCESS,
        GateOutcome::Fired => {
            let fired: Vec<&str> = d.fail_on.iter().filter(|r| r.fired).map(|r| r.rule.as_str()).collect();
            eprintln!("agentrisk: diff: {} fired (exit 1)", fired.join(", "));
            ExitCode::from(1)
        }
        GateOutcome::Unchecked => {
            for rule in d.fail_on.iter().filter(|r| !r.unchecked.is_empty()) {
                for reason in &rule.unchecked {
                    eprintln!("agentrisk: --fail-on {}: cannot check: {reason}", rule.rule);
                }
            }
            eprintln!("agentrisk: diff: a rule could not be checked on these inputs (exit 2)");
            ExitCode::from(2)
        }
    }
}

pub fn run_history(args: &HistoryArgs) -> ExitCode {
    let (reader, method) = match setup(&args.read) {
        Ok(setup) => setup,
        Err(code) => return code,
    };
    let mut batches = Vec::new();
    let mut failed = false;
    for input in &args.inputs {
        match read_batch(&reader, input, &args.read) {
            Ok(batch) => batches.push((batch_name(input), batch)),
            Err(messages) => {
                failed = true;
                for message in messages {
                    eprintln!("agentrisk: {message}");
                }
            }
        }
    }
    if failed {
        eprintln!("agentrisk: history: every input must be a readable batch (exit 2)");
        return ExitCode::from(2);
    }
    let inputs: Vec<HistoryInput<'_>> = batches
        .iter()
        .map(|(name, batch)| HistoryInput { name, generated_at: batch.generated_at(), runs: &batch.runs })
        .collect();
    let h = history(&inputs, method);
    let format = if args.json { Format::Json } else { args.format };
    let text = match format {
        Format::Text => h.to_text(),
        Format::Markdown => h.to_markdown(),
        Format::Json => match serde_json::to_string_pretty(&h) {
            Ok(json) => json + "\n",
            Err(e) => {
                eprintln!("agentrisk: cannot write JSON: {e}");
                return ExitCode::from(2);
            }
        },
    };
    match write_stdout(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("agentrisk: {message}");
            ExitCode::from(2)
        }
    }
}

fn write_stdout(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| format!("cannot write output: {e}"))
}
