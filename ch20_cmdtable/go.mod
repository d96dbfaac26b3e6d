module example.com/byor/ch20_cmdtable

go 1.26.0

require (
	example.com/byor/testkit v0.0.0
	github.com/google/go-cmp v0.7.0
	golang.org/x/sys v0.49.0
)

require (
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
