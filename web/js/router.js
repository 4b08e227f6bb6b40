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
  const root = document.getElementById("page");
  for (const [pattern, page] of routes) {
    const found = hash.match(pattern);
    if (found) {
      window.scrollTo(0, 0);
      cleanup = await page(root, ...found.slice(1));
      return;
    }
  }
  go("#/");
}
