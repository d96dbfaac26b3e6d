package server

import "testing"

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true},
		{"*", "anything", true},
		{"h*llo", "hello", true},
		{"h*llo", "heeeello", true},
		{"h*llo", "hellx", false},
		{"h?llo", "hallo", true},
		{"h?llo", "hllo", false},
		{"h[ae]llo", "hello", true},
		{"h[ae]llo", "hillo", false},
		{"h[^e]llo", "hallo", true},
		{"h[^e]llo", "hello", false},
		{"h[a-b]llo", "hbllo", true},
		{"h[a-b]llo", "hcllo", false},
		{`h\*llo`, "h*llo", true},
		{`h\*llo`, "hello", false},
		{"user:*:name", "user:42:name", true},
		{"user:*:name", "user:42:age", false},
		{"a**b", "ab", true},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.s); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	got := unknownCommand([][]byte{[]byte("foo"), []byte("a"), []byte("b c")})
	want := "ERR unknown command 'foo', with args beginning with: 'a' 'b c' "
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	long := make([]byte, 300)
	for i := range long {
		long[i] = 'x'
	}
	got = unknownCommand([][]byte{[]byte("foo"), long, []byte("never")})
	if len(got) > 250 {
		t.Fatalf("unknownCommand quotes %d bytes of arguments; want them cut at about 128", len(got))
	}
}
