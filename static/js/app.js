/* Fateboard's only script (no inline script anywhere: the pages run under a strict CSP).
   - The live stream: an EventSource per campaign page. Each entry arrives as an HTML fragment whose event id is
     its seq. The browser resends Last-Event-ID when it reconnects by itself; when the stream is closed for good
     (a phone asleep, a server restart) we reconnect with ?after=<last seq>, so nothing is missed or shown twice.
   - Live panels, the one way a page updates itself: every element with data-live="<event> …" is fetched again
     from its fragment URL (data-live-url) when the stream says one of its events happened, and replaced by the
     element with its id there. The events are the server's (app/live/events.py), listed on <body
     data-live-events>; none is named here. docs/ARCHITECTURE.md, "Live updates".
   - After an HTMX swap the result comes to the player: it is scrolled to and focused; else focus stays on the
     control that had it. A form's choices survive the swap (not fields marked data-reset, which spend something),
     and so do the sections the player opened (<details> with an id: a sheet's folds), as on a live refresh.
   - A refused form (a 4xx, swapped by HTMX or a whole page): its first error is scrolled into view and its field
     focused (and marked aria-invalid, described by the error).
   - A request that fails shows an error next to its form with a retry (the same Idempotency-Key).
   - A new roll prompt for you: a toast that leads to it (from any page with a stream: one without a prompts
     panel asks for the campaign's), and the sound and vibration the account chose (none unless it did).
   - Heard and seen calmly (docs/ACCESSIBILITY.md): each new line said once in words (politely, or at once for my
     own result); the server's own dice tumble for at most 600 ms over an entry that is already shown, unless the
     account, the device's reduced motion or the narrator's table switch says no; skip links focus their target.
   - The log: "jump to latest" when scrolled up. Copy buttons. Quick-fill chips for the dice box.
   - Table talk: an edit or withdrawal arriving fetches its message's line again; the composer sends on Enter
     (a desktop; Shift+Enter is a new line), shows the odds of a `/r` expression and suggests @names.
   - The chat layout: the last log lines sit right above the composer (the campaign page opens so; any page with a
     composer comes to it when one types, and again when the on-screen keyboard resizes the page). */
