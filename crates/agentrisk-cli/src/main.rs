//! `agentrisk`: the AgentRisk core on the command line, for CI gates and scripts.
//!
//! This binary reads files and prints; every number comes from the
//! `agentrisk` crate. Exit codes: 0 = nothing blocked, 1 = some run blocked,
//! 2 = usage error or a file that cannot be read or parsed.

mod batch;
mod diff;
mod inputs;
mod malloc;
mod man;
mod parallel;
mod progress;
mod publish;
mod review;
mod run;

use agentrisk::analyser::{Analyser, GateOverrides, Named, NamedConfig};
use agentrisk::ScoreRecord;
use clap::{CommandFactory, Parser, Subcommand};
use clap_complete::Shell;
use std::io::Write;
use std::process::ExitCode;

const LONG_ABOUT: &str = "\
Scores AgentLeak traces and reports in scripts and CI gates, with the same
core as the AgentRisk viewer: `run` analyses traces into reports, `batch`
summarises many runs, `diff` says what changed between two batches (and
gates a CI job on it), `history` lists batches over time, `score` re-checks
stored reports, `site` and `pack` publish runs for readers (a report site,
or one HTML file that opens from disk), `review` makes and checks review
files (which `--review FILE` applies). `agentrisk COMMAND --help` shows a
command's flags and examples.";

/// The top-level help's closing lines (also the man page's).
const EXIT_STATUS: &str = "\
Exit status: 0 none blocked, 1 some blocked, 2 a usage error or a file that
could not be read or parsed. With --review, blocked is the reviewed gate's.
For diff: 1 a --fail-on rule fired, 0 none did, 2 bad input or a rule the
inputs cannot answer. For site and pack: 1 some input could not be published
(the rest is written), 2 a usage error, a bad config or an output that
cannot be written. For review check: 1 some run is not approved.";

#[derive(Parser)]
#[command(
    name = "agentrisk",
    version,
    about = "Score AgentLeak traces and reports in scripts and CI gates",
    long_about = LONG_ABOUT,
    after_help = EXIT_STATUS,
    subcommand_required = true,
    arg_required_else_help = true,
    // As before clap: a flag given twice keeps its last value.
    args_override_self = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    #[command(about = run::ABOUT, long_about = run::LONG_ABOUT, after_help = run::EXAMPLES)]
    Run(run::RunArgs),
    #[command(about = batch::ABOUT, long_about = batch::LONG_ABOUT, after_help = batch::EXAMPLES)]
    Batch(batch::BatchArgs),
    #[command(about = diff::DIFF_ABOUT, long_about = diff::DIFF_LONG_ABOUT, after_help = diff::DIFF_EXAMPLES)]
    Diff(diff::DiffArgs),
    #[command(about = diff::HISTORY_ABOUT, long_about = diff::HISTORY_LONG_ABOUT, after_help = diff::HISTORY_EXAMPLES)]
    History(diff::HistoryArgs),
    #[command(about = SCORE_ABOUT, long_about = SCORE_LONG_ABOUT, after_help = SCORE_EXAMPLES)]
    Score(ScoreCli),
    #[command(about = publish::SITE_ABOUT, long_about = publish::SITE_LONG_ABOUT, after_help = publish::SITE_EXAMPLES)]
    Site(publish::SiteArgs),
    #[command(about = publish::PACK_ABOUT, long_about = publish::PACK_LONG_ABOUT, after_help = publish::PACK_EXAMPLES)]
    Pack(publish::PackArgs),
    #[command(about = review::ABOUT, long_about = review::LONG_ABOUT, after_help = review::EXAMPLES, subcommand)]
    Review(review::ReviewCommand),
    /// Print a shell completion script to stdout
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions {
        /// The shell to complete in
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the manual page (roff) to stdout
    #[command(after_help = MAN_EXAMPLES)]
    Man,
}

const SCORE_ABOUT: &str = "Re-score AgentLeak v2 reports and check their stored numbers";

const SCORE_LONG_ABOUT: &str = "\
Re-scores AgentLeak v2 reports and prints, per file: run id, Risk Index,
privacy score, verdict, gate decision, and whether the report's stored
numbers agree with our recomputation (consistent / inconsistent). Reports do
not store their gate settings: without --fail-below or --no-block-on-critical
a stored gate decision that some setting gives is consistent, and the line
names the setting, as in 'gate consistent with block_on_critical off'.

