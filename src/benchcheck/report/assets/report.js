"use strict";
// Table sorting and filtering. Reads and moves existing nodes only: no HTML is built from data.
(function () {
  function key(cell) {
    var v = cell.getAttribute("data-sort");
    if (v === null) { v = cell.textContent; }
    var n = parseFloat(v);
    return (v.trim() !== "" && isFinite(n)) ? { n: n, s: "" } : { n: NaN, s: v.toLowerCase() };
  }
  function compare(a, b) {
    if (!isNaN(a.n) && !isNaN(b.n)) { return a.n - b.n; }
    if (!isNaN(a.n)) { return -1; }
    if (!isNaN(b.n)) { return 1; }
    return a.s < b.s ? -1 : (a.s > b.s ? 1 : 0);
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, col) {
      th.setAttribute("tabindex", "0");
      function sort() {
        var body = table.tBodies[0];
        var asc = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) {
          var c = compare(key(r1.cells[col]), key(r2.cells[col]));
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") { sort(); } });
    });
  });
  document.querySelectorAll("input.filter").forEach(function (input) {
    var table = document.getElementById(input.getAttribute("data-table"));
    var count = document.getElementById(input.getAttribute("data-count"));
    if (!table) { return; }
    input.addEventListener("input", function () {
      var q = input.value.toLowerCase();
      var shown = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var hit = row.textContent.toLowerCase().indexOf(q) !== -1;
        row.hidden = !hit;
        if (hit) { shown += 1; }
      });
      if (count) { count.textContent = String(shown); }
    });
  });
})();
