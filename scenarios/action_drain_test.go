package scenarios

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

func TestParseWorkloadActions(t *testing.T) {
	def := DefaultNamespace
	checkParse(t, parseCreateJob, []parseCase[actionRunner]{
		{name: "image", key: "createJob", src: `{name: pi, image: busybox, command: [echo, "3.14"]}`,
			want: &CreateJobAction{Job: ObjectSpec{Kind: "Job", Name: "pi", Namespace: def}, Image: "busybox", Command: []string{"echo", "3.14"}}},
		{name: "from", key: "createJob", src: `{name: m, namespace: ns, from: cronjob/hello}`,
			want: &CreateJobAction{Job: ObjectSpec{Kind: "Job", Name: "m", Namespace: "ns"}, From: "hello"}},
		{name: "neither", key: "createJob", src: `{name: pi}`, wantErr: `1:1: createJob: either --image or --from must be specified (give image or from)`},
		{name: "both", key: "createJob", src: `{name: pi, image: x, from: cronjob/y}`, wantErr: `1:28: createJob.from: either --image or --from must be specified, not both`},
		{name: "from a deployment", key: "createJob", src: `{name: pi, from: deployment/y}`, wantErr: `1:18: createJob.from: from must be cronjob/NAME, got "deployment/y"`},
	})
	checkParse(t, parseLogs, []parseCase[actionRunner]{
		{name: "job", key: "logs", src: `{object: job/pi}`, want: &LogsAction{Object: ObjectSpec{Kind: "Job", Name: "pi", Namespace: def}}},
		{name: "pod", key: "logs", src: `{object: web, container: c}`, want: &LogsAction{Object: ObjectSpec{Kind: "Pod", Name: "web", Namespace: def}, Container: "c"}},
		{name: "deployment", key: "logs", src: `{object: deploy/web}`, wantErr: `1:10: logs.object: object: "deploy/web" is not pod/NAME or job/NAME`},
	})
	checkParse(t, parseEvict, []parseCase[actionRunner]{
		{name: "selector", key: "evict", src: `{selector: app=web, node: node-1}`, want: &EvictAction{Selector: "app=web", Node: "node-1", Namespace: def}},
		{name: "pod", key: "evict", src: `{pod: web}`, want: &EvictAction{Pod: "web", Namespace: def}},
		{name: "both", key: "evict", src: `{pod: web, selector: app=web}`, wantErr: `1:7: evict.pod: give pod, or selector (and node), not both`},
		{name: "none", key: "evict", src: `{namespace: x}`, wantErr: `1:1: evict: missing field "pod" (or "selector")`},
	})
	checkParse(t, parseDrain, []parseCase[actionRunner]{
		{name: "flags", key: "drain", src: `{node: node-1, timeout: 8s, ignoreDaemonSets: true}`,
			want: &DrainAction{Node: "node-1", Timeout: 8 * time.Second, IgnoreDaemonSets: true}},
	})
	checkParse(t, parseCordon, []parseCase[actionRunner]{
		{name: "cordon", key: "cordon", src: `node-1`, want: &CordonAction{Node: "node-1", Cordon: true}},
		{name: "uncordon", key: "uncordon", src: `node-1`, want: &CordonAction{Node: "node-1"}},
	})
}

func TestCreateJobString(t *testing.T) {
	a := &CreateJobAction{Job: ObjectSpec{Kind: "Job", Name: "pi", Namespace: DefaultNamespace}, Image: "busybox", Command: []string{"echo", "3.14"}}
	if got, want := a.String(), "kubectl create job pi --image=busybox -- echo 3.14"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	job := a.imageJob()
	c := job.Spec.Template.Spec.Containers
	if len(c) != 1 || c[0].Name != "pi" || job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("imageJob() = %+v, want one container named pi, restartPolicy Never", job.Spec.Template.Spec)
	}
}

// drainPod is a running pod on node-1 owned by a controller of kind (none
// for "").
func drainPod(name, kind string, emptyDir bool) corev1.Pod {
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: "node-1"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	if kind != "" {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: "owner", Controller: ptr.To(true)}}
	}
	if emptyDir {
		p.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	}
	return p
}

func TestDrainFilters(t *testing.T) {
	pods := []corev1.Pod{drainPod("rs", "ReplicaSet", false), drainPod("ds", "DaemonSet", false),
		drainPod("bare", "", false), drainPod("scratch", "ReplicaSet", true)}
	mirror := drainPod("static", "", false)
	mirror.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
	pods = append(pods, mirror)
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "default"}}
	for _, tc := range []struct {
		name     string
		drain    DrainAction
		evict    []string
		warnings string
		errs     string
	}{
		{name: "defaults", drain: DrainAction{Node: "node-1"}, evict: []string{"rs"},
			errs: "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): default/ds; " +
				"cannot delete Pods that declare no controller (use --force to override): default/bare; " +
				"cannot delete Pods with local storage (use --delete-emptydir-data to override): default/scratch"},
		{name: "every flag", drain: DrainAction{Node: "node-1", IgnoreDaemonSets: true, Force: true, DeleteEmptyDirData: true},
			evict:    []string{"bare", "rs", "scratch"}, // in the order of the list
			warnings: "deleting Pods that declare no controller: default/bare; ignoring DaemonSet-managed Pods: default/ds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := []corev1.Pod{}
			objs = append(objs, pods...)
			cs := fake.NewClientset(ds, &corev1.PodList{Items: objs})
			got, warnings, errs := tc.drain.podsToEvict(context.Background(), cs)
			var names, msgs []string
			for _, p := range got {
				names = append(names, p.Name)
			}
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			if strings.Join(names, ",") != strings.Join(tc.evict, ",") {
				t.Errorf("evicts %v, want %v", names, tc.evict)
			}
			if w := strings.Join(warnings, "; "); w != tc.warnings {
				t.Errorf("warnings %q, want %q", w, tc.warnings)
			}
			if e := strings.Join(msgs, "; "); e != tc.errs {
				t.Errorf("errors %q\nwant %q", e, tc.errs)
			}
		})
	}
}

func TestUnschedulablePatch(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	for desired, want := range map[bool]string{true: `{"spec":{"unschedulable":true}}`} {
		got, err := unschedulablePatch(node, desired)
		if err != nil || string(got) != want {
			t.Errorf("unschedulablePatch(%v) = %s, %v; want %s", desired, got, err, want)
		}
	}
	node.Spec.Unschedulable = true
	if got, _ := unschedulablePatch(node, false); string(got) != `{"spec":{"unschedulable":null}}` {
		t.Errorf("unschedulablePatch(false) = %s, want the field set to null", got)
	}
}
