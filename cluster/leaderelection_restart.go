package cluster

import (
	"errors"
	"fmt"
	"time"
)

// instanceRestartBackOff is how long an instance that lost its Lease
// stays down before it is started again: upstream's component exits and
// the kubelet restarts its static pod after its first container back-off
// (10 s; kubesim does not double it on further losses), divided by
// --speed (none at speed 0).
const instanceRestartBackOff = 10 * time.Second

// restartAfterLeaseLoss waits for inst, the instance of kind k named
// name, to end; if it ended because it lost its Lease and nobody has
// stopped it or started another meanwhile, it starts the instance again
// with start, after instanceRestartBackOff: a busy API server that
// starved its renewals must not leave a class without a scheduler. The
// new instance has a new identity, as a restarted process has (start
// watches it in turn). It runs in a goroutine the cluster waits for.
func (c *Cluster) restartAfterLeaseLoss(k instanceKind, name string, inst *electedInstance, start func(string) error) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		select {
		case <-inst.comp.done:
		case <-c.runCtx.Done():
			return
		}
		if !errors.Is(inst.comp.err, errLeaseLost) || !c.stillRegistered(k, name, inst) {
			return
		}
		wait := c.scaled(instanceRestartBackOff)
		fmt.Fprintf(c.logSink, "cluster: the %s %s lost its Lease and ended; starting it again in %s, as the kubelet restarts a static pod\n", k, name, wait)
		select {
		case <-time.After(wait):
		case <-c.runCtx.Done():
			return
		}
		if !c.stillRegistered(k, name, inst) {
			return
		}
		if err := start(name); err != nil {
			fmt.Fprintf(c.logSink, "cluster: starting the %s %s again: %v\n", k, name, err)
		}
	}()
}

// stillRegistered says whether inst is still the instance of kind k
// named name (nobody stopped it, nor started another).
func (c *Cluster) stillRegistered(k instanceKind, name string, inst *electedInstance) bool {
	c.compMu.Lock()
	defer c.compMu.Unlock()
	return c.elected.of(k)[name] == inst
}

// scaled divides d by the cluster's speed (0 at speed 0).
func (c *Cluster) scaled(d time.Duration) time.Duration {
	if c.speed <= 0 {
		return 0
	}
	return time.Duration(float64(d) / c.speed)
}
