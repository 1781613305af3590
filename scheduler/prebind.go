package scheduler

import (
	"context"

	corev1 "k8s.io/api/core/v1"
)

// PreBindPlugin runs in the binding cycle, after a node was chosen and
// before the pod's binding is written (it may wait, as VolumeBinding
// does for the pod's volumes). A non-nil status fails the binding: the
// pod is forgotten on the node and scheduled again. PreBind must be
// safe to call from several bindings at once.
type PreBindPlugin interface {
	Plugin
	PreBind(ctx context.Context, pod *corev1.Pod, host string) *Status
}

// runPreBind runs the PreBind plugins of f, in order, for pod on host
// and returns the first failure as an error (nil: all passed).
func (f *framework) runPreBind(ctx context.Context, pod *corev1.Pod, host string) error {
	for _, p := range f.filter {
		pb, ok := p.(PreBindPlugin)
		if !ok {
			continue
		}
		if st := pb.PreBind(ctx, pod, host); !st.IsSuccess() {
			return st.WithPlugin(p.Name()).AsError()
		}
	}
	return nil
}
