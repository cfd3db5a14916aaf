package testcluster

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// AddStore starts one more storaged in a new slot, as a new host joining
// the cluster, waits until it is online and returns its slot. It holds no
// replica until something (BALANCE DATA) moves some onto it.
func (c *Cluster) AddStore() int {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	i := len(c.Stores)
	addrs, err := freeAddrs(1)
	if err != nil {
		c.t.Fatal(err)
	}
	c.Stores = append(c.Stores, &Store{dataDir: filepath.Join(c.dir, fmt.Sprintf("storage%d", i+1)), addr: addrs[0]})
	if err := c.startStore(ctx, i, c.tick); err != nil {
		c.t.Fatal(err)
	}
	online := 0
	for _, s := range c.Stores {
		if s.Server != nil {
			online++
		}
	}
	c.waitOnline(ctx, online)
	return i
}
