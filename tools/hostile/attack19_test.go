package hostile

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Attacks on chapter 19's commands by a client who has read the code,
// each beside its honest twin of the same size on one server. The log
// reports the server's CPU time for each and a bystander's worst PING;
// the verdicts are replies and counts.

// TestRandomKeySparseTable: RANDOMKEY picks a random place in the key
// table's order and takes a key near it. After 500,000 keys are made and
// all but 3 deleted, the table keeps the slots the 500,000 needed, and
// without a shrink every RANDOMKEY missed in its tries and then walked
// all those empty slots to a key: some 5 ms each, 2 s for a transaction
// of 400, against microseconds over a table made for 3 keys, the twin.
// The first RANDOMKEY now shrinks the table once. Both runs send 2,000
// RANDOMKEYs and a transaction of 400, and must get one of the 3 keys
// each time, every one of them at least once.
func TestRandomKeySparseTable(t *testing.T) {
	eachChapter(t, keys19Chapters(), testRandomKeySparseTable)
}

func testRandomKeySparseTable(t *testing.T, ch string) {
	p, addr, c := startWithClient(t, ch)
	kept := []string{"kept:a", "kept:b", "kept:c"}
	for _, k := range kept {
		if got := c.do(time.Minute, "SET", k, "v"); got != "+OK" {
			t.Fatalf("SET %s: %q", k, got)
		}
	}
	const asks, inTx = 2000, 400
	// pick sends the RANDOMKEYs, then the transaction, and counts the
	// keys answered.
	pick := func(what string) figures {
		seen := map[string]int{}
		var reqs strings.Builder
		for range asks {
			reqs.WriteString(respCmd("RANDOMKEY"))
		}
		reqs.WriteString(respCmd("MULTI"))
		for range inTx {
			reqs.WriteString(respCmd("RANDOMKEY"))
		}
		reqs.WriteString(respCmd("EXEC"))
		key := func() {
			if h := c.line(); h != "$6" {
				t.Fatalf("%s: RANDOMKEY answered %q", what, h)
			}
			seen[c.line()]++
		}
		f := measure(t, p.Pid(), addr, what, func() {
			c.conn.SetDeadline(time.Now().Add(5 * time.Minute))
			go c.conn.Write([]byte(reqs.String()))
			for range asks {
				key()
			}
			for range inTx + 1 {
				if got := c.line(); got != "+OK" && got != "+QUEUED" {
					t.Fatalf("%s: MULTI or a queued RANDOMKEY answered %q", what, got)
				}
			}
			if got := c.line(); got != fmt.Sprint("*", inTx) {
				t.Fatalf("%s: EXEC answered %q", what, got)
			}
			for range inTx {
				key()
			}
		})
		total := 0
		for _, k := range kept {
			if seen[k] == 0 {
				t.Errorf("%s: %s never picked in %d RANDOMKEYs: %v", what, k, asks+inTx, seen)
			}
			total += seen[k]
		}
		if total != asks+inTx {
			t.Errorf("%s: %d of %d picks were the kept keys: %v", what, total, asks+inTx, seen)
		}
		t.Logf("%s: %d RANDOMKEYs and a transaction of %d: server CPU %v, bystander's worst PING %v",
			what, asks, inTx, f.cpu.Round(time.Millisecond), f.worst.Round(time.Millisecond))
		return f
	}
	twin := pick("the twin: a table made for 3 keys")

	const made = 500_000
	for i := 0; i < made; i += 1000 {
		mset := []string{"MSET"}
		for j := i; j < i+1000; j++ {
			k := fmt.Sprintf("gone:%07d", j)
			mset = append(mset, k, "v")
		}
		if got := c.do(time.Minute, mset...); got != "+OK" {
			t.Fatalf("MSET: %q", got)
		}
	}
	for i := 0; i < made; i += 1000 {
		del := []string{"DEL"}
		for j := i; j < i+1000; j++ {
			del = append(del, fmt.Sprintf("gone:%07d", j))
		}
		if got := c.do(time.Minute, del...); got != ":1000" {
			t.Fatalf("DEL: %q", got)
		}
	}
	if got := c.do(time.Minute, "DBSIZE"); got != ":3" {
		t.Fatalf("DBSIZE after the deletes: %q", got)
	}
	attack := pick(fmt.Sprintf("the attack: a table left by %d keys made and deleted", made))
	t.Logf("the attack's CPU over its twin's: %v against %v; worst PING %v against %v",
		attack.cpu.Round(time.Millisecond), twin.cpu.Round(time.Millisecond), attack.worst.Round(time.Millisecond), twin.worst.Round(time.Millisecond))
}

