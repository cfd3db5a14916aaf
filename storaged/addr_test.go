package storaged

import (
	"net"
	"testing"
)

// A store registers the host name it was given (stable across restarts of
// a container or pod, whose IP changes), or else the address it bound.
func TestServiceAddr(t *testing.T) {
	bound := &net.TCPAddr{IP: net.IPv4(172, 20, 0, 5), Port: 9779}
	for _, tc := range []struct{ listen, want string }{
		{"storage1:9779", "storage1:9779"},
		{"storaged-0.storaged.ns.svc.cluster.local:9779", "storaged-0.storaged.ns.svc.cluster.local:9779"},
		{"172.20.0.5:9779", "172.20.0.5:9779"},
		{":9779", "172.20.0.5:9779"},
		{"0.0.0.0:9779", "172.20.0.5:9779"},
	} {
		if got := serviceAddr(tc.listen, bound); got != tc.want {
			t.Errorf("serviceAddr(%q) = %q, want %q", tc.listen, got, tc.want)
		}
	}
	// Port 0: the name with the port the listener got.
	if got := serviceAddr("storage1:0", bound); got != "storage1:9779" {
		t.Errorf("serviceAddr(storage1:0) = %q", got)
	}
}

// A wildcard address would make every store one store in metad.
func TestCheckServiceAddr(t *testing.T) {
	for addr, ok := range map[string]bool{"[::]:9779": false, "0.0.0.0:9779": false, "host1:9779": true, "10.0.0.5:9779": true} {
		if err := checkServiceAddr(addr); (err == nil) != ok {
			t.Errorf("checkServiceAddr(%s) = %v", addr, err)
		}
	}
}
