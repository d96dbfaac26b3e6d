package server

// The cost functions of the string rows (see resp_cost.go): what a string
// command may do besides its arguments and its reply's bytes, from the
// data as EXEC finds it (execPlan).

// costSetAt returns the cost of a command that sets the string at its key
// to its argument at val, as SET does (costSet): SETEX, PSETEX, SETNX,
// GETSET.
func costSetAt(val int) func(p *execPlan, args [][]byte) int {
	return func(p *execPlan, args [][]byte) int {
		n := p.dropBound(args[1])
		p.addBytes(args[1], len(args[val]))
		return n
	}
}

// costStringLen: the command reads the string at its key once (BITCOUNT,
// BITPOS).
func costStringLen(p *execPlan, args [][]byte) int { return p.strLen(args[1])/kWorkBytes + 1 }

// costSetRange and costSetBit: SETRANGE and SETBIT write in place
// (writeAt), after moving the value into a buffer with room for twice its
// new length (at most maxAppend bytes), and are charged the bytes from
// its old end to the new one, the zeros up to the offset included.
func costSetRange(p *execPlan, args [][]byte) int {
	off, ok := respInt(args[2])
	return costSplice(p, args[1], off, int64(len(args[3])), ok)
}

func costSetBit(p *execPlan, args [][]byte) int {
	off, ok := respInt(args[2])
	return costSplice(p, args[1], off>>3, 1, ok && off>>3 < int64(maxAppend))
}

// costSplice is the cost of writing n bytes at off into the string at key.
func costSplice(p *execPlan, key []byte, off, n int64, ok bool) int {
	if !ok || off < 0 || off > int64(maxAppend)-n || n == 0 {
		return 0 // refused, or nothing written: nothing copied
	}
	grown := int(off + n)
	p.addBytes(key, grown)
	return (len(key)+2*max(grown, p.strLen(key)))/kWorkBytes + 1
}

// costIncrFloat: the value is read (up to a long double's longest text),
// the increment too, and the sum printed, each converted at the cost of
// its digits (longDoubleWork).
func costIncrFloat(p *execPlan, args [][]byte) int {
	n := p.strLen(args[1])/kWorkBytes + longDoubleWork(len(args[2])) + 2*longDoubleWork(kLongDoubleMaxChars)
	p.addBytes(args[1], kLongDoubleMaxChars)
	return n
}

// costLCS: the table of the two strings as bit columns, up to its bound,
// and the walk back through it (lcsWork). The strings may be shorter when
// it runs than the bound on them here, and within the table's bound.
func costLCS(p *execPlan, args [][]byte) int {
	a, b := p.strLen(args[1]), p.strLen(args[2])
	return lcsWork(int(min(int64(a+1)*int64(b+1), int64(kLCSMaxCells))), a+b)
}

// costBitOp: BITOP reads each source once at most (up to kBitOpMaxBytes
// in all) and writes a result as long as the longest, replacing what
// destkey held.
func costBitOp(p *execPlan, args [][]byte) int {
	total, longest := 0, 0
	for _, k := range args[3:] {
		n := p.strLen(k)
		total += n
		longest = max(longest, n)
	}
	total = min(total, kBitOpMaxBytes)
	n := p.dropBound(args[2]) + (total+longest)/kWorkBytes + 1
	p.addBytes(args[2], longest)
	return n
}
