//! `agentrisk`: the AgentRisk core on the command line, for CI gates and scripts.
//!
//! This binary reads files and prints; every number comes from the
//! `agentrisk` crate. Exit codes: 0 = nothing blocked, 1 = some run blocked,
//! 2 = usage error or a file that cannot be read or parsed.

mod batch;
mod malloc;
mod run;

use agentrisk::config::{config_from_bytes, AnalysisConfig};
use agentrisk::report::report_what_if;
use agentrisk::{load_report, rescore_report_with_gate, GateSettings, ScoreRecord, ScoringConfig};
use std::process::ExitCode;

const USAGE: &str = "\
usage: agentrisk run -t TRACE [-t TRACE ...] [-c CONFIG] [-o DIR|-] [-f json] [--fail-under N]
                     [--canaries FILE] [-q]
       agentrisk batch FILE_OR_DIR... [--confidence 0.95] [--continuity-correction]
                       [--group-by agent|scenario|folder] [--json|--scorecard OUT.json] [-c CONFIG]
       agentrisk score [--json] [--fail-below N] [--no-block-on-critical] [-c CONFIG] REPORT.json...

run: analyses AgentLeak traces exactly as `agentleak run` (fast tier) does and
writes one report per trace to DIR/<run_id>.json (default ./agentleak-reports;
`-o -` writes the JSON to stdout). A short summary per run goes to stderr
unless -q. Without -c every built-in detector runs; with any config file its
toggles apply, and finance and hr are off unless it switches them on (the
reference's behaviour, kept for parity).

batch: summarises many runs: leak, block and verdict rates, per-channel and
per-level leak rates, each as k of n with its Wilson score interval, RI and
privacy score statistics, and red-team ASR/CLR/ELR where runs carry attack
data. Traces, AgentLeak reports, agentrisk scorecards and red-team result
files (JSON array or JSON Lines) may be mixed; folders are searched for
.json and .jsonl files. A file that cannot be read is named on stderr and
skipped; the rest are counted, and the exit status is then 2 (else 0).

  --confidence C           interval confidence level, 0 < C < 1 (default 0.95)
  --continuity-correction  Wilson interval with continuity correction
  --group-by KEY           also summarise per agent, scenario family or folder
  --json                   print the summary as JSON instead of a table
  --scorecard OUT.json     write the batch scorecard (runs and summary; - = stdout)
  -c CONFIG                agentleak.yaml for analysing traces

score: re-scores AgentLeak v2 reports and prints, per file: run id, Risk Index,
privacy score, verdict, gate decision, and whether the report's stored
numbers agree with our recomputation (consistent / inconsistent). Reports do
not store their gate settings: without --fail-below or --no-block-on-critical
a stored gate decision that some setting gives is consistent, and the line
names the setting, as in 'gate consistent with block_on_critical off'.

  --json                   print a JSON array of records instead (gate_note:
                           the setting that explains the gate decision, or null)
  --fail-below N           gate threshold the runs were scored with (default 40)
  --no-block-on-critical   the runs were scored with block_on_critical: false
                           (either flag pins the gate: a stored decision it
                           does not give is inconsistent)
  -c CONFIG                what if: print the numbers each run would have had
                           with this agentleak.yaml's weights, vault and gate
                           (the same as analysing its trace with it). Its
                           detector, level-override and policy settings
                           cannot change a stored report and are named.

Exit status: 0 none blocked, 1 some blocked (as the report stores it, or with
-c as re-scored), 2 a file could not be read or parsed.";

struct ScoreArgs {
    json: bool,
    config: ScoringConfig,
    /// Pinned when a gate flag names the runs' gate, else unknown.
    gate: GateSettings,
    /// `-c`: the path and the what-if config.
    what_if: Option<(String, AnalysisConfig)>,
    files: Vec<String>,
}

fn parse_score_args(args: &[String]) -> Result<ScoreArgs, String> {
    let mut out = ScoreArgs {
        json: false,
        config: ScoringConfig::default(),
        gate: GateSettings::Unknown,
        what_if: None,
        files: Vec::new(),
    };
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--json" => out.json = true,
            "--no-block-on-critical" => {
                out.config.block_on_critical = false;
                out.gate = GateSettings::Pinned;
            }
            "--fail-below" => {
                out.gate = GateSettings::Pinned;
                let value = iter.next().ok_or("--fail-below needs a number")?;
                out.config.fail_below =
                    value.parse().map_err(|_| format!("--fail-below needs an integer, got {value:?}"))?;
            }
            "-c" | "--config" => {
                let path = iter.next().ok_or("-c needs a config file")?;
                out.what_if = Some((path.clone(), read_config(path)?));
            }
            "--" => out.files.extend(iter.by_ref().cloned()),
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            file => out.files.push(file.to_owned()),
        }
    }
    if out.files.is_empty() {
        return Err("no report files given".to_owned());
    }
    Ok(out)
}

fn main() -> ExitCode {
    malloc::configure();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") => match run::parse_args(&args[1..]) {
            Ok(run_args) => run::run(&run_args),
            Err(message) => usage_error(&message),
        },
        Some("batch") => match batch::parse_args(&args[1..]) {
            Ok(batch_args) => batch::run(&batch_args),
            Err(message) => usage_error(&message),
        },
        Some("score") => match parse_score_args(&args[1..]) {
            Ok(score_args) => score(&score_args),
            Err(message) => usage_error(&message),
        },
        Some("--help" | "-h" | "help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some("--version" | "-V") => {
            println!("agentrisk {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some(other) => usage_error(&format!("unknown command {other:?}")),
        None => usage_error("no command given"),
    }
}

/// Reads and loads an `agentleak.yaml`; the error starts with its path
/// (`PATH: cannot read: …`, `PATH: key: problem`).
fn read_config(path: &str) -> Result<AnalysisConfig, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
    config_from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("agentrisk: {message}\n\n{USAGE}");
    ExitCode::from(2)
}

fn score(args: &ScoreArgs) -> ExitCode {
    let mut records = Vec::new();
    let mut unreadable = false;
    for file in &args.files {
        let loaded = std::fs::read(file)
            .map_err(|e| format!("cannot read: {e}"))
            .and_then(|bytes| load_report(&bytes).map_err(|e| e.to_string()));
        match loaded {
            Ok(report) => {
                let rescore = rescore_report_with_gate(&report, &args.config, args.gate);
                let (report, notes) = match &args.what_if {
                    None => (report, Vec::new()),
                    Some((path, config)) => match report_what_if(&report, config) {
                        Ok(what_if) => (what_if.report, what_if.notes),
                        Err(e) => {
                            eprintln!("agentrisk: {path}: {e} (for the report {file})");
                            unreadable = true;
                            continue;
                        }
                    },
                };
                let record = ScoreRecord::new(file, &report, &rescore);
                if !args.json {
                    print_text(&record, &rescore, &notes);
                }
                records.push(record);
            }
            Err(message) => {
                eprintln!("agentrisk: {file}: {message}");
                unreadable = true;
            }
        }
    }
    if args.json {
        match serde_json::to_string_pretty(&records) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("agentrisk: cannot write JSON: {e}");
                return ExitCode::from(2);
            }
        }
    }
    // `blocked` is the record's: the report's stored decision (the what-if
    // one with -c), never the recomputed one.
    if unreadable {
        ExitCode::from(2)
    } else if records.iter().any(|r| r.blocked) {
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
}
