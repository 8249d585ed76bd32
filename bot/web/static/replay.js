// The replay's scrubber: shows the steps the server computed (replay-data); it computes nothing itself.
"use strict";
(function () {
  var root = document.getElementById("replay");
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var steps = data.steps;
  var words = data.words;
  var marks = {};  // a kept review's marks, by the step showing the decision judged (only with its link)
  (data.review ? data.review.marks : []).forEach(function (mark) { marks[mark.step] = mark; });
  var base = root.dataset.cardBase;
  var slider = document.getElementById("slider");
  var at = 0;

  function byId(id) { return document.getElementById(id); }
  function cardImage(code, cls) {
    var img = document.createElement("img");
    img.className = cls || "card";
    img.src = base + code + ".webp";
    img.alt = data.cards[code] || code;
    img.width = 60;
    img.height = 90;
    img.dataset.card = code;
    return img;
  }
  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, name) { return name in values ? String(values[name]) : whole; });
  }
  function listed(items) { return items.length ? items.join(", ") : "—"; }
  function teams(pair) { return fill(words.sides, { a: pair[0], b: pair[1] }); }

  function show(n) {
    at = Math.max(0, Math.min(steps.length - 1, n));
    var s = steps[at];
    for (var seat = 0; seat < 4; seat++) {
      byId("hand-" + seat).replaceChildren.apply(byId("hand-" + seat), s.hands[seat].map(function (c) { return cardImage(c); }));
      var roles = [];
      if (s.declarer === seat) roles.push(words.declarer);
      if (s.sitting_out === seat) roles.push(words.sits_out);
      if (s.to_act === seat) roles.push(words.to_act);
      byId("role-" + seat).textContent = roles.join(" · ");
      byId("seat-" + seat).classList.toggle("active", s.to_act === seat);
    }
    var slots = document.querySelectorAll("#trick .slot");
    slots.forEach(function (slot) { slot.querySelector(".spot").replaceChildren(); slot.classList.remove("won"); });
    s.trick.forEach(function (play) {
      var slot = document.querySelector('#trick .slot[data-seat="' + play[0] + '"]');
      slot.querySelector(".spot").replaceChildren(cardImage(play[1]));
      if (s.trick_winner === play[0]) slot.classList.add("won");
    });
    byId("trick-winner").textContent = s.trick_winner === null ? "" : fill(words.took_trick, { name: data.names[s.trick_winner] });
    byId("step-text").textContent = s.text;
    byId("step-no").textContent = fill(words.step, { step: at, steps: steps.length - 1 });
    var trump = s.trump_name || "—";  // and the card turned up for it, as the table shows it
    if (s.trump_name && s.aufschlag) trump += " (" + fill(words.turned_up, { card: data.cards[s.aufschlag] || s.aufschlag }) + ")";
    byId("trump").textContent = trump;
    byId("contract").textContent = s.contract ? s.contract + (s.multiplier > 1 ? " ×" + s.multiplier : "") : "—";
    byId("auction").textContent = listed(s.auction);
    byId("doubling").textContent = listed(s.doubling);
    byId("marriages").textContent = listed(s.marriages);
    byId("tricks").textContent = teams(s.team_tricks);
    byId("points").textContent = teams(s.points);
    var result = byId("result");
    if (s.result) {
      result.hidden = false;
      result.textContent = s.result.text;
    } else {
      result.hidden = true;
      result.textContent = "";
    }
    document.querySelectorAll("tr[data-trick]").forEach(function (row) {
      row.hidden = Number(row.dataset.trick) > s.done;
    });
    var mark = marks[at], box = byId("mark");
    if (box) {
      box.hidden = !mark;
      box.textContent = mark ? mark.where + " " + (mark.costly ? "?" : "✓") + " " + mark.text : "";
      box.classList.toggle("costly", Boolean(mark && mark.costly));
    }
    document.querySelectorAll(".marks a[data-step]").forEach(function (link) {
      link.classList.toggle("here", Number(link.dataset.step) === at);
    });
    slider.value = String(at);
    byId("first").disabled = byId("back").disabled = at === 0;
    byId("last").disabled = byId("forward").disabled = at === steps.length - 1;
    root.dataset.step = String(at);
    if (window.history && history.replaceState) history.replaceState(null, "", "#step=" + at);
  }

  byId("first").addEventListener("click", function () { show(0); });
  byId("back").addEventListener("click", function () { show(at - 1); });
  byId("forward").addEventListener("click", function () { show(at + 1); });
  byId("last").addEventListener("click", function () { show(steps.length - 1); });
  slider.addEventListener("input", function () { show(Number(slider.value)); });
  document.addEventListener("keydown", function (event) {
    if (event.target === slider || event.altKey || event.ctrlKey || event.metaKey) return;
    var moves = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: steps.length - 1 };
    if (event.key in moves) {
      event.preventDefault();
      show(moves[event.key]);
    }
  });
  function fromHash() {
    var hash = /^#step=(\d+)$/.exec(location.hash);
    return hash ? Number(hash[1]) : 0;
  }
  window.addEventListener("hashchange", function () { show(fromHash()); });  // a mark's link
  show(fromHash());
})();
