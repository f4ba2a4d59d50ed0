// Progressive enhancement only: the page works without this file.
document.documentElement.classList.add("js");

document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const source = document.querySelector(button.dataset.copy);
  if (!source) return;
  const text = source.textContent;
  const done = button.dataset.done || "Copied";
  try {
    await navigator.clipboard.writeText(text);
  } catch (err) {
    // Clipboard API needs a secure context; fall back to selecting the text.
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    document.execCommand("copy");
  }
  const label = button.textContent;
  button.textContent = done;
  setTimeout(() => { button.textContent = label; }, 1500);
});

// The language switch goes back to the page as it is now: htmx updates the address bar
// (the design lives in the query string) after the page was rendered.
document.addEventListener("submit", (event) => {
  const form = event.target.closest("[data-lang-switch]");
  if (!form || !form.elements.next) return;
  form.elements.next.value = window.location.pathname + window.location.search;
});

// ==== issue 16: the designer's answers in order, the user's edits, QoS announcements ====
// No Kubernetes or preset rule here: which fields a preset may change is the server's
// decision (design.actions.apply_action); this only says which fields the user edited and
// keeps an answer from overwriting what the user typed since it was asked for.
(function () {
  "use strict";
  var edits = 0; // the user's edits of the form so far
  var shownEdits = 0; // the edits the answer on screen was asked with
  var shownAction = false; // whether that answer came from a button or preset (#designer)
  var pending = []; // per #designer request on its way: the fields edited since it was sent

  function inDesignForm(el) {
    return el && el.form && el.form.id === "design-form";
  }

  // Capture phase: before htmx's own listener sends the request the edit causes. Every
  // input event counts (a live request follows each), whoever dispatched it.
  function edited(event) {
    var el = event.target;
    if (!inDesignForm(el) || !el.name) return;
    edits += 1;
    if (el.hasAttribute("data-untracked") || el.type === "hidden") return;
    pending.forEach(function (names) {
      if (names.indexOf(el.name) === -1) names.push(el.name);
    });
    var touched = document.getElementById("id_touched");
    if (!touched) return;
    var names = touched.value ? touched.value.split(",") : [];
    if (names.indexOf(el.name) === -1) {
      names.push(el.name);
      touched.value = names.join(",");
    }
  }
  document.addEventListener("input", edited, true);
  document.addEventListener("change", edited, true);

  function isDesigner(target) {
    return target && (target.id === "designer" || target.id === "results");
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var detail = event.detail;
    if (!isDesigner(detail.target)) return;
    detail.xhr.designerEdits = edits;
    if (detail.target.id === "designer") {
      detail.xhr.designerSince = [];
      pending.push(detail.xhr.designerSince);
    }
  });
  // An answer's list is dropped once it is read (beforeSwap) or the request failed.
  function answered(xhr) {
    var names = xhr && xhr.designerSince;
    if (names) pending = pending.filter(function (p) { return p !== names; });
  }
  ["htmx:afterRequest", "htmx:sendError", "htmx:timeout"].forEach(function (name) {
    document.addEventListener(name, function (event) { answered(event.detail.xhr); });
  });

  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail;
    var asked = detail.xhr && detail.xhr.designerEdits;
    answered(detail.xhr);
    if (asked === undefined || !detail.shouldSwap) return;
    if (detail.target.id === "designer") {
      if (asked !== edits) {
        // The user typed while this answer was on its way: it would replace the form and
        // lose that. Ask again, from the same control, with what is on screen now and the
        // fields typed since (the server keeps them as typed, whatever the action does).
        detail.shouldSwap = false;
        var since = document.getElementById("id_since");
        if (since) {
          var names = since.value ? since.value.split(",") : [];
          (detail.xhr.designerSince || []).forEach(function (name) {
            if (names.indexOf(name) === -1) names.push(name);
          });
          since.value = names.join(",");
        }
        var config = detail.requestConfig || {};
        var source = config.elt;
        if (source && document.body.contains(source)) {
          var trigger = config.triggeringEvent;
          htmx.trigger(source, trigger && trigger.type ? trigger.type : "click");
        }
        return;
      }
      shownAction = true;
    } else {
      // A live answer asked with an older form than the one on screen, or with the same
      // form as a button's answer on screen (which it would undo), is out of date.
      if (asked < shownEdits || (asked === shownEdits && shownAction)) {
        detail.shouldSwap = false;
        return;
      }
      shownAction = false;
    }
    shownEdits = asked;
  });

  // The polite live region says the QoS class and the error count when they change.
  var announced = null;
  function announce() {
    var status = document.getElementById("live-status");
    var region = document.getElementById("qos-announcer");
    if (!status || !region) return;
    var text = status.getAttribute("data-announce");
    if (announced !== null && text !== announced) region.textContent = text;
    announced = text;
  }
  document.addEventListener("DOMContentLoaded", announce);
  document.addEventListener("htmx:afterSettle", announce);
})();

// htmx swaps no 4xx/5xx answer by itself, so a failed Share would do nothing visible. The
// server marks answers that carry a message for the page (X-Swap-Error: true): show them.
document.addEventListener("htmx:beforeSwap", (event) => {
  const xhr = event.detail.xhr;
  if (xhr && xhr.status >= 400 && xhr.getResponseHeader("X-Swap-Error") === "true") {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
});
