/* vqakit studio: log in by name (loopback servers only; elsewhere people use their links). */
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", () => {
    const form = document.getElementById("login");
    if (!form) return;
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const person = form.elements.person.value.trim();
      const result = await window.studio.post("/api/session", { person: person });
      if (result.ok) {
        const next = new URL(form.dataset.next || "/", location.origin);
        location.assign(next.origin === location.origin ? next.pathname + next.search : "/");
      } else {
        document.getElementById("login-error").textContent = result.data.error || "could not log in";
      }
    });
  });
})();
