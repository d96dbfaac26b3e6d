// Command server runs this chapter's server:
// go run ./cmd/server [-addr host:port] [-idle-timeout duration]
package main

import (
	"os"

	"example.com/byor/ch38_blocking/server"
)

func main() {
	os.Exit(server.Main(os.Args[1:]))
}
