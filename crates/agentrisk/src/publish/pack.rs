//! Writing a publication out: as a site (the viewer's built files, a
//! manifest and data files) or as one self-contained HTML file.

use super::encode::{base64, base85_encode, deflate, sha256, sha256_hex};
use super::Publication;

/// What a site's `index.html` carries so the viewer opens the site's own
/// `manifest.json` at once.
pub const DIST_MARKER: &str = r#"<meta name="agentrisk-publication" content="manifest.json" />"#;

/// Separates the wasm-bindgen glue from the pack's boot code in a pack's
/// one script (the viewer splits there to save a new pack).
pub const PACK_BOOT_MARKER: &str = "\n//# agentrisk pack boot\n";

const PACK_BOOT: &str = include_str!("pack_boot.js");

/// The viewer's code as a pack carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewerAssets {
    /// The stylesheet's text.
    pub css: String,
    /// The wasm-bindgen glue (an ES module; its init is `__wbg_init`).
    pub glue: String,
    /// The icon, as a `data:` URL.
    pub favicon: String,
    /// The wasm's raw deflate: its length in bytes, and as base85 text.
    pub wasm_length: usize,
    pub wasm_text: String,
}

impl ViewerAssets {
    /// From the viewer's files as they are.
    pub fn from_files(css: String, glue: String, favicon_svg: &[u8], wasm: &[u8]) -> ViewerAssets {
        let wasm = blob(wasm);
        ViewerAssets {
            css,
            glue,
            favicon: format!("data:image/svg+xml;base64,{}", base64(favicon_svg)),
            wasm_length: wasm.0,
            wasm_text: wasm.1,
        }
    }

    /// From a built viewer's files (`dist/`: relative path → bytes).
    pub fn from_dist(dist: &[(String, Vec<u8>)]) -> Result<ViewerAssets, String> {
        let find = |prefix: &str, suffix: &str| {
            let mut found = dist
                .iter()
                .filter(|(path, _)| !path.contains('/') && path.starts_with(prefix) && path.ends_with(suffix));
            match (found.next(), found.next()) {
                (Some((_, bytes)), None) => Ok(bytes.as_slice()),
                (None, _) => Err(format!("the built viewer has no {prefix}*{suffix}")),
                (Some(_), Some(_)) => Err(format!("the built viewer has more than one {prefix}*{suffix}")),
            }
        };
        let text = |bytes: &[u8], what: &str| {
            String::from_utf8(bytes.to_vec()).map_err(|_| format!("the built viewer's {what} is not UTF-8"))
        };
        Ok(ViewerAssets::from_files(
            text(find("style-", ".css")?, "stylesheet")?,
            text(find("viewer-", ".js")?, "glue")?,
            find("favicon-", ".svg")?,
            find("viewer-", "_bg.wasm")?,
        ))
    }
}

/// The files of a report site: the viewer's but its examples (with [`DIST_MARKER`] in
/// `index.html`, and the service worker's cache named after this build
/// and this manifest, so a re-published site is never served stale), the
/// manifest and the data files. Paths are relative, `/`-separated.
pub fn site_files(dist: &[(String, Vec<u8>)], publication: &Publication) -> Result<Vec<(String, Vec<u8>)>, String> {
    let manifest = publication.manifest_json().into_bytes();
    let mut files = Vec::with_capacity(dist.len() + publication.data.len() + 1);
    let mut saw = (false, false);
    for (path, bytes) in dist {
        let bytes = match path.as_str() {
            "index.html" => {
                saw.0 = true;
                let html = String::from_utf8_lossy(bytes);
                let at = html.find("<head>").ok_or("the built viewer's index.html has no <head>")? + "<head>".len();
                format!("{}\n    {DIST_MARKER}{}", &html[..at], &html[at..]).into_bytes()
            }
            "sw.js" => {
                saw.1 = true;
                let script = String::from_utf8_lossy(bytes);
                let key = "const BUILD = \"";
                let at = script.find(key).ok_or("the built viewer's sw.js names no BUILD")? + key.len();
                let digest = sha256_hex(&manifest);
                format!("{}{}-{}", &script[..at], &digest[..16], &script[at..]).into_bytes()
            }
            "manifest.json" => continue,
            // The example traces hold (made-up) secrets in clear, and a
            // site is for its own runs.
            _ if path.starts_with("data/") || path.starts_with("samples/") => continue,
            _ => bytes.clone(),
        };
        files.push((path.clone(), bytes));
    }
    if saw != (true, true) {
        return Err("the built viewer lacks index.html or sw.js".to_owned());
    }
    files.push(("manifest.json".to_owned(), manifest));
    for (entry, data) in publication.manifest.files.iter().zip(&publication.data) {
        if let (Some(file), Some(bytes)) = (&entry.data, data) {
            files.push((file.path.clone(), bytes.clone()));
        }
    }
    Ok(files)
}

