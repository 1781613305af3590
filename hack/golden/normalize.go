package main

func normalize(text string) string { return text }
