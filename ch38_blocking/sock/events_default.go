//go:build !pollfallback && (linux || darwin || freebsd)

package sock

func newPoller() (Poller, error) {
	return newNativePoller()
}
