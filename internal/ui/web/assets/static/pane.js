// paneteam web: the panes that ask. A teammate that asks in its own pane
// (an agent CLI's approval prompt, a dialog), and Claude's lead when its
// pane was recorded at start, can be shown here as text, kept current
// over the page's event stream while it is shown, and answered with the
// keys a dialog takes or a line of text. Every text from the server goes
// in with textContent (a pane's screen is someone else's text).
"use strict";
(function () {
  const meta = (n) => document.querySelector('meta[name="' + n + '"]').content;
  const csrf = meta("paneteam-csrf");
  const q = "?team=" + encodeURIComponent(meta("paneteam-team"));
  const readOnly = meta("paneteam-mode") === "read-only";
  const $ = (id) => document.getElementById(id);
  const section = $("panes"), list = $("pane-list"), viewer = $("pane-viewer");
  let looking = "", screen = null, err = null, hasItems = false;

  function el(tag, props, ...kids) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === "class") n.className = v;
      else if (k === "text") n.textContent = v;
      else if (k.startsWith("on")) n.addEventListener(k.slice(2), v);
      else n.setAttribute(k, v);
    }
    for (const k of kids) n.append(typeof k === "string" ? document.createTextNode(k) : k);
    return n;
  }

  const whose = (name) => name === "team-lead" ? "the lead's" : name + "'s";
  // The keys a dialog takes: [key, what the button shows].
  const keys = [["1", "1"], ["2", "2"], ["3", "3"], ["y", "y"], ["n", "n"], ["Enter", "Enter"], ["Esc", "Esc"],
    ["Up", "↑"], ["Down", "↓"], ["Left", "←"], ["Right", "→"], ["Tab", "Tab"]];

  function ask(name) { document.dispatchEvent(new CustomEvent("paneteam:look", { detail: name })); }

  // One answer at a time, in the order pressed: two quick presses are
  // two requests, which the server could otherwise serve out of order.
  let queue = Promise.resolve();
  function type(body) {
    const p = queue.then(() => send(body));
    queue = p.catch(() => {});
    return p;
  }

  async function send(body) {
    err.textContent = "";
    try {
      const r = await fetch("/api/pane" + q, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-Paneteam-Csrf": csrf },
        body: JSON.stringify(Object.assign({ name: looking }, body)),
      });
      const j = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(j.error || r.statusText);
      return true;
    } catch (e) {
      err.textContent = e.message;
      return false;
    }
  }

  function open(name) {
    looking = name;
    screen = el("pre", { class: "screen", "aria-label": "The screen of " + whose(name) + " pane", "aria-live": "polite" });
    err = el("p", { class: "error", role: "alert" });
    const kids = [el("h3", { text: whose(name) + " pane" }), screen];
    if (!readOnly) {
      const row = el("div", { class: "keys" });
      for (const [k, shown] of keys) {
        row.append(el("button", { type: "button", class: "secondary", "aria-label": "Press " + k + " in " + whose(name) + " pane",
          onclick: () => type({ keys: [k] }) }, shown));
      }
      const text = el("input", { type: "text", "aria-label": "A line to type into " + whose(name) + " pane", placeholder: "a line to type", autocomplete: "off" });
      const enter = el("input", { type: "checkbox", checked: "", id: "pane-enter" });
      const form = el("form", { class: "pane-line" }, text,
        el("label", { for: "pane-enter", class: "inline" }, enter, " then Enter"),
        el("button", { type: "submit", "aria-label": "Type the line into " + whose(name) + " pane" }, "Type"));
      form.addEventListener("submit", async (e) => {
        e.preventDefault();
        if (text.value && await type({ text: text.value, enter: enter.checked })) text.value = "";
      });
      kids.push(row, form);
    }
    kids.push(err, el("button", { type: "button", class: "secondary", "aria-label": "Close " + whose(name) + " pane", onclick: close }, "Close"));
    viewer.replaceChildren(...kids);
    viewer.hidden = false;
    section.hidden = false;
    ask(name);
  }

  function close() {
    looking = "";
    viewer.replaceChildren();
    viewer.hidden = true;
    section.hidden = !hasItems;
    ask("");
  }

  document.addEventListener("paneteam:view", (e) => {
    const items = e.detail.members.filter((m) => m.paneView || m.paneNote);
    hasItems = items.length > 0;
    list.replaceChildren(...items.map((m) => {
      const li = el("li", { "data-pane": m.name }, el("span", { class: "name", text: m.lead ? "lead" : m.name }));
      if (m.paneView) {
        li.append(" ", el("button", { type: "button", "aria-label": "Show " + whose(m.name) + " pane", onclick: () => open(m.name) }, "Show pane"));
        if (m.paneWhere) li.append(el("div", { class: "subject", text: m.paneWhere }));
      } else {
        li.append(el("div", { class: "subject", text: m.paneNote }));
      }
      return li;
    }));
    section.hidden = !hasItems && !looking;
  });

  document.addEventListener("paneteam:pane", (e) => {
    const d = e.detail;
    if (d.name !== looking || !screen) return;
    screen.textContent = d.screen;
    err.textContent = d.error || "";
  });

  // Only while someone looks: a hidden page stops the pane being read.
  document.addEventListener("visibilitychange", () => { if (looking) ask(document.hidden ? "" : looking); });
  // The view may have come before this script ran.
  document.dispatchEvent(new CustomEvent("paneteam:ready"));
})();
