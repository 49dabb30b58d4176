//! The viewer's one wasm binary: the page when loaded in a window, the
//! analysis worker when loaded in a dedicated worker (`www/worker.js`
//! starts it there with the page's own compiled module, so the browser
//! downloads and compiles the code once).

use wasm_bindgen::JsCast;

fn main() {
    if js_sys::global().dyn_into::<web_sys::Window>().is_ok() {
        agentrisk_viewer::start_app();
    } else {
        agentrisk_viewer::worker::start();
    }
}
