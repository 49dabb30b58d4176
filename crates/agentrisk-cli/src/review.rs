//! Review files on the command line: the `--review FILE` and `--today DATE`
//! flags of `run`, `score` and `batch` (and `--review` of `site` and
//! `pack`), and `agentrisk review init` / `agentrisk review check`. Every
//! rule is the core's (`agentrisk::review`); this module reads the files,
//! reads the clock and prints.

use agentrisk::analyser::{review_from_files, Analyser, BatchInput, BatchRuns, Named};
use agentrisk::review::{Date, Review, RunReview, RunSecrets, SignOffStatus, UnmatchedDecision};
use std::process::ExitCode;

/// `--review FILE` (repeatable) and `--today DATE`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ReviewFlags {
    /// A review file (decisions about leaked secrets, run sign-offs): each run gets its reviewed numbers beside the detected ones, and the exit status follows the reviewed gate; repeat to combine files
    #[arg(long = "review", value_name = "FILE")]
    pub review_files: Vec<String>,
    /// The date accepted risks are judged at (YYYY-MM-DD; default: today's date, UTC)
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = date_flag)]
    pub today: Option<Date>,
}

/// `--today`: a date as the core reads it.
fn date_flag(text: &str) -> Result<Date, String> {
    Date::parse(text)
}

/// Today's date (UTC) by this machine's clock: the core reads no clock.
pub fn system_today() -> Date {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    Date::from_unix_seconds(now.as_secs() as i64)
}

impl ReviewFlags {
    /// The review the flags name (`None` without `--review`); the error
    /// names the file, the place in it and the problem.
    pub fn review(&self) -> Result<Option<Review>, String> {
        if self.review_files.is_empty() {
            return Ok(None);
        }
        let read: Vec<(String, Vec<u8>)> = self
            .review_files
            .iter()
            .map(|path| {
                std::fs::read(path).map(|bytes| (path.clone(), bytes)).map_err(|e| format!("{path}: cannot read: {e}"))
            })
            .collect::<Result<_, _>>()?;
        let named: Vec<Named<'_>> = read.iter().map(|(name, bytes)| Named { name, bytes }).collect();
        review_from_files(&named).map(Some).map_err(|e| e.to_string())
    }

    /// `--today`, else the clock's date.
    pub fn today(&self) -> Date {
        self.today.unwrap_or_else(system_today)
    }

    /// `analyser` with the flags' review (unchanged without `--review`).
    pub fn apply(&self, analyser: Analyser) -> Result<Analyser, String> {
        Ok(match self.review()? {
            Some(review) => analyser.with_review(Some(review), self.today()),
            None => analyser,
        })
    }
}

/// The lines a text output prints under a run's detected line: its
/// reviewed numbers, then what a reader must be told (expired acceptances
/// first).
pub fn reviewed_lines(reviewed: &RunReview) -> Vec<String> {
    let mut lines = vec![format!("    reviewed: {}", reviewed.summary())];
    lines.extend(reviewed.notes().into_iter().map(|note| format!("    {note}")));
    lines
}

/// An expired acceptance, as a warning printed even with `-q`.
pub fn expired_warnings(file: &str, reviewed: &RunReview) -> Vec<String> {
    reviewed
        .expired
        .iter()
        .map(|e| {
            format!(
                "agentrisk: warning: {file}: run {}: the accepted risk on {} {} (on {}) expired {}: it counts as confirmed",
                reviewed.run_id,
                e.data_type,
                e.value,
                e.decision.channel,
                e.decision.expires.map_or_else(String::new, |d| d.to_string())
            )
        })
        .collect()
}

/// Prints each decision that matched no run given, on stderr.
pub fn report_unmatched(unmatched: &[UnmatchedDecision]) {
    for u in unmatched {
        eprintln!("agentrisk: review: {}", u.describe());
    }
}

pub const ABOUT: &str = "Make and check review files: decisions about leaked secrets, and run sign-offs";

