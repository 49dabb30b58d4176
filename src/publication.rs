//! Opening a publication: a report site (its `index.html` names its
//! `manifest.json`, see `agentrisk site`) or a review pack (its boot script
//! has decoded the data into `window.agentriskPack`, see `agentrisk pack`).
//! Also gathers the viewer's own code for "Save as one file".
//!
//! Checking the files against the manifest happens in the worker
//! ([`crate::protocol::ToWorker::Publication`]); this module only finds the
//! manifest and the files' sources.

use crate::bridge::Source;
use crate::protocol::PackRequest;
use agentrisk::publish::{Manifest, DIST_MARKER};
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Request, RequestCache, RequestInit, Response};

/// A publication found on opening the page.
pub struct Found {
    /// The manifest's JSON text (for the worker) and what it says.
    pub text: String,
    pub manifest: Manifest,
    /// True for a single-file pack, false for a site.
    pub pack: bool,
    /// Each manifest file's source, in manifest order (`None`: the file was
    /// not published; `Err`: its data cannot be had, with why).
    pub files: Vec<Option<Result<Source, String>>>,
}

/// The page's `window.agentriskPack`, set by a pack's boot script.
fn pack() -> Option<JsValue> {
    let pack = Reflect::get(&js_sys::global(), &"agentriskPack".into()).ok()?;
    (!pack.is_undefined() && !pack.is_null()).then_some(pack)
}

/// True when this page is a single-file review pack (it can fetch nothing).
pub fn in_pack() -> bool {
    pack().is_some()
}

/// True when this page is a report site or a review pack (neither carries
/// the examples).
pub fn is_publication() -> bool {
    in_pack() || site_manifest_path().is_some()
}

fn field(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

/// The meta name a site's `index.html` carries (see [`DIST_MARKER`]).
fn site_manifest_path() -> Option<String> {
    let name = DIST_MARKER.split('"').nth(1)?;
    let document = web_sys::window()?.document()?;
    document.query_selector(&format!("meta[name={name}]")).ok()??.get_attribute("content")
}

/// The publication this page was opened as: `None` for the plain viewer,
/// `Some(Err(why))` when the manifest cannot be had or read.
pub async fn find() -> Option<Result<Found, String>> {
    if let Some(pack) = pack() {
        let text = field(&pack, "manifest").as_string().unwrap_or_default();
        return Some(Manifest::from_json(text.as_bytes()).map(|manifest| {
            let decoded = js_sys::Array::from(&field(&pack, "files"));
            let files = manifest
                .files
                .iter()
                .enumerate()
                .map(|(i, entry)| {
                    entry.data.as_ref()?;
                    let file = decoded.get(i as u32);
                    Some(match field(&file, "bytes").dyn_into::<Uint8Array>() {
                        Ok(bytes) => blob_of(&bytes).map(Source::Blob),
                        Err(_) => Err(field(&file, "error")
                            .as_string()
                            .unwrap_or_else(|| "its data is missing from the pack".to_owned())),
                    })
                })
                .collect();
            Found { text, manifest, pack: true, files }
        }));
    }
    let path = site_manifest_path()?;
    Some(site(&path).await)
}

async fn site(path: &str) -> Result<Found, String> {
    let base = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    let url = web_sys::Url::new_with_base(path, &base).map_err(|_| format!("cannot place {path}"))?;
    let text = fetch_text(&url.href()).await?;
    let manifest = Manifest::from_json(text.as_bytes())?;
    let files = manifest
        .files
        .iter()
        .map(|entry| {
            let data = entry.data.as_ref()?;
            // The query names the content: a cached copy of an older
            // publication's file is never used for this one.
            Some(
                web_sys::Url::new_with_base(&format!("{}?sha256={}", data.path, &data.sha256), &url.href())
                    .map(|u| Source::Url(u.href()))
                    .map_err(|_| format!("cannot place {}", data.path)),
            )
        })
        .collect();
    Ok(Found { text, manifest, pack: false, files })
}

/// A same-site file's text, revalidated with the server (never a stale copy).
async fn fetch_text(url: &str) -> Result<String, String> {
    let bytes = fetch_bytes(url, RequestCache::NoCache).await?;
    String::from_utf8(bytes).map_err(|_| format!("{url} is not UTF-8 text"))
}

/// A same-site file's bytes, with the cache mode `cache`.
async fn fetch_bytes(url: &str, cache: RequestCache) -> Result<Vec<u8>, String> {
    let init = RequestInit::new();
    init.set_cache(cache);
    let request = Request::new_with_str_and_init(url, &init).map_err(|_| format!("cannot fetch {url}"))?;
    let window = web_sys::window().ok_or("no window")?;
    let response: Response = JsFuture::from(window.fetch_with_request(&request))
        .await
        .map_err(|e| format!("cannot fetch {url}: {}", crate::js_text(&e)))?
        .dyn_into()
        .map_err(|_| format!("cannot fetch {url}"))?;
    if !response.ok() {
        return Err(format!("cannot fetch {url}: HTTP {}", response.status()));
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(|_| format!("cannot read {url}"))?)
        .await
        .map_err(|_| format!("cannot read {url}"))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

fn blob_of(bytes: &Uint8Array) -> Result<web_sys::Blob, String> {
    web_sys::Blob::new_with_u8_array_sequence(&js_sys::Array::of1(bytes)).map_err(|_| "cannot hold its data".to_owned())
}

/// The viewer's own code for a new pack: from this pack, or fetched from
/// this site (the stylesheet, glue, icon and wasm its `index.html` links).
/// Returns the request's asset fields (title and settings left for the
/// caller) and the wasm bytes (empty when the pack's own are reused).
pub async fn viewer_assets() -> Result<(PackRequest, Vec<u8>), String> {
    let mut request = PackRequest {
        title: String::new(),
        include_traces: false,
        settings: None,
        css: String::new(),
        glue: String::new(),
        favicon: String::new(),
        wasm_deflated: None,
    };
    if let Some(pack) = pack() {
        let assets = field(&pack, "assets");
        let text = |key: &str| field(&assets, key).as_string().unwrap_or_default();
        request.css = text("css");
        request.glue = text("glue");
        request.favicon = text("favicon");
        let length = field(&assets, "wasmLength").as_f64().unwrap_or(0.0) as usize;
        request.wasm_deflated = Some((length, text("wasmText")));
        return Ok((request, Vec::new()));
    }
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let href = |selector: &str| -> Result<String, String> {
        let link = document.query_selector(selector).ok().flatten().and_then(|e| e.get_attribute("href"));
        link.ok_or_else(|| format!("this page links no {selector}"))
    };
    // The build's own files, named by their hashes: any cached copy is right.
    request.css = fetch_text(&href("link[rel=stylesheet]")?).await?;
    request.glue = fetch_text(&href("link[rel=modulepreload]")?).await?;
    request.favicon = fetch_text(&href("link[rel=icon]")?).await?;
    let wasm = fetch_bytes(&href("link[rel=preload][as=fetch]")?, RequestCache::Default).await?;
    Ok((request, wasm))
}
