package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"testing"
)

// funcRef is a reference in docs/architecture.md: `dir/file.go:Func` or
// `dir/file.go:Type.Method`.
var funcRef = regexp.MustCompile("`([a-z0-9_/]+\\.go):([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)?)`")

// TestArchitectureFunctionsExist: every function docs/architecture.md
// names, as file:function, is declared in that file (a method with its
// receiver's type), so the map of who performs and who records each
// stage cannot go stale.
func TestArchitectureFunctionsExist(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	refs := funcRef.FindAllStringSubmatch(string(doc), -1)
	if len(refs) < 20 {
		t.Fatalf("found %d file:function references, want the stage table's and more", len(refs))
	}
	decls := map[string]map[string]bool{}
	for _, r := range refs {
		file, name := r[1], r[2]
		if decls[file] == nil {
			decls[file] = declaredFuncs(t, file)
		}
		if !decls[file][name] {
			t.Errorf("docs/architecture.md names %s:%s, which %s does not declare", file, name, file)
		}
	}
}

// declaredFuncs lists the functions of a Go file: "Func" and
// "Type.Method".
func declaredFuncs(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Errorf("docs/architecture.md names %s: %v", path, err)
		return map[string]bool{}
	}
	out := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			name = receiverType(fd.Recv.List[0].Type) + "." + name
		}
		out[name] = true
	}
	return out
}

// receiverType is the type name of a receiver: T for T, *T or T[P].
func receiverType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverType(x.X)
	case *ast.IndexExpr:
		return receiverType(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}
