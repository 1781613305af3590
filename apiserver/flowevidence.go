package apiserver

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/apiserver/storage"
	"github.com/kubesim/kubesim/internal/flow"
)

// component signs the API server's flow events and gate boundaries.
const component = "apiserver"

// Where the API server captures the stages of a pod's creation (see
// flow.Stage), and where it holds at the gate (Config.Gate):
//
//	1  admitPodCreate: validating admission of the create passed; then
//	   hold at PointBeforePersist
//	2  observeWrite: the create's etcd write
//	3  stageFrame: the pod's first ADDED frame on the scheduler's watch,
//	   after holding at PointBeforeSchedulerWatch
//	5  observeWrite: the binding's etcd write
//	6  stageFrame: the pod's first frame on its node's kubelet's watch,
//	   after holding at PointBeforeKubeletWatch
//	7  admitPodStatus: validating admission of the status write that
//	   moves the phase off Pending passed; then hold at
//	   PointBeforeStatusPersist
//	8  observeWrite: that status write
//
// buildGroups installs admitPodCreate, stageFrame and admitPodStatus as
// hooks of the pods endpoint and its status subresource; observeWrite is
// every store's OnWrite. podTracker keeps the stages in order, once each,
// for the pods it tracks.

func podRef(pod *corev1.Pod) flow.ObjectRef {
	return flow.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}
}

func boundary(pt flow.Point, pod *corev1.Pod) flow.Boundary {
	return flow.Boundary{Point: pt, Component: component, Object: podRef(pod)}
}

// observeWrite is the stores' OnWrite: every write of a pod to etcd is
// recorded, right after etcd accepted it, as an event with Etcd evidence;
// the tracker says which stage, if any, it stands for.
func (s *Server) observeWrite(ctx context.Context, w storage.Write) {
	by := request.TraceFrom(ctx).Author()
	other := flow.OtherWrite{Revision: w.Revision, Op: w.Op, Key: w.Key}
	if by != nil {
		other.User = by.User
	}
	s.writes.add(other)
	pod, ok := w.Object.(*corev1.Pod)
	if !ok {
		return
	}
	// Which keys took the revisions in between is shown for the pods
	// whose stages are followed: the others' writes need not scan the
	// log (every pod write of a large cluster comes through here).
	var between []flow.OtherWrite
	var more, elsewhere int64
	if s.tracker.tracks(pod.UID) {
		between, more, elsewhere = s.writes.between(w.PrevRevision, w.Revision)
	}
	summary := fmt.Sprintf("etcd %s %s at revision %d", w.Op, w.Key, w.Revision)
	var value string
	if s.cfg.Recorder.HasReaders() {
		value, summary = shownValue(w, summary)
	}
	s.tracker.recordWrite(w.Op, pod, flow.Event{
		Component: component,
		Object:    podRef(pod),
		Time:      time.Now(),
		Summary:   summary,
		Etcd: &flow.EtcdWrite{
			Op:               w.Op,
			Key:              w.Key,
			Revision:         w.Revision,
			PrevRevision:     w.PrevRevision,
			Value:            value,
			By:               by,
			Between:          between,
			BetweenMore:      more,
			BetweenElsewhere: elsewhere,
		},
	})
}

// shownValue is the value of w as the evidence shows it, and summary
// with what the reader should know about it: the stored bytes when they
// are JSON; when the API server stores protobuf
// (Config.StorageMediaType), which no screen can show, the JSON of the
// object written (without its resourceVersion, as stored), and the
// summary says so, with the size of what etcd holds.
func shownValue(w storage.Write, summary string) (string, string) {
	if !registry.IsProtobuf(w.Value) || w.Object == nil {
		return string(w.Value), summary
	}
	obj := w.Object.DeepCopyObject()
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion("")
	}
	var buf bytes.Buffer
	if err := registry.Codec.Encode(obj, &buf); err != nil {
		return "", fmt.Sprintf("%s (stored as protobuf, %d bytes, which could not be shown as JSON: %v)", summary, len(w.Value), err)
	}
	return buf.String(), fmt.Sprintf("%s (stored as protobuf, %d bytes; the value shown is the object as JSON)", summary, len(w.Value))
}