(function () {
  "use strict";

  var body = function () { return document.body; };
  function msg(name, fallback) { return (body() && body().dataset[name]) || fallback; }

  // --- the live badge -------------------------------------------------------------------------------------
  function setStatus(online) {
    var el = document.getElementById("live-status");
    if (!el) return;
    el.hidden = false;
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

  // --- live panels ----------------------------------------------------------------------------------------
  // The stream's events besides `entry` (its entries have their own handler): the page lists the server's enum.
  function liveEvents() {
    return (body().dataset.liveEvents || "").split(/\s+/).filter(function (k) { return k && k !== "entry"; });
  }
  // The events after which a page without a prompts panel asks for the campaign's (the toast): <body data-live-toast>.
  function toastEvents() { return (body().dataset.liveToast || "").split(/\s+/); }
  var pending = new Set();
  var timer = null;

  // A panel follows `<event>` or `<event>:<id>` (data-live); the name `<event>:*` reaches every `<event>:<id>`.
  function panelsFor(names) {
    var found = [];
    document.querySelectorAll("[data-live]").forEach(function (el) {
      var wants = el.dataset.live.split(/\s+/);
      for (var i = 0; i < names.length; i++) {
        var any = names[i].slice(-2) === ":*" ? names[i].slice(0, -1) : null;
        for (var j = 0; j < wants.length; j++) {
          if (wants[j] === names[i] || (any && wants[j].indexOf(any) === 0)) { found.push(el); return; }
        }
      }
    });
    return found;
  }

  function announce(kind, id) {
    var names = [kind];
    if (id) names.push(kind + ":" + id);
    panelsFor(names).forEach(function (el) { pending.add(el); });
    if (pending.size && !timer) timer = setTimeout(flush, 120);
    if (toastEvents().indexOf(kind) >= 0) remotePrompts(false);
  }

  // While a change of one's own is on its way (a POST), refreshing a panel could swap out the element its answer
  // is meant for: the refresh waits until the answer has been swapped in (and then usually finds nothing new).
  var inflight = 0;

  // Events come quickly one after another: a panel queued (or fetched) for the second may have been replaced by
  // the refetch for the first meanwhile. It is found again by its id, and only the newest refetch asked for a
  // panel may replace it (an older answer arriving late never overwrites a newer one).
  var asked = {};
  var generation = 0;

  function current(el) {
    return el.isConnected ? el : (el.id ? document.getElementById(el.id) : null);
  }

  function flush() {
    timer = null;
    if (inflight > 0) return;
    var byUrl = {};
    pending.forEach(function (queued) {
      var el = current(queued);
      if (!el || !el.id || !el.dataset.liveUrl) return;  // tests/test_live_panels.py: every panel has its URL
      var url = el.dataset.liveUrl;
      (byUrl[url] = byUrl[url] || []).push(el);
    });
    pending.clear();
    Object.keys(byUrl).forEach(function (url) {
      var gen = ++generation;
      byUrl[url].forEach(function (el) { asked[el.id] = gen; });
      fetch(url, { credentials: "same-origin" }).then(function (r) {
        return r.ok ? r.text() : null;
      }).then(function (html) {
        if (html === null) return;
        if (inflight > 0) { byUrl[url].forEach(function (el) { pending.add(el); }); return; } // after the answer
        var doc = new DOMParser().parseFromString(html, "text/html");
        byUrl[url].forEach(function (el) { if (asked[el.id] === gen) replacePanel(current(el), doc); });
      }).catch(function () { /* the stream's reconnect refreshes again */ });
    });
  }

  // Replace a panel with its new rendering, keeping what the person was doing in it: open <details>, what they
  // typed (fields marked dirty), and focus.
  function replacePanel(el, doc) {
    if (!el || !el.isConnected || !el.id) return;
    var fresh = doc.getElementById(el.id);
    if (!fresh) return;
    if (el.dataset.liveVersion && fresh.dataset.liveVersion === el.dataset.liveVersion) return;
    var fresh2 = document.importNode(fresh, true);
    var open = [];
    el.querySelectorAll("details").forEach(function (d, i) { if (d.open) open.push(d.id || i); });
    fresh2.querySelectorAll("details").forEach(function (d, i) {
      if (open.indexOf(d.id || i) >= 0) d.open = true;
    });
    el.querySelectorAll("[data-dirty]").forEach(function (field) {
      if (!field.id) return;
      var twin = fresh2.querySelector("#" + CSS.escape(field.id));
      if (!twin || twin.type === "hidden") return;
      if (twin.type === "checkbox" || twin.type === "radio") twin.checked = field.checked;
      else twin.value = field.value;
      twin.dataset.dirty = "1";
    });
    var focused = document.activeElement && el.contains(document.activeElement) ? describe(document.activeElement) : null;
    el.replaceWith(fresh2);
    if (window.htmx) window.htmx.process(fresh2);
    fitCalls();
    if (focused) {
      // Focus stays on the same control (found again by id, or name/value/text); if it is gone (the result of
      // one's last move, replaced when the other side moved), on the panel itself, so the next Tab reaches its
      // first control (a duel's "Defend") — never on <body>.
      var again = findAgain(focused, fresh2);
      if (!again) { fresh2.setAttribute("tabindex", "-1"); again = fresh2; }
      again.focus({ preventScroll: true });
    }
    newPrompts();
  }

  // --- roll prompts: a toast that leads to a new one -------------------------------------------------------
  var knownPrompts = null;
  // A prompt on the campaign page, or one a sheet renders in its prompts panel (characters/_sheet_macros.html).
  var PROMPTS = "[data-prompt-id], [data-prompts] > [id^=prompt-]";

  function seenPrompts() {
    var ids = [];
    document.querySelectorAll(PROMPTS).forEach(function (p) { ids.push(p.dataset.promptId || p.id); });
    return ids;
  }

  function newPrompts() {
    if (knownPrompts === null) { knownPrompts = seenPrompts(); return; }
    var fresh = null;
    document.querySelectorAll(PROMPTS).forEach(function (p) {
      var key = p.dataset.promptId || p.id;
      if (knownPrompts.indexOf(key) < 0) {
        knownPrompts.push(key);
        if (!fresh && p.querySelector("form:not([data-cancel]), a.big-link")) fresh = p;
      }
    });
    if (fresh) showToast(fresh);
  }

  // A challenge (data-toast: its words, in its system's template) leads straight to the encounter; a roll prompt to
  // itself.
  function showToast(item, fallback) {
    nudge();  // what waits for me: the sound and the buzz I chose, if any (off by default)
    var link = item.querySelector("a.big-link");
    if (item.dataset.toast && link) toast(null, link.getAttribute("href"), item.dataset.toast);
    else if (fallback) toast(null, link ? link.getAttribute("href") : fallback);
    else toast(item);
  }

  // A page without a prompts panel (an encounter, a system's page) asks for the campaign's prompts panel (only
  // the prompts this viewer may see) when the stream says they changed: a new one the viewer can answer shows
  // the toast, leading to the page where it is answered.
  var remoteKnown = null;

  function promptsUrl() {
    var holder = document.querySelector("[data-stream]");
    var url = holder && holder.dataset.stream;
    return url && /^\/campaigns\/\d+\/stream$/.test(url) ? url.replace(/\/stream$/, "/panels/prompts") : null;
  }

  function hasPromptsPanel() {
    return document.querySelector("[data-prompts]") !== null || document.querySelector(PROMPTS) !== null;
  }

  function remotePrompts(first) {
    var url = promptsUrl();
    if (!url || document.getElementById("prompts-panel")) return;
    // A page with prompts of its own (a sheet's) takes only the challenges from the campaign's panel.
    var onlyChallenges = hasPromptsPanel();
    fetch(url, { credentials: "same-origin" }).then(function (r) {
      return r.ok ? r.text() : null;
    }).then(function (html) {
      if (html === null) return;
      var doc = new DOMParser().parseFromString(html, "text/html");
      var fresh = null;
      var ids = [];
      doc.querySelectorAll("[data-prompt-id]").forEach(function (p) {
        if (onlyChallenges && p.dataset.promptId.indexOf("challenge-") !== 0) return;
        ids.push(p.dataset.promptId);
        var isNew = !first && remoteKnown !== null && remoteKnown.indexOf(p.dataset.promptId) < 0;
        if (isNew && !fresh && p.querySelector("form:not([data-cancel]), a.big-link")) fresh = p;
      });
      remoteKnown = (remoteKnown || []).concat(ids);
      if (!fresh) return;
      showToast(fresh, url.replace(/\/panels\/prompts$/, "") + "#" + fresh.id);
    }).catch(function () { /* the next event asks again */ });
  }

  // A live line that @mentions this reader: a toast that leads to it (in this page's log, or the campaign's).
  function mentioned(node, log, streamUrl) {
    var who = node.querySelector(".summary strong");
    var text = msg("msgMention", "{name} mentions you: read it").replace("{name}", who ? who.textContent.trim() : "");
    var elsewhere = streamUrl.replace(/\/stream$/, "") + "#" + node.id;
    setTimeout(function () {  // after the line is in this page's log, if it has one (a filter may leave it out)
      var shown = log ? document.getElementById(node.id) : null;
      if (shown) toast(shown, null, text);
      else toast(null, elsewhere, text);
    }, 0);
  }

  function toast(prompt, href, text) {
    var old = document.getElementById("toast");
    if (old) old.remove();
    var box = document.createElement("div");
    box.id = "toast";
    box.className = "toast";
    box.setAttribute("role", "alert");
    var link = document.createElement("a");
    link.href = href || "#" + prompt.id;
    link.textContent = text || msg("msgPrompt", "The narrator calls for a roll: answer it");
    if (prompt) link.addEventListener("click", function (ev) {
      ev.preventDefault();
      box.remove();
      prompt.setAttribute("tabindex", "-1");
      prompt.scrollIntoView({ block: "center" });
      prompt.focus({ preventScroll: true });
    });
    var close = document.createElement("button");
    close.type = "button";
    close.className = "link";
    close.textContent = "×";
    close.setAttribute("aria-label", msg("msgClose", "Close"));
    close.addEventListener("click", function () { box.remove(); });
    box.appendChild(link);
    box.appendChild(close);
    body().appendChild(box);
    setTimeout(function () { if (box.isConnected) box.remove(); }, 15000);
  }

  // An edit or a withdrawal of a message (templates/talk/_line.html) arrived: fetch the message's line again
  // (its own URL answers only a reader of it) and put it where the page shows it.
  function refreshTalk(node) {
    var marker = node.querySelector && node.querySelector("[data-refresh-entry]");
    if (!marker) return;
    var shown = document.querySelectorAll("#entry-" + CSS.escape(marker.dataset.refreshEntry));
    if (!shown.length) return;
    fetch(marker.dataset.refreshUrl, { credentials: "same-origin" }).then(function (r) {
      return r.ok ? r.text() : null;
    }).then(function (html) {
      if (!html) return;
      shown.forEach(function (old) {
        if (!old.isConnected) return;
        var tpl = document.createElement("template");
        tpl.innerHTML = html.trim();
        var fresh = tpl.content.firstElementChild;
        if (!fresh) return;
        old.replaceWith(fresh);
        if (window.htmx) window.htmx.process(fresh);
      });
    }).catch(function () { /* the next page load shows it */ });
  }

  // --- heard and seen calmly (issue 37, docs/ACCESSIBILITY.md) -----------------------------------------------
  // Each new log line is said once, in words (the line's own text: who, what, the outcome and its marks), by one of
  // the two live regions of base.html: politely for the others' lines, at once for my own result. A prompt or a
  // mention for me comes as the toast (role=alert). The account's settings ride on <body>: data-motion,
  // data-sound, data-vibrate, data-me; the narrator's switch: data-table-still.
  var SAID = ".talk-audience, .summary, .talk-text, .faces .badge, .roll-marks, .details, .total, .note";

  function lineWords(node) {
    var parts = [];
    var taken = [];
    node.querySelectorAll(SAID).forEach(function (el) {
      if (taken.some(function (t) { return t.contains(el); })) return;
      taken.push(el);
      var text = el.textContent.replace(/\s+/g, " ").trim();
      if (text) parts.push(text);
    });
    return parts.join(". ");
  }

  function mine(node) {
    var me = body().dataset.me;
    return !!me && node.getAttribute("data-player") === me && node.classList.contains("kind-action");
  }

  // A result the page has just focused (showResult: the form's own answer) is read there; not said a second time.
  function shownAsResult(seq) {
    var focused = document.activeElement;
    return !!focused && focused !== body() && (focused.matches("[data-result], .result") || focused.closest(".result")) &&
      focused.textContent.indexOf("#" + seq) >= 0;
  }

  var said = {};
  function sayLine(node, seq) {
    if (said[seq]) return;
    said[seq] = true;
    var words = lineWords(node);
    if (!words) return;
    var own = mine(node);
    setTimeout(function () {
      if (own && shownAsResult(seq)) return;
      var region = document.getElementById(own ? "announce-now" : "announce-polite");
      if (!region) return;
      region.textContent = "";
      // A fresh text node a moment later: screen readers announce a change, not a region that is merely there.
      setTimeout(function () { region.textContent = words; }, 30);
    }, own ? 350 : 0);
    if (own) nudge();
  }

  // Sound and vibration: off unless the account turned them on; for my result and a roll called from me only.
  var audio = null;
  function nudge() {
    if (body().hasAttribute("data-vibrate") && navigator.vibrate) {
      try { navigator.vibrate([90, 50, 90]); } catch (e) { /* not allowed */ }
    }
    if (!body().hasAttribute("data-sound")) return;
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try {
      audio = audio || new Ctx();
      var tone = audio.createOscillator();
      var gain = audio.createGain();
      tone.frequency.value = 660;
      gain.gain.setValueAtTime(0.08, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.18);
      tone.connect(gain);
      gain.connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 0.2);
    } catch (e) { /* no sound: the words and the screen say it */ }
  }

  // Calm dice: the entry is already in the log when this runs; over it, the server's own faces tumble into place for
  // at most 600 ms (app.css .rolling) — unless the account, the device (prefers-reduced-motion) or the narrator
  // (for the table) said no. A tap on the line stops it. No face is ever drawn here: only the server's move.
  var ROLL_MS = 600;
  function dice(node) {
    var data = body().dataset;
    if (body().hasAttribute("data-table-still") || data.motion === "off") return false;
    if (data.motion !== "on" && window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) {
      return false;
    }
    return !!node.querySelector(".faces .die:not(.die-unknown)");
  }

  function roll(node) {
    if (!dice(node)) return;
    node.classList.add("rolling");
    var stop = function () { node.classList.remove("rolling"); };
    node.addEventListener("click", stop, { once: true });
    setTimeout(stop, ROLL_MS);
  }

  // A skip link's target takes focus (a list or a <main> is not focusable by itself in every browser).
  document.addEventListener("click", function (ev) {
    var link = ev.target.closest && ev.target.closest(".skip-links a[href^='#']");
    if (!link) return;
    var target = document.getElementById(link.getAttribute("href").slice(1));
    if (!target) return;
    ev.preventDefault();
    if (!target.hasAttribute("tabindex") && !target.matches("a, button, input, select, textarea")) {
      target.setAttribute("tabindex", "-1");
    }
    target.scrollIntoView({ block: "nearest" });
    target.focus({ preventScroll: true });
  });

  // --- the stream -----------------------------------------------------------------------------------------
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
      var tpl = document.createElement("template");
      tpl.innerHTML = ev.data.trim();
      var node = tpl.content.firstElementChild;
      // `entry:<character id>` too (a sheet's recent log follows only its character's entries); a correction
      // (it voids an earlier entry, of any character) reaches every `entry:<id>` panel.
      announce("entry", node && node.hasAttribute("data-voids") ? "*" : (node && node.getAttribute("data-character")) || "");
      if (node && node.classList.contains("mentions-me")) mentioned(node, log, url);
      // Every page with a stream, log or not, hears of each entry (static/js/between.js: the X-card's pause).
      document.dispatchEvent(new CustomEvent("fateboard:arrived", { detail: { seq: seq, node: node } }));
      if (node && !log) sayLine(node, seq);  // a page without the log (a sheet, an encounter) still hears it
      if (!log || !node || document.getElementById("entry-" + seq)) return;
      var stick = nearBottom(log);
      if (log.dataset.filtered && !matches(log, node)) return;
      log.appendChild(node);
      sayLine(node, seq);
      roll(node);
      applyVoids(node);
      refreshTalk(node);
      if (window.htmx) window.htmx.process(node);
      if (stick) log.scrollTop = log.scrollHeight;
      else showJump(log);
      log.dispatchEvent(new CustomEvent("fateboard:entry", { bubbles: true, detail: { seq: seq } }));
    }

    function connect() {
      if (source) source.close();
      source = new EventSource(url + "?after=" + last);
      source.addEventListener("entry", onEntry);
      liveEvents().forEach(function (kind) {
        source.addEventListener(kind, function (ev) { announce(kind, ev.data); });
      });
      source.onopen = function () {
        setStatus(true);
        delay = 1000;
        // After a reconnect, anything may have changed while we were away.
        if (opened) {
          liveEvents().forEach(function (k) { announce(k, ""); });
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

    window.addEventListener("offline", function () { setStatus(false); });
    window.addEventListener("online", function () {
      if (!source || source.readyState !== EventSource.OPEN) connect();
      else setStatus(true); // the open stream survived a short loss of the network
    });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible" && (!source || source.readyState === EventSource.CLOSED)) connect();
    });
    if (log) log.scrollTop = log.scrollHeight;
    connect();
  }

  // A filtered log shows a live entry only if it passes the filter (the entry carries its header's fields).
  function matches(log, node) {
    var text = log.getAttribute("data-filter-q");  // the search: what this viewer's line shows (log.log_text)
    if (text) {
      var shown = "";
      node.querySelectorAll(".summary, .details, .note, .talk-text").forEach(function (p) { shown += " " + p.textContent; });
      if (shown.toLowerCase().indexOf(text.toLowerCase()) < 0) return false;
    }
    var kind = log.getAttribute("data-filter-kind");  // talk / rolls / ic / whispers: the entry's data-kinds
    if (kind && (node.getAttribute("data-kinds") || "").split(" ").indexOf(kind) < 0) return false;
    return ["character", "player", "session", "system"].every(function (k) {
      var want = log.getAttribute("data-filter-" + k);
      return !want || node.getAttribute("data-" + k) === want;
    });
  }

  // --- the log: jump to latest ------------------------------------------------------------------------------
  function showJump(log) {
    var jump = document.getElementById("jump-latest");
    if (jump) jump.hidden = false;
  }

  function watchLog(log) {
    var jump = document.getElementById("jump-latest");
    if (!jump) return;
    log.addEventListener("scroll", function () { jump.hidden = nearBottom(log); });
    jump.addEventListener("click", function () {
      log.scrollTop = log.scrollHeight;
      jump.hidden = true;
      var lastEntry = log.lastElementChild;
      if (lastEntry) { lastEntry.setAttribute("tabindex", "-1"); lastEntry.focus({ preventScroll: true }); }
    });
  }

  // --- HTMX: the result comes to the player, focus and choices survive the swap, failures show ----------------
  // What a form keeps after its roll: the player's choices. A field marked data-reset spends something (Persona,
  // Fame, a Life, advantage dice...) and goes back to the server's value, so a second roll never spends again.
  var KEEP = "select, input[type=radio], input[type=checkbox], input[type=number], input[name=expression]";
  var lastFocus = null;
  var focusInTarget = false;
  var openFolds = [];
  var snapshot = null;

  function describe(el) {
    if (!el || el === body() || !el.tagName) return null;
    return { id: el.id, name: el.getAttribute("name"), value: el.getAttribute("value"), text: el.textContent,
             tag: el.tagName };
  }

  function findAgain(d, scope) {
    if (!d) return null;
    if (d.id) return document.getElementById(d.id);
    var candidates = (scope && scope.isConnected ? scope : document).querySelectorAll(d.tag);
    for (var i = 0; i < candidates.length; i++) {
      var c = candidates[i];
      if (c.getAttribute("name") === d.name && c.getAttribute("value") === d.value && c.textContent === d.text) return c;
    }
    return null;
  }

  function formKey(form) {
    var prompt = form.querySelector("[name=prompt_id]");
    return (form.getAttribute("hx-post") || form.getAttribute("action") || "") + "|" + (prompt ? prompt.value : "");
  }

  function takeSnapshot(form) {
    var fields = [];
    form.querySelectorAll(KEEP).forEach(function (f) {
      if (f.hasAttribute("data-reset") || f.disabled) return;
      if (f.type === "radio" && !f.checked) return;
      fields.push({ name: f.name, value: f.value, radio: f.type === "radio", box: f.type === "checkbox",
                    checked: f.checked });
    });
    var open = [];
    form.querySelectorAll("details").forEach(function (d, i) { if (d.open) open.push(i); });
    return { key: formKey(form), fields: fields, open: open };
  }

  function inRange(field, value) {
    if (field.type !== "number") return true;
    var n = Number(value);
    if (value === "" || isNaN(n)) return value === "" && !field.required;
    return !(field.min !== "" && n < Number(field.min)) && !(field.max !== "" && n > Number(field.max));
  }

  function restoreSnapshot(snap) {
    var forms = document.querySelectorAll("form");
    for (var i = 0; i < forms.length; i++) {
      if (formKey(forms[i]) !== snap.key) continue;
      var form = forms[i];
      form.querySelectorAll("details").forEach(function (d, j) { if (snap.open.indexOf(j) >= 0) d.open = true; });
      snap.fields.forEach(function (f) {
        if (!f.name) return;
        if (f.box) {
          var box = form.querySelector("input[type=checkbox][name=\"" + CSS.escape(f.name) + "\"][value=\"" + CSS.escape(f.value) + "\"]");
          if (box && !box.disabled && !box.hasAttribute("data-reset")) box.checked = f.checked;
          return;
        }
        if (f.radio) {
          var radio = form.querySelector("input[type=radio][name=\"" + CSS.escape(f.name) + "\"][value=\"" + CSS.escape(f.value) + "\"]");
          if (radio && !radio.disabled) radio.checked = true;
          return;
        }
        var field = form.querySelector("[name=\"" + CSS.escape(f.name) + "\"]:not([type=hidden])");
        if (!field || field.value === f.value || field.hasAttribute("data-reset") || !inRange(field, f.value)) return;
        if (field.tagName === "SELECT") {
          var opt = Array.prototype.find.call(field.options, function (o) { return o.value === f.value && !o.disabled; });
          if (!opt) return;
        }
        field.value = f.value;
        field.dispatchEvent(new Event("change", { bubbles: true }));
      });
      return;
    }
  }

  function findResult(scope) {
    var root = scope && scope.isConnected ? scope : document;
    return root.querySelector("[data-result], .result[role=status]") ||
      (root.matches && root.matches("[data-result]") ? root : null);
  }

  function showResult(result) {
    result.setAttribute("tabindex", "-1");
    result.scrollIntoView({ block: "center" });
    result.focus({ preventScroll: true });
  }

  // A refused form (the server renders each error next to its field): its first error comes into view and its
  // field takes focus, after an HTMX swap and on a whole page answered 4xx (body[data-refused], app/web.py) alike,
  // so a tap that was refused never looks like a tap that did nothing. Field errors first, then a form's own.
  var CONTROL = "input:not([type=hidden]), select, textarea";
  var errorCount = 0;

  function usable(el) {
    return el && !el.disabled && el.getClientRects().length > 0;
  }

  function firstError(scope) {
    var root = scope && scope.isConnected ? scope : document;
    var lists = [".field-error", ".error[role=alert]"];
    for (var i = 0; i < lists.length; i++) {
      var found = root.querySelectorAll(lists[i]);
      for (var j = 0; j < found.length; j++) {
        if (found[j].closest(".request-error")) continue;  // a network failure: showFailure focuses its retry
        return found[j];
      }
    }
    return null;
  }

  // The field an error belongs to: the one data-for names or that aria-describedby points from; else the nearest
  // control before the error (an error follows its field, or a row holding its fields); else the first one after
  // it in the same group (an error at the head of a fieldset); else the first control of the error's form.
  function fieldFor(err) {
    var named = err.dataset.for ? document.getElementById(err.dataset.for) : null;
    if (!named && err.id) named = document.querySelector("[aria-describedby~=\"" + CSS.escape(err.id) + "\"]");
    if (named) return named;
    var n;
    for (n = err.previousElementSibling; n; n = n.previousElementSibling) {
      if (n.matches(".field-error, .error, .help, .muted, legend")) continue;
      if (n.matches(CONTROL)) return n;
      var inside = n.querySelector(CONTROL);
      if (inside) return inside;
      if (n.tagName === "LABEL" && n.control) return n.control;
    }
    for (n = err.nextElementSibling; n; n = n.nextElementSibling) {
      if (n.matches(CONTROL)) return n;
      var after = n.querySelector(CONTROL);
      if (after) return after;
    }
    var form = err.closest("form");
    return form ? form.querySelector(CONTROL) : null;
  }

  function revealError(scope) {
    var err = firstError(scope);
    if (!err) return false;
    for (var d = err.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) d.open = true;
    var field = fieldFor(err);
    if (field) {
      for (var f = field.closest("details"); f; f = f.parentElement && f.parentElement.closest("details")) f.open = true;
    }
    if (!err.id) err.id = "form-error-" + (++errorCount);
    err.scrollIntoView({ block: "center" });
    if (usable(field)) {
      field.setAttribute("aria-invalid", "true");
      var described = (field.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean);
      if (described.indexOf(err.id) < 0) field.setAttribute("aria-describedby", described.concat([err.id]).join(" "));
      field.focus({ preventScroll: true });
    } else {
      err.setAttribute("tabindex", "-1");
      err.focus({ preventScroll: true });
    }
    return true;
  }

  function clearFailure(elt) {
    var holder = elt && elt.closest && (elt.closest("form") || elt);
    if (!holder) return;
    var next = holder.nextElementSibling;
    if (next && next.classList.contains("request-error")) next.remove();
  }

  function showFailure(elt, text) {
    var holder = elt.closest("form") || elt;
    clearFailure(holder);
    var box = document.createElement("div");
    box.className = "request-error";
    box.setAttribute("role", "alert");
    var p = document.createElement("p");
    p.className = "error";
    p.textContent = text;
    var retry = document.createElement("button");
    retry.type = "button";
    retry.className = "retry";
    retry.textContent = msg("msgRetry", "Try again");
    // The form is untouched (nothing was swapped), so it still holds the same Idempotency-Key: a retry of a
    // request that did reach the server returns the first result instead of acting twice.
    retry.addEventListener("click", function () {
      box.remove();
      if (!window.htmx) return;
      if (holder.tagName === "FORM") window.htmx.trigger(holder, "submit");
      else window.htmx.trigger(holder, "click");
    });
    box.appendChild(p);
    box.appendChild(retry);
    holder.insertAdjacentElement("afterend", box);
    retry.focus();
  }

  document.addEventListener("htmx:beforeRequest", function (ev) {
    var elt = ev.detail.elt;
    var verb = (ev.detail.requestConfig && ev.detail.requestConfig.verb) || "get";
    if (verb !== "get") {
      // A new attempt to act clears the last failure; a background fetch inside the form (the odds, a live
      // panel) leaves the error and its retry where the player is looking.
      clearFailure(elt);
      inflight++;
      var form = elt.closest ? elt.closest("form") : null;
      snapshot = form ? takeSnapshot(form) : null;
    }
  });

  document.addEventListener("htmx:afterRequest", function (ev) {
    var verb = (ev.detail.requestConfig && ev.detail.requestConfig.verb) || "get";
    if (verb === "get" || inflight === 0) return;
    // After the swap has settled (htmx settles 20 ms later), run the refreshes that waited.
    setTimeout(function () {
      inflight = Math.max(0, inflight - 1);
      if (inflight === 0 && pending.size && !timer) timer = setTimeout(flush, 60);
    }, 60);
  });

  document.addEventListener("htmx:beforeSwap", function (ev) {
    var target = ev.detail.target;
    var verb = (ev.detail.requestConfig && ev.detail.requestConfig.verb) || "get";
    // The sections the player opened (a sheet's folds: <details id=…>) stay open in what replaces them.
    openFolds = [];
    if (target && target.querySelectorAll) {
      target.querySelectorAll("details[id][open]").forEach(function (d) { openFolds.push(d.id); });
    }
    var active = document.activeElement;
    // Focus on <body> here means an earlier swap took it and has not settled yet (two live swaps in a row):
    // keep what that one saw, so its settle can still put focus back.
    if (active && active !== body()) {
      lastFocus = describe(active);
      focusInTarget = !!(target && target.contains && target.contains(active));
    }
  });

  document.addEventListener("htmx:afterSettle", function (ev) {
    var verb = (ev.detail.requestConfig && ev.detail.requestConfig.verb) || "get";
    var target = ev.detail.target;
    openFolds.forEach(function (id) {
      var fold = document.getElementById(id);
      if (fold && fold.tagName === "DETAILS") fold.open = true;
    });
    openFolds = [];
    var seen = lastFocus, inTarget = focusInTarget;  // what had focus before this swap (once: then forgotten)
    lastFocus = null;
    focusInTarget = false;
    if (verb !== "get") {
      if (snapshot) { restoreSnapshot(snapshot); snapshot = null; }
      var swapped = target && target.isConnected ? target : (target && target.id ? document.getElementById(target.id) : null);
      var status = ev.detail.xhr ? ev.detail.xhr.status : 0;
      if (status >= 400 && status < 500 && revealError(swapped)) return;
      var result = findResult(swapped);
      if (result) { showResult(result); return; }
    }
    // Focus stays where it was (a refetched encounter keeps "Defend" focused), never drops to the body.
    if (!document.activeElement || document.activeElement === body() || !document.activeElement.isConnected) {
      var again = findAgain(seen, target);
      if (again) again.focus({ preventScroll: true });
      var fresh = inTarget && target && target.id ? document.getElementById(target.id) : null;
      if (fresh && (!document.activeElement || document.activeElement === body())) {
        // What had focus is gone (the result of one's last move, replaced when the other side moved): focus
        // the swapped-in element itself, so the next Tab reaches its first control (a duel's "Defend").
        fresh.setAttribute("tabindex", "-1");
        fresh.focus({ preventScroll: true });
      }
    }
  });

  function failed(ev, text) {
    var elt = ev.detail.elt;
    var verb = (ev.detail.requestConfig && ev.detail.requestConfig.verb) || "get";
    if (!elt || (verb === "get" && !(elt.tagName === "BUTTON" || elt.tagName === "FORM"))) return;
    showFailure(elt, text);
  }

  document.addEventListener("htmx:sendError", function (ev) {
    failed(ev, msg("msgOffline", "Could not reach the server. Nothing was done yet — check the connection and try again."));
  });
  document.addEventListener("htmx:timeout", function (ev) {
    failed(ev, msg("msgTimeout", "The server did not answer in time. Try again: it will not be done twice."));
  });
  document.addEventListener("htmx:responseError", function (ev) {
    var xhr = ev.detail.xhr;
    if (xhr && xhr.status >= 400 && xhr.status < 500) return; // the server's answer (a form with the error) was swapped
    if (xhr && xhr.status === 503 && ev.detail.shouldSwap) return;
    failed(ev, msg("msgServer", "Something went wrong on the server. Try again: it will not be done twice."));
  });

  // A ticked box in a live panel (the narrator screen's "whose roll") survives the panel's refresh.
  document.addEventListener("change", function (ev) {
    var field = ev.target;
    if (field && field.closest && field.closest("[data-live]")) field.dataset.dirty = "1";
  });

  // A field's server error goes away once the person edits the field (no second, stale message).
  document.addEventListener("input", function (ev) {
    var field = ev.target;
    if (!field || !field.tagName) return;
    if (field.closest && field.closest("[data-live]")) field.dataset.dirty = "1";
    if (!field.id) return;
    document.querySelectorAll(".field-error[data-for=\"" + CSS.escape(field.id) + "\"]").forEach(function (e) { e.remove(); });
  });

  // The narrator's "Call for a roll" (form[data-call-fit]): with characters ticked, only the kinds of roll that fit
  // every ticked character stay shown — dice fit anyone, a system's roll only that system's characters. A chosen
  // kind that no longer fits falls back to dice. Nothing ticked: every kind is shown (as without JS).
  function fitCall(form) {
    var ticked = {};
    var any = false;
    form.querySelectorAll("input[data-call-system]:checked").forEach(function (box) {
      ticked[box.getAttribute("data-call-system")] = true;
      any = true;
    });
    var systems = Object.keys(ticked);
    // data-call-fit names the call that fits anyone (the dice roller's, "<system>:<action>").
    var anyCall = form.getAttribute("data-call-fit") || "";
    var anyKind = anyCall.split(":")[0];
    var fits = function (kind) { return !any || kind === anyKind || (systems.length === 1 && systems[0] === kind); };
    form.querySelectorAll("label[data-call-kind]").forEach(function (el) {
      var ok = fits(el.getAttribute("data-call-kind"));
      el.hidden = !ok;
      var radio = el.querySelector("input[type=radio]");
      if (radio && !ok && radio.checked) {
        var dice = form.querySelector("input[type=radio][name=call][value='" + anyCall + "']");
        if (dice) dice.checked = true;
      }
    });
    // The fields of the chosen kind only (the others' values are not sent anyway).
    var chosen = form.querySelector("input[name=call]:checked") || form.querySelector("input[type=hidden][name=call]");
    var kind = chosen ? chosen.value.split(":")[0] : anyKind;
    form.querySelectorAll("fieldset[data-call-kind]").forEach(function (el) {
      var own = el.getAttribute("data-call-kind");
      el.hidden = !fits(own) || own !== kind;
    });
  }
  function fitCalls(root) {
    (root || document).querySelectorAll("form[data-call-fit]").forEach(fitCall);
  }
  document.addEventListener("change", function (ev) {
    var form = ev.target && ev.target.closest && ev.target.closest("form[data-call-fit]");
    if (form) fitCall(form);
  });
  document.addEventListener("htmx:afterSettle", function () { fitCalls(); });

  // --- small helpers --------------------------------------------------------------------------------------
  document.addEventListener("click", function (ev) {
    var chip = ev.target.closest && ev.target.closest("[data-fill]");
    if (chip) {
      var input = document.querySelector(chip.dataset.fill);
      if (!input) return;
      input.value = chip.dataset.value;
      input.dispatchEvent(new Event("input", { bubbles: true }));
      input.focus();
      return;
    }
    var copy = ev.target.closest && ev.target.closest("[data-copy]");
    if (copy) {
      var source = document.querySelector(copy.dataset.copy);
      if (!source) return;
      var done = function () {
        var label = copy.textContent;
        copy.textContent = copy.dataset.copied || "Copied";
        setTimeout(function () { copy.textContent = label; }, 2000);
      };
      // The selection copy works in the tap itself everywhere; the Clipboard API only where that did not.
      source.focus();
      source.select();
      var copied = false;
      try { copied = document.execCommand("copy"); } catch (e) { copied = false; }
      if (copied) done();
      else if (navigator.clipboard) navigator.clipboard.writeText(source.value).then(done, function () { /* selected */ });
    }
    // A log time shows its full date when tapped (a phone has no hover).
    var time = ev.target.closest && ev.target.closest(".entry time[title]");
    if (time) {
      var full = time.getAttribute("title");
      time.setAttribute("title", time.textContent);
      time.textContent = full;
    }
  });

  // --- the talk composer (templates/talk/composer.html, team.html) ------------------------------------------
  // Enter sends where there is a real keyboard (a desktop); Shift+Enter, and Enter on a phone, is a new line.
  var desktop = window.matchMedia ? window.matchMedia("(hover: hover) and (pointer: fine)") : null;
  document.addEventListener("keydown", function (ev) {
    var area = ev.target;
    if (!area || !area.matches || !area.matches("textarea[data-talk-text]")) return;
    if (ev.key !== "Enter" || ev.shiftKey || ev.isComposing || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (!desktop || !desktop.matches) return;
    ev.preventDefault();
    var form = area.closest("form");
    if (form && area.value.trim()) form.requestSubmit();
  });

  // A form that knows which pairs of its choices can be tried (form[data-allowed]: a JSON map from the first
  // field's value to the second field's allowed values, the fields named in data-allowed-keys): its submit button
  // [data-allowed-submit] is enabled only for such a pair, and its [data-allowed-note] says why not (an ART attack:
  // the weapon and the target in reach, app/systems/art/fight/attacks.py attack_reach).
  function checkAllowed(form) {
    var keys = (form.dataset.allowedKeys || "").split(" ");
    var map;
    try { map = JSON.parse(form.dataset.allowed || "{}"); } catch (e) { return; }
    var first = form.elements[keys[0]], second = form.elements[keys[1]];
    if (!first || !second) return;
    var allowed = (map[first.value] || []).map(String).indexOf(String(second.value)) >= 0;
    form.querySelectorAll("[data-allowed-submit]").forEach(function (b) { b.disabled = !allowed; });
    form.querySelectorAll("[data-allowed-note]").forEach(function (n) { n.hidden = allowed; });
  }
  document.addEventListener("change", function (ev) {
    var form = ev.target && ev.target.closest && ev.target.closest("form[data-allowed]");
    if (form) checkAllowed(form);
  });
  function checkAllAllowed() { document.querySelectorAll("form[data-allowed]").forEach(checkAllowed); }
  document.addEventListener("DOMContentLoaded", checkAllAllowed);
  document.addEventListener("htmx:afterSettle", checkAllAllowed);

  // The composer's summary says who speaks to whom as the choices change ("in character · a whisper").
  document.addEventListener("change", function (ev) {
    var field = ev.target;
    if (!field || (field.id !== "talk-as" && field.id !== "talk-audience")) return;
    var form = field.closest("form");
    var summary = form && form.querySelector("[data-talk-summary]");
    var as = form && form.querySelector("#talk-as");
    var audience = form && form.querySelector("#talk-audience");
    if (!summary || !as || !audience) return;
    var kind = (audience.value || "public").split(":")[0];
    summary.textContent = (as.value ? summary.dataset.ic : summary.dataset.ooc) + " · " +
      (summary.dataset[kind] || summary.dataset.public);
  });

  var oddsTimer = null;
  function talkOdds(area) {
    var out = document.getElementById(area.getAttribute("aria-describedby") || "");
    var url = area.dataset.oddsUrl;
    if (!out || !url) return;
    var roll = /^\s*\/(r|roll)\s+([^#]*)/i.exec(area.value);
    clearTimeout(oddsTimer);
    if (!roll || !roll[2].trim()) { out.hidden = true; out.textContent = ""; return; }
    oddsTimer = setTimeout(function () {
      fetch(url + "?expression=" + encodeURIComponent(roll[2].trim()), { credentials: "same-origin" }).then(function (r) {
        return r.text();
      }).then(function (html) {
        out.innerHTML = html;  // our server's odds fragment (templates/rolls/odds.html)
        out.hidden = false;
      }).catch(function () { out.hidden = true; });
    }, 250);
  }

  function mentionPrefix(area) {
    var before = area.value.slice(0, area.selectionStart || 0);
    var found = /(^|[^\w@])@(\w*)$/.exec(before);
    return found ? found[2] : null;
  }

  function talkMentions(area) {
    var list = area.closest("form") && area.closest("form").querySelector("[data-mention-list]");
    if (!list) return;
    var prefix = mentionPrefix(area);
    var any = false;
    list.querySelectorAll("[data-mention]").forEach(function (b) {
      var fits = prefix !== null && b.dataset.mention.toLowerCase().indexOf(prefix.toLowerCase()) === 0;
      b.hidden = !fits;
      any = any || fits;
    });
    list.hidden = !any;
  }

  document.addEventListener("input", function (ev) {
    var area = ev.target;
    if (!area || !area.matches || !area.matches("textarea[data-talk-text]")) return;
    area.rows = Math.min(6, Math.max(1, area.value.split("\n").length));
    talkOdds(area);
    talkMentions(area);
  });

  document.addEventListener("click", function (ev) {
    var pick = ev.target.closest && ev.target.closest("[data-mention]");
    if (!pick) return;
    var form = pick.closest("form");
    var area = form && form.querySelector("textarea[data-talk-text]");
    if (!area) return;
    var prefix = mentionPrefix(area) || "";
    var at = (area.selectionStart || 0) - prefix.length;
    area.value = area.value.slice(0, at) + pick.dataset.mention + " " + area.value.slice(area.selectionStart || 0);
    var caret = at + pick.dataset.mention.length + 1;
    area.focus();
    area.setSelectionRange(caret, caret);
    pick.closest("[data-mention-list]").hidden = true;
  });

  // --- the chat layout (templates/talk/composer.html; the log marked data-chat-log) ------------------------------
  // The composer is pinned to the bottom of the screen (app.css .composer); the page is scrolled so that the log's
  // end is right above it, never under it: on the campaign page when it opens, on every page with a composer when
  // one starts typing and whenever the viewport changes while typing (the keyboard: base.html's viewport asks for
  // resizes-content). The log's own height follows the composer's (--composer-h, app.css).
  function chatParts(area) {
    var team = area && area.closest(".team-talk");
    if (team) return { log: team.querySelector(".log"), composer: area.closest("form"), sticky: false };
    var composer = document.getElementById("composer-panel");
    return { log: document.querySelector("[data-chat-log]"), composer: composer, sticky: true };
  }

  function measureComposer() {
    var composer = document.getElementById("composer-panel");
    if (composer) document.documentElement.style.setProperty("--composer-h", composer.offsetHeight + "px");
  }

  function chatView(area) {
    var parts = chatParts(area);
    if (!parts.log || !parts.composer || !parts.log.getClientRects().length) return;
    measureComposer();
    if (parts.log.scrollHeight > parts.log.clientHeight) parts.log.scrollTop = parts.log.scrollHeight;
    var below = parts.log.getBoundingClientRect().bottom;
    // Where the log's end belongs: above a pinned composer (its height from the bottom of the screen), or with a
    // composer in the flow (team talk) so that the composer's own end meets the bottom of the screen.
    var target = parts.sticky ? window.innerHeight - parts.composer.offsetHeight - 6
      : below + window.innerHeight - parts.composer.getBoundingClientRect().bottom - 6;
    window.scrollBy(0, below - target);
  }

  var typing = null;
  document.addEventListener("focusin", function (ev) {
    var area = ev.target;
    if (!area || !area.matches || !area.matches("textarea[data-talk-text]")) return;
    typing = area;
    chatView(area);
  });
  document.addEventListener("focusout", function (ev) { if (ev.target === typing) typing = null; });
  var resized = null;
  function onResize() {
    clearTimeout(resized);
    resized = setTimeout(function () {
      measureComposer();
      if (typing && document.activeElement === typing) chatView(typing);
    }, 60);
  }
  window.addEventListener("resize", onResize);
  if (window.visualViewport) window.visualViewport.addEventListener("resize", onResize);
  document.addEventListener("htmx:afterSettle", function (ev) {
    // A message sent (the composer's own form, answered 2xx): the log's end stays right above the composer.
    var t = ev.detail && ev.detail.target;
    var verb = (ev.detail.requestConfig && ev.detail.requestConfig.verb) || "get";
    var status = ev.detail.xhr ? ev.detail.xhr.status : 0;
    if (!t || t.id !== "composer-panel" || verb === "get" || status >= 400) return;
    chatView(document.querySelector("#composer-panel textarea[data-talk-text]"));
  });

  // The campaign page opens on its chat (its prompts, encounters and pictures above, a scroll away), unless it was
  // asked for a place (#…) or shows a refused form.
  function openOnChat() {
    var log = document.querySelector("#log-entries[data-chat-log]");
    if (!log || location.hash || body().hasAttribute("data-refused")) return;
    chatView(null);
  }

  // A form swapped in a moment ago may be submitted before htmx has taken it over (a fast tap on a phone):
  // the browser would then send it as a plain GET, putting its fields (its Idempotency-Key too) in the URL and
  // leaving the page. Such a submit is stopped and handed to htmx instead.
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!window.htmx || !form.matches || !form.matches("form[hx-post],form[hx-put],form[hx-patch],form[hx-get]")) return;
    var data = form["htmx-internal-data"];
    if (data && data.initHash) return;  // htmx's own listener handles it
    ev.preventDefault();
    window.htmx.process(form);
    window.htmx.trigger(form, "submit");
  }, true);

  document.addEventListener("DOMContentLoaded", function () {
    if (body().hasAttribute("data-refused")) revealError(document.querySelector("main"));
    var holder = document.querySelector("[data-stream]");
    if (holder && window.EventSource) startLog(holder);
    var log = document.getElementById("log-entries");
    if (log) watchLog(log);
    measureComposer();
    openOnChat();
    knownPrompts = seenPrompts();
    if (holder && window.EventSource) remotePrompts(true);
    fitCalls();
  });
})();
