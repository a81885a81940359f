// Small enhancements that the pages work without: copy-link buttons and client-side table sorting.
(function () {
  function copyLink(button) {
    var url = new URL(button.getAttribute("data-copy"), window.location.href).href;
    var done = function () { button.textContent = "Link copied"; };
    if (navigator.clipboard) { navigator.clipboard.writeText(url).then(done, done); } else { done(); }
  }

  function cellValue(row, index) {
    var cell = row.children[index];
    if (!cell) return "";
    var raw = cell.getAttribute("data-sort");
    if (raw !== null) { var n = parseFloat(raw); return isNaN(n) ? raw : n; }
    return cell.textContent.trim();
  }

  function sortTable(header) {
    var table = header.closest("table");
    var index = Array.prototype.indexOf.call(header.parentNode.children, header);
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th[aria-sort]").forEach(function (th) { th.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.querySelectorAll("tr.row"));
    rows.sort(function (a, b) {
      var x = cellValue(a, index), y = cellValue(b, index);
      if (x === y) return 0;
      if (x === "" || x === null) return 1;
      if (y === "" || y === null) return -1;
      return (x < y ? -1 : 1) * (ascending ? 1 : -1);
    });
    rows.forEach(function (row) {
      body.appendChild(row);
      var detail = document.getElementById(row.getAttribute("data-detail"));
      if (detail) body.appendChild(detail);
    });
  }

  document.addEventListener("click", function (event) {
    var copy = event.target.closest("[data-copy]");
    if (copy) { event.preventDefault(); copyLink(copy); return; }
    var sortable = event.target.closest("th[data-sortable] button");
    if (sortable) { sortTable(sortable.closest("th")); }
  });
})();
