package kubelet

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func TestStartSequence(t *testing.T) {
	nginxSize := parseImage("nginx:1.27").size()
	busyboxSize := parseImage("busybox:1.36").size()
	pulled := func(img string, d time.Duration, size int64) string {
		return fmt.Sprintf("Successfully pulled image %q in %v (%v including waiting). Image size: %d bytes.", img, d, d, size)
	}
	tests := []struct {
		name string
		pod  *corev1.Pod
		// before runs another pod to completion on the same node first.
		before *corev1.Pod
		speed  float64
		want   []string
	}{
		{
			name:  "pull, create, start",
			pod:   testPod("web"),
			speed: 1,
			want: []string{
				`0s Pulling nginx: Pulling image "nginx:1.27"`,
				`2s Pulled nginx: ` + pulled("nginx:1.27", 2*time.Second, nginxSize),
				`2.3s Created nginx: Container created`,
				`2.6s Started nginx: Container started`,
			},
		},
		{
			name:  "speed 10 divides the delays",
			pod:   testPod("web"),
			speed: 10,
			want: []string{
				`0s Pulling nginx: Pulling image "nginx:1.27"`,
				`200ms Pulled nginx: ` + pulled("nginx:1.27", 200*time.Millisecond, nginxSize),
				`230ms Created nginx: Container created`,
				`260ms Started nginx: Container started`,
			},
		},
		{
			name:  "speed 0 has no delays",
			pod:   testPod("web"),
			speed: 0,
			want: []string{
				`0s Pulling nginx: Pulling image "nginx:1.27"`,
				`0s Pulled nginx: ` + pulled("nginx:1.27", 0, nginxSize),
				`0s Created nginx: Container created`,
				`0s Started nginx: Container started`,
			},
		},
		{
			name:   "an image on the node is not pulled again",
			before: testPod("first"),
			pod:    testPod("web"),
			speed:  1,
			want: []string{
				`0s Pulled nginx: Container image "nginx:1.27" already present on machine and can be accessed by the pod`,
				`300ms Created nginx: Container created`,
				`600ms Started nginx: Container started`,
			},
		},
		{
			name:   "imagePullPolicy Always pulls it again (the manifest only)",
			before: testPod("first"),
			pod:    testPod("web", withImage("nginx:1.27", corev1.PullAlways)),
			speed:  1,
			want: []string{
				`0s Pulling nginx: Pulling image "nginx:1.27"`,
				`500ms Pulled nginx: ` + pulled("nginx:1.27", 500*time.Millisecond, nginxSize),
				`800ms Created nginx: Container created`,
				`1.1s Started nginx: Container started`,
			},
		},
		{
			name: "init containers one after another, then the app containers in order",
			pod: testPod("web", initContainers("init-a", "init-b"), func(p *corev1.Pod) {
				p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "sidecar", Image: "busybox:1.36", ImagePullPolicy: corev1.PullIfNotPresent})
				p.Annotations = map[string]string{AnnotationExitAfter + ".init-a": "1s"}
			}),
			speed: 1,
			want: []string{
				`0s Pulling init-a: Pulling image "busybox:1.36"`,
				`2s Pulled init-a: ` + pulled("busybox:1.36", 2*time.Second, busyboxSize),
				`2.3s Created init-a: Container created`,
				`2.6s Started init-a: Container started`,
				// init-a runs 1s.
				`3.6s Pulled init-b: Container image "busybox:1.36" already present on machine and can be accessed by the pod`,
				`3.9s Created init-b: Container created`,
				`4.2s Started init-b: Container started`,
				`4.2s Pulling nginx: Pulling image "nginx:1.27"`,
				`6.2s Pulled nginx: ` + pulled("nginx:1.27", 2*time.Second, nginxSize),
				`6.5s Created nginx: Container created`,
				`6.8s Started nginx: Container started`,
				`6.8s Pulled sidecar: Container image "busybox:1.36" already present on machine and can be accessed by the pod`,
				`7.1s Created sidecar: Container created`,
				`7.4s Started sidecar: Container started`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := newRuntimeT(t)
			start := t0
			if tt.before != nil {
				b := newHarness(t, rt, tt.before, tt.speed, t0.Add(-time.Hour))
				b.run(time.Hour)
			}
			h := newHarness(t, rt, tt.pod, tt.speed, start)
			h.run(time.Hour)
			diffLines(t, "events", h.events(), tt.want)
			if got := h.last().Phase; got != corev1.PodRunning {
				t.Errorf("phase %s, want Running", got)
			}
		})
	}
}

