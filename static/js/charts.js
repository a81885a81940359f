// Draws every Plotly figure found in <script type="application/json" data-chart="ID"> blocks,
// on load and again after each htmx swap. No inline scripts: the CSP forbids them.
// plotly.js (1.5 MB gzipped) is fetched only once a page holds a chart: a blank form or a catalog list
// never pays for it, and a form whose answer swaps a chart in fetches it then. Its URL is data-plotly on this tag.
(function () {
  var plotlySrc = document.currentScript && document.currentScript.getAttribute("data-plotly");
  var loading = null;

  function withPlotly(then) {
    if (window.Plotly) { then(); return; }
    if (!plotlySrc) return;
    if (!loading) {
      loading = document.createElement("script");
      loading.src = plotlySrc;
      document.head.appendChild(loading);
    }
    loading.addEventListener("load", then);
  }

  function draw(root) {
    if (!root.querySelectorAll) return;
    var blocks = root.querySelectorAll('script[type="application/json"][data-chart]');
    if (!blocks.length) return;
    withPlotly(function () {
      blocks.forEach(function (node) {
        var target = document.getElementById(node.getAttribute("data-chart"));
        if (!target || !target.isConnected) return;
        var figure = JSON.parse(node.textContent);
        // showSendToCloud: plotly.js 3 defaults to a "Share chart..." button that uploads the figure to Plotly Cloud,
        // a third party: a workload's numbers must not leave the site, and it was one more tab stop per chart.
        var config = {
          responsive: true, displaylogo: false, showSendToCloud: false,
          modeBarButtonsToRemove: ["lasso2d", "select2d"],
        };
        window.Plotly.react(target, figure.data, figure.layout, config);
        // The chart's group is named by its label and its numbers are a table below: its ticks read aloud are noise.
        target.querySelectorAll("svg.main-svg").forEach(function (svg) { svg.setAttribute("aria-hidden", "true"); });
        target.setAttribute("data-drawn", "true");
      });
    });
  }
  document.addEventListener("DOMContentLoaded", function () { draw(document); });
  // After an outerHTML swap the event target may be the detached element: redraw from the document.
  document.addEventListener("htmx:afterSettle", function () { draw(document); });
})();
