//! `agentrisk site` and `agentrisk pack`: runs published for readers, as a
//! folder any static server can host or as one HTML file that opens from
//! disk. This module reads the inputs and writes the output; what is
//! published, and the manifest that lets the viewer verify it, come from
//! `agentrisk::publish`.

use crate::inputs::{expand, Found};
use agentrisk::analyser::{Named, NamedConfig};
use agentrisk::publish::{pack_html, site_files, Publication, PublishOptions, Publisher, Source, ViewerAssets, FORMAT};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod viewer {
    include!(concat!(env!("OUT_DIR"), "/viewer_files.rs"));
}

pub const SITE_ABOUT: &str = "Publish runs as a static report site (viewer, data and a verifiable manifest)";

pub const SITE_LONG_ABOUT: &str = "\
Writes a folder that any static server can host at any path: the viewer
(carried inside this binary), a data/ folder and manifest.json. The manifest
records the title, when and by which agentrisk it was published, the config
used, and per source file its name, folder, kind, size, SHA-256 and the
numbers computed now; the page shows every run at once and whether the
files still match it.

Inputs are taken as `agentrisk batch` takes them: traces, reports,
scorecards, red-team results; folders are searched for .json and .jsonl
files. By default a trace is published as its report (redacted values only)
with the SHA-256 of the trace; --include-traces publishes the raw traces
too, with every secret they hold.

With --review FILE (repeatable) the review file is published too, first,
as a data file the manifest lists with its SHA-256, and each run's entry
carries its reviewed numbers (acceptances judged at the publication's
date); the page shows the decisions and sign-offs and checks them like
any other file.

OUT must be missing, empty, or a site written before (its contents are
then replaced). A source that cannot be published is named on stderr, the
site is still written, and the exit status is 1.";

pub const SITE_EXAMPLES: &str = "\
Examples:
  agentrisk site runs/ -o site/
  agentrisk site runs/ -o site/ --title 'Weekly runs' -c agentleak.yaml
  python3 -m http.server -d site/ 8000";

pub const PACK_ABOUT: &str = "Publish runs as one HTML file that opens from disk, with no network";

pub const PACK_LONG_ABOUT: &str = "\
Writes one self-contained HTML file: the viewer's code, its wasm
(compressed) and the data inline, with the same manifest as `agentrisk
site`. Opened from disk it makes no request of any kind and shows every
run, and whether its data still match the manifest.

Inputs are taken as `agentrisk batch` takes them. By default a trace is
packed as its report (redacted values only) with the SHA-256 of the trace;
--include-traces packs the raw traces too, with every secret they hold.
With --review FILE the review file is packed too, listed in the manifest
with the runs' reviewed numbers, as for `agentrisk site`.
A source that cannot be published is named on stderr, the file is still
written, and the exit status is 1.";

pub const PACK_EXAMPLES: &str = "\
Examples:
  agentrisk pack runs/ -o review.html
  agentrisk pack traces/ reports/ -o review.html --title 'Audit, week 49'
  agentrisk pack runs/ -o review.html -c agentleak.yaml --include-traces
  agentrisk pack runs/ -o review.html --review review.json";

/// What this binary says when it was built without the viewer.
const NO_VIEWER: &str = "agentrisk: this agentrisk was built without the viewer; \
build one with it: bash scripts/build-cli.sh";

const DEFAULT_TITLE: &str = "AgentRisk review";

/// The flags `site` and `pack` share.
#[derive(clap::Args)]
pub struct PublishArgs {
    /// Files and folders to publish
    #[arg(value_name = "FILE_OR_DIR", required = true)]
    inputs: Vec<String>,
    /// The title shown in the page's header
    #[arg(long, value_name = "TEXT", default_value = DEFAULT_TITLE)]
    title: String,
    /// agentleak.yaml to analyse traces with (recorded in the manifest)
    #[arg(short = 'c', long = "config", value_name = "CONFIG")]
    config: Option<String>,
    /// Also publish the raw traces, with every secret in them (default: their reports only)
    #[arg(long)]
    include_traces: bool,
    /// How OpenTelemetry span exports become runs (recorded in the manifest)
    #[arg(long, value_enum, value_name = "MAPPING", default_value = "structural")]
    span_mapping: crate::SpanMappingArg,
    /// A review file to publish with the runs (its decisions and sign-offs; each run's reviewed numbers in the manifest); repeat to combine files
    #[arg(long = "review", value_name = "FILE")]
    review: Vec<String>,
    /// No summary on stderr (errors still show)
    #[arg(short = 'q', long = "quiet")]
    quiet: bool,
    #[command(flatten)]
    jobs: crate::parallel::JobsFlag,
}

