package server

import (
	"strings"
	"testing"
	"time"
)

// TestAttackScanMatchLongPattern: glob.Match is linear in the pattern
// times the key, and SCAN charges a key one item whatever its MATCH
// costs. One key of K bytes of 'a' and a MATCH of '*', P of 'a' and a
// 'b' take about (K-P)*P + P*P/2 steps: with K = 16 KiB and P = 8 KiB,
// some 10^8, for one SCAN counted as a few items; with a key of 512 KiB
// and a pattern of 256 KiB (both within resp.MaxBulkLen), about 10^11,
// minutes of the event loop for one request. The SCAN must either be
// refused or be counted at its cost.
func TestAttackScanMatchLongPattern(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	const K, P = 16 << 10, 8 << 10
	a.expect(okReply, "SET", strings.Repeat("a", K), "v")
	pattern := "*" + strings.Repeat("a", P) + "b"
	before := workDone
	start := time.Now()
	got := a.do("SCAN", "0", "MATCH", pattern, "COUNT", "10")
	elapsed := time.Since(start)
	done := workDone - before
	steps := (K-P)*P + P*P/2
	t.Logf("SCAN MATCH of %d bytes over one key of %d bytes: about %d glob steps, counted as %d items of work (%v here); reply %.30q",
		len(pattern), K, steps, done, elapsed, got)
	if !strings.HasPrefix(got, "-") && done < steps/16 {
		t.Errorf("SCAN did about %d steps of matching and counted %d items of work", steps, done)
	}
}