/// A review pack: one HTML file with the viewer, the manifest and the data,
/// that opens from disk and makes no request (`connect-src 'none'`).
pub fn pack_html(assets: &ViewerAssets, publication: &Publication) -> Result<String, String> {
    if assets.glue.contains("</script") || assets.css.contains("</style") {
        return Err("the viewer's code cannot be put inline (it holds a closing tag)".to_owned());
    }
    let script = format!("{}{PACK_BOOT_MARKER}{PACK_BOOT}", assets.glue);
    let hash = |text: &str| base64(&sha256(text.as_bytes()));
    let csp = [
        "default-src 'none'".to_owned(),
        format!("script-src 'sha256-{}' 'wasm-unsafe-eval'", hash(&script)),
        format!("style-src 'sha256-{}'", hash(&assets.css)),
        "img-src data:".to_owned(),
        "connect-src 'none'".to_owned(),
        "worker-src blob:".to_owned(),
        "base-uri 'none'".to_owned(),
        "form-action 'none'".to_owned(),
        "object-src 'none'".to_owned(),
    ]
    .join("; ");
    // `<` only occurs in JSON strings, where `\u003c` reads the same.
    let manifest = publication.manifest_json().replace('<', "\\u003c");
    let mut html = String::with_capacity(assets.wasm_text.len() + assets.glue.len() + manifest.len() + 4096);
    html.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    html.push_str("<meta name=\"color-scheme\" content=\"light dark\">\n");
    html.push_str(&format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n"));
    html.push_str("<meta name=\"referrer\" content=\"no-referrer\">\n");
    html.push_str(&format!("<title>{}</title>\n", escape_html(&publication.manifest.title)));
    html.push_str(&format!("<link rel=\"icon\" href=\"{}\">\n", escape_html(&assets.favicon)));
    html.push_str(&format!("<style id=\"agentrisk-style\">{}</style>\n", assets.css));
    html.push_str(&format!("<script type=\"application/json\" id=\"agentrisk-manifest\">{manifest}</script>\n"));
    html.push_str(&format!(
        "<script type=\"application/x-agentrisk-blob\" id=\"agentrisk-wasm\" data-length=\"{}\">{}</script>\n",
        assets.wasm_length, assets.wasm_text
    ));
    for (i, data) in publication.data.iter().enumerate() {
        if let Some(bytes) = data {
            let (length, text) = blob(bytes);
            html.push_str(&format!(
                "<script type=\"application/x-agentrisk-blob\" data-agentrisk-file=\"{i}\" data-length=\"{length}\">{text}</script>\n"
            ));
        }
    }
    html.push_str(&format!("<script type=\"module\" id=\"agentrisk-boot\">{script}</script>\n"));
    html.push_str("</head>\n<body>\n<noscript>This review pack needs JavaScript and WebAssembly; it runs entirely in this tab.</noscript>\n</body>\n</html>\n");
    Ok(html)
}

/// `bytes` as a pack carries them: the length of their raw deflate, and
/// that deflate as base85 text.
fn blob(bytes: &[u8]) -> (usize, String) {
    let deflated = deflate(bytes);
    (deflated.len(), base85_encode(&deflated))
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
