// Hash routes (#/table/12): the server serves one entry page, the client
// picks the page. A page is render(root, params) -> optional cleanup.

const routes = [];
let cleanup = null;

export function route(pattern, page) {
  routes.push([pattern, page]);
}

export function go(hash) {
  if (location.hash === hash) show();
  else location.hash = hash;
}

export function start() {
  window.addEventListener("hashchange", show);
  show();
}

async function show() {
  if (typeof cleanup === "function") cleanup();
  cleanup = null;
  const hash = location.hash || "#/";
  // Each render fills a container of its own: a page still loading when
  // the next navigation comes finishes in a detached container, and is then
  // cleaned up, instead of drawing over the newer page (or keeping a
  // second table socket open).
  const view = document.createElement("div");
  document.getElementById("page").replaceChildren(view);
  for (const [pattern, page] of routes) {
    const found = hash.match(pattern);
    if (found) {
      window.scrollTo(0, 0);
      const done = await page(view, ...found.slice(1));
      if (view.isConnected) cleanup = done;
      else if (typeof done === "function") done();
      return;
    }
  }
  go("#/");
}
