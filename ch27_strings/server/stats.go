package server

import (
	"time"

	"example.com/byor/ch27_strings/hashes"
)

// gStats holds the counters INFO reports. Each is a plain integer that
// the event loop bumps where the event happens: no lock (there is one
// thread), no allocation.
var gStats struct {
	connsReceived int64 // connections accepted, on either listener
	connsOpen     int64 // connections open now
	commands      int64 // requests answered, on either listener
	expiredKeys   int64 // keys removed because their TTL was due
	// Samples of commands for instantaneous_ops_per_sec (see opsPerSec).
	opsAt    time.Time
	opsCount int64
	opsRates [kOpsSamples]float64
	opsNext  int
}

// resetStats is CONFIG RESETSTAT: the counters INFO reports as totals
// since the start go back to zero, as in Redis; what is true now (the
// connections open, the keys) stays.
func resetStats() {
	gStats.connsReceived = 0
	gStats.commands = 0
	gStats.expiredKeys = 0
	gStats.opsAt, gStats.opsCount = time.Now(), 0
	gStats.opsRates, gStats.opsNext = [kOpsSamples]float64{}, 0
	connsRefused = 0
	hashes.Expired = 0
}
