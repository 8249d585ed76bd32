// The live table: redraws what the server sends (server-sent events), the table's public view only, in the
// page's language (the words come with the page; the server's states carry their own texts).
"use strict";
(function () {
  var root = document.getElementById("live");
  var base = root.dataset.cardBase;
  var words = JSON.parse(document.getElementById("live-words").textContent);
  function byId(id) { return document.getElementById(id); }
  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, name) { return name in values ? String(values[name]) : whole; });
  }
  function listed(items) { return items && items.length ? items.join(", ") : "—"; }
  function cardImage(code, names) {
    var img = document.createElement("img");
    img.className = "card";
    img.src = base + code + ".webp";
    img.alt = (names && names[code]) || code;
    img.width = 60;
    img.height = 90;
    img.dataset.card = code;
    return img;
  }

  function draw(state) {
    root.dataset.status = state.status;
    root.dataset.version = String(state.version);
    byId("status").textContent = words[state.status] || state.status;
    byId("score-0").textContent = state.score[0];
    byId("score-1").textContent = state.score[1];
    var deal = state.deal;
    byId("deal-no").textContent = state.deal_no >= 0 ? String(state.deal_no + 1) : "—";
    var plays = [];
    if (deal) plays = deal.trick.length ? deal.trick : (deal.last_trick ? deal.last_trick.plays : []);
    for (var seat = 0; seat < 4; seat++) {
      var slot = document.querySelector('#trick .slot[data-seat="' + seat + '"]');
      var who = slot.querySelector(".who");
      who.textContent = who.title = state.names[seat];  // the title: the whole name where the seat cuts it short
      slot.querySelector(".spot").replaceChildren();
      byId("size-" + seat).textContent = deal ? fill(words.in_hand, { count: deal.hand_sizes[seat] }) : "";
    }
    plays.forEach(function (play) {
      document.querySelector('#trick .slot[data-seat="' + play[0] + '"] .spot').replaceChildren(cardImage(play[1], state.cards));
    });
    byId("trick-winner").textContent = deal && !deal.trick.length && deal.last_trick ? fill(words.took_trick, { name: state.names[deal.last_trick.winner] }) : "";
    byId("turn").textContent = deal && deal.to_act !== null ? fill(words.to_act, { name: state.names[deal.to_act] }) : "";
    var trump = deal && deal.trump_name ? deal.trump_name : "—";
    if (deal && deal.aufschlag) trump += " (" + fill(words.turned_up, { card: (state.cards && state.cards[deal.aufschlag]) || deal.aufschlag }) + ")";
    byId("trump").textContent = trump;
    var contract = "—";
    if (deal && deal.contract) {
      contract = deal.declarer !== null ? fill(words.contract_by, { contract: deal.contract, name: state.names[deal.declarer] }) : deal.contract;
      if (deal.multiplier > 1) contract += " ×" + deal.multiplier;
    }
    byId("contract").textContent = contract;
    byId("auction").textContent = deal ? listed(deal.auction) : "—";
    byId("doubling").textContent = deal ? listed(deal.doubling) : "—";
    byId("marriages").textContent = deal ? listed(deal.marriages) : "—";
    byId("tricks").textContent = deal ? fill(words.sides, { a: deal.team_tricks[0], b: deal.team_tricks[1] }) : "—";
    var result = byId("result");
    result.hidden = !(deal && deal.result);
    result.textContent = deal && deal.result ? deal.result.text : "";
    var link = byId("replay-link");
    var replayable = deal && deal.finished && root.dataset.replays === "1";
    link.hidden = !replayable;
    if (replayable) link.querySelector("a").href = root.dataset.replayBase + (state.deal_no + 1) + root.dataset.replayQuery;
  }

  draw(JSON.parse(byId("live-data").textContent));
  if (root.dataset.status === "closed" || !window.EventSource) return;
  var source = new EventSource(root.dataset.events);
  source.addEventListener("table", function (event) {
    var state = JSON.parse(event.data);
    draw(state);
    if (state.status === "closed") source.close();
  });
})();
