/* The campaign between sessions (app/between): the "new since your last visit" divider and the jump to the latest
   line, the read mark following what an open page shows, local times and countdowns in the reader's own time zone,
   the browser's zone for the narrator's "Plan a session", the X-card's pause, and the installed app's badge.
   No text of its own: words come from data-* attributes and templates (the CSP forbids inline script). */
(function () {
  "use strict";

  function lang() { return document.documentElement.lang || undefined; }

  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRF-Token"] || ""; }
    catch (e) { return ""; }
  }

  function campaignId() {
    var log = document.getElementById("log-entries");
    var m = log && /^\/campaigns\/(\d+)\/stream$/.exec(log.dataset.stream || "");
    return m ? m[1] : null;
  }

  // --- new since your last visit --------------------------------------------------------------------------
  function placeDivider() {
    var note = document.getElementById("unread-note");
    var log = document.getElementById("log-entries");
    var tpl = document.getElementById("unread-divider-template");
    if (!note || !log || !tpl || document.getElementById("unread-divider")) return;
    var first = document.getElementById("entry-" + note.getAttribute("data-first-unread"));
    if (!first || first.parentNode !== log) return;
    var divider = tpl.content.firstElementChild.cloneNode(true);
    log.insertBefore(divider, first);
    log.scrollTop = Math.max(0, divider.offsetTop - log.offsetTop - 8);
    var jump = document.getElementById("jump-latest");
    if (jump && log.scrollHeight - log.scrollTop - log.clientHeight > 40) jump.hidden = false;
    divider.scrollIntoView({ block: "start" });
  }

  function jumpLatest(ev) {
    var log = document.getElementById("log-entries");
    if (!log) return;
    ev.preventDefault();
    log.scrollTop = log.scrollHeight;
    log.scrollIntoView({ block: "end" });
    var jump = document.getElementById("jump-latest");
    if (jump) jump.hidden = true;
  }

  // --- the read mark follows what an open page shows ------------------------------------------------------
  var pending = null;
  var marked = 0;

  function markRead(seq) {
    var id = campaignId();
    if (!id || !(seq > marked) || document.visibilityState !== "visible") return;
    if (pending) clearTimeout(pending);
    pending = setTimeout(function () {
      pending = null;
      var body = new URLSearchParams();
      body.set("seq", String(seq));
      fetch("/campaigns/" + id + "/between/read", {
        method: "POST", credentials: "same-origin", body: body,
        headers: { "X-CSRF-Token": csrf() }
      }).then(function (r) { if (r.ok) marked = seq; }).catch(function () { /* the next visit marks it */ });
    }, 2000);
  }

  // --- times in the reader's own zone ---------------------------------------------------------------------
  function localTimes(root) {
    var fmt;
    try { fmt = new Intl.DateTimeFormat(lang(), { dateStyle: "full", timeStyle: "short", timeZoneName: undefined }); }
    catch (e) { return; }
    root.querySelectorAll("time.local-time[datetime]").forEach(function (t) {
      var d = new Date(t.getAttribute("datetime"));
      if (!isNaN(d)) { t.textContent = fmt.format(d); t.title = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; }
    });
    root.querySelectorAll("[data-time-zone]").forEach(function (input) {
      var zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
      input.value = zone;
      var label = input.form && input.form.querySelector("[data-zone-label]");
      if (label && zone) label.textContent = "(" + zone + ")";
    });
    countdowns(root);
  }

  function countdowns(root) {
    var rtf;
    try { rtf = new Intl.RelativeTimeFormat(lang(), { numeric: "auto" }); } catch (e) { return; }
    var now = Date.now();
    root.querySelectorAll("[data-countdown]").forEach(function (el) {
      var at = new Date(el.getAttribute("data-countdown")).getTime();
      if (isNaN(at)) return;
      var minutes = Math.round((at - now) / 60000);
      if (minutes <= 0) { el.textContent = "· " + (el.getAttribute("data-now-label") || ""); return; }
      var text = minutes < 60 ? rtf.format(minutes, "minute")
        : minutes < 48 * 60 ? rtf.format(Math.round(minutes / 60), "hour")
        : rtf.format(Math.round(minutes / 1440), "day");
      el.textContent = "· " + text;
    });
  }

  // --- the X-card -----------------------------------------------------------------------------------------
  function showPause() {
    var pause = document.getElementById("xcard-paused");
    if (!pause) return;
    pause.hidden = false;
    var box = document.querySelector(".xcard-box");
    if (box) box.open = false;
    var button = pause.querySelector("[data-xcard-close]");
    if (button) button.focus();
  }

  // --- the installed app's badge --------------------------------------------------------------------------
  function badge() {
    var holder = document.querySelector("[data-unread-total]");
    if (!holder || !("setAppBadge" in navigator)) return;
    var n = parseInt(holder.getAttribute("data-unread-total"), 10) || 0;
    (n > 0 ? navigator.setAppBadge(n) : navigator.clearAppBadge()).catch(function () { /* not installed */ });
  }

  function start() {
    placeDivider();
    localTimes(document);
    setInterval(function () { countdowns(document); }, 30000);
    badge();
    var log = document.getElementById("log-entries");
    if (log) marked = parseInt(log.dataset.lastSeq || "0", 10) || 0;
    document.addEventListener("click", function (ev) {
      var target = ev.target instanceof Element ? ev.target : null;
      if (!target) return;
      if (target.closest("[data-jump-latest]")) jumpLatest(ev);
      if (target.closest("[data-xcard-close]")) {
        var pause = document.getElementById("xcard-paused");
        if (pause) pause.hidden = true;
      }
    });
    document.addEventListener("fateboard:arrived", function (ev) {
      var node = ev.detail && ev.detail.node;
      if (node && node.classList && node.classList.contains("kind-safety")) showPause();
    });
    document.addEventListener("fateboard:entry", function (ev) {
      var seq = ev.detail && ev.detail.seq;
      if (seq) markRead(seq);
    });
    document.addEventListener("htmx:afterSwap", function (ev) {
      var root = ev.target instanceof Element ? ev.target : document;
      localTimes(root.closest(".between") || root);
      if (root.querySelector && root.querySelector("[data-xcard-played]")) showPause();
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
