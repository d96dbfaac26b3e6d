package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"example.com/byor/tools/internal/cmdflag/cmdflagtest"
)

// TestUsageErrors: every flag error prints usage and exits 2.
func TestUsageErrors(t *testing.T) {
	cmdflagtest.UsageErrors(t, run, "usage: conform", [][]string{
		{},
		{"-nosuchflag", "ch07"},
		{"ch99"},
		{"-upto", "ch99"},
		{"-upto", "ch07", "ch09"},
		{"-edition", "1999", "ch07"},
		{"-server", "'unterminated", "ch07"},
	})
	cmdflagtest.Help(t, run, "usage: conform")
}

// TestNoServer: nothing listening on -addr is a clear error, not a list
// of failed checks.
func TestNoServer(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"-addr", "127.0.0.1:1", "ch07"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "no server accepts connections on 127.0.0.1:1") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// TestUpToSays: -upto names the stages it leaves out, and why, before it
// starts (here it then finds no server).
func TestUpToSays(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"-addr", "127.0.0.1:1", "-upto", "ch14"}, &stdout, &stderr)
	want := "skipping ch03 ch04 ch06 ch07 ch08 ch09 ch10: the wire format changes at ch11"
	if code != 1 || !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("exit %d, stdout %q; want it to start with %q", code, stdout.String(), want)
	}
}

func TestSplitCommand(t *testing.T) {
	got, err := splitCommand(`./server -addr {addr}  'two words' x''y`)
	want := []string{"./server", "-addr", "{addr}", "two words", "xy"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("splitCommand = %q, %v; want %q", got, err, want)
	}
}