func TestStartStatuses(t *testing.T) {
	h := newHarness(t, nil, testPod("web", initContainers("init-a")), 1, time.Time{})
	h.run(time.Hour)
	type snap struct {
		at         time.Duration
		phase      corev1.PodPhase
		podIP      string
		states     string
		conditions string
	}
	var got []snap
	for _, s := range h.statuses {
		got = append(got, snap{s.at, s.s.Phase, s.s.PodIP, states(s.s), conditions(s.s)})
	}
	want := []snap{
		{0, corev1.PodPending, "", "init-a=Waiting(PodInitializing) nginx=Waiting(PodInitializing)",
			"PodReadyToStartContainers=False(PodSandboxNotReady: no pod sandbox exists) Initialized=False(ContainersNotInitialized: containers with incomplete status: [init-a]) Ready=False(ContainersNotReady: containers with unready status: [nginx]) ContainersReady=False(ContainersNotReady: containers with unready status: [nginx]) PodScheduled=True"},
		{0, corev1.PodPending, "10.244.1.2", "init-a=Waiting(PodInitializing) nginx=Waiting(PodInitializing)",
			"PodReadyToStartContainers=True Initialized=False(ContainersNotInitialized: containers with incomplete status: [init-a]) Ready=False(ContainersNotReady: containers with unready status: [nginx]) ContainersReady=False(ContainersNotReady: containers with unready status: [nginx]) PodScheduled=True"},
		{2600 * time.Millisecond, corev1.PodPending, "10.244.1.2", "init-a=Running nginx=Waiting(PodInitializing)",
			"PodReadyToStartContainers=True Initialized=False(ContainersNotInitialized: containers with incomplete status: [init-a]) Ready=False(ContainersNotReady: containers with unready status: [nginx]) ContainersReady=False(ContainersNotReady: containers with unready status: [nginx]) PodScheduled=True"},
		{2600 * time.Millisecond, corev1.PodPending, "10.244.1.2", "init-a=Terminated(0 Completed) nginx=Waiting(PodInitializing)",
			"PodReadyToStartContainers=True Initialized=True Ready=False(ContainersNotReady: containers with unready status: [nginx]) ContainersReady=False(ContainersNotReady: containers with unready status: [nginx]) PodScheduled=True"},
		{5200 * time.Millisecond, corev1.PodRunning, "10.244.1.2", "init-a=Terminated(0 Completed) nginx=Running",
			"PodReadyToStartContainers=True Initialized=True Ready=True ContainersReady=True PodScheduled=True"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d statuses, want %d:\n%+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("status %d:\ngot  %+v\nwant %+v", i, got[i], want[i])
		}
	}

	s := h.last()
	cs := s.ContainerStatuses[0]
	id := containerID("node-1", "uid-web", "nginx", 0)
	switch {
	case s.HostIP != "192.168.0.11" || len(s.HostIPs) != 1 || s.HostIPs[0].IP != "192.168.0.11":
		t.Errorf("hostIP %q %v, want 192.168.0.11", s.HostIP, s.HostIPs)
	case len(s.PodIPs) != 1 || s.PodIPs[0].IP != s.PodIP:
		t.Errorf("podIPs %v, want [%s]", s.PodIPs, s.PodIP)
	case s.StartTime == nil || !s.StartTime.Time.Equal(t0):
		t.Errorf("startTime %v, want %v", s.StartTime, t0)
	case s.QOSClass != corev1.PodQOSBestEffort:
		t.Errorf("qosClass %q, want it kept (BestEffort)", s.QOSClass)
	case s.ObservedGeneration != 1:
		t.Errorf("observedGeneration %d, want 1", s.ObservedGeneration)
	case cs.Image != "docker.io/library/nginx:1.27":
		t.Errorf("image %q, want docker.io/library/nginx:1.27", cs.Image)
	case cs.ImageID != parseImage("nginx:1.27").id() || len(cs.ImageID) != len("docker.io/library/nginx@sha256:")+64:
		t.Errorf("imageID %q, want docker.io/library/nginx@sha256:<64 hex>", cs.ImageID)
	case cs.ContainerID != "kubesim://"+id:
		t.Errorf("containerID %q, want kubesim://%s", cs.ContainerID, id)
	case !cs.Ready || cs.Started == nil || !*cs.Started || cs.RestartCount != 0:
		t.Errorf("ready %v started %v restartCount %d, want true true 0", cs.Ready, cs.Started, cs.RestartCount)
	case !cs.State.Running.StartedAt.Time.Equal(t0.Add(5 * time.Second)):
		// Times are to the second, as the status manager writes them.
		t.Errorf("startedAt %v, want %v (5.2s, to the second)", cs.State.Running.StartedAt, t0.Add(5*time.Second))
	case !s.InitContainerStatuses[0].Ready:
		t.Errorf("init container that succeeded is not ready")
	}
	// PodScheduled keeps the time the scheduler set.
	for _, c := range s.Conditions {
		if c.Type == corev1.PodScheduled && !c.LastTransitionTime.Time.Equal(t0.Add(-time.Second)) {
			t.Errorf("PodScheduled lastTransitionTime %v, want it kept (%v)", c.LastTransitionTime, t0.Add(-time.Second))
		}
		if c.ObservedGeneration != 1 {
			t.Errorf("%s observedGeneration %d, want 1", c.Type, c.ObservedGeneration)
		}
	}
}

