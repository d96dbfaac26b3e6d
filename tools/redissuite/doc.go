// Package redissuite holds the test of tools/redis-suite.sh, the script
// that runs Redis's own test suite against a server: it runs the script
// on a fake source tree, whose runtest prints what Redis's does, and
// checks the changes made to the copy, the summary and the usage errors.
package redissuite
