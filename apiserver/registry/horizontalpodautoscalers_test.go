package registry_test

import (
	"context"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// TestHorizontalPodAutoscalerVersions: one object, served as
// autoscaling/v2 (stored) and autoscaling/v1: what `kubectl autoscale`
// (v1.32) creates in v1 reads in v2 with the CPU target as a metric; what
// v2 says that v1 cannot is kept in v1's annotations and survives a v1
// update; a watch of v1 sees a v2 write; upstream's validation messages.
func TestHorizontalPodAutoscalerVersions(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	v1, v2 := r.Store(registry.HorizontalPodAutoscalersV1), r.Store(registry.HorizontalPodAutoscalers)
	in := &autoscalingv1.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: autoscalingv1.HorizontalPodAutoscalerSpec{MaxReplicas: 5, TargetCPUUtilizationPercentage: ptr.To[int32](50),
			ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}},
	}
	registry.HorizontalPodAutoscalersV1.Default(in, false)
	if _, err := v1.Create(ctx, "default", in, nil, registry.Options{}); err != nil {
		t.Fatal(err)
	}
	got, err := v2.Get(ctx, "default", "web", nil)
	if err != nil {
		t.Fatal(err)
	}
	h := got.(*autoscalingv2.HorizontalPodAutoscaler)
	if m := h.Spec.Metrics; len(m) != 1 || m[0].Resource == nil || m[0].Resource.Name != "cpu" || ptr.Deref(m[0].Resource.Target.AverageUtilization, 0) != 50 || ptr.Deref(h.Spec.MinReplicas, 0) != 1 {
		t.Errorf("v2 spec = %+v, want minReplicas 1 and cpu at 50%%", h.Spec)
	}

	w, err := v1.Watch(ctx, "default", listOpts(t, "metadata.name=web"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	h.Spec.Metrics = append(h.Spec.Metrics, autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
		Metric: autoscalingv2.MetricIdentifier{Name: "qps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(mustQ("1k"))}}})
	if _, _, err := v2.Update(ctx, "default", "web", replaceWith(h), nil, nil, registry.Options{}); err != nil {
		t.Fatal(err)
	}
	var seen *autoscalingv1.HorizontalPodAutoscaler
	for seen == nil {
		select {
		case ev := <-w.ResultChan():
			if o, ok := ev.Object.(*autoscalingv1.HorizontalPodAutoscaler); ok && o.Generation == 2 {
				seen = o
			}
		case <-time.After(time.Minute):
			t.Fatal("the v1 watch did not see the v2 update")
		}
	}
	if seen.Annotations["autoscaling.alpha.kubernetes.io/metrics"] == "" || ptr.Deref(seen.Spec.TargetCPUUtilizationPercentage, 0) != 50 {
		t.Errorf("v1 object = %+v, want cpu 50%% and the pods metric in its annotation", seen)
	}
	seen.Spec.MaxReplicas = 7
	if _, _, err := v1.Update(ctx, "default", "web", replaceWith(seen), nil, nil, registry.Options{}); err != nil {
		t.Fatal(err)
	}
	got, _ = v2.Get(ctx, "default", "web", nil)
	if h := got.(*autoscalingv2.HorizontalPodAutoscaler); len(h.Spec.Metrics) != 2 || h.Spec.MaxReplicas != 7 || h.Annotations["autoscaling.alpha.kubernetes.io/metrics"] != "" {
		t.Errorf("v2 after a v1 update: %d metrics, maxReplicas %d, annotations %v; want both metrics, 7, none", len(h.Spec.Metrics), h.Spec.MaxReplicas, h.Annotations)
	}

	bad := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
		MaxReplicas: 1, MinReplicas: ptr.To[int32](3), ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "x"}}}
	registry.HorizontalPodAutoscalers.Default(bad, false)
	_, err = v2.Create(ctx, "default", bad, nil, registry.Options{})
	wantStatus(t, err, 422, "spec.maxReplicas: Invalid value: 1: must be greater than or equal to `minReplicas`")
}
