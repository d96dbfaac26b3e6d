package proto

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOutLayout pins every serialized type to its bytes, written out by hand.
func TestOutLayout(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want []byte
	}{
		{"nil", OutNil(nil), []byte{0}},
		{"err", OutErr(nil, 2, "big"), []byte{1, 2, 0, 0, 0, 3, 0, 0, 0, 'b', 'i', 'g'}},
		{"negative err code", OutErr(nil, -1, ""), []byte{1, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}},
		{"str", OutStr(nil, "v"), []byte{2, 1, 0, 0, 0, 'v'}},
		{"int", OutInt(nil, 1), []byte{3, 1, 0, 0, 0, 0, 0, 0, 0}},
		{"negative int", OutInt(nil, -2), []byte{3, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{"dbl", OutDbl(nil, 2), []byte{4, 0, 0, 0, 0, 0, 0, 0, 0x40}},
		{"arr", OutStr(OutArr(nil, 1), "k"), []byte{5, 1, 0, 0, 0, 2, 1, 0, 0, 0, 'k'}},
		{"updated arr", updatedArr(), []byte{5, 2, 0, 0, 0, 0, 0}},
		{"appends", OutNil([]byte{9}), []byte{9, 0}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func updatedArr() []byte {
	out := OutNil(OutNil(OutArr(nil, 0)))
	OutUpdateArr(out, 2)
	return out
}
