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

/// `--shard I/N`: the I-th of N contiguous parts of the files found
/// (counted from 0, as a Kubernetes indexed Job numbers its pods). The
/// parts in index order are the files in their order, so their scorecards,
/// read in that order, are the whole batch's runs in the whole batch's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: usize,
    count: usize,
}

impl Shard {
    /// Parses `I/N` with 0 ≤ I < N.
    pub fn from_text(text: &str) -> Result<Shard, String> {
        let usage = || format!("{text:?}: needs I/N, the part I of N counted from 0, e.g. 0/4 … 3/4");
        let (index, count) = text.split_once('/').ok_or_else(usage)?;
        let (index, count) = match (index.trim().parse::<usize>(), count.trim().parse::<usize>()) {
            (Ok(index), Ok(count)) => (index, count),
            _ => return Err(usage()),
        };
        if index >= count {
            return Err(format!("{text:?}: the part I must be below the count N (0 … {})", count.saturating_sub(1)));
        }
        Ok(Shard { index, count })
    }

    /// This part of `files`: of F files, part I holds ⌊F·I/N⌋ to
    /// ⌊F·(I+1)/N⌋ − 1, so each file is in one part and sizes differ by one
    /// file at most.
    pub fn of<'a, T>(&self, files: &'a [T]) -> &'a [T] {
        // In u128: the product of a file count and a part count cannot overflow.
        let at = |part: usize| (files.len() as u128 * part as u128 / self.count as u128) as usize;
        files.get(at(self.index)..at(self.index + 1)).unwrap_or_default()
    }
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
    fn shards_are_contiguous_parts_that_make_up_the_whole() {
        let files: Vec<u32> = (0..10).collect();
        for count in [1, 3, 4, 10, 12] {
            let parts: Vec<&[u32]> =
                (0..count).map(|i| Shard::from_text(&format!("{i}/{count}")).unwrap().of(&files)).collect();
            assert_eq!(parts.concat(), files, "{count} parts");
            let sizes: Vec<usize> = parts.iter().map(|p| p.len()).collect();
            let (smallest, largest) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(largest - smallest <= 1, "{count} parts: {sizes:?}");
        }
        assert_eq!(Shard::from_text("1/3").unwrap().of(&files), &[3, 4, 5]);
        assert_eq!(Shard::from_text("2/3").unwrap().of(&files), &[6, 7, 8, 9]);
        for bad in ["3/3", "0/0", "1", "a/2", "-1/2", "1/2/3"] {
            assert!(Shard::from_text(bad).is_err(), "{bad}");
        }
        assert!(Shard::from_text("4/4").unwrap_err().contains("below the count N (0 … 3)"));
    }

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