func TestImagePullBackOff(t *testing.T) {
	const img = "nginx:does-not-exist"
	h := newHarness(t, nil, testPod("web", withImage(img, corev1.PullIfNotPresent)), 1, time.Time{})
	// One cycle, at speed 1: the registry answers "not found" after 500ms.
	h.run(5 * time.Second)
	errMsg := `rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:does-not-exist": failed to resolve reference "docker.io/library/nginx:does-not-exist": docker.io/library/nginx:does-not-exist: not found`
	diffLines(t, "events", h.events(), []string{
		`0s Pulling nginx: Pulling image "nginx:does-not-exist"`,
		`500ms Failed nginx: Failed to pull image "nginx:does-not-exist": ` + errMsg,
		`500ms Failed nginx: Error: ErrImagePull`,
		`500ms BackOff nginx: Back-off pulling image "nginx:does-not-exist"`,
		`500ms Failed nginx: Error: ImagePullBackOff`,
	})
	var waits []string
	for _, s := range h.statuses {
		w := s.s.ContainerStatuses[0].State.Waiting
		waits = append(waits, fmt.Sprintf("%v %s %s: %s", s.at, s.s.Phase, w.Reason, w.Message))
	}
	diffLines(t, "waiting states", waits, []string{
		"0s Pending ContainerCreating: ",
		"0s Pending ContainerCreating: ",
		"500ms Pending ErrImagePull: " + errMsg,
		`500ms Pending ImagePullBackOff: Back-off pulling image "nginx:does-not-exist": ErrImagePull: ` + errMsg,
	})
	if got, want := conditions(h.last()), "PodReadyToStartContainers=True Initialized=True Ready=False(ContainersNotReady: containers with unready status: [nginx]) ContainersReady=False(ContainersNotReady: containers with unready status: [nginx]) PodScheduled=True"; got != want {
		t.Errorf("conditions\ngot  %s\nwant %s", got, want)
	}

	// The back-off between a failed pull and the next one doubles from
	// 10s to 5 min.
	h.run(30 * time.Minute)
	pulls := h.eventTimes(ReasonPulling, "")
	fails := h.eventTimes(ReasonFailed, "Failed to pull")
	var gaps []time.Duration
	for i := 1; i < len(pulls) && i-1 < len(fails); i++ {
		gaps = append(gaps, pulls[i]-fails[i-1])
	}
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 300 * time.Second, 300 * time.Second}
	if len(gaps) < len(want) || fmt.Sprint(gaps[:len(want)]) != fmt.Sprint(want) {
		t.Errorf("back-offs between pulls %v, want %v first", gaps, want)
	}
}

