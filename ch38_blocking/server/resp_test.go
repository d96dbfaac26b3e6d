package server

import "testing"

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
