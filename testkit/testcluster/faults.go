package testcluster

import (
	"context"
	"time"
)

// TryRestartStore is RestartStore for goroutines other than the test's own
// (a fault-injecting nemesis), which must not call t.Fatal: it returns the
// error instead.
func (c *Cluster) TryRestartStore(i int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.startStore(ctx, i, c.tick)
}
