// annals web UI: progressive enhancement over server-rendered pages. No inline script runs
// (the Content-Security-Policy forbids it); every fragment inserted here was rendered and
// escaped by the server.
"use strict";

(function () {
  const csrfCookie = "annals_csrf";

  function csrf() {
    for (const part of document.cookie.split(";")) {
      const [k, v] = part.trim().split("=");
      if (k === csrfCookie) return decodeURIComponent(v || "");
    }
    return "";
  }

  // post sends a state-changing request with the page's CSRF token.
  async function post(url, body) {
    const res = await fetch(url, {
      method: "POST",
      headers: { "X-CSRF-Token": csrf(), "Content-Type": "application/x-www-form-urlencoded", "X-Fragment": "1" },
      body: new URLSearchParams(body || {}),
      credentials: "same-origin",
    });
    return res;
  }
  window.annalsPost = post;

  // fragment fetches server-rendered HTML and returns it as a DocumentFragment.
  async function fragment(url, signal) {
    const res = await fetch(url, { headers: { "X-Fragment": "1" }, credentials: "same-origin", signal });
    if (res.status === 204) return document.createDocumentFragment();
    if (!res.ok) throw new Error(await res.text());
    const t = document.createElement("template");
    t.innerHTML = await res.text();
    return t.content;
  }
  window.annalsFragment = fragment;

  // Paging: a "more" link loads the next (or previous) page in place when it comes into view
  // or is clicked; an earlier page keeps the reader where they were.
  const loading = new WeakSet();
  async function loadMore(link) {
    if (loading.has(link)) return;
    loading.add(link);
    const li = link.closest("li");
    const earlier = link.dataset.more === "earlier";
    const before = document.scrollingElement.scrollHeight;
    try {
      const frag = await fragment(link.href);
      li.replaceWith(frag);
      if (earlier) window.scrollBy(0, document.scrollingElement.scrollHeight - before);
      watch();
    } catch (e) {
      link.textContent = "Could not load: " + e.message + " (click to retry)";
      loading.delete(link);
    }
  }
  const observer = "IntersectionObserver" in window ? new IntersectionObserver((items) => {
    for (const it of items) if (it.isIntersecting) loadMore(it.target);
  }, { rootMargin: "800px" }) : null;
  function watch() {
    for (const a of document.querySelectorAll("a[data-more]")) {
      if (a.dataset.watched) continue;
      a.dataset.watched = "1";
      a.addEventListener("click", (ev) => { ev.preventDefault(); loadMore(a); });
      if (observer && a.dataset.more !== "earlier") observer.observe(a);
    }
  }

  // A permalink to an entry beyond the first page opens the page around it.
  function followPermalink() {
    const m = /^#e-(\d+)$/.exec(location.hash);
    if (!m || !document.getElementById("transcript") || document.getElementById("e-" + m[1])) return;
    const params = new URLSearchParams(location.search);
    if (params.get("at") === m[1]) return;
    params.set("at", m[1]);
    location.replace(location.pathname + "?" + params.toString() + location.hash);
  }

  function toggleHelp(show) {
    const help = document.getElementById("help");
    if (!help) return;
    help.hidden = show === undefined ? !help.hidden : !show;
    if (!help.hidden) document.getElementById("help-close").focus();
  }
  window.annalsToggleHelp = toggleHelp;

  document.addEventListener("DOMContentLoaded", () => {
    followPermalink();
    window.addEventListener("hashchange", followPermalink);
    watch();
    const logout = document.getElementById("logout");
    if (logout) logout.addEventListener("click", async () => {
      await post("/logout");
      location.href = "/login";
    });
    document.getElementById("help-button").addEventListener("click", () => toggleHelp());
    document.getElementById("help-close").addEventListener("click", () => toggleHelp(false));
  });
})();
