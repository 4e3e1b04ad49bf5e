// Keyboard review on the item page. Every key clicks a real button or link that the server
// rendered (and that works without JavaScript): 1-4 verdicts, j/k next/previous, n next
// flagged unreviewed row, c the note field (Enter saves, Esc leaves it), t raw/rendered math,
// ? the list of keys.
(function () {
  "use strict";

  var NAV_KEYS = { j: "next", k: "previous", n: "next-flagged" };

  function clickFirst(selector) {
    var el = document.querySelector(selector);
    if (!el || el.disabled) return false;
    el.click();
    return true;
  }

  function say(text) {
    var status = document.getElementById("key-status");
    if (!status) return;
    status.textContent = text;
  }

  function toggleHelp() {
    var dialog = document.getElementById("keys-help");
    if (!dialog) return;
    if (dialog.open) {
      dialog.close();
    } else {
      dialog.showModal();
    }
  }

  function onNoteKey(event) {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      clickFirst("[data-verdict-default]");
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.target.blur();
    }
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target.matches && target.matches("[data-note]")) {
      onNoteKey(event);
      return;
    }
    if (target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
    var dialog = document.getElementById("keys-help");
    if (dialog && dialog.open && event.key !== "?") return;

    var key = event.key;
    if (key === "?") {
      event.preventDefault();
      toggleHelp();
    } else if (key === "t") {
      if (window.MathJury && window.MathJury.toggleRawMath) window.MathJury.toggleRawMath();
    } else if (NAV_KEYS[key]) {
      event.preventDefault();
      if (!clickFirst('[data-nav="' + NAV_KEYS[key] + '"]')) {
        say(key === "n" ? "No row left to review after this one." : "No more rows here.");
      }
    } else if (key === "a") {
      event.preventDefault();
      if (!clickFirst("[data-ruling-apply]")) say("No ruling to apply here.");
    } else if (!document.querySelector("[data-review-form]")) {
      return;
    } else if (/^[1-4]$/.test(key)) {
      event.preventDefault();
      clickFirst('[data-verdict-key="' + key + '"]');
    } else if (key === "c") {
      var note = document.querySelector("[data-note]");
      if (note) {
        event.preventDefault();
        note.focus();
      }
    }
  });

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-keys-help]")) {
      event.preventDefault();
      toggleHelp();
    }
  });
})();
