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
      var current = document.querySelector(".session-link.current .session-title");
      if (current) current.textContent = text;
    }

    stopButton.addEventListener("click", function () {
      if (controller) controller.abort();
    });

    form.addEventListener("submit", function (event) {
      if (!canStream) return; // the plain POST fallback
      event.preventDefault();
      var text = box.value;
      if (!text.trim() || controller) return;
      errorBox.hidden = true;
      var empty = document.getElementById("empty-state");
      if (empty) empty.remove();

      var userMsg = el("article", "msg msg-user");
      userMsg.appendChild(el("div", "bubble", text));
      conversation.appendChild(userMsg);
      var reply = el("article", "msg msg-assistant streaming");
      var bubble = el("div", "bubble");
      bubble.innerHTML = '<span class="dots" aria-hidden="true"><i></i><i></i><i></i></span>';
      reply.appendChild(bubble);
      conversation.appendChild(reply);
      scrollToEnd(conversation);
      box.value = "";
      autosize(box);
      busy(true);

      var started = false, finished = false;
      controller = new AbortController();
      var body = new FormData();
      body.append("text", text);

      function fail(message) {
        finished = true;
        reply.classList.remove("streaming");
        reply.classList.add("msg-error");
        bubble.textContent = message;
        showError(message);
        if (!box.value) { box.value = text; autosize(box); } // the user's text is never lost
      }

      fetch(form.dataset.streamUrl, {
        method: "POST", body: body, signal: controller.signal, credentials: "same-origin",
        headers: { "X-CSRFToken": csrfToken(form), "Accept": "text/event-stream" }
      }).then(function (response) {
        var type = response.headers.get("Content-Type") || "";
        if (!response.ok || type.indexOf("text/event-stream") !== 0) {
          return response.json().catch(function () { return {}; }).then(function (data) {
            userMsg.remove();
            fail(data.error || s.failed);
          });
        }
        return readEvents(response, function (name, data) {
          if (data.title) showTitle(data.title);
          if (name === "delta") {
            if (!started) { bubble.textContent = ""; started = true; }
            bubble.textContent += data.text;
            scrollToEnd(conversation);
          } else if (name === "done") {
            finished = true;
            if (!data.html) { fail(data.error || s.failed); return; }
            var rendered = fromHTML(data.html);
            conversation.replaceChild(rendered, reply);
            if (data.error) { // the model failed; the reply shown is the fallback: say so, give the text back
              showError(data.error);
              if (!box.value) { box.value = text; autosize(box); }
            }
            if (taskStrip && typeof data.task_html === "string") taskStrip.innerHTML = data.task_html;
            scrollToEnd(conversation);
          } else if (name === "memory") { // what this turn wrote or changed in memory, with Undo
            var article = data.reply_id && document.getElementById("m" + data.reply_id);
            if (article && data.html) { article.appendChild(fromHTML(data.html)); scrollToEnd(conversation); }
          } else if (name === "error") {
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
        } else if (!finished) {
          fail(s.network);
        }
      }).then(function () {
        controller = null;
        busy(false);
        box.focus();
      });
    });
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

  document.addEventListener("DOMContentLoaded", function () {
    autosubmitLanguage();
    collapseSessionsOnPhone();
    setupChat();
    setupFeedback();
  });
})();
