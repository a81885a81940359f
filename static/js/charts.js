// Draws every Plotly figure found in <script type="application/json" data-chart="ID"> blocks,
// on load and again after each htmx swap. No inline scripts: the CSP forbids them.
(function () {
  function draw(root) {
    if (!window.Plotly || !root.querySelectorAll) return;
    root.querySelectorAll('script[type="application/json"][data-chart]').forEach(function (node) {
      var target = document.getElementById(node.getAttribute("data-chart"));
      if (!target) return;
      var figure = JSON.parse(node.textContent);
      var config = { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["lasso2d", "select2d"] };
      window.Plotly.react(target, figure.data, figure.layout, config);
      target.setAttribute("data-drawn", "true");
    });
  }
  document.addEventListener("DOMContentLoaded", function () { draw(document); });
  // After an outerHTML swap the event target may be the detached element: redraw from the document.
  document.addEventListener("htmx:afterSettle", function () { draw(document); });
})();
