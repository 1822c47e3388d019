/* vqakit studio, answer mode: one blind question at a time, timed.
 *
 * The clock starts when what the protocol shows is on screen (every frame loaded, or the
 * video's first frame) and stops when the answer is sent. An answer a closed or reloaded page
 * could not confirm is sent before the next question is shown. The answer goes to
 * POST /api/answer/{id} (studio.post: CSRF header, request id, kept and resent until the server
 * has it), then the next question is loaded. Closing the tab loses nothing that was sent: the
 * next visit starts at the first question not yet answered.
 */
(function () {
  "use strict";
  let shownAt = null;

  function question() {
    return document.getElementById("question");
  }

  function startClock() {
    shownAt = null;
    const node = question();
    if (!node) return;
    const images = Array.from(node.querySelectorAll(".shown img"));
    const video = node.querySelector("video");
    const started = () => {
      if (shownAt === null) shownAt = performance.now();
      node.dataset.shown = "1";
    };
    if (video) {
      if (video.readyState >= 2) started();
      else video.addEventListener("loadeddata", started, { once: true });
    } else if (images.length) {
      let left = images.length;
      const one = () => {
        left -= 1;
        if (left === 0) started();
      };
      images.forEach((img) => {
        if (img.complete) one();
        else {
          img.addEventListener("load", one, { once: true });
          img.addEventListener("error", one, { once: true });
        }
      });
    } else {
      started();
    }
  }

  function progress() {
    document.querySelectorAll(".progress div[data-share]").forEach((bar) => {
      bar.style.width = (100 * parseFloat(bar.dataset.share)).toFixed(1) + "%";
    });
  }

  async function send(form) {
    const node = question();
    const error = document.getElementById("answer-error");
    if (shownAt === null) {
      error.textContent = "wait until the frames or the video are shown";
      return;
    }
    const body = { elapsed_s: (performance.now() - shownAt) / 1000 };
    if (form.elements.choice) {
      const chosen = form.querySelector('input[name="choice"]:checked');
      if (!chosen) {
        error.textContent = "choose an option";
        return;
      }
      body.choice = parseInt(chosen.value, 10);
    } else {
      body.text = form.elements.text.value.trim();
      if (!body.text) {
        error.textContent = "type an answer";
        return;
      }
    }
    if (form.elements.reasoning) body.reasoning = form.elements.reasoning.value.trim() || null;
    form.querySelectorAll("button, input, textarea").forEach((n) => (n.disabled = true));
    const bench = document.getElementById("answer").dataset.bench;
    const url = "/api/answer/" + encodeURIComponent(node.dataset.sampleId) + "?bench=" + encodeURIComponent(bench);
    const result = await window.studio.post(url, body);
    if (!result.ok && result.status !== 409) {
      error.textContent = result.data.error || "the answer was not recorded";
      form.querySelectorAll("button, input, textarea").forEach((n) => (n.disabled = false));
      return;
    }
    await next();
  }

  async function next() {
    const bench = document.getElementById("answer").dataset.bench;
    const response = await fetch("/answer?bench=" + encodeURIComponent(bench), {
      headers: { "hx-request": "true" },
      credentials: "same-origin",
    });
    const html = await response.text();
    // the fragment is the server's own template (every text escaped); no script runs in it
    const holder = document.getElementById("answer");
    holder.innerHTML = html;
    setup();
  }

  function setup() {
    progress();
    startClock();
    const done = document.getElementById("scoring");
    if (done && (done.dataset.scoring === "running" || done.dataset.scoring === "")) {
      setTimeout(next, 1500);
    }
    document.querySelectorAll(".player").forEach((root) => window.studioPlayer.setup(root));
  }

  document.addEventListener("submit", (event) => {
    if (event.target.id === "answer-form") {
      event.preventDefault();
      send(event.target);
    }
  });
  document.addEventListener("click", (event) => {
    const img = event.target.closest("img[data-zoom]");
    if (img) img.classList.toggle("big");
  });
  document.addEventListener("keydown", (event) => {
    const form = document.getElementById("answer-form");
    if (!form || event.ctrlKey || event.metaKey || event.altKey) return;
    if (window.studio.typing(event) && event.target.type !== "radio") return;
    const index = event.key.toUpperCase().charCodeAt(0) - 65;
    const radios = form.querySelectorAll('input[name="choice"]');
    if (event.key.length === 1 && index >= 0 && index < radios.length) {
      radios[index].checked = true;
      radios[index].focus();
    } else if (event.key === "Enter") {
      event.preventDefault();
      send(form);
    } else if (event.key === "Escape") {
      document.querySelectorAll("img.big").forEach((img) => img.classList.remove("big"));
    }
  });
  document.addEventListener("DOMContentLoaded", async () => {
    // an answer an earlier page could not confirm is sent first; then the question is current
    const resent = await window.studio.ready;
    if (resent) await next();
    else setup();
  });
})();
