package scenarios_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// teeObserver hands every step and event to each of its printers;
// finished, if set, is called first when a step finishes (before the
// next step runs).
type teeObserver struct {
	printers []*scenarios.PlainPrinter
	finished func(scenarios.StepInfo)
}

func (t teeObserver) StepStarted(s scenarios.StepInfo) {
	for _, p := range t.printers {
		p.StepStarted(s)
	}
}

func (t teeObserver) StepFinished(s scenarios.StepInfo, r scenarios.StepResult) {
	if t.finished != nil {
		t.finished(s)
	}
	for _, p := range t.printers {
		p.StepFinished(s, r)
	}
}

func (t teeObserver) Event(ev flow.Event) {
	for _, p := range t.printers {
		p.Event(ev)
	}
}

// TestPlayServerChainShowsCheckedConditions plays server-chain headless
// in both languages: beneath the result of the step that checks the
// CRD's NamesAccepted and Established conditions, and of the one that
// checks the APIService v1.example.com's Available, the plain output
// prints those conditions as the API server holds them (read when the
// step ends; the lesson deletes them later): status, reason and message.
func TestPlayServerChainShowsCheckedConditions(t *testing.T) {
	s := mustFind(t, "server-chain")
	c := mustStartCluster(t, s)
	rc, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(rc)
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	apiservices := schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
	read := map[string]map[string]any{} // the conditions by "name/type", as the steps ended
	keep := func(gvr schema.GroupVersionResource, name string) {
		obj, err := dyn.Resource(gvr).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("%s %s: %v", gvr.Resource, name, err)
			return
		}
		conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			read[name+"/"+fmt.Sprint(m["type"])] = m
		}
	}
	finished := func(s scenarios.StepInfo) {
		switch s.ID {
		case "crd":
			keep(crds, "widgets.example.com")
		case "local-apiservice":
			keep(apiservices, "v1.example.com")
		}
	}
	var en, zh bytes.Buffer
	obs := teeObserver{printers: []*scenarios.PlainPrinter{scenarios.NewPlainPrinter(&en, "en"), scenarios.NewPlainPrinter(&zh, "zh")}, finished: finished}
	if err := play(t, c, s, obs); err != nil {
		t.Fatalf("Play: %v\n%s", err, en.String())
	}
	condition := func(name, typ string) map[string]any {
		if m := read[name+"/"+typ]; m != nil {
			return m
		}
		t.Fatalf("%s had no condition %s when its step ended", name, typ)
		return nil
	}
	line := func(lang, object string, m map[string]any) string {
		if lang == "zh" {
			return fmt.Sprintf("  %s：%s=%s，原因 %s，消息 %q\n", object, m["type"], m["status"], m["reason"], m["message"])
		}
		return fmt.Sprintf("  %s: %s=%s, reason %s, message %q\n", object, m["type"], m["status"], m["reason"], m["message"])
	}
	for lang, out := range map[string]string{"en": en.String(), "zh": zh.String()} {
		ok := map[string]string{"en": "✓ ok\n", "zh": "✓ 通过\n"}[lang]
		crd := "CustomResourceDefinition widgets.example.com"
		for _, want := range []string{
			ok + line(lang, crd, condition("widgets.example.com", "NamesAccepted")) + line(lang, crd, condition("widgets.example.com", "Established")),
			ok + line(lang, "APIService v1.example.com", condition("v1.example.com", "Available")),
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks\n%s\nin\n%s", lang, want, out)
			}
		}
	}
}
