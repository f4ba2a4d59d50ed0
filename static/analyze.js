// Analyze page, progressive enhancement only: the form works without this file.
// - dropping a file on the drop zone puts it in the file input and submits the form;
// - an upload shows its progress in the busy indicator.
(function () {
  "use strict";

  function submit(form) {
    if (typeof form.requestSubmit === "function") {
      form.requestSubmit();
    } else {
      form.submit();
    }
  }

  document.addEventListener("dragover", function (event) {
    var zone = event.target.closest && event.target.closest("[data-dropzone]");
    if (!zone) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    zone.classList.add("an-dragover");
  });

  document.addEventListener("dragleave", function (event) {
    var zone = event.target.closest && event.target.closest("[data-dropzone]");
    if (zone && !zone.contains(event.relatedTarget)) zone.classList.remove("an-dragover");
  });

  document.addEventListener("drop", function (event) {
    var zone = event.target.closest && event.target.closest("[data-dropzone]");
    if (!zone) return;
    event.preventDefault();
    zone.classList.remove("an-dragover");
    var files = event.dataTransfer && event.dataTransfer.files;
    var input = zone.querySelector("input[type=file]");
    if (!files || !files.length || !input) return;
    var transfer = new DataTransfer();
    transfer.items.add(files[0]);
    input.files = transfer.files;
    submit(input.form);
  });

  document.addEventListener("htmx:xhr:progress", function (event) {
    var form = event.target.closest && event.target.closest("[data-analyze-form]");
    if (!form || !event.detail.lengthComputable || !event.detail.total) return;
    var bar = form.querySelector("[data-upload-progress]");
    if (!bar) return;
    var percent = Math.round((event.detail.loaded / event.detail.total) * 100);
    bar.hidden = percent >= 100;
    bar.value = percent;
    bar.textContent = percent + "%";
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.target.closest && event.target.closest("[data-analyze-form]");
    if (!form) return;
    var bar = form.querySelector("[data-upload-progress]");
    if (bar) {
      bar.hidden = true;
      bar.value = 0;
    }
  });
})();
