// Small enhancements that the pages work without: copy-link buttons, re-applied table roles for screen readers, and
// focus on the answer after an htmx submit, and on the pressed sort or pager link's counterpart after its swap.
// (A ranked table's column headers are links the server sorts the whole ranking by; htmx swaps them in place.)
(function () {
  // Tells the stylesheet that scripts run: charts and copy buttons show only then (static/css/app.css).
  document.documentElement.classList.add("js");

  function copyLink(button) {
    var url = new URL(button.getAttribute("data-copy"), window.location.href).href;
    var done = function () { button.textContent = "Link copied"; };
    if (navigator.clipboard) { navigator.clipboard.writeText(url).then(done, done); } else { done(); }
  }

  // Below 720 px a `table.stack` lays its rows out as grids of cards (static/css/app.css). Some browsers drop a
  // table's semantics once its parts are no longer display: table-*, and a screen reader then reads loose text;
  // explicit ARIA roles keep rows, cells and column headers announced whatever the layout (the pattern of
  // A. Roselli, "Tables, CSS Display Properties, and ARIA", 2018, updated since). The server renders these roles
  // in the templates, so pages keep them without JavaScript (tests/test_table_roles.py); this script only
  // re-applies the same roles, for content that lacks them (an htmx swap of markup rendered without them).
  var ROLES = [
    [":scope > caption", "caption"],
    [":scope > thead, :scope > tbody, :scope > tfoot", "rowgroup"],
    [":scope > thead > tr, :scope > tbody > tr, :scope > tfoot > tr", "row"],
    [":scope > thead > tr > th", "columnheader"],
    [":scope > tbody > tr > th", "rowheader"],
    [":scope > tbody > tr > td, :scope > tfoot > tr > td", "cell"]
  ];

  function addTableRoles(root) {
    if (!root || !root.querySelectorAll) return;
    root.querySelectorAll("table.stack, table.stack table").forEach(function (table) {
      table.setAttribute("role", "table");
      ROLES.forEach(function (pair) {
        table.querySelectorAll(pair[0]).forEach(function (el) { el.setAttribute("role", pair[1]); });
      });
    });
  }

  addTableRoles(document);
  document.addEventListener("htmx:load", function (event) { addTableRoles(event.target); });

  // After an htmx submit swaps a page's results in, keyboard and screen-reader focus would stay on the (replaced)
  // submit button: move it to what the answer says, the error summary on a 422 (GOV.UK's pattern) or else the
  // results' heading, both rendered with tabindex="-1". Only after a submit: not on a page load, not after a sort
  // or pager link, not while a filter form (/gpus) refreshes on change. A busy notice's retry stands for the submit
  // that met it. Without JavaScript a submit loads a whole page and focus starts at its top, as ever.
  function answerOf(doc) {
    var summary = doc.getElementById("error-summary");
    if (summary) return summary;
    var region = doc.querySelector("section.results[aria-labelledby]");
    return region && doc.getElementById(region.getAttribute("aria-labelledby"));
  }

  function fromSubmit(detail) {
    var config = detail.requestConfig;
    if (!config) return false;
    var trigger = config.triggeringEvent;
    return (trigger && trigger.type === "submit") || (config.elt && config.elt.classList.contains("busy"));
  }

  document.addEventListener("htmx:afterSettle", function (event) {
    var answer = fromSubmit(event.detail) && answerOf(document);
    if (answer) {
      if (document.activeElement !== answer) answer.focus();
      return;
    }
    announce(event.detail.target);
    var link = event.detail.requestConfig && event.detail.requestConfig.elt;
    var again = link && counterpart(link);
    if (again && document.activeElement !== again) again.focus();
  });

  // Without a focus move, a screen reader heard nothing of an update: a sorted or paged ranking, /gpus refreshed as a
  // filter changed. Say what the swapped part now shows (its errors, else its first table's caption: "12 GPUs",
  // "Showing 26–50 of 120 feasible offers, sorted by TTFT…") in base.html's live region, which no swap replaces.
  function announce(swapped) {
    var region = document.getElementById("announce");
    var root = swapped && swapped.id && document.getElementById(swapped.id);
    if (!region || !root) return;
    var said = root.querySelector("#error-summary") || root.querySelector("table.ranked > caption") ||
      root.querySelector("table > caption");
    region.textContent = said ? said.textContent.replace(/\s+/g, " ").trim() : "";
  }

  // A column header's sort link or a pager link is swapped away with the ranking it sorts: focus fell to <body> and
  // the next Tab went on below the table, past every row. Focus the same control in the new ranking instead (the
  // same column's header; Next or Previous, else the pager's first link; else the results' heading), where the eye is.
  function counterpart(link) {
    if (link.tagName !== "A" || link.isConnected) return null;
    var oldRoot = link;
    while (oldRoot.parentElement) oldRoot = oldRoot.parentElement;
    var root = (oldRoot.id && document.getElementById(oldRoot.id)) || document;
    if (link.closest("th[data-sortable]")) {
      var index = Array.prototype.indexOf.call(oldRoot.querySelectorAll("th[data-sortable] a"), link);
      return root.querySelectorAll("th[data-sortable] a")[index] || null;
    }
    if (!link.closest("nav.pager")) return null;
    var rel = link.getAttribute("rel");
    return (rel && root.querySelector('nav.pager a[rel="' + rel + '"]')) || root.querySelector("nav.pager a") ||
      answerOf(document);
  }

  document.addEventListener("click", function (event) {
    var copy = event.target.closest("[data-copy]");
    if (copy) { event.preventDefault(); copyLink(copy); }
  });
})();
