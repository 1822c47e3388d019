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
        const next = form.dataset.next || "/";
        location.assign(next.startsWith("/") && !next.startsWith("//") ? next : "/");
      } else {
        document.getElementById("login-error").textContent = result.data.error || "could not log in";
      }
    });
  });
})();
