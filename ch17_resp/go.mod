module example.com/byor/ch17_resp

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.49.0
)

require golang.org/x/tools v0.26.0 // indirect
