/* Hosted checkout: pay without leaving the page (the forms also work without this script),
   rate-lock countdowns, and the receipt's print button. No inline script: CSP allows 'self' only. */
(function () {
  "use strict";

  function $(sel, root) { return (root || document).querySelector(sel); }

  function setBusy(form, busy) {
    form.querySelectorAll("button").forEach(function (b) {
      b.disabled = busy;
      if (b.dataset.busy) {
        if (busy) { b.dataset.label = b.textContent; b.textContent = b.dataset.busy; }
        else if (b.dataset.label) { b.textContent = b.dataset.label; }
      }
    });
  }

  function showError(form, res) {
    var box = $("#error");
    if (!box) { box = document.createElement("div"); box.id = "error"; box.className = "error"; form.prepend(box); }
    box.textContent = (res.error && res.error.message) || "Error";
    box.hidden = false;
    form.querySelectorAll("[aria-invalid]").forEach(function (i) { i.removeAttribute("aria-invalid"); });
    var field = res.error && res.error.field && form.querySelector("[name='" + res.error.field + "']");
    if (field) { field.setAttribute("aria-invalid", "true"); }
    if (res.declined) {
      ["number", "cvc"].forEach(function (n) { var i = form.querySelector("[name=" + n + "]"); if (i) { i.value = ""; } });
      var num = form.querySelector("[name=number]"); if (num) { num.focus(); }
    } else if (field) { field.focus(); }
    if (res.csrf) { document.querySelectorAll("input[name=csrf]").forEach(function (i) { i.value = res.csrf; }); }
  }

  // The choice of method: without this script each choice is a link (`?method=`) that the
  // service answers with that method's form; with it the page shows the form at once (all the
  // forms are in the page, the others hidden) and the test-mode notice of the same method.
  function choose(method, href) {
    document.querySelectorAll("a.method-choice").forEach(function (a) {
      if (a.dataset.method === method) { a.setAttribute("aria-current", "true"); } else { a.removeAttribute("aria-current"); }
    });
    document.querySelectorAll(".method-panel[data-method], .test-mode[data-method]").forEach(function (el) {
      el.hidden = el.dataset.method !== method;
    });
    var box = $("#error"); if (box) { box.hidden = true; }
    document.querySelectorAll(".languages a").forEach(function (a) {
      a.setAttribute("href", a.getAttribute("href").replace(/&method=[a-z_]+$/, "") + "&method=" + method);
    });
    if (window.history && history.replaceState) { history.replaceState(null, "", href); }
  }

  function bindChoices(root) {
    root.querySelectorAll("a.method-choice").forEach(function (a) {
      a.addEventListener("click", function (ev) {
        ev.preventDefault();
        choose(a.dataset.method, a.getAttribute("href"));
      });
    });
  }

  function bindForms(root) {
    bindChoices(root);
    root.querySelectorAll("form[data-ajax]").forEach(function (form) {
      form.addEventListener("submit", function (ev) {
        if (!window.fetch || !window.URLSearchParams) { return; }     // plain form POST
        ev.preventDefault();
        var body = new URLSearchParams(new FormData(form));
        if (ev.submitter && ev.submitter.name) { body.set(ev.submitter.name, ev.submitter.value); }
        setBusy(form, true);
        // form.action is shadowed by the input named "action": read the attribute.
        fetch(form.getAttribute("action"), {method: "POST", body: body, credentials: "same-origin",
                            headers: {"X-Qafila-Fetch": "1", "Accept": "application/json"}})
          .then(function (r) { return r.json(); })
          .then(function (res) {
            if (res.html) {
              var panel = $("#panel");
              panel.innerHTML = res.html;
              bindForms(panel); countdowns(panel);
              panel.focus();
              return;
            }
            setBusy(form, false);
            showError(form, res);
          })
          .catch(function () { setBusy(form, false); form.submit(); });
      });
    });
    var num = root.querySelector("input[name=number]");
    if (num) {
      num.addEventListener("input", function () {
        var digits = num.value.replace(/\D/g, "").slice(0, 19);
        num.value = digits.replace(/(\d{4})(?=\d)/g, "$1 ");
        installments(root, digits);
      });
    }
  }

  // Installments (taksit): once the card's first 6 (then 8) digits are known, the table of
  // the counts its bank offers, rendered by the service in the page's language; the buyer's
  // pick is posted with the card form. Only the BIN leaves the page.
  var instKey = null;
  function installments(root, digits) {
    var box = root.querySelector("#installments");
    if (!box || !window.fetch) { return; }
    var key = digits.length >= 8 ? digits.slice(0, 8) : digits.length >= 6 ? digits.slice(0, 6) : "";
    if (key === instKey) { return; }
    instKey = key;
    if (!key) { box.innerHTML = ""; return; }
    var url = box.dataset.url + "?bin=" + key + "&locale=" + encodeURIComponent(document.documentElement.lang || "en");
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) { return r.json(); })
      .then(function (res) { if (instKey === key) { box.innerHTML = res.html || ""; } })
      .catch(function () { if (instKey === key) { box.innerHTML = ""; } });
  }

  function countdowns(root) {
    root.querySelectorAll(".countdown[data-until]").forEach(function (el) {
      var until = Date.parse(el.dataset.until);
      function tick() {
        var left = Math.max(0, Math.floor((until - Date.now()) / 1000));
        if (left <= 0) { el.textContent = el.dataset.expired || "0:00"; return; }
        el.textContent = Math.floor(left / 60) + ":" + ("0" + (left % 60)).slice(-2);
        setTimeout(tick, 1000);
      }
      tick();
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    bindForms(document); countdowns(document);
    document.querySelectorAll("[data-print]").forEach(function (b) {
      b.addEventListener("click", function () { window.print(); });
    });
  });
})();