#[derive(clap::Args)]
pub struct SiteArgs {
    /// The site's folder: missing, empty, or a site written before
    #[arg(short = 'o', long = "output", value_name = "OUT", required = true)]
    out: String,
    #[command(flatten)]
    publish: PublishArgs,
}

#[derive(clap::Args)]
pub struct PackArgs {
    /// The HTML file to write
    #[arg(short = 'o', long = "output", value_name = "REVIEW.html", required = true)]
    out: String,
    #[command(flatten)]
    publish: PublishArgs,
}

/// A publication and how reading its inputs went.
struct Published {
    publication: Publication,
    /// Some input could not be read or published (each named on stderr).
    failed: bool,
}

pub fn site(args: &SiteArgs) -> ExitCode {
    let out = Path::new(&args.out);
    let Prepared { config, dist, reviews } = match prepare(&args.publish) {
        Ok(prepared) => prepared,
        Err(code) => return code,
    };
    // Refuse before any work: the inputs may be many.
    let replace = match site_folder_state(out) {
        Ok(replace) => replace,
        Err(message) => return fail(&message),
    };
    let Published { publication, failed } = match published(&args.publish, config, &reviews, Some(out)) {
        Ok(published) => published,
        Err(code) => return code,
    };
    let files = match site_files(&dist, &publication) {
        Ok(files) => files,
        Err(message) => return fail(&format!("the viewer inside this binary cannot make a site: {message}")),
    };
    if let Err(message) = write_site(out, replace, &files) {
        return fail(&message);
    }
    if !args.publish.quiet {
        let bytes: usize = files.iter().map(|(_, bytes)| bytes.len()).sum();
        eprintln!(
            "agentrisk: wrote the site {} ({} files, {bytes} bytes): {}",
            out.display(),
            files.len(),
            counts(&publication)
        );
        eprintln!("{}", exposure(&publication));
    }
    finish(failed)
}

pub fn pack(args: &PackArgs) -> ExitCode {
    let Prepared { config, dist, reviews } = match prepare(&args.publish) {
        Ok(prepared) => prepared,
        Err(code) => return code,
    };
    let assets = match ViewerAssets::from_dist(&dist) {
        Ok(assets) => assets,
        Err(message) => return fail(&format!("the viewer inside this binary cannot make a pack: {message}")),
    };
    let Published { publication, failed } = match published(&args.publish, config, &reviews, None) {
        Ok(published) => published,
        Err(code) => return code,
    };
    let html = match pack_html(&assets, &publication) {
        Ok(html) => html,
        Err(message) => return fail(&format!("cannot make the pack: {message}")),
    };
    if let Err(e) = std::fs::write(&args.out, &html) {
        return fail(&format!("{}: cannot write: {e}", args.out));
    }
    if !args.publish.quiet {
        let viewer = assets.wasm_text.len() + assets.glue.len() + assets.css.len();
        eprintln!(
            "agentrisk: wrote {} ({} bytes, of which the viewer {viewer}): {}",
            args.out,
            html.len(),
            counts(&publication)
        );
        eprintln!("{}", exposure(&publication));
    }
    finish(failed)
}

/// What every publication needs before its inputs are read: the config
/// file (checked first, so a bad one is named even in a binary without the
/// viewer) and the viewer's files.
struct Prepared {
    config: Option<(String, String)>,
    dist: Vec<(String, Vec<u8>)>,
    /// The review files: (name, bytes), checked.
    reviews: Vec<(String, Vec<u8>)>,
}

