package metricsserver

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func runningPod(ns, name, node string, containers ...corev1.Container) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{NodeName: node, Containers: containers}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	for _, c := range containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: c.Name,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
	}
	return p
}

func container(name, cpuReq, memReq, cpuLim, memLim string) corev1.Container {
	c := corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}}
	set := func(l corev1.ResourceList, n corev1.ResourceName, v string) {
		if v != "" {
			l[n] = resource.MustParse(v)
		}
	}
	set(c.Resources.Requests, corev1.ResourceCPU, cpuReq)
	set(c.Resources.Requests, corev1.ResourceMemory, memReq)
	set(c.Resources.Limits, corev1.ResourceCPU, cpuLim)
	set(c.Resources.Limits, corev1.ResourceMemory, memLim)
	return c
}

func TestContainerUsage(t *testing.T) {
	tests := []struct {
		name            string
		c               corev1.Container
		cpuBase, memKiB int64 // millicores and KiB the share applies to
	}{
		{"requests", container("app", "200m", "256Mi", "1", "1Gi"), 200, 256 * 1024},
		{"limits only", container("app", "", "", "500m", "128Mi"), 500, 128 * 1024},
		{"neither", container("app", "", "", "", ""), 100, 64 * 1024},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := runningPod("default", "web", "node-1", tt.c)
			share, memShare := CPUShare("default", "web", "app"), MemoryShare("default", "web", "app")
			if share < minCPUShare || share >= maxCPUShare {
				t.Fatalf("CPUShare = %d, want %d..%d", share, minCPUShare, maxCPUShare-1)
			}
			if memShare < minMemoryShare || memShare >= maxMemoryShare {
				t.Fatalf("MemoryShare = %d, want %d..%d", memShare, minMemoryShare, maxMemoryShare-1)
			}
			u := ContainerUsage(p, &p.Spec.Containers[0])
			cpu, mem := u[corev1.ResourceCPU], u[corev1.ResourceMemory]
			if want := tt.cpuBase * 1e6 * share / 100; cpu.ScaledValue(resource.Nano) != want {
				t.Errorf("cpu = %s (%dn), want %dn (%d%% of %dm)", cpu.String(), cpu.ScaledValue(resource.Nano), want, share, tt.cpuBase)
			}
			if want := tt.memKiB * 1024 * memShare / 100 / 1024 * 1024; mem.Value() != want {
				t.Errorf("memory = %s, want %d bytes (%d%% of %dKi, in whole KiB)", mem.String(), want, memShare, tt.memKiB)
			}
			if again := ContainerUsage(p, &p.Spec.Containers[0]); !again.Cpu().Equal(cpu) || !again.Memory().Equal(mem) {
				t.Errorf("a second read gives %v, want the same %v", again, u)
			}
		})
	}
}

func TestRunningContainersAndNodeUsage(t *testing.T) {
	p := runningPod("default", "web", "node-1", container("a", "100m", "100Mi", "", ""), container("b", "100m", "100Mi", "", ""))
	p.Status.ContainerStatuses[1].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
	if got := RunningContainers(p); len(got) != 1 || got[0].Name != "a" {
		t.Fatalf("RunningContainers = %v, want only a", got)
	}
	pending := runningPod("default", "new", "node-1", container("a", "1", "1Gi", "", ""))
	pending.Status.Phase = corev1.PodPending
	if got := RunningContainers(pending); got != nil {
		t.Fatalf("RunningContainers of a Pending pod = %v, want none", got)
	}
	a := ContainerUsage(p, &p.Spec.Containers[0])
	node := NodeUsage([]*corev1.Pod{p, pending})
	wantCPU := systemCPU.DeepCopy()
	wantCPU.Add(a[corev1.ResourceCPU])
	wantMem := systemMemory.DeepCopy()
	wantMem.Add(a[corev1.ResourceMemory])
	if got := node[corev1.ResourceCPU]; got.Cmp(wantCPU) != 0 {
		t.Errorf("node cpu = %s, want %s (system + container a)", got.String(), wantCPU.String())
	}
	if got := node[corev1.ResourceMemory]; got.Cmp(wantMem) != 0 {
		t.Errorf("node memory = %s, want %s", got.String(), wantMem.String())
	}
	if got := window(time.Date(2026, 1, 1, 10, 0, 29, 0, time.UTC)); !got.Equal(time.Date(2026, 1, 1, 10, 0, 15, 0, time.UTC)) {
		t.Errorf("window = %v, want 10:00:15", got)
	}
}
