#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use agentrisk::publish::*;
fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() { walk(root, &p, out) } else { out.push((p.strip_prefix(root).unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap())) }
    }
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (dist, out, inputs) = (&args[1], &args[2], &args[3..]);
    let mut dist_files = Vec::new();
    walk(std::path::Path::new(dist), std::path::Path::new(dist), &mut dist_files);
    let files: Vec<(String, Vec<u8>)> = inputs.iter().map(|p| (std::path::Path::new(p).file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(p).unwrap())).collect();
    let sources: Vec<Source> = files.iter().map(|(n, b)| Source { name: n, folder: "", bytes: b }).collect();
    let publication = publish(&sources, &PublishOptions { title: "Scratch".into(), generated_at: "2026-12-06T10:00:00".into(), tool_version: "0.1.0".into(), config: None, include_traces: false }).unwrap();
    for (p, b) in site_files(&dist_files, &publication).unwrap() {
        let path = std::path::Path::new(out).join("site").join(&p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b).unwrap();
    }
    let html = pack_html(&ViewerAssets::from_dist(&dist_files).unwrap(), &publication).unwrap();
    std::fs::write(std::path::Path::new(out).join("pack.html"), html).unwrap();
}
