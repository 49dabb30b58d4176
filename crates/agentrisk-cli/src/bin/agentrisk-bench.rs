//! `agentrisk-bench`: end-to-end speed and memory of trace analysis on
//! synthetic traces (see `agentrisk-bench/synthetic.rs`).
//!
//! For each size, a child process of this binary (hidden `--one N`)
//! generates the trace, then times parse → analyse → report → JSON on one
//! thread and reads its own peak resident memory, so every size's peak is
//! its own. The parent prints one table row per size.

#[path = "agentrisk-bench/corpus_mix.rs"]
mod corpus_mix;
#[path = "../malloc.rs"]
mod malloc;
#[path = "agentrisk-bench/synthetic.rs"]
mod synthetic;

use agentrisk::analyser::{Analyser, Keep, Progress, Stage};
use agentrisk::util::ByteCount;
use std::borrow::Cow;
use std::cell::Cell;
use std::io::Read;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: agentrisk-bench [--trace synthetic|corpus-mix] [--sizes N,N,...] [--runs N]
                       [--versus-python] [--write DIR] [--timeout SECS]

Generates an AgentLeak trace of N events per size and times the end-to-end
analysis: parse the bytes, analyse, build the
report, serialise it as JSON (one thread), as `agentrisk run` does: the
input bytes are dropped once parsed, the trace once the report stops reading
it, and the report is streamed out. Each size runs in its own child
process; peak memory is that process's VmHWM, reset after generating the
input, so it counts the input bytes plus everything the analysis holds.

  --trace KIND      synthetic (default: tidy 48-event cases, ~210 bytes an
                    event; agentrisk-bench/synthetic.rs) or corpus-mix (the
                    conformance corpus's own events with fresh secrets
                    planted; agentrisk-bench/corpus_mix.rs)
  --sizes N,N,...   event counts (default 1000,10000,100000,1000000)
  --runs N          runs per size, each in a fresh process (default 3); the
                    row shows the run with the median total time, and the
                    fastest and slowest totals
  --write DIR       also write each generated trace to DIR/bench_<N>.json
  --generate-only   with --write: only write the traces (for the browser
                    benchmark, scripts/bench-browser.mjs); time nothing
  --timeout SECS    give up on a size after SECS seconds (default 1800)
  --versus-python   also time, --runs times each, `agentrisk run` as a whole
                    process (the binary beside this one) and CPython's
                    json.loads of the same bytes (python3 on the PATH), and
                    print their ratio (medians)";

/// Which generator makes the traces.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Synthetic,
    CorpusMix,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Synthetic => "synthetic",
            Kind::CorpusMix => "corpus-mix",
        }
    }

    fn parse(s: &str) -> Result<Kind, String> {
        match s {
            "synthetic" => Ok(Kind::Synthetic),
            "corpus-mix" => Ok(Kind::CorpusMix),
            other => Err(format!("--trace: {other:?} is neither synthetic nor corpus-mix")),
        }
    }

    fn trace(self, events: usize) -> Result<Vec<u8>, String> {
        match self {
            Kind::Synthetic => Ok(synthetic::trace_json(events)),
            Kind::CorpusMix => corpus_mix::trace_json(&corpus_mix::default_corpus(), events),
        }
    }

    /// The file a trace of `events` events is written to in `dir`.
    fn path(self, dir: &str, events: usize) -> String {
        match self {
            Kind::Synthetic => format!("{dir}/bench_{events}.json"),
            Kind::CorpusMix => format!("{dir}/corpus_mix_{events}.json"),
        }
    }
}

struct Args {
    kind: Kind,
    versus_python: bool,
    sizes: Vec<usize>,
    runs: usize,
    generate_only: bool,
    write: Option<String>,
    timeout: Duration,
}

fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut out = Args {
        kind: Kind::Synthetic,
        versus_python: false,
        sizes: vec![1_000, 10_000, 100_000, 1_000_000],
        runs: 3,
        generate_only: false,
        write: None,
        timeout: Duration::from_secs(1800),
    };
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let mut value = |flag: &str| iter.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "--sizes" => {
                let v = value(arg)?;
                out.sizes = v
                    .split(',')
                    .map(|s| s.trim().replace('_', "").parse().map_err(|_| format!("--sizes: {s:?} is not a count")))
                    .collect::<Result<_, _>>()?;
            }
            "--write" => out.write = Some(value(arg)?),
            "--trace" => out.kind = Kind::parse(&value(arg)?)?,
            "--versus-python" => out.versus_python = true,
            "--generate-only" => out.generate_only = true,
            "--runs" => {
                let v = value(arg)?;
                out.runs = v.parse().ok().filter(|&n| n > 0).ok_or_else(|| format!("--runs: {v:?} is not a count"))?;
            }
            "--timeout" => {
                let v = value(arg)?;
                out.timeout = Duration::from_secs(v.parse().map_err(|_| format!("--timeout: {v:?} is not seconds"))?);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(out)
}

/// What a child measured for one size.
struct Measured {
    bytes: usize,
    parse: f64,
    analyze: f64,
    serialize: f64,
    peak_kib: u64,
    summary: String,
}

impl Measured {
    fn total(&self) -> f64 {
        self.parse + self.analyze + self.serialize
    }

    fn to_line(&self) -> String {
        format!(
            "RESULT {} {:.6} {:.6} {:.6} {} {}",
            self.bytes, self.parse, self.analyze, self.serialize, self.peak_kib, self.summary
        )
    }

    fn from_line(line: &str) -> Option<Measured> {
        let mut parts = line.strip_prefix("RESULT ")?.splitn(6, ' ');
        Some(Measured {
            bytes: parts.next()?.parse().ok()?,
            parse: parts.next()?.parse().ok()?,
            analyze: parts.next()?.parse().ok()?,
            serialize: parts.next()?.parse().ok()?,
            peak_kib: parts.next()?.parse().ok()?,
            summary: parts.next()?.to_owned(),
        })
    }
}

/// The process's peak resident set (`VmHWM`), in KiB.
fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs one size in this process and prints its `RESULT` line.
fn run_one(kind: Kind, events: usize, write: Option<&str>) -> Result<(), String> {
    let bytes = kind.trace(events)?;
    if let Some(dir) = write {
        std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: cannot create: {e}"))?;
        let path = kind.path(dir, events);
        std::fs::write(&path, &bytes).map_err(|e| format!("{path}: cannot write: {e}"))?;
    }
    // Reset the high-water mark to what is resident now (Linux 4.0+), so the
    // peak is the input plus the analysis, not the generator's scratch.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let analyser = Analyser::new().with_generated_at("2026-07-01T09:00:00");
    let input_bytes = bytes.len();
    let base = peak_kib().unwrap_or(0);
    // As `agentrisk run` does: the bytes go once parsed, the trace once the
    // report stops reading it, and the report is streamed to its writer.
    // Parsing ends when the analyser first reports a later stage.
    let t0 = Instant::now();
    let parsed: Cell<Option<(Instant, u64)>> = Cell::new(None);
    let observe = |p: Progress| {
        if p.stage != Stage::Parsing && parsed.get().is_none() {
            parsed.set(Some((Instant::now(), peak_kib().unwrap_or(0))));
        }
    };
    let report = analyser
        .analyse_trace("bench.json", Cow::Owned(bytes), Some(&observe), Keep::ReportOnly)
        .map_err(|e| e.to_string())?
        .report;
    let t2 = Instant::now();
    let (t1, after_parse) = parsed.get().unwrap_or((t0, 0));
    let events = report.event_count;
    let after_analyze = peak_kib().unwrap_or(0);
    // The CLI writes the report to a file; here only its size is kept.
    let mut sink = ByteCount::default();
    serde_json::to_writer_pretty(&mut sink, &report).map_err(|e| e.to_string())?;
    let t3 = Instant::now();
    let measured = Measured {
        bytes: input_bytes,
        parse: (t1 - t0).as_secs_f64(),
        analyze: (t2 - t1).as_secs_f64(),
        serialize: (t3 - t2).as_secs_f64(),
        peak_kib: peak_kib().unwrap_or(0),
        summary: format!(
            "{} · score {} · RI {:.4} · {} findings ({:.2} per event) · {} leaked secrets · report {:.1} MB · \
             peak MB at start {:.0}, after parse {:.0}, after analyse {:.0}",
            report.verdict,
            report.privacy_score,
            report.risk_index,
            report.findings.len(),
            report.findings.len() as f64 / events.max(1) as f64,
            report.summary.leaked_secrets,
            sink.0 as f64 / 1e6,
            base as f64 * 1024.0 / 1e6,
            after_parse as f64 * 1024.0 / 1e6,
            after_analyze as f64 * 1024.0 / 1e6,
        ),
    };
    println!("{}", measured.to_line());
    Ok(())
}

