// The ipywidgets renderer (_static/html-manager/embed.js) typesets a widget's label through MathJax 2's
// API, MathJax.Hub.Queue(["Typeset", MathJax.Hub, element]); this site serves MathJax 3, which has no Hub,
// so every panel raised "Cannot read properties of undefined (reading 'Queue')". Map that one call onto
// MathJax 3's typesetPromise. Loaded deferred after MathJax; the widgets render on the window's load event.
if (window.MathJax && window.MathJax.startup && !window.MathJax.Hub) {
  window.MathJax.Hub = {
    Queue: (command) => MathJax.startup.promise.then(() => MathJax.typesetPromise([command[2]])),
  };
}
