// The app's only script (no build step; served from the executable): live refresh of the Profiling
// table and of a capture still in flight (swapping in what changed, keeping focus: no full
// reloads), confirmations, the copy button of a new token, the diff controls, the top tables, the
// sandwich view and the flame graphs (zoom, search, hover, views; one Tab stop, arrow keys).
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

  // A capture still in flight: refetch the page and swap in the new content when it changed,
  // putting focus back on the element (by id) the reader was on.
  var cap = document.getElementById("capture");
  if (cap && cap.dataset.poll === "1") {
    var ctimer = setInterval(function () {
      fetch(location.href, { credentials: "same-origin", headers: { accept: "text/html" } }).then(function (r) {
        return r.ok ? r.text() : null;
      }).then(function (t) {
        if (!t) return;
        var next = new DOMParser().parseFromString(t, "text/html").getElementById("capture");
        if (!next) return;
        if (next.innerHTML !== cap.innerHTML) {
          var active = document.activeElement && document.activeElement.id;
          cap.innerHTML = next.innerHTML;
          init(cap);
          var again = active && document.getElementById(active);
          if (again) again.focus({ preventScroll: true });
        }
        if (next.dataset.poll !== "1") { cap.dataset.poll = "0"; clearInterval(ctimer); }
      }).catch(function () {});
    }, 3000);
  }

  function pct(x) { var s = (x * 100).toFixed(1); return Number(s) === 0 ? "0.0%" : (x > 0 ? "+" : "") + s + "%"; }
  function share(x) { return (x * 100).toFixed(2) + "%"; }
  function num(x) { var a = Math.abs(x); return a >= 100 ? Math.round(x).toLocaleString("en-US") : a >= 1 ? x.toFixed(1) : x.toPrecision(2); }
  // The browser's copy of src/server/web/units.ts absolute() (this script has no imports);
  // test/unit/web-units.test.ts checks the two agree.
  function absolute(v, s) {
    if (!s) return "";
    var parts = [s.unit === "nanoseconds" ? num(v / 1e6) + " ms blocked" : s.unit === "bytes" ? num(v / 1048576) + " MiB" : num(v) + " " + s.unit];
    if (s.seconds) {
      if (s.unit === "samples" && s.periodNs) parts.push(num(v * s.periodNs / 1e9 / s.seconds) + " CPU-s/s");
      else if (s.unit === "samples") parts.push(num(v / s.seconds) + " samples/s");
      else if (s.unit === "nanoseconds") parts.push(num(v / 1e9 / s.seconds) + " s blocked/s");
      else if (s.unit === "bytes") parts.push(num(v / 1048576 / s.seconds) + " MiB/s");
      else parts.push(num(v / s.seconds) + " " + s.unit + "/s");
    }
    return parts.join(" · ");
  }
  // Okabe–Ito orange (regression) and blue (improvement), light enough for dark text at AA.
  function colour(c) {
    if (!c) return "#e6e6e6";
    if (!c[3]) return "#d9d4c7";
    var k = Math.min(1, Math.abs(c[0]) / 0.5);
    var light = Math.round(86 - 24 * k);
    return c[0] >= 0 ? "hsl(28,95%," + light + "%)" : "hsl(202,80%," + light + "%)";
  }
  function hue(name) {
    var h = 0;
    for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) | 0;
    return "hsl(" + (20 + Math.abs(h) % 40) + ",80%," + (72 + Math.abs(h >> 8) % 12) + "%)";
  }
  var ROW = window.matchMedia("(max-width: 640px)").matches ? 24 : 18;

  // The flame data's rows are [name, after, before, depth] in pre-order; nodes are rebuilt as
  // [name, after, before, children, parent] with a stack. No tree is ever walked recursively here:
  // stacks can be 20,000 frames deep, past the browser's call stack.
  function tree(data) {
    if (data.root) return data.root;
    var open = [];
    data.nodes.forEach(function (r) {
      var n = [r[0], r[1], r[2], [], null];
      open.length = r[3];
      if (r[3] > 0) { n[4] = open[r[3] - 1]; n[4][3].push(n); } else data.root = n;
      open.push(n);
    });
    return data.root;
  }

  // A flame graph figure: its elements and what the reader has done with it (zoom path, view, the
  // second pane of the side-by-side view, the last pointer position). mount builds it; the stages
  // below (draw, zoom, tips, keys) each take it.
  function mount(fig, data) {
    tree(data);
    var st = {
      fig: fig,
      data: data,
      panes: fig.querySelector(".flame-panes"),
      graph: fig.querySelector(".flame-graph"),
      tip: fig.querySelector(".flame-tip"),
      search: fig.querySelector(".flame-search"),
      matchNote: fig.querySelector(".flame-match"),
      focusPath: [data.root],
      view: data.mode === "diff" ? "diff" : "after",
      second: null,
      lastPointer: null
    };
    var viewSel = fig.querySelector(".flame-view");
    bindGraph(st, st.graph);
    st.search.addEventListener("input", function () { drawFlame(st, null, null); });
    if (viewSel) viewSel.addEventListener("change", function () { st.view = viewSel.value; drawFlame(st, null, null); });
    fig.querySelector(".flame-reset").addEventListener("click", function () { resetZoom(st, false); });
    drawFlame(st, null, null);
  }

  function frameWidth(n, v) { return v === "diff" ? (n[1] + n[2]) / 2 : v === "before" ? n[2] : n[1]; }

  // What a frame says on hover, focus and to screen readers.
  function frameText(data, n, depth) {
    var c = depth ? data.changes[n[0]] : null;
    var s = data.scale || {};
    var t;
    if (data.mode === "single") {
      t = n[0] + "\n" + share(n[1]) + " of " + data.axis + " (this path)";
      if (s.after) t += " · " + absolute(n[1] * s.after.total, s.after);
      return t;
    }
    t = n[0] + "\nbefore " + share(n[2]) + " · after " + share(n[1]) + " of " + data.axis + " (this path)";
    if (s.before && s.after) t += "\n" + absolute(n[2] * s.before.total, s.before) + " → " + absolute(n[1] * s.after.total, s.after) + " per capture";
    if (depth && n[1] === 0 && n[2] > 0) t += "\ngone in the new version";
    if (c) {
      t += "\nfunction " + (c[6] === "inclusive" ? "total" : "self") + " change " + pct(c[0]) + ", 95% interval [" + pct(c[1]) + ", " + pct(c[2]) + "] — " +
        (c[3] ? "CHANGED: " + (c[0] >= 0 ? "regression" : "improvement") + " (" + (c[4] || "suspect") + ")" : c[5]);
      if (c.length > 7) t += "\nadjusted p " + (c[7] < 0.001 ? "< 0.001" : c[7].toFixed(3)) + " · noise floor ±" + (c[8] * 100).toFixed(1) + "%";
    } else if (depth) t += "\nnot tested (below the testing floor)";
    return t;
  }

  // One frame's element, placed at x (share of the row), width w, row d.
  function frameElement(st, n, x, w, d, ancestor, term) {
    var data = st.data;
    var el = document.createElement("div");
    el.className = "fr";
    el.tabIndex = -1;
    el.setAttribute("role", "button");
    el.style.left = (x * 100) + "%";
    el.style.width = (w * 100) + "%";
    el.style.top = (d * ROW) + "px";
    if (data.mode === "diff" && d > 0 && n[1] === 0 && n[2] > 0) el.classList.add("gone");
    else el.style.background = d === 0 ? "#c8c8c8" : data.mode === "single" ? hue(n[0]) : colour(data.changes[n[0]]);
    el.textContent = n[0];
    el.setAttribute("aria-label", frameText(data, n, d).replace(/\n/g, "; "));
    if (term) el.classList.add(n[0].toLowerCase().indexOf(term) >= 0 ? "match" : "dim");
    el._node = n; el._depth = d; el._ancestor = ancestor; el._x = x; el._w = w;
    return el;
  }

  // Draws one pane (view v) from the zoomed node down; keeps the Tab stop on the kept frame when drawn.
  function drawGraph(st, g, v, keep) {
    g.textContent = "";
    var els = [];
    var frag = document.createDocumentFragment();
    var focusPath = st.focusPath;
    var focus = focusPath[focusPath.length - 1];
    var scale = frameWidth(focus, v) > 0 ? frameWidth(focus, v) : 1;
    var maxDepth = 0;
    var term = (st.search.value || "").toLowerCase();
    var matches = 0;
    var depth = 0;
    function add(n, x, w, d, ancestor) {
      maxDepth = Math.max(maxDepth, d);
      var el = frameElement(st, n, x, w, d, ancestor, term);
      if (el.classList.contains("match")) matches++;
      els.push(el);
      frag.appendChild(el);
    }
    // Ancestors of the zoomed node, full width, so the way back is visible.
    for (var i = 0; i < focusPath.length - 1; i++) add(focusPath[i], 0, 1, depth++, true);
    var todo = [[focus, 0, depth]];
    while (todo.length) {
      var t = todo.pop(), n = t[0], w = frameWidth(n, v) / scale;
      if (w < 0.001) continue;
      add(n, t[1], w, t[2], false);
      var cx = t[1], next = [];
      for (var j = 0; j < n[3].length; j++) { next.push([n[3][j], cx, t[2] + 1]); cx += frameWidth(n[3][j], v) / scale; }
      while (next.length) todo.push(next.pop());
    }
    g.appendChild(frag);
    g.style.height = ((maxDepth + 1) * ROW) + "px";
    g._els = els;
    // One Tab stop per graph: the kept frame, else the zoomed one.
    var stop = null;
    for (var k = 0; k < els.length; k++) if (els[k]._node === keep) { stop = els[k]; break; }
    if (!stop) for (var m = 0; m < els.length; m++) if (els[m]._node === focus) { stop = els[m]; break; }
    // An axis with nothing to draw (the server lists those instead) keeps no Tab stop.
    if (els.length) (stop || els[0]).tabIndex = 0;
    return { matches: matches, stop: stop, term: term };
  }

  // The side-by-side view has a second pane (after) beside the first (before); other views one.
  function arrangePanes(st) {
    var graph = st.graph, axis = st.data.axis;
    if (st.view === "split") {
      if (!st.second) {
        st.second = document.createElement("div");
        st.second.className = "flame-graph";
        st.second.id = graph.id + "-after";
        st.second.setAttribute("role", "group");
        st.second.setAttribute("aria-label", "After: flame graph of " + axis + "; arrow keys move between frames, Enter zooms");
        st.panes.appendChild(st.second);
        bindGraph(st, st.second);
      }
      st.panes.classList.add("split");
      graph.setAttribute("aria-label", "Before: flame graph of " + axis + "; arrow keys move between frames, Enter zooms");
    } else if (st.second) {
      st.panes.removeChild(st.second); st.second = null; st.panes.classList.remove("split");
      graph.setAttribute("aria-label", "Flame graph of " + axis + "; arrow keys move between frames, Enter zooms, Escape resets");
    }
  }

  function drawFlame(st, keep, refocus) {
    arrangePanes(st);
    var a = drawGraph(st, st.graph, st.view === "split" ? "before" : st.view, keep);
    if (st.second) drawGraph(st, st.second, "after", keep);
    st.matchNote.textContent = a.term ? a.matches + " matching frame" + (a.matches === 1 ? "" : "s") : "";
    if (refocus) {
      var g = refocus._graph && refocus._graph.isConnected ? refocus._graph : st.graph;
      var t = g.querySelector(".fr[tabindex='0']");
      if (t) t.focus();
    }
  }

  function pathTo(data, n) {
    var path = [];
    for (var m = n; m; m = m[4]) path.unshift(m);
    return path.length ? path : [data.root];
  }

  function zoomInto(st, el, byKey) {
    var n = el._node;
    if (el._ancestor) st.focusPath = st.focusPath.slice(0, st.focusPath.indexOf(n) + 1);
    else st.focusPath = pathTo(st.data, n);
    var g = el.parentNode;
    drawFlame(st, n, byKey ? { _graph: g } : null);
    // A tap or click keeps explaining the frame it zoomed into (touch has no hover to bring it back).
    if (!byKey && g.isConnected) {
      var again = g.querySelector(".fr[tabindex='0']");
      if (again && again._node === n) showTip(st, again, st.lastPointer);
    }
  }

  function resetZoom(st, byKey) {
    st.focusPath = [st.data.root];
    drawFlame(st, st.data.root, byKey ? { _graph: st.graph } : null);
  }

  function showTip(st, el, ev) {
    var tip = st.tip;
    tip.textContent = frameText(st.data, el._node, el._depth);
    tip.hidden = false;
    var box = st.fig.getBoundingClientRect();
    var r = el.getBoundingClientRect();
    var x = ev && ev.clientX ? ev.clientX - box.left + 12 : r.left - box.left;
    var y = (ev && ev.clientY ? ev.clientY : r.bottom) - box.top + 12;
    tip.style.left = Math.max(0, Math.min(x, box.width - 300)) + "px";
    tip.style.top = y + "px";
  }

  // Arrow keys: up to the caller, down to the first callee, left/right to neighbours on the row.
  function neighbour(el, key) {
    var els = el.parentNode._els || [];
    var best = null;
    var eps = 1e-9;
    for (var i = 0; i < els.length; i++) {
      var o = els[i];
      if (o === el) continue;
      if (key === "ArrowLeft" && o._depth === el._depth && o._x < el._x - eps && (!best || o._x > best._x)) best = o;
      if (key === "ArrowRight" && o._depth === el._depth && o._x > el._x + eps && (!best || o._x < best._x)) best = o;
      if (key === "ArrowUp" && o._depth === el._depth - 1 && o._x <= el._x + eps && o._x + o._w >= el._x + el._w - 1e-6) best = o;
      if (key === "ArrowDown" && o._depth === el._depth + 1 && o._x >= el._x - eps && o._x < el._x + el._w && (!best || o._x < best._x)) best = o;
    }
    if (key === "Home") best = els[0];
    return best;
  }

  function onGraphKey(st, ev) {
    var t = ev.target;
    if (!t._node) return;
    if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); zoomInto(st, t, true); return; }
    if (ev.key === "Escape") { ev.preventDefault(); resetZoom(st, true); return; }
    if (/^Arrow|^Home$/.test(ev.key)) {
      var n = neighbour(t, ev.key);
      ev.preventDefault();
      if (!n) return;
      t.tabIndex = -1; n.tabIndex = 0; n.focus();
    }
  }

  function bindGraph(st, g) {
    var tip = st.tip;
    g.addEventListener("mousemove", function (ev) { if (ev.target._node) showTip(st, ev.target, ev); });
    g.addEventListener("mouseleave", function () { tip.hidden = true; });
    g.addEventListener("focusin", function (ev) { if (ev.target._node) showTip(st, ev.target, null); });
    g.addEventListener("focusout", function (ev) { if (!ev.relatedTarget || !g.contains(ev.relatedTarget)) { if (ev.target.isConnected) tip.hidden = true; } });
    // Touch has no hover: a tap shows the frame's text (kept while the graph zooms into it).
    g.addEventListener("pointerdown", function (ev) { st.lastPointer = { clientX: ev.clientX, clientY: ev.clientY }; if (ev.pointerType !== "mouse" && ev.target._node) showTip(st, ev.target, ev); });
    g.addEventListener("click", function (ev) { if (ev.target._node) zoomInto(st, ev.target, false); });
    g.addEventListener("keydown", function (ev) { onGraphKey(st, ev); });
  }

  // The sandwich of one function: callers merged upwards (inverted) and callees merged downwards.
  function sandwich(block, fn) {
    var box = block.querySelector(".sandwich");
    var data = JSON.parse(document.getElementById(box.dataset.flame).textContent);
    var callees = [fn, 0, 0, [], null];
    var callers = [fn, 0, 0, [], null];
    function child(node, name) {
      for (var j = 0; j < node[3].length; j++) if (node[3][j][0] === name) return node[3][j];
      var hit = [name, 0, 0, [], node];
      node[3].push(hit);
      return hit;
    }
    function merge(into, from) {
      var todo = [[into, from]];
      while (todo.length) {
        var t = todo.pop();
        t[0][1] += t[1][1];
        for (var i = 0; i < t[1][3].length; i++) todo.push([child(t[0], t[1][3][i][0]), t[1][3][i]]);
      }
    }
    var todo = [tree(data)];
    while (todo.length) {
      var n = todo.pop();
      if (n[0] === fn && n[4]) {
        // The outermost occurrence only, so recursion is counted once.
        merge(callees, n);
        var node = callers;
        node[1] += n[1];
        for (var up = n[4]; up && up[4]; up = up[4]) { node = child(node, up[0]); node[1] += n[1]; }
        continue;
      }
      for (var k = n[3].length - 1; k >= 0; k--) todo.push(n[3][k]);
    }
    box.hidden = false;
    box.textContent = "";
    var id = box.dataset.flame + "-sw";
    var h = document.createElement("h4");
    h.id = id + "-h"; h.tabIndex = -1;
    h.textContent = "Sandwich of " + fn + " (" + data.axis + "): " + share(callees[1]) + " of the axis";
    var close = document.createElement("button");
    close.type = "button"; close.textContent = "Close sandwich";
    close.addEventListener("click", function () { box.hidden = true; box.textContent = ""; });
    box.appendChild(h); box.appendChild(close);
    [["callers", "Callers of " + fn + " (read upwards from the function)", callers], ["callees", "Callees of " + fn, callees]].forEach(function (p) {
      var fig = document.createElement("figure");
      fig.className = "flame";
      fig.innerHTML = '<figcaption></figcaption><div class="flame-tools"><label>Search <input type="search" class="flame-search"></label><button type="button" class="flame-reset">Reset zoom</button><span class="flame-match muted" aria-live="polite"></span></div><div class="flame-panes"><div class="flame-graph" role="group"></div></div><div class="flame-tip" role="tooltip" hidden></div>';
      fig.querySelector("figcaption").textContent = p[1];
      var g = fig.querySelector(".flame-graph");
      g.id = id + "-" + p[0];
      g.setAttribute("aria-label", p[1] + "; arrow keys move between frames, Enter zooms");
      box.appendChild(fig);
      mount(fig, { axis: data.axis, mode: "single", root: p[2], changes: {}, scale: data.scale });
    });
    h.focus();
  }

  function initTop(top) {
    var table = top.querySelector("table");
    var body = table.tBodies[0];
    var q = top.querySelector(".top-search");
    var count = top.querySelector(".top-count");
    var dir = {};
    top.querySelectorAll("button.sort").forEach(function (b) {
      b.addEventListener("click", function () {
        var col = Number(b.dataset.col);
        var d = dir[col] = dir[col] === "descending" ? "ascending" : "descending";
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (x, y) {
          var r = col === 0 ? x.cells[0].textContent.localeCompare(y.cells[0].textContent) : Number(x.cells[col].dataset.v) - Number(y.cells[col].dataset.v);
          return d === "descending" ? -r : r;
        });
        rows.forEach(function (r) { body.appendChild(r); });
        table.querySelectorAll("th").forEach(function (th) { th.setAttribute("aria-sort", "none"); });
        b.parentNode.setAttribute("aria-sort", d);
      });
    });
    q.addEventListener("input", function () {
      var t = q.value.toLowerCase(), n = 0;
      Array.prototype.forEach.call(body.rows, function (r) { var show = !t || r.dataset.name.indexOf(t) >= 0; r.hidden = !show; if (show) n++; });
      count.textContent = t ? n + " function" + (n === 1 ? "" : "s") : "";
    });
    top.addEventListener("click", function (ev) {
      var b = ev.target.closest && ev.target.closest("button.sandwich-open");
      if (b) sandwich(top.closest(".axis-block"), b.dataset.fn);
    });
  }

  function initControls(root) {
    var axis = root.querySelector(".dc-axis");
    var kind = root.querySelector(".dc-kind");
    if (!axis) return;
    function apply() {
      var a = axis.value, k = kind.value;
      root.querySelectorAll("#diff figure.flame").forEach(function (f) { f.hidden = !!a && f.dataset.axis !== a; });
      root.querySelectorAll("table.changes tbody tr").forEach(function (r) { r.hidden = (!!a && r.dataset.axis !== a) || (!!k && r.dataset.kind !== k); });
    }
    axis.addEventListener("change", apply);
    kind.addEventListener("change", apply);
  }

  function init(root) {
    root.querySelectorAll("form[data-confirm]").forEach(function (f) {
      f.addEventListener("submit", function (ev) { if (!window.confirm(f.dataset.confirm)) ev.preventDefault(); });
    });
    root.querySelectorAll("button.copy").forEach(function (b) {
      b.addEventListener("click", function () {
        var input = document.getElementById(b.dataset.copy);
        var note = b.parentNode.querySelector(".copied");
        input.select();
        var done = function () { if (note) note.textContent = "Copied"; };
        if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand("copy"); done(); });
        else { document.execCommand("copy"); done(); }
      });
    });
    root.querySelectorAll("figure.flame").forEach(function (fig) {
      var s = fig.querySelector("script[type='application/json']");
      if (s) mount(fig, JSON.parse(s.textContent));
    });
    root.querySelectorAll(".top").forEach(initTop);
    initControls(root);
  }
  init(document);
})();
`;
