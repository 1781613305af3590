package flow

import "fmt"

// Stage is one of the eight steps from "kubectl create" to a running pod.
// The zero Stage means an event that belongs to no stage (for example the
// trace of an unrelated request).
type Stage int

// The eight stages, in order.
const (
	StageAdmitted          Stage = iota + 1 // client → apiserver: authn, authz, admission
	StagePersisted                          // apiserver → etcd: the create transaction
	StageSchedulerNotified                  // watch: ADDED reaches the scheduler
	StageScheduled                          // scheduler: filter, score, bind
	StageBindingPersisted                   // apiserver → etcd: spec.nodeName
	StageKubeletNotified                    // watch → kubelet → runtime: containers created
	StageStatusReported                     // kubelet → apiserver: PATCH pods/status
	StageStatusPersisted                    // apiserver → etcd: phase Running
)

// StageInfo describes a stage for people.
type StageInfo struct {
	Stage Stage
	Name  string // short, for code and JSON: "admitted"
	Title Text
}

// Stages lists the eight stages in order.
var Stages = []StageInfo{
	{StageAdmitted, "admitted", Text{En: "Request admitted", Zh: "请求通过认证、授权与准入"}},
	{StagePersisted, "persisted", Text{En: "Pod stored in etcd", Zh: "Pod 写入 etcd"}},
	{StageSchedulerNotified, "scheduler-notified", Text{En: "Scheduler notified by watch", Zh: "调度器经 Watch 收到通知"}},
	{StageScheduled, "scheduled", Text{En: "Node chosen and bound", Zh: "调度器选定节点并绑定"}},
	{StageBindingPersisted, "binding-persisted", Text{En: "Binding stored in etcd", Zh: "绑定结果写入 etcd"}},
	{StageKubeletNotified, "kubelet-notified", Text{En: "Kubelet creates the containers", Zh: "kubelet 创建容器"}},
	{StageStatusReported, "status-reported", Text{En: "Kubelet reports status", Zh: "kubelet 上报状态"}},
	{StageStatusPersisted, "status-persisted", Text{En: "Status stored in etcd", Zh: "状态写入 etcd"}},
}

// Info returns the description of s.
func (s Stage) Info() (StageInfo, bool) {
	if s < StageAdmitted || s > StageStatusPersisted {
		return StageInfo{}, false
	}
	return Stages[s-1], true
}

func (s Stage) String() string {
	if i, ok := s.Info(); ok {
		return i.Name
	}
	if s == 0 {
		return "none"
	}
	return fmt.Sprintf("stage(%d)", int(s))
}
