//go:build linux

package sock

func init() {
	pollerKinds["epoll"] = func() (Poller, error) { return newEpoller() }
}
