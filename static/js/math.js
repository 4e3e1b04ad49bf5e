// Renders the LaTeX that evaluators extracted and the math spans the server cut out of the
// problem and the model output (reviewer/pages/rendered_text.py), and nothing else.
//
// Each `.math[data-latex]` element holds the LaTeX twice, both autoescaped by Django: in its
// data attribute (read through `dataset`, so the browser has already decoded it to plain text)
// and as its raw text inside `.math-raw`. KaTeX draws into a new `.math-rendered` child; the
// raw text stays in the page for the raw/rendered toggle. Nothing here touches innerHTML.
// Math inside a closed fold is drawn when the fold opens; the model output's box scrolls to the
// extracted answer.
(function () {
  "use strict";

  // Untrusted input: no \href or \includegraphics, bounded macro expansion and sizes.
  var KATEX_OPTIONS = {
    displayMode: false,
    trust: false,
    maxExpand: 1000,
    maxSize: 10,
    throwOnError: false,
    strict: "ignore",
    output: "htmlAndMathml",
  };
  var RAW_KEY = "mathjury.rawMath";

  // LaTeX that KaTeX cannot draw is shown as written, as text. Never KaTeX's message: it
  // quotes the input and names KaTeX's internals (RELIABILITY E4).
  function showAsWritten(target, latex) {
    target.className = "math-rendered math-error";
    target.textContent = latex;
    target.title = "This LaTeX cannot be drawn; it is shown as written.";
  }

  function renderOne(el) {
    if (el.dataset.rendered === "1") return;
    el.dataset.rendered = "1";
    var latex = el.dataset.latex;
    var target = document.createElement("span");
    target.className = "math-rendered";
    try {
      var options = KATEX_OPTIONS;
      if (el.dataset.display === "1") options = Object.assign({}, KATEX_OPTIONS, { displayMode: true });
      window.katex.render(latex, target, options);
      // A parse error is drawn by KaTeX itself (throwOnError: false), its message in a title.
      if (target.querySelector(".katex-error")) showAsWritten(target, latex);
    } catch (err) {
      showAsWritten(target, latex);
    }
    el.appendChild(target);
    el.classList.add("is-rendered");
  }

  function renderAll(root) {
    if (!window.katex) return;
    var scope = root && root.querySelectorAll ? root : document;
    scope.querySelectorAll(".math[data-latex]").forEach(function (el) {
      if (!el.closest("details:not([open])")) renderOne(el);
    });
  }

  // Scroll each output box (not the window) so the marked answer sits in its middle.
  function showAnswer() {
    document.querySelectorAll("[data-output-box]").forEach(function (box) {
      var mark = box.querySelector("mark.extracted");
      if (!mark || box.offsetParent === null) return;
      var offset = mark.getBoundingClientRect().top - box.getBoundingClientRect().top;
      box.scrollTop += offset - box.clientHeight / 2;
    });
  }

  function showAll(button) {
    var panel = button.closest("section") || document;
    panel.querySelectorAll("details[data-fold]").forEach(function (fold) {
      fold.open = true;
    });
    button.hidden = true;
    // What opened above the answer pushed it down: bring it back into view.
    showAnswer();
  }

  function showRaw(raw) {
    document.body.classList.toggle("show-raw-math", raw);
    document.querySelectorAll("[data-math-toggle]").forEach(function (button) {
      button.setAttribute("aria-pressed", raw ? "true" : "false");
      button.textContent = raw ? "Show rendered math" : "Show raw LaTeX";
    });
    try {
      window.localStorage.setItem(RAW_KEY, raw ? "1" : "0");
    } catch (e) {
      // Private windows may refuse storage; the toggle still works for this page.
    }
  }

  function toggleRaw() {
    showRaw(!document.body.classList.contains("show-raw-math"));
  }

  function storedRaw() {
    try {
      return window.localStorage.getItem(RAW_KEY) === "1";
    } catch (e) {
      return false;
    }
  }

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-math-toggle]")) {
      event.preventDefault();
      toggleRaw();
      showAnswer();
    } else if (event.target.closest("[data-show-all]")) {
      event.preventDefault();
      showAll(event.target.closest("[data-show-all]"));
    }
  });

  // A fold or a thinking block opened: draw the math it holds. `toggle` does not bubble.
  document.addEventListener(
    "toggle",
    function (event) {
      if (event.target.open) renderAll(event.target);
    },
    true
  );

  document.addEventListener("DOMContentLoaded", function () {
    renderAll(document);
    showRaw(storedRaw());
    showAnswer();
  });

  // After an outerHTML swap the event's target is the element that was replaced, so scan the
  // document; elements already drawn are skipped.
  document.addEventListener("htmx:afterSwap", function () {
    renderAll(document);
    showRaw(document.body.classList.contains("show-raw-math"));
    showAnswer();
  });

  window.MathJury = window.MathJury || {};
  window.MathJury.toggleRawMath = function () {
    toggleRaw();
    showAnswer();
  };
})();
