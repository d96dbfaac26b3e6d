// Command client talks to this chapter's server: go run ./cmd/client [-addr host:port]
package main

import (
	"os"

	"example.com/byor/ch36_aof_rewrite/client"
)

func main() {
	os.Exit(client.Main(os.Args[1:]))
}
