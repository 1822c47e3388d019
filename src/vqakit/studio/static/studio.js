/* vqakit studio: what every page shares.
 *
 * studio.post(url, body) sends a state-changing request the way the API documents it: JSON,
 * the session's CSRF token in X-CSRF-Token, and a request id made here. Until the server has
 * answered, the request is kept in localStorage and sent again (same request id) on a network
 * failure, a 5xx, or the next page load, so a decision or an answer made while the server was
 * down or restarting is written once, never lost and never twice.
 *
 * The header's "log out" ("switch person" on a loopback studio) ends this browser's session.
 *
 * Nothing here puts text from the server into the page as HTML: text goes in as textContent.
 */
(function () {
  "use strict";
  const PENDING = "vqakit-studio-pending:" + location.host;
  const timings = { clicked: null, firstFrame: null };

  function csrf() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  function requestId() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function pending() {
    try {
      return JSON.parse(localStorage.getItem(PENDING) || "[]");
    } catch (error) {
      return [];
    }
  }

  function setPending(list) {
    localStorage.setItem(PENDING, JSON.stringify(list));
  }

  function forget(id) {
    setPending(pending().filter((item) => item.body.request_id !== id));
  }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  async function send(url, body) {
    let wait = 200;
    for (let attempt = 0; ; attempt++) {
      let response = null;
      try {
        response = await fetch(url, {
          method: "POST",
          credentials: "same-origin",
          headers: { "content-type": "application/json", "x-csrf-token": csrf() },
          body: JSON.stringify(body),
        });
      } catch (error) {
        response = null; // the server is down or restarting: try again
      }
      if (response !== null && response.status < 500) {
        let data = {};
        try {
          data = await response.json();
        } catch (error) {
          data = { error: response.statusText };
        }
        forget(body.request_id);
        return { status: response.status, ok: response.ok, data: data };
      }
      status("waiting for the server (your last action is kept and will be sent)…", true);
      await sleep(wait);
      wait = Math.min(wait * 2, 3000);
    }
  }

  async function post(url, body) {
    body = Object.assign({}, body);
    if (!body.request_id) body.request_id = requestId();
    setPending(pending().concat([{ url: url, body: body }]));
    const result = await send(url, body);
    status("");
    return result;
  }

  async function resendPending() {
    const left = pending();
    for (const item of left) {
      await send(item.url, item.body);
    }
    return left.length;
  }

  let toast = null;
  function status(text, bad) {
    if (!toast) {
      toast = document.createElement("div");
      toast.className = "toast";
      toast.setAttribute("role", "status");
      document.body.appendChild(toast);
    }
    toast.textContent = text;
    toast.hidden = !text;
    toast.classList.toggle("bad", Boolean(bad));
  }

  function flash(text, bad) {
    status(text, bad);
    setTimeout(() => {
      if (toast && toast.textContent === text) status("");
    }, 2500);
  }

  function clock(seconds) {
    const whole = Math.max(0, seconds);
    const m = Math.floor(whole / 60);
    const s = whole - 60 * m;
    return String(m).padStart(2, "0") + ":" + s.toFixed(1).padStart(4, "0");
  }

  function typing(event) {
    const tag = (event.target && event.target.tagName) || "";
    return ["INPUT", "TEXTAREA", "SELECT"].includes(tag) || (event.target && event.target.isContentEditable);
  }

  // `ready` resolves (with how many were sent again) once what an earlier page left is sent
  let resolveReady;
  const ready = new Promise((resolve) => (resolveReady = resolve));
  window.studio = { post, requestId, csrf, timings, flash, status, clock, typing, ready };
  async function logout() {
    const result = await post("/api/logout", {});
    if (result.data.next) {
      location.assign(result.data.next);
    } else {
      const main = document.querySelector("main");
      const note = document.createElement("p");
      note.textContent = result.data.message || "logged out";
      main.replaceChildren(note);
      document.getElementById("logout").remove();
    }
  }

  document.addEventListener("click", (event) => {
    if (event.target.closest("#logout")) logout();
  });
  document.addEventListener("DOMContentLoaded", async () => {
    const resent = await resendPending();
    if (resent) status("");
    resolveReady(resent);
  });
})();
