/* Fateboard's service worker (served as /sw.js, scope /). It keeps the app shell — the stylesheet, the scripts,
   the icons and the offline page — for a fast start, and shows push notifications. It never caches a campaign's
   pages, fragments, streams or entries: the server is the authority, and hidden content must not sit in a cache. */
"use strict";
var SHELL = "fateboard-shell-{{ version }}";
var LANGUAGES = {{ languages | tojson }};
var OFFLINE = LANGUAGES.map(function (lang) { return "/offline?lang=" + lang; });
var FILES = OFFLINE.concat(["/static/css/app.css", "/static/js/app.js", "/static/js/push.js",
             "/static/js/{{ htmx_file }}", "/static/icons/icon-192.png", "/static/icons/icon-512.png"]);
// The language of the last page that came (its Content-Language: the account's once signed in), kept in the cache
// so the offline page is in it after the worker restarts.
var LANG_KEY = "/offline-language";

function rememberLanguage(response) {
  var lang = (response.headers.get("Content-Language") || "").split(",")[0].trim();
  if (LANGUAGES.indexOf(lang) === -1) { return; }
  caches.open(SHELL).then(function (cache) { return cache.put(LANG_KEY, new Response(lang)); })
    .catch(function () { /* the default language then */ });
}

function offlinePage() {
  return caches.match(LANG_KEY).then(function (hit) { return hit ? hit.text() : ""; }).then(function (lang) {
    return caches.match("/offline?lang=" + (LANGUAGES.indexOf(lang) !== -1 ? lang : LANGUAGES[0]));
  });
}

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(SHELL).then(function (cache) { return cache.addAll(FILES); })
    .then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) { return n.indexOf("fateboard-shell-") === 0 && n !== SHELL; })
      .map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") { return; }
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) { return; }
  if (request.mode === "navigate") {
    // Pages always from the network; only when it is gone, the offline page.
    event.respondWith(fetch(request).then(function (response) {
      if (response.ok) { rememberLanguage(response); }
      return response;
    }).catch(offlinePage));
    return;
  }
  if (FILES.indexOf(url.pathname) !== -1) {
    // The shell: from the cache at once, refreshed when the worker changes (its version names the cache).
    event.respondWith(caches.match(request).then(function (hit) { return hit || fetch(request); }));
  }
});

function campaignOf(path) {
  var m = /^\/campaigns\/(\d+)(\/|$)/.exec(path || "");
  return m ? m[1] : null;
}

self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = {}; }
  var title = data.title || "Fateboard";
  var target = data.url || "/campaigns";
  event.waitUntil(self.clients.matchAll({type: "window", includeUncontrolled: true}).then(function (windows) {
    var campaign = campaignOf(target);
    var watching = windows.some(function (w) {
      // A window of that campaign with focus shows the live toast: no notification on top of it.
      return w.focused && w.visibilityState === "visible" && campaign !== null &&
        campaignOf(new URL(w.url).pathname) === campaign;
    });
    if (watching) { return undefined; }
    return self.registration.showNotification(title, {
      body: data.body || "", tag: data.tag || undefined, data: {url: target},
      icon: "/static/icons/icon-192.png", badge: "/static/icons/icon-192.png", renotify: false
    });
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var target = new URL((event.notification.data && event.notification.data.url) || "/campaigns",
                       self.location.origin);
  if (target.origin !== self.location.origin) { return; }
  event.waitUntil(self.clients.matchAll({type: "window", includeUncontrolled: true}).then(function (windows) {
    for (var i = 0; i < windows.length; i++) {
      if (new URL(windows[i].url).pathname === target.pathname && "focus" in windows[i]) {
        return windows[i].focus();
      }
    }
    return self.clients.openWindow(target.href);
  }));
});