// TestHRandFieldMassExpiry: HRANDFIELD reclaims the hash's expired fields
// before it picks, so that each place it draws holds a live field. A hash
// of 500,000 fields that expire together, and one that does not, took
// the whole reclaim into the first HRANDFIELD after the expiry: 200 ms
// and more in one request, while active expiry spreads it over passes of
// 2,000 fields. Now one HRANDFIELD reclaims at most 16,384 of them, and
// refuses while more are left. The twin is the same expiry with no
// HRANDFIELD: active expiry alone. Both wait until the fields are
// reclaimed (MEMORY USAGE counts those stored); the verdicts are the
// replies and the field left.
func TestHRandFieldMassExpiry(t *testing.T) {
	eachChapter(t, keys19Chapters(), testHRandFieldMassExpiry)
}

func testHRandFieldMassExpiry(t *testing.T, ch string) {
	p, addr, c := startWithClient(t, ch)
	const fields = 500_000
	// expire makes key a hash of a live field and fields that expire
	// together once set, runs attack (if any) as soon as they have, and
	// waits for them to be reclaimed.
	expire := func(what, key string, attack func()) figures {
		if got := c.do(time.Minute, "HSET", key, "live", "v"); got != ":1" {
			t.Fatalf("HSET: %q", got)
		}
		// The fields are made first, then given their time, which is
		// chosen after the time making them took: giving them their time
		// takes about as long, and must end before it.
		names := make([]string, 0, fields)
		start := time.Now()
		for i := 0; i < fields; i += 1000 {
			args := []string{"HSET", key}
			for j := i; j < i+1000; j++ {
				names = append(names, fmt.Sprintf("field:%07d", j))
				args = append(args, names[j], "v")
			}
			if got := c.do(time.Minute, args...); got != ":1000" {
				t.Fatalf("HSET: %q", got)
			}
		}
		at := time.Now().Add(2*time.Since(start) + time.Second)
		pxat := fmt.Sprint(at.UnixMilli())
		for i := 0; i < fields; i += 1000 {
			args := append([]string{"HPEXPIREAT", key, pxat, "FIELDS", "1000"}, names[i:i+1000]...)
			if got := c.do(time.Minute, args...); got != "*1000" {
				t.Fatalf("HPEXPIREAT: %q", got)
			}
			for range 1000 {
				if got := c.line(); got != ":1" {
					t.Fatalf("HPEXPIREAT of a field: %q", got)
				}
			}
		}
		if time.Until(at) < 200*time.Millisecond {
			t.Skipf("setting the fields' times took past their expiry; the machine is too loaded")
		}
		time.Sleep(time.Until(at) - 50*time.Millisecond)
		f := measure(t, p.Pid(), addr, what, func() {
			time.Sleep(time.Until(at) + 2*time.Millisecond)
			if attack != nil {
				attack()
			}
			for {
				got := c.do(time.Minute, "MEMORY", "USAGE", key)
				if n, err := strconv.Atoi(strings.TrimPrefix(got, ":")); err != nil || n < 10_000 {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
		t.Logf("%s: server CPU %v, bystander's worst PING %v", what, f.cpu.Round(time.Millisecond), f.worst.Round(time.Millisecond))
		if got := c.do(time.Minute, "HLEN", key); got != ":1" {
			t.Errorf("%s: HLEN %s after the expiry: %q", what, key, got)
		}
		if got := c.do(time.Minute, "HRANDFIELD", key); got != "$4" || c.line() != "live" {
			t.Errorf("%s: HRANDFIELD %s after the expiry: %q", what, key, got)
		}
		return f
	}
	twin := expire(fmt.Sprintf("the twin: %d fields expire, active expiry alone", fields), "twin", nil)
	var first string
	attack := expire(fmt.Sprintf("the attack: %d fields expire, HRANDFIELD at once", fields), "attacked", func() {
		if first = c.do(time.Minute, "HRANDFIELD", "attacked"); first == "$4" {
			first += " " + c.line()
		}
	})
	if first != "$4 live" && !strings.HasPrefix(first, "-ERR HRANDFIELD is refused while the hash has more than 16384 expired fields") {
		t.Errorf("the first HRANDFIELD after the expiry: %q", first)
	}
	t.Logf("the first HRANDFIELD after the expiry answered %.50q; the attack's worst PING over its twin's: %.1f",
		first, float64(attack.worst)/float64(max(twin.worst, time.Millisecond)))
}
