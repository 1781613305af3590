package useragent

import (
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

func TestAddKeepsTheProgram(t *testing.T) {
	c := &rest.Config{UserAgent: Of(ControllerManager)}
	Add(c, "deployment-controller")
	if !strings.HasPrefix(c.UserAgent, "kube-controller-manager/v1.") || !strings.HasSuffix(c.UserAgent, " kubernetes/kubesim/deployment-controller") {
		t.Errorf("agent = %q", c.UserAgent)
	}
	bare := Add(&rest.Config{}, "x")
	if !strings.HasSuffix(bare.UserAgent, "/x") || strings.HasPrefix(bare.UserAgent, "kube-controller-manager") {
		t.Errorf("agent without a program = %q", bare.UserAgent)
	}
}
