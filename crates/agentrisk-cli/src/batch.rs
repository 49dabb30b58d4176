//! `agentrisk batch`: the batch summary of many files (traces, reports,
//! scorecards, red-team results), as the viewer's Batch tab shows it.

use crate::inputs::Found;
use crate::parallel::ThreadPool;
use crate::progress;
use agentrisk::analyser::{group_by_from_name, interval_method, Analyser, ApiError, BatchInput, BatchRuns};
use agentrisk::batch::table::{rate_cells, rate_header, rate_rows, to_text};
use agentrisk::batch::GroupBy;
use std::io::Write;
use std::process::ExitCode;

pub const ABOUT: &str = "Summarise many runs: leak, block and verdict rates with intervals";

pub const LONG_ABOUT: &str = "\
Summarises many runs: leak, block and verdict rates, per-channel and
per-level leak rates, each as k of n with its Wilson score interval, RI and
privacy score statistics, and red-team ASR/CLR/ELR where runs carry attack
data. Traces, AgentLeak reports, agentrisk scorecards and red-team result
files (JSON array or JSON Lines) may be mixed; folders are searched for
.json and .jsonl files. A trace is analysed with the canary set in its
metadata.canaries, or with --canaries FILE when given (which wins);
canary-set files met in a folder are skipped. A file that cannot be read is named on stderr and
skipped; the rest are counted, and the exit status is then 2 (else 0).

With --review FILE, each run also gets its reviewed numbers: the table
adds the leak and block rates as reviewed (labelled, beside the rates as
detected), --json a `reviewed` object, a scorecard each run's `reviewed`.
Review files met in a folder are skipped (only --review applies one).

With --shard I/N, only part I of N of the files found is read (N
contiguous parts, counted from 0): run each part on its own machine with
--scorecard, then read the parts' scorecards together, in order, for the
whole batch's numbers.

On a terminal, a bar on stderr counts the files read (not with -q).";

pub const EXAMPLES: &str = "\
Examples:
  agentrisk batch runs/
  agentrisk batch runs/ --group-by agent --confidence 0.9 --json
  agentrisk batch traces/ reports/ --scorecard scorecard.json
  agentrisk batch runs/ --review review.json --json
  agentrisk batch runs/ --shard 2/8 --scorecard shard-02.json
  agentrisk batch shard-*.json --json";

#[derive(clap::Args)]
pub struct BatchArgs {
    /// Files and folders to summarise
    #[arg(value_name = "FILE_OR_DIR", required = true)]
    inputs: Vec<String>,
    /// Interval confidence level, 0 < C < 1
    #[arg(long, value_name = "C", default_value = "0.95", value_parser = confidence_level)]
    confidence: f64,
    /// Wilson interval with continuity correction
    #[arg(long)]
    continuity_correction: bool,
    /// Also summarise per agent, scenario (its family) or folder (the file's folder from the folder named, starting with that folder's name)
    #[arg(long, value_name = "KEY", value_parser = group_by)]
    group_by: Option<GroupBy>,
    /// Print the summary as JSON instead of a table
    #[arg(long, overrides_with = "scorecard")]
    json: bool,
    /// Write the batch scorecard (runs and summary; - = stdout)
    #[arg(long, value_name = "OUT.json", overrides_with = "json")]
    scorecard: Option<String>,
    /// agentleak.yaml for analysing traces
    #[arg(short = 'c', long = "config", value_name = "CONFIG")]
    config: Option<String>,
    /// How OpenTelemetry span exports (OTLP JSON, JSON Lines, span lists) become runs
    #[arg(long, value_enum, value_name = "MAPPING", default_value = "structural")]
    pub(crate) span_mapping: crate::SpanMappingArg,
    /// JSON file of canary values: {"obvious": [...], "realistic": [...], "semantic": [...]}; used for every trace instead of its own metadata.canaries
    #[arg(long, value_name = "FILE")]
    canaries: Option<String>,
    #[command(flatten)]
    review: crate::review::ReviewFlags,
    /// No progress bar on stderr (errors still show)
    #[arg(short = 'q', long = "quiet")]
    quiet: bool,
    /// Only the part I of N (counted from 0) of the files found, to spread a batch over machines; the parts' scorecards, read together in order, are the whole batch
    #[arg(long, value_name = "I/N", value_parser = crate::inputs::Shard::from_text)]
    shard: Option<crate::inputs::Shard>,
    #[command(flatten)]
    jobs: crate::parallel::JobsFlag,
}

enum Output<'a> {
    Table,
    Json,
    Scorecard(&'a str),
}

impl BatchArgs {
    fn output(&self) -> Output<'_> {
        match (&self.scorecard, self.json) {
            (Some(out), _) => Output::Scorecard(out),
            (None, true) => Output::Json,
            (None, false) => Output::Table,
        }
    }
}

/// `--confidence`: a number the interval methods accept (the core's check).
pub fn confidence_level(text: &str) -> Result<f64, String> {
    let confidence: f64 = text.parse().map_err(|_| "needs a number such as 0.95".to_owned())?;
    interval_method(confidence, false).map_err(|e| e.problem)?;
    Ok(confidence)
}

/// `--group-by`: a grouping by the core's name for it.
fn group_by(text: &str) -> Result<GroupBy, String> {
    group_by_from_name(text).map_err(|e| e.problem)
}

