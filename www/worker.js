// AgentRisk Viewer's analysis worker. The page sends its own compiled
// module and the URL of its wasm-bindgen glue; the same binary then runs
// its worker half (it sees no window). Nothing is fetched but the glue,
// which the browser already holds.
self.onmessage = async (event) => {
  self.onmessage = null;
  const { glue, module } = event.data;
  const { default: init } = await import(glue);
  await init({ module_or_path: module });
};
