/* The tenant and end-user filters (core/admin_autocomplete.py): select2 gives the text it shows a textbox role with
   no name of its own; name it by the filter's label as soon as select2 has drawn it (Django starts select2 from a
   jQuery ready handler, which may run after this page's load event). */
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll(".autocomplete-filter").forEach(function (form) {
    var label = form.querySelector("label[id]");
    if (!label) return;
    var name = function () {
      form.querySelectorAll(".select2-selection__rendered").forEach(function (shown) {
        if (shown.getAttribute("aria-labelledby") !== label.id) shown.setAttribute("aria-labelledby", label.id);
      });
    };
    name();
    new MutationObserver(name).observe(form, { childList: true, subtree: true });
  });
});