/// The median, fastest and slowest of some timings (at least one).
fn spread(mut times: Vec<f64>) -> (f64, f64, f64) {
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[0], times[times.len() - 1])
}

/// Times `agentrisk run` on the trace of `events` events as a whole process
/// (start, read, analyse, write the report) against CPython's `json.loads`
/// of the same bytes (the bytes already read), in turn, `--runs` times each;
/// returns the line to print.
fn versus_python(args: &Args, events: usize) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("agentrisk-bench-{}", std::process::id()));
    let dir_name = dir.to_string_lossy().into_owned();
    let trace = args.kind.path(&dir_name, events);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{dir_name}: {e}"))?;
    std::fs::write(&trace, args.kind.trace(events)?).map_err(|e| format!("{trace}: {e}"))?;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let agentrisk = exe.with_file_name("agentrisk");
    let time_run = || {
        let t = Instant::now();
        let status = Command::new(&agentrisk)
            .args(["run", "-q", "-t", &trace, "-o"])
            .arg(dir.join("reports"))
            .status()
            .map_err(|e| format!("{}: {e} (build it: cargo build --release -p agentrisk-cli)", agentrisk.display()))?;
        // Exit 1 is a blocked run, still a finished analysis.
        match status.code() {
            Some(0 | 1) => Ok(t.elapsed().as_secs_f64()),
            _ => Err(format!("agentrisk run failed: {status}")),
        }
    };
    const LOADS: &str = "import json, sys, time\n\
        b = open(sys.argv[1], 'rb').read()\n\
        t = time.perf_counter(); json.loads(b); print(time.perf_counter() - t)";
    let time_loads = || {
        let out = Command::new("python3").args(["-c", LOADS, &trace]).output().map_err(|e| format!("python3: {e}"))?;
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse::<f64>()
            .map_err(|_| format!("python3 printed no time: {}", String::from_utf8_lossy(&out.stderr)))
    };
    // In turn, so that both see the same machine.
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..args.runs {
        ours.push(time_run()?);
        theirs.push(time_loads()?);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let (run, run_min, run_max) = spread(ours);
    let (loads, loads_min, loads_max) = spread(theirs);
    Ok(format!(
        "agentrisk run {run:.3} s ({run_min:.3}–{run_max:.3}) · python3 json.loads {loads:.3} s \
         ({loads_min:.3}–{loads_max:.3}) · ratio {:.2}×",
        run / loads
    ))
}

/// Runs one size in a child process, killing it after `timeout`.
fn run_child(events: usize, args: &Args) -> Result<Measured, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let mut command = Command::new(exe);
    command.arg("--one").arg(events.to_string()).arg("--trace").arg(args.kind.name());
    if let Some(dir) = &args.write {
        command.arg("--write").arg(dir);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start a child: {e}"))?;
    let started = Instant::now();
    loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(_) => break,
            None if started.elapsed() > args.timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("did not finish in {} s", args.timeout.as_secs()));
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        stdout.read_to_string(&mut out).map_err(|e| e.to_string())?;
    }
    out.lines().find_map(Measured::from_line).ok_or_else(|| "the child reported nothing (see its error above)".into())
}

