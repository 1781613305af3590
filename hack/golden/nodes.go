package main

import (
	"regexp"
)

// tieLine says the scheduler drew a node among several.
var tieLine = regexp.MustCompile(`(?m)^ *(?:a tie: \d+ nodes|平分：\d+ 个节点)`)

// nodeLine is a line of a scheduling attempt, one per node, once the
// node's name is blanked.
var nodeLine = regexp.MustCompile(`^ {4}[ *] node-<n> `)

// nodeName, nodeIP and podIP are a numbered node's name (node-2), its IP
// (192.168.0.12) and an IP of its pod range (10.244.2.7).
var (
	nodeName = regexp.MustCompile(`node-\d+\b`)
	nodeIP   = regexp.MustCompile(`\b192\.168\.0\.\d+\b`)
	podIP    = regexp.MustCompile(`\b10\.244\.\d+\.\d+\b`)
)

// blankDrawnNodes blanks the numbered nodes of s when s has a tie.
func blankDrawnNodes(s string) string {
	if !tieLine.MatchString(s) {
		return s
	}
	s = nodeName.ReplaceAllString(s, "node-<n>")
	s = nodeIP.ReplaceAllString(s, "192.168.0.<n>")
	s = podIP.ReplaceAllString(s, "10.244.<n>.<n>")
	return sortRuns(s, nodeLine)
}
