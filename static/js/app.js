/* Fateboard's only script (no inline script anywhere: the pages run under a strict CSP).
   - The live log: an EventSource per campaign page. Each entry arrives as an HTML fragment whose
     event id is its seq. The browser resends Last-Event-ID when it reconnects by itself; when the
     stream is closed for good (a phone asleep, a server restart) we reconnect with ?after=<last seq>,
     so nothing is missed and nothing is shown twice.
   - Quick-fill chips for the dice box. */
(function () {
  "use strict";

  function setStatus(online) {
    var el = document.getElementById("live-status");
    if (!el) return;
    el.textContent = online ? el.dataset.online : el.dataset.offline;
    el.classList.toggle("offline", !online);
  }

  function nearBottom(el) {
    return el.scrollHeight - el.scrollTop - el.clientHeight < 120;
  }

  function applyVoids(node) {
    var target = node.getAttribute("data-voids");
    if (!target) return;
    var voided = document.getElementById("entry-" + target);
    if (voided) voided.classList.add("voided");
  }

  // `holder` carries data-stream and data-last-seq; if it is the log (#log-entries), entries are shown in it.
  function startLog(holder) {
    var log = holder.id === "log-entries" ? holder : null;
    var url = holder.dataset.stream;
    var last = parseInt(holder.dataset.lastSeq || "0", 10) || 0;
    var source = null;
    var delay = 1000;
    var opened = false;

    function onEntry(ev) {
      var seq = parseInt(ev.lastEventId, 10);
      if (!(seq > last)) return;
      last = seq;
      holder.dataset.lastSeq = String(seq);
      if (!log || document.getElementById("entry-" + seq)) return;
      var stick = nearBottom(log);
      var tpl = document.createElement("template");
      tpl.innerHTML = ev.data.trim();
      var node = tpl.content.firstElementChild;
      if (!node) return;
      log.appendChild(node);
      applyVoids(node);
      if (window.htmx) window.htmx.process(node);
      if (stick) log.scrollTop = log.scrollHeight;
      log.dispatchEvent(new CustomEvent("fateboard:entry", { bubbles: true, detail: { seq: seq } }));
    }

    function connect() {
      if (source) source.close();
      source = new EventSource(url + "?after=" + last);
      source.addEventListener("entry", onEntry);
      source.addEventListener("prompts", function () {
        document.body.dispatchEvent(new Event("prompts-changed"));
      });
      // An encounter moved on: its live view (hx-trigger="encounter-changed from:body") refetches itself.
      source.addEventListener("encounter", function (ev) {
        document.body.dispatchEvent(new CustomEvent("encounter-changed", { detail: { id: ev.data } }));
      });
      source.onopen = function () {
        setStatus(true);
        delay = 1000;
        // After a reconnect, prompts and encounters may have changed while we were away.
        if (opened) {
          document.body.dispatchEvent(new Event("prompts-changed"));
          document.body.dispatchEvent(new Event("encounter-changed"));
        }
        opened = true;
      };
      source.onerror = function () {
        setStatus(false);
        if (source.readyState === EventSource.CLOSED) {
          setTimeout(connect, delay);
          delay = Math.min(delay * 2, 15000);
        }
      };
    }

    window.addEventListener("online", function () {
      if (!source || source.readyState !== EventSource.OPEN) connect();
    });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible" && (!source || source.readyState === EventSource.CLOSED)) connect();
    });
    if (log) log.scrollTop = log.scrollHeight;
    connect();
  }

  document.addEventListener("click", function (ev) {
    var chip = ev.target.closest && ev.target.closest("[data-fill]");
    if (!chip) return;
    var input = document.querySelector(chip.dataset.fill);
    if (!input) return;
    input.value = chip.dataset.value;
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.focus();
  });

  document.addEventListener("DOMContentLoaded", function () {
    var holder = document.querySelector("[data-stream]");
    if (holder && window.EventSource) startLog(holder);
  });
})();
