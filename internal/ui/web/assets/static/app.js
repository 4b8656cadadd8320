// paneteam web: the page's own script. Every text from the server is
// someone else's (a teammate's name, message, task, command): it goes in
// with textContent or as a text node, never as markup (no innerHTML).
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="paneteam-csrf"]').content;
  // The team this page shows: every request names it, and the server
  // looks it up among its own teams.
  const team = document.querySelector('meta[name="paneteam-team"]').content;
  const q = "?team=" + encodeURIComponent(team);
  const readOnly = document.querySelector('meta[name="paneteam-mode"]').content === "read-only";
  const $ = (id) => document.getElementById(id);

  // el builds an element; string children become text nodes.
  function el(tag, props, ...kids) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === "class") n.className = v;
      else if (k === "text") n.textContent = v;
      else if (k.startsWith("on")) n.addEventListener(k.slice(2), v);
      else n.setAttribute(k, v);
    }
    for (const k of kids) {
      if (k === null || k === undefined) continue;
      n.append(typeof k === "string" ? document.createTextNode(k) : k);
    }
    return n;
  }

  function status(text) { $("status").textContent = text; }

  // act posts an action; it returns what was done, or false.
  async function act(path, body, errNode) {
    if (errNode) errNode.textContent = "";
    try {
      const r = await fetch(path + q, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-Paneteam-Csrf": csrf },
        body: JSON.stringify(body),
      });
      const j = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(j.error || r.statusText);
      status("done: " + j.ok);
      return j.ok;
    } catch (e) {
      if (errNode) errNode.textContent = e.message;
      status("refused: " + e.message);
      return false;
    }
  }

  function requestCard(q) {
    const err = el("p", { class: "error", role: "alert" });
    const li = el("li", { "data-request": q.id },
      el("div", {}, el("span", { class: "name", text: q.from }), " ", el("span", { class: "meta", text: q.kind + " · waited " + q.waited })),
      el("div", { class: "subject", text: q.subject }));
    if (q.plan) li.append(el("pre", { class: "plan", text: q.plan }));
    if (!readOnly) {
      const fb = el("input", { type: "text", "aria-label": "Feedback for " + q.from + "'s request", placeholder: "feedback (optional)" });
      const answer = (approve) => act("/api/answer", { id: q.id, from: q.from, approve, feedback: fb.value }, err);
      li.append(fb,
        el("button", { type: "button", "aria-label": "Approve", onclick: () => answer(true) }, "Approve"),
        el("button", { type: "button", class: "secondary", "aria-label": "Deny", onclick: () => answer(false) }, "Deny"));
    }
    li.append(err);
    return li;
  }

  function memberCard(m) {
    const li = el("li", { "data-member": m.name },
      el("span", { class: "name", text: m.name }),
      el("span", { class: "state state-" + m.state, text: m.state }),
      el("div", { class: "meta", text: [m.cli || "", m.backend || "", m.branch ? "branch " + m.branch : "",
        "unread " + m.unread, m.cost || ""].filter(Boolean).join(" · ") }));
    if (m.asks) li.append(el("div", { class: "subject", text: "asks in its own pane: " + m.asks }));
    if (!readOnly && !m.lead && m.state !== "gone") {
      const err = el("p", { class: "error", role: "alert" });
      li.append(el("button", { type: "button", class: "secondary", "aria-label": "Stop " + m.name,
        onclick: () => { if (confirm("Stop " + m.name + "?")) act("/api/stop", { name: m.name }, err); } }, "Stop"), err);
    }
    return li;
  }

  // The requests' cards stay on the page from one view to the next while
  // their request waits: a card's feedback field keeps what the person is
  // typing, and its focus, as the team changes around it. A card is made
  // again only when what it shows of its request changed.
  const shown = new WeakMap(); // card → what it shows
  function fillRequests(items) {
    const ul = $("requests");
    const want = new Map(items.map((q) => [q.id, JSON.stringify([q.from, q.kind, q.subject, q.plan])]));
    for (const li of [...ul.children]) {
      if (want.get(li.dataset.request) !== shown.get(li)) li.remove();
    }
    const have = new Map([...ul.children].map((li) => [li.dataset.request, li]));
    let prev = null;
    for (const q of items) {
      let li = have.get(q.id);
      if (li) li.querySelector(".meta").textContent = q.kind + " · waited " + q.waited;
      else {
        li = requestCard(q);
        shown.set(li, want.get(q.id));
      }
      const at = prev ? prev.nextSibling : ul.firstChild;
      if (at !== li) ul.insertBefore(li, at);
      prev = li;
    }
  }

  function fill(id, items, make) {
    const ul = $(id);
    ul.replaceChildren(...items.map(make));
  }

  function render(v) {
    if (v.error) status(v.error);
    else status("live · " + new Date(v.taken).toLocaleTimeString());
    fillRequests(v.requests);
    $("no-requests").hidden = v.requests.length > 0;
    fill("members", v.members, memberCard);
    fill("tasks", v.tasks, (t) => el("li", { "data-task": t.id },
      el("span", { class: "meta", text: "#" + t.id + " " + t.status + (t.owner ? " · " + t.owner : "") + " " }),
      el("span", { class: "subject", text: t.subject })));
    fill("messages", v.messages.slice().reverse(), (m) => el("li", {},
      el("span", { class: "meta", text: m.from + " → " + m.to + " [" + m.kind + "] " }),
      el("span", { class: "text", text: m.summary })));
    fill("notices", v.notices.slice().reverse(), (n) => el("li", { class: "text", text: n.text }));
    $("problems").textContent = (v.problems || []).join("\n");
    const back = v.resumable || [];
    $("resume").hidden = back.length === 0;
    $("resume-what").textContent = back.length === 0 ? "" :
      "Its lead and every teammate's pane went away. Resume starts again: " + back.join(", ") + ".";
    last = v;
    document.dispatchEvent(new CustomEvent("paneteam:view", { detail: v })); // pane.js's and pwa.js's
    const to = $("send-to");
    if (to) {
      const keep = to.value;
      to.replaceChildren(el("option", { value: "*" }, "everyone"),
        ...v.members.filter((m) => !m.lead).map((m) => el("option", { value: m.name }, m.name)));
      to.value = keep;
      if (to.selectedIndex < 0) to.value = "*";
    }
  }

  const form = $("send-form");
  if (form) {
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const text = $("send-text");
      if (await act("/api/send", { to: $("send-to").value, text: text.value })) text.value = "";
    });
  }

  // Resume brings the team back as 'paneteam resume --team' does; each
  // teammate spends tokens again, so the person says yes first.
  const resumeButton = $("resume-button");
  if (resumeButton) {
    resumeButton.addEventListener("click", () => {
      if (!confirm("Resume team " + team + "? Each teammate it starts spends tokens again.")) return;
      status("resuming…");
      $("resumed").textContent = "";
      // What it started stays said, once the team runs and this part hides.
      act("/api/resume", {}, $("resume-error")).then((said) => { if (said) $("resumed").textContent = said; });
    });
  }

  // The stream carries the view and, while the page looks at a pane
  // (pane.js asks with a "paneteam:look" event), that pane's screen.
  let es = null, look = "", last = null;
  // A script loaded after this one may miss the first view: it asks.
  document.addEventListener("paneteam:ready", () => { if (last) document.dispatchEvent(new CustomEvent("paneteam:view", { detail: last })); });
  function connect() {
    if (es) es.close();
    const s = new EventSource("/events" + q + (look ? "&look=" + encodeURIComponent(look) : ""));
    s.addEventListener("view", (e) => render(JSON.parse(e.data)));
    s.addEventListener("pane", (e) => document.dispatchEvent(new CustomEvent("paneteam:pane", { detail: JSON.parse(e.data) })));
    s.addEventListener("error", () => { if (s.readyState === EventSource.CLOSED) status("disconnected: open the URL paneteam web printed again"); else status("reconnecting…"); });
    es = s;
  }
  document.addEventListener("paneteam:look", (e) => { if ((e.detail || "") !== look) { look = e.detail || ""; connect(); } });
  connect();
})();
