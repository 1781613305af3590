package cluster

// StartControllerManager starts the controller manager instance
// DefaultControllerManagerInstance (StartControllerManagerInstance), as
// system:kube-controller-manager, with the cluster's speed; each
// controller acts as its service account kube-system/<controller>, whose
// tokens the manager asks for (--use-service-account-credentials). It
// takes the Lease kube-system/kube-controller-manager at once when nobody
// holds it. It is an error if it already runs.
func (c *Cluster) StartControllerManager() error {
	return c.StartControllerManagerInstance(DefaultControllerManagerInstance)
}

// StopControllerManager stops the controller manager instance
// DefaultControllerManagerInstance: Deployments and ReplicaSets then stay
// as they are, and nothing collects garbage, unless another instance
// takes over (once the Lease, which is not given up, has expired).
func (c *Cluster) StopControllerManager() error {
	return c.StopControllerManagerInstance(DefaultControllerManagerInstance)
}
