// A review pack's start. The wasm and the data files sit in this HTML file
// as base85 text of raw deflate; this decodes them, starts the viewer with
// them, and lets the viewer start its worker from this same script (the
// wasm-bindgen glue above and this part), which then takes the page's
// compiled module. No request of any kind is made.
//
// A page opened from disk has an opaque origin, where Chromium starts no
// module worker from a blob: the worker gets this script as a classic
// script (without its `export` and `import.meta`), so no top-level await.
const BASE85 = "!#$%()*+,-.0123456789:;?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_abcdefghijklmnopqrstuvwxyz{|}~";
if (typeof document === "undefined") {
  self.onmessage = async (event) => {
    self.onmessage = null;
    await __wbg_init({ module_or_path: event.data.module });
  };
} else {
  (async () => {
    const digit = new Uint8Array(128).fill(255);
    for (let i = 0; i < BASE85.length; i++) digit[BASE85.charCodeAt(i)] = i;
    const decode = (element) => {
      const length = Number(element.dataset.length);
      const text = element.textContent.replace(/\s+/g, "");
      const room = (text.length / 5) * 4;
      if (!Number.isSafeInteger(length) || text.length % 5 !== 0 || room < length || room >= length + 4) {
        throw new Error(`${text.length} base85 characters cannot hold ${element.dataset.length} bytes`);
      }
      const out = new Uint8Array(room);
      for (let g = 0; g < text.length; g += 5) {
        let n = 0;
        for (let i = 0; i < 5; i++) {
          const v = digit[text.charCodeAt(g + i)] ?? 255;
          if (v === 255) throw new Error(`character ${g + i} is not base85`);
          n = n * 85 + v;
        }
        if (n > 0xffffffff) throw new Error(`characters ${g}..${g + 5} exceed 32 bits`);
        new DataView(out.buffer).setUint32((g / 5) * 4, n);
      }
      return out.subarray(0, length);
    };
    const inflate = async (bytes) => {
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
      try {
        return new Uint8Array(await new Response(stream).arrayBuffer());
      } catch {
        // The stream's own error says only that reading failed.
        throw new Error("its compressed data are damaged");
      }
    };
    const boot = document.getElementById("agentrisk-boot").textContent;
    const wasm = document.getElementById("agentrisk-wasm");
    const files = [];
    for (const element of document.querySelectorAll("script[data-agentrisk-file]")) {
      const index = Number(element.dataset.agentriskFile);
      try {
        files[index] = { bytes: await inflate(decode(element)) };
      } catch (e) {
        files[index] = { error: `its data in this file cannot be decoded: ${e.message ?? e}` };
      }
    }
    const marker = "\n//# agentrisk pack boot\n";
    window.agentriskPack = {
      manifest: document.getElementById("agentrisk-manifest").textContent,
      files,
      // What "Save as one file" needs to write this viewer into a new pack.
      assets: {
        css: document.getElementById("agentrisk-style").textContent,
        glue: boot.slice(0, boot.indexOf(marker)),
        favicon: document.querySelector("link[rel=icon]").href,
        wasmLength: Number(wasm.dataset.length),
        wasmText: wasm.textContent,
      },
    };
    const classic = boot
      .replace(/\bimport\.meta\.url\b/g, "self.location.href")
      .replace(/^export \{[^}]*\};?$/gm, "")
      .replace(/^export (?=function|class|const|let|async)/gm, "");
    window.agentriskPackWorker = () => new Worker(URL.createObjectURL(new Blob([classic], { type: "text/javascript" })));
    await __wbg_init({ module_or_path: await inflate(decode(wasm)) });
  })();
}
