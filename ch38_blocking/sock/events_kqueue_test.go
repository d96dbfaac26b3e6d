//go:build darwin || freebsd

package sock

func init() {
	pollerKinds["kqueue"] = func() (Poller, error) { return newKqueuePoller() }
}
