// Search without a server: the index is loaded as script files (works from disk too).
(function () {
  "use strict";
  var form = document.querySelector("form[data-search]");
  if (!form) { return; }
  var shards = window.SEARCH_SHARDS || {};
  var entries = [];
  Object.keys(shards).sort().forEach(function (key) { entries = entries.concat(shards[key]); });
  var results = document.querySelector(".search-results");
  var count = document.querySelector(".search-count");
  function normalise(text) { return text.normalize("NFC").toLowerCase(); }
  function run(query) {
    var words = normalise(query).split(/\s+/).filter(Boolean);
    results.textContent = "";
    if (!words.length) { count.textContent = ""; return; }
    var found = entries.filter(function (entry) {
      var text = normalise(entry.x);
      return words.every(function (word) { return text.indexOf(word) !== -1; });
    });
    count.textContent = found.length + (found.length === 1 ? " result" : " results");
    found.slice(0, 200).forEach(function (entry) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = entry.u;
      link.textContent = entry.t + " · " + entry.e;
      var snippet = document.createElement("p");
      snippet.lang = entry.l;
      snippet.textContent = entry.x.slice(0, 240);
      item.appendChild(link);
      item.appendChild(snippet);
      results.appendChild(item);
    });
  }
  form.addEventListener("submit", function (event) { event.preventDefault(); run(form.elements.q.value); });
  form.elements.q.addEventListener("input", function () { run(form.elements.q.value); });
  var initial = new URLSearchParams(location.search).get("q");
  if (initial) { form.elements.q.value = initial; run(initial); }
}());