fn main() -> ExitCode {
    // As `agentrisk` does.
    malloc::configure();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    if args.first().map(String::as_str) == Some("--one") {
        let events = args.get(1).and_then(|n| n.parse().ok());
        let write = args.iter().position(|a| a == "--write").and_then(|i| args.get(i + 1));
        let kind = match args.iter().position(|a| a == "--trace").and_then(|i| args.get(i + 1)) {
            Some(name) => Kind::parse(name),
            None => Ok(Kind::Synthetic),
        };
        return match events.map(|n| kind.and_then(|kind| run_one(kind, n, write.map(String::as_str)))) {
            Some(Ok(())) => ExitCode::SUCCESS,
            Some(Err(message)) => {
                eprintln!("agentrisk-bench: {message}");
                ExitCode::from(2)
            }
            None => {
                eprintln!("agentrisk-bench: --one needs an event count");
                ExitCode::from(2)
            }
        };
    }
    let args = match parse_args(&args) {
        Ok(a) => a,
        Err(message) => {
            eprintln!("agentrisk-bench: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.generate_only {
        let Some(dir) = &args.write else {
            eprintln!("agentrisk-bench: --generate-only needs --write DIR\n\n{USAGE}");
            return ExitCode::from(2);
        };
        for &events in &args.sizes {
            let path = args.kind.path(dir, events);
            let bytes = match args.kind.trace(events) {
                Ok(bytes) => bytes,
                Err(message) => {
                    eprintln!("agentrisk-bench: {message}");
                    return ExitCode::from(2);
                }
            };
            if let Err(e) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, &bytes)) {
                eprintln!("agentrisk-bench: {path}: cannot write: {e}");
                return ExitCode::from(2);
            }
            println!("{path}: {events} events, {:.2} MB", bytes.len() as f64 / 1e6);
        }
        return ExitCode::SUCCESS;
    }
    println!(
        "{:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>10} {:>7} {:>15}",
        "events",
        "input MB",
        "parse s",
        "analyse s",
        "json s",
        "total s",
        "MB/s",
        "peak MB",
        "peak/in",
        "min–max total s"
    );
    let mut failed = false;
    for &events in &args.sizes {
        let mut runs: Vec<Measured> = Vec::new();
        for _ in 0..args.runs {
            match run_child(events, &args) {
                Ok(m) => runs.push(m),
                Err(message) => {
                    println!("{events:>9} {message}");
                    failed = true;
                    break;
                }
            }
        }
        if runs.len() < args.runs {
            continue;
        }
        runs.sort_by(|a, b| a.total().total_cmp(&b.total()));
        let (fastest, slowest) = (runs[0].total(), runs[runs.len() - 1].total());
        let m = &runs[runs.len() / 2];
        let mb = m.bytes as f64 / 1e6;
        let total = m.total();
        let peak_mb = m.peak_kib as f64 * 1024.0 / 1e6;
        println!(
            "{events:>9} {mb:>9.2} {:>9.3} {:>9.3} {:>9.3} {total:>9.3} {:>8.2} {peak_mb:>10.1} {:>6.1}× {:>7.3}–{:<7.3}",
            m.parse,
            m.analyze,
            m.serialize,
            mb / total,
            peak_mb / mb,
            fastest,
            slowest
        );
        println!("{:>9} {}", "", m.summary);
        if args.versus_python {
            match versus_python(&args, events) {
                Ok(line) => println!("{:>9} {line}", ""),
                Err(message) => {
                    println!("{:>9} versus python: {message}", "");
                    failed = true;
                }
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
