/* Handouts and the scene (templates/handouts/). No text of its own: what it shows comes from data-* attributes.
   - Upload: drag-and-drop or the file picker (a phone's camera roll too), sent by HTMX as multipart with a
     progress bar; the answer is the library panel, swapped in.
   - The viewer: a tap on a picture (a scene: with its pins) opens it in the native <dialog> (#handout-viewer); pinch-zoom
     works there, and "Actual size" shows it unscaled to pan.
   - The scene (narrators): a tap on the picture marks where a new pin goes; pins are dragged to move them.
     Every change goes to the server, which logs it and tells every open page (the `scene` event). */
(function () {
  "use strict";

  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRF-Token"] || ""; }
    catch (e) { return ""; }
  }

  function swapPanel(id, html) {  // the scene after a pin was dragged
    var doc = new DOMParser().parseFromString(html, "text/html");
    var fresh = doc.getElementById(id);
    var old = document.getElementById(id);
    if (!fresh || !old) return;
    var node = document.importNode(fresh, true);
    old.replaceWith(node);
    if (window.htmx) window.htmx.process(node);
  }

  // --- upload ---------------------------------------------------------------------------------------------
  // The form is an HTMX form (hx-encoding multipart): app.js's handling of a request in flight, its errors and
  // retry apply. Here: the progress bar while the file goes up, then "checking" while the server decodes it.
  function uploadForm(ev) {
    var elt = ev.detail && ev.detail.elt;
    return elt && elt.matches && elt.matches("form[data-handout-upload]") ? elt : null;
  }

  document.addEventListener("htmx:beforeRequest", function (ev) {
    var form = uploadForm(ev);
    if (!form) return;
    var bar = form.querySelector("progress");
    bar.hidden = false;
    bar.value = 0;
    form.querySelector(".upload-status").textContent = form.dataset.msgUploading;
  });
  document.addEventListener("htmx:xhr:progress", function (ev) {
    var form = uploadForm(ev);
    if (!form || !ev.detail.total) return;
    form.querySelector("progress").value = Math.round(100 * ev.detail.loaded / ev.detail.total);
    if (ev.detail.loaded >= ev.detail.total) form.querySelector(".upload-status").textContent = form.dataset.msgChecking;
  });
  document.addEventListener("htmx:sendError", function (ev) {
    var form = uploadForm(ev);
    if (!form) return;
    form.querySelector("progress").hidden = true;
    form.querySelector(".upload-status").textContent = form.dataset.msgFailed;
  });

  document.addEventListener("change", function (ev) {
    var input = ev.target;
    if (!input.matches || !input.matches("form[data-handout-upload] input[type=file]")) return;
    var title = input.form.querySelector("input[name=title]");
    if (input.files.length && title && !title.value) title.value = input.files[0].name.replace(/\.[^.]+$/, "");
  });

  ["dragenter", "dragover"].forEach(function (type) {
    document.addEventListener(type, function (ev) {
      var zone = ev.target.closest && ev.target.closest("form[data-handout-upload]");
      if (!zone) return;
      ev.preventDefault();
      zone.classList.add("dragging");
    });
  });
  document.addEventListener("dragleave", function (ev) {
    var zone = ev.target.closest && ev.target.closest("form[data-handout-upload]");
    if (zone && !zone.contains(ev.relatedTarget)) zone.classList.remove("dragging");
  });
  document.addEventListener("drop", function (ev) {
    var zone = ev.target.closest && ev.target.closest("form[data-handout-upload]");
    if (!zone) return;
    ev.preventDefault();
    zone.classList.remove("dragging");
    var input = zone.querySelector("input[type=file]");
    if (ev.dataTransfer && ev.dataTransfer.files.length) {
      input.files = ev.dataTransfer.files;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });

  // --- the viewer -----------------------------------------------------------------------------------------
  function openViewer(source) {
    var dialog = document.getElementById("handout-viewer");
    if (!dialog) return;
    var img = dialog.querySelector(".viewer-stage img");
    var url = source.dataset.handoutView;
    img.removeAttribute("srcset");
    if (source.dataset.handoutSrcset) {
      img.setAttribute("srcset", source.dataset.handoutSrcset);
      img.setAttribute("sizes", "100vw");
    }
    img.src = url + "?w=1600";
    img.alt = source.dataset.handoutTitle || "";
    // A scene's pins come along: the page's own SVG (what this viewer may see), laid over the picture.
    var frame = dialog.querySelector(".viewer-frame");
    var old = frame.querySelector("svg.scene-pins");
    if (old) old.remove();
    var shown = source.querySelector("img");
    ["width", "height"].forEach(function (name) {
      if (shown && shown.getAttribute(name)) img.setAttribute(name, shown.getAttribute(name));
      else img.removeAttribute(name);
    });
    var pins = source.querySelector("svg.scene-pins");
    if (pins) {
      var copy = pins.cloneNode(true);
      copy.querySelectorAll(".pin-new").forEach(function (g) { g.remove(); });
      frame.appendChild(copy);
    }
    dialog.querySelector(".viewer-title").textContent = source.dataset.handoutTitle || "";
    dialog.classList.remove("actual");
    dialog.querySelector(".viewer-zoom").setAttribute("aria-pressed", "false");
    dialog.showModal();
  }

  document.addEventListener("click", function (ev) {
    var zoom = ev.target.closest && ev.target.closest(".viewer-zoom");
    if (zoom) {
      var dialog = zoom.closest("dialog");
      var actual = dialog.classList.toggle("actual");
      zoom.setAttribute("aria-pressed", actual ? "true" : "false");
      if (actual) {
        var img = dialog.querySelector(".viewer-stage img");
        img.removeAttribute("srcset");
        img.src = img.src.replace(/\?w=\d+$/, "");
      }
      return;
    }
    var stage = ev.target.closest && ev.target.closest(".scene-stage[data-scene-edit]");
    if (stage) { placePin(stage, ev); return; }
    var source = ev.target.closest && ev.target.closest("[data-handout-view]");
    if (source) { ev.preventDefault(); openViewer(source); }
  });

  // A tap on the dark backdrop closes the viewer.
  document.addEventListener("click", function (ev) {
    var dialog = ev.target;
    if (dialog && dialog.id === "handout-viewer" && dialog.open) dialog.close();
  });

  // --- the scene: place and drag pins (narrators) ---------------------------------------------------------
  function fractionAt(stage, clientX, clientY) {
    var box = stage.querySelector("img").getBoundingClientRect();
    var clamp = function (v) { return Math.min(1, Math.max(0, v)); };
    return { x: clamp((clientX - box.left) / box.width), y: clamp((clientY - box.top) / box.height) };
  }

  function moveMarker(stage, marker, at) {
    var svg = stage.querySelector("svg");
    var box = svg.viewBox.baseVal;
    marker.setAttribute("transform", "translate(" + (at.x * box.width).toFixed(1) + " " + (at.y * box.height).toFixed(1) + ")");
  }

  var dragged = null;
  // Where the narrator tapped last: kept here too, since a live refresh of the panel (another pin, a reveal) may
  // replace the form's hidden fields between the tap and the submit.
  var tapped = null;

  document.addEventListener("htmx:configRequest", function (ev) {
    var form = ev.detail.elt;
    if (!tapped || !form.matches || !form.matches("form.pin-form")) return;
    ev.detail.parameters.x = tapped.x.toFixed(4);
    ev.detail.parameters.y = tapped.y.toFixed(4);
  });
  document.addEventListener("htmx:afterRequest", function (ev) {
    var form = ev.detail.elt;
    if (form.matches && form.matches("form.pin-form") && ev.detail.successful) tapped = null;
  });

  function placePin(stage, ev) {
    if (dragged && dragged.moved) return;  // the click that ends a drag
    if (ev.target.closest("g.pin[data-pin]")) return;
    var at = fractionAt(stage, ev.clientX, ev.clientY);
    tapped = at;
    var panel = stage.closest("#scene-panel");
    panel.querySelector("#pin-x").value = at.x.toFixed(4);
    panel.querySelector("#pin-y").value = at.y.toFixed(4);
    var marker = stage.querySelector(".pin-new");
    marker.hidden = false;
    marker.removeAttribute("hidden");
    moveMarker(stage, marker, at);
    var label = panel.querySelector("#pin-label");
    label.focus({ preventScroll: true });
  }

  document.addEventListener("pointerdown", function (ev) {
    var pin = ev.target.closest && ev.target.closest(".scene-stage[data-scene-edit] g.pin[data-pin]");
    if (!pin) return;
    ev.preventDefault();
    dragged = { pin: pin, stage: pin.closest(".scene-stage"), id: ev.pointerId, moved: false, x: ev.clientX, y: ev.clientY };
    pin.classList.add("dragging");
    try { pin.setPointerCapture(ev.pointerId); } catch (e) { /* not every browser captures on SVG */ }
  });

  document.addEventListener("pointermove", function (ev) {
    if (!dragged || ev.pointerId !== dragged.id) return;
    if (Math.abs(ev.clientX - dragged.x) + Math.abs(ev.clientY - dragged.y) > 4) dragged.moved = true;
    if (!dragged.moved) return;
    ev.preventDefault();
    dragged.at = fractionAt(dragged.stage, ev.clientX, ev.clientY);
    moveMarker(dragged.stage, dragged.pin, dragged.at);
  });

  function endDrag(ev) {
    if (!dragged || ev.pointerId !== dragged.id) return;
    var done = dragged;
    done.pin.classList.remove("dragging");
    setTimeout(function () { dragged = null; }, 0);
    if (!done.moved || !done.at) return;
    var body = new URLSearchParams({ x: done.at.x.toFixed(4), y: done.at.y.toFixed(4) });
    fetch(done.pin.dataset.pinUrl, {
      method: "POST", credentials: "same-origin", body: body,
      headers: { "X-CSRF-Token": csrf(), "HX-Request": "true", "HX-Target": "scene-panel" }
    }).then(function (r) { return r.text(); }).then(function (html) { swapPanel("scene-panel", html); })
      .catch(function () { /* the live refresh puts the pin back where the server has it */ });
  }
  document.addEventListener("pointerup", endDrag);
  document.addEventListener("pointercancel", endDrag);
})();