pub fn run(args: &BatchArgs) -> ExitCode {
    let method = match interval_method(args.confidence, args.continuity_correction) {
        Ok(method) => method,
        Err(e) => {
            eprintln!("agentrisk: --confidence {}: {}", args.confidence, e.problem);
            return ExitCode::from(2);
        }
    };
    let group_by = args.group_by;
    let analyser = match crate::analyser(args.config.as_deref(), args.canaries.as_deref())
        .and_then(|a| args.review.apply(a.with_span_mapping(args.span_mapping.into())))
    {
        Ok(analyser) => analyser,
        Err(message) => {
            eprintln!("agentrisk: {message}");
            return ExitCode::from(2);
        }
    };
    let pool = match args.jobs.pool() {
        Ok(pool) => pool,
        Err(message) => {
            eprintln!("agentrisk: {message}");
            return ExitCode::from(2);
        }
    };

    let (files, unlisted) = crate::inputs::expand(&args.inputs);
    let files = args.shard.map_or(&files[..], |shard| shard.of(&files));
    let batch = read_files(&analyser, &pool, files, args.quiet);
    for message in &unlisted {
        eprintln!("agentrisk: {message}");
    }
    for error in &batch.errors {
        eprintln!("agentrisk: {error}");
    }
    if let Some((review, _)) = analyser.review() {
        crate::review::report_unmatched(&review.unmatched(&batch.secrets.iter().collect::<Vec<_>>()));
    }
    let failed = !unlisted.is_empty() || !batch.errors.is_empty();

    let written = match args.output() {
        Output::Table => {
            let summary = batch.summary(method, group_by);
            let skipped = batch.errors.len() + unlisted.len();
            let mut text = format!(
                "{} runs{} from {} files{} · {}\n\n",
                summary.runs,
                if batch.redteam.is_empty() {
                    String::new()
                } else {
                    format!(" and {} red-team results", batch.redteam.len())
                },
                batch.files_read,
                if skipped == 0 { String::new() } else { format!("; {skipped} skipped") },
                method.describe()
            );
            let from_spans = batch.runs.iter().filter(|r| r.span_mapping.is_some()).count();
            if from_spans > 0 {
                let mapping = agentrisk::spans::SpanMapping::from(args.span_mapping).as_str();
                text.push_str(&format!("{from_spans} runs made from span exports ({mapping} mapping)\n"));
            }
            let empty = batch.runs.iter().filter(|r| r.no_events).count();
            if empty > 0 {
                text.push_str(&format!("{empty} runs had no events: nothing was analysed in them\n"));
            }
            if let Some(r) = &summary.reviewed {
                text.push_str(&format!(
                    "Reviewed: {} of {} runs ({} approved, {} changes needed, {} in review, {} not signed off); {} of {} \
                     leaked secrets decided\n",
                    r.runs_reviewed,
                    summary.runs,
                    r.approved,
                    r.changes_needed,
                    r.in_review,
                    r.not_signed_off,
                    r.decided,
                    r.secret_groups
                ));
            }
            if from_spans + empty > 0 || summary.reviewed.is_some() {
                text.push('\n');
            }
            let rows: Vec<[String; 7]> = rate_rows(&summary).iter().map(rate_cells).collect();
            text.push_str(&to_text(&rate_header(&method), &rows));
            if let Some(rt) = &summary.redteam {
                text.push_str(&format!(
                    "\nExposure leak rate (ELR) per run: mean {}, median {} over {} runs\n",
                    fixed(rt.elr.mean),
                    fixed(rt.elr.median),
                    rt.runs
                ));
            }
            write_stdout(&text)
        }
        Output::Json => {
            let summary = batch.summary(method, group_by);
            match serde_json::to_string_pretty(&summary) {
                Ok(json) => write_stdout(&(json + "\n")),
                Err(e) => Err(e.to_string()),
            }
        }
        Output::Scorecard(out) => {
            let config_text = args.config.as_ref().and_then(|path| std::fs::read_to_string(path).ok());
            let json = batch
                .into_scorecard(method, group_by)
                .with_analysis_config(config_text)
                .with_generated_at(crate::run::now_isoformat())
                .to_json();
            if out == "-" {
                write_stdout(&json)
            } else {
                std::fs::write(out, json).map_err(|e| format!("{out}: cannot write: {e}"))
            }
        }
    };
    if let Err(message) = written {
        eprintln!("agentrisk: {message}");
        return ExitCode::from(2);
    }
    if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

/// The runs of the files and folders named ([`read_files`]), and the
/// folders that could not be listed. `diff` and `history` read their
/// inputs so, and `batch` (which may take a shard of the files) the same way.
pub fn read_runs(analyser: &Analyser, pool: &ThreadPool, inputs: &[String], quiet: bool) -> (BatchRuns, Vec<String>) {
    let (files, unlisted) = crate::inputs::expand(inputs);
    (read_files(analyser, pool, &files, quiet), unlisted)
}

/// The runs of `files`, each file read, analysed into its runs and let go
/// on a thread of `pool`, the runs gathered in the files' order (a few
/// files per thread at a time), with a bar on a terminal. Unreadable files
/// are in the runs' `errors`.
fn read_files(analyser: &Analyser, pool: &ThreadPool, files: &[Found], quiet: bool) -> BatchRuns {
    let mut batch = BatchRuns::default();
    let bar = progress::wanted(quiet).then(|| progress::files_bar(files.len()));
    let read = |found: &Found| {
        let name = found.path.display().to_string();
        if let Some(bar) = &bar {
            bar.set_message(name.clone());
        }
        let read = match std::fs::read(&found.path) {
            Ok(bytes) => analyser.read_batch_file(BatchInput { name: &name, folder: &found.folder, bytes: &bytes }),
            Err(e) => Err(ApiError { file: name, place: String::new(), problem: format!("cannot read: {e}") }),
        };
        if let Some(bar) = &bar {
            bar.inc(1);
        }
        read
    };
    crate::parallel::prepare(pool, files.len());
    crate::parallel::in_order(pool, files, read, |_, read| batch.add(read));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    batch
}

fn fixed(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |v| format!("{v:.4}"))
}

fn write_stdout(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| format!("cannot write output: {e}"))
}
