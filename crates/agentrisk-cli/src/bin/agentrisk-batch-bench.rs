//! `agentrisk-batch-bench`: how long a batch of many small runs takes —
//! analysing the traces on one thread and on every core, summarising them
//! (plain and grouped), and writing and reading the scorecard — with
//! figures printed, not asserted. With `--write DIR` it also times the
//! whole `agentrisk batch DIR` process with `--jobs 1` and with every core.
//!
//! Each run is a synthetic trace of the `agentrisk-bench` generator (one
//! 48-event case by default, a different case per run, so the runs differ).

// Shared with agentrisk-bench, which uses all of it.
#[allow(dead_code)]
#[path = "agentrisk-bench/synthetic.rs"]
mod synthetic;
// The allocator `agentrisk` uses: glibc's serves two threads' small
// allocations slower, and the in-process figures would not be the CLI's.
#[path = "../malloc.rs"]
mod malloc;
// The bench times the CLI's own scheduling (`in_order`), not its flag.
#[allow(dead_code)]
#[path = "../parallel.rs"]
mod parallel;

use agentrisk::analyser::{Analyser, BatchInput};
use agentrisk::batch::{read_scorecard, summarize, GroupBy, RunFacts, Scorecard};
use agentrisk::stats::IntervalMethod;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

const USAGE: &str = "usage: agentrisk-batch-bench [--runs N] [--events N] [--rounds N] [--write DIR]
  --runs N     runs in the batch (default 10000)
  --events N   events per run (default 48)
  --rounds N   times each analysis is repeated, one thread and every core in
               turn; the median is printed (default 3)
  --write DIR  also write the traces to DIR (created, and emptied of earlier
               run_*.json) and time `agentrisk batch -q --json DIR` (the
               agentrisk beside this binary) with --jobs 1 and every core";

struct Args {
    runs: usize,
    events: usize,
    rounds: usize,
    write: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut out = Args { runs: 10_000, events: 48, rounds: 3, write: None };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let value = iter.next().ok_or_else(|| format!("{arg} needs a value"))?;
        let count = || value.replace('_', "").parse::<usize>().map_err(|_| format!("{arg} needs a count"));
        match arg.as_str() {
            "--runs" => out.runs = count()?,
            "--events" => out.events = count()?,
            "--rounds" => out.rounds = count()?.max(1),
            "--write" => out.write = Some(PathBuf::from(value)),
            _ => return Err(format!("unknown option {arg}")),
        }
    }
    Ok(out)
}

