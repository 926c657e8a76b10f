// Package lazy holds values built on first use. A package-level Value with
// a New function that captures nothing is laid out by the compiler, so it
// costs nothing at package initialisation, which every hook call pays
// (sync.OnceValue allocates its closures there).
package lazy

import "sync"

// Value is New's result, built on the first Get.
type Value[T any] struct {
	once sync.Once
	v    T
	New  func() T
}

// Get returns the value, building it on the first call.
func (l *Value[T]) Get() T {
	l.once.Do(func() { l.v = l.New() })
	return l.v
}
