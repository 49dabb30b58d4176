//! `agentrisk batch`: the batch summary of many files (traces, reports,
//! scorecards, red-team results), as the viewer's Batch tab shows it.

use agentrisk::batch::table::{rate_cells, rate_header, rate_rows, to_text};
use agentrisk::batch::{load_batch_file, summarise, GroupBy, RunFacts, RunResult, Scorecard};
use agentrisk::config::AnalysisConfig;
use agentrisk::pipeline::AnalysisInput;
use agentrisk::stats::IntervalMethod;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub struct BatchArgs {
    inputs: Vec<String>,
    method: IntervalMethod,
    group_by: Option<GroupBy>,
    output: Output,
    config: Option<String>,
}

enum Output {
    Table,
    Json,
    Scorecard(String),
}

pub fn parse_args(args: &[String]) -> Result<BatchArgs, String> {
    let mut inputs = Vec::new();
    let mut confidence = 0.95;
    let mut correction = false;
    let mut group_by = None;
    let mut output = Output::Table;
    let mut config = None;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let mut value = |flag: &str| iter.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "--confidence" => {
                let v = value(arg)?;
                confidence = v.parse().map_err(|_| format!("--confidence needs a number such as 0.95, got {v:?}"))?;
            }
            "--continuity-correction" => correction = true,
            "--group-by" => {
                let v = value(arg)?;
                group_by = Some(match v.as_str() {
                    "agent" => GroupBy::Agent,
                    "scenario" | "scenario_family" => GroupBy::ScenarioFamily,
                    "folder" => GroupBy::Folder,
                    _ => return Err(format!("--group-by {v}: use agent, scenario or folder")),
                });
            }
            "--json" => output = Output::Json,
            "--scorecard" => output = Output::Scorecard(value(arg)?),
            "-c" | "--config" => config = Some(value(arg)?),
            "--" => inputs.extend(iter.by_ref().cloned()),
            flag if flag.starts_with('-') && flag != "-" => return Err(format!("unknown option {flag}")),
            file => inputs.push(file.to_owned()),
        }
    }
    if inputs.is_empty() {
        return Err("no files or folders given".to_owned());
    }
    let method = IntervalMethod::new(confidence, correction).map_err(|e| format!("--confidence {confidence}: {e}"))?;
    Ok(BatchArgs { inputs, method, group_by, output, config })
}

/// The files named, with folders walked for `.json` and `.jsonl` files
/// (sorted, so the order is the same on every machine).
fn expand(inputs: &[String]) -> (Vec<PathBuf>, Vec<String>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for input in inputs {
        let path = PathBuf::from(input);
        if path.is_dir() {
            walk(&path, &mut files, &mut errors);
        } else {
            files.push(path);
        }
    }
    (files, errors)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<String>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            errors.push(format!("{}: cannot list folder: {e}", dir.display()));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            walk(&path, files, errors);
        } else if path.extension().is_some_and(|ext| ext == "json" || ext == "jsonl") {
            files.push(path);
        }
    }
}

pub fn run(args: &BatchArgs) -> ExitCode {
    let config = match &args.config {
        None => AnalysisConfig::default(),
        Some(path) => match crate::read_config(path) {
            Ok(config) => config,
            Err(message) => {
                eprintln!("agentrisk: {message}");
                return ExitCode::from(2);
            }
        },
    };
    let env = |name: &str| std::env::var(name).ok();
    let input = AnalysisInput { config: &config, canaries: None, env: &env, generated_at: String::new() };

    let (files, mut errors) = expand(&args.inputs);
    let mut runs: Vec<RunFacts> = Vec::new();
    let mut redteam: Vec<RunResult> = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        let folder = match path.parent().map(|p| p.display().to_string()) {
            Some(p) if !p.is_empty() => p,
            _ => ".".to_owned(),
        };
        let loaded = std::fs::read(path)
            .map_err(|e| format!("cannot read: {e}"))
            .and_then(|bytes| load_batch_file(&name, &folder, &bytes, &input).map_err(|e| e.to_string()));
        match loaded {
            Ok(file) => {
                runs.extend(file.runs);
                redteam.extend(file.redteam);
            }
            Err(message) => errors.push(format!("{name}: {message}")),
        }
    }
    for message in &errors {
        eprintln!("agentrisk: {message}");
    }

    let written = match &args.output {
        Output::Table => {
            let summary = summarise(&runs, &redteam, args.method, args.group_by);
            let mut text = format!(
                "{} runs{} from {} files{} · {}\n\n",
                summary.runs,
                if redteam.is_empty() { String::new() } else { format!(" and {} red-team results", redteam.len()) },
                files.len() - errors.len().min(files.len()),
                if errors.is_empty() { String::new() } else { format!("; {} skipped", errors.len()) },
                args.method.describe()
            );
            let rows: Vec<[String; 7]> = rate_rows(&summary).iter().map(rate_cells).collect();
            text.push_str(&to_text(&rate_header(&args.method), &rows));
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
            let summary = summarise(&runs, &redteam, args.method, args.group_by);
            match serde_json::to_string_pretty(&summary) {
                Ok(json) => write_stdout(&(json + "\n")),
                Err(e) => Err(e.to_string()),
            }
        }
        Output::Scorecard(out) => {
            let config_text = args.config.as_ref().and_then(|path| std::fs::read_to_string(path).ok());
            let json =
                Scorecard::new(runs, redteam, args.method, args.group_by).with_analysis_config(config_text).to_json();
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
    if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}

fn fixed(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |v| format!("{v:.4}"))
}

fn write_stdout(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| format!("cannot write output: {e}"))
}
