package dag

// Copy is a copy of vh that routes can be added to without changing vh:
// the two share their routes map until either adds a route, which clones
// it first. The routes themselves are shared, as they are never changed
// once made, and so is their order, which adding a route works out again.
func (vh *VirtualHost) Copy() *VirtualHost {
	vh.RoutesShared = true
	c := *vh
	return &c
}

// Copy is svh's copy as VirtualHost.copy makes it.
func (svh *SecureVirtualHost) Copy() *SecureVirtualHost {
	svh.RoutesShared = true
	c := *svh
	return &c
}

// VirtualHostOf is l's virtual host of host, nil when l is nil or has none.
func (l *Listener) VirtualHostOf(host string) *VirtualHost {
	if l == nil {
		return nil
	}
	return l.VHosts[host]
}

// SecureVirtualHostOf is l's secure virtual host of host, nil when l is nil
// or has none.
func (l *Listener) SecureVirtualHostOf(host string) *SecureVirtualHost {
	if l == nil {
		return nil
	}
	return l.SecureVHosts[host]
}
