/* Web chat: streaming replies over server-sent events (fetch + ReadableStream), stop, feedback, keyboard.
   Without JavaScript every form still works by plain POST (the non-streaming fallback). */
(function () {
  "use strict";

  function csrfToken(form) {
    var input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function strings() {
    var t = document.getElementById("i18n-strings");
    return t ? t.dataset : {};
  }

  function autosubmitLanguage() {
    document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
      select.addEventListener("change", function () { select.form.submit(); });
    });
  }

  function collapseSessionsOnPhone() {
    var panel = document.querySelector("[data-collapse-on-phone]");
    if (panel && window.matchMedia("(max-width: 720px)").matches) panel.removeAttribute("open");
  }

  function scrollToEnd(box) { box.scrollTop = box.scrollHeight; }

  function autosize(textarea) {
    textarea.style.height = "auto";
    textarea.style.height = Math.min(textarea.scrollHeight, window.innerHeight * 0.4) + "px";
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text) node.textContent = text;
    return node;
  }

  function fromHTML(html) {
    var t = document.createElement("template");
    t.innerHTML = html.trim();
    return t.content.firstElementChild;
  }

  /* Parse a text/event-stream body: calls onEvent(name, data) per event. */
  function readEvents(response, onEvent) {
    var reader = response.body.getReader();
    var decoder = new TextDecoder();
    var buffer = "";
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done) return;
        buffer += decoder.decode(chunk.value, { stream: true });
        var parts = buffer.split("\n\n");
        buffer = parts.pop();
        parts.forEach(function (block) {
          var name = "message", data = "";
          block.split("\n").forEach(function (line) {
            if (line.indexOf("event:") === 0) name = line.slice(6).trim();
            else if (line.indexOf("data:") === 0) data += line.slice(5).trim();
          });
          if (data) onEvent(name, JSON.parse(data));
        });
        return pump();
      });
    }
    return pump();
  }

  function newTurnKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.from(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  /* The home page's box: Enter starts the conversation with what was typed (Shift+Enter: a new line). */
  function setupStart() {
    var box = document.getElementById("start-box");
    if (!box) return;
    box.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing && box.value.trim()) {
        event.preventDefault();
        box.form.requestSubmit();
      }
    });
  }

  function setupChat() {
    var form = document.getElementById("composer");
    if (!form) return;
    var box = document.getElementById("message-box");
    var conversation = document.getElementById("conversation");
    var sendButton = document.getElementById("send-button");
    var stopButton = document.getElementById("stop-button");
    var thinking = document.getElementById("thinking");
    var errorBox = document.getElementById("chat-error");
    var taskStrip = document.getElementById("task-strip");
    var canStream = !!(window.fetch && window.ReadableStream && window.TextDecoder && window.AbortController);
    var controller = null;
    var s = strings();

    scrollToEnd(conversation);
    autosize(box);
    if (box.dataset.autosend && canStream && box.value.trim()) {
      // typed on the home page, which started this conversation: send it now, streamed
      setTimeout(function () { form.requestSubmit(); }, 0);
    }
    box.addEventListener("input", function () { autosize(box); });
    box.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        if (!controller) form.requestSubmit ? form.requestSubmit() : form.dispatchEvent(new Event("submit", { cancelable: true }));
      }
    });

    function busy(on) {
      sendButton.disabled = on;
      stopButton.hidden = !on;
      thinking.hidden = !on;
      form.setAttribute("aria-busy", on ? "true" : "false");
    }

    function showError(message) {
      errorBox.textContent = message;
      errorBox.hidden = false;
    }

    function showTitle(text) {
      var title = document.getElementById("conv-title");
      if (title) title.textContent = text;
      // the text only: a temporary chat's "Temporary" tag beside it stays
      var current = document.querySelector(".session-link.current .session-title-text");
      if (current) current.textContent = text;
    }

    var stopState = null; // {form, received(), userMessageId()} of the reply streaming now
    stopButton.addEventListener("click", function () {
      if (!controller) return;
      controller.abort();
      if (stopState) stopState.send();
    });

    var editing = null; // {url, original: <article>} while the person edits their latest message
    var editBar = document.getElementById("editing-bar");

    function stopEditing() {
      editing = null;
      if (editBar) editBar.hidden = true;
    }

    document.addEventListener("click", function (event) {
      var target = event.target.closest ? event.target : null;
      if (!target) return;
      var edit = target.closest(".edit-btn"), regen = target.closest(".regen-btn"), cancel = target.closest("#edit-cancel");
      if (cancel) { stopEditing(); box.value = ""; autosize(box); box.focus(); return; }
      if (controller || !canStream) return;
      if (edit) {
        editing = { url: edit.getAttribute("data-edit-url"), original: edit.closest("article") };
        box.value = edit.getAttribute("data-text") || "";
        autosize(box);
        if (editBar) editBar.hidden = false;
        box.focus();
      } else if (regen) {
        var old = regen.closest("article");
        runTurn({ url: regen.getAttribute("data-regenerate-url"), text: null, replace: [old], userMsg: null });
      }
    });
    box.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && editing) { stopEditing(); box.value = ""; autosize(box); }
    });

    form.addEventListener("submit", function (event) {
      if (!canStream) return; // the plain POST fallback
      event.preventDefault();
      var text = box.value;
      if (controller) return;
      if (!text.trim()) { showError(s.empty); box.focus(); return; } // nothing to send: say so, keep the box
      var userMsg = el("article", "msg msg-user");
      userMsg.appendChild(el("div", "bubble", text));
      if (editing) {
        // Edit and resend: the old message and its reply give way to the new exchange once it is stored.
        var replace = [editing.original];
        for (var n = editing.original.nextElementSibling; n; n = n.nextElementSibling) replace.push(n);
        var url = editing.url;
        stopEditing();
        runTurn({ url: url, text: text, replace: replace, userMsg: userMsg });
      } else {
        runTurn({ url: form.dataset.streamUrl, text: text, replace: [], userMsg: userMsg });
      }
    });

    /* One streamed turn: a new message (userMsg), an edited one (replace: the old exchange) or another reply to
       the latest message (text null, replace: the old reply). */
    function runTurn(turn) {
      var text = turn.text, userMsg = turn.userMsg;
      errorBox.hidden = true;
      var empty = document.getElementById("empty-state");
      if (empty) empty.remove();
      turn.replace.forEach(function (node) { node.classList.add("being-replaced"); });
      if (userMsg) conversation.appendChild(userMsg);
      var reply = el("article", "msg msg-assistant streaming");
      var bubble = el("div", "bubble");
      bubble.innerHTML = '<span class="dots" aria-hidden="true"><i></i><i></i><i></i></span>';
      reply.appendChild(bubble);
      conversation.appendChild(reply);
      scrollToEnd(conversation);
      if (text !== null) { box.value = ""; autosize(box); }
      busy(true);

      var started = false, finished = false, received = "", userMessageId = "";
      // The reply's name, chosen here before the message is sent: Stop names this reply and no other, even when
      // it reaches the server before the message does (web.services.streamed_turn_stop).
      var turnKey = newTurnKey();
      controller = new AbortController();
      var body = new FormData();
      if (text !== null) body.append("text", text);
      body.append("turn", turnKey);
      stopState = { send: function () {
        // Tell the server where the person stopped, so a reload shows the same stop (web.views.chat.chat_stop).
        var stop = new FormData();
        stop.append("turn", turnKey);
        if (userMessageId) stop.append("user_message_id", userMessageId);
        stop.append("chars", String(Array.from(received).length));
        fetch(form.dataset.stopUrl, { method: "POST", body: stop, credentials: "same-origin",
                                      headers: { "X-CSRFToken": csrfToken(form), "Accept": "application/json" } });
      } };

      function restore() { turn.replace.forEach(function (node) { node.classList.remove("being-replaced"); }); }

      function fail(message) {
        // Said once, above the box: a reply that never started goes; what had arrived stays, marked unfinished.
        finished = true;
        reply.classList.remove("streaming");
        if (started) reply.classList.add("msg-error"); else reply.remove();
        showError(message);
        if (text !== null && !box.value) { box.value = text; autosize(box); } // the user's text is never lost
      }

      function settle() {
        // The exchange that was replaced is now an earlier version, shown folded under the new one.
        turn.replace.forEach(function (node) { node.remove(); });
        // Only the latest exchange can be regenerated or edited.
        [["regen-btn", "msg-assistant"], ["edit-btn", "msg-user"]].forEach(function (pair) {
          var articles = conversation.querySelectorAll("article." + pair[1]);
          var latest = articles[articles.length - 1];
          conversation.querySelectorAll("." + pair[0]).forEach(function (button) {
            if (button.closest("article") !== latest) button.remove();
          });
        });
      }

      fetch(turn.url, {
        method: "POST", body: body, signal: controller.signal, credentials: "same-origin",
        headers: { "X-CSRFToken": csrfToken(form), "Accept": "text/event-stream" }
      }).then(function (response) {
        var type = response.headers.get("Content-Type") || "";
        if (!response.ok || type.indexOf("text/event-stream") !== 0) {
          return response.json().catch(function () { return {}; }).then(function (data) {
            if (userMsg) userMsg.remove();
            restore();
            fail(data.error || s.failed);
          });
        }
        return readEvents(response, function (name, data) {
          if (data.title) showTitle(data.title);
          if (name === "context") {
            if (data.user_message_id) userMessageId = String(data.user_message_id);
          } else if (name === "delta") {
            if (!started) { bubble.textContent = ""; bubble.classList.add("markdown"); started = true; }
            received += data.text;
            // The server renders the Markdown (the same renderer as for the stored reply); between two renders
            // the newest text is appended as plain text.
            if (typeof data.html === "string") bubble.innerHTML = data.html;
            else bubble.appendChild(document.createTextNode(data.text));
            scrollToEnd(conversation);
          } else if (name === "stopped") {
            finished = true;
          } else if (name === "done") {
            finished = true;
            if (!data.html) { restore(); fail(data.error || s.failed); return; }
            conversation.replaceChild(fromHTML(data.html), reply);
            if (data.user_html && userMsg) conversation.replaceChild(fromHTML(data.user_html), userMsg);
            settle();
            if (data.error) { // the model failed; the reply shown is the fallback: say so, give the text back
              showError(data.error);
              if (text !== null && !box.value) { box.value = text; autosize(box); }
            }
            if (taskStrip && typeof data.task_html === "string") taskStrip.innerHTML = data.task_html;
            scrollToEnd(conversation);
          } else if (name === "memory") { // what this turn wrote or changed in memory, with Undo
            var article = data.reply_id && document.getElementById("m" + data.reply_id);
            if (article && data.html) {
              // The reply's HTML may already carry the line (the job finished before "done" was rendered):
              // replace it, never show it twice.
              var line = fromHTML(data.html), shown = article.querySelector(":scope > .memory-events");
              if (shown) article.replaceChild(line, shown); else article.appendChild(line);
              scrollToEnd(conversation);
            }
          } else if (name === "error") {
            restore();
            fail(data.message || s.failed);
          }
        }).then(function () {
          if (!finished) fail(s.network);
        });
      }).catch(function (err) {
        if (err && err.name === "AbortError") {
          reply.classList.remove("streaming");
          reply.classList.add("msg-stopped");
          bubble.setAttribute("data-stopped", s.stopped);
          if (!started) bubble.textContent = "";
          settle();
        } else if (!finished) {
          restore();
          fail(s.network);
        }
      }).then(function () {
        controller = null;
        stopState = null;
        busy(false);
        localiseTimes(conversation);
        box.focus();
      });
    }
  }

  function setupFeedback() {
    document.addEventListener("submit", function (event) {
      var form = event.target;
      if (!form.classList || !form.classList.contains("feedback") || !window.fetch) return;
      event.preventDefault();
      var button = event.submitter || form.querySelector("button");
      var body = new FormData(form);
      body.append("rating", button.value);
      fetch(form.action, {
        method: "POST", body: body, credentials: "same-origin",
        headers: { "X-CSRFToken": csrfToken(form), "Accept": "application/json" }
      }).then(function (response) {
        if (!response.ok) return;
        form.querySelectorAll("button").forEach(function (b) {
          b.setAttribute("aria-pressed", b === button ? "true" : "false");
        });
      });
    });
  }

  /* Menus (<details class="menu">): Esc or a click outside closes them; Esc gives focus back to the summary. */
  function setupMenus() {
    function openMenus() { return document.querySelectorAll("details.menu[open], details.history[open]"); }
    document.addEventListener("keydown", function (event) {
      if (event.key !== "Escape") return;
      openMenus().forEach(function (menu) {
        var hadFocus = menu.contains(document.activeElement);
        menu.removeAttribute("open");
        if (hadFocus) menu.querySelector("summary").focus();
      });
    });
    document.addEventListener("click", function (event) {
      openMenus().forEach(function (menu) {
        if (!menu.contains(event.target)) menu.removeAttribute("open");
      });
    });
    // Opening one menu closes the others.
    document.querySelectorAll("details.menu").forEach(function (menu) {
      menu.addEventListener("toggle", function () {
        if (!menu.open) return;
        document.querySelectorAll("details.menu[open]").forEach(function (other) {
          if (other !== menu) other.removeAttribute("open");
        });
        var field = menu.querySelector("input:not([type=hidden]), textarea");
        if (field) field.focus();
      });
    });
  }

  /* Copy a message's text (its Markdown source, as the model wrote it). */
  function setupCopy() {
    var s = strings();
    document.addEventListener("click", function (event) {
      var button = event.target.closest ? event.target.closest(".copy-btn") : null;
      if (!button) return;
      var text = button.getAttribute("data-copy") || "";
      function done(ok) {
        var label = ok ? (s.copied || "Copied") : (s.copyFailed || "");
        button.setAttribute("data-state", ok ? "copied" : "failed");
        button.setAttribute("title", label);
        var live = document.getElementById("copy-status");
        if (live) live.textContent = label;
        setTimeout(function () { button.removeAttribute("data-state"); }, 1500);
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(fallback(text)); });
      } else {
        done(fallback(text));
      }
    });
    function fallback(text) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      area.remove();
      return ok;
    }
  }

  /* Times in the reader's own time zone and language. */
  function localiseTimes(root) {
    var lang = document.documentElement.lang || undefined;
    (root || document).querySelectorAll("time.msg-time[datetime]").forEach(function (node) {
      var when = new Date(node.getAttribute("datetime"));
      if (isNaN(when)) return;
      try {
        node.textContent = when.toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
        node.title = when.toLocaleString(lang, { dateStyle: "full", timeStyle: "long" });
      } catch (e) { /* old browser: keep the server's text */ }
    });
  }

  /* Dark mode: follows the system until the person picks one; the choice is kept in this browser. */
  function setupTheme() {
    var button = document.getElementById("theme-toggle");
    if (!button) return;
    var system = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
    function current() {
      var chosen = document.documentElement.getAttribute("data-theme");
      if (chosen) return chosen;
      return system && system.matches ? "dark" : "light";
    }
    function show() {
      button.setAttribute("aria-pressed", current() === "dark" ? "true" : "false");
    }
    button.hidden = false;
    show();
    button.addEventListener("click", function () {
      var next = current() === "dark" ? "light" : "dark";
      document.documentElement.setAttribute("data-theme", next);
      try { window.localStorage.setItem("theme", next); } catch (e) { /* not kept: fine */ }
      show();
    });
    if (system && system.addEventListener) system.addEventListener("change", show);
  }

  /* Forget on a note's card: the card folds into "Forgotten. Undo" for a few seconds and the forget is sent when
     they end (or when the page is left, by sendBeacon), so Undo only has to unfold the card. Without JavaScript
     the form posts at once. */
  function setupForgetUndo() {
    var page = document.querySelector(".memory-page[data-forget-undo-seconds]");
    if (!page) return;
    var seconds = parseInt(page.dataset.forgetUndoSeconds, 10) || 8, pending = [];
    function send(item, beacon) {
      pending = pending.filter(function (p) { return p !== item; });
      clearTimeout(item.timer);
      var body = new FormData(item.form);
      body.append("quiet", "1"); // the card has said "Forgotten" already: no message for the next page
      if (beacon && navigator.sendBeacon) { navigator.sendBeacon(item.form.action, body); return; }
      fetch(item.form.action, { method: "POST", body: body, credentials: "same-origin",
        headers: { "X-CSRFToken": csrfToken(item.form) } }).then(function () { item.card.remove(); });
    }
    page.addEventListener("submit", function (event) {
      var form = event.target;
      if (!form.classList.contains("note-forget")) return;
      event.preventDefault();
      var card = form.closest(".note"), item = { form: form, card: card };
      var notice = el("p", "note-forgotten", page.dataset.forgotten + " ");
      notice.setAttribute("role", "status");
      var undo = el("button", "btn btn-quiet btn-small note-undo", page.dataset.undo);
      undo.type = "button";
      notice.appendChild(undo);
      Array.from(card.children).forEach(function (child) { child.hidden = true; });
      card.appendChild(notice);
      card.classList.add("forgetting");
      undo.focus();
      undo.addEventListener("click", function () {
        clearTimeout(item.timer);
        pending = pending.filter(function (p) { return p !== item; });
        notice.remove();
        card.classList.remove("forgetting");
        Array.from(card.children).forEach(function (child) { child.hidden = false; });
        form.querySelector("button").focus();
      });
      item.timer = setTimeout(function () { send(item, false); }, seconds * 1000);
      pending.push(item);
    });
    window.addEventListener("pagehide", function () {
      pending.slice().forEach(function (item) { send(item, true); });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    autosubmitLanguage();
    collapseSessionsOnPhone();
    setupTheme();
    setupMenus();
    setupCopy();
    localiseTimes(document);
    setupStart();
    setupChat();
    setupFeedback();
    setupForgetUndo();
  });
})();