func TestImageNeverPull(t *testing.T) {
	h := newHarness(t, nil, testPod("web", withImage("nginx:1.27", corev1.PullNever)), 1, time.Time{})
	h.run(time.Hour)
	diffLines(t, "events", h.events(), []string{
		`0s ErrImageNeverPull nginx: Container image "nginx:1.27" is not present with pull policy of Never`,
		`0s Failed nginx: Error: ErrImageNeverPull`,
	})
	if got := state(h.last().ContainerStatuses[0].State); got != "Waiting(ErrImageNeverPull)" {
		t.Errorf("state %s, want Waiting(ErrImageNeverPull)", got)
	}
}

func TestRestartPolicies(t *testing.T) {
	tests := []struct {
		policy       corev1.RestartPolicy
		code         string
		phase        corev1.PodPhase
		restartCount int32
		state        string // the container's state at the end
		lastState    string
		ready        string // the Ready condition
	}{
		// exit after 5s: started at 0.6s, exits 5.6s, restarted at once
		// (6.2s), exits 11.2s, back-off 10s (21.8s), exits 26.8s, back-off
		// 20s (47.4s), exits 52.4s, back-off 40s: past 60s.
		{corev1.RestartPolicyAlways, "0", corev1.PodRunning, 3, "Waiting(CrashLoopBackOff)", "Terminated(0 Completed)",
			"Ready=False(ContainersNotReady: containers with unready status: [nginx])"},
		{corev1.RestartPolicyAlways, "1", corev1.PodRunning, 3, "Waiting(CrashLoopBackOff)", "Terminated(1 Error)",
			"Ready=False(ContainersNotReady: containers with unready status: [nginx])"},
		{corev1.RestartPolicyOnFailure, "0", corev1.PodSucceeded, 0, "Terminated(0 Completed)", "none", "Ready=False(PodCompleted)"},
		{corev1.RestartPolicyOnFailure, "3", corev1.PodRunning, 3, "Waiting(CrashLoopBackOff)", "Terminated(3 Error)",
			"Ready=False(ContainersNotReady: containers with unready status: [nginx])"},
		{corev1.RestartPolicyNever, "0", corev1.PodSucceeded, 0, "Terminated(0 Completed)", "none", "Ready=False(PodCompleted)"},
		{corev1.RestartPolicyNever, "1", corev1.PodFailed, 0, "Terminated(1 Error)", "none", "Ready=False(PodFailed)"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s exit %s", tt.policy, tt.code), func(t *testing.T) {
			h := newHarness(t, newRuntimeT(t), testPod("web", restartPolicy(tt.policy), annotate(AnnotationExitAfter, "5s", AnnotationExitCode, tt.code)), 1, time.Time{})
			// The image is on the node: each start takes 600ms.
			h.rt.adoptImage("docker.io/library/nginx:1.27")
			h.run(60 * time.Second)
			s := h.last()
			cs := s.ContainerStatuses[0]
			if s.Phase != tt.phase {
				t.Errorf("phase %s, want %s", s.Phase, tt.phase)
			}
			if cs.RestartCount != tt.restartCount {
				t.Errorf("restartCount %d, want %d", cs.RestartCount, tt.restartCount)
			}
			if got := state(cs.State); got != tt.state {
				t.Errorf("state %s, want %s", got, tt.state)
			}
			if got := state(cs.LastTerminationState); got != tt.lastState {
				t.Errorf("lastState %s, want %s", got, tt.lastState)
			}
			var ready string
			for _, c := range s.Conditions {
				if c.Type == corev1.PodReady {
					ready = conditions(corev1.PodStatus{Conditions: []corev1.PodCondition{c}})
				}
			}
			if ready != tt.ready {
				t.Errorf("%s, want %s", ready, tt.ready)
			}
			if got, want := len(h.eventTimes(ReasonStarted, "")), int(tt.restartCount)+1; got != want {
				t.Errorf("%d Started events, want %d", got, want)
			}
			terminal := tt.phase == corev1.PodSucceeded || tt.phase == corev1.PodFailed
			if terminal {
				if got := conditions(corev1.PodStatus{Conditions: s.Conditions[:1]}); got != "PodReadyToStartContainers=False(PodSandboxNotReady: pod sandbox is not ready)" {
					t.Errorf("a finished pod's sandbox: %s", got)
				}
				if len(h.rt.ipam.inUse) != 0 {
					t.Errorf("a finished pod still holds its IP: %v", h.rt.ipam.inUse)
				}
				if s.PodIP != "10.244.1.2" {
					t.Errorf("podIP %q, want it kept after the pod finished", s.PodIP)
				}
			}
			if tt.state == "Waiting(CrashLoopBackOff)" {
				want := "back-off 40s restarting failed container=nginx pod=web_default(uid-web)"
				if got := cs.State.Waiting.Message; got != want {
					t.Errorf("waiting message %q, want %q", got, want)
				}
				if got := h.eventTimes(ReasonBackOff, "Back-off restarting failed container nginx in pod web_default(uid-web)"); len(got) != 3 {
					t.Errorf("BackOff events at %v, want 3", got)
				}
			}
		})
	}
}

