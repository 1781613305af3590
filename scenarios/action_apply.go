package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ApplyAction creates the objects of a manifest, or (Create false) applies
// them as client-side kubectl apply does: created with the
// kubectl.kubernetes.io/last-applied-configuration annotation, or, when
// they exist, patched with a three-way merge patch, so that what other
// writers set is kept and no 409 can come from them. With Create, an
// object that exists is this step's result (409 AlreadyExists), not a
// failure of the run when the step expects a status or message.
type ApplyAction struct {
	// Create makes it a strict create (the `create` key).
	Create bool
	// File is the manifest's path for applyFile, as written.
	File string
	// Objects are the manifest's objects, in order, namespaced ones with
	// their namespace set.
	Objects []*unstructured.Unstructured
}

var _ actionRunner = (*ApplyAction)(nil)

// Kind returns create, applyFile or apply: the key the action was read from.
func (a *ApplyAction) Kind() string {
	switch {
	case a.Create:
		return "create"
	case a.File != "":
		return "applyFile"
	}
	return "apply"
}

func (a *ApplyAction) String() string {
	var names []string
	for _, o := range a.Objects {
		names = append(names, objectOf(o).String())
	}
	verb := "apply"
	if a.Create {
		verb = "create"
	}
	if a.File != "" {
		return fmt.Sprintf("%s -f %s: %s", verb, a.File, strings.Join(names, ", "))
	}
	return verb + " " + strings.Join(names, ", ")
}

// parseApply reads apply and create: a manifest written in the scenario
// file, whose errors point into it.
func parseApply(l *loader, key string, n *yaml.Node) (actionRunner, error) {
	s, err := decodeAs[str](n)
	if err != nil {
		return nil, err
	}
	objs, err := l.manifest(l.file, string(s), l.blockPos(n), true)
	if err != nil {
		return nil, err
	}
	return &ApplyAction{Create: key == "create", Objects: objs}, nil
}

// parseApplyFile reads applyFile: the path of a manifest, read (through
// the loader's readFunc) and decoded now; its errors name that file.
func parseApplyFile(l *loader, _ string, n *yaml.Node) (actionRunner, error) {
	s, err := decodeAs[str](n)
	if err != nil {
		return nil, err
	}
	name, data, err := l.read(string(s))
	if err != nil {
		return nil, errAt(n, "%v", err)
	}
	objs, err := l.manifest(name, string(data), func(line, col int) (int, int) { return line, col }, false)
	if err != nil {
		return nil, err
	}
	return &ApplyAction{File: string(s), Objects: objs}, nil
}

// run applies or creates the objects one by one, stopping at the first
// error. create sends a POST (kubectl create: an object that exists is a
// 409); apply does what client-side kubectl apply does (applyOne).
func (a *ApplyAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	res := StepResult{}
	var msgs []string
	for _, obj := range a.Objects {
		obj = obj.DeepCopy()
		o := objectOf(obj)
		ri, err := p.resource(o, user)
		if err != nil {
			return StepResult{}, err
		}
		if a.Create {
			u, err := ri.Create(ctx, obj, metav1.CreateOptions{})
			if err != nil {
				return resultOf(err, 0), err
			}
			p.remember(u)
			res.Status = http.StatusCreated
			msgs = append(msgs, o.String()+" created")
			continue
		}
		status, verb, err := p.applyOne(ctx, ri, obj)
		if err != nil {
			return resultOf(err, 0), err
		}
		res.Status = status
		msgs = append(msgs, o.String()+" "+verb)
	}
	res.Message = strings.Join(msgs, "; ")
	return res, nil
}
