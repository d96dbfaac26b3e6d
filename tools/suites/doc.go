// Package suites holds test suites that are no chapter's lesson but apply
// to many chapters: they build each chapter's server from the workspace and
// run the same checks against every chapter whose protocol allows them. The
// package has no code of its own; run it with
//
//	go test example.com/byor/tools/suites
//
// and narrow it to one chapter with -run, e.g. -run '/ch14_threadpool$'.
package suites