func TestCrashLoopBackOff(t *testing.T) {
	tests := []struct {
		name      string
		speed     float64
		exitAfter string
		run       time.Duration
		// gaps are the times from an exit to the next start attempt.
		gaps []time.Duration
		// messages are the CrashLoopBackOff waiting messages, in order.
		messages []string
	}{
		{
			name: "10s doubling to 5m", speed: 1, exitAfter: "1s", run: 40 * time.Minute,
			gaps: []time.Duration{0, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second,
				300 * time.Second, 300 * time.Second, 300 * time.Second},
			messages: []string{"back-off 10s", "back-off 20s", "back-off 40s", "back-off 1m20s", "back-off 2m40s", "back-off 5m0s", "back-off 5m0s"},
		},
		{
			name: "speed 10 divides the back-off", speed: 10, exitAfter: "10s", run: 4 * time.Minute,
			gaps:     []time.Duration{0, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second},
			messages: []string{"back-off 1s", "back-off 2s", "back-off 4s", "back-off 8s", "back-off 16s", "back-off 30s"},
		},
		{
			name: "speed 0 backs off as speed 1000", speed: 0, exitAfter: "1s", run: 3 * time.Second,
			gaps: []time.Duration{0, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond,
				160 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond},
		},
		{
			// A container that ran more than 10 minutes starts again from
			// the initial back-off: here it is always restarted at once.
			name: "reset after 10 minutes without trouble", speed: 1, exitAfter: "11m", run: time.Hour,
			gaps: []time.Duration{0, 0, 0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, testPod("web", annotate(AnnotationExitAfter, tt.exitAfter)), tt.speed, time.Time{})
			h.rt.adoptImage("nginx:1.27")
			var gaps []time.Duration
			var messages []string
			var lastExit time.Duration = -1
			var restarts []int32
			h.run(tt.run)
			for _, r := range h.records {
				if r.action == nil {
					continue
				}
				switch {
				case r.action.Action == ActionExit:
					lastExit = r.at
				case r.action.Action == ActionPull && lastExit >= 0:
					gaps = append(gaps, r.at-lastExit)
					lastExit = -1
				}
			}
			for _, s := range h.statuses {
				cs := s.s.ContainerStatuses[0]
				if w := cs.State.Waiting; w != nil && w.Reason == ReasonCrashLoopBackOff {
					var d string
					fmt.Sscanf(w.Message, "back-off %s", &d)
					messages = append(messages, "back-off "+d)
				}
				if n := len(restarts); n == 0 || restarts[n-1] != cs.RestartCount {
					restarts = append(restarts, cs.RestartCount)
				}
			}
			if len(gaps) < len(tt.gaps) || fmt.Sprint(gaps[:len(tt.gaps)]) != fmt.Sprint(tt.gaps) {
				t.Errorf("back-offs %v, want %v first", gaps, tt.gaps)
			}
			if tt.messages != nil && (len(messages) < len(tt.messages) || fmt.Sprint(messages[:len(tt.messages)]) != fmt.Sprint(tt.messages)) {
				t.Errorf("CrashLoopBackOff messages %q, want %q first", messages, tt.messages)
			}
			for i, n := range restarts {
				if n != int32(i) {
					t.Errorf("restartCount went %v, want 0, 1, 2...", restarts)
					break
				}
			}
		})
	}
}

