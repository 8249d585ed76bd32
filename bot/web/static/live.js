// The live table: redraws what the server sends (server-sent events), the table's public view only.
"use strict";
(function () {
  var root = document.getElementById("live");
  var base = root.dataset.cardBase;
  var statusText = { lobby: "Waiting for players", playing: "Playing", finished: "The Bummerl is over", closed: "Closed" };
  function byId(id) { return document.getElementById(id); }
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
    byId("status").textContent = statusText[state.status] || state.status;
    byId("score-0").textContent = state.score[0];
    byId("score-1").textContent = state.score[1];
    var deal = state.deal;
    byId("deal-no").textContent = state.deal_no >= 0 ? String(state.deal_no + 1) : "—";
    var plays = [];
    if (deal) plays = deal.trick.length ? deal.trick : (deal.last_trick ? deal.last_trick.plays : []);
    for (var seat = 0; seat < 4; seat++) {
      var slot = document.querySelector('#trick .slot[data-seat="' + seat + '"]');
      slot.querySelector(".who").textContent = state.names[seat];
      slot.querySelector(".spot").replaceChildren();
      byId("size-" + seat).textContent = deal ? deal.hand_sizes[seat] + " in hand" : "";
    }
    plays.forEach(function (play) {
      document.querySelector('#trick .slot[data-seat="' + play[0] + '"] .spot').replaceChildren(cardImage(play[1], state.cards));
    });
    byId("trick-winner").textContent = deal && !deal.trick.length && deal.last_trick ? state.names[deal.last_trick.winner] + " took the trick." : "";
    byId("turn").textContent = deal && deal.to_act !== null ? state.names[deal.to_act] + " is to act." : "";
    var trump = deal && deal.trump_name ? deal.trump_name : "—";
    if (deal && deal.aufschlag) trump += " (turned up: " + ((state.cards && state.cards[deal.aufschlag]) || deal.aufschlag) + ")";
    byId("trump").textContent = trump;
    var contract = "—";
    if (deal && deal.contract) {
      contract = deal.contract + (deal.declarer !== null ? " by " + state.names[deal.declarer] : "") + (deal.multiplier > 1 ? " ×" + deal.multiplier : "");
    }
    byId("contract").textContent = contract;
    byId("auction").textContent = deal ? listed(deal.auction) : "—";
    byId("doubling").textContent = deal ? listed(deal.doubling) : "—";
    byId("marriages").textContent = deal ? listed(deal.marriages) : "—";
    byId("tricks").textContent = deal ? deal.team_tricks[0] + " : " + deal.team_tricks[1] : "—";
    var result = byId("result");
    result.hidden = !(deal && deal.result);
    result.textContent = deal && deal.result ? state.teams[deal.result.winner] + " win " + deal.result.game_points + ". " + deal.result.reason : "";
    var link = byId("replay-link");
    var replayable = deal && deal.finished && root.dataset.replays === "1";
    link.hidden = !replayable;
    if (replayable) link.querySelector("a").href = root.dataset.replayBase + (state.deal_no + 1);
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
