// The orders form without page reloads. Everything here also works without this script: each step is a
// form POST that answers with the whole page; with it, the same POST answers with the changed part only
// (asked for by the X-PBEM-Fragment header), which takes the old part's place. Nothing is fetched from
// anywhere but this host. Hand-written, no build step.
(function () {
  "use strict";

  var FRAGMENT = { "X-PBEM-Fragment": "1" };

  function post(form, submitter) {
    // FormData with the button pressed, so its name and value (the step chosen) travel as without script;
    // a browser that cannot (FormData's submitter is recent) rejects, and the form is sent plainly
    return Promise.resolve().then(function () {
      var data = new FormData(form, submitter || undefined);
      return fetch(form.action, { method: "POST", body: data, headers: FRAGMENT, credentials: "same-origin" });
    }).then(function (answer) {
      if (answer.status >= 500) throw new Error("host error " + answer.status);
      return answer.text();
    });
  }

  function put(id, html) {
    var holder = document.createElement("template");
    holder.innerHTML = html.trim();
    var fresh = holder.content.firstElementChild;
    var old = document.getElementById(id);
    if (!fresh || !old || fresh.id !== id) return null;
    old.replaceWith(fresh);
    return fresh;
  }

  // where the keyboard goes next: the first step offered, else sending, else the heading
  function focusIn(part) {
    var next = part.querySelector("[data-step] button[name=add]") ||
      part.querySelector("button.send") || part.querySelector("#orders-title");
    if (next) next.focus();
  }

  function plainly(form, submitter) {
    form.setAttribute("data-plain", "");
    if (form.requestSubmit) form.requestSubmit(submitter || undefined);
    else form.submit();
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.hasAttribute("data-plain")) return;
    var submitter = event.submitter;
    if (form.matches("[data-step], [data-submit]")) {
      event.preventDefault();
      post(form, submitter).then(function (html) {
        var part = put("orders", html);
        if (part) focusIn(part); else plainly(form, submitter);
      }, function () { plainly(form, submitter); });
    } else if (form.matches("[data-yaml]")) {
      event.preventDefault();
      post(form, submitter).then(function (html) {
        if (!put("yaml-result", html)) plainly(form, submitter);
      }, function () { plainly(form, submitter); });
    }
  });

  // the YAML box checked as it is typed in, a moment after the typing stops
  var waiting = null;
  document.addEventListener("input", function (event) {
    var box = event.target;
    if (box.id !== "orders-text") return;
    clearTimeout(waiting);
    waiting = setTimeout(function () {
      var form = box.form;
      var check = form.querySelector("button[value=check]");
      post(form, check).then(function (html) { put("yaml-result", html); }, function () {});
    }, 500);
  });
})();
