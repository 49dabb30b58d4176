//! The command line itself: help, version, flag forms, usage errors,
//! completions, the man page, and when progress is drawn.

mod common;

use common::{agentrisk, cases, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::Command;

fn report(case: &str, file: &str) -> String {
    cases().join(case).join(file).to_string_lossy().into_owned()
}

/// A fresh folder holding the ten example traces.
fn examples_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agentrisk-clap-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(cases()).unwrap() {
        let case = entry.unwrap().path();
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("ex_") && case.join("trace.json").exists() {
            std::fs::copy(case.join("trace.json"), dir.join(format!("{name}.json"))).unwrap();
        }
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 10, "the ten example traces");
    dir
}

const COMMANDS: [&str; 10] =
    ["run", "batch", "diff", "history", "score", "site", "pack", "review", "completions", "man"];

#[test]
fn help_lists_every_command_and_exits_zero() {
    let o = agentrisk(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = stdout(&o);
    assert!(help.contains("Usage: agentrisk <COMMAND>"), "{help}");
    for command in COMMANDS {
        assert!(help.lines().any(|l| l.trim_start().starts_with(&format!("{command} "))), "{command} in:\n{help}");
    }
    assert!(help.contains("Exit status: 0 none blocked, 1 some blocked, 2 a usage error"), "{help}");

    // No command at all: the short help on stderr, and a usage error.
    let o = agentrisk(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert!(stderr(&o).contains("Usage: agentrisk <COMMAND>"), "{}", stderr(&o));
}

#[test]
fn every_command_help_ends_with_examples() {
    for (command, example) in [
        ("run", "  agentrisk run -t trace.json\n"),
        ("batch", "  agentrisk batch runs/\n"),
        ("diff", "  agentrisk diff baseline/ candidate/ --fail-on new-leak:L3 --format markdown > comment.md\n"),
        ("history", "  agentrisk history week49.json week50.json week51.json\n"),
        ("score", "  agentrisk score reports/*.json\n"),
        ("review", "  agentrisk review init runs/ -o review.json\n"),
        ("completions", "  agentrisk completions bash > "),
        ("man", "  man -l <(agentrisk man)\n"),
    ] {
        for flag in ["--help", "-h"] {
            let o = agentrisk(&[command, flag]);
            assert_eq!(o.status.code(), Some(0), "{command} {flag}");
            let help = stdout(&o);
            let examples = help.rfind("\nExamples:\n").unwrap_or_else(|| panic!("{command} {flag}:\n{help}"));
            assert!(help[examples..].contains(example), "{command} {flag}:\n{help}");
            assert!(help.contains(&format!("Usage: agentrisk {command}")), "{command} {flag}:\n{help}");
        }
    }
    // `help run` is `run --help`.
    assert_eq!(stdout(&agentrisk(&["help", "run"])), stdout(&agentrisk(&["run", "--help"])));
    // Every flag of today is in the help.
    let run = stdout(&agentrisk(&["run", "--help"]));
    for flag in
        ["-t, --trace", "-c, --config", "-o, --output", "-f, --format", "--fail-under", "--canaries", "-q, --quiet"]
    {
        assert!(run.contains(flag), "{flag} in:\n{run}");
    }
    let batch = stdout(&agentrisk(&["batch", "--help"]));
    for flag in ["--confidence", "--continuity-correction", "--group-by", "--json", "--scorecard", "-c, --config"] {
        assert!(batch.contains(flag), "{flag} in:\n{batch}");
    }
    let score = stdout(&agentrisk(&["score", "--help"]));
    for flag in ["--json", "--fail-below <N>", "(default 40)", "--no-block-on-critical", "-c, --config"] {
        assert!(score.contains(flag), "{flag} in:\n{score}");
    }
    for help in [&run, &batch, &score] {
        assert!(help.contains("--review <FILE>") && help.contains("--today <YYYY-MM-DD>"), "{help}");
    }
}

#[test]
fn version_prints_name_and_version() {
    for flag in ["--version", "-V"] {
        let o = agentrisk(&[flag]);
        assert_eq!(o.status.code(), Some(0));
        assert_eq!(stdout(&o), format!("agentrisk {}\n", env!("CARGO_PKG_VERSION")));
    }
}

#[test]
fn flag_equals_value_is_the_same_as_flag_space_value() {
    let path = report("ex_hr_trace", "report.no_block_on_critical.json");
    let spaced = agentrisk(&["score", "--fail-below", "60", "--no-block-on-critical", &path]);
    let joined = agentrisk(&["score", "--fail-below=60", "--no-block-on-critical", &path]);
    assert_eq!(joined.status.code(), Some(1), "{}", stderr(&joined));
    assert_eq!(stdout(&joined), stdout(&spaced));
    assert!(stdout(&joined).ends_with("High risk · blocked · consistent\n"), "{}", stdout(&joined));

    // A flag given twice keeps its last value, as before clap.
    let twice = agentrisk(&["score", "--fail-below=30", "--fail-below", "60", "--no-block-on-critical", &path]);
    assert_eq!(stdout(&twice), stdout(&spaced));

    let dir = examples_dir("equals");
    let dir = dir.to_str().unwrap();
    let joined = agentrisk(&["batch", dir, "--confidence=0.9", "--group-by=agent", "--json"]);
    let spaced = agentrisk(&["batch", dir, "--confidence", "0.9", "--group-by", "agent", "--json"]);
    assert_eq!(joined.status.code(), Some(0), "{}", stderr(&joined));
    assert_eq!(joined.stdout, spaced.stdout);
    let summary: serde_json::Value = serde_json::from_slice(&joined.stdout).unwrap();
    assert_eq!(summary["confidence"], 0.9);
    assert!(summary["groups"].as_object().is_some_and(|g| !g.is_empty()), "{summary}");

    // --json and --scorecard: the later one decides, as before.
    let card_last = agentrisk(&["batch", dir, "--json", "--scorecard", "-"]);
    let json_last = agentrisk(&["batch", dir, "--scorecard", "-", "--json"]);
    assert!(stdout(&card_last).contains("\"format\": \"agentrisk-scorecard\""), "{}", stdout(&card_last));
    assert!(stdout(&json_last).starts_with("{\n  \"runs\": 10,"), "{}", stdout(&json_last));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn usage_errors_exit_two_with_clap_messages() {
    let path = report("ex_hr_trace", "report.default.json");
    let o = agentrisk(&["score", "--nope", &path]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert!(err.starts_with("agentrisk: unexpected argument '--nope' found\n"), "{err}");
    assert!(err.contains("Usage: agentrisk score [OPTIONS] <REPORT.json>..."), "{err}");

    let o = agentrisk(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("agentrisk: unrecognized subcommand 'frobnicate'"), "{}", stderr(&o));

    let o = agentrisk(&["run", "-t", "x.json", "-f", "xml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("agentrisk: invalid value 'xml' for '--format <FORMAT>'"), "{}", stderr(&o));
    assert!(stderr(&o).contains("[possible values: json]"), "{}", stderr(&o));

    let o = agentrisk(&["batch", "x", "--group-by", "colour"]);
    assert!(
        stderr(&o).starts_with(
            "agentrisk: invalid value 'colour' for '--group-by <KEY>': unknown grouping \"colour\"; use agent, scenario or folder"
        ),
        "{}",
        stderr(&o)
    );
    let o = agentrisk(&["batch", "x", "--confidence", "1.5"]);
    assert!(
        stderr(&o).starts_with("agentrisk: invalid value '1.5' for '--confidence <C>': confidence level must be"),
        "{}",
        stderr(&o)
    );

    let o = agentrisk(&["run", "-o", "-"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("the following required arguments were not provided:\n  --trace <TRACE>"));
}

#[test]
fn completions_name_every_command_in_each_shell() {
    for (shell, marker) in
        [("bash", "complete -F _agentrisk"), ("zsh", "#compdef agentrisk"), ("fish", "complete -c agentrisk")]
    {
        let o = agentrisk(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        assert!(script.contains(marker), "{shell}: no {marker:?}");
        for word in ["run", "batch", "score", "man", "fail-below", "group-by", "continuity-correction"] {
            assert!(script.contains(word), "{shell}: no {word:?}");
        }
    }
    let o = agentrisk(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn man_prints_one_roff_page_with_a_section_per_command() {
    let o = agentrisk(&["man"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.starts_with(".TH agentrisk 1 "), "{}", &page[..page.len().min(200)]);
    for command in COMMANDS {
        let heading = format!(".SH \"AGENTRISK {}\"\n", command.to_uppercase());
        assert!(page.contains(&heading), "{heading}");
    }
    for text in [
        ".SH COMMANDS\n",
        ".SH \"EXIT STATUS\"\n",
        ".SS OPTIONS\n",
        ".SS EXAMPLES\n",
        "agentrisk run \\-t trace.json\n",
    ] {
        assert!(page.contains(text), "{text:?}");
    }
    assert_eq!(page.matches(".ds Aq").count(), 2, "one apostrophe preamble (.ie/.el)");
}

#[test]
fn no_progress_when_stderr_is_not_a_terminal() {
    let dir = examples_dir("pipe");
    let o = agentrisk(&["batch", dir.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0));
    // Not a bar, not a carriage return, not an escape: nothing at all.
    assert_eq!(stderr(&o), "");
    assert!(stdout(&o).starts_with("{\n  \"runs\": 10,"));

    let trace = dir.join("ex_finance_trace.json");
    let o = agentrisk(&["run", "-t", trace.to_str().unwrap(), "-o", "-"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(!err.contains('\r') && !err.contains('\x1b') && !err.contains("[="), "{err:?}");
    assert_eq!(err.lines().count(), 1, "only the run's summary line: {err:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs `command` (a shell command line) with a pseudo-terminal as its
/// stdin, stdout and stderr, through util-linux's `script`; returns what
/// the terminal showed.
fn on_a_terminal(command: &str, typescript: &Path) -> String {
    let status = Command::new("script")
        .args(["-qec", command])
        .arg(typescript)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("util-linux `script` (Debian's bsdutils) runs the command on a pseudo-terminal");
    assert_eq!(status.code(), Some(0), "{command}");
    String::from_utf8_lossy(&std::fs::read(typescript).unwrap()).into_owned()
}

#[test]
fn on_a_terminal_batch_draws_a_bar_on_stderr_and_stdout_is_unchanged() {
    let dir = examples_dir("tty");
    let bin = env!("CARGO_BIN_EXE_agentrisk");
    let piped = agentrisk(&["batch", dir.to_str().unwrap(), "--json"]);
    let json = dir.with_extension("out.json");
    let typescript = dir.with_extension("typescript");
    let command = format!("'{bin}' batch '{}' --json > '{}'", dir.display(), json.display());

    let shown = on_a_terminal(&command, &typescript);
    assert!(shown.contains("] 10/10 files"), "{shown:?}");
    assert!(shown.contains('\r'), "the bar redraws in place: {shown:?}");
    assert_eq!(std::fs::read(&json).unwrap(), piped.stdout, "stdout is the same with or without a bar");

    let shown = on_a_terminal(&format!("{command} -q"), &typescript);
    assert!(!shown.contains(" files"), "-q draws no bar: {shown:?}");
    assert_eq!(std::fs::read(&json).unwrap(), piped.stdout);

    for path in [&json, &typescript] {
        std::fs::remove_file(path).ok();
    }
    std::fs::remove_dir_all(&dir).ok();
}
