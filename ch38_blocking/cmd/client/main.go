// Command client talks to this chapter's server: go run ./cmd/client [-addr host:port]
package main

import (
	"os"

	"example.com/byor/ch38_blocking/client"
)

func main() {
	os.Exit(client.Main(os.Args[1:]))
}
