package main

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// get fetches a path from the explorer and returns its status and body.
func get(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// longZadds returns n zadds of about 100 bytes each, member i named
// "m<i>-" and padded.
func longZadds(n int) []string {
	var cmds []string
	for i := range n {
		cmds = append(cmds, fmt.Sprintf("zadd z %d m%d-%s", i, i, strings.Repeat("p", 80)))
	}
	return cmds
}

// TestPageLinearInSteps: the page holds the state once, not once per
// step. Each step's link used to carry every command again, so a page of
// n steps held n copies of the URL: 600 commands of 1.5 KB made a page of
// 545 MB. Now a command's text is on the page a fixed number of times
// (the form's state, the textarea, its place in the list), and three
// times the steps make a page about three times the size.
func TestPageLinearInSteps(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	size := map[int]int{}
	for _, n := range []int{100, 300} {
		st := state{view: byName("zset"), cmds: longZadds(n), rehash: bookRehash}
		code, body := get(t, srv, "/"+st.query(0))
		if code != http.StatusOK {
			t.Fatalf("%d steps: %d", n, code)
		}
		size[n] = len(body)
		if c := strings.Count(body, "m7-ppp"); c > 3 {
			t.Errorf("%d steps: the 8th command is on the page %d times, want at most 3", n, c)
		}
	}
	t.Logf("page of 100 steps: %d bytes; of 300 steps: %d bytes", size[100], size[300])
	if size[300] > 4*size[100] {
		t.Errorf("the page of 300 steps is %d bytes, more than 4 times the page of 100 (%d)", size[300], size[100])
	}
}

// TestStepFormServes: without the page's script, a step button submits
// the state form as a browser encodes it ('+' for spaces, %3B for ';'),
// and the server reads that as it reads the links it hands out.
func TestStepFormServes(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	st := state{view: byName("hashtable"), cmds: []string{"set a 1", "set b 2", "get a"}, rehash: 1}
	code, body := get(t, srv, "/"+st.query(3))
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	fields := map[string]string{}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="(\w+)" value="([^"]*)"`).FindAllStringSubmatch(body, -1) {
		fields[m[1]] = html.UnescapeString(m[2])
	}
	if fields["view"] != "hashtable" || fields["rehash"] != "1" || fields["cmds"] != "set a 1;set b 2;get a" {
		t.Fatalf("the state form holds %q", fields)
	}
	if !strings.Contains(body, `<button form="state" name="step" value="2" id="prev">`) {
		t.Fatalf("no prev button to step 2 in the page")
	}
	q := url.Values{"view": {fields["view"]}, "cmds": {fields["cmds"]}, "rehash": {fields["rehash"]}, "step": {"2"}}
	code, body = get(t, srv, "/?"+q.Encode())
	if code != http.StatusOK || !strings.Contains(body, `data-step="2" data-steps="3"`) {
		t.Fatalf("the form's step 2: status %d, %s", code, regexp.MustCompile(`<span id="position"[^<]*`).FindString(body))
	}
}

// TestLongURLRefused: a URL's query over maxQuery is refused with 414 and
// a message saying why, before anything is replayed, for the page and
// its picture alike; one of exactly maxQuery bytes is served.
func TestLongURLRefused(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	prefix := "view=zset&cmds=zadd%20z%201%20"
	at := "?" + prefix + strings.Repeat("m", maxQuery-len(prefix))
	for _, path := range []string{"/", "/picture.svg"} {
		if code, _ := get(t, srv, path+at); code != http.StatusOK {
			t.Errorf("%s with a query of %d bytes: %d", path, maxQuery, code)
		}
		code, body := get(t, srv, path+at+"m")
		if code != http.StatusRequestURITooLong || !strings.Contains(body, errQueryTooLong) {
			t.Errorf("%s with a query of %d bytes: %d %.80q", path, maxQuery+1, code, body)
		}
	}
}
