package apiextensions

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// accepted returns a CRD of group example.com holding names.
func accepted(name string, names apiextensionsv1.CustomResourceDefinitionNames) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:   apiextensionsv1.CustomResourceDefinitionSpec{Group: "example.com", Names: names},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{AcceptedNames: names}}
}

func TestAcceptNames(t *testing.T) {
	gadgets := accepted("gadgets.example.com", apiextensionsv1.CustomResourceDefinitionNames{
		Plural: "gadgets", Singular: "gadget", ShortNames: []string{"wd"}, Kind: "Gadget", ListKind: "GadgetList"})
	otherGroup := accepted("widgets.other.com", apiextensionsv1.CustomResourceDefinitionNames{
		Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"})
	otherGroup.Spec.Group = "other.com"
	sameKind := accepted("things.example.com", apiextensionsv1.CustomResourceDefinitionNames{
		Plural: "things", Singular: "thing", Kind: "Widget", ListKind: "ThingList"})
	tests := []struct {
		name       string
		others     []*apiextensionsv1.CustomResourceDefinition
		wantStatus apiextensionsv1.ConditionStatus
		wantReason string
		wantMsg    string
		wantEst    string // the Established reason the naming controller leaves
	}{
		{"alone", nil, apiextensionsv1.ConditionTrue, ReasonNoConflicts, "no conflicts found", ReasonInstalling},
		{"other group does not count", []*apiextensionsv1.CustomResourceDefinition{otherGroup}, apiextensionsv1.ConditionTrue, ReasonNoConflicts, "no conflicts found", ReasonInstalling},
		{"short name taken", []*apiextensionsv1.CustomResourceDefinition{gadgets}, apiextensionsv1.ConditionFalse, ReasonShortNamesConflict, `"wd" is already in use`, ReasonNotAccepted},
		{"kind taken", []*apiextensionsv1.CustomResourceDefinition{sameKind}, apiextensionsv1.ConditionFalse, ReasonKindConflict, `"Widget" is already in use`, ReasonNotAccepted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crd := widgetCRD(t)
			all := append([]*apiextensionsv1.CustomResourceDefinition{crd}, tt.others...)
			names, cond, est := AcceptNames(crd, all)
			if cond.Status != tt.wantStatus || cond.Reason != tt.wantReason || cond.Message != tt.wantMsg {
				t.Errorf("NamesAccepted = %s/%s %q, want %s/%s %q", cond.Status, cond.Reason, cond.Message, tt.wantStatus, tt.wantReason, tt.wantMsg)
			}
			if est.Reason != tt.wantEst || est.Status != apiextensionsv1.ConditionFalse {
				t.Errorf("Established = %s/%s, want False/%s", est.Status, est.Reason, tt.wantEst)
			}
			if names.Plural != "widgets" {
				t.Errorf("accepted plural = %q, want widgets", names.Plural)
			}
			if tt.wantStatus == apiextensionsv1.ConditionTrue && (names.Kind != "Widget" || names.ListKind != "WidgetList" || len(names.ShortNames) != 1) {
				t.Errorf("accepted names = %+v, want all of spec.names", names)
			}
		})
	}
}

func TestAcceptNamesKeepsEstablished(t *testing.T) {
	crd := widgetCRD(t)
	crd.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{EstablishedCondition()}
	_, _, est := AcceptNames(crd, nil)
	if est.Status != apiextensionsv1.ConditionTrue || est.Reason != ReasonInitialNamesAccepted {
		t.Errorf("Established = %s/%s, want the True condition kept", est.Status, est.Reason)
	}
}
