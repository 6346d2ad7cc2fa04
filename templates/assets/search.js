// Search without a server. The index is an inverted index in script files (consolidate.search):
// a query loads the term shards of its words, then the provision lists of the treaties found.
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
        script.onerror = resolve;  // a word with no shard simply finds nothing
        document.head.appendChild(script);
      });
    }
    return loading[src];
  }
  function postings(word) {
    var key = word.codePointAt(0).toString(16);
    return load("assets/search/terms-" + key + ".js").then(function () {
      var terms = (window.SEARCH_TERMS || {})[key] || {};
      var found = {};
      Object.keys(terms).forEach(function (term) {
        if (term.indexOf(word) === 0) {
          terms[term].forEach(function (pair) { found[pair[0] + ":" + pair[1]] = pair; });
        }
      });
      return found;
    });
  }
  var current = 0;
  function run(query) {
    var mine = ++current;
    var list = words(query);
    results.textContent = "";
    if (!list.length) { count.textContent = ""; return; }
    count.textContent = "Searching…";
    Promise.all(list.map(postings)).then(function (sets) {
      var hits = Object.keys(sets[0]).filter(function (key) {
        return sets.every(function (set) { return Object.prototype.hasOwnProperty.call(set, key); });
      }).map(function (key) { return sets[0][key]; });
      hits.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
      var shown = hits.slice(0, 200);
      var needed = shown.map(function (pair) { return treaties[pair[0]]; })
        .filter(function (t, i, all) { return all.indexOf(t) === i; });
      return Promise.all(needed.map(function (t) { return load("assets/search/docs-" + t + ".js"); }))
        .then(function () { return [hits.length, shown]; });
    }).then(function (found) {
      if (mine !== current) { return; }
      count.textContent = found[0] + (found[0] === 1 ? " result" : " results") +
        (found[0] > found[1].length ? " (first " + found[1].length + " shown)" : "");
      found[1].forEach(function (pair) {
        var treaty = treaties[pair[0]];
        var doc = window.SEARCH_DOCS[treaty][pair[1]];
        var item = document.createElement("li");
        var link = document.createElement("a");
        link.href = doc[2];
        link.textContent = treaty + " · " + doc[1] + " (" + doc[0] + ")";
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
