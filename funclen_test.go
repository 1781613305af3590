package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the house limit on a function's length, its signature
// and closing brace included (docs/architecture.md, "Rules the tests keep").
const maxFuncLines = 80

// TestFunctionsAreShort: no function or method outside tests is longer
// than maxFuncLines, so each can be read at once.
func TestFunctionsAreShort(t *testing.T) {
	var files int
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		for _, long := range longFuncs(t, path) {
			t.Error(long)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files, want the whole tree", files)
	}
}

// longFuncs lists the functions of a Go file longer than maxFuncLines,
// as "file:line: name is N lines".
func longFuncs(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return nil
	}
	var long []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
		if n := end.Line - start.Line + 1; n > maxFuncLines {
			long = append(long, fmt.Sprintf("%s:%d: %s is %d lines, over %d", path, start.Line, fd.Name.Name, n, maxFuncLines))
		}
	}
	return long
}
