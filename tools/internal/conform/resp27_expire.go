package conform

// keyExpiryChecks are the checks of the commands that set or read a
// key's expiry as a time: EXPIREAT, PEXPIREAT, EXPIRETIME, PEXPIRETIME.
func keyExpiryChecks() []Check {
	// The keys of the checks below that are only steps.
	k := "conform:k19:at"
	return []Check{
		{
			Name:    "EXPIREAT, PEXPIREAT, EXPIRETIME, PEXPIRETIME",
			Section: section27("", "Keys"),
			Hint:    "the time set with (P)EXPIREAT reads back exactly from (P)EXPIRETIME (seconds rounded to the nearest); -1 for no TTL, -2 for no key; EXPIRE's NX|XX|GT|LT; a time past deletes the key; any time up to the last int64 millisecond is kept as given",
			Run: freshSteps([]string{k},
				ex(integer(-2), "EXPIRETIME", k),
				ex(integer(-2), "PEXPIRETIME", k),
				ex(okReply, "SET", k, "v"),
				ex(integer(-1), "EXPIRETIME", k),
				ex(integer(0), "EXPIREAT", k, "4000000000", "XX"),
				ex(integer(1), "EXPIREAT", k, "4000000000", "NX"),
				ex(integer(4000000000), "EXPIRETIME", k),
				ex(integer(0), "PEXPIREAT", k, "4000000000999", "LT"),
				ex(integer(1), "PEXPIREAT", k, "4000000000999", "GT"),
				ex(integer(4000000001), "EXPIRETIME", k),
				ex(integer(1), "PEXPIREAT", k, "4000000000499"),
				ex(integer(4000000000), "EXPIRETIME", k),
				ex(integer(1), "PEXPIREAT", k, "4000000000999"),
				ex(integer(4000000000999), "PEXPIRETIME", k),
				ex("-ERR NX and XX, GT or LT options at the same time are not compatible\r\n", "EXPIREAT", k, "1", "NX", "LT"),
				ex("-ERR invalid expire time in 'expireat' command\r\n", "EXPIREAT", k, "9223372036854775807"),
				ex("-ERR invalid expire time in 'expireat' command\r\n", "EXPIREAT", k, "9223372036854776"),
				ex(integer(1), "PEXPIREAT", k, "9223372036854775807"),
				ex(integer(9223372036854775807), "PEXPIRETIME", k),
				ex(integer(9223372036854776), "EXPIRETIME", k),
				ex(integer(1), "EXPIREAT", k, "9223372036854775"),
				ex(integer(9223372036854775000), "PEXPIRETIME", k),
				ex(integer(1), "EXPIREAT", k, "1"),
				ex(integer(0), "EXISTS", k),
			),
		},
	}
}
