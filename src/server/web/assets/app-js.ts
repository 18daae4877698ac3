// The app's only script (no build step; served from the executable): live refresh of the Profiling
// table, the copy button of a new token, and the differential flame graphs (zoom, search, hover).
export const APP_JS = String.raw`
(function () {
  "use strict";
  // Live update: while the first page shows queued or running requests, refetch its rows.
  var tbody = document.getElementById("records");
  if (tbody && tbody.dataset.live === "1") {
    var timer = setInterval(function () {
      fetch(tbody.dataset.rows, { credentials: "same-origin", headers: { accept: "text/html" } }).then(function (r) {
        if (!r.ok) { clearInterval(timer); return null; }
        return r.text().then(function (t) { return { t: t, live: r.headers.get("x-live") }; });
      }).then(function (x) {
        if (!x) return;
        if (tbody.innerHTML !== x.t) tbody.innerHTML = x.t;
        if (x.live !== "1") { tbody.dataset.live = "0"; clearInterval(timer); }
      }).catch(function () {});
    }, 2000);
  }

  document.querySelectorAll("button.copy").forEach(function (b) {
    b.addEventListener("click", function () {
      var input = document.getElementById(b.dataset.copy);
      var note = b.parentNode.querySelector(".copied");
      input.select();
      var done = function () { if (note) note.textContent = "Copied"; };
      if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand("copy"); done(); });
      else { document.execCommand("copy"); done(); }
    });
  });

  function pct(x) { return (x >= 0 ? "+" : "") + (x * 100).toFixed(1) + "%"; }
  function share(x) { return (x * 100).toFixed(2) + "%"; }
  function colour(c) {
    if (!c) return "#e6e6e6";
    if (!c[3]) return "#d9d4c7";
    var k = Math.min(1, Math.abs(c[0]) / 0.5);
    var light = Math.round(85 - 40 * k);
    return c[0] >= 0 ? "hsl(0,75%," + light + "%)" : "hsl(215,75%," + light + "%)";
  }
  var ROW = 18;

  document.querySelectorAll("figure.flame").forEach(function (fig) {
    var data = JSON.parse(fig.querySelector("script[type='application/json']").textContent);
    var graph = fig.querySelector(".flame-graph");
    var tip = fig.querySelector(".flame-tip");
    var search = fig.querySelector(".flame-search");
    var matchNote = fig.querySelector(".flame-match");
    var focus = data.root; // the zoomed-in node
    var focusPath = [data.root];

    function tipText(n, depth) {
      var c = depth ? data.changes[n[0]] : null;
      var t = n[0] + "\nbefore " + share(n[2]) + " · after " + share(n[1]) + " of " + data.axis + " (this path)";
      if (c) t += "\nfunction " + c[6] + " change " + pct(c[0]) + ", 95% interval [" + pct(c[1]) + ", " + pct(c[2]) + "] — " + (c[3] ? "CHANGED (" + (c[4] || "suspect") + ")" : c[5]);
      else if (depth) t += "\nnot tested (below the testing floor)";
      return t;
    }

    function draw() {
      graph.textContent = "";
      var frag = document.createDocumentFragment();
      var scale = focus[1] > 0 ? focus[1] : 1;
      var maxDepth = 0;
      var term = (search.value || "").toLowerCase();
      var matches = 0;
      // Ancestors of the zoomed node, full width, so the way back is visible.
      var depth = 0;
      for (var i = 0; i < focusPath.length - 1; i++) { add(focusPath[i], 0, 1, depth++, true); }
      (function walk(n, x, d) {
        var w = n[1] / scale;
        if (w < 0.001) return;
        add(n, x, w, d, false);
        var cx = x;
        for (var j = 0; j < n[3].length; j++) { walk(n[3][j], cx, d + 1); cx += n[3][j][1] / scale; }
      })(focus, 0, depth);
      function add(n, x, w, d, ancestor) {
        maxDepth = Math.max(maxDepth, d);
        var el = document.createElement("div");
        el.className = "fr";
        el.tabIndex = 0;
        el.setAttribute("role", "button");
        el.style.left = (x * 100) + "%";
        el.style.width = (w * 100) + "%";
        el.style.top = (d * ROW) + "px";
        el.style.background = d === 0 ? "#c8c8c8" : colour(data.changes[n[0]]);
        el.textContent = n[0];
        el.setAttribute("aria-label", tipText(n, d).replace(/\n/g, "; "));
        if (term) {
          if (n[0].toLowerCase().indexOf(term) >= 0) { el.classList.add("match"); matches++; } else el.classList.add("dim");
        }
        el._node = n; el._depth = d; el._ancestor = ancestor;
        frag.appendChild(el);
      }
      graph.appendChild(frag);
      graph.style.height = ((maxDepth + 1) * ROW) + "px";
      matchNote.textContent = term ? matches + " matching frame" + (matches === 1 ? "" : "s") : "";
    }

    function zoom(el) {
      var n = el._node;
      if (el._ancestor) { focusPath = focusPath.slice(0, focusPath.indexOf(n) + 1); }
      else if (n !== focus) {
        // Rebuild the path from the root to n.
        var path = [];
        (function find(m, acc) {
          if (m === n) { path = acc.concat([m]); return true; }
          for (var k = 0; k < m[3].length; k++) if (find(m[3][k], acc.concat([m]))) return true;
          return false;
        })(data.root, []);
        focusPath = path.length ? path : [data.root];
      }
      focus = focusPath[focusPath.length - 1];
      draw();
    }

    function showTip(el, ev) {
      tip.textContent = tipText(el._node, el._depth);
      tip.hidden = false;
      var box = fig.getBoundingClientRect();
      var r = el.getBoundingClientRect();
      var x = ev && ev.clientX ? ev.clientX - box.left + 12 : r.left - box.left;
      var y = (ev && ev.clientY ? ev.clientY : r.bottom) - box.top + 12;
      tip.style.left = Math.min(x, box.width - 300) + "px";
      tip.style.top = y + "px";
    }

    graph.addEventListener("mousemove", function (ev) { if (ev.target._node) showTip(ev.target, ev); });
    graph.addEventListener("mouseleave", function () { tip.hidden = true; });
    graph.addEventListener("focusin", function (ev) { if (ev.target._node) showTip(ev.target, null); });
    graph.addEventListener("focusout", function () { tip.hidden = true; });
    graph.addEventListener("click", function (ev) { if (ev.target._node) zoom(ev.target); });
    graph.addEventListener("keydown", function (ev) {
      if ((ev.key === "Enter" || ev.key === " ") && ev.target._node) { ev.preventDefault(); zoom(ev.target); }
      if (ev.key === "Escape") { focusPath = [data.root]; focus = data.root; draw(); }
    });
    search.addEventListener("input", draw);
    fig.querySelector(".flame-reset").addEventListener("click", function () { focusPath = [data.root]; focus = data.root; draw(); });
    draw();
  });
})();
`;
