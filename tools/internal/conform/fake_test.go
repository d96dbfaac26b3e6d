package conform

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"example.com/byor/tools/internal/wire"
)

// The fake servers below are small stand-ins speaking the serialized
// protocol (chapter 09 on), each with one deliberate difference from the
// chapters' servers: the test binary runs them as "-fake MODE -addr ADDR"
// so that the runner starts, restarts and stops them like any server.
//
// Modes:
//
//	newer      the book's newer edition as the newer profile describes it
//	wrongcode  2023 edition, but unknown commands answer error code 2
//	notimeout  2023 edition without the idle timeout
//	hang       2023 edition that never answers keys
//	crash      2023 edition that exits on keys
//	hangup     2023 edition that answers keys with 3 bytes and hangs up
//	book       2023 edition with chapter 13's pexpire and pttl as the
//	           book's code has them, overflow included: now + ms*1000 µs
//	           is computed in uint64 and wraps, so a huge TTL expires the
//	           key at once
//	bookhang   2023 edition with the book's pipelining hang, roughly: after
//	           500 replies it leaves the requests it has buffered alone
//	           until more bytes arrive

type fake struct {
	mode    string
	mu      sync.Mutex
	strs    map[string]string
	order   []string // string keys in insertion order, for keys
	zsets   map[string]map[string]float64
	ttls    map[string]uint64 // key -> deadline in µs since start (book mode)
	start   time.Time
	maxMsg  int
	maxArgs int
}

// fakeArgs reads the arguments of a fake server the test binary runs as:
// -name MODE and -addr ADDR (defaultAddr if not given). ok is false when
// the binary was not started as that fake.
func fakeArgs(name, defaultAddr string) (mode, addr string, ok bool) {
	if len(os.Args) < 2 || os.Args[1] != "-"+name {
		return "", "", false
	}
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	m := fs.String(name, "", "mode")
	a := fs.String("addr", defaultAddr, "address")
	fs.Parse(os.Args[1:])
	return *m, *a, true
}

// fakeMain runs a fake server if the test binary was started as one.
func fakeMain() bool {
	mode, addr, ok := fakeArgs("fake", "127.0.0.1:1234")
	if !ok {
		return false
	}
	f := &fake{mode: mode, strs: map[string]string{}, zsets: map[string]map[string]float64{}, ttls: map[string]uint64{}, start: time.Now(), maxMsg: 4096, maxArgs: 1024}
	if f.mode == "newer" {
		f.maxMsg, f.maxArgs = 32<<20, 200000
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			os.Exit(1)
		}
		go f.serve(c)
	}
}

func (f *fake) serve(c net.Conn) {
	defer c.Close()
	if f.mode == "bookhang" {
		f.serveBookHang(c)
		return
	}
	r := bufio.NewReader(c)
	idle := f.mode != "notimeout"
	for {
		if idle {
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
		}
		var hdr [4]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return
		}
		n := binary.LittleEndian.Uint32(hdr[:])
		if int64(n) > int64(f.maxMsg) {
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		if len(body) < 4 || int(binary.LittleEndian.Uint32(body)) > f.maxArgs {
			return
		}
		args, err := wire.SplitRequest(body)
		if err != nil {
			return
		}
		if f.mode == "hangup" && len(args) == 1 && args[0] == "keys" {
			c.Write([]byte{9, 0, 0}) // part of a header, then gone
			return
		}
		out := f.do(args)
		if out == nil {
			select {} // hang: never answer
		}
		if 4+len(out) > f.maxMsg {
			msg := "response is too big"
			if f.mode == "newer" {
				msg += "."
			}
			out = wire.AppendErr(nil, 2, msg)
		}
		if _, err := c.Write(wire.AppendFrame(nil, out)); err != nil {
			return
		}
	}
}

