package main

import (
	"bytes"
	"os"
	"testing"
)

func TestUseColor(t *testing.T) {
	a := newApp(nil, &bytes.Buffer{}, &bytes.Buffer{})
	a.getenv = func(string) string { return "" }
	if a.useColor() {
		t.Error("colour for a buffer")
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a.stdout = f
	if a.useColor() {
		t.Error("colour for a regular file")
	}
}
