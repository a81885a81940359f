// Swagger UI for /openapi.json, from the pinned copy in static/vendor (no CDN, no inline script).
(function () {
  function start() {
    if (!window.SwaggerUIBundle) return;
    window.SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true, tryItOutEnabled: false });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
