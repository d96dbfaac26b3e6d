// Package suites holds test suites that are no chapter's lesson but apply
// to many chapters: they build each chapter's server from the workspace and
// run the same checks against every chapter whose protocol allows them. The
// package has no code of its own. It is one of the heavy suites, which go
// test skips unless BYOR_HEAVY=1 (see testkit.Heavy); run it with
//
//	BYOR_HEAVY=1 go test example.com/byor/tools/suites
//
// and narrow it to one chapter with -run, e.g. -run '/ch14_threadpool$'.
package suites
