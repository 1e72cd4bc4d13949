// annals web UI: progressive enhancement over server-rendered pages. No inline script runs
// (the Content-Security-Policy forbids it); every fragment inserted here was rendered and
// escaped by the server, and nothing here builds markup from data.
"use strict";

(function () {
  const csrfCookie = "annals_csrf";
  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => [...(root || document).querySelectorAll(sel)];

  function csrf() {
    for (const part of document.cookie.split(";")) {
      const i = part.indexOf("=");
      if (part.slice(0, i).trim() === csrfCookie) return decodeURIComponent(part.slice(i + 1));
    }
    return "";
  }

  // post sends a state-changing request with the page's CSRF token.
  function post(url, body) {
    return fetch(url, {
      method: "POST",
      headers: { "X-CSRF-Token": csrf(), "Content-Type": "application/x-www-form-urlencoded", "X-Fragment": "1" },
      body: new URLSearchParams(body || {}),
      credentials: "same-origin",
    });
  }

  function toFragment(html) {
    const t = document.createElement("template");
    t.innerHTML = html;
    return t.content;
  }

  // fragment fetches server-rendered HTML and returns it as a DocumentFragment.
  async function fragment(url, signal) {
    const res = await fetch(url, { headers: { "X-Fragment": "1" }, credentials: "same-origin", signal });
    if (res.status === 204) return document.createDocumentFragment();
    if (!res.ok) throw new Error((await res.text()).trim() || res.statusText);
    return toFragment(await res.text());
  }

  function say(msg) {
    const s = $("#action-status");
    if (s) s.textContent = msg;
  }

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
      goLive();
      markFound();
    } catch (e) {
      link.textContent = "Could not load: " + e.message + " (click to retry)";
      loading.delete(link);
    }
  }
  const observer = "IntersectionObserver" in window ? new IntersectionObserver((items) => {
    for (const it of items) if (it.isIntersecting) loadMore(it.target);
  }, { rootMargin: "800px" }) : null;
  function watch() {
    for (const a of $$("a[data-more]")) {
      if (a.dataset.watched) continue;
      a.dataset.watched = "1";
      a.addEventListener("click", (ev) => { ev.preventDefault(); loadMore(a); });
      if (observer && a.dataset.more !== "earlier") observer.observe(a);
    }
  }

  // A permalink to an entry beyond the first page opens the page around it.
  function followPermalink() {
    const m = /^#e-(\d+)$/.exec(location.hash);
    if (!m || !$("#transcript") || document.getElementById("e-" + m[1])) return;
    const params = new URLSearchParams(location.search);
    if (params.get("at") === m[1]) return;
    params.set("at", m[1]);
    location.replace(location.pathname + "?" + params.toString() + location.hash);
  }

  // Search as you type: debounced, and a newer keystroke cancels the request still running.
  function searchAsYouType() {
    const input = $("#search-input");
    const results = $("#results");
    if (!input || !results) return;
    let timer = 0;
    let inflight = null;
    const rank = $("#search-rank");
    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        if (inflight) inflight.abort();
        const ctl = new AbortController();
        inflight = ctl;
        const q = input.value;
        const params = { q };
        if (rank && rank.value !== "") params.rank = rank.value; // "": the history's default
        const url = "/search?" + new URLSearchParams(params).toString();
        try {
          const frag = await fragment(url, ctl.signal);
          if (ctl.signal.aborted) return;
          results.replaceChildren(frag);
          history.replaceState(null, "", url);
          watch();
        } catch (e) {
          if (e.name !== "AbortError") results.textContent = "Search failed: " + e.message;
        } finally {
          if (inflight === ctl) inflight = null;
        }
      }, 200);
    });
    input.form.addEventListener("submit", (ev) => { ev.preventDefault(); input.dispatchEvent(new Event("input")); });
    if (rank) rank.addEventListener("change", () => input.dispatchEvent(new Event("input")));
  }

  // Curation: every form marked data-action is posted with the CSRF token; the answer is the
  // chat's header, rendered again.
  function curation() {
    document.addEventListener("submit", async (ev) => {
      const form = ev.target.closest("form[data-action]");
      if (!form) return;
      ev.preventDefault();
      const res = await post(form.action, new FormData(form));
      if (!res.ok) {
        say((await res.text()).trim() || res.statusText);
        return;
      }
      if (form.dataset.action === "delete") {
        location.href = "/";
        return;
      }
      const head = $("#chat-head");
      if (head) head.replaceChildren(toFragment(await res.text()));
      else location.reload();
    });
    document.addEventListener("click", async (ev) => {
      const reveal = ev.target.closest("[data-reveal]");
      if (reveal) {
        ev.preventDefault();
        const el = document.getElementById(reveal.dataset.reveal);
        if (el) {
          el.hidden = !el.hidden;
          const field = $("input:not([type=hidden]), textarea, button.danger", el);
          if (!el.hidden && field) field.focus();
        }
        return;
      }
      const cancel = ev.target.closest("[data-cancel]");
      if (cancel) {
        cancel.closest("form").hidden = true;
        return;
      }
      const copy = ev.target.closest("[data-copy]");
      if (copy) {
        const text = document.getElementById(copy.dataset.copy).textContent;
        try {
          await navigator.clipboard.writeText(text);
          say("Copied: " + text);
        } catch (e) {
          const range = document.createRange();
          range.selectNodeContents(document.getElementById(copy.dataset.copy));
          getSelection().removeAllRanges();
          getSelection().addRange(range);
          say("Selected: press Ctrl+C (or ⌘C) to copy.");
        }
      }
    });
    document.addEventListener("keydown", (ev) => {
      if (ev.key !== "Escape") return;
      const form = ev.target.closest && ev.target.closest("form.edit");
      if (form) form.hidden = true;
    });
  }

  // Find in chat: the server answers the positions of every matching entry of the chat, loaded
  // or not; moving to a match that is not on the page loads the page around it in place of the
  // transcript. Matches are marked by class and their words highlighted with the CSS Custom
  // Highlight API (ranges over the page's own text: no markup is built).
  const found = { seqs: [], total: 0, at: -1, words: [] };
  function findWords(q) {
    const out = [];
    for (let tok of q.match(/"[^"]*"|\S+/g) || []) {
      if (tok.startsWith("-") || tok === "OR" || tok === "AND" || (!tok.startsWith('"') && tok.includes(":"))) continue;
      tok = tok.replace(/^[("]+|[)"*]+$/g, "").toLowerCase();
      if (tok) out.push(tok);
    }
    return out;
  }
  function markFound() {
    const hits = new Set(found.seqs);
    for (const el of $$("#transcript li.entry")) el.classList.toggle("find-hit", hits.has(+el.id.slice(2)));
    if (!window.CSS || !CSS.highlights || !window.Highlight) return;
    const hl = new Highlight();
    for (const el of found.words.length ? $$("#transcript li.find-hit") : []) {
      const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n && hl.size < 5000; n = walk.nextNode()) {
        const text = n.data.toLowerCase();
        for (const w of found.words) {
          for (let i = text.indexOf(w); i >= 0; i = text.indexOf(w, i + w.length)) {
            const r = new Range();
            r.setStart(n, i);
            r.setEnd(n, i + w.length);
            hl.add(r);
          }
        }
      }
    }
    CSS.highlights.set("find", hl);
  }
  function showFound() {
    const count = $("#find-count");
    if (!count) return;
    const n = found.seqs.length;
    count.classList.remove("error");
    $("#find-prev").disabled = $("#find-next").disabled = n === 0;
    if (!$("#find-input").value.trim()) count.textContent = "";
    else if (!n) count.textContent = "No matches";
    else {
      const pos = found.at < 0 ? "" : (found.at + 1) + " of ";
      count.textContent = pos + n + (n === 1 ? " match" : " matches") +
        (found.total > n ? " (the newest " + n + " of " + found.total + ")" : "");
    }
  }
  // loadAround replaces the transcript with the page around entry seq.
  async function loadAround(seq) {
    const frag = await fragment(location.pathname.replace(/\/$/, "") + "/entries?at=" + seq);
    if (live) { live.close(); live = null; }
    $("#transcript").replaceChildren(frag);
    watch();
    goLive();
  }
  async function goFound(i) {
    const n = found.seqs.length;
    if (!n) return;
    found.at = ((i % n) + n) % n;
    const seq = found.seqs[found.at];
    showFound();
    let el = document.getElementById("e-" + seq);
    if (!el) {
      try {
        await loadAround(seq);
      } catch (e) {
        $("#find-count").textContent = "Could not load the match: " + e.message;
        return;
      }
      el = document.getElementById("e-" + seq);
      if (!el || found.seqs[found.at] !== seq) return;
    }
    for (let d = el.parentElement.closest("details"); d; d = d.parentElement.closest("details")) d.open = true;
    for (const old of $$("#transcript .find-current")) old.classList.remove("find-current");
    el.classList.add("find-current");
    markFound();
    el.scrollIntoView({ block: "center" });
  }
  // stepFound moves to the next (dir 1) or previous (-1) match; the first move goes to the
  // first match at or below the top of the screen (or above it, going back).
  function stepFound(dir) {
    const n = found.seqs.length;
    if (!n) return;
    if (found.at >= 0) return goFound(found.at + dir);
    const top = $$("#transcript li.entry").find((el) => el.getBoundingClientRect().bottom > 60);
    const seq = top ? +top.id.slice(2) : 0;
    let i = found.seqs.findIndex((s) => s >= seq);
    if (i < 0) i = n;
    return goFound(dir > 0 ? i : i - 1);
  }
  function findInChat() {
    const form = $("#find");
    if (!form) return;
    const input = $("#find-input", form);
    let timer = 0;
    let inflight = null;
    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        if (inflight) inflight.abort();
        const ctl = new AbortController();
        inflight = ctl;
        const q = input.value.trim();
        Object.assign(found, { seqs: [], total: 0, at: -1, words: findWords(q) });
        for (const old of $$("#transcript .find-current")) old.classList.remove("find-current");
        if (!q) { showFound(); markFound(); return; }
        try {
          const res = await fetch(form.dataset.src + "/find?" + new URLSearchParams({ q }).toString(),
            { headers: { "X-Fragment": "1" }, credentials: "same-origin", signal: ctl.signal });
          if (!res.ok) throw new Error((await res.text()).trim() || res.statusText);
          const ans = await res.json();
          if (ctl.signal.aborted) return;
          found.seqs = ans.seqs;
          found.total = ans.total;
          showFound();
          if (ans.error) {
            $("#find-count").textContent = ans.error;
            $("#find-count").classList.add("error");
          }
          markFound();
          if (found.seqs.length) stepFound(1);
        } catch (e) {
          if (e.name !== "AbortError") $("#find-count").textContent = "Find failed: " + e.message;
        } finally {
          if (inflight === ctl) inflight = null;
        }
      }, 200);
    });
    form.addEventListener("submit", (ev) => { ev.preventDefault(); });
    input.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") { ev.preventDefault(); stepFound(ev.shiftKey ? -1 : 1); }
    });
    $("#find-next").addEventListener("click", () => stepFound(1));
    $("#find-prev").addEventListener("click", () => stepFound(-1));
  }

  async function loadRelated() {
    const aside = $("#related[data-src]");
    if (!aside) return;
    try {
      aside.replaceChildren(await fragment(aside.dataset.src));
    } catch (e) {
      aside.textContent = "Related chats could not be loaded: " + e.message;
    }
  }

  // Live: once the reader has the end of the transcript, new entries arrive over server-sent
  // events and are appended below a "new entries" divider; the reader's position does not move.
  let live = null;
  function goLive() {
    const list = $("#transcript");
    if (!list || live || $("a[data-more=later]") || !window.EventSource) return;
    const entries = $$("li.entry", list);
    const last = entries.length ? +entries[entries.length - 1].id.slice(2) : 0;
    const path = location.pathname.replace(/\/$/, "");
    live = new EventSource(path + "/events?after=" + last);
    live.addEventListener("entries", (ev) => {
      if (!$("li.new-divider", list)) {
        const li = document.createElement("li");
        li.className = "new-divider";
        li.setAttribute("role", "separator");
        li.textContent = "New entries";
        list.append(li);
      }
      list.append(toFragment(ev.data));
      markFound();
    });
    live.addEventListener("gone", () => { live.close(); });
    live.addEventListener("error", () => {
      // Reconnect from what the page holds now, not from where the stream began.
      live.close();
      live = null;
      setTimeout(goLive, 2000);
    });
  }

  // The list follows new and changed chats: their rows replace the old ones, on top (below the
  // pinned chats unless pinned themselves).
  function followList() {
    const list = $("#chats[data-live]");
    if (!list || !window.EventSource) return;
    const es = new EventSource(list.dataset.live);
    es.addEventListener("rows", (ev) => {
      const rows = $$("li.chat", toFragment(ev.data)).reverse();
      for (const row of rows) {
        const href = $("a.title", row).getAttribute("href");
        for (const old of $$("#chats li.chat")) {
          if ($("a.title", old).getAttribute("href") === href) old.remove();
        }
        row.classList.add("fresh");
        const firstUnpinned = $("#chats li.chat:not(.pinned)");
        if (row.classList.contains("pinned") || !firstUnpinned) list.prepend(row);
        else firstUnpinned.before(row);
      }
      const empty = $("#chats li.empty");
      if (empty) empty.remove();
    });
    es.addEventListener("error", () => es.close());
  }

  function toggleHelp(show) {
    const help = $("#help");
    help.hidden = show === undefined ? !help.hidden : !show;
    if (!help.hidden) $("#help-close").focus();
  }

  // The keyboard: / search, j/k move, o open, p pin, e export, f find in chat, n/N next and
  // previous match, ? help.
  let selected = -1;
  function rows() {
    if ($("#transcript")) return $$("#transcript li.entry.user");
    return $$("#chats li.chat, #hits li.hit");
  }
  function select(i) {
    const list = rows();
    if (!list.length) return;
    selected = Math.max(0, Math.min(list.length - 1, i));
    list.forEach((el, j) => el.classList.toggle("selected", j === selected));
    list[selected].scrollIntoView({ block: "nearest" });
    const link = $("a.title", list[selected]);
    if (link) link.focus({ preventScroll: true });
  }
  function current() { return rows()[selected]; }
  async function pinRow(row) {
    const link = $("a.title", row);
    const res = await post(link.getAttribute("href") + "/pin", { on: row.classList.contains("pinned") ? "false" : "true" });
    if (res.ok) location.reload();
  }
  function keyboard() {
    document.addEventListener("keydown", (ev) => {
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      const t = ev.target;
      if (t.matches && t.matches("input, textarea, select, [contenteditable]")) {
        if (ev.key === "Escape") t.blur();
        return;
      }
      switch (ev.key) {
        case "/": {
          ev.preventDefault();
          const box = $("#search-input") || $("#quick-search");
          box.focus();
          box.select();
          break;
        }
        case "j": select(selected + 1); break;
        case "k": select(selected - 1); break;
        case "o": case "Enter": {
          const row = current();
          if (row && $("a.title", row)) location.href = $("a.title", row).href;
          break;
        }
        case "p": {
          if ($("#pin-button")) $("#pin-button").click();
          else if (current()) pinRow(current());
          break;
        }
        case "e": {
          const row = current();
          if ($("#export-md")) $("#export-md").click();
          else if (row && $("a.title", row)) location.href = $("a.title", row).getAttribute("href") + "/export?format=markdown";
          break;
        }
        case "f": {
          if (!$("#find-input")) return;
          ev.preventDefault();
          $("#find-input").focus();
          $("#find-input").select();
          break;
        }
        case "n": case "N": {
          if (!$("#find-input")) return;
          stepFound(ev.key === "n" ? 1 : -1);
          break;
        }
        case "?": toggleHelp(); break;
        case "Escape": toggleHelp(false); break;
        default: return;
      }
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    followPermalink();
    window.addEventListener("hashchange", followPermalink);
    watch();
    searchAsYouType();
    findInChat();
    curation();
    keyboard();
    loadRelated();
    goLive();
    followList();
    const logout = $("#logout");
    if (logout) logout.addEventListener("click", async () => {
      await post("/logout");
      location.href = "/login";
    });
    $("#help-button").addEventListener("click", () => toggleHelp());
    $("#help-close").addEventListener("click", () => toggleHelp(false));
    // The page's handlers are in place (the tests wait for this before they type).
    document.documentElement.dataset.ready = "1";
  });
})();
