// The receipt's Print button (console/templates/receipt.html): the browser's print dialog. A
// file of its own, since the console's Content-Security-Policy allows no inline script.
document.addEventListener("DOMContentLoaded", function () {
  var button = document.getElementById("print-receipt");
  if (button) {
    button.addEventListener("click", function () { window.print(); });
  }
});
