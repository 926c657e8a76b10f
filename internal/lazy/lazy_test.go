package lazy

import "testing"

var calls int

var table = Value[map[string]int]{New: func() map[string]int { calls++; return map[string]int{"a": 1} }}

func TestBuiltOnceOnFirstGet(t *testing.T) {
	if calls != 0 {
		t.Fatalf("built at package initialisation")
	}
	for range 3 {
		if table.Get()["a"] != 1 {
			t.Fatal("wrong value")
		}
	}
	if calls != 1 {
		t.Fatalf("built %d times", calls)
	}
}
