//! With the `viewer` feature, puts the built viewer (Trunk's `dist/`) into
//! the binary, so `agentrisk site` and `agentrisk pack` need no other file:
//! writes `$OUT_DIR/viewer_files.rs` with `VIEWER_FILES`, every file of the
//! folder as (relative `/`-separated path, bytes), sorted by path. Without
//! the feature the list is empty and the build needs no `dist/`.
//!
//! The folder is `$AGENTRISK_VIEWER_DIST`, or else the workspace's `dist/`.

use std::path::{Path, PathBuf};

fn main() {
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    let out = out_dir.join("viewer_files.rs");
    let source = if std::env::var_os("CARGO_FEATURE_VIEWER").is_some() {
        match viewer_files_source() {
            Ok(source) => source,
            Err(message) => {
                eprintln!("error: {message}");
                std::process::exit(1);
            }
        }
    } else {
        println!("cargo:rerun-if-changed=build.rs");
        "pub static VIEWER_FILES: &[(&str, &[u8])] = &[];\n".to_owned()
    };
    if let Err(e) = std::fs::write(&out, source) {
        eprintln!("error: {}: cannot write: {e}", out.display());
        std::process::exit(1);
    }
}

fn viewer_files_source() -> Result<String, String> {
    println!("cargo:rerun-if-env-changed=AGENTRISK_VIEWER_DIST");
    let dist = match std::env::var_os("AGENTRISK_VIEWER_DIST") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../dist"),
    };
    let dist = dist.canonicalize().map_err(|e| {
        format!(
            "the `viewer` feature puts the built viewer into agentrisk, but {} cannot be opened ({e}); \
             run trunk build --release first (or set AGENTRISK_VIEWER_DIST to a built viewer's folder)",
            dist.display()
        )
    })?;
    if !dist.join("index.html").is_file() {
        return Err(format!(
            "the `viewer` feature puts the built viewer into agentrisk, but {} has no index.html; \
             run trunk build --release first (or set AGENTRISK_VIEWER_DIST to a built viewer's folder)",
            dist.display()
        ));
    }
    println!("cargo:rerun-if-changed={}", dist.display());
    let mut files = Vec::new();
    collect(&dist, "", &mut files)?;
    files.sort();
    let mut source = String::from("pub static VIEWER_FILES: &[(&str, &[u8])] = &[\n");
    for (relative, absolute) in &files {
        println!("cargo:rerun-if-changed={}", absolute.display());
        let absolute = absolute.to_str().ok_or_else(|| format!("{}: path is not UTF-8", absolute.display()))?;
        // `{:?}` writes a Rust string literal, escapes included.
        source.push_str(&format!("    ({relative:?}, include_bytes!({absolute:?})),\n"));
    }
    source.push_str("];\n");
    Ok(source)
}

/// Every file under `dir` as (path relative to the top, `/`-separated; absolute path).
fn collect(dir: &Path, prefix: &str, files: &mut Vec<(String, PathBuf)>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: cannot list folder: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: cannot list folder: {e}", dir.display()))?;
        let path = entry.path();
        let name = entry
            .file_name()
            .to_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{}: a file name that is not UTF-8 cannot be served by name", path.display()))?;
        let relative = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
        if path.is_dir() {
            collect(&path, &relative, files)?;
        } else {
            files.push((relative, path));
        }
    }
    Ok(())
}
