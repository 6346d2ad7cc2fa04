// Search without a server (consolidate.search): the site-wide word lists say which treaties
// hold a word; only those treaties' provision lists are then loaded.
(function () {
  "use strict";
  var form = document.querySelector("form[data-search]");
  if (!form) { return; }
  var treaties = window.SEARCH_TREATIES || [];
  var results = document.querySelector(".search-results");
  var count = document.querySelector(".search-count");
  var loading = {};
  var WORD = /[\p{L}\p{M}\p{N}]+/gu;

  function words(text) {
    return (text.normalize("NFC").toLowerCase().match(WORD) || []).filter(function (w) { return w.length >= 2; });
  }
  function load(src) {
    if (!loading[src]) {
      loading[src] = new Promise(function (resolve) {
        var script = document.createElement("script");
        script.src = src;
        script.onload = resolve;
        script.onerror = resolve;  // a word with no list simply finds nothing
        document.head.appendChild(script);
      });
    }
    return loading[src];
  }
  // Treaty numbers whose words include one starting with `word`.
  function treatiesWith(word) {
    var key = word.codePointAt(0).toString(16);
    return load("assets/search/words-" + key + ".js").then(function () {
      var found = {};
      ((window.SEARCH_WORDS || {})[key] || []).forEach(function (entry) {
        if ((" " + entry[1]).indexOf(" " + word) !== -1) { found[entry[0]] = true; }
      });
      return found;
    });
  }
  // Provision numbers of one treaty holding every query word (as a word or a prefix).
  function provisions(treaty, list) {
    var index = window.SEARCH_DOCS[treaty];
    var terms = Object.keys(index.words);
    var sets = list.map(function (word) {
      var set = {};
      terms.forEach(function (term) {
        if (term.indexOf(word) === 0) { index.words[term].forEach(function (i) { set[i] = true; }); }
      });
      return set;
    });
    return Object.keys(sets[0]).filter(function (i) {
      return sets.every(function (set) { return set[i]; });
    }).map(Number).sort(function (a, b) { return a - b; });
  }
  var current = 0;
  function run(query) {
    var mine = ++current;
    var list = words(query);
    results.textContent = "";
    if (!list.length) { count.textContent = ""; return; }
    count.textContent = "Searching…";
    Promise.all(list.map(treatiesWith)).then(function (sets) {
      var numbers = Object.keys(sets[0]).filter(function (n) {
        return sets.every(function (set) { return set[n]; });
      }).map(Number).sort(function (a, b) { return a - b; });
      var ids = numbers.map(function (n) { return treaties[n]; });
      return Promise.all(ids.map(function (t) { return load("assets/search/docs-" + t + ".js"); }))
        .then(function () { return ids; });
    }).then(function (ids) {
      if (mine !== current) { return; }
      var hits = [];
      ids.forEach(function (treaty) {
        provisions(treaty, list).forEach(function (i) { hits.push([treaty, window.SEARCH_DOCS[treaty].docs[i]]); });
      });
      var shown = hits.slice(0, 200);
      count.textContent = hits.length + (hits.length === 1 ? " result" : " results") +
        (hits.length > shown.length ? " (first " + shown.length + " shown)" : "");
      shown.forEach(function (hit) {
        var doc = hit[1];
        var item = document.createElement("li");
        var link = document.createElement("a");
        link.href = doc[2];
        link.textContent = hit[0] + " · " + doc[1] + " (" + doc[0] + ")";
        var snippet = document.createElement("p");
        snippet.lang = doc[0];
        snippet.textContent = doc[3];
        item.appendChild(link);
        item.appendChild(snippet);
        results.appendChild(item);
      });
    });
  }
  form.addEventListener("submit", function (event) { event.preventDefault(); run(form.elements.q.value); });
  form.elements.q.addEventListener("input", function () { run(form.elements.q.value); });
  var initial = new URLSearchParams(location.search).get("q");
  if (initial) { form.elements.q.value = initial; run(initial); }
}());