// requestStage is the event of a stage reached inside a request, with the
// request's trace so far as evidence.
func requestStage(ctx context.Context, stage flow.Stage, pod *corev1.Pod, what string) flow.Event {
	t := request.TraceFrom(ctx)
	if t != nil && !t.Recording() {
		// Nobody read the events when the request came: the stage is
		// recorded, for the tracker's order, without the trace.
		return flow.Event{Stage: stage, Component: component, Object: podRef(pod), Time: time.Now(), Summary: what}
	}
	rt := t.Snapshot()
	summary := what
	if rt != nil {
		summary = fmt.Sprintf("%s %s: %s", rt.Method, rt.URI, what)
	}
	return flow.Event{Stage: stage, Component: component, Object: podRef(pod), Time: time.Now(), Summary: summary, Request: rt}
}

// admitPodCreate is the pods endpoint's createHook: it wraps the
// validating admission of a pod create (not a dry run). Once that passed
// (the registry has set the pod's UID by then), the pod is tracked, its
// stage 1 recorded with the request's trace so far, and the request held
// at PointBeforePersist. If the hold ends because the request's context
// is done, the create fails and nothing is stored. failed abandons the
// pod tracked (podTracker.abandon); it must be called, after the wrapped
// validation returned, only if the create failed.
func (s *Server) admitPodCreate(validate registry.ValidateObjectFunc) (registry.ValidateObjectFunc, func()) {
	var tracked types.UID
	admitted := func(ctx context.Context, obj runtime.Object) error {
		if err := validate(ctx, obj); err != nil {
			return err
		}
		pod, ok := obj.(*corev1.Pod)
		if !ok {
			return nil
		}
		s.tracker.track(pod.UID)
		tracked = pod.UID
		s.tracker.recordStage(requestStage(ctx, flow.StageAdmitted, pod, fmt.Sprintf("pod %s/%s admitted", pod.Namespace, pod.Name)))
		if !s.tracker.claim(pod.UID, flow.PointBeforePersist, flow.StagePersisted) {
			return nil
		}
		return s.holdRequest(ctx, flow.PointBeforePersist, pod)
	}
	return admitted, func() { s.tracker.abandon(tracked) }
}

// admitPodStatus is the pods/status subresource's updateHook: it wraps
// the validating admission of a write of pods/status (not a dry run).
// When it passed for a write that moves a tracked pod's phase off
// Pending, stage 7 is recorded with the request's trace so far and the
// request held at PointBeforeStatusPersist. The registry calls
// validation inside its update loop, again on each retry: the hold and
// the event happen once per pod.
func (s *Server) admitPodStatus(validate registry.ValidateObjectUpdateFunc) registry.ValidateObjectUpdateFunc {
	return func(ctx context.Context, obj, old runtime.Object) error {
		if err := validate(ctx, obj, old); err != nil {
			return err
		}
		pod, ok := obj.(*corev1.Pod)
		prev, ok2 := old.(*corev1.Pod)
		if !ok || !ok2 || !isPending(prev.Status.Phase) || isPending(pod.Status.Phase) {
			return nil
		}
		if !s.tracker.claim(prev.UID, flow.PointBeforeStatusPersist, flow.StageStatusReported) {
			return nil
		}
		what := fmt.Sprintf("pod %s/%s status: phase %s → %s", pod.Namespace, pod.Name, phaseName(prev.Status.Phase), pod.Status.Phase)
		s.tracker.recordStage(requestStage(ctx, flow.StageStatusReported, prev, what))
		return s.holdRequest(ctx, flow.PointBeforeStatusPersist, prev)
	}
}

func phaseName(p corev1.PodPhase) string {
	if p == "" {
		return "(none)"
	}
	return string(p)
}

