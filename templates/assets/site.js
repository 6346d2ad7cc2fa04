// Progressive enhancement only: every page works without scripts.
(function () {
  "use strict";
  // Copy-link controls: clicking "#" copies the provision's address.
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a.copy-link") : null;
    if (!link) { return; }
    var url = location.href.split("#")[0] + link.getAttribute("href");
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(url).then(function () {
        link.classList.add("copied");
        setTimeout(function () { link.classList.remove("copied"); }, 1500);
      }, function () { /* the link still navigates to the anchor */ });
    }
  });
  // Compare any two versions: go to the precomputed diff page.
  var compare = document.querySelector("form[data-compare]");
  if (compare) {
    compare.addEventListener("submit", function (event) {
      event.preventDefault();
      var versions = Array.prototype.map.call(compare.elements.from.options, function (o) { return o.value; });
      var all = versions.concat([compare.elements.to.options[compare.elements.to.options.length - 1].value]);
      var from = compare.elements.from.value, to = compare.elements.to.value;
      var error = document.querySelector(".compare-error");
      if (all.indexOf(from) >= all.indexOf(to)) { error.hidden = false; return; }
      error.hidden = true;
      location.href = "diff/" + from + "--" + to + ".html";
    });
  }
  // Text in effect on a date: find the last change on or before the date.
  var pit = document.querySelector("form[data-pit]");
  if (pit) {
    var data = JSON.parse(document.getElementById("pit-data").textContent);
    pit.addEventListener("submit", function (event) {
      event.preventDefault();
      var steps = data[pit.elements.state.value][pit.elements.tax.value];
      var day = pit.elements.date.value, target = steps[0][1];
      steps.forEach(function (step) { if (step[0] <= day) { target = step[1]; } });
      document.querySelector(".pit-result").textContent = "Opening: " + target;
      location.href = target;
    });
  }
}());
