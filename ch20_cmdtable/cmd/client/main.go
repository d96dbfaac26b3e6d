// Command client talks to this chapter's server: go run ./cmd/client [-addr host:port]
package main

import (
	"os"

	"example.com/byor/ch20_cmdtable/client"
)

func main() {
	os.Exit(client.Main(os.Args[1:]))
}
