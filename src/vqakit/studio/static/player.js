/* vqakit studio: the one video player of every mode.
 *
 * A `.player` element holds a <video> (its src ends with a #t=start,end media fragment, so it
 * opens at the sample's window) and a canvas drawn over it. The player
 * - starts at the window and stops at its end (a "play window" button replays it); a strict
 *   player (`data-strict`, answer mode) also keeps every seek inside the window, on both sides,
 *   however it is asked for (the video's own controls, a click on a time, a script);
 * - draws the sample's object tracks at the current time: a point's box, or a box
 *   interpolated between two points at most MAX_GAP_S apart (as the hints method does);
 * - seeks when anything with `data-t` (a trace time, a frame, an evidence line) is clicked;
 * - notes when its first frame was shown (studio.timings.firstFrame, for benchmarks/).
 * Track labels are drawn on the canvas as text, never put into the page as HTML.
 */
(function () {
  "use strict";
  const MAX_GAP_S = 10.0; // the hints method's default max_gap_s
  const SHOW_POINT_S = 0.25; // a lone point's box stays visible this long around its time
  const COLOURS = ["#ff4d4d", "#3dd17a", "#4da3ff", "#ffb02e", "#d66bff", "#28d7d7", "#ff7ac8"];

  function boxAt(points, t) {
    let after = points.findIndex((p) => p.t > t);
    if (after === -1) after = points.length;
    const before = after - 1;
    if (before >= 0 && after < points.length && points[after].t - points[before].t <= MAX_GAP_S) {
      const a = points[before], b = points[after];
      const w = (t - a.t) / (b.t - a.t);
      return a.box.map((v, i) => v + w * (b.box[i] - v));
    }
    for (const i of [before, after]) {
      if (i >= 0 && i < points.length && Math.abs(points[i].t - t) <= SHOW_POINT_S) return points[i].box;
    }
    return null;
  }

  function geometry(video) {
    // where the picture is inside the element (object-fit: contain letterboxes it)
    const width = video.clientWidth, height = video.clientHeight;
    const vw = video.videoWidth || width, vh = video.videoHeight || height;
    const scale = Math.min(width / vw, height / vh);
    return { scale: scale, dx: (width - vw * scale) / 2, dy: (height - vh * scale) / 2, width: width, height: height };
  }

  function setup(root) {
    if (root.dataset.ready) return;
    root.dataset.ready = "1";
    const video = root.querySelector("video");
    const canvas = root.querySelector("canvas.overlay");
    const start = parseFloat(root.dataset.start || "0");
    const end = root.dataset.end ? parseFloat(root.dataset.end) : null;
    const strict = root.dataset.strict === "1";
    let tracks = [];
    const source = document.getElementById(root.dataset.tracks || "");
    if (source) {
      try {
        tracks = JSON.parse(source.dataset.json).tracks || [];
      } catch (error) {
        tracks = [];
      }
    }
    const player = {
      root: root, video: video, canvas: canvas, tracks: tracks, extra: [], start: start, end: end, strict: strict,
    };

    function inWindow(t) {
      const after = Math.max(start, t);
      return end === null ? after : Math.min(end, after);
    }

    function keepInWindow() {
      // a seek outside the window is moved to its nearest edge (the media fragment only opens there)
      const t = video.currentTime;
      if (t < start - 0.01 || (end !== null && t > end + 0.01)) video.currentTime = inWindow(t);
    }
    root.player = player;

    function draw() {
      if (!canvas) return;
      const g = geometry(video);
      if (canvas.width !== g.width || canvas.height !== g.height) {
        canvas.width = g.width;
        canvas.height = g.height;
      }
      const ctx = canvas.getContext("2d");
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      const t = video.currentTime;
      const all = player.tracks.concat(player.extra);
      all.forEach((track, index) => {
        const box = boxAt(track.points, t);
        if (!box) return;
        const colour = COLOURS[index % COLOURS.length];
        const x = g.dx + box[0] * g.scale, y = g.dy + box[1] * g.scale;
        const w = (box[2] - box[0]) * g.scale, h = (box[3] - box[1]) * g.scale;
        ctx.lineWidth = 2;
        ctx.strokeStyle = colour;
        ctx.strokeRect(x, y, w, h);
        ctx.font = "12px system-ui, sans-serif";
        const label = String(track.label || track.id);
        const tw = ctx.measureText(label).width + 6;
        ctx.fillStyle = colour;
        ctx.fillRect(x, Math.max(0, y - 15), tw, 15);
        ctx.fillStyle = "#000";
        ctx.fillText(label, x + 3, Math.max(11, y - 3));
      });
      if (player.onDraw) player.onDraw(ctx, g);
    }
    player.draw = draw;

    function loop() {
      draw();
      if (!video.paused) requestAnimationFrame(loop);
    }

    function firstFrame(now) {
      if (!window.studio.timings.firstFrame) window.studio.timings.firstFrame = now;
      root.dataset.firstFrame = String(now);
      draw();
    }
    if (video.readyState >= 2) {
      firstFrame(performance.now()); // shown before the player was set up
    } else if ("requestVideoFrameCallback" in video) {
      video.requestVideoFrameCallback((now) => firstFrame(now));
    } else {
      video.addEventListener("loadeddata", () => firstFrame(performance.now()), { once: true });
    }
    video.addEventListener("loadedmetadata", () => {
      if (video.currentTime < start - 0.01) video.currentTime = start;
      draw();
    });
    if (strict) {
      video.addEventListener("seeking", keepInWindow);
      video.addEventListener("play", keepInWindow);
    }
    video.addEventListener("play", loop);
    ["timeupdate", "seeked", "pause", "loadeddata"].forEach((name) => video.addEventListener(name, draw));
    video.addEventListener("timeupdate", () => {
      if (end !== null && video.currentTime > end + 0.05) {
        video.pause();
        video.currentTime = end;
      } else if (strict && video.currentTime < start - 0.01) {
        video.currentTime = start;
      }
      const shown = root.querySelector(".time");
      if (shown) shown.textContent = window.studio.clock(video.currentTime);
    });
    new ResizeObserver(draw).observe(video);
    const replay = root.querySelector("[data-replay]");
    if (replay) {
      replay.addEventListener("click", () => {
        video.currentTime = start;
        video.play();
      });
    }
    player.seek = function (t) {
      video.currentTime = strict ? inWindow(t) : Math.max(0, t);
      draw();
    };
    return player;
  }

  function current() {
    const root = document.querySelector(".player");
    return root ? root.player || setup(root) : null;
  }

  function setupAll() {
    document.querySelectorAll(".player").forEach(setup);
  }

  document.addEventListener("click", (event) => {
    const target = event.target.closest("[data-t]");
    if (!target || target.closest(".player.drawing")) return;
    const player = current();
    if (player) {
      event.preventDefault();
      player.seek(parseFloat(target.dataset.t));
    }
  });
  document.addEventListener("DOMContentLoaded", setupAll);
  document.addEventListener("htmx:afterSwap", setupAll); // before the new video can show a frame
  window.studioPlayer = { setup: setup, current: current, boxAt: boxAt, geometry: geometry };
})();
