package cluster

// componentRunning reports whether an instance of the component runs in
// the cluster, for the API server's componentstatuses ("scheduler",
// "controller-manager"): as kube-apiserver probes the /healthz of the
// one on its node, any running instance answers for it here.
func (c *Cluster) componentRunning(component string) bool {
	switch component {
	case "scheduler":
		return len(c.SchedulerInstances()) > 0
	case "controller-manager":
		return len(c.ControllerManagerInstances()) > 0
	}
	return false
}