fn prepare(args: &PublishArgs) -> Result<Prepared, ExitCode> {
    let config = match &args.config {
        Some(path) => Some(config_file(path).map_err(|message| fail(&message))?),
        None => None,
    };
    let reviews = review_files(&args.review).map_err(|message| fail(&message))?;
    if viewer::VIEWER_FILES.is_empty() {
        eprintln!("{NO_VIEWER}");
        return Err(ExitCode::from(2));
    }
    let dist = viewer::VIEWER_FILES.iter().map(|(path, bytes)| ((*path).to_owned(), bytes.to_vec())).collect();
    Ok(Prepared { config, dist, reviews })
}

/// `--review`: each file read and checked (combined, as the publication
/// applies them), named by its file name as the manifest records it; the
/// error names the path as given.
fn review_files(paths: &[String]) -> Result<Vec<(String, Vec<u8>)>, String> {
    let read: Vec<(String, String, Vec<u8>)> = paths
        .iter()
        .map(|path| {
            let bytes = std::fs::read(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
            let name = Path::new(path).file_name().map_or_else(|| path.clone(), |n| n.to_string_lossy().into_owned());
            Ok((path.clone(), name, bytes))
        })
        .collect::<Result<_, String>>()?;
    let named: Vec<Named<'_>> = read.iter().map(|(path, _, bytes)| Named { name: path, bytes }).collect();
    agentrisk::analyser::review_from_files(&named).map_err(|e| e.to_string())?;
    Ok(read.into_iter().map(|(_, name, bytes)| (name, bytes)).collect())
}

/// `-c`: (file name, text), checked as the viewer will load it; the error
/// names the path as given.
fn config_file(path: &str) -> Result<(String, String), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
    NamedConfig::load(Named { name: path, bytes: text.as_bytes() }).map_err(|e| e.to_string())?;
    // The manifest records the file's name, not where it lay on this machine.
    let name = Path::new(path).file_name().map_or_else(|| path.to_owned(), |n| n.to_string_lossy().into_owned());
    Ok((name, text))
}

