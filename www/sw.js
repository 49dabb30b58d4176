// AgentRisk Viewer's service worker: keeps this build's own files so the
// site opens offline after the first visit. It caches only files of this
// site (same origin, under its own folder), never anything loaded by a user
// (dropped files never go through fetch) and nothing from elsewhere.
// BUILD and FILES are filled in by scripts/csp.mjs when Trunk builds.
const BUILD = "BUILD_VERSION";
const FILES = [/* BUILD_FILES */];
const CACHE = `agentrisk-viewer-${BUILD}`;
const SCOPE = new URL("./", self.location).href;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(["./", ...FILES])).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  // Older builds' caches go; this build takes over open pages.
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith("agentrisk-viewer-") && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(SCOPE)) return;
  const url = new URL(request.url);
  url.hash = "";
  const key = request.mode === "navigate" ? SCOPE : url.href;
  event.respondWith(
    caches.open(CACHE).then(async (cache) => {
      const cached = await cache.match(key, { ignoreSearch: request.mode === "navigate" });
      if (cached) return cached;
      // Not part of the build (e.g. a report next to the site, opened by a
      // #src= link): straight from the network, not kept.
      return fetch(request);
    }),
  );
});