func (f *fake) do(args []string) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	newer := f.mode == "newer"
	name := ""
	if len(args) > 0 {
		name = args[0]
		if !newer {
			name = strings.ToLower(name)
		}
	}
	is := func(cmd string, n int) bool { return name == cmd && len(args) == n }
	t := wire.Tags11
	if f.mode == "book" {
		if reply, ok := f.bookTTL(args, is); ok {
			return reply
		}
	}
	switch {
	case is("get", 2):
		if v, ok := f.strs[args[1]]; ok {
			return wire.AppendStr(nil, v)
		}
		return wire.AppendNil(nil)
	case is("set", 3):
		if _, ok := f.strs[args[1]]; !ok {
			f.order = append(f.order, args[1])
		}
		f.strs[args[1]] = args[2]
		return wire.AppendNil(nil)
	case is("del", 2):
		had := f.exists(args[1])
		f.remove(args[1])
		if had {
			return wire.AppendInt(nil, 1)
		}
		return wire.AppendInt(nil, 0)
	case is("keys", 1):
		switch f.mode {
		case "hang":
			return nil
		case "crash":
			os.Exit(3)
		}
		v := wire.Value{Tag: wire.TagArr}
		for _, k := range bookKeysOrder(f.order) {
			v.Arr = append(v.Arr, wire.Value{Tag: wire.TagStr, Str: []byte(k)})
		}
		return t.AppendValue(nil, v)
	case is("zadd", 4):
		score, err := strconv.ParseFloat(args[2], 64)
		if err != nil || math.IsNaN(score) {
			msg := "expect fp number"
			if newer {
				msg = "expect float"
			}
			return wire.AppendErr(nil, 4, msg)
		}
		z := f.zsets[args[1]]
		if z == nil {
			z = map[string]float64{}
			f.zsets[args[1]] = z
		}
		_, had := z[args[3]]
		z[args[3]] = score
		if had {
			return wire.AppendInt(nil, 0)
		}
		return wire.AppendInt(nil, 1)
	case is("zrem", 3), is("zscore", 3):
		z, ok := f.zsets[args[1]]
		if !ok && (name == "zscore" || !newer) {
			return wire.AppendNil(nil)
		}
		s, had := z[args[2]]
		if name == "zscore" {
			if !had {
				return wire.AppendNil(nil)
			}
			return wire.AppendDbl(nil, s)
		}
		delete(z, args[2])
		if had {
			return wire.AppendInt(nil, 1)
		}
		return wire.AppendInt(nil, 0)
	case is("zquery", 6):
		score, err1 := strconv.ParseFloat(args[2], 64)
		off, err2 := strconv.ParseInt(args[4], 10, 64)
		limit, err3 := strconv.ParseInt(args[5], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return wire.AppendErr(nil, 4, "expect number")
		}
		type pair struct {
			n string
			s float64
		}
		var ps []pair
		for n, s := range f.zsets[args[1]] {
			ps = append(ps, pair{n, s})
		}
		less := func(a pair, s float64, n string) bool { return a.s < s || (a.s == s && a.n < n) }
		sort.Slice(ps, func(i, j int) bool { return less(ps[i], ps[j].s, ps[j].n) })
		i := sort.Search(len(ps), func(i int) bool { return !less(ps[i], score, args[3]) })
		i += int(off)
		v := wire.Value{Tag: wire.TagArr}
		for n := int64(0); i >= 0 && i < len(ps) && n < limit; i, n = i+1, n+2 {
			v.Arr = append(v.Arr, wire.Value{Tag: wire.TagStr, Str: []byte(ps[i].n)}, wire.Value{Tag: wire.TagDbl, Dbl: ps[i].s})
		}
		return t.AppendValue(nil, v)
	}
	switch {
	case newer:
		return wire.AppendErr(nil, 1, "unknown command.")
	case f.mode == "wrongcode":
		return wire.AppendErr(nil, 2, "Unknown cmd")
	}
	return wire.AppendErr(nil, 1, "Unknown cmd")
}

// serveBookHang answers requests from its own buffer like the book's loop,
// but after its 500th reply it leaves the requests it holds alone until a
// read brings new bytes after a silence (the client has sent everything
// and waits), as the book's code does after a write that would block.
func (f *fake) serveBookHang(c net.Conn) {
	var buf []byte
	tmp := make([]byte, 64<<10)
	replies := 0
	hung := false
	for {
		start := time.Now()
		n, err := c.Read(tmp)
		if err != nil {
			return
		}
		buf = append(buf, tmp[:n]...)
		if hung && time.Since(start) < time.Second {
			continue
		}
		hung = false
		for len(buf) >= 4 && !hung {
			l := int(binary.LittleEndian.Uint32(buf))
			if l > f.maxMsg {
				return
			}
			if len(buf) < 4+l {
				break
			}
			args, err := wire.SplitRequest(buf[4 : 4+l])
			if err != nil {
				return
			}
			buf = buf[4+l:]
			if _, err := c.Write(wire.AppendFrame(nil, f.do(args))); err != nil {
				return
			}
			replies++
			hung = replies == 500
		}
	}
}

func (f *fake) exists(k string) bool {
	_, a := f.strs[k]
	_, b := f.zsets[k]
	return a || b
}

func (f *fake) remove(k string) {
	delete(f.strs, k)
	delete(f.zsets, k)
	delete(f.ttls, k)
	for i, o := range f.order {
		if o == k {
			f.order = append(f.order[:i], f.order[i+1:]...)
			break
		}
	}
}

// strtoll reads s as the book's str2int does: C's strtoll in base 10
// (blanks and a sign first, clamped to the int64 range, "" is 0), and
// nothing may follow the digits.
func strtoll(s string) (int64, bool) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var v uint64
	over := false
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if v > (math.MaxUint64-9)/10 {
			over = true
		}
		v = v*10 + uint64(s[i]-'0')
	}
	if i == start {
		return 0, s == "" // no digits: C stops at the start; only "" ends there
	}
	if i != len(s) {
		return 0, false
	}
	switch {
	case neg && (over || v > 1<<63):
		return math.MinInt64, true
	case neg:
		return -int64(v), true
	case over || v > math.MaxInt64:
		return math.MaxInt64, true
	}
	return int64(v), true
}

// bookTTL answers pexpire and pttl as the book's ch13-ch14 server does,
// after removing the keys that are due; ok is false for other commands.
// f.mu is held.
func (f *fake) bookTTL(args []string, is func(cmd string, n int) bool) (reply []byte, ok bool) {
	// The book removes due keys after each loop iteration; removing
	// them before each request is the same as far as clients see.
	now := uint64(time.Since(f.start).Microseconds())
	for k, at := range f.ttls {
		if at < now {
			f.remove(k)
		}
	}
	switch {
	case is("pexpire", 3):
		ms, ok := strtoll(args[2])
		if !ok {
			return wire.AppendErr(nil, 4, "expect int64"), true
		}
		if !f.exists(args[1]) {
			return wire.AppendInt(nil, 0), true
		}
		if ms < 0 {
			delete(f.ttls, args[1])
		} else {
			f.ttls[args[1]] = now + uint64(ms)*1000 // wraps, as in the book
		}
		return wire.AppendInt(nil, 1), true
	case is("pttl", 2):
		if !f.exists(args[1]) {
			return wire.AppendInt(nil, -2), true
		}
		at, ok := f.ttls[args[1]]
		switch {
		case !ok:
			return wire.AppendInt(nil, -1), true
		case at > now:
			return wire.AppendInt(nil, int64((at-now)/1000)), true
		}
		return wire.AppendInt(nil, 0), true
	}
	return nil, false
}