func TestReadiness(t *testing.T) {
	tests := []struct {
		name    string
		pod     *corev1.Pod
		readyAt time.Duration // when Ready turns True
	}{
		{"ready at once", testPod("web"), 600 * time.Millisecond},
		{"ready-after 3s", testPod("web", annotate(AnnotationReadyAfter, "3s")), 3600 * time.Millisecond},
		{"ready-after for one container", testPod("web", annotate(AnnotationReadyAfter+".nginx", "2")), 2600 * time.Millisecond},
		{"readiness probe's initial delay", testPod("web", func(p *corev1.Pod) {
			p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{InitialDelaySeconds: 5}
		}), 5600 * time.Millisecond},
		{"a bad annotation is ignored", testPod("web", annotate(AnnotationReadyAfter, "soon")), 600 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, tt.pod, 1, time.Time{})
			h.rt.adoptImage("nginx:1.27")
			h.run(time.Hour)
			var readyAt time.Duration = -1
			for _, s := range h.statuses {
				for _, c := range s.s.Conditions {
					if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && readyAt < 0 {
						readyAt = s.at
						if !c.LastTransitionTime.Time.Equal(t0.Add(s.at).Truncate(time.Second)) {
							t.Errorf("Ready lastTransitionTime %v, want %v", c.LastTransitionTime, t0.Add(s.at).Truncate(time.Second))
						}
					}
				}
				if cs := s.s.ContainerStatuses[0]; cs.State.Running != nil && s.at < tt.readyAt && cs.Ready {
					t.Errorf("container ready at %v, before %v", s.at, tt.readyAt)
				}
			}
			if readyAt != tt.readyAt {
				t.Errorf("Ready at %v, want %v", readyAt, tt.readyAt)
			}
		})
	}
}