fn main() -> ExitCode {
    // As `agentrisk` does.
    malloc::configure();
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let (runs, events) = (args.runs, args.events);
    let traces: Vec<Vec<u8>> =
        (0..runs).map(|i| synthetic::trace_json_from(&format!("run_{i:05}"), i as u64, events)).collect();
    let megabytes = traces.iter().map(Vec::len).sum::<usize>() as f64 / 1e6;

    let analyser = Analyser::new();
    // The detectors' patterns are compiled on first use: not in either figure.
    agentrisk::analyser::warm_up();
    let analyse = |bytes: &Vec<u8>, i: usize| {
        let (name, folder) = (format!("run_{i:05}.json"), format!("folder_{}", i % 10));
        analyser.read_batch_file(BatchInput { name: &name, folder: &folder, bytes }).map(|file| file.runs)
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let indexed: Vec<(usize, &Vec<u8>)> = traces.iter().enumerate().collect();
    // As `agentrisk batch` does: every file on a thread of a pool of
    // `threads`, the results taken in the files' order.
    let analyse_on = |threads: usize| -> Result<(f64, Vec<RunFacts>), String> {
        let pool = parallel::pool(NonZeroUsize::new(threads))?;
        // As `agentrisk batch` readies itself (the patterns are already
        // compiled: only the allocator's setting remains to be made).
        parallel::prepare(&pool, runs);
        let started = Instant::now();
        let mut facts = Vec::with_capacity(runs);
        let mut errors = Vec::new();
        parallel::in_order(
            &pool,
            &indexed,
            |(i, bytes)| analyse(bytes, *i),
            |_, read| match read {
                Ok(runs) => facts.extend(runs),
                Err(e) => errors.push(e.to_string()),
            },
        );
        let seconds = started.elapsed().as_secs_f64();
        match errors.first() {
            Some(error) => Err(error.clone()),
            None => Ok((seconds, facts)),
        }
    };
    let (mut one, mut all) = (Vec::new(), Vec::new());
    let mut facts = Vec::new();
    for _ in 0..args.rounds {
        for (threads, times) in [(1, &mut one), (cores, &mut all)] {
            match analyse_on(threads) {
                Ok((seconds, got)) if facts.is_empty() || got == facts => {
                    times.push(seconds);
                    facts = got;
                }
                Ok(_) => {
                    eprintln!("the run facts on {threads} threads differ from the ones before");
                    return ExitCode::FAILURE;
                }
                Err(message) => {
                    eprintln!("{message}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    let (one, all) = (median(&mut one), median(&mut all));

    let method = IntervalMethod::default();
    let timed = |f: &dyn Fn() -> usize| {
        let started = Instant::now();
        let out = f();
        (started.elapsed().as_secs_f64(), out)
    };
    let (plain, leaks) = timed(&|| summarize(&facts, &[], method, None).leak_rate.k as usize);
    let (grouped, groups) = timed(&|| summarize(&facts, &[], method, Some(GroupBy::Folder)).groups.len());
    let card = Scorecard::new(facts.clone(), Vec::new(), method, Some(GroupBy::Folder)).to_json();
    let (write, _) = timed(&|| Scorecard::new(facts.clone(), Vec::new(), method, None).to_json().len());
    let (read, rows) = timed(&|| read_scorecard(card.as_bytes()).map_or(0, |rows| rows.runs.len()));

    println!("batch of {runs} runs × {events} events ({megabytes:.1} MB of traces), release build, {cores} cores");
    println!("  analyse every trace to run facts, median of {} rounds:", args.rounds);
    println!("    on one thread                    {one:>8.3} s  ({:.0} runs/s)", runs as f64 / one);
    println!("    on {cores} threads                     {all:>8.3} s  ({:.0} runs/s)", runs as f64 / all);
    println!("    speed-up                         {:>8.2}×  (the run facts identical)", one / all);
    println!("  summarise                          {plain:>8.4} s  ({leaks} runs leak)");
    println!("  summarise grouped by folder        {grouped:>8.4} s  ({groups} groups)");
    println!("  build + write scorecard JSON       {write:>8.4} s  ({:.1} MB)", card.len() as f64 / 1e6);
    println!("  read scorecard back                {read:>8.4} s  ({rows} runs)");

    match &args.write {
        Some(dir) => match whole_process(dir, &traces, args.rounds, cores) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("{message}");
                ExitCode::FAILURE
            }
        },
        None => ExitCode::SUCCESS,
    }
}

/// Writes the traces to `dir` and times `agentrisk batch -q --json dir`
/// with `--jobs 1` and with every core, checking their outputs are equal.
fn whole_process(dir: &Path, traces: &[Vec<u8>], rounds: usize, cores: usize) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("run_") && name.ends_with(".json") {
            std::fs::remove_file(entry.path()).map_err(|e| format!("{name}: {e}"))?;
        }
    }
    for (i, bytes) in traces.iter().enumerate() {
        let path = dir.join(format!("run_{i:05}.json"));
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let agentrisk = exe.with_file_name(format!("agentrisk{}", std::env::consts::EXE_SUFFIX));
    let run = |jobs: usize| -> Result<(f64, Vec<u8>), String> {
        let started = Instant::now();
        let out = Command::new(&agentrisk)
            .args(["batch", "-q", "--json", "--jobs", &jobs.to_string()])
            .arg(dir)
            .output()
            .map_err(|e| format!("{}: {e}", agentrisk.display()))?;
        let seconds = started.elapsed().as_secs_f64();
        match out.status.success() {
            true => Ok((seconds, out.stdout)),
            false => Err(format!("agentrisk batch failed: {}", String::from_utf8_lossy(&out.stderr))),
        }
    };
    let (mut one, mut all) = (Vec::new(), Vec::new());
    let mut output: Option<Vec<u8>> = None;
    for _ in 0..rounds {
        for (jobs, times) in [(1, &mut one), (cores, &mut all)] {
            let (seconds, stdout) = run(jobs)?;
            if output.as_ref().is_some_and(|before| *before != stdout) {
                return Err(format!("agentrisk batch --jobs {jobs} printed something else than before"));
            }
            output = Some(stdout);
            times.push(seconds);
        }
    }
    let (one, all) = (median(&mut one), median(&mut all));
    println!(
        "whole process: agentrisk batch -q --json {} ({} traces), median of {rounds} rounds:",
        dir.display(),
        traces.len()
    );
    println!("    --jobs 1                         {one:>8.3} s");
    println!("    --jobs {cores}                         {all:>8.3} s");
    println!("    speed-up                         {:>8.2}×  (stdout identical)", one / all);
    Ok(())
}

fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times.get(times.len() / 2).copied().unwrap_or(f64::NAN)
}
