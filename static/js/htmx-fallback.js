// Loads the pinned local htmx when the CDN copy did not arrive (offline, blocked, SRI mismatch).
(function () {
  if (window.htmx) return;
  var me = document.currentScript;
  var script = document.createElement("script");
  script.src = me.getAttribute("data-local-src");
  script.integrity = me.getAttribute("data-integrity");
  document.head.appendChild(script);
})();
