// paneteam web's service worker. It keeps the page's own files (its
// script, styles, icon, manifest and an offline shell), so that the page
// can be installed and starts without the network, and never the team's
// data: the page itself (it carries the team's name and the session's
// anti-forgery token), the event stream and every /api request go to
// paneteam web only, and nothing they answer is stored.
"use strict";
const VERSION = "{{VERSION}}"; // paneteam web's files' own hash: a new build, a new cache
const CACHE = "paneteam-shell-" + VERSION;
const SHELL = ["/static/offline.html", "/static/app.css", "/static/app.js", "/static/pane.js", "/static/pwa.js",
  "/static/icon.svg", "/manifest.webmanifest"];

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (e) => {
  const req = e.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.mode === "navigate") {
    // The page comes from paneteam web, fresh, every time; when it
    // cannot be reached, the shell says so.
    e.respondWith(fetch(req).catch(() => caches.match("/static/offline.html")));
    return;
  }
  if (url.search === "" && SHELL.includes(url.pathname)) {
    e.respondWith(fetch(req).catch(() => caches.match(url.pathname)));
  }
  // Anything else (the event stream, /api/...) is left to the network.
});

// A notification clicked brings the page forward.
self.addEventListener("notificationclick", (e) => {
  e.notification.close();
  e.waitUntil(self.clients.matchAll({ type: "window" }).then((all) => {
    for (const c of all) {
      if ("focus" in c) return c.focus();
    }
    return self.clients.openWindow("/");
  }));
});
