//! `agentrisk-batch-bench`: how long a batch of many small runs takes —
//! analysing the traces, summarising them (plain and grouped), and writing
//! and reading the scorecard — with figures printed, not asserted.
//!
//! Each run is a synthetic trace of the `agentrisk-bench` generator (one
//! 48-event case by default, a different case per run, so the runs differ).

// Shared with agentrisk-bench, which uses all of it.
#[allow(dead_code)]
#[path = "agentrisk-bench/synthetic.rs"]
mod synthetic;

use agentrisk::analyser::{Analyser, BatchInput};
use agentrisk::batch::{read_scorecard, summarize, GroupBy, RunFacts, Scorecard};
use agentrisk::stats::IntervalMethod;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: agentrisk-batch-bench [--runs N] [--events N]
  --runs N     runs in the batch (default 10000)
  --events N   events per run (default 48)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut runs, mut events) = (10_000usize, 48usize);
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let target = match arg.as_str() {
            "--runs" => &mut runs,
            "--events" => &mut events,
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        };
        match iter.next().and_then(|v| v.replace('_', "").parse().ok()) {
            Some(n) => *target = n,
            None => {
                eprintln!("{arg} needs a count\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }

    let traces: Vec<Vec<u8>> =
        (0..runs).map(|i| synthetic::trace_json_from(&format!("run_{i:05}"), i as u64, events)).collect();
    let megabytes = traces.iter().map(Vec::len).sum::<usize>() as f64 / 1e6;

    let analyser = Analyser::new();
    let started = Instant::now();
    let mut facts: Vec<RunFacts> = Vec::with_capacity(runs);
    for (i, bytes) in traces.iter().enumerate() {
        let (name, folder) = (format!("run_{i:05}.json"), format!("folder_{}", i % 10));
        match analyser.read_batch_file(BatchInput { name: &name, folder: &folder, bytes }) {
            Ok(file) => facts.extend(file.runs),
            Err(e) => {
                eprintln!("run {i}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let analyze = started.elapsed().as_secs_f64();

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

    println!("batch of {runs} runs × {events} events ({megabytes:.1} MB of traces), one thread, release build");
    println!("  analyse every trace to run facts   {analyze:>8.3} s  ({:.0} runs/s)", runs as f64 / analyze);
    println!("  summarise                          {plain:>8.4} s  ({leaks} runs leak)");
    println!("  summarise grouped by folder        {grouped:>8.4} s  ({groups} groups)");
    println!("  build + write scorecard JSON       {write:>8.4} s  ({:.1} MB)", card.len() as f64 / 1e6);
    println!("  read scorecard back                {read:>8.4} s  ({rows} runs)");
    ExitCode::SUCCESS
}
