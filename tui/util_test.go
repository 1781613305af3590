package tui

import "strings"

func splitLines(s string) []string { return strings.Split(s, "\n") }