pub const LONG_ABOUT: &str = "\
Review files record a reviewer's decisions about each leaked secret of a
run (confirmed, false_positive, accepted_risk until a date) and their
sign-off of each run. `run`, `score`, `batch`, `site` and `pack` take them
with --review FILE: a false positive leaves the numbers, an accepted risk
stays in them but does not block until it expires, and the reviewed
numbers sit beside the detected ones (docs/review.md).

`review init` writes a review file with one undecided entry per leaked
secret, for reviewers who prefer an editor; `review check` lists the
decisions that match nothing and the runs not yet signed off.";

pub const EXAMPLES: &str = "\
Examples:
  agentrisk review init runs/ -o review.json
  agentrisk review check review.json runs/
  agentrisk score --review review.json reports/*.json";

#[derive(clap::Subcommand)]
pub enum ReviewCommand {
    /// Write a review file with one undecided entry per leaked secret (an existing file keeps its entries)
    #[command(after_help = INIT_EXAMPLES)]
    Init(InitArgs),
    /// List decisions that match nothing and runs not signed off (exit 1 when a run is not approved)
    #[command(after_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
}

const INIT_EXAMPLES: &str = "\
Exit status: 0 written, 2 an input or the review file could not be read, or
the review file could not be written.

Examples:
  agentrisk review init trace.json -o review.json
  agentrisk review init reports/ -o review.json     # adds entries for new secrets only";

const CHECK_EXAMPLES: &str = "\
Exit status: 0 every run approved, 1 some run not approved (in review,
changes needed, or no sign-off), 2 a file could not be read.

Examples:
  agentrisk review check review.json runs/
  agentrisk review check review.json trace.json report.json";

/// The inputs both subcommands read runs from, as `batch` reads them.
#[derive(clap::Args)]
pub struct RunInputs {
    /// agentleak.yaml for analysing traces
    #[arg(short = 'c', long = "config", value_name = "CONFIG")]
    config: Option<String>,
    /// JSON file of canary values, used for every trace instead of its own metadata.canaries
    #[arg(long, value_name = "FILE")]
    canaries: Option<String>,
    /// How OpenTelemetry span exports become runs
    #[arg(long, value_enum, value_name = "MAPPING", default_value = "structural")]
    span_mapping: crate::SpanMappingArg,
    /// The date sign-offs written by init carry, and acceptances are judged at (YYYY-MM-DD; default: today, UTC)
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = date_flag)]
    today: Option<Date>,
}

#[derive(clap::Args)]
pub struct InitArgs {
    /// Traces, reports and folders of them
    #[arg(value_name = "REPORT_OR_TRACE", required = true)]
    inputs: Vec<String>,
    /// The review file to write (an existing one is read and kept, and gets entries for secrets it does not name)
    #[arg(short = 'o', long = "output", value_name = "REVIEW.json", required = true)]
    out: String,
    #[command(flatten)]
    runs: RunInputs,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// The review file
    #[arg(value_name = "REVIEW.json")]
    review: String,
    /// Traces, reports and folders of them: the runs to check
    #[arg(value_name = "RUNS", required = true)]
    inputs: Vec<String>,
    #[command(flatten)]
    runs: RunInputs,
}

pub fn run(command: &ReviewCommand) -> ExitCode {
    match command {
        ReviewCommand::Init(args) => init(args),
        ReviewCommand::Check(args) => check(args),
    }
}

/// Every run of the inputs, as a review sees it; files that cannot be
/// read are named on stderr (`failed`).
fn read_runs(inputs: &[String], runs: &RunInputs) -> Result<(Vec<RunSecrets>, bool), ExitCode> {
    let analyser = crate::analyser(runs.config.as_deref(), runs.canaries.as_deref()).map_err(|message| {
        eprintln!("agentrisk: {message}");
        ExitCode::from(2)
    })?;
    // An empty review: each run's secrets are gathered, nothing is decided.
    let analyser = analyser
        .with_span_mapping(runs.span_mapping.into())
        .with_review(Some(Review::default()), runs.today.unwrap_or_else(system_today));
    let (files, unlisted) = crate::inputs::expand(inputs);
    let mut batch = BatchRuns::default();
    for crate::inputs::Found { path, folder } in &files {
        let name = path.display().to_string();
        match std::fs::read(path) {
            Ok(bytes) => batch.read(&analyser, BatchInput { name: &name, folder, bytes: &bytes }),
            Err(e) => eprintln!("agentrisk: {name}: cannot read: {e}"),
        }
    }
    for message in &unlisted {
        eprintln!("agentrisk: {message}");
    }
    for error in &batch.errors {
        eprintln!("agentrisk: {error}");
    }
    let failed = !unlisted.is_empty() || !batch.errors.is_empty() || batch.files_read < files.len();
    Ok((batch.secrets, failed))
}

fn init(args: &InitArgs) -> ExitCode {
    let mut review = match std::fs::read(&args.out) {
        Ok(bytes) => match Review::from_json(&bytes) {
            Ok(review) => review,
            Err(e) => {
                eprintln!("agentrisk: {}: {e}", args.out);
                return ExitCode::from(2);
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Review::default(),
        Err(e) => {
            eprintln!("agentrisk: {}: cannot read: {e}", args.out);
            return ExitCode::from(2);
        }
    };
    let (runs, failed) = match read_runs(&args.inputs, &args.runs) {
        Ok(read) => read,
        Err(code) => return code,
    };
    let today = args.runs.today.unwrap_or_else(system_today);
    let before = review.decisions.len();
    for run in &runs {
        review.add_undecided(run, today);
    }
    if let Err(e) = std::fs::write(&args.out, review.to_json()) {
        eprintln!("agentrisk: {}: cannot write: {e}", args.out);
        return ExitCode::from(2);
    }
    let secrets: usize = runs.iter().map(|r| r.groups.len()).sum();
    eprintln!(
        "agentrisk: wrote {}: {} runs, {secrets} leaked secrets, {} new entries ({} in all)",
        args.out,
        runs.len(),
        review.decisions.len() - before,
        review.decisions.len()
    );
    if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

fn check(args: &CheckArgs) -> ExitCode {
    let flags = ReviewFlags { review_files: vec![args.review.clone()], today: args.runs.today };
    let review = match flags.review() {
        Ok(Some(review)) => review,
        Ok(None) => Review::default(),
        Err(message) => {
            eprintln!("agentrisk: {message}");
            return ExitCode::from(2);
        }
    };
    let (runs, failed) = match read_runs(&args.inputs, &args.runs) {
        Ok(read) => read,
        Err(code) => return code,
    };
    let today = flags.today();
    let mut unreviewed = 0;
    for run in &runs {
        let reviewed = run.review(&review, today);
        let status = match review.sign_off(&run.run_id) {
            Some(s) if s.reviewer.is_empty() => s.status.label().to_owned(),
            Some(s) => format!("{} by {} ({})", s.status.label(), s.reviewer, s.at),
            None => "not signed off".to_owned(),
        };
        if review.sign_off(&run.run_id).map(|s| s.status) != Some(SignOffStatus::Approved) {
            unreviewed += 1;
        }
        println!(
            "run {}: {status} · {} of {} leaked secrets decided{}",
            run.run_id,
            reviewed.decided,
            reviewed.secret_groups,
            if reviewed.expired.is_empty() {
                String::new()
            } else {
                format!(
                    " · {} expired acceptance{}",
                    reviewed.expired.len(),
                    if reviewed.expired.len() == 1 { "" } else { "s" }
                )
            }
        );
    }
    let unmatched = review.unmatched(&runs.iter().collect::<Vec<_>>());
    for u in &unmatched {
        println!("{}", u.describe());
    }
    println!(
        "{} runs: {} approved, {unreviewed} not approved; {} decision{} match{} nothing",
        runs.len(),
        runs.len() - unreviewed,
        unmatched.len(),
        if unmatched.len() == 1 { "" } else { "s" },
        if unmatched.len() == 1 { "es" } else { "" },
    );
    if failed {
        ExitCode::from(2)
    } else if unreviewed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
