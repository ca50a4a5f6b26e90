// grounded book: steps through the frames in #book-data.  Every answer is precomputed by
// the engine; this script only shows them.  No network, no libraries.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("book-data").textContent);
  const frames = data.frames;
  const $ = (id) => document.getElementById(id);
  const state = { index: 0, claim: null, literal: null };

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
    return el("span", { class: "lit", "data-literal": l, title: "Affected*(" + l + ")",
      onclick: (e) => { e.stopPropagation(); selectLiteral(l); } }, l);
  }

  // the arguments claiming c at the frame shown (usually one), for its text
  function claimants(c) { return frames[state.index].rows.filter((r) => r.claim === c); }

  function textOf(c) { return claimants(c).map((r) => r.text).filter((t) => t).join(" / "); }

  function claim(c) {
    const text = textOf(c);
    return el("span", { class: "claim", "data-claim": c, title: (text ? text + "\n" : "") + "click: Verify(" + c + ")",
      onclick: (e) => { e.stopPropagation(); selectClaim(c); } }, c);
  }

  // clicking a node of a drawing (the page's picture or a Verify sub-picture) asks about it
  function clickable(svg, prefix) {
    for (const g of svg.querySelectorAll("g.node")) {
      const id = g.id.slice(prefix.length);
      const m = /^arg(\d+)$/.exec(id);
      if (m) g.addEventListener("click", () => selectClaim(data.args[m[1]]));
      else if (id.startsWith("lit-")) g.addEventListener("click", () => selectLiteral(id.slice(4)));
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
    $("picture").innerHTML = f.rows.length ? f.svg : '<p class="hint">Nothing is drawn yet.</p>';
    clickable($("picture"), "");

    renderStandings(f);
    renderWorld(f);
    renderQueries();
    writeHash();
  }

  function renderStandings(f) {
    const changed = new Set(f.changed);
    $("standings").tBodies[0].replaceChildren(...f.rows.map((r) => el("tr", {
      class: (changed.has(r.id) ? "changed " : "") + (r.claim === state.claim ? "selected" : ""),
      "data-claim": r.claim, "data-id": String(r.id),
    },
      el("td", {}, r.id), el("td", {}, claim(r.claim)), el("td", {}, r.kind), el("td", {}, r.speaker),
      el("td", {}, r.turn),
      el("td", { class: "standing " + r.standing, "data-standing": r.standing },
        r.standing + (r.standing !== "active" ? " (T" + r.since + (r.cause ? " by " + r.cause : "") + ")" : "")),
      el("td", { class: "grounded " + (r.grounded ? "yes" : "no") }, r.grounded ? "\u2713" : "\u2717"),
      el("td", {}, ...r.deps.map(lit)), el("td", {}, ...r.explains.map(lit)))));
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
  }

  // ------------------------------------------------------------------ navigation and the URL
  function writeHash() {
    const f = frames[state.index];
    let h = "#t=" + f.turn;
    if (state.claim) h += "&claim=" + encodeURIComponent(state.claim);
    if (state.literal) h += "&literal=" + encodeURIComponent(state.literal);
    if (location.hash !== h) history.replaceState(null, "", h);
  }

  function readHash() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    state.claim = params.get("claim");
    state.literal = params.get("literal");
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

  // clickers send PageUp/PageDown; Space steps on (Shift+Space back), Home and End jump to the ends
  const STEPS = { ArrowLeft: -1, PageUp: -1, ArrowRight: 1, PageDown: 1 };

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
      if (e.target instanceof HTMLInputElement) return;  // the slider steps by itself
      let to = null;
      if (e.key in STEPS) to = state.index + STEPS[e.key];
      else if (e.key === " ") to = state.index + (e.shiftKey ? -1 : 1);
      else if (e.key === "Home") to = 0;
      else if (e.key === "End") to = frames.length - 1;
      if (to !== null) { show(to); e.preventDefault(); }
    });
    window.addEventListener("hashchange", readHash);
    readHash();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