// holdRequest waits at point pt for pod inside a request, with the
// request timeout paused meanwhile, and adds a "held" step to the trace
// when the gate is on. It fails only when ctx is done first.
func (s *Server) holdRequest(ctx context.Context, pt flow.Point, pod *corev1.Pod) error {
	gate := s.cfg.Gate
	on := gate.Mode() != flow.ModeOff
	resume := request.PauseRequestTimeout(ctx)
	defer resume()
	start := time.Now()
	err := gate.Wait(ctx, boundary(pt, pod))
	t := request.TraceFrom(ctx)
	if err != nil {
		t.Step("held", "failed", fmt.Sprintf("held by the step gate at %s; the request ended while held: %v", pt, err), "point", string(pt))
		return fmt.Errorf("held at %s: %w", pt, err)
	}
	if on {
		held := time.Since(start).Round(time.Millisecond)
		t.Step("held", "ok", fmt.Sprintf("held by the step gate at %s for %s (the request timeout does not count it)", pt, held),
			"point", string(pt), "held", held.String())
	}
	return nil
}

// stagedFrame is a watch frame about to be written that is a stage of its
// pod's creation (3 or 6).
type stagedFrame struct {
	stage flow.Stage
	pod   *corev1.Pod
	typ   watch.EventType
}

// frameStage says which stage writing ev to the watch of user would be: 3
// for an ADDED of an unbound pod to the scheduler, 6 for an ADDED or
// MODIFIED of a pod bound to node N to system:node:N; and the point that
// holds it. Stage 0 for any other frame.
func frameStage(user string, ev watch.Event) (flow.Stage, flow.Point, *corev1.Pod) {
	pod, ok := ev.Object.(*corev1.Pod)
	if !ok {
		return 0, "", nil
	}
	node, isNode := strings.CutPrefix(user, auth.NodeUserPrefix)
	switch {
	case user == auth.SchedulerUser && ev.Type == watch.Added && pod.Spec.NodeName == "":
		return flow.StageSchedulerNotified, flow.PointBeforeSchedulerWatch, pod
	case isNode && node != "" && pod.Spec.NodeName == node && (ev.Type == watch.Added || ev.Type == watch.Modified):
		return flow.StageKubeletNotified, flow.PointBeforeKubeletWatch, pod
	}
	return 0, "", nil
}

// stageFrame is the pods endpoint's frameHook: it decides, before ev is
// written to the watch of user, whether the frame is a stage of a tracked
// pod's creation (frameStage). If so it waits (at most stageWait) until
// the write the frame carries has been recorded, so that 3 comes after 2
// and 6 after 5; holds at the stage's point, once per pod; and returns
// the stage to record with the frame. The watch's timer is paused
// meanwhile, so a hold does not end the watch. It returns nil for any
// other frame, and an error only when ctx is done.
func (s *Server) stageFrame(ctx context.Context, user string, ev watch.Event, timer *request.PausableTimer) (*stagedFrame, error) {
	stage, pt, pod := frameStage(user, ev)
	if stage == 0 || !s.tracker.wants(pod.UID, stage) {
		return nil, nil
	}
	resume := timer.Pause()
	defer resume()
	rev, _ := strconv.ParseInt(pod.ResourceVersion, 10, 64)
	if !s.tracker.await(ctx, pod.UID, max(rev, 1), stageWait) {
		return nil, ctx.Err()
	}
	if s.tracker.claim(pod.UID, pt, stage) {
		if err := s.cfg.Gate.Wait(ctx, boundary(pt, pod)); err != nil {
			return nil, err
		}
	}
	return &stagedFrame{stage: stage, pod: pod, typ: ev.Type}, nil
}

// record records the frame's stage with the frame as evidence, if the
// stage may still be recorded.
func (f *stagedFrame) record(s *Server, r *http.Request, user, contentType string, frame []byte) {
	if f == nil {
		return
	}
	s.tracker.recordStage(flow.Event{
		Stage:     f.stage,
		Component: component,
		Object:    podRef(f.pod),
		Time:      time.Now(),
		Summary: fmt.Sprintf("%s pod %s/%s (resourceVersion %s) to the watch of %s", f.typ, f.pod.Namespace, f.pod.Name,
			f.pod.ResourceVersion, user),
		Watch: &flow.WatchDelivery{
			User:            user,
			URI:             r.URL.RequestURI(),
			Proto:           r.Proto,
			ContentType:     contentType,
			Type:            string(f.typ),
			ResourceVersion: f.pod.ResourceVersion,
			Frame:           frame,
		},
	})
}
