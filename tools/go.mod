module example.com/byor/tools

go 1.26.0

require (
	example.com/byor/testkit v0.0.0
	github.com/google/go-cmp v0.7.0
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.49.0
)

require (
	example.com/byor/ch08_hashtable v0.0.0
	example.com/byor/ch10_avl v0.0.0
	example.com/byor/ch11_zset v0.0.0
	example.com/byor/ch12_timers v0.0.0
	example.com/byor/ch13_heap_ttl v0.0.0
	example.com/byor/ch14_threadpool v0.0.0
	example.com/byor/ch37_lists v0.0.0
	example.com/byor/ch38_blocking v0.0.0
	github.com/chromedp/chromedp v0.23.0
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	golang.org/x/tools v0.26.0 // indirect
)

// The explorer draws the chapters' own structures. The workspace supplies
// the chapters; these say where they are for commands that read the
// module graph.
replace (
	example.com/byor/ch08_hashtable v0.0.0 => ../ch08_hashtable
	example.com/byor/ch10_avl v0.0.0 => ../ch10_avl
	example.com/byor/ch11_zset v0.0.0 => ../ch11_zset
	example.com/byor/ch12_timers v0.0.0 => ../ch12_timers
	example.com/byor/ch13_heap_ttl v0.0.0 => ../ch13_heap_ttl
	example.com/byor/ch14_threadpool v0.0.0 => ../ch14_threadpool
	example.com/byor/ch37_lists v0.0.0 => ../ch37_lists
	example.com/byor/ch38_blocking v0.0.0 => ../ch38_blocking
	example.com/byor/testkit v0.0.0 => ../testkit
)
