// paneteam web on a phone: the service worker that lets the page be
// installed and start offline (sw.js keeps the page's own files, never
// the team's), and the browser's own notifications of the page's
// notices (a teammate needs you, finished, died, went over budget),
// shown while the page is open and only once the person turned them on
// with the "Allow notifications" button: nothing is asked on load.
"use strict";
(function () {
  const team = document.querySelector('meta[name="paneteam-team"]').content;
  let reg = null;
  if ("serviceWorker" in navigator) {
    // Refused where the browser does not trust the certificate: the page
    // works without, but cannot be installed.
    navigator.serviceWorker.register("/sw.js").then((r) => { reg = r; }).catch(() => {});
  }

  const button = document.getElementById("notify");
  const key = "paneteam-notify"; // "on" once the person allowed, in this browser
  const supported = "Notification" in window;
  const stored = (v) => {
    try {
      if (v === undefined) return localStorage.getItem(key);
      if (v === null) localStorage.removeItem(key); else localStorage.setItem(key, v);
    } catch (_) { /* storage refused: notifications last as long as this page */ }
    return null;
  };
  let allowed = stored() === "on";
  const on = () => supported && Notification.permission === "granted" && allowed;
  function draw() {
    if (!button) return;
    button.hidden = !supported || Notification.permission === "denied";
    button.textContent = on() ? "Turn off notifications" : "Allow notifications";
  }
  if (button) {
    button.addEventListener("click", async () => {
      if (on()) {
        allowed = false;
        stored(null);
      } else if (await Notification.requestPermission() === "granted") {
        allowed = true;
        stored("on");
      }
      draw();
    });
    draw();
  }

  // A notice is news when the previous view did not hold it; those of
  // the first view happened before the page was open.
  const keyOf = (n) => n.time + " " + n.kind + " " + n.text;
  let seen = null;
  document.addEventListener("paneteam:view", (e) => {
    const notices = e.detail.notices || [];
    if (seen !== null && on()) {
      for (const n of notices) {
        if (!seen.has(keyOf(n))) show(n);
      }
    }
    seen = new Set(notices.map(keyOf));
  });

  // show puts the notice's text in a notification's body, which the
  // browser shows as plain text; the tag keeps two open pages from
  // showing it twice.
  function show(n) {
    const title = "paneteam: " + team;
    const opts = { body: n.text, tag: "paneteam " + team + " " + keyOf(n), icon: "/static/icon.svg" };
    if (reg && reg.showNotification) {
      reg.showNotification(title, opts).catch(() => {});
      return;
    }
    try { new Notification(title, opts); } catch (_) { /* a phone allows them only through a service worker */ }
  }
})();
