package cluster

import (
	"errors"

	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/internal/pki"
)

// StartControllerManager starts the controller manager, as
// system:kube-controller-manager, with the cluster's speed; each
// controller acts as its service account kube-system/<controller>, whose
// tokens the manager asks for (--use-service-account-credentials). It is
// an error if it already runs.
func (c *Cluster) StartControllerManager() error {
	c.compMu.Lock()
	defer c.compMu.Unlock()
	if c.controllers != nil {
		return errors.New("cluster: the controller manager is already running")
	}
	rc, err := c.restConfigFor(pki.ControllerManager())
	if err != nil {
		return err
	}
	cfg := controllers.NewConfig(rc)
	cfg.Speed = c.speed
	cfg.Observer = controllerObserver(c.Recorder)
	m, err := controllers.New(cfg)
	if err != nil {
		return err
	}
	c.controllers = c.runComponent(m.Run)
	return nil
}

// StopControllerManager stops the controller manager: Deployments and
// ReplicaSets then stay as they are, and nothing collects garbage.
func (c *Cluster) StopControllerManager() error {
	c.compMu.Lock()
	m := c.controllers
	c.controllers = nil
	c.compMu.Unlock()
	if m == nil {
		return errors.New("cluster: the controller manager is not running")
	}
	return m.stop()
}
