/* vqakit studio, annotate mode: a question, its options and gold, a reasoning trace and the
 * object tracks it names, written over one video of the folder.
 *
 * - Times: "Insert the time" writes the player's current time (MM:SS or MM:SS.s) at the cursor
 *   of the trace.
 * - Objects: pause, "Draw a box" (b), drag over the object, name it. A new object gets a stable
 *   id `name-<16 hex>` (the form our trace reader reads), written into the trace at the cursor;
 *   a box of an existing object on another frame adds a point to its track. Boxes are kept in
 *   pixels of the video frame; the tracks are drawn over the video as it plays.
 * - Naming a box: the object picker and the name box are one choice, never two. Each new box
 *   starts as "a new object" with an empty name; picking an object empties the name box, and
 *   typing a name sets the picker back to "a new object". The Add button says where the box
 *   goes ("Add box to <id>", "Add new object 'square'"), so what is shown is what happens.
 * - Checks run on the server as you type (POST /api/annotate-check); Save (ctrl+s) is
 *   POST /api/annotate/{id} (studio.post: CSRF header, request id, resent until recorded).
 */
(function () {
  "use strict";
  let state = null;
  let draft = null;
  let player = null;
  let dragging = null;
  let pendingBox = null;
  let checkTimer = null;

  const $ = (id) => document.getElementById(id);
  const form = () => $("draft");
  const bench = () => $("annotate").dataset.bench;

  function hex16() {
    const bytes = new Uint8Array(8);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function objectName(text) {
    let name = text.trim().toLowerCase().replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
    if (!/^[a-z]/.test(name)) name = "object_" + name;
    return name.slice(0, 40);
  }

  function timeText(seconds) {
    const m = Math.floor(seconds / 60);
    const s = seconds - 60 * m;
    const whole = Math.abs(s - Math.round(s)) < 0.05;
    return String(m).padStart(2, "0") + ":" + (whole ? String(Math.round(s)).padStart(2, "0") : s.toFixed(1).padStart(4, "0"));
  }

  function video(path) {
    return state.videos.find((v) => v.path === path);
  }

  function button(text, onClick, current) {
    const node = document.createElement("button");
    node.type = "button";
    node.textContent = text;
    node.classList.toggle("current", Boolean(current));
    node.addEventListener("click", onClick);
    return node;
  }

  function renderLists() {
    $("videos").replaceChildren(
      ...state.videos.map((v) => button(v.path + " (" + v.duration_s.toFixed(1) + "s)", () => newDraft(v.path), draft && draft.video === v.path))
    );
    $("samples").replaceChildren(
      ...state.samples.map((s) => button(s.id, () => openSample(s), draft && draft.id === s.id))
    );
  }

  function mountPlayer(path) {
    const v = video(path);
    const slot = $("player-slot");
    const root = document.createElement("div");
    root.className = "player";
    root.dataset.start = "0";
    const stage = document.createElement("div");
    stage.className = "stage";
    const element = document.createElement("video");
    element.src = v.url;
    element.preload = "auto";
    element.muted = true;
    element.controls = true;
    element.playsInline = true;
    const canvas = document.createElement("canvas");
    canvas.className = "overlay";
    stage.append(element, canvas);
    const bar = document.createElement("div");
    bar.className = "bar";
    const time = document.createElement("span");
    time.className = "time";
    time.textContent = "00:00.0";
    const meta = document.createElement("span");
    meta.className = "meta";
    meta.textContent = v.path + " · " + v.width + "×" + v.height + " · " + v.duration_s.toFixed(2) + "s";
    bar.append(time, meta);
    root.append(stage, bar);
    slot.replaceChildren(root);
    player = window.studioPlayer.setup(root);
    player.extra = [];
    player.onDraw = drawPending;
    canvas.addEventListener("pointerdown", startDrag);
    canvas.addEventListener("pointermove", moveDrag);
    canvas.addEventListener("pointerup", endDrag);
    syncTracks();
  }

  function emptyDraft(path) {
    return { id: video(path).next_id, video: path, question: "", mcq: true, choices: [], gold: 0, answer: "", reasoning: "", start_s: "", end_s: "", category: "", skills: [], objects: [] };
  }

  function newDraft(path) {
    draft = emptyDraft(path || (draft && draft.video) || state.videos[0].path);
    mountPlayer(draft.video);
    fillForm();
  }

  function openSample(sample) {
    const ref = (sample.videos || [])[0] || {};
    draft = emptyDraft(ref.path || state.videos[0].path);
    draft.id = sample.id;
    draft.question = sample.question;
    draft.mcq = Array.isArray(sample.choices);
    draft.choices = sample.choices || [];
    draft.gold = draft.mcq ? sample.answer : 0;
    draft.answer = draft.mcq ? "" : sample.answer;
    draft.reasoning = sample.reasoning || "";
    draft.start_s = ref.start_s === undefined || ref.start_s === null ? "" : String(ref.start_s);
    draft.end_s = ref.end_s === undefined || ref.end_s === null ? "" : String(ref.end_s);
    const metadata = sample.metadata || {};
    draft.category = metadata.category || "";
    draft.skills = metadata.skills || [];
    draft.objects = (sample.objects || []).map((o) => ({ id: o.id, label: o.label, points: o.points.map((p) => ({ t: p.time_s, box: p.box })) }));
    mountPlayer(draft.video);
    fillForm();
  }

  function fillGold(count) {
    const select = form().elements.gold;
    select.replaceChildren();
    for (let i = 0; i < Math.max(count, 1); i++) {
      const option = document.createElement("option");
      option.value = String(i);
      option.textContent = String.fromCharCode(65 + i);
      option.selected = i === draft.gold;
      select.appendChild(option);
    }
  }

  function fillForm() {
    const f = form().elements;
    f.id.value = draft.id;
    f.question.value = draft.question;
    f.mcq.checked = draft.mcq;
    f.choices.value = draft.choices.join("\n");
    f.answer.value = draft.answer;
    f.reasoning.value = draft.reasoning;
    f.start_s.value = draft.start_s;
    f.end_s.value = draft.end_s;
    f.category.value = draft.category;
    f.skills.value = draft.skills.join(", ");
    fillGold(draft.choices.length);
    toggleKind();
    renderObjects();
    renderLists();
    scheduleCheck();
  }

  function readForm() {
    const f = form().elements;
    draft.id = f.id.value.trim();
    draft.question = f.question.value.trim();
    draft.mcq = f.mcq.checked;
    draft.choices = f.choices.value.split("\n").map((s) => s.trim()).filter(Boolean);
    draft.gold = parseInt(f.gold.value || "0", 10);
    draft.answer = f.answer.value.trim();
    draft.reasoning = f.reasoning.value;
    draft.start_s = f.start_s.value.trim();
    draft.end_s = f.end_s.value.trim();
    draft.category = f.category.value.trim();
    draft.skills = f.skills.value.split(",").map((s) => s.trim()).filter(Boolean);
  }

  function toggleKind() {
    const mcq = form().elements.mcq.checked;
    form().querySelectorAll("[data-mcq-only]").forEach((n) => (n.hidden = !mcq));
    form().querySelectorAll("[data-open-only]").forEach((n) => (n.hidden = mcq));
  }

  function sample() {
    const ref = { path: draft.video };
    if (draft.start_s !== "") ref.start_s = Number(draft.start_s);
    if (draft.end_s !== "") ref.end_s = Number(draft.end_s);
    const found = { id: draft.id, question: draft.question, videos: [ref] };
    if (draft.mcq) {
      found.choices = draft.choices;
      found.answer = draft.gold;
    } else {
      found.answer = draft.answer;
    }
    if (draft.reasoning.trim()) found.reasoning = draft.reasoning.trim();
    const metadata = {};
    if (draft.category) metadata.category = draft.category;
    if (draft.skills.length) metadata.skills = draft.skills;
    if (Object.keys(metadata).length) found.metadata = metadata;
    if (draft.objects.length) {
      found.objects = draft.objects.map((o) => ({
        id: o.id,
        label: o.label,
        video: 0,
        points: o.points.slice().sort((a, b) => a.t - b.t).map((p) => ({ time_s: Math.round(p.t * 1000) / 1000, box: p.box })),
      }));
    }
    return found;
  }

  function syncTracks() {
    if (player) {
      player.extra = draft.objects.map((o) => ({ id: o.id, label: o.label, points: o.points.slice().sort((a, b) => a.t - b.t) }));
      player.draw();
    }
  }

  function renderObjects() {
    $("objects").replaceChildren(
      ...draft.objects.map((o) => {
        const item = document.createElement("li");
        const name = document.createElement("span");
        name.className = "obj";
        name.textContent = o.id;
        item.append(name, " " + o.label + ": ");
        o.points.slice().sort((a, b) => a.t - b.t).forEach((p) => {
          const seek = document.createElement("button");
          seek.type = "button";
          seek.className = "seek";
          seek.dataset.t = String(p.t);
          seek.textContent = timeText(p.t);
          const remove = button("×", () => {
            o.points = o.points.filter((q) => q !== p);
            if (!o.points.length) draft.objects = draft.objects.filter((q) => q !== o);
            changed();
          });
          remove.title = "remove this box";
          item.append(seek, remove, " ");
        });
        item.append(button("insert id", () => insert(o.id)));
        return item;
      })
    );
    const select = $("name-existing");
    const keep = select.value;
    while (select.options.length > 1) select.remove(1);
    draft.objects.forEach((o) => {
      const option = document.createElement("option");
      option.value = o.id;
      option.textContent = "another box of " + o.id;
      select.appendChild(option);
    });
    select.value = draft.objects.some((o) => o.id === keep) ? keep : "";
    naming();
    syncTracks();
  }

  function insert(text) {
    const area = form().elements.reasoning;
    const start = area.selectionStart === undefined ? area.value.length : area.selectionStart;
    const end = area.selectionEnd === undefined ? start : area.selectionEnd;
    const before = area.value.slice(0, start);
    const pad = before && !/\s$/.test(before) ? " " : "";
    area.value = before + pad + text + area.value.slice(end);
    const at = start + pad.length + text.length;
    area.setSelectionRange(at, at);
    area.focus();
    changed();
  }

  // drawing boxes on the paused frame
  function toVideo(event) {
    const rect = player.canvas.getBoundingClientRect();
    const g = window.studioPlayer.geometry(player.video);
    const x = (event.clientX - rect.left - g.dx) / g.scale;
    const y = (event.clientY - rect.top - g.dy) / g.scale;
    return [Math.min(Math.max(x, 0), player.video.videoWidth), Math.min(Math.max(y, 0), player.video.videoHeight)];
  }

  function startDrag(event) {
    if (!player.root.classList.contains("drawing")) return;
    event.preventDefault();
    player.canvas.setPointerCapture(event.pointerId);
    const at = toVideo(event);
    dragging = { from: at, to: at };
  }

  function moveDrag(event) {
    if (!dragging) return;
    dragging.to = toVideo(event);
    player.draw();
  }

  function endDrag(event) {
    if (!dragging) return;
    dragging.to = toVideo(event);
    const [a, b] = [dragging.from, dragging.to];
    dragging = null;
    const box = [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1])].map((v) => Math.round(v * 10) / 10);
    if (box[2] - box[0] < 2 || box[3] - box[1] < 2) {
      player.draw();
      return;
    }
    pendingBox = { t: player.video.currentTime, box: box };
    $("name-existing").value = "";
    $("name-new").value = "";
    $("naming").hidden = false;
    $("name-new").focus();
    naming();
    player.draw();
  }

  function naming() {
    // what Add does now: the object picked, else a new object with the name typed
    const existing = $("name-existing").value;
    const label = $("name-new").value.trim();
    const add = $("name-ok");
    add.disabled = !existing && !label;
    add.textContent = existing ? "Add box to " + existing : label ? "Add new object '" + label + "'" : "Add box (name the object)";
  }

  function drawPending(ctx, g) {
    const shape = dragging ? [dragging.from, dragging.to] : pendingBox ? [[pendingBox.box[0], pendingBox.box[1]], [pendingBox.box[2], pendingBox.box[3]]] : null;
    if (!shape) return;
    const [a, b] = shape;
    ctx.setLineDash([5, 4]);
    ctx.strokeStyle = "#ffffff";
    ctx.lineWidth = 2;
    ctx.strokeRect(g.dx + Math.min(a[0], b[0]) * g.scale, g.dy + Math.min(a[1], b[1]) * g.scale, Math.abs(b[0] - a[0]) * g.scale, Math.abs(b[1] - a[1]) * g.scale);
    ctx.setLineDash([]);
  }

  function nameBox() {
    if (!pendingBox) return;
    const label = $("name-new").value.trim();
    // a typed name is a new object, whatever the picker showed before it was typed
    let object = label ? null : draft.objects.find((o) => o.id === $("name-existing").value);
    if (!object) {
      if (!label) {
        $("name-new").focus();
        return;
      }
      object = { id: objectName(label) + "-" + hex16(), label: label, points: [] };
      draft.objects.push(object);
      insert(object.id);
    }
    object.points = object.points.filter((p) => Math.abs(p.t - pendingBox.t) > 0.001);
    object.points.push(pendingBox);
    pendingBox = null;
    $("naming").hidden = true;
    $("name-new").value = "";
    $("name-existing").value = "";
    setDrawing(false);
    changed();
  }

  function setDrawing(on) {
    if (!player) return;
    if (on) player.video.pause();
    player.root.classList.toggle("drawing", on);
    $("draw").classList.toggle("primary", on);
  }

  function changed() {
    readForm();
    renderObjects();
    scheduleCheck();
  }

  function scheduleCheck() {
    clearTimeout(checkTimer);
    checkTimer = setTimeout(check, 250);
  }

  function list(id, items) {
    $(id).replaceChildren(
      ...items.map((text) => {
        const item = document.createElement("li");
        item.textContent = text;
        return item;
      })
    );
  }

  let checks = 0;

  async function check() {
    readForm();
    const number = ++checks;
    const response = await fetch("/api/annotate-check?bench=" + encodeURIComponent(bench()), {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": window.studio.csrf() },
      body: JSON.stringify(sample()),
    });
    const result = await response.json();
    if (number !== checks) return result; // a newer draft is being checked
    list("problems", result.problems || []);
    list("warnings", result.warnings || []);
    $("check-status").textContent = result.ok ? "valid" + ((result.warnings || []).length ? ", with warnings" : "") : "not valid yet";
    $("check-status").className = result.ok ? "ok" : "error";
    return result;
  }

  async function save() {
    readForm();
    const url = "/api/annotate/" + encodeURIComponent(draft.id) + "?bench=" + encodeURIComponent(bench());
    const result = await window.studio.post(url, { action: "save", sample: sample() });
    if (!result.ok) {
      list("problems", result.data.problems || [result.data.error]);
      $("save-status").textContent = "not saved";
      return;
    }
    $("save-status").textContent = "saved " + new Date().toLocaleTimeString();
    await reload();
  }

  async function remove() {
    readForm();
    if (!state.samples.some((s) => s.id === draft.id)) return;
    const url = "/api/annotate/" + encodeURIComponent(draft.id) + "?bench=" + encodeURIComponent(bench());
    const result = await window.studio.post(url, { action: "delete" });
    if (result.ok) {
      await reload();
      newDraft(draft.video);
    }
  }

  async function reload() {
    const response = await fetch("/api/annotate?bench=" + encodeURIComponent(bench()), { credentials: "same-origin" });
    state = await response.json();
    renderLists();
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (!$("annotate")) return;
    state = JSON.parse($("annotate-state").dataset.json);
    newDraft(state.videos[0].path);
    form().addEventListener("input", (event) => {
      if (event.target.name === "choices") {
        readForm();
        fillGold(draft.choices.length);
      }
      if (event.target.name === "mcq") toggleKind();
      changed();
    });
    form().addEventListener("change", changed);
    $("new-question").addEventListener("click", () => newDraft(draft.video));
    $("draw").addEventListener("click", () => setDrawing(!player.root.classList.contains("drawing")));
    $("insert-time").addEventListener("click", () => insert(timeText(player.video.currentTime)));
    $("set-start").addEventListener("click", () => {
      form().elements.start_s.value = player.video.currentTime.toFixed(2);
      changed();
    });
    $("set-end").addEventListener("click", () => {
      form().elements.end_s.value = player.video.currentTime.toFixed(2);
      changed();
    });
    $("name-ok").addEventListener("click", nameBox);
    $("name-existing").addEventListener("change", () => {
      if ($("name-existing").value) $("name-new").value = "";
      naming();
    });
    $("name-new").addEventListener("input", () => {
      if ($("name-new").value.trim()) $("name-existing").value = "";
      naming();
    });
    $("name-cancel").addEventListener("click", () => {
      pendingBox = null;
      $("naming").hidden = true;
      setDrawing(false); // as after Add: the next "Draw a box" starts drawing again
      player.draw();
    });
    $("name-new").addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        nameBox();
      }
    });
    $("save").addEventListener("click", save);
    $("delete").addEventListener("click", remove);
    document.addEventListener("keydown", (event) => {
      if ((event.ctrlKey || event.metaKey) && event.key === "s") {
        event.preventDefault();
        save();
      } else if (event.altKey && event.key === "t") {
        event.preventDefault();
        insert(timeText(player.video.currentTime));
      } else if (!window.studio.typing(event) && event.key === "b") {
        setDrawing(!player.root.classList.contains("drawing"));
      }
    });
  });
  window.studioAnnotate = { check: check, save: save, draft: () => draft, sample: () => sample() };
})();
