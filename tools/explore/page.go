package main

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

//go:embed static
var static embed.FS

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Parse(pageHTML))

// maxQuery bounds the bytes of a URL's query the explorer takes: some
// 2,000 short commands (maxCmds), far more than a workshop's state needs.
// A longer one is refused (414) before anything is replayed: the page's
// size follows the URL's, and any web page open in a local browser can
// send this server a GET.
const maxQuery = 64 << 10

// maxListReply bounds a reply as the list of steps shows it (in
// characters, clipped as the pictures' labels are), so that the
// list grows with the number of steps, not with each step's reply (a
// keys after every set would list every key at every step); the current
// step's reply is shown whole above the picture.
const maxListReply = 80

// errQueryTooLong is the body of the refusal of a URL over maxQuery.
var errQueryTooLong = "explore: the URL's query is over " + strconv.Itoa(maxQuery) + " bytes; use fewer or shorter commands"

// state is what a URL asks for.
type state struct {
	view   *view
	cmds   []string
	rehash int
	step   int // commands replayed; -1 for all of them
}

// parseState reads a URL's query. It splits on '&' only, by hand: Go's
// url.ParseQuery refuses ';', and ';' separates the commands here.
func parseState(rawQuery string) state {
	st := state{view: views[0], rehash: bookRehash, step: -1}
	for _, kv := range strings.Split(rawQuery, "&") {
		k, v, _ := strings.Cut(kv, "=")
		v, err := url.QueryUnescape(v)
		if err != nil {
			continue
		}
		switch k {
		case "view":
			if vw := byName(v); vw != nil {
				st.view = vw
			}
		case "cmds":
			st.cmds = splitCmds(v)
			if len(st.cmds) > maxCmds {
				st.cmds = st.cmds[:maxCmds]
			}
		case "rehash":
			if n, err := strconv.Atoi(v); err == nil && n >= 1 && n <= maxRehash {
				st.rehash = n
			}
		case "step":
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				st.step = n
			}
		}
	}
	if st.step < 0 || st.step > len(st.cmds) {
		st.step = len(st.cmds)
	}
	return st
}

// query writes a state back as a URL query, with ';' between commands as
// a reader would type them.
func (st state) query(step int) string {
	var enc []string
	for _, c := range st.cmds {
		enc = append(enc, strings.ReplaceAll(url.QueryEscape(c), "+", "%20"))
	}
	q := "?view=" + st.view.name + "&cmds=" + strings.Join(enc, ";")
	if st.rehash != bookRehash {
		q += "&rehash=" + strconv.Itoa(st.rehash)
	}
	return q + "&step=" + strconv.Itoa(step)
}

// pageData is what the template shows. The state travels once, in the
// hidden fields of one form (State, Rehash when it is not the book's);
// the step buttons submit that form with their own step, where a link per
// step would hold every command again, making a page quadratic in its
// URL (600 commands of 1.5 KB made 545 MB).
type pageData struct {
	View       viewInfo
	Views      []viewInfo
	Cmds       string // one per line, for the textarea
	State      string // ';'-separated, for the form that steps
	Rehash     int
	BookRehash bool
	Step, Max  int
	SVG        template.HTML
	Steps      []stepLink
	Current    *stepLink
	Prev, Next int
	HasPrev    bool
	HasNext    bool
	Scenarios  []scenarioLink
}

type viewInfo struct {
	Name, Title, Chapter, Help string
	Hashes                     bool
}

func infoOf(v *view) viewInfo {
	return viewInfo{Name: v.name, Title: v.title, Chapter: v.chapter, Help: v.help, Hashes: v.hashes}
}

type stepLink struct {
	N       int
	Cmd     string
	Reply   string // whole, for the current step
	Listed  string // at most maxListReply bytes, for the list
	Ran     []string
	Current bool
}

type scenarioLink struct {
	Name string
	Link template.URL
}

func handler() http.Handler {
	mux := http.NewServeMux()
	sub, _ := fs.Sub(static, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(sub)))
	mux.HandleFunc("GET /picture.svg", func(w http.ResponseWriter, r *http.Request) {
		if tooLong(w, r) {
			return
		}
		st := parseState(r.URL.RawQuery)
		_, pic := replay(st.view, st.cmds, st.rehash, st.step)
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Write([]byte(pic))
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		if tooLong(w, r) {
			return
		}
		st := parseState(r.URL.RawQuery)
		var b bytes.Buffer
		if err := page.Execute(&b, build(st)); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b.Bytes())
	})
	return mux
}

// tooLong refuses a request whose query is over maxQuery, and reports
// whether it did.
func tooLong(w http.ResponseWriter, r *http.Request) bool {
	if len(r.URL.RawQuery) <= maxQuery {
		return false
	}
	http.Error(w, errQueryTooLong, http.StatusRequestURITooLong)
	return true
}

// build replays a state and lays out the page.
func build(st state) pageData {
	steps, pic := replay(st.view, st.cmds, st.rehash, st.step)
	d := pageData{
		View: infoOf(st.view), Cmds: strings.Join(st.cmds, "\n"), State: strings.Join(st.cmds, ";"),
		Rehash: st.rehash, BookRehash: st.rehash == bookRehash,
		Step: st.step, Max: len(st.cmds), SVG: template.HTML(pic),
	}
	for _, v := range views {
		d.Views = append(d.Views, infoOf(v))
	}
	for i, s := range steps {
		d.Steps = append(d.Steps, stepLink{N: i + 1, Cmd: s.Cmd, Reply: s.Reply, Listed: clip(s.Reply, maxListReply),
			Ran: s.Ran, Current: i+1 == st.step})
	}
	if st.step > 0 {
		d.Current = &d.Steps[st.step-1]
		d.HasPrev, d.Prev = true, st.step-1
	}
	if st.step < len(st.cmds) {
		d.HasNext, d.Next = true, st.step+1
	}
	for _, sc := range st.view.scenarios {
		s := state{view: st.view, cmds: sc.cmds, rehash: bookRehash}
		if st.view.scenarioRehash > 0 {
			s.rehash = st.view.scenarioRehash
		}
		d.Scenarios = append(d.Scenarios, scenarioLink{Name: sc.name, Link: template.URL(s.query(0))})
	}
	return d
}
