// Command client talks to this chapter's server: go run ./cmd/client [-addr host:port]
package main

import (
	"os"

	"example.com/byor/ch16_field_ttl/client"
)

func main() {
	os.Exit(client.Main(os.Args[1:]))
}
