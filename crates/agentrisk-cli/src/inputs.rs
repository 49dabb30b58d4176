//! The files that inputs name: files as given, folders searched for
//! `.json` and `.jsonl` files. Shared by `batch`, `site` and `pack`, so
//! every command that takes `FILE_OR_DIR...` finds the same files.

use std::path::{Path, PathBuf};

/// A file found from the inputs.
pub struct Found {
    pub path: PathBuf,
    /// The folder its run counts under (`agentrisk::batch::folder_of` of its
    /// path from the input named: `runs/week1` for `runs/week1/a.json` found
    /// in the named folder `runs`; `runs` for `runs/a.json`; empty for a
    /// file named directly).
    pub folder: String,
}

/// The files named, with folders walked for `.json` and `.jsonl` files
/// (sorted, so the order is the same on every machine), and the folders
/// that could not be listed.
pub fn expand(inputs: &[String]) -> (Vec<Found>, Vec<String>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for input in inputs {
        let path = PathBuf::from(input);
        if path.is_dir() {
            walk(&path, &folder_name(&path), &mut files, &mut errors);
        } else {
            files.push(Found { path, folder: String::new() });
        }
    }
    (files, errors)
}

/// The name a named folder goes by: its last component as given (`runs`
/// for `../data/runs/`), or the name it resolves to for `.` and `..`.
pub fn folder_name(dir: &Path) -> String {
    let last = match dir.components().next_back() {
        Some(std::path::Component::Normal(name)) => Some(name.to_os_string()),
        _ => dir.canonicalize().ok().and_then(|full| full.file_name().map(|n| n.to_os_string())),
    };
    last.map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn join(folder: &str, name: &str) -> String {
    if folder.is_empty() {
        name.to_owned()
    } else {
        format!("{folder}/{name}")
    }
}

fn walk(dir: &Path, folder: &str, files: &mut Vec<Found>, errors: &mut Vec<String>) {
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
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            walk(&path, &join(folder, &name), files, errors);
        } else if path.extension().is_some_and(|ext| ext == "json" || ext == "jsonl") {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            files.push(Found { folder: agentrisk::batch::folder_of(&join(folder, &name)).to_owned(), path });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_start_at_the_named_folder() {
        let root = std::env::temp_dir().join(format!("agentrisk-inputs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("team/a/b")).unwrap();
        for (path, text) in
            [("team/top.json", "{}"), ("team/a/b/deep.jsonl", ""), ("team/a/notes.txt", ""), ("single.json", "{}")]
        {
            std::fs::write(root.join(path), text).unwrap();
        }
        let inputs = [root.join("team"), root.join("single.json")].map(|p| p.to_string_lossy().into_owned()).to_vec();
        let (found, errors) = expand(&inputs);
        assert!(errors.is_empty(), "{errors:?}");
        let got: Vec<(String, String)> = found
            .iter()
            .map(|f| (f.path.strip_prefix(&root).unwrap().to_string_lossy().into_owned(), f.folder.clone()))
            .collect();
        assert_eq!(
            got,
            [("team/a/b/deep.jsonl", "team/a/b"), ("team/top.json", "team"), ("single.json", "")]
                .map(|(p, f)| (p.to_owned(), f.to_owned()))
        );
        // `.` goes by the name it resolves to, as a dropped folder would.
        assert_eq!(folder_name(&root.join("team/a/..")), "team");
        assert_eq!(folder_name(Path::new("runs/")), "runs");
        std::fs::remove_dir_all(&root).ok();
    }
}
