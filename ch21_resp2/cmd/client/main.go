// Command client talks to this chapter's server: go run ./cmd/client [-addr host:port]
package main

import (
	"os"

	"example.com/byor/ch21_resp2/client"
)

func main() {
	os.Exit(client.Main(os.Args[1:]))
}
