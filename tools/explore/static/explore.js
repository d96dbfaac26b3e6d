// The page works without this file: every step is a button of one form
// that holds the state. It only adds keys (left and right arrows step back
// and forth) and turns the textarea's lines, and the form's fields, into
// the ';'-separated URL a workshop can hand out.
"use strict";
document.addEventListener("keydown", function (ev) {
	if (ev.target.tagName === "TEXTAREA" || ev.target.tagName === "INPUT") {
		return;
	}
	var id = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[ev.key];
	var link = id && document.getElementById(id);
	if (link) {
		link.click();
	}
});
// query writes a form's state as a URL's query, commands separated by ';'.
function query(form) {
	var cmds = form.cmds.value.split(/[;\n\r]+/).map(function (s) { return s.trim(); })
		.filter(function (s) { return s !== ""; });
	var q = "?view=" + encodeURIComponent(form.view.value) +
		"&cmds=" + cmds.map(encodeURIComponent).join(";");
	if (form.rehash && form.rehash.value !== "" && form.rehash.value !== "128") {
		q += "&rehash=" + encodeURIComponent(form.rehash.value);
	}
	return q;
}
document.getElementById("cmdform").addEventListener("submit", function (ev) {
	ev.preventDefault();
	location.search = query(ev.target);
});
document.getElementById("state").addEventListener("submit", function (ev) {
	if (!ev.submitter) {
		return; // the form's own encoding, which the server reads too
	}
	ev.preventDefault();
	location.search = query(ev.target) + "&step=" + encodeURIComponent(ev.submitter.value);
});
