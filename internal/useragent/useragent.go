// Package useragent gives kubesim's in-process components the User-Agent
// their upstream binaries send. client-go builds it from the running
// program's name (rest.DefaultKubernetesUserAgent), which here is
// kubesim's binary for every component; the API server's field manager
// names a write's manager after that agent, so without this a Deployment's
// managedFields would say "kubesim" where a cluster says
// "kube-controller-manager".
package useragent

import (
	"fmt"
	"runtime"

	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/internal/metricsversion"
)

// The programs whose agents the components send.
const (
	Scheduler         = "kube-scheduler"
	ControllerManager = "kube-controller-manager"
	Kubelet           = "kubelet"
)

// Of returns the agent program sends, in client-go's form
// "<program>/<version> (<os>/<arch>) kubernetes/<commit>"; the commit
// part says kubesim, since no Kubernetes commit built this binary.
func Of(program string) string {
	return fmt.Sprintf("%s/%s (%s/%s) kubernetes/kubesim", program, metricsversion.Version().GitVersion, runtime.GOOS, runtime.GOARCH)
}

// Add appends "/name" to c's agent, as rest.AddUserAgent does in the
// program c's agent names; a config without an agent gets
// rest.AddUserAgent's.
func Add(c *rest.Config, name string) *rest.Config {
	if c.UserAgent == "" {
		return rest.AddUserAgent(c, name)
	}
	c.UserAgent += "/" + name
	return c
}
