/* vqakit studio, review mode: decisions and keyboard shortcuts.
 *
 * k keep · d drop (choose a reason, Enter) · e edit (Ctrl+Enter saves, Esc closes) · j/n next
 * p previous · space play/pause · r replay the window. A decision is POST to the sample's
 * endpoint (/api/review/{id}, or /api/adjudicate/{id} in adjudicate mode; studio.post: CSRF
 * header, request id, kept until the server has it); the queue marks it and the next sample
 * opens. The edit form takes the place of the question and options it changes, beside the
 * video and its frames, and above the evidence: nothing a reviewer needs is covered while a gold
 * answer is changed. In adjudicate mode "start from this edit" fills it with a reviewer's edit.
 */
(function () {
  "use strict";

  function panel() {
    return document.getElementById("sample");
  }

  function data() {
    const node = document.getElementById("sample-data");
    return node ? JSON.parse(node.dataset.json) : null;
  }

  function links() {
    return Array.from(document.querySelectorAll("#queue [data-sample-link]"));
  }

  function currentLink() {
    const sample = panel();
    return sample ? links().find((a) => a.dataset.id === sample.dataset.sampleId) : null;
  }

  function mark() {
    const current = currentLink();
    links().forEach((a) => a.classList.toggle("current", a === current));
    if (current) current.scrollIntoView({ block: "nearest" });
  }

  function open(step) {
    const all = links();
    const index = all.indexOf(currentLink());
    const next = all[index + step];
    if (next) {
      window.studio.timings.clicked = performance.now();
      window.studio.timings.firstFrame = null;
      next.click();
    }
  }

  function editForm() {
    return document.getElementById("edit-form");
  }

  function show(which) {
    const form = document.getElementById("decide");
    const edit = editForm();
    if (!form || !edit) return;
    form.querySelector("#drop-fields").hidden = which !== "drop";
    const editing = which === "edit";
    if (editing && edit.hidden) fillEdit(edit, {});
    edit.hidden = !editing;
    document.getElementById("sample-text").hidden = editing;
    panel().classList.toggle("editing", editing);
    if (which === "drop") form.elements.reason.focus();
    if (editing) edit.elements.question.focus();
  }

  function fillEdit(form, values) {
    const sample = Object.assign({}, data());
    if ("question" in values) sample.question = values.question;
    if ("choices" in values) sample.choices = values.choices;
    if ("answer" in values) {
      if (sample.mcq) sample.gold = values.answer;
      else sample.answer = values.answer;
    }
    if ("reasoning" in values) sample.reasoning = values.reasoning;
    if ("category" in values) sample.category = values.category;
    if ("skills" in values) sample.skills = values.skills;
    form.elements.gold.value = "";
    form.elements.question.value = sample.question;
    form.querySelectorAll("[data-mcq-only]").forEach((n) => (n.hidden = !sample.mcq));
    form.querySelectorAll("[data-open-only]").forEach((n) => (n.hidden = sample.mcq));
    if (sample.mcq) {
      form.elements.choices.value = sample.choices.join("\n");
      fillGold(form, sample.choices.length, sample.gold);
    } else {
      form.elements.answer.value = sample.answer;
    }
    form.elements.reasoning.value = sample.reasoning || "";
    form.elements.category.value = sample.category || "";
    form.elements.skills.value = (sample.skills || []).join(", ");
  }

  function fillGold(form, count, gold) {
    const select = form.elements.gold;
    const chosen = select.value === "" ? gold : parseInt(select.value, 10);
    select.replaceChildren();
    for (let i = 0; i < count; i++) {
      const option = document.createElement("option");
      option.value = String(i);
      option.textContent = String.fromCharCode(65 + i);
      option.selected = i === chosen;
      select.appendChild(option);
    }
  }

  function editBody(form) {
    const sample = data();
    const edit = {};
    const question = form.elements.question.value.trim();
    if (question !== sample.question) edit.question = question;
    if (sample.mcq) {
      const choices = form.elements.choices.value.split("\n").map((s) => s.trim()).filter(Boolean);
      if (JSON.stringify(choices) !== JSON.stringify(sample.choices)) edit.choices = choices;
      const gold = parseInt(form.elements.gold.value, 10);
      if (gold !== sample.gold || edit.choices) edit.answer = gold;
    } else if (form.elements.answer.value.trim() !== sample.answer) {
      edit.answer = form.elements.answer.value.trim();
    }
    const reasoning = form.elements.reasoning.value.trim();
    if (reasoning !== (sample.reasoning || "")) edit.reasoning = reasoning || null;
    const category = form.elements.category.value.trim();
    if (category !== (sample.category || "")) edit.category = category || null;
    const skills = form.elements.skills.value.split(",").map((s) => s.trim()).filter(Boolean);
    if (JSON.stringify(skills) !== JSON.stringify(sample.skills || [])) edit.skills = skills;
    return edit;
  }

  async function decide(kind) {
    const form = document.getElementById("decide");
    const sample = panel();
    if (!form || !sample) return;
    const body = { decision: kind };
    if (kind === "drop") {
      body.reason = form.elements.reason.value;
      body.note = form.elements.note.value.trim() || null;
    }
    if (kind === "edit") {
      body.edit = editBody(editForm());
      body.note = editForm().elements.edit_note.value.trim() || null;
      if (!Object.keys(body.edit).length) {
        problems(["nothing was changed: keep the sample instead"]);
        return;
      }
    }
    const bench = sample.dataset.bench;
    const id = sample.dataset.sampleId;
    const url = sample.dataset.endpoint + encodeURIComponent(id) + "?bench=" + encodeURIComponent(bench);
    const result = await window.studio.post(url, body);
    if (!result.ok) {
      problems(result.data.problems || [result.data.error || "the decision was not recorded"]);
      return;
    }
    problems([]);
    const link = currentLink();
    if (link) {
      let badge = link.querySelector(".mark");
      if (!badge) {
        badge = document.createElement("span");
        link.prepend(badge);
      }
      badge.className = "mark " + kind;
      badge.textContent = { keep: "✓ keep", drop: "✗ drop", edit: "✎ edit" }[kind];
    }
    show(null);
    const status = document.getElementById("decision-status");
    if (status) status.textContent = "Your decision: " + kind + " (saved)";
    window.studio.flash(kind + ": " + id);
    open(1);
  }

  function problems(list) {
    const node = document.getElementById("decision-problems");
    if (!node) return;
    node.replaceChildren(
      ...list.map((text) => {
        const item = document.createElement("li");
        item.textContent = text;
        return item;
      })
    );
  }

  document.addEventListener("click", (event) => {
    const take = event.target.closest("[data-take-edit]");
    if (take) {
      show("edit");
      fillEdit(editForm(), JSON.parse(take.dataset.takeEdit));
      return;
    }
    const chosen = event.target.closest("[data-decision]");
    if (chosen) {
      const kind = chosen.dataset.decision;
      if (kind === "keep") decide("keep");
      else show(kind);
      return;
    }
    const submit = event.target.closest("[data-submit]");
    if (submit) decide(submit.dataset.submit);
    const link = event.target.closest("[data-sample-link]");
    if (link && event.isTrusted) {
      window.studio.timings.clicked = performance.now();
      window.studio.timings.firstFrame = null;
    }
  });

  document.addEventListener("input", (event) => {
    const form = editForm();
    if (form && event.target === form.elements.choices) {
      const count = form.elements.choices.value.split("\n").filter((s) => s.trim()).length;
      fillGold(form, count, data().gold);
    }
  });

  document.addEventListener("keydown", (event) => {
    const form = document.getElementById("decide");
    const edit = editForm();
    if (window.studio.typing(event)) {
      const inDecide = form && form.contains(event.target);
      const inEdit = edit && edit.contains(event.target);
      if (!inDecide && !inEdit) return;
      if (event.key === "Escape") {
        show(null);
        event.target.blur();
      } else if (inDecide && event.key === "Enter" && !form.querySelector("#drop-fields").hidden && event.target.tagName !== "TEXTAREA") {
        event.preventDefault();
        decide("drop");
      } else if (inEdit && event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        decide("edit");
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const player = window.studioPlayer.current();
    const actions = {
      k: () => decide("keep"),
      d: () => show("drop"),
      e: () => show("edit"),
      j: () => open(1),
      n: () => open(1),
      p: () => open(-1),
      r: () => player && player.root.querySelector("[data-replay]").click(),
      " ": () => player && (player.video.paused ? player.video.play() : player.video.pause()),
    };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });

  document.addEventListener("htmx:afterSettle", mark);
  document.addEventListener("DOMContentLoaded", mark);
})();