/// Reads the inputs and publishes them; each input that cannot be read or
/// published is named on stderr.
/// `skip`: a folder whose files are never inputs (a site written before
/// inside an input folder, which would otherwise publish itself).
fn published(
    args: &PublishArgs,
    config: Option<(String, String)>,
    reviews: &[(String, Vec<u8>)],
    skip: Option<&Path>,
) -> Result<Published, ExitCode> {
    let pool = args.jobs.pool().map_err(|message| fail(&message))?;
    let options = PublishOptions {
        title: args.title.clone(),
        generated_at: crate::run::now_isoformat(),
        tool_version: env!("CARGO_PKG_VERSION").to_owned(),
        config,
        include_traces: args.include_traces,
        span_mapping: args.span_mapping.into(),
    };
    let (mut found, errors) = expand(&args.inputs);
    if let Some(skip) = skip.and_then(|dir| dir.canonicalize().ok()) {
        found.retain(|file| !file.path.canonicalize().is_ok_and(|path| path.starts_with(&skip)));
    }
    let mut failed = !errors.is_empty();
    for message in &errors {
        eprintln!("agentrisk: {message}");
    }
    let mut read: Vec<(&Found, String, Vec<u8>)> = Vec::with_capacity(found.len());
    for file in &found {
        match std::fs::read(&file.path) {
            Ok(bytes) => {
                let name = file.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                read.push((file, name, bytes));
            }
            Err(e) => {
                eprintln!("agentrisk: {}: cannot read: {e}", file.path.display());
                failed = true;
            }
        }
    }
    // The review files first: the manifest lists them first, so a viewer
    // applies the review before it checks the runs.
    let sources: Vec<Source<'_>> = reviews
        .iter()
        .map(|(name, bytes)| Source { name, folder: "", bytes })
        .chain(read.iter().map(|(file, name, bytes)| Source { name, folder: &file.folder, bytes }))
        .collect();
    let publisher = Publisher::new(&sources, &options).map_err(|e| fail(&e.to_string()))?;
    let indexed: Vec<(usize, Source<'_>)> = sources.iter().copied().enumerate().collect();
    let mut parts = Vec::with_capacity(indexed.len());
    let publish = |(index, source): &(usize, Source<'_>)| publisher.source(*index, source);
    crate::parallel::prepare(&pool, indexed.len());
    crate::parallel::in_order(&pool, &indexed, publish, |_, part| parts.push(part));
    // A part per source, in order; name each failure by the path given.
    for ((file, _, _), part) in read.iter().zip(parts.iter().skip(reviews.len())) {
        for problem in part.errors() {
            eprintln!("agentrisk: {}: {problem}", file.path.display());
            failed = true;
        }
    }
    Ok(Published { publication: publisher.finish(parts), failed })
}

/// Whether `out` can take a site: `Ok(false)` when missing or empty,
/// `Ok(true)` when it holds a site written before (to be replaced).
fn site_folder_state(out: &Path) -> Result<bool, String> {
    let shown = out.display();
    if !out.exists() {
        return Ok(false);
    }
    if !out.is_dir() {
        return Err(format!("{shown}: exists and is not a folder; name a new or empty folder for the site"));
    }
    let mut entries = std::fs::read_dir(out).map_err(|e| format!("{shown}: cannot list folder: {e}"))?;
    if entries.next().is_none() {
        return Ok(false);
    }
    if holds_a_site(out) {
        return Ok(true);
    }
    Err(format!(
        "{shown}: the folder is not empty and holds no agentrisk site (no manifest.json of format \
         {FORMAT}), so its files are kept; name a new or empty folder, or a site written before"
    ))
}

fn holds_a_site(out: &Path) -> bool {
    std::fs::read(out.join("manifest.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .is_some_and(|manifest| manifest.get("format").and_then(|f| f.as_str()) == Some(FORMAT))
}

/// Writes the site's files under `out`, first emptying it when it holds a
/// site written before (nothing of the old site may linger: a file it had
/// and the new one lacks would still be served).
fn write_site(out: &Path, replace: bool, files: &[(String, Vec<u8>)]) -> Result<(), String> {
    let shown = out.display();
    if replace {
        let entries = std::fs::read_dir(out).map_err(|e| format!("{shown}: cannot list folder: {e}"))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("{shown}: cannot list folder: {e}"))?;
            let path = entry.path();
            // file_type does not follow links: a link is removed, never what it points to.
            let removed = match entry.file_type() {
                Ok(kind) if kind.is_dir() => std::fs::remove_dir_all(&path),
                _ => std::fs::remove_file(&path),
            };
            removed.map_err(|e| format!("{}: cannot remove the old site's file: {e}", path.display()))?;
        }
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{shown}: cannot create the folder: {e}"))?;
    for (relative, bytes) in files {
        let path = site_path(out, relative)?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("{}: cannot create the folder: {e}", parent.display()))?;
        }
        std::fs::write(&path, bytes).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    Ok(())
}

/// `out` joined with a site file's relative `/`-separated path, which may
/// only name places inside `out`.
fn site_path(out: &Path, relative: &str) -> Result<PathBuf, String> {
    let mut path = out.to_path_buf();
    for part in relative.split('/') {
        if part.is_empty() || part == "." || part == ".." || part.contains('\\') {
            return Err(format!("{relative:?}: a site file's path must stay inside the site's folder"));
        }
        path.push(part);
    }
    Ok(path)
}

/// "10 runs from 10 files", and how many could not be published.
fn counts(publication: &Publication) -> String {
    let files = &publication.manifest.files;
    let runs: usize = files.iter().map(|f| f.numbers.runs.len()).sum();
    let published = files.iter().filter(|f| f.data.is_some()).count();
    let skipped = files.len() - published;
    let review = publication.manifest.review.as_ref().map_or_else(String::new, |r| {
        format!(
            ", with the review {} ({} decisions, {} sign-offs; reviewed numbers as of {})",
            r.files.join(", "),
            r.decisions,
            r.sign_offs,
            r.date
        )
    });
    format!(
        "{runs} runs from {published} published files{review}{}",
        if skipped == 0 { String::new() } else { format!("; {skipped} not published") }
    )
}

/// What the output exposes.
fn exposure(publication: &Publication) -> &'static str {
    if publication.manifest.include_traces {
        "agentrisk: it contains the raw traces (--include-traces), with every secret in them: share it as you would the traces"
    } else {
        "agentrisk: it contains reports only (redacted values) and each source's SHA-256, no raw trace"
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("agentrisk: {message}");
    ExitCode::from(2)
}

fn finish(failed: bool) -> ExitCode {
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
