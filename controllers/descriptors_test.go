package controllers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestControllerDescriptorNames: the manager runs these controllers, in
// kube-controller-manager's order, under these names. The names are the
// service accounts the API server's bootstrap policy gives each
// controller's role to, so a renamed controller would lose its rights.
func TestControllerDescriptorNames(t *testing.T) {
	want := []string{
		EndpointsControllerName, EndpointSliceControllerName, ReplicationControllerName, PodGCControllerName, ResourceQuotaControllerName,
		NamespaceControllerName, ServiceAccountControllerName, GarbageCollectorName, DaemonSetControllerName,
		JobControllerName, DeploymentControllerName, ReplicaSetControllerName, HPAControllerName,
		DisruptionControllerName, StatefulSetControllerName, CronJobControllerName, CertificateControllerName, NodeControllerName,
		PersistentVolumeBinderName, ClusterRoleAggregationControllerName, PVCProtectionControllerName, PVProtectionControllerName,
		TTLAfterFinishedControllerName, RootCACertPublisherName, LocalPathProvisionerName,
	}
	var got []string
	for _, d := range newControllerDescriptors() {
		got = append(got, d.name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("controllers %v, want %v", got, want)
	}
}

// TestCheckedDescriptorsRefuses: a name given twice, an empty name or a
// missing build func is refused when the list is made.
func TestCheckedDescriptorsRefuses(t *testing.T) {
	ok := newPodGCControllerDescriptor()
	tests := []struct {
		name string
		ds   []controllerDescriptor
	}{
		{"twice", []controllerDescriptor{ok, newServiceAccountControllerDescriptor(), ok}},
		{"no name", []controllerDescriptor{{workers: ok.workers, build: ok.build}}},
		{"no build", []controllerDescriptor{{name: "x-controller", workers: ok.workers}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			checkedDescriptors(tt.ds...)
		})
	}
}

// TestEveryControllerIsListed reads the package's source: every type
// with a Run method (but Manager) is made by its New<Type> in a
// descriptor that newControllerDescriptors lists, and every descriptor
// func is listed. A controller added to the package without a place in
// the list fails here.
func TestEveryControllerIsListed(t *testing.T) {
	funcs := parsePackageFuncs(t)
	listed := calledNames(funcs["newControllerDescriptors"])
	built := map[string]bool{}
	for name, fn := range funcs {
		if fn.Recv != nil || !strings.HasPrefix(name, "new") || !strings.HasSuffix(name, "Descriptor") {
			continue
		}
		if !listed[name] {
			t.Errorf("%s is not in newControllerDescriptors", name)
		}
		for called := range calledNames(fn) {
			built[called] = true
		}
	}
	for _, typ := range runnableTypes(funcs) {
		if !built["New"+typ] {
			t.Errorf("%s has a Run method, but no listed descriptor calls New%s", typ, typ)
		}
	}
}

// parsePackageFuncs returns the functions and methods of the package's
// non-test files, by name (methods as Type.Name).
func parsePackageFuncs(t *testing.T) map[string]*ast.FuncDecl {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]*ast.FuncDecl{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok {
				out[funcKey(fn)] = fn
			}
		}
	}
	if out["newControllerDescriptors"] == nil {
		t.Fatal("no newControllerDescriptors in the package")
	}
	return out
}

// funcKey is fn's name, Type.Name for a method.
func funcKey(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	return receiverType(fn) + "." + fn.Name.Name
}

func receiverType(fn *ast.FuncDecl) string {
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// calledNames are the plain identifiers fn calls.
func calledNames(fn *ast.FuncDecl) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(fn, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok {
				out[id.Name] = true
			}
		}
		return true
	})
	return out
}

// runnableTypes are the types with a Run method, but Manager.
func runnableTypes(funcs map[string]*ast.FuncDecl) []string {
	var out []string
	for _, fn := range funcs {
		if fn.Recv != nil && fn.Name.Name == "Run" && receiverType(fn) != "Manager" {
			out = append(out, receiverType(fn))
		}
	}
	slices.Sort(out)
	return out
}
