// Small enhancements that the pages work without: copy-link buttons. (A ranked table's column headers are links
// the server sorts the whole ranking by; htmx swaps them in place.)
(function () {
  function copyLink(button) {
    var url = new URL(button.getAttribute("data-copy"), window.location.href).href;
    var done = function () { button.textContent = "Link copied"; };
    if (navigator.clipboard) { navigator.clipboard.writeText(url).then(done, done); } else { done(); }
  }

  document.addEventListener("click", function (event) {
    var copy = event.target.closest("[data-copy]");
    if (copy) { event.preventDefault(); copyLink(copy); }
  });
})();