With -c CONFIG (what if): prints the numbers each run would have had with
this agentleak.yaml's weights, vault and gate (the same as analysing its
trace with it). Its detector, level-override and policy settings cannot
change a stored report and are named.

With --review FILE: each run's reviewed numbers (false positives out,
accepted risks not blocking until they expire) are printed under its line,
and added to its --json record as `reviewed`; the exit status then follows
the reviewed gate. Without --fail-below or --no-block-on-critical the
reviewed gate is the one the stored decision shows (docs/review.md).

With --json, each record's gate_note names the setting that explains the
stored gate decision (null when none is needed). Exit status 1 follows the
gate decision as the report stores it (or, with -c, as re-scored; with
--review, as reviewed).";

const SCORE_EXAMPLES: &str = "\
Examples:
  agentrisk score reports/*.json
  agentrisk score --fail-below 60 --no-block-on-critical report.json
  agentrisk score --json -c agentleak.yaml report.json
  agentrisk score --review review.json --today 2026-06-01 reports/*.json";

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  agentrisk completions bash > ~/.local/share/bash-completion/completions/agentrisk
  agentrisk completions zsh > ~/.zfunc/_agentrisk
  agentrisk completions fish > ~/.config/fish/completions/agentrisk.fish";

const MAN_EXAMPLES: &str = "\
Examples:
  man -l <(agentrisk man)
  agentrisk man > ~/.local/share/man/man1/agentrisk.1";

#[derive(clap::Args)]
struct ScoreCli {
    /// Print a JSON array of records instead
    #[arg(long)]
    json: bool,
    /// Gate threshold the runs were scored with (default 40); pins the gate,
    /// so a stored decision it does not give is inconsistent
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    fail_below: Option<i64>,
    /// The runs were scored with block_on_critical: false; pins the gate
    #[arg(long)]
    no_block_on_critical: bool,
    /// What if: the numbers each run would have had with this agentleak.yaml
    #[arg(short = 'c', long = "config", value_name = "CONFIG")]
    config: Option<String>,
    #[command(flatten)]
    review: review::ReviewFlags,
    /// AgentLeak reports to score
    #[arg(value_name = "REPORT.json", required = true)]
    files: Vec<String>,
}

/// The analyser of `score`'s flags: either gate flag names the runs' gate
/// (without them it is not known); `-c` is the what-if config.
fn score_analyser(cli: &ScoreCli) -> Result<Analyser, String> {
    let what_if = cli.config.as_deref().map(read_config).transpose()?;
    cli.review.apply(Analyser::new().with_what_if(what_if).with_gate(GateOverrides {
        fail_below: cli.fail_below,
        block_on_critical: cli.no_block_on_critical.then_some(false),
    }))
}

fn main() -> ExitCode {
    malloc::configure();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    match cli.command {
        Command::Run(run_args) => run::run(&run_args),
        Command::Batch(batch_args) => batch::run(&batch_args),
        Command::Diff(diff_args) => diff::run_diff(&diff_args),
        Command::History(history_args) => diff::run_history(&history_args),
        Command::Site(site_args) => publish::site(&site_args),
        Command::Pack(pack_args) => publish::pack(&pack_args),
        Command::Review(command) => review::run(&command),
        Command::Score(score_cli) => match score_analyser(&score_cli) {
            Ok(analyser) => score(&analyser, score_cli.json, &score_cli.files),
            Err(message) => {
                eprintln!("agentrisk: {message}");
                ExitCode::from(2)
            }
        },
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "agentrisk", &mut out);
            write_stdout(&out)
        }
        Command::Man => match man::man_page(Cli::command(), EXIT_STATUS) {
            Ok(page) => write_stdout(&page),
            Err(e) => {
                eprintln!("agentrisk: cannot render the man page: {e}");
                ExitCode::from(2)
            }
        },
    }
}

/// Prints clap's message for a usage error (exit 2) with this tool's
/// `agentrisk: ` prefix, like every other error it prints; help and version
/// go to stdout (exit 0).
fn usage_error(e: &clap::Error) -> ExitCode {
    if !e.use_stderr() {
        return match e.print() {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::from(2),
        };
    }
    let text = e.render().to_string();
    eprint!("{}", text.strip_prefix("error: ").map_or(text.clone(), |rest| format!("agentrisk: {rest}")));
    ExitCode::from(2)
}

fn write_stdout(bytes: &[u8]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agentrisk: stdout: cannot write: {e}");
            ExitCode::from(2)
        }
    }
}

/// Reads and loads an `agentleak.yaml` with the core's one loader (the
/// detection settings checked too); the error starts with its path
/// (`PATH: cannot read: …`, `PATH: key: problem`).
/// How OpenTelemetry span exports become runs (`--span-mapping`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum SpanMappingArg {
    /// By the span tree, time and each span's role: what the agent disclosed, and to whom (the default)
    #[default]
    Structural,
    /// Exactly as agentleak 0.17.0's trace_from_spans, for parity with the reference (quirks included)
    Reference,
}

impl From<SpanMappingArg> for agentrisk::spans::SpanMapping {
    fn from(arg: SpanMappingArg) -> Self {
        match arg {
            SpanMappingArg::Structural => agentrisk::spans::SpanMapping::Structural,
            SpanMappingArg::Reference => agentrisk::spans::SpanMapping::Reference,
        }
    }
}

fn read_config(path: &str) -> Result<NamedConfig, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
    NamedConfig::load(Named { name: path, bytes: &bytes }).map_err(|e| e.to_string())
}

/// The analyser for `-c CONFIG` and `--canaries FILE`, with this process's
/// environment; the error names the file.
fn analyser(config: Option<&str>, canaries: Option<&str>) -> Result<Analyser, String> {
    let config = config.map(read_config).transpose()?;
    let canaries = canaries.map(run::canaries_from_file).transpose()?;
    Ok(Analyser::new().with_config(config).with_canaries(canaries).with_env(|name| std::env::var(name).ok()))
}

fn score(analyser: &Analyser, json: bool, files: &[String]) -> ExitCode {
    let mut records = Vec::new();
    let mut secrets = Vec::new();
    let mut unreadable = false;
    for file in files {
        let scored = std::fs::read(file)
            .map_err(|e| format!("{file}: cannot read: {e}"))
            .and_then(|bytes| analyser.score_report(Named { name: file, bytes: &bytes }).map_err(|e| e.to_string()));
        match scored {
            Ok(scored) => {
                if !json {
                    print_text(&scored.record, &scored.rescore, &scored.notes);
                } else if let Some(reviewed) = &scored.record.reviewed {
                    review::expired_warnings(file, reviewed).iter().for_each(|w| eprintln!("{w}"));
                }
                records.push(scored.record);
                secrets.push(scored.secrets);
            }
            Err(message) => {
                eprintln!("agentrisk: {message}");
                unreadable = true;
            }
        }
    }
    if json {
        match serde_json::to_string_pretty(&records) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("agentrisk: cannot write JSON: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if let Some((review, _)) = analyser.review() {
        review::report_unmatched(&review.unmatched(&secrets.iter().collect::<Vec<_>>()));
    }
    // `blocked` is the record's: the report's stored decision (the what-if
    // one with -c), never the recomputed one; with a review, the reviewed one.
    if unreadable {
        ExitCode::from(2)
    } else if records.iter().any(|r| r.reviewed.as_ref().map_or(r.blocked, |reviewed| reviewed.blocked)) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn print_text(record: &ScoreRecord, rescore: &agentrisk::Rescore, notes: &[String]) {
    println!(
        "{}: run {} · RI {:.4} · privacy score {} · {} · {} · {}{}",
        record.file,
        record.run_id,
        record.risk_index,
        record.privacy_score,
        record.verdict,
        if record.blocked { "blocked" } else { "not blocked" },
        if record.consistent { "consistent" } else { "inconsistent" },
        record.gate_note.as_deref().map_or(String::new(), |note| format!(" · {note}")),
    );
    for m in &rescore.mismatches {
        println!("    {}: stored {}, recomputed {}", m.field, m.stored, m.recomputed);
    }
    for note in notes {
        println!("    note: {note}");
    }
    if let Some(reviewed) = &record.reviewed {
        review::reviewed_lines(reviewed).iter().for_each(|line| println!("{line}"));
    }
}
