// bidref replay page: steps through the match data embedded in #match-data.
// No network: the data, the tile drawings (#tile-defs) and this script are all in the page.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("match-data").textContent);
  const steps = D.steps;
  const n = steps.length;
  const SEATS = "AB";
  const U = 40;
  let cur = 0;
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

  function secs(ns) {
    if (ns === null || ns === undefined) return "—";
    return (ns / 1e9).toFixed(2) + " s";
  }
  function dur(ns) {
    if (ns === null || ns === undefined) return "—";
    if (Math.abs(ns) < 1e9) return Math.round(ns / 1e6) + " ms";
    return secs(ns);
  }
  function tileText(t) {
    const [a, b] = t.split("-");
    return "[" + a + "|" + b + "]";
  }

  // One tile standing upright (as held in a hand), or lying across, from the page's symbols.
  function tileUse(t, x, y, upright, extra) {
    const id = t === null ? "dback" : "d" + t;
    const rot = upright ? 90 : 0;
    const cls = extra || "";
    const data = t === null ? "hidden" : t;
    return '<g class="htile ' + cls + '" data-tile="' + data + '" transform="translate(' + x + " " + y +
      ") rotate(" + rot + ')"><use href="#' + id + '" x="-40" y="-20"/>' +
      (cls.indexOf("drawn") >= 0 ? '<rect x="-42" y="-22" width="84" height="44" rx="8" fill="none" stroke="#2f9e44" stroke-width="4"/>' : "") +
      (cls.indexOf("playable") >= 0 ? '<rect x="-46" y="-26" width="6" height="52" rx="3" fill="#2b6cb0"/>' : "") +
      "</g>";
  }

  function handSvg(tiles, count, hidden, drawnTile, playable) {
    const k = Math.max(count, 1);
    const per = 7;
    const rows = Math.ceil(k / per);
    const w = per * (U + 6) + 6;
    const h = rows * (2 * U + 12) + 4;
    let out = '<svg class="hand" viewBox="0 0 ' + w + " " + h + '" width="' + w + '" height="' + h + '">';
    for (let i = 0; i < count; i++) {
      const col = i % per;
      const row = Math.floor(i / per);
      const x = 6 + col * (U + 6) + U / 2;
      const y = 10 + row * (2 * U + 12) + U;
      const t = hidden || !tiles ? null : tiles[i];
      const cls = [t !== null && t === drawnTile ? "drawn" : "", t !== null && playable.has(t) ? "playable" : ""];
      out += tileUse(t, x, y, true, cls.join(" ").trim());
    }
    return out + "</svg>";
  }

  function revealed(s) {
    // Hands are known once the round's deal is revealed; "hide hands" keeps them face
    // down until the step that reveals the round, as a spectator would have seen it.
    const r = D.reveals[s.round];
    if (r === undefined) return false;
    if ($("hide-hands").checked && cur < r) return false;
    return true;
  }

  function clockHtml(seat, s) {
    const c = s.clocks[seat];
    const full = D.banks ? D.banks[seat] : D.bank;
    const frac = full > 0 ? Math.max(0, Math.min(1, c.bank / full)) : 0;
    const acting = s.to_act === seat;
    let html = '<div class="clock' + (c.timed_out ? " out" : "") + '">' +
      '<div class="bar"><span style="width:' + (100 * frac).toFixed(1) + '%"></span></div><dl>' +
      '<dt>bank</dt><dd id="bank-' + seat + '">' + secs(c.bank) + "</dd>" +
      '<dt>delay left</dt><dd id="delay-' + seat + '">' + (acting && c.delay_left !== null ? secs(c.delay_left) : "—") + "</dd>";
    if (acting && c.deadline !== null) html += "<dt>deadline</dt><dd>at " + secs(c.deadline) + "</dd>";
    const last = c.last;
    html += '<dt>last cost</dt><dd id="cost-' + seat + '">' +
      (last ? dur(last.elapsed) + " (delay " + dur(last.delay) + ", bank " + dur(last.bank) +
        (last.cpu != null ? ", CPU " + (last.cpu / 1e6).toFixed(1) + " ms" : "") +
        (last.wait != null ? ", waited for a CPU " + (last.wait / 1e6).toFixed(1) + " ms" : "") + ")" : "—") + "</dd>";
    if (c.timed_out) html += '<dt>clock</dt><dd class="out">time is out</dd>';
    return html + "</dl></div>";
  }

  function playerHtml(seat, s) {
    const e = D.engines[seat] || {};
    const show = revealed(s);
    const tiles = s.hands[seat];
    const count = s.hand_sizes[seat];
    const hidden = !show || tiles === null;
    const drawnTile = s.drawn && s.drawn[0] === seat ? s.drawn[1] : null;
    // At a decision, the tiles its legal actions could play or open with.
    const playable = new Set();
    if (s.legal && s.to_act === seat && !hidden) {
      for (const a of s.legal) {
        const m = /^(?:play|open) (\d-\d)/.exec(a);
        if (m) playable.add(m[1]);
      }
    }
    const pips = tiles && !hidden ? tiles.reduce((n, t) => n + Number(t[0]) + Number(t[2]), 0) : null;
    let badges = "";
    if (s.jockey === seat) badges += ' <span class="badge" title="dominoed last round: speaks second in the auction, 15 credit">jockey</span>';
    if (s.to_act === seat) badges += ' <span class="badge act">to act</span>';
    const who = [e.author ? "by " + e.author : "", e.version ? "v" + e.version : ""].filter(Boolean).join(" · ");
    return "<h2><span class=\"seat\">" + SEATS[seat] + '</span><span id="name-' + seat + '">' + esc(D.names[seat]) + "</span>" + badges + "</h2>" +
      '<div class="engine">' + esc(who) + "</div>" +
      '<div class="balance"><span id="balance-' + seat + '">' + s.balances[seat] + "</span> <small>points</small></div>" +
      clockHtml(seat, s) +
      '<div class="hand-title">hand: <span id="hand-size-' + seat + '">' + count + "</span> tile" + (count === 1 ? "" : "s") +
      (hidden && count ? " (face down)" : "") + (pips !== null ? ' · <span id="pips-' + seat + '">' + pips + "</span> pips" : "") +
      (playable.size ? ' · <span class="playable-note">▮ playable</span>' : "") + "</div>" +
      '<div id="hand-' + seat + '">' + handSvg(tiles, count, hidden, drawnTile, playable) + "</div>";
  }

  function auctionHtml(s) {
    if (!s.auction.length && s.jockey === null) return '<span class="label">auction:</span> none this round (forced opening)';
    let html = '<span class="label">auction:</span> ';
    if (!s.auction.length) html += "the non-jockey speaks first";
    html += s.auction.map((a) => "<b>" + SEATS[a[0]] + "</b> " + esc(a[1])).join(" → ");
    if (s.bid !== null) html += " · standing bid <b>" + s.bid + "</b> by " + SEATS[s.bidder];
    if (s.payment) html += ' · <span id="payment">' + esc(s.payment) + "</span>";
    return html;
  }

  function endHtml(s) {
    const e = s.end;
    if (!e) return "";
    let rows = "";
    const d = e.detail || {};
    for (const k of Object.keys(d)) rows += "<tr><td>" + esc(k) + "</td><td>" + esc(JSON.stringify(d[k])) + "</td></tr>";
    return '<h3 id="end-reason" data-reason="' + esc(e.reason) + '">' + esc(D.result_text) + "</h3>" +
      "<table><tr><td>reason</td><td>" + esc(e.reason) + "</td></tr>" +
      "<tr><td>rounds</td><td>" + esc(e.rounds) + "</td></tr>" +
      "<tr><td>rated</td><td>" + (e.rated ? "yes" : "no") + "</td></tr>" + rows + "</table>";
  }

  function logsHtml() {
    let html = "";
    for (const seat of [0, 1]) {
      const mine = [];
      for (let i = cur; i >= 0 && mine.length < 6; i--) {
        const s = steps[i];
        if (s.type === "log" && s.seat === seat) mine.push([i, s.log]);
      }
      mine.reverse();
      html += '<div class="seat-logs"><b>' + SEATS[seat] + " " + esc(D.names[seat]) + "</b>" +
        (mine.length ? "<ul>" + mine.map(([i, msg]) => '<li class="' + (i === cur ? "now" : "") + '">' +
          '<span title="line ' + steps[i].line + '">' + (msg === null ? "<i>(not revealed)</i>" : esc(msg)) + "</span></li>").join("") + "</ul>"
          : ' <span class="label">no log lines yet</span>') + "</div>";
    }
    return html;
  }

  const lineItems = [];
  function buildLines() {
    const ul = $("lines");
    const parts = [];
    // A step that spells out more of the line before it (an event a v2 file leaves
    // out) is marked ↳ under that line's number, so each number is one line of the file.
    for (let i = 0; i < n; i++) {
      const more = i > 0 && steps[i].line === steps[i - 1].line;
      parts.push('<li data-i="' + i + '" data-line="' + steps[i].line + '" class="t-' + steps[i].type + (more ? " more" : "") +
        '"><span class="n"' + (more ? ' title="line ' + steps[i].line + '">↳' : ">" + steps[i].line) + "</span>" + esc(steps[i].text) + "</li>");
    }
    ul.innerHTML = parts.join("");
    ul.querySelectorAll("li").forEach((li) => {
      lineItems.push(li);
      li.addEventListener("click", () => go(Number(li.dataset.i)));
    });
  }

  function buildRounds() {
    const box = $("rounds");
    let html = '<span class="label">round:</span>';
    for (const r of Object.keys(D.rounds).map(Number).sort((a, b) => a - b)) {
      html += '<button type="button" data-round="' + r + '" title="jump to the start of round ' + r + '">' + r + "</button>";
    }
    box.innerHTML = html;
    box.querySelectorAll("button").forEach((b) => b.addEventListener("click", () => go(D.rounds[b.dataset.round])));
  }

  function render() {
    const s = steps[cur];
    $("pos").textContent = "step " + (cur + 1) + " / " + n + " · line " + s.line + " · t = " + secs(s.t);
    $("slider").value = String(cur);
    $("step-text").innerHTML = '<span class="line-no">' + s.line + "</span>" + esc(s.text);
    $("step-text").dataset.type = s.type;
    $("note").textContent = s.note || "";
    $("player-0").innerHTML = playerHtml(0, s);
    $("player-1").innerHTML = playerHtml(1, s);
    $("player-0").classList.toggle("to-act", s.to_act === 0);
    $("player-1").classList.toggle("to-act", s.to_act === 1);
    const lay = D.layouts[s.layout];
    $("table").innerHTML = s.round ? lay.svg : '<span class="empty">no round dealt yet</span>';
    $("count").textContent = s.round ? lay.count : "";
    $("round-no").textContent = s.round ? "round " + s.round + " · " + s.phase : "before the first round";
    $("boneyard").textContent = s.boneyard === null ? "—" : String(s.boneyard);
    let drawn = "—";
    if (s.drawn) {
      const t = s.drawn[1];
      const show = t !== null && revealed(s);
      drawn = SEATS[s.drawn[0]] + " drew " + (show ? tileText(t) : "a tile") + ' <svg viewBox="-42 -22 84 44" width="84" height="44">' +
        tileUse(show ? t : null, 0, 0, false, "") + "</svg>";
    }
    $("drawn").innerHTML = drawn;
    $("drawn").dataset.tile = s.drawn ? (s.drawn[1] !== null && revealed(s) ? s.drawn[1] : "hidden") : "";
    $("auction").innerHTML = auctionHtml(s);
    $("legal").textContent = s.legal && revealed(s) ? "legal: " + s.legal.slice(0, 14).join(", ") + (s.legal.length > 14 ? ", … (" + s.legal.length + ")" : "") : "";
    $("end").innerHTML = endHtml(s);
    $("end").hidden = !s.end;
    $("logs").innerHTML = logsHtml();
    const cx = D.chart.x0 + (n > 1 ? (cur / (n - 1)) * (D.chart.x1 - D.chart.x0) : 0);
    const cursor = $("chart-cursor");
    cursor.setAttribute("x1", cx);
    cursor.setAttribute("x2", cx);
    for (const li of document.querySelectorAll("#lines li.current")) li.classList.remove("current");
    const li = lineItems[cur];
    if (li) {
      li.classList.add("current");
      const box = $("lines");
      if (li.offsetTop < box.scrollTop || li.offsetTop > box.scrollTop + box.clientHeight - li.offsetHeight) {
        box.scrollTop = li.offsetTop - box.clientHeight / 2;
      }
    }
    document.querySelectorAll("#rounds button").forEach((b) => b.classList.toggle("current", Number(b.dataset.round) === s.round));
    if (history.replaceState) history.replaceState(null, "", "#line=" + s.line);
  }

  function go(i) {
    if (!n) return;
    cur = Math.max(0, Math.min(n - 1, Number(i) || 0));
    render();
  }

  // Without a #line=N, the page opens on the first deal, not on an empty table
  // "before the first round" (Home still goes to the transcript's first line).
  function opening() {
    const first = Object.keys(D.rounds).map(Number).sort((a, b) => a - b)[0];
    return first === undefined ? 0 : D.rounds[first];
  }

  // #line=N is line N of the transcript file (as in bidref replay's FILE:LINE): its
  // first step (a v2 line the page spells out into events has several), else the last
  // step before it (a line past the end, or one the page does not show).
  function fromHash() {
    const m = /line=(\d+)/.exec(location.hash);
    if (!m) return opening();
    const line = Number(m[1]);
    let best = 0;
    for (let i = 0; i < n; i++) {
      if (steps[i].line === line) return i;
      if (steps[i].line < line) best = i;
    }
    return best;
  }

  function roundStep(delta) {
    const starts = Object.keys(D.rounds).map(Number).sort((a, b) => a - b).map((r) => D.rounds[r]);
    if (delta > 0) {
      const next = starts.find((i) => i > cur);
      go(next === undefined ? n - 1 : next);
    } else {
      const prev = starts.filter((i) => i < cur).pop();
      go(prev === undefined ? 0 : prev);
    }
  }

  $("slider").max = String(Math.max(0, n - 1));
  $("slider").addEventListener("input", (e) => go(e.target.value));
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(cur - 1));
  $("next").addEventListener("click", () => go(cur + 1));
  $("last").addEventListener("click", () => go(n - 1));
  $("hide-hands").addEventListener("change", render);
  // A long line is scaled down to fit; a click on the table shows it at full size.
  $("table").addEventListener("click", () => $("table").classList.toggle("zoom"));
  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.tagName === "INPUT" && e.target.type === "range" && (e.key === "ArrowLeft" || e.key === "ArrowRight")) {
      e.preventDefault();
    }
    if (e.key === "ArrowRight") go(cur + 1);
    else if (e.key === "ArrowLeft") go(cur - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(n - 1);
    else if (e.key === "PageDown") roundStep(1);
    else if (e.key === "PageUp") roundStep(-1);
    else return;
    e.preventDefault();
  });
  window.addEventListener("hashchange", () => go(fromHash()));
  buildLines();
  buildRounds();
  go(fromHash());
  window.bidrefReplay = { go: go, step: () => cur, steps: n };
})();
