//! The core's top-level modules import each other without cycles: the
//! graph of `crate::<module>` paths between them (outside test code) is
//! acyclic, and the shared leaf `util` imports nothing from the crate.
//!
//! Run with `--nocapture` to print the graph.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Module → (imported module → files that import it).
type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level modules: `src/<name>.rs` and `src/<name>/`.
fn top_level_modules(src: &Path) -> BTreeSet<String> {
    let mut modules = BTreeSet::new();
    for entry in fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() || (path.extension().is_some_and(|e| e == "rs") && name != "lib" && name != "main") {
            modules.insert(name);
        }
    }
    modules
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The file's code outside tests and comments: a `#[cfg(test)]` followed
/// by a `mod` ends it (the test module closes every file that has one), and
/// whole-line comments are dropped (doc links name other modules freely).
fn non_test_code(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut code = String::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            let next = lines[i + 1..].iter().map(|l| l.trim_start()).find(|l| !l.is_empty()).unwrap_or("");
            if next.starts_with("mod ") || next.starts_with("pub mod ") || next.starts_with("pub(crate) mod ") {
                break;
            }
        }
        if !trimmed.starts_with("//") {
            code.push_str(line);
            code.push('\n');
        }
    }
    code
}

/// The first path segment after each `crate::` in `code`, including each
/// item of a `crate::{a::x, b}` group.
fn crate_paths(code: &str) -> Vec<String> {
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        // `$crate::` in macros and `agentrisk_crate::`-like names are not paths into this crate.
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 1 => break,
                    '}' => depth -= 1,
                    ',' if depth == 1 => item_start = true,
                    c if c.is_whitespace() => {}
                    _ if item_start && depth == 1 => {
                        found.push(ident(&group[i..]));
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.push(ident(rest));
        }
    }
    found
}

fn module_graph() -> Graph {
    let src = src_dir();
    let modules = top_level_modules(&src);
    let mut graph: Graph = modules.iter().map(|m| (m.clone(), BTreeMap::new())).collect();
    for module in &modules {
        let mut files = Vec::new();
        let dir = src.join(module);
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        } else {
            files.push(src.join(format!("{module}.rs")));
        }
        for file in files {
            // `tests.rs` files are `#[cfg(test)] mod tests;` of their parent.
            if file.file_name().is_some_and(|n| n == "tests.rs") {
                continue;
            }
            let code = non_test_code(&fs::read_to_string(&file).unwrap());
            let shown = file.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
            for target in crate_paths(&code) {
                if &target != module && modules.contains(&target) {
                    graph.get_mut(module).unwrap().entry(target).or_default().insert(shown.clone());
                }
            }
        }
    }
    graph
}

/// A cycle of modules, if the graph has one (depth-first search).
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(node: &str, graph: &Graph, marks: &mut BTreeMap<String, Mark>, path: &mut Vec<String>) -> bool {
        marks.insert(node.to_owned(), Mark::Open);
        path.push(node.to_owned());
        for next in graph[node].keys() {
            let mark = marks[next];
            match mark {
                Mark::Open => {
                    let start = path.iter().position(|m| m == next).unwrap();
                    path.drain(..start);
                    path.push(next.clone());
                    return true;
                }
                Mark::New if visit(next, graph, marks, path) => return true,
                _ => {}
            }
        }
        path.pop();
        marks.insert(node.to_owned(), Mark::Done);
        false
    }
    let mut marks: BTreeMap<String, Mark> = graph.keys().map(|k| (k.clone(), Mark::New)).collect();
    for node in graph.keys() {
        let mut path = Vec::new();
        if marks[node] == Mark::New && visit(node, graph, &mut marks, &mut path) {
            return Some(path);
        }
    }
    None
}

#[test]
fn top_level_modules_import_each_other_without_cycles() {
    let graph = module_graph();
    for (module, targets) in &graph {
        eprintln!("{module} -> {}", targets.keys().cloned().collect::<Vec<_>>().join(", "));
    }
    // The parser sees the imports it should (so an empty graph cannot pass).
    assert!(graph.len() >= 12, "top-level modules found: {:?}", graph.keys());
    for (from, to) in [("pipeline", "analyze"), ("analyze", "detect"), ("report", "tables"), ("detect", "tables")] {
        assert!(graph[from].contains_key(to), "{from} -> {to} not found: {:?}", graph[from]);
    }
    if let Some(cycle) = find_cycle(&graph) {
        let edges: Vec<String> =
            cycle.windows(2).map(|w| format!("{} -> {} (in {:?})", w[0], w[1], graph[&w[0]][&w[1]])).collect();
        panic!("import cycle between the core's top-level modules:\n  {}", edges.join("\n  "));
    }
    assert!(graph["util"].is_empty(), "util must stay a leaf, but imports {:?}", graph["util"]);
}

#[test]
fn the_checker_finds_cycles_and_grouped_imports() {
    assert_eq!(crate_paths("use crate::{a::x, b, c::{d, e}};\nuse crate::f::g;"), ["a", "b", "c", "f"]);
    assert_eq!(crate_paths("$crate::m::x; let y = crate::n::z;"), ["n"]);
    assert_eq!(
        non_test_code("use crate::a;\n// crate::b\n#[cfg(test)]\nmod tests {\n use crate::c;\n}\n"),
        "use crate::a;\n"
    );
    let edge = |to: &str| BTreeMap::from([(to.to_owned(), BTreeSet::new())]);
    let cyclic: Graph =
        BTreeMap::from([("a".to_owned(), edge("b")), ("b".to_owned(), edge("c")), ("c".to_owned(), edge("a"))]);
    assert_eq!(find_cycle(&cyclic), Some(vec!["a".to_owned(), "b".to_owned(), "c".to_owned(), "a".to_owned()]));
    let acyclic: Graph = BTreeMap::from([("a".to_owned(), edge("b")), ("b".to_owned(), BTreeMap::new())]);
    assert_eq!(find_cycle(&acyclic), None);
}
