package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// PatchAction patches an object (or one of its subresources).
type PatchAction struct {
	Object      ObjectSpec
	Subresource string
	// Type is "strategic", "merge" or "json".
	Type  string
	Patch string
}

var _ actionRunner = (*PatchAction)(nil)

// patchDoc is patch as written.
type patchDoc struct {
	objectDoc   `yaml:",inline"`
	Subresource *str `yaml:"subresource"`
	Type        *str `yaml:"type"`
	Patch       str  `yaml:"patch" load:"required"`
}

// patchTypes maps the values of patch.type to their content types.
var patchTypes = map[string]types.PatchType{
	"strategic": types.StrategicMergePatchType,
	"merge":     types.MergePatchType,
	"json":      types.JSONPatchType,
}

// patchTypeNames are patchTypes' keys in the order messages list them.
var patchTypeNames = []string{"strategic", "merge", "json"}

func (a *PatchAction) Kind() string { return "patch" }
func (a *PatchAction) String() string {
	target := a.Object.String()
	if a.Subresource != "" {
		target += " (" + a.Subresource + ")"
	}
	return fmt.Sprintf("patch %s --type=%s -p '%s'", target, a.Type, a.Patch)
}

// parsePatch reads {kind, name, namespace, subresource, type, patch}:
// type is strategic (the default), merge or json, patch a JSON text, and
// subresource, if given, status or scale.
func parsePatch(l *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d patchDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	a := &PatchAction{Patch: string(d.Patch)}
	var err error
	if a.Object, err = l.objectRef(n, d.objectDoc); err != nil {
		return nil, err
	}
	if a.Subresource, err = d.Subresource.oneOf(valueOf(n, "subresource"), "", []string{"status", "scale"}); err != nil {
		return nil, err
	}
	if a.Type, err = d.Type.oneOf(valueOf(n, "type"), "strategic", patchTypeNames); err != nil {
		return nil, err
	}
	if !json.Valid([]byte(a.Patch)) {
		return nil, errAt(valueOf(n, "patch"), "not valid JSON")
	}
	return a, nil
}

// run sends the patch as user.
func (a *PatchAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	ri, err := p.resource(a.Object, user)
	if err != nil {
		return StepResult{}, err
	}
	var sub []string
	if a.Subresource != "" {
		sub = []string{a.Subresource}
	}
	u, err := ri.Patch(ctx, a.Object.Name, patchTypes[a.Type], []byte(a.Patch), metav1.PatchOptions{}, sub...)
	p.remember(u)
	return resultOf(err, http.StatusOK), err
}
