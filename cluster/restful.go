package cluster

import restful "github.com/emicklei/go-restful/v3"

// RestfulContainer returns the go-restful Container of the running API
// server's kube-apiserver (see apiserver.Server.RestfulContainer), or nil
// when no API server is running. After RestartAPIServer it is the new
// server's. Callers may only look at it.
func (c *Cluster) RestfulContainer() *restful.Container {
	c.apiMu.Lock()
	defer c.apiMu.Unlock()
	if c.api == nil {
		return nil
	}
	return c.api.RestfulContainer()
}
