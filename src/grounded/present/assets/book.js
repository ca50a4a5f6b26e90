// grounded book: steps through the frames in #book-data.  Every answer is precomputed by
// the engine; this script only shows them.  No network, no libraries.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("book-data").textContent);
  const frames = data.frames;
  const $ = (id) => document.getElementById(id);
  const state = { index: 0, claim: null, literal: null, present: false, labels: null, diffFrom: null, print: null,
    legend: false, worlds: null, focus: false, tryOn: false, tried: null };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k.startsWith("data-")) node.setAttribute(k, v);
      else if (k === "onclick") node.addEventListener("click", v);
      else node[k] = v;
    }
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  }

  // the answer in force at frame i: answers are stored from the frame where they change
  function answerAt(store, key, i) {
    const history = store[key];
    if (!history) return null;
    let found = null;
    for (const [from, answer] of history) {
      if (from <= i) found = answer; else break;
    }
    return found;
  }

  function lit(l) {
    return askable(el("span", { class: "lit", "data-literal": l, title: "Affected*(" + l + ")" }, l),
      "Affected*(" + l + ")", () => selectLiteral(l));
  }

  // the arguments claiming c at the frame shown (usually one), for its text
  function claimants(c) { return frames[state.index].rows.filter((r) => r.claim === c); }

  function textOf(c) { return claimants(c).map((r) => r.text).filter((t) => t).join(" / "); }

  function claim(c) {
    const text = textOf(c);
    return askable(el("span", { class: "claim", "data-claim": c, title: (text ? text + "\n" : "") +
      "click or Enter: Verify(" + c + ")" }, c), "Verify(" + c + ")", () => selectClaim(c));
  }

  // an element that asks a query on a click, and on Enter (or Space) when it has the keyboard's focus
  function askable(node, label, ask) {
    node.setAttribute("tabindex", "0");
    node.setAttribute("role", "button");
    node.setAttribute("aria-label", label);
    node.addEventListener("click", (e) => { e.stopPropagation(); ask(); });
    node.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); e.stopPropagation(); ask(); }
    });
    return node;
  }

  // clicking a node of a drawing (the page's picture or a Verify sub-picture) asks about it: Verify for an
  // argument's claim, Affected* for a literal no argument claims
  function clickable(svg, prefix) {
    for (const g of svg.querySelectorAll("g.node")) {
      const id = g.id.slice(prefix.length);
      const m = /^arg(\d+)$/.exec(id);
      if (m) {  // Enter: Verify of its claim; the key a: Affected* of it
        const c = data.args[m[1]];
        askable(g, "Verify(" + c + "); key a: Affected*(" + c + ")", () => selectClaim(c));
        g.addEventListener("keydown", (e) => { if (e.key === "a") { e.stopPropagation(); selectLiteral(c); } });
      }
      else if (id.startsWith("lit-")) askable(g, "Affected*(" + id.slice(4) + ")", () => selectLiteral(id.slice(4)));
    }
  }

  function turnLabel(f) { return f.status === "start" ? "start" : "T" + f.turn; }

  // ------------------------------------------------------------------ one frame
  function show(index) {
    state.index = Math.max(0, Math.min(frames.length - 1, index));
    const f = frames[state.index];
    $("slider").value = String(state.index);
    $("turn").textContent = turnLabel(f);
    $("turn").dataset.turn = String(f.turn);
    $("of").textContent = "(" + state.index + " of " + (frames.length - 1) + ")";
    $("prev").disabled = state.index === 0;
    $("next").disabled = state.index === frames.length - 1;
    document.body.dataset.turn = String(f.turn);
    document.body.dataset.status = f.status;

    $("speaker").textContent = f.status === "start" ? "" : f.speaker;
    $("speaker").hidden = f.status === "start";
    $("utterance-text").textContent = f.status === "start" ? "Before the first utterance." : f.text;
    $("turn-note").hidden = !f.note;
    $("turn-note").textContent = f.note || "";
    $("ops").replaceChildren(...f.ops.map((o) => el("li", {}, o)));
    $("ops-box").hidden = f.status === "start";

    const outcome = $("outcome");
    outcome.className = f.status;
    outcome.textContent = f.status === "accepted" ? "accepted: what the rules did"
      : f.status === "rejected" ? "rejected: nothing of this utterance applies" : "the initial state";
    $("changes").replaceChildren(...f.changes.map((c) => el("li", {}, c)));
    const vt = $("violations");
    vt.hidden = f.violations.length === 0;
    vt.tBodies[0].replaceChildren(...f.violations.map((v) =>
      el("tr", { class: "violation", "data-code": v.code },
        el("td", {}, "#" + v.index + " " + v.op), el("td", {}, el("code", {}, v.code)), el("td", {}, v.message))));
    const flagged = Object.entries(f.flagged);
    $("flagged").hidden = flagged.length === 0;
    $("flagged").textContent = "flagged for re-evaluation: " +
      flagged.map(([k, v]) => v.join(", ") + " (rest on " + k + ")").join("; ");

    // the SVG Graphviz drew from the engine's own state (texts in it are escaped by Graphviz)
    // presentation mode draws the ids alone, in large type, on a layout of its own (book.page_data),
    // or, with the labels toggle on texts, the page's own drawing fitted to the window
    if (state.tried && state.tried.index !== state.index) state.tried = null;  // an answer is for its turn
    drawPicture(f);

    renderStandings(f);
    renderWorld(f);
    renderKripke(f);
    renderTry(f);
    renderQueries();
    renderExercise(f);
    renderDiff();
    writeHash();
  }

  // a row of the table takes the keyboard's focus; Enter on it asks Verify of its claim (its literals and
  // claim inside keep their own Enter)
  function rowAsks(r, tr) {
    tr.setAttribute("tabindex", "0");
    tr.setAttribute("aria-label", "#" + r.id + " " + r.claim + ": Enter for Verify(" + r.claim + ")");
    tr.addEventListener("keydown", (e) => {
      if (e.target === tr && e.key === "Enter") { e.preventDefault(); selectClaim(r.claim); }
    });
    return tr;
  }

  // the turn's map, or, while a what-if answer for this turn stands, the map it would make (drawn by the
  // server in large type, the ids alone), with a banner saying so
  function drawPicture(f) {
    const t = state.tried;
    $("try-banner").hidden = !t;
    document.body.classList.toggle("tried", Boolean(t));
    if (t) {
      $("try-banner-text").textContent = t.label;
      $("picture").innerHTML = t.svg || '<p class="hint">Nothing would be drawn.</p>';
      return;
    }
    const svg = state.present && presentLabels() === "id" ? f.present_svg : f.svg;
    $("picture").innerHTML = f.rows.length ? svg : '<p class="hint">Nothing is drawn yet.</p>';
    clickable($("picture"), "");
  }

  function renderStandings(f) {
    const changed = new Set(f.changed);
    $("standings").tBodies[0].replaceChildren(...f.rows.map((r) => rowAsks(r, el("tr", {
      class: (changed.has(r.id) ? "changed " : "") + (r.claim === state.claim ? "selected" : ""),
      "data-claim": r.claim, "data-id": String(r.id),
    },
      el("td", {}, r.id), el("td", {}, claim(r.claim)), el("td", {}, r.kind), el("td", {}, r.speaker),
      el("td", {}, r.turn),
      el("td", { class: "standing " + r.standing, "data-standing": r.standing },
        r.standing + (r.standing !== "active" ? " (T" + r.since + (r.cause ? " by " + r.cause : "") + ")" : "")),
      el("td", { class: "grounded " + (r.grounded ? "yes" : "no") }, r.grounded ? "\u2713" : "\u2717"),
      el("td", {}, ...r.deps.map(lit)), el("td", {}, ...r.explains.map(lit))))));
    const inS = f.rows.filter((r) => r.in_standing).length;
    const grounded = f.rows.filter((r) => r.grounded).length;
    $("counts").textContent = "(" + f.rows.length + " arguments, " + inS + " in S_t, " + grounded + " grounded)";
    const s = f.summary;
    const summary = $("summary");
    summary.replaceChildren();
    if (s) {
      summary.append(el("b", {}, "open problems: "), ...(s.open_problems.length ? s.open_problems.map(lit) : ["none"]));
      summary.append(el("br"), el("b", {}, "commitments: "),
        Object.entries(s.commitments).map(([a, cs]) => a + ": " + cs.join(", ")).join("; ") || "none");
      const dissent = Object.entries(s.dissent);
      if (dissent.length) summary.append(el("br"), el("b", {}, "dissent: "),
        dissent.map(([d, as]) => as.join(", ") + " from " + d).join("; "));
      if (s.reinstatable.length) summary.append(el("br"), el("b", {}, "reinstatable: "), s.reinstatable.join(", "));
    }
  }

  function renderWorld(f) {
    document.body.classList.toggle("world", Boolean(data.world));
    if (!data.world) return;
    $("world-box").hidden = false;
    const m = f.model;
    $("worlds-size").textContent = "|W| = " + m.size + " of " + m.universe + " worlds";
    $("worlds-size").dataset.size = String(m.size);
    $("trajectory").replaceChildren(...frames.map((g, i) => el("span", {
      class: "size" + (i === state.index ? " current" : ""), "data-size": String(g.model.size),
      title: turnLabel(g), onclick: () => show(i),
    }, g.model.size)).flatMap((s, i) => i ? [" \u2192 ", s] : [s]));
    const note = $("worlds-note");
    note.hidden = m.shown >= m.size;
    note.textContent = "Showing " + m.shown + " of " + m.size + " worlds; cells and orders below are among these.";
    const star = (w) => (w === m.actual ? "\u2605" + w : w);
    const cellNode = (cell) => el("span", { class: "cell" },
      ...cell.map((level) => el("span", { class: "level" }, level.map(star).join(", "))));
    const agentNode = ([agent, cells]) => el("div", { class: "agent", "data-agent": agent },
      el("span", { class: "agent-name" }, agent),
      el("span", { class: "ncells", "data-cells": String(m.cells[agent]) }, m.cells[agent] + " cell(s) "),
      ...cells.map(cellNode));
    $("cells").replaceChildren(el("p", { class: "hint" },
      "Each agent's information cells among the live worlds (worlds the agent cannot tell apart); inside a cell, " +
      "the plausibility order, most plausible first (< : less plausible). Worlds are named by their true atoms; " +
      "\u2605 marks the actual world."), ...Object.entries(m.agents).map(agentNode));
    $("worlds").replaceChildren(...m.worlds.map((w) => el("li", { class: w === m.actual ? "actual" : "" }, w)));
  }

  // ------------------------------------------------------------------ the world model drawn
  // Worlds as nodes, an edge labelled with the agents who cannot tell two worlds apart, an arrow to the
  // world an agent finds more plausible (drawn by Graphviz when the page was written); past the drawing
  // limit, the counts the engine summarised instead.
  function renderKripke(f) {
    const box = $("kripke");
    const g = data.kripke[f.kripke];  // the frames that share a model share its drawing
    if (!g) { box.hidden = true; return; }
    box.hidden = false;
    box.dataset.size = String(g.size);
    box.dataset.drawn = String(g.drawn);
    const lines = [];
    if (g.constant_true.length || g.constant_false.length)
      lines.push(el("li", {}, "true in every world: " + (g.constant_true.join(", ") || "none") +
        "; false in every world: " + (g.constant_false.join(", ") || "none")));
    for (const agent of g.agents) {
      const sizes = Object.entries(g.cells[agent]).sort((a, b) => Number(b[0]) - Number(a[0]))
        .map(([size, n]) => n + " of " + size);
      const n = Object.values(g.cells[agent]).reduce((a, b) => a + b, 0);
      lines.push(el("li", { class: "kripke-agent", "data-agent": agent, "data-cells": String(n) },
        g.drawn ? agentLine(g.styles[agent]) : "", el("b", {}, agent), el("span", { class: "kripke-cells" }, ": " + n +
          " cell(s) (" + sizes.join(", ") + " worlds), " + g.levels[agent] + " plausibility level(s)")));
    }
    const head = g.drawn
      ? el("p", { class: "hint" }, "Worlds (named by their true atoms" +
          (g.named_by.length < g.constant_true.length + g.constant_false.length + g.named_by.length
            ? " among " + g.named_by.join(", ") : "") +
          "; double border: the actual world). A line joins two worlds the agents on it cannot tell apart; " +
          "a red arrow points to the world those agents find more plausible. What transitivity implies is " +
          "left out.")
      : el("p", { class: "hint kripke-summary" }, "|W| = " + g.size + ": more than the " + g.limit +
          " worlds drawn, so summarised: each agent's cells by size, worlds named by the atoms that differ (" +
          (g.named_by.join(", ") || "none") + ").");
    const announced = (g.announced || []).length ? el("p", { class: "kripke-announced" },
      el("b", {}, "announced:"), ...g.announced.map((a) => el("span", { class: "formula" }, a))) : "";
    box.replaceChildren(head, el("div", { class: "kripke-head" }, announced,
      el("ul", { class: "kripke-counts" }, ...lines)));
    if (g.drawn && g.ghosts.length) box.append(el("p", { class: "hint kripke-ghosts" }, "Dashed and pale: worlds " +
      "no longer in W (red: eliminated by this turn" + (g.positions ? "; grey: before it, kept so the cube keeps " +
      "its shape" : "") + ")."));
    if (g.drawn || (state.tried && state.tried.worlds)) {  // a what-if's worlds in place of the turn's
      const holder = el("div", { class: "kripke-svg" });
      holder.innerHTML = state.tried && state.tried.worlds ? state.tried.worlds : g.svg;
      box.append(holder);
    }
  }

  // an agent's line in the drawing of the worlds, its colour and dash (Graphviz's styles as SVG dashes)
  function agentLine(style) {
    const dash = { solid: "", dashed: "8 4", dotted: "2 4", bold: "" };
    const kind = style.style.split(",")[0];
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 40 10");
    svg.setAttribute("class", "agent-line");
    const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
    for (const [k, v] of Object.entries({ x1: 2, y1: 5, x2: 38, y2: 5, stroke: style.color,
      "stroke-width": style.style.includes("bold") ? 4 : 2.5, "stroke-dasharray": dash[kind] || "" }))
      line.setAttribute(k, String(v));
    svg.append(line);
    return svg;
  }

  // ------------------------------------------------------------------ try an utterance (grounded try)
  // The form is built from the operations' JSON Schema (data.tryit.operations); the server behind the
  // page (data.tryit.endpoint, set by `grounded try`) runs Engine.whatif after the turn shown.  A page
  // written to a file has no endpoint: the form says how to start one.
  function tryOffline(prefix) {
    const t = data.tryit;
    $("try-offline").hidden = false;
    $("try-offline").replaceChildren(prefix + " To try an utterance, start the server that runs the rules: ",
      el("code", {}, "grounded try " + t.source), " and open the address it prints (on this machine, port 8765 " +
      "unless you give --port).");
  }

  function setupTry() {
    const t = data.tryit;
    if (!t) { $("try-box").hidden = true; return; }
    const ops = t.operations;
    $("try-speaker").replaceChildren(...data.agents.map((a) => el("option", { value: a }, a)));
    $("try-op").replaceChildren(...ops.map((o) => el("option", { value: o.op }, o.op)));
    $("try-op").addEventListener("change", tryFields);
    tryFields();
    if (!t.endpoint) tryOffline("This page is a file: no engine runs behind it.");
    $("try-form").addEventListener("submit", (e) => { e.preventDefault(); trySubmit(); });
    $("try-add").addEventListener("click", tryAdd);
  }

  function tryFields() {
    const o = data.tryit.operations.find((x) => x.op === $("try-op").value);
    $("try-op-help").textContent = o.description;
    $("try-fields").replaceChildren(...o.fields.map((f) => el("label", { class: "try-field" },
      f.name + (f.required ? " *" : "") + (f.kind === "list" ? " (comma-separated)" : ""),
      f.kind === "boolean" ? el("input", { type: "checkbox", name: f.name, "data-kind": f.kind })
        : el("input", { type: f.kind === "number" ? "number" : "text", name: f.name, "data-kind": f.kind,
          required: f.required, title: f.description }))));
    for (const input of $("try-fields").querySelectorAll('input[data-kind="text"], input[data-kind="list"]')) {
      if (input.name !== "text") input.addEventListener("focus", () => { literalField = input; });
    }
  }

  // the operation being written, as a log line has it: empty fields left out, lists split at commas
  function tryOp() {
    const op = { op: $("try-op").value };
    for (const input of $("try-fields").querySelectorAll("input")) {
      const kind = input.dataset.kind;
      if (kind === "boolean") { if (input.checked) op[input.name] = true; continue; }
      const v = input.value.trim();
      if (!v) continue;
      op[input.name] = kind === "list" ? v.split(",").map((x) => x.trim()).filter((x) => x)
        : kind === "number" ? Number(v) : v;
    }
    return op;
  }

  // operations kept with "+ another operation": one utterance, its operations read at once (Phase 1's T2)
  const tryPending = [];

  function tryAdd() {
    const op = tryOp();
    if (Object.keys(op).length === 1) return;  // nothing written yet
    tryPending.push(op);
    tryFields();
    renderPending();
  }

  function renderPending() {
    $("try-pending").hidden = tryPending.length === 0;
    $("try-pending").replaceChildren(...tryPending.map((op, k) => el("li", { class: "try-kept" },
      JSON.stringify(op), " ", el("button", { type: "button", title: "drop this operation",
        onclick: () => { tryPending.splice(k, 1); renderPending(); } }, "\u00d7"))));
  }

  function tryUtterance() {
    const ops = tryPending.slice();
    const current = tryOp();
    if (Object.keys(current).length > 1 || ops.length === 0) ops.push(current);
    const u = { speaker: $("try-speaker").value, ops: ops };
    const text = $("try-text").value.trim();
    if (text) u.text = text;
    return u;
  }

  // the state after the turn shown (the start frame of a conversation from T0 is turn -1: refused, 422)
  function tryAt() { return frames[state.index].turn; }

  function renderTry(f) {
    if (!data.tryit) return;
    $("try-at").textContent = turnLabel(f);
    $("try-box").dataset.at = String(tryAt());
    const literals = [...new Set(f.rows.flatMap((r) => [r.claim, ...r.deps, ...r.explains]))];
    $("try-literals").replaceChildren(literals.length ? "literals at " + turnLabel(f) + " (a click puts one " +
      "in the field last chosen; typing works too): " : "", ...literals.map((l) => el("button", {
      type: "button", class: "try-literal", "data-literal": l, onclick: () => putLiteral(l) }, l)));
  }

  // the literal field the class last chose (a list field takes literals one after another)
  let literalField = null;

  function putLiteral(l) {
    const input = literalField && literalField.isConnected ? literalField
      : $("try-fields").querySelector('input[data-kind="text"]:not([name="text"]), input[data-kind="list"]');
    if (!input) return;
    input.value = input.dataset.kind === "list" && input.value.trim() ? input.value.replace(/[\s,]*$/, "") + ", " + l
      : l;
    input.focus();
  }

  async function trySubmit() {
    const t = data.tryit;
    if (!t.endpoint) { tryOffline("Nothing was tried: this page is a file, with no engine behind it."); return; }
    const box = $("try-result");
    box.dataset.state = "waiting";
    let answer, status;
    try {
      const r = await fetch(t.endpoint, { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ at: tryAt(), utterance: tryUtterance() }) });
      status = r.status;
      answer = await r.json();
    } catch (err) {
      tryOffline("The server did not answer (" + err.message + ").");
      box.dataset.state = "offline";
      return;
    }
    showTryResult(status, answer);
  }

  function showTryResult(status, a) {
    const box = $("try-result");
    box.hidden = false;
    const ok = status === 200;
    box.dataset.state = !ok ? "error" : a.accepted ? "accepted" : "rejected";
    const outcome = $("try-outcome");
    outcome.className = ok ? (a.accepted ? "accepted" : "rejected") : "rejected";
    outcome.textContent = !ok ? "not tried: the input is not an utterance (" + status + ")"
      : "T" + a.turn + " " + a.speaker + " " + a.ops.join("; ") + ": " +
        (a.accepted ? "accepted: what the rules would do" : "rejected by the rules");
    $("try-error").hidden = ok;
    $("try-error").textContent = ok ? "" : a.message || JSON.stringify(a);
    $("try-changes").replaceChildren(...(ok ? a.changes : []).map((c) => el("li", {}, c)));
    const vt = $("try-violations");
    const violations = ok ? a.violations : [];
    vt.hidden = violations.length === 0;
    vt.tBodies[0].replaceChildren(...violations.map((v) =>
      el("tr", { class: "violation", "data-code": v.code },
        el("td", {}, "#" + v.index + " " + v.op), el("td", {}, el("code", {}, v.code)), el("td", {}, v.message))));
    const flagged = ok ? Object.entries(a.flagged) : [];
    $("try-flagged").hidden = flagged.length === 0;
    $("try-flagged").textContent = "flagged for re-evaluation: " +
      flagged.map(([k, v]) => v.join(", ") + " (rest on " + k + ")").join("; ");
    $("try-worlds").hidden = !(ok && a.worlds_svg);
    $("try-worlds").innerHTML = ok && a.worlds_svg ? a.worlds_svg : "";
    state.tried = ok ? { index: state.index, svg: a.svg, worlds: a.worlds_svg, label: "T" + a.turn + " " +
      a.speaker + " " + a.ops.join("; ") + (a.accepted ? "" : " (rejected: the map as it is)") } : null;
    drawPicture(frames[state.index]);
    renderKripke(frames[state.index]);
    const transitions = ok ? a.transitions : [];
    $("try-transitions-box").hidden = transitions.length === 0;
    $("try-transitions").replaceChildren(...transitions.map((tr) =>
      el("li", { class: "transition", "data-name": tr[1] }, tr[1] + "(" + tr.slice(2).join(", ") + ")" +
        (tr[0] >= 0 ? "  [op #" + tr[0] + "]" : ""))));
  }

  // ------------------------------------------------------------------ Verify and Affected*
  function selectClaim(c) { state.claim = c; renderQueries(); writeHash(); }
  function selectLiteral(l) { state.literal = l; renderQueries(); writeHash(); }

  function nodesOf(ids) {
    return ids.map((id) => document.getElementById("arg" + id)).filter((n) => n);
  }

  // the side panel's account of a claim: who said what, and what it claims, in words
  function claimInfo(c) {
    const box = el("div", { id: "claim-info" }, el("h3", {}, c));
    const rs = claimants(c);
    if (!rs.length) box.append(el("p", { class: "hint" }, "No argument claims " + c + " at this turn."));
    for (const r of rs) {
      box.append(el("p", { class: "who" }, "#" + r.id + " " + r.kind + " by " + r.speaker + " at T" + r.turn + ", " +
        r.standing + (r.in_standing ? (r.grounded ? ", grounded" : ", NOT grounded") : "")));
      box.append(el("blockquote", { class: "claim-text" }, r.text || "(no text)"));
    }
    return box;
  }

  // Verify's Dep* as a small picture: the arguments it rests on, arrows from premise to conclusion,
  // the failing step in red (drawn by Graphviz when the page was written; ids prefixed "dep-")
  function depStar(box, v) {
    if (!v.svg) return;
    const holder = el("div", { class: "dep-star" });
    holder.innerHTML = v.svg;
    clickable(holder, "dep-");
    box.append(holder);
  }

  function renderQueries() {
    const svg = $("picture");
    for (const cls of ["chain", "hit", "failing", "origin"]) {
      for (const n of svg.querySelectorAll("." + cls)) n.classList.remove(cls);
    }
    for (const tr of $("standings").querySelectorAll("tr.selected")) tr.classList.remove("selected");
    const i = state.index;
    const vbox = $("verify");
    if (state.claim) {
      vbox.hidden = false;
      const v = answerAt(data.verify, state.claim, i);
      const head = el("p", {}, el("b", {}, "Verify(" + state.claim + ") at " + turnLabel(frames[i]) + ": "));
      vbox.replaceChildren(claimInfo(state.claim), head);
      vbox.dataset.claim = state.claim;
      if (!v || frames[i].status === "start") {
        vbox.dataset.status = "no_anchor";
        head.append(el("span", { class: "status no" }, "no argument claims it yet"));
      } else {
        vbox.dataset.status = v.status;
        if (v.grounded) {
          head.append(el("span", { class: "status yes" }, "grounded"));
          vbox.append(el("p", { class: "chain" }, "Dep*: " + v.chain.join(", ")));
          depStar(vbox, v);
          for (const n of nodesOf(v.arguments)) n.classList.add("chain");
        } else {
          head.append(el("span", { class: "status no" }, v.status === "no_anchor" ? "no anchor (abstain)" : "not grounded"));
          vbox.append(el("p", { class: "reason" }, v.reason || ""));
          depStar(vbox, v);
          if (v.failing) {
            vbox.append(el("p", {}, "fails at ", lit(v.failing)));
            const ids = Object.entries(data.args).filter(([, c]) => c === v.failing).map(([id]) => id);
            for (const n of nodesOf(ids)) n.classList.add("failing");
            const litNode = document.getElementById("lit-" + v.failing);
            if (litNode) litNode.classList.add("failing");
          }
        }
      }
      const row = $("standings").querySelector('tr[data-claim="' + CSS.escape(state.claim) + '"]');
      if (row) row.classList.add("selected");
    } else vbox.hidden = true;
    const abox = $("affected");
    if (state.literal) {
      abox.hidden = false;
      abox.dataset.literal = state.literal;
      const a = answerAt(data.affected, state.literal, i);
      const head = el("p", {}, el("b", {}, "Affected*(" + state.literal + ") at " + turnLabel(frames[i]) + ": "));
      abox.replaceChildren(head);
      if (!a || frames[i].status === "start" || a.claims.length === 0) {
        abox.dataset.claims = "";
        head.append(el("span", { class: "status" }, a ? "nothing rests on it" : "unknown to the state at this turn"));
      } else {
        abox.dataset.claims = a.claims.join(",");
        head.append(el("span", { class: "status" }, a.claims.length + " claim(s)"));
        abox.append(el("ol", {}, ...a.claims.map((c) => el("li", {}, claim(c),
          " (hop " + a.hops[c] + ")" + (a.lose_support.includes(c) ? ": loses support" : "")))));
        for (const n of nodesOf(a.arguments)) n.classList.add("hit");
        const ids = Object.entries(data.args).filter(([, c]) => c === state.literal).map(([id]) => id);
        for (const n of nodesOf(ids)) n.classList.add("origin");
      }
    } else abox.hidden = true;
    renderFocus(frames[i]);
    // the query column opens for a query or the focus view; in presentation mode a comparison is listed above
    // the picture instead (renderDiff), so that the picture keeps its width and its type
    document.body.classList.toggle("no-query", !state.claim && !state.literal && !state.focus &&
      (state.diffFrom === null || state.present));
  }

  // the focus view: the arguments this turn changed, each with its full text, beside the picture (a clicked
  // claim's own account takes its place)
  function renderFocus(f) {
    const box = $("focus");
    $("focus-btn").setAttribute("aria-pressed", String(state.focus));
    box.hidden = !state.focus || Boolean(state.claim || state.literal);
    if (box.hidden) return;
    const changed = new Set(f.changed);
    const rows = f.rows.filter((r) => changed.has(r.id));
    box.dataset.claims = rows.map((r) => r.claim).join(",");
    box.replaceChildren(el("h3", {}, "What " + turnLabel(f) + " changed"),
      ...(rows.length ? rows.map((r) => el("div", { class: "focus-claim", "data-claim": r.claim },
        el("p", { class: "who", title: r.kind + " by " + r.speaker + " at T" + r.turn }, claim(r.claim),
          " " + r.standing + (r.in_standing ? (r.grounded ? ", grounded \u2713" : ", NOT grounded \u2717") : "")),
        el("p", { class: "claim-text" }, r.text || "(no text)")))
        : [el("p", { class: "hint" }, f.status === "rejected" ? "Rejected: nothing changed." : "Nothing changed.")]));
  }

  // ------------------------------------------------------------------ exercise mode: a turn's questions
  // The engine's answers are in the page's data; one enters the DOM only when the student checks
  // the question.  Until every question of the turn is checked, what the rules did stays hidden
  // (unless the lecturer unticks exercise mode), since the picture and the table would tell.
  const checked = {};  // "frame:question" -> what the student answered and whether it was right

  function studentAnswer(q, item) {
    if (q.choices.length) {
      const picked = item.querySelector("input[type=radio]:checked");
      return picked ? picked.value : null;
    }
    return item.querySelector("input[type=text]").value.split(/[\s,;{}[\]]+/).filter((x) => x);
  }

  function sameAnswer(shape, given, value) {
    if (given === null) return null;  // revealed without an answer: nothing to mark
    if (shape !== "set") return given.toLowerCase() === value;
    const a = new Set(given), b = new Set(value);
    return a.size === b.size && [...a].every((x) => b.has(x));
  }

  // the engine's answer, sealed in the page's data (grounded.present.sealed: the same keystream, a 32-bit
  // FNV-1a hash of the key, then xorshift32), unsealed only when the student checks
  function unseal(q) {
    let h = 2166136261;
    for (const byte of new TextEncoder().encode(q.key)) h = Math.imul(h ^ byte, 16777619) >>> 0;
    let x = h || 1;
    const bytes = Uint8Array.from(atob(q.sealed), (c) => c.charCodeAt(0));
    for (let i = 0; i < bytes.length; i++) {
      x = (x ^ (x << 13)) >>> 0; x = (x ^ (x >>> 17)) >>> 0; x = (x ^ (x << 5)) >>> 0;
      bytes[i] ^= x & 255;
    }
    return JSON.parse(new TextDecoder().decode(bytes));
  }

  function revealAnswer(q, item, result) {
    for (const input of item.querySelectorAll("input, button")) input.disabled = true;
    const answer = unseal(q);
    const shown = answer.shown.length ? answer.shown.join(", ") : "nothing";
    const mark = result.right === null ? el("span", { class: "mark" }, "no answer given")
      : el("span", { class: "mark " + (result.right ? "right" : "wrong") }, result.right ? "right" : "not quite");
    item.dataset.result = result.right === null ? "unanswered" : result.right ? "right" : "wrong";
    item.append(el("p", { class: "engine-answer" }, mark, " the engine: ", el("b", {}, shown),
      answer.detail ? " (" + answer.detail + ")" : ""));
  }

  function questionItem(q, key) {
    const item = el("li", { class: "question", "data-query": q.query }, el("p", { class: "ask" }, q.ask));
    const form = el("div", { class: "student" });
    if (q.choices.length) {
      for (const c of q.choices) form.append(el("label", {}, el("input", { type: "radio", name: key, value: c }), c, " "));
    } else {
      const input = el("input", { type: "text", placeholder: "literals, separated by commas (none: leave empty)" });
      input.addEventListener("keydown", (e) => { if (e.key === "Enter") check(); });
      form.append(input);
    }
    const check = () => {
      const given = studentAnswer(q, item);
      checked[key] = { given, right: sameAnswer(q.shape, given, unseal(q).value) };
      revealAnswer(q, item, checked[key]);
      exerciseWait();
    };
    form.append(el("button", { type: "button", class: "check", onclick: check }, "Check"));
    item.append(form, el("p", { class: "query hint" }, "the engine is asked: " + q.query));
    if (checked[key]) revealAnswer(q, item, checked[key]);
    return item;
  }

  function exerciseWait() {
    const f = frames[state.index];
    const qs = f.questions || [];
    const pending = $("exercise-mode").checked && qs.some((q, k) => !checked[state.index + ":" + k]);
    document.body.dataset.exercise = pending ? "pending" : qs.length ? "done" : "none";
    $("exercise-wait").hidden = !pending;
  }

  function renderExercise(f) {
    const qs = f.questions || [];
    $("exercise").hidden = qs.length === 0;
    $("questions").replaceChildren(...qs.map((q, k) => questionItem(q, state.index + ":" + k)));
    exerciseWait();
  }

  $("exercise-mode").addEventListener("change", exerciseWait);

  // ------------------------------------------------------------------ navigation and the URL
  function writeHash() {
    const f = frames[state.index];
    let h = "#t=" + f.turn;
    if (state.claim) h += "&claim=" + encodeURIComponent(state.claim);
    if (state.literal) h += "&literal=" + encodeURIComponent(state.literal);
    if (state.present) h += "&present";
    if (state.labels) h += "&labels=" + state.labels;
    if (state.legend) h += "&legend";
    if (state.focus) h += "&focus";
    if (state.tryOn) h += "&try";
    if (state.worlds !== null) h += "&worlds=" + (state.worlds ? "on" : "off");
    if (state.diffFrom !== null) h += "&diff=" + frames[state.diffFrom].turn;
    if (state.print) h += "&print=" + state.print;
    if (location.hash !== h) history.replaceState(null, "", h);
  }

  function readHash() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    state.claim = params.get("claim");
    state.literal = params.get("literal");
    readViewHash(params);
    const t = params.get("t");
    let index = 0, missed = "";
    if (t !== null) {
      const k = frames.findIndex((f) => String(f.turn) === t);
      if (k >= 0) index = k;
      else if (/^-?\d+$/.test(t)) {
        // the turn nearest before the one asked for (the last one past the end), said aloud
        const before = frames.map((f, i) => [f.turn, i]).filter(([turn]) => turn <= Number(t));
        index = before.length ? before[before.length - 1][1] : 0;
        missed = "There is no turn " + t + "; showing " + turnLabel(frames[index]) + ".";
      } else missed = "\u201c" + t + "\u201d is not a turn number; showing the start.";
    }
    $("hash-note").hidden = !missed;
    $("hash-note").textContent = missed;
    show(index);
  }

  // ------------------------------------------------------------------ presentation, full screen, theme
  function setPresent(on) {
    state.present = on;
    document.body.classList.toggle("present", on);
    $("present-btn").setAttribute("aria-pressed", String(on));
    show(state.index);
  }

  // presentation mode's labels: what the reader chose (key l, #labels=), else what the page was written
  // to start with (book.present_labels: texts when the largest turn fits at 1280x720 in large enough type)
  function presentLabels() { return state.labels || data.present_labels; }

  function setLabels(mode) {
    state.labels = mode;
    $("labels-btn").textContent = mode === "id" ? "texts" : "ids";
    show(state.index);
  }

  // full screen is presentation mode on the whole screen; leaving it keeps the mode
  function toggleFullscreen() {
    if (document.fullscreenElement) { document.exitFullscreen(); return; }
    if (!state.present) setPresent(true);
    const root = document.documentElement;
    if (root.requestFullscreen) root.requestFullscreen().catch(() => {});
  }

  function setTheme(dark) {
    document.body.classList.toggle("dark", dark);
    document.body.classList.toggle("light", !dark);
    $("theme-btn").textContent = dark ? "light" : "dark";
  }

  // ------------------------------------------------------------------ compare two turns
  // The shown turn against an earlier one: what appeared since, what changed standing, what lost its
  // grounding (grounded then, in standing now and not grounded), marked in the picture and listed.
  function diffMarks(from, to) {
    const before = new Map(frames[from].rows.map((r) => [r.id, r]));
    const marks = { appeared: [], standing: [], lost: [] };
    for (const r of frames[to].rows) {
      const b = before.get(r.id);
      if (!b) marks.appeared.push(r);
      else if (b.standing !== r.standing) marks.standing.push(r);
      if (b && b.grounded && !r.grounded && r.in_standing) marks.lost.push(r);
    }
    return marks;
  }

  function renderDiff() {
    const box = $("diff");
    $("diff-from-box").hidden = state.diffFrom === null;
    $("diff-btn").setAttribute("aria-pressed", String(state.diffFrom !== null));
    if (state.diffFrom === null) { box.hidden = true; return; }
    box.hidden = false;
    if (state.present) $("said").append(box);  // above the picture: the picture keeps its width and type
    else $("query-box").insertBefore(box, $("focus"));
    $("diff-from").value = String(state.diffFrom);
    const marks = diffMarks(state.diffFrom, state.index);
    const before = new Map(frames[state.diffFrom].rows.map((r) => [r.id, r]));
    const words = { appeared: "appeared", standing: "changed standing", lost: "lost grounding" };
    box.replaceChildren(el("p", {}, el("b", {}, turnLabel(frames[state.index]) + " compared with " +
      turnLabel(frames[state.diffFrom]) + ":")));
    for (const [k, rs] of Object.entries(marks)) {
      for (const r of rs) {
        const node = document.getElementById("arg" + r.id);
        if (node) node.classList.add("diff-" + k);
      }
      box.append(el("p", { class: "diff-" + k, "data-mark": k, "data-claims": rs.map((r) => r.claim).join(",") },
        el("b", {}, words[k] + " (" + rs.length + "): "),
        ...rs.map((r) => el("span", {}, claim(r.claim),
          k === "standing" ? " " + before.get(r.id).standing + " \u2192 " + r.standing + " " : " "))));
    }
    box.append(el("p", { class: "hint" }, "marks: blue border appeared, orange border changed standing, " +
      "magenta dashed border lost grounding"));
  }

  function setDiff(from) {
    state.diffFrom = from;
    show(state.index);
  }

  // ------------------------------------------------------------------ print: one turn a page
  // Every turn (or the range #print=9-13) as a page of its own: the utterance, what it did, the picture in
  // large type with the texts of what changed under it.  #print=worksheet: the turns with questions, each with
  // the map before it, its operations and its questions with room for the answers, nothing of what the rules
  // did; #print=key: the answer key, each question with the engine's answer and what the rules did
  // (worksheet:9-13 and key:9-13 keep to a range).  Each copy of a picture gets its ids prefixed, so the page's
  // own picture keeps its ids.
  function printPicture(svg, i) {
    const pic = el("div", { class: "print-picture" });
    pic.innerHTML = svg.replace(/(\bid="|url\(#|xlink:href="#)/g, "$1p" + i + "-");
    return pic;
  }

  // the texts of the arguments a turn changed, for the page a picture of ids alone is printed on
  function printTexts(f) {
    const changed = new Set(f.changed);
    const rows = f.rows.filter((r) => changed.has(r.id) && r.text);
    return rows.length ? el("dl", { class: "print-texts" }, ...rows.flatMap((r) =>
      [el("dt", {}, r.claim + " (" + r.kind + ", " + r.standing + (r.grounded ? ", grounded" : "") + ")"),
       el("dd", {}, r.text)])) : "";
  }

  function printQuestion(q, withAnswer) {
    const item = el("li", { class: "print-question" }, el("p", { class: "ask" }, q.ask));
    if (withAnswer) {
      const a = unseal(q);
      item.append(el("p", { class: "print-answer" }, "the engine: ", el("b", {}, a.shown.length ? a.shown.join(", ")
        : "nothing"), a.detail ? " (" + a.detail + ")" : "", el("span", { class: "hint" }, "  [" + q.query + "]")));
    } else if (q.choices.length) {
      item.append(el("p", { class: "print-choices" }, q.choices.map((c) => "\u2610 " + c).join("    ")));
    } else item.append(el("p", { class: "print-blank" }, "\u00a0"));
    return item;
  }

  function renderPrint() {
    let lo = -Infinity, hi = Infinity;
    const m = /^(?:(worksheet|key):?)?(?:(-?\d+)-(-?\d+))?$/.exec(state.print || "") || [];
    const sheet = m[1] || null;
    if (m[2] !== undefined) { lo = Number(m[2]); hi = Number(m[3]); }
    const pages = [];
    document.body.dataset.print = sheet || "turns";
    frames.forEach((f, i) => {
      if (f.status === "start" || f.turn < lo || f.turn > hi) return;
      const qs = f.questions || [];
      if (sheet && !qs.length) return;
      const head = sheet === "worksheet" ? "worksheet" : sheet === "key" ? "answer key" : "";
      const page = el("section", { class: "print-turn", "data-turn": String(f.turn) },
        el("h2", {}, data.title + " \u2014 " + turnLabel(f) + (head ? " \u2014 " + head : "") +
          (f.status === "rejected" && sheet !== "worksheet" ? " (rejected)" : "")),
        el("p", {}, el("b", {}, f.speaker + ": "), f.text));
      if (f.note) page.append(el("p", { class: "turn-note" }, f.note));
      if (sheet === "worksheet") {  // what the class works from: the map before the turn and what was proposed
        page.append(el("p", {}, el("b", {}, "proposed: "), f.ops.join("; ")),
          el("ol", { class: "print-questions" }, ...qs.map((q) => printQuestion(q, false))));
        const before = frames[i - 1];
        page.append(el("p", { class: "hint" }, before.rows.length ? "The map before " + turnLabel(f) + ":"
          : "Nothing is on the map before " + turnLabel(f) + "."));
        if (before.rows.length) page.append(printPicture(before.present_svg, i));
      } else {
        if (sheet === "key") page.append(el("ol", { class: "print-questions" }, ...qs.map((q) => printQuestion(q, true))));
        page.append(el("ul", {}, ...f.changes.map((c) => el("li", {}, c))));
        if (f.rows.length) page.append(printPicture(f.present_svg, i), printTexts(f));
      }
      pages.push(page);
    });
    $("print-turns").replaceChildren(...pages);
  }

  const VIEW_KEYS = {
    p: () => setPresent(!state.present),
    f: toggleFullscreen,
    t: () => setTheme(!document.body.classList.contains("dark")),
    d: () => setDiff(state.diffFrom === null ? Math.max(0, state.index - 1) : null),
    l: () => { if (state.present) setLabels(presentLabels() === "id" ? "short" : "id"); },
    k: () => setLegend(!state.legend),
    w: () => { if (data.world) setWorlds(!showWorlds()); },
    v: () => { state.focus = !state.focus; renderQueries(); writeHash(); },
    y: () => { if (data.tryit) setTryOn(!state.tryOn); },
  };

  // presentation mode's world model: what the reader chose (key w, #worlds=on|off), else shown when every
  // turn's model is drawn (the muddy children's cube), not when some turn's is too large to draw
  function showWorlds() {
    return Boolean(data.world) && (state.worlds === null ? data.kripke.every((g) => g.drawn) : state.worlds);
  }

  // a view switched on and off: its state, a class on the body, its button pressed or not (the legend: off
  // until asked for, so that it takes no room from the picture; the try-it form: beside the picture, which
  // shows the map the answer would make)
  const TOGGLES = { legend: ["legend-on", "legend-btn"], tryOn: ["try-on", "try-btn"] };

  function toggled(name, on) {
    state[name] = on;
    document.body.classList.toggle(TOGGLES[name][0], on);
    $(TOGGLES[name][1]).setAttribute("aria-pressed", String(on));
  }

  function setTryOn(on) { toggled("tryOn", on); writeHash(); }
  function setLegend(on) { toggled("legend", on); writeHash(); }

  function setWorlds(on) {
    state.worlds = on;
    applyWorlds();
    writeHash();
  }

  function applyWorlds() {
    document.body.classList.toggle("worlds", showWorlds());
    $("worlds-btn").setAttribute("aria-pressed", String(showWorlds()));
  }


  function readViewHash(params) {
    state.present = params.has("present");
    document.body.classList.toggle("present", state.present);
    $("present-btn").setAttribute("aria-pressed", String(state.present));
    const worlds = params.get("worlds");
    state.worlds = worlds === "on" ? true : worlds === "off" ? false : null;
    applyWorlds();
    state.focus = params.has("focus");
    toggled("tryOn", params.has("try"));
    toggled("legend", params.has("legend"));
    const labels = params.get("labels");
    state.labels = labels === "id" || labels === "short" ? labels : null;
    $("labels-btn").textContent = presentLabels() === "id" ? "texts" : "ids";
    const d = params.get("diff");
    const k = d === null ? -1 : frames.findIndex((f) => String(f.turn) === d);
    state.diffFrom = k >= 0 ? k : null;
    if (params.get("print") !== state.print) { state.print = params.get("print"); renderPrint(); }
  }

  function initViews() {
    setTheme(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
    $("present-btn").addEventListener("click", VIEW_KEYS.p);
    $("fullscreen-btn").addEventListener("click", toggleFullscreen);
    $("theme-btn").addEventListener("click", VIEW_KEYS.t);
    $("diff-btn").addEventListener("click", VIEW_KEYS.d);
    $("labels-btn").addEventListener("click", VIEW_KEYS.l);
    $("legend-btn").addEventListener("click", VIEW_KEYS.k);
    $("worlds-btn").addEventListener("click", VIEW_KEYS.w);
    $("focus-btn").addEventListener("click", VIEW_KEYS.v);
    $("try-btn").addEventListener("click", VIEW_KEYS.y);
    $("try-back").addEventListener("click", () => { state.tried = null; show(state.index); });
    $("diff-from").replaceChildren(...frames.map((f, i) => el("option", { value: String(i) }, turnLabel(f))));
    $("diff-from").addEventListener("change", () => setDiff(Number($("diff-from").value)));
    renderPrint();
  }

  // clickers send PageUp/PageDown; Space steps on (Shift+Space back), Home and End jump to the ends
  const STEPS = { ArrowLeft: -1, PageUp: -1, ArrowRight: 1, PageDown: 1 };
  const ARROWS = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };

  function init() {
    document.title = data.title;
    $("title").textContent = data.title;  // exactly the title (the HTML parser drops NUL, folds CR)
    if (data.note) { $("note").hidden = false; $("note").textContent = data.note; }
    const example = Object.values(data.args)[0];  // the hint's literal is one of this conversation's
    $("hint-literal").textContent = example === undefined ? "" : example;
    $("hint-literal").parentElement.hidden = example === undefined;
    const slider = $("slider");
    slider.max = String(frames.length - 1);
    slider.addEventListener("input", () => show(Number(slider.value)));
    $("prev").addEventListener("click", () => show(state.index - 1));
    $("next").addEventListener("click", () => show(state.index + 1));
    document.addEventListener("keydown", (e) => {
      const t = e.target;
      if (e.key === "Escape") {  // the keyboard's focus let go (the slider, a field, a node), then the queries
        if ((t instanceof HTMLElement || t instanceof SVGElement) && t !== document.body) t.blur();
        else if (state.claim || state.literal) { state.claim = state.literal = null; renderQueries(); writeHash(); }
        e.preventDefault();
        return;
      }
      if (t instanceof Element && t.closest("#try-form")) return;  // keys for the form
      if (t instanceof HTMLInputElement) {
        // the slider steps by itself and a text field takes its letters; the view keys work after the slider,
        // and an arrow on an answer's radio button steps the turn instead of changing the answer
        if (t.type === "radio" && e.key in ARROWS) { e.preventDefault(); show(state.index + ARROWS[e.key]); return; }
        if (t.type !== "range" || !(e.key in VIEW_KEYS)) return;
      }
      let to = null;
      if (e.key in STEPS) to = state.index + STEPS[e.key];
      else if (e.key === " ") to = state.index + (e.shiftKey ? -1 : 1);
      else if (e.key === "Home") to = 0;
      else if (e.key === "End") to = frames.length - 1;
      else if (e.key in VIEW_KEYS && !e.ctrlKey && !e.metaKey && !e.altKey) { VIEW_KEYS[e.key](); e.preventDefault(); }
      if (to !== null) { show(to); e.preventDefault(); }
    });
    setupTry();
    initViews();
    window.addEventListener("hashchange", readHash);
    readHash();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
