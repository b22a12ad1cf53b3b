/* Push on this device: registers the service worker (/sw.js, which also makes the app installable) on every
   page, and on a tap of [data-push-subscribe] asks for permission, subscribes with the server's VAPID key and
   sends the subscription to the server. Words come from data-* attributes (the CSP allows no inline script). */
(function () {
  "use strict";
  var supported = "serviceWorker" in navigator;
  if (supported) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register("/sw.js", {scope: "/"}).catch(function () { /* the page works without it */ });
    });
  }

  function csrfToken() {
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRF-Token"] || ""; }
    catch (e) { return ""; }
  }

  function keyBytes(base64url) {
    var padded = (base64url + "===".slice((base64url.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(padded);
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { out[i] = raw.charCodeAt(i); }
    return out;
  }

  function say(box, key) {
    var status = box.querySelector("[data-push-status]");
    if (status) { status.textContent = box.getAttribute("data-msg-" + key) || ""; status.hidden = false; }
  }

  function isIOS() {
    return /iPhone|iPad|iPod/.test(navigator.userAgent) && !window.navigator.standalone;
  }

  function subscribe(box) {
    if (window.isSecureContext === false) { secureOrSay(box.parentNode); return; }
    if (!supported || !("PushManager" in window) || !("Notification" in window)) {
      say(box, isIOS() ? "ios" : "unsupported");
      return;
    }
    Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") { say(box, "denied"); throw null; }
      return Promise.all([navigator.serviceWorker.register("/sw.js", {scope: "/"})
        .then(function () { return navigator.serviceWorker.ready; }),
        fetch("/api/push/key", {credentials: "same-origin"}).then(function (r) { return r.json(); })]);
    }).then(function (both) {
      var registration = both[0], key = both[1].public_key;
      return registration.pushManager.getSubscription().then(function (existing) {
        return existing || registration.pushManager.subscribe({userVisibleOnly: true,
                                                              applicationServerKey: keyBytes(key)});
      });
    }).then(function (subscription) {
      var json = subscription.toJSON();
      return fetch("/api/push/subscriptions", {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRF-Token": csrfToken()},
        body: JSON.stringify({endpoint: json.endpoint, keys: json.keys})
      });
    }).then(function (response) {
      if (!response.ok) { throw new Error(String(response.status)); }
      say(box, "on");
      if (window.htmx) {
        var panel = box.closest("[hx-target]");
        var devices = document.getElementById("devices-panel");
        if (devices) { window.htmx.ajax("GET", "/account/devices", {target: devices, swap: "outerHTML"}); }
        else if (panel) { window.htmx.trigger(panel, "push-subscribed"); }
      }
    }).catch(function (problem) {
      if (problem !== null) { say(box, "failed"); }
    });
  }

  // Plain http (not localhost): no secure context, so no service worker and no push in any browser. The button
  // would only fail; the box says instead that HTTPS is needed, with a link to this page's https:// address (the
  // default port: a TLS proxy listens there, not on the http port).
  function secureOrSay(root) {
    if (window.isSecureContext !== false) { return; }
    (root || document).querySelectorAll("[data-push]:not([data-push-checked])").forEach(function (box) {
      box.setAttribute("data-push-checked", "");
      var button = box.querySelector("[data-push-subscribe]");
      var insecure = box.querySelector("[data-push-insecure]");
      var link = box.querySelector("[data-push-https]");
      if (!insecure) { return; }
      if (button) { button.hidden = true; }
      if (link) { link.href = "https://" + location.hostname + location.pathname + location.search; }
      insecure.hidden = false;
    });
  }
  document.addEventListener("DOMContentLoaded", function () { secureOrSay(document); });
  document.addEventListener("htmx:afterSettle", function () { secureOrSay(document); });

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-push-subscribe]");
    if (button) { subscribe(button.closest("[data-push]")); }
  });
})();
