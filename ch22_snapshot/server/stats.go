package server

import "time"

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
