package scenarios

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/flow"
)

// nodeError is a problem found at a node of a scenario file by code that
// does not know what messages call the node (a value's UnmarshalYAML, a
// parser reading its own key's value). The loader makes it a *FileError
// (scope.fileError): at at's line and column, its message msg after the
// name of the node of.
type nodeError struct {
	at, of *yaml.Node
	msg    string
}

func (e *nodeError) Error() string { return e.msg }

// errAt returns a *nodeError at n, about n.
func errAt(n *yaml.Node, format string, args ...any) error {
	return &nodeError{at: n, of: n, msg: fmt.Sprintf(format, args...)}
}

// errAbout returns a *nodeError at at, about of: at is a key of mapping
// of ("unknown field"), or the key of field of ("is not namespaced").
func errAbout(of, at *yaml.Node, format string, args ...any) error {
	return &nodeError{at: at, of: of, msg: fmt.Sprintf(format, args...)}
}

// scope is a node a part of a scenario file is read from (the file's
// top mapping, a step, an action's or an expectation's value, a
// question), with what messages call it: self for the node itself, and
// prefix (if not empty) before the path of a node below it. A path is
// the keys down to the node joined by '.', an item of a list as [i]
// (from 0): cluster.nodes[1].cpu.
type scope struct {
	node         *yaml.Node
	self, prefix string
}

// keyScope is the scope of n, the value of key: messages call n key and
// the nodes below it key.path.
func keyScope(n *yaml.Node, key string) scope { return scope{n, key, key} }

// fileError turns err, from reading s's node in file, into a *FileError:
// a *nodeError gets its node's position and name, a *yaml.TypeError
// (yaml.v3's own, with lines only) the position and name of the first
// node on its line. A *FileError is returned as it is, other errors as
// one at s's node.
func (s scope) fileError(file string, err error) error {
	var ne *nodeError
	var te *yaml.TypeError
	var fe *FileError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe):
		return err
	case errors.As(err, &ne):
		return &FileError{File: file, Line: ne.at.Line, Col: ne.at.Column, Msg: s.name(ne.of) + ": " + ne.msg}
	case errors.As(err, &te) && len(te.Errors) > 0:
		line, msg := splitYAMLLine(te.Errors[0])
		n := firstOnLine(s.node, line)
		return &FileError{File: file, Line: n.Line, Col: n.Column, Msg: s.name(n) + ": " + msg}
	}
	return &FileError{File: file, Line: s.node.Line, Col: s.node.Column, Msg: s.self + ": " + strings.TrimPrefix(err.Error(), "yaml: ")}
}

// name is what messages call n, a node of s: s.self for s's node (or a
// node not below it), else the path from s's node after s.prefix.
func (s scope) name(n *yaml.Node) string {
	p, ok := pathTo(s.node, n)
	switch {
	case !ok || p == "":
		return s.self
	case s.prefix == "":
		return p
	}
	return joinPath(s.prefix, p)
}

// pathTo returns the path from n down to target (see scope); the path
// of a key is its value's. ok is false when target is not n nor below it.
func pathTo(n, target *yaml.Node) (path string, ok bool) {
	if n == target {
		return "", true
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := flow.Printable(n.Content[i].Value)
			if n.Content[i] == target {
				return key, true
			}
			if p, ok := pathTo(n.Content[i+1], target); ok {
				return joinPath(key, p), true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if p, ok := pathTo(c, target); ok {
				return joinPath("["+strconv.Itoa(i)+"]", p), true
			}
		}
	}
	return "", false
}

// joinPath returns path head followed by rest, a path below it.
func joinPath(head, rest string) string {
	if rest == "" || strings.HasPrefix(rest, "[") {
		return head + rest
	}
	return head + "." + rest
}

// firstOnLine returns the first node under n (n itself included) on
// line, n if none is.
func firstOnLine(n *yaml.Node, line int) *yaml.Node {
	if n.Line == line {
		return n
	}
	for _, c := range n.Content {
		if f := firstOnLine(c, line); f.Line == line {
			return f
		}
	}
	return n
}

var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// splitYAMLLine splits a message of yaml.v3 ("yaml: line 3: did not
// find expected key") into its line (1 when it names none) and the rest.
func splitYAMLLine(msg string) (int, string) {
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return line, m[2]
	}
	return 1, strings.TrimPrefix(msg, "yaml: ")
}

// yamlError turns a syntax error of the YAML parser into a *FileError;
// at maps a line of the parsed text to the file's line and column.
func yamlError(file string, err error, at func(int) (int, int)) error {
	line, msg := splitYAMLLine(err.Error())
	l, c := at(line)
	return &FileError{File: file, Line: l, Col: c, Msg: "invalid YAML: " + msg}
}

// describe says what kind of value n is, for messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		return "a number (" + flow.Printable(n.Value) + ")"
	case "!!bool":
		return "a boolean (" + flow.Printable(n.Value) + ")"
	case "!!null":
		return "nothing"
	}
	return fmt.Sprintf("a string (%q)", n.Value)
}

// kindOfNode says what kind of value n is, without its value.
func kindOfNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode, yaml.AliasNode:
		return describe(n)
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "nothing"
	}
	return "a string"
}