func TestDeletion(t *testing.T) {
	tests := []struct {
		name      string
		pod       *corev1.Pod
		deleteAt  time.Duration
		grace     int64
		speed     float64
		events    []string
		phase     corev1.PodPhase
		state     string
		stoppedAt time.Duration // when the container exited
	}{
		{
			name: "stops at once", pod: testPod("web"), deleteAt: 10 * time.Second, grace: 30, speed: 1,
			events: []string{"10s Killing nginx: Stopping container nginx"},
			phase:  corev1.PodSucceeded, state: "Terminated(0 Completed)", stoppedAt: 10 * time.Second,
		},
		{
			name: "takes stop-after within the grace period", pod: testPod("web", annotate(AnnotationStopAfter, "5s")),
			deleteAt: 10 * time.Second, grace: 30, speed: 1,
			events: []string{"10s Killing nginx: Stopping container nginx"},
			phase:  corev1.PodSucceeded, state: "Terminated(0 Completed)", stoppedAt: 15 * time.Second,
		},
		{
			name: "killed at the end of the grace period", pod: testPod("web", annotate(AnnotationStopAfter, "60s")),
			deleteAt: 10 * time.Second, grace: 30, speed: 1,
			events: []string{"10s Killing nginx: Stopping container nginx"},
			phase:  corev1.PodFailed, state: "Terminated(137 Error)", stoppedAt: 40 * time.Second,
		},
		{
			name: "grace period divided by speed", pod: testPod("web", annotate(AnnotationStopAfter, "60s")),
			deleteAt: 10 * time.Second, grace: 30, speed: 10,
			events: []string{"10s Killing nginx: Stopping container nginx"},
			phase:  corev1.PodFailed, state: "Terminated(137 Error)", stoppedAt: 13 * time.Second,
		},
		{
			name: "deleted while pulling", pod: testPod("web"), deleteAt: time.Second, grace: 30, speed: 1,
			events: []string{`0s Pulling nginx: Pulling image "nginx:1.27"`},
			phase:  corev1.PodFailed, state: "Terminated(137 ContainerStatusUnknown)", stoppedAt: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, tt.pod, tt.speed, time.Time{})
			if tt.stoppedAt >= 0 {
				h.rt.adoptImage("nginx:1.27")
			}
			h.run(tt.deleteAt)
			h.delete(tt.grace)
			h.run(time.Hour)
			var events []string
			for _, e := range h.events() {
				if tt.stoppedAt < 0 || !(strings.Contains(e, "Pulled") || strings.Contains(e, "Created") || strings.Contains(e, "Started")) {
					events = append(events, e)
				}
			}
			diffLines(t, "events", events, tt.events)
			s := h.last()
			cs := s.ContainerStatuses[0]
			if s.Phase != tt.phase {
				t.Errorf("phase %s, want %s", s.Phase, tt.phase)
			}
			if got := state(cs.State); got != tt.state {
				t.Errorf("state %s, want %s", got, tt.state)
			}
			if tt.stoppedAt >= 0 {
				if got := cs.State.Terminated.FinishedAt.Time; !got.Equal(t0.Add(tt.stoppedAt).Truncate(time.Second)) {
					t.Errorf("finishedAt %v, want %v", got, t0.Add(tt.stoppedAt))
				}
				kills := 0
				for _, a := range h.actions() {
					if strings.Contains(a, " kill nginx ") {
						kills++
					}
				}
				if kills != 1 {
					t.Errorf("%d kill actions, want 1: %v", kills, h.actions())
				}
			}
			if !h.m.terminated {
				t.Error("machine not terminated")
			}
			if got := conditions(corev1.PodStatus{Conditions: s.Conditions[:1]}); got != "PodReadyToStartContainers=False(PodSandboxNotReady: pod sandbox is not ready)" {
				t.Errorf("sandbox after deletion: %s", got)
			}
			if len(h.rt.ipam.inUse) != 0 {
				t.Errorf("IP not released: %v", h.rt.ipam.inUse)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	h := newHarness(t, nil, testPod("web"), 1, time.Time{})
	h.run(10 * time.Second)
	out := h.m.remove(h.clk.Now())
	h.collect(out)
	diffLines(t, "events", h.events()[4:], []string{"10s Killing nginx: Stopping container nginx"})
	if got := h.actions()[len(h.actions())-1]; got != "10s kill nginx 0s exit code 0" {
		t.Errorf("last action %q, want the kill", got)
	}
	if len(h.rt.ipam.inUse) != 0 {
		t.Errorf("IP not released: %v", h.rt.ipam.inUse)
	}
}

func TestAdoption(t *testing.T) {
	tests := []struct {
		name string
		pod  *corev1.Pod
		// stopAt is when the first kubelet stops.
		stopAt time.Duration
		// events are the events of the second kubelet (at offsets from t0).
		events []string
	}{
		{name: "running pod: nothing to do", pod: testPod("web"), stopAt: time.Minute},
		{name: "init containers done, app running", pod: testPod("web", initContainers("init-a")), stopAt: time.Minute},
		{
			name: "mid-way: carries on", pod: testPod("web"), stopAt: time.Second,
			events: []string{
				`1s Pulling nginx: Pulling image "nginx:1.27"`,
				`3s Pulled nginx: Successfully pulled image "nginx:1.27" in 2s (2s including waiting). Image size: ` + fmt.Sprint(parseImage("nginx:1.27").size()) + ` bytes.`,
				`3.3s Created nginx: Container created`,
				`3.6s Started nginx: Container started`,
			},
		},
		{
			name: "exits on time after the restart", pod: testPod("web", annotate(AnnotationExitAfter, "90s"), restartPolicy(corev1.RestartPolicyNever)), stopAt: time.Minute,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newHarness(t, nil, tt.pod, 1, time.Time{})
			a.run(tt.stopAt)
			pod := a.podWithStatus()
			before := pod.Status.DeepCopy()

			// A new kubelet: a new runtime for the same node.
			b := newHarness(t, nil, pod, 1, t0.Add(tt.stopAt))
			if len(b.statuses) != 0 {
				t.Errorf("adopting the pod changes its status:\n%s\n%s", conditions(b.statuses[0].s), states(b.statuses[0].s))
			}
			b.run(time.Hour)
			diffLines(t, "events after the restart", b.events(), tt.events)
			if tt.events != nil {
				return
			}
			got := b.m.status(b.clk.Now())
			for i, cs := range before.ContainerStatuses {
				g := got.ContainerStatuses[i]
				if g.ContainerID != cs.ContainerID || g.RestartCount != cs.RestartCount {
					t.Errorf("%s: containerID %s restartCount %d, want %s %d", cs.Name, g.ContainerID, g.RestartCount, cs.ContainerID, cs.RestartCount)
				}
				start := func(s corev1.ContainerStatus) time.Time {
					if s.State.Running != nil {
						return s.State.Running.StartedAt.Time
					}
					return s.State.Terminated.StartedAt.Time
				}
				if !start(g).Equal(start(cs)) {
					t.Errorf("%s: startedAt %v, want %v", cs.Name, start(g), start(cs))
				}
			}
			if got.PodIP != before.PodIP {
				t.Errorf("podIP %s, want %s", got.PodIP, before.PodIP)
			}
			if _, ok := b.m.rt.image(parseImage("nginx:1.27"), b.clk.Now()); !ok {
				t.Error("the image of an adopted container is not on the node")
			}
			if tt.pod.Annotations[AnnotationExitAfter] == "90s" {
				// Started at 2.6s (2s to the second): exits at 92s.
				if got.Phase != corev1.PodSucceeded {
					t.Errorf("phase %s, want Succeeded", got.Phase)
				}
				if f := got.ContainerStatuses[0].State.Terminated.FinishedAt.Time; !f.Equal(t0.Add(92 * time.Second)) {
					t.Errorf("finishedAt %v, want %v", f, t0.Add(92*time.Second))
				}
			}
		})
	}
}

func TestShorterGracePeriod(t *testing.T) {
	h := newHarness(t, nil, testPod("web", annotate(AnnotationStopAfter, "60s")), 1, time.Time{})
	h.rt.adoptImage("nginx:1.27")
	h.run(10 * time.Second)
	h.delete(30)
	h.run(15 * time.Second)
	// Deleted again with a shorter grace period (kubectl delete --grace-period=5).
	h.delete(5)
	h.run(time.Hour)
	cs := h.last().ContainerStatuses[0]
	if got := state(cs.State); got != "Terminated(137 Error)" {
		t.Fatalf("state %s, want Terminated(137 Error)", got)
	}
	// Asked to stop at 10s; the new grace period ends at 15s.
	if got, want := cs.State.Terminated.FinishedAt.Time, t0.Add(15*time.Second); !got.Equal(want) {
		t.Errorf("finishedAt %v, want %v", got, want)
	}
	if got := len(h.eventTimes(ReasonKilling, "")); got != 1 {
		t.Errorf("%d Killing events, want 1", got)
	}
}
