// bidref live page: the tournament as it runs, from the server's event stream
// (/live/events), or from /live/state.json every few seconds where the stream fails.
// Nothing is loaded from anywhere else; every text from the folder is escaped.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s === null || s === undefined ? "" : s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const SEATS = "AB";
  const POLL_MS = 5000;
  const KINDS = { crashes: "crashes", time_losses: "time losses", illegal_forfeits: "illegal actions", protocol_errors: "protocol errors", aborted: "aborts" };
  // What the page has shown, and when (read by the browser test).
  const live = { loadedAt: Date.now(), updates: [], messages: 0, mode: "connecting" };
  window.bidrefLive = live;
  let boards = { running: [] };
  let received = Date.now();
  const shownLines = {};

  function status(mode, text) {
    live.mode = mode;
    const el = $("status");
    el.className = "status " + mode;
    el.textContent = text;
  }

  function secs(ms) {
    if (ms === null || ms === undefined) return "—";
    return (Math.max(0, ms) / 1000).toFixed(1) + " s";
  }

  function tiles(list) {
    return list.length ? list.map((t) => "[" + t.replace("-", "|") + "]").join(" ") : "none";
  }

  function handBacks(n) {
    const w = Math.max(n, 1) * 22 + 4;
    let out = '<svg class="hand" viewBox="0 0 ' + w + ' 44" width="' + w + '" height="44" data-tiles="' + n + '">';
    for (let i = 0; i < n; i++) {
      out += '<g transform="translate(' + (13 + i * 22) + ' 22) rotate(90) scale(0.5)"><use href="#dback" x="-40" y="-20"/></g>';
    }
    return out + "</svg>";
  }

  // The clock of a seat now: what was left when the line was written, less the time since.
  function clockNow(b, seat) {
    const c = b.clocks[seat];
    if (b.to_act !== seat || b.clock_t === null) return { delay: null, bank: c.bank / 1e6, runs: false };
    const spent = b.clock_t / 1e6 + b.age_ms + (Date.now() - received);
    const delay = (c.delay_left || 0) / 1e6;
    const bank = c.bank / 1e6 - Math.max(0, spent - delay);
    return { delay: Math.max(0, delay - spent), bank: Math.max(0, bank), runs: true };
  }

  function clockHtml(b, seat) {
    const c = b.clocks[seat];
    const now = clockNow(b, seat);
    const frac = c.full > 0 ? Math.max(0, Math.min(1, now.bank / (c.full / 1e6))) : 0;
    return '<div class="clock' + (now.runs ? " runs" : "") + '" data-seat="' + seat + '">' +
      '<div class="bar"><span style="width:' + (100 * frac).toFixed(1) + '%"></span></div>' +
      (now.runs ? "● runs · " : "") + 'bank <span class="bank">' + secs(now.bank) + "</span>" +
      (now.runs ? ' · delay <span class="delay">' + secs(now.delay) + "</span>" : "") +
      (c.last !== null ? ' · last ' + secs(c.last / 1e6) : "") + "</div>";
  }

  function seatHtml(b, seat) {
    const e = b.engines[seat] || {};
    const acting = b.to_act === seat;
    return '<div class="seat s' + seat + (acting ? " to-act" : "") + '">' +
      '<div class="who"><b>' + SEATS[seat] + "</b>" + esc(b.names[seat]) + (e.version ? " <small>v" + esc(e.version) + "</small>" : "") +
      (acting ? ' <span class="badge">to act</span>' : "") + (b.jockey === seat ? ' <span class="badge">jockey</span>' : "") + "</div>" +
      '<div class="bal"><span data-field="balance">' + b.balances[seat] + "</span> <small>points</small></div>" +
      clockHtml(b, seat) +
      '<div class="strip"><span><span class="label">hand:</span> <span data-field="hand-size">' + b.hand_sizes[seat] + "</span> face down</span></div>" +
      handBacks(b.hand_sizes[seat]) + "</div>";
  }

  function boardHtml(b) {
    const res = b.result;
    let auction = "";
    if (b.auction.length) auction = b.auction.map((a) => "<b>" + SEATS[a[0]] + "</b> " + esc(a[1])).join(" → ");
    else if (b.opening === "auction") auction = "no bid yet";
    else if (b.round) auction = "forced opening";
    const recent = b.recent.slice(-4).map((a) => SEATS[a[0]] + " " + esc(a[1])).join(" · ");
    let reveal = "";
    if (b.revealed) {
      const r = b.revealed;
      reveal = '<div class="reveal" data-field="revealed" data-round="' + r.round + '">round ' + r.round + " revealed · A dealt " + tiles(r.dealt[0]) +
        (r.left ? ", left " + tiles(r.left[0]) : "") + " · B dealt " + tiles(r.dealt[1]) + (r.left ? ", left " + tiles(r.left[1]) : "") + "</div>";
    }
    return '<h3><a href="/running/' + esc(b.id) + '" title="its replay so far">' + esc(b.title) + "</a> <small>· round " + b.round + " · " + esc(b.phase) + " · line " + b.lines + "</small></h3>" +
      '<div class="seats">' + seatHtml(b, 0) + seatHtml(b, 1) + "</div>" +
      '<div class="table">' + (b.tiles ? b.layout : '<span class="empty">' + (b.round ? "nothing on the table yet" : "no round dealt yet") + "</span>") + "</div>" +
      '<div class="strip"><span>' + esc(b.count) + '</span><span><span class="label">boneyard:</span> <span data-field="boneyard">' + b.boneyard + "</span></span>" +
      '<span><span class="label">auction:</span> ' + auction + "</span></div>" +
      '<div class="strip"><span class="label">last:</span> ' + (recent || "—") + "</div>" + reveal +
      (res ? '<div class="strip"><b data-field="result">' + (res.winner === null || res.winner === undefined ? "no winner" : esc(b.names[res.winner]) + " wins") + " · " + esc(res.reason) + "</b> · waiting for its record</div>" : "");
  }

  function renderBoards() {
    const box = $("boards");
    const ids = new Set(boards.running.map((b) => b.id));
    for (const el of Array.from(box.querySelectorAll(".board"))) if (!ids.has(el.dataset.match)) el.remove();
    if (!boards.running.length) {
      if (!box.querySelector(".none")) box.innerHTML = '<p class="none">no match is running</p>';
      return;
    }
    const none = box.querySelector(".none");
    if (none) none.remove();
    for (const b of boards.running) {
      let el = box.querySelector('.board[data-match="' + CSS.escape(b.id) + '"]');
      if (!el) {
        el = document.createElement("div");
        el.className = "board";
        el.dataset.match = b.id;
        box.appendChild(el);
      }
      if (shownLines[b.id] !== b.lines) {
        el.innerHTML = boardHtml(b);
        el.dataset.lines = String(b.lines);
        el.classList.toggle("over", !!b.result);
        shownLines[b.id] = b.lines;
      }
    }
  }

  // The running clocks tick between messages (only their text is redrawn).
  function tick() {
    for (const b of boards.running) {
      if (b.to_act === null || b.result) continue;
      const el = document.querySelector('.board[data-match="' + CSS.escape(b.id) + '"] .clock[data-seat="' + b.to_act + '"]');
      if (!el) continue;
      const now = clockNow(b, b.to_act);
      el.querySelector(".bank").textContent = secs(now.bank);
      const d = el.querySelector(".delay");
      if (d) d.textContent = secs(now.delay);
    }
  }

  function sprtHtml(s) {
    const span = s.upper - s.lower;
    const pos = (v) => (100 * (Math.max(s.lower, Math.min(s.upper, v)) - s.lower) / span).toFixed(2);
    const verdict = { H1: "H1 accepted: stronger by at least elo1", H0: "H0 accepted: not stronger than elo0", continue: "continue" }[s.status] || "no complete pair yet";
    return '<div class="sprt">[' + s.elo0 + ", " + s.elo1 + "] α=" + s.alpha + " β=" + s.beta +
      (s.pairing ? " on " + s.pairs + (s.pairs === 1 ? " pair" : " pairs") + " of " + esc(s.pairing) : "") + ': LLR <b id="llr">' + (s.llr === null ? "–" : s.llr.toFixed(2)) +
      '</b> in (' + s.lower.toFixed(2) + ", " + s.upper.toFixed(2) + ') · <b id="sprt-verdict">' + verdict + "</b></div>" +
      '<div class="gauge" title="the LLR now, between its bounds"><span class="zero" style="left:' + pos(0) + '%"></span>' +
      (s.llr === null ? "" : '<span class="llr" id="llr-mark" style="left:' + pos(s.llr) + '%"></span>') + "</div>" +
      '<div class="gauge-labels"><span>' + s.lower.toFixed(2) + " accept H0</span><span>0</span><span>accept H1 " + s.upper.toFixed(2) + "</span></div>";
  }

  function finishedHtml(list) {
    if (!list.length) return '<p class="none">no match has finished yet</p>';
    return '<table class="finished"><thead><tr><th>#</th><th>A</th><th>B</th><th>Seed</th><th>Winner</th><th>Reason</th><th>Balances</th><th>Rounds</th><th>Rated</th><th>Worker</th><th></th></tr></thead><tbody>' +
      list.map((r) => '<tr data-index="' + r.index + '"><td>' + (r.index + 1) + "</td><td>" + esc(r.a) + "</td><td>" + esc(r.b) + "</td><td>" + r.seed + "</td><td>" +
        esc(r.winner || "–") + '</td><td title="' + esc(r.text) + '">' + esc(r.reason) + "</td><td>" + r.balances[0] + "–" + r.balances[1] + "</td><td>" + r.rounds +
        "</td><td>" + (r.rated ? "yes" : "no") + "</td><td>" + esc(r.worker) + "</td><td>" + (r.replay ? '<a href="' + esc(r.replay) + '">replay</a>' : "") + "</td></tr>").join("") +
      "</tbody></table>";
  }

  function countsTable(rows, kinds, what) {
    return '<table class="faults"><thead><tr><th>' + what + "</th>" + kinds.map((k) => "<th>" + KINDS[k] + "</th>").join("") + "</tr></thead><tbody>" +
      rows.map((r) => '<tr data-name="' + esc(r.name) + '"><td>' + esc(r.name) + "</td>" + r.counts.map((n, i) => '<td class="n' + (n ? " hot" : "") + '" data-kind="' + kinds[i] + '">' + n + "</td>").join("") + "</tr>").join("") +
      "</tbody></table>";
  }

  function faultsHtml(f) {
    let html = countsTable(f.engines, f.kinds, "Engine");
    const links = f.engines.filter((e) => e.links.length);
    for (const e of links) {
      html += "<p><b>" + esc(e.name) + "</b></p><ul>" + e.links.map((l) => '<li data-kind="' + l.kind + '">' + KINDS[l.kind] + ": match " + (l.index + 1) +
        " (seed " + l.seed + ", seat " + l.seat + ", " + esc(l.worker) + ") " + esc(l.text) +
        (l.replay ? ' · <a href="' + esc(l.replay) + '">match</a>' : "") + ' · <a href="' + esc(l.stderr) + '">stderr log</a></li>').join("") + "</ul>";
    }
    if (f.workers.length) html += "<h3>By worker</h3>" + countsTable(f.workers, f.kinds, "Worker");
    return html;
  }

  function renderTables(t) {
    if (t.problem) {
      $("problem").hidden = false;
      $("problem").textContent = t.problem;
    } else $("problem").hidden = true;
    if (t.standings === undefined) return;
    $("title").textContent = t.title;
    document.title = "live: " + t.title;
    $("about").textContent = t.about;
    $("progress").innerHTML = '<span id="rated">' + t.rated + "</span> of " + t.total + " matches rated · " + t.recorded + " recorded";
    $("standings").innerHTML = t.standings;
    $("ratings").innerHTML = t.ratings;
    $("cross").innerHTML = t.cross;
    $("sprt-box").hidden = !t.sprt;
    if (t.sprt) $("sprt").innerHTML = sprtHtml(t.sprt);
    $("finished").innerHTML = finishedHtml(t.finished);
    $("faults").innerHTML = faultsHtml(t.faults);
  }

  function apply(msg) {
    received = Date.now();
    live.messages += 1;
    if (msg.tables) renderTables(msg.tables);
    if (msg.boards) {
      boards = msg.boards;
      renderBoards();
    }
    const shown = {};
    for (const b of boards.running) shown[b.id] = b.lines;
    live.updates.push({
      at: Date.now(),
      rated: msg.tables ? msg.tables.rated : null,
      recorded: msg.tables ? msg.tables.recorded : null,
      boards: msg.boards ? shown : null,
    });
    if (live.updates.length > 5000) live.updates.splice(0, 1000);
  }

  function poll() {
    fetch("/live/state.json", { cache: "no-store" })
      .then((r) => r.json())
      .then((s) => { apply(s); status("poll", "updating every 5 s"); })
      .catch(() => status("down", "server gone"))
      .finally(() => setTimeout(poll, POLL_MS));
  }

  function connect() {
    if (!window.EventSource) { poll(); return; }
    const es = new EventSource("/live/events");
    let failures = 0;
    es.onopen = () => status("live", "live");
    es.onmessage = (e) => { failures = 0; status("live", "live"); apply(JSON.parse(e.data)); };
    es.onerror = () => {
      failures += 1;
      if (es.readyState === EventSource.CLOSED || failures >= 3) {
        es.close();
        status("poll", "updating every 5 s");
        poll();
      }
    };
  }

  setInterval(tick, 250);
  connect();
})();
