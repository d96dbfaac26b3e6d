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

// pageData is what the template shows.
type pageData struct {
	View      viewInfo
	Views     []viewInfo
	Cmds      string
	Rehash    int
	Step, Max int
	SVG       template.HTML
	Steps     []stepLink
	Current   *stepLink
	First     template.URL
	Prev      template.URL
	Next      template.URL
	Last      template.URL
	Scenarios []scenarioLink
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
	Reply   string
	Ran     []string
	Link    template.URL
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
		st := parseState(r.URL.RawQuery)
		_, pic := replay(st.view, st.cmds, st.rehash, st.step)
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Write([]byte(pic))
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
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

// build replays a state and lays out the page.
func build(st state) pageData {
	steps, pic := replay(st.view, st.cmds, st.rehash, st.step)
	d := pageData{
		View: infoOf(st.view), Cmds: strings.Join(st.cmds, "\n"), Rehash: st.rehash,
		Step: st.step, Max: len(st.cmds), SVG: template.HTML(pic),
	}
	for _, v := range views {
		d.Views = append(d.Views, infoOf(v))
	}
	for i, s := range steps {
		d.Steps = append(d.Steps, stepLink{N: i + 1, Cmd: s.Cmd, Reply: s.Reply, Ran: s.Ran,
			Link: template.URL(st.query(i + 1)), Current: i+1 == st.step})
	}
	if st.step > 0 {
		d.Current = &d.Steps[st.step-1]
		d.First = template.URL(st.query(0))
		d.Prev = template.URL(st.query(st.step - 1))
	}
	if st.step < len(st.cmds) {
		d.Next = template.URL(st.query(st.step + 1))
		d.Last = template.URL(st.query(len(st.cmds)))
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
