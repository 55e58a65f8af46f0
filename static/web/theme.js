/* Loaded in <head>, before the page paints: apply the theme the person chose (light or dark), else follow the
   system setting (the CSS does that with prefers-color-scheme). A static file, not an inline script, so a strict
   Content-Security-Policy keeps working. */
(function () {
  try {
    var theme = window.localStorage.getItem("theme");
    if (theme === "dark" || theme === "light") document.documentElement.setAttribute("data-theme", theme);
  } catch (e) { /* storage blocked: the system setting applies */ }
})();
