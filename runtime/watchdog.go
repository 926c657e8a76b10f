package runtime

import (
	"fmt"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Budget is what one process allows all its script runs together. Starlark
// has no allocation accounting and a builtin call is one step, so limits
// checked between steps cannot hold alone: a watchdog goroutine, started by
// a process's first run, checks the process's memory and every run's time
// while runs are active. Past a limit it cancels the run, which stops at
// its next step and fails like any script failure. A run that does not
// stop (one step that runs on, or a process past its deadline) is a
// runaway: Runaway answers for the process and exits.
type Budget struct {
	// Memory bounds the process's resident memory, in bytes. Runs are
	// cancelled when the memory in use passes 7/8 of it: the rest is for
	// the runtime itself and what a run builds before the watchdog looks
	// again.
	Memory uint64
	// Deadline is when the process must be done; zero for none.
	Deadline time.Time
	// Runaway is called once, from the watchdog, and must not return: it
	// answers in the caller's protocol and exits. Nil prints the reason and
	// exits 1.
	Runaway func(reason string)
}

// DefaultMemory is the memory budget of a process that sets none.
const DefaultMemory = 256 << 20

const (
	// watchTick is how often the watchdog looks while runs are active.
	watchTick = 5 * time.Millisecond
	// stopGrace is how long a cancelled run has to reach its next step.
	stopGrace = 250 * time.Millisecond
)

var watchdog = struct {
	mu      sync.Mutex
	budget  Budget
	runs    map[*run]struct{}
	wake    chan struct{}
	started bool
}{budget: Budget{Memory: DefaultMemory}, runs: map[*run]struct{}{}, wake: make(chan struct{}, 1)}

// SetBudget sets the process's budget for every run from now on.
func SetBudget(b Budget) {
	if b.Memory == 0 {
		b.Memory = DefaultMemory
	}
	watchdog.mu.Lock()
	watchdog.budget = b
	if watchdog.started {
		debug.SetMemoryLimit(int64(b.Memory / 8 * 7))
	}
	watchdog.mu.Unlock()
}

// watched runs call (the thread's Call or Init) with r known to the
// watchdog, which starts with the process's first run.
func watched[T any](r *run, call func() (T, error)) (T, error) {
	watchdog.mu.Lock()
	watchdog.runs[r] = struct{}{}
	if !watchdog.started {
		watchdog.started = true
		// The runtime gives back garbage before the budget is reached, so
		// that only what a script keeps counts against it.
		debug.SetMemoryLimit(int64(watchdog.budget.Memory / 8 * 7))
		go watch()
	}
	watchdog.mu.Unlock()
	select {
	case watchdog.wake <- struct{}{}:
	default:
	}
	defer func() {
		watchdog.mu.Lock()
		delete(watchdog.runs, r)
		watchdog.mu.Unlock()
	}()
	return call()
}

// watch is the watchdog: idle while no run is active, else a look every
// watchTick.
func watch() {
	for {
		watchdog.mu.Lock()
		idle := len(watchdog.runs) == 0
		watchdog.mu.Unlock()
		if idle {
			<-watchdog.wake
			continue
		}
		time.Sleep(watchTick)
		if reason := look(time.Now(), memoryInUse()); reason != "" {
			runaway(reason)
		}
	}
}

// look cancels the active runs past their time or the memory budget, and
// says why the process is a runaway, if it is.
func look(now time.Time, mem uint64) string {
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	b := watchdog.budget
	if !b.Deadline.IsZero() && now.After(b.Deadline) && len(watchdog.runs) > 0 {
		return "a script was still running at the deadline"
	}
	for r := range watchdog.runs {
		switch {
		case mem > b.Memory/8*7:
			r.stop(&r.outOfMemory, now, fmt.Sprintf("the process went past its %d MiB memory budget", b.Memory>>20))
		case now.After(r.deadline):
			r.stop(&r.timedOut, now, fmt.Sprintf("timeout after %s", r.timeout))
		}
		if at := r.stoppedAt.Load(); at != 0 && now.Sub(time.Unix(0, at)) > stopGrace {
			return fmt.Sprintf("script %s did not stop within %s of being cancelled (%s)", r.thread.Name, stopGrace, r.stopReason)
		}
	}
	return ""
}

// memoryInUse is the memory the Go runtime has in use: heap spans and
// stacks, which is what the process keeps resident less what it has freed
// and not yet returned (freed memory must not stop the next run).
// ReadMemStats stops the world for microseconds; it runs only while a
// script does.
func memoryInUse() uint64 {
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return ms.HeapInuse + ms.StackInuse
}

func runaway(reason string) {
	watchdog.mu.Lock()
	f := watchdog.budget.Runaway
	watchdog.mu.Unlock()
	if f != nil {
		f(reason)
	}
	fmt.Fprintf(os.Stderr, "agent-shell: %s\n", reason)
	os.Exit(1)
}

// stop cancels the run once, marking why; called with watchdog.mu held.
func (r *run) stop(flag *atomic.Bool, now time.Time, reason string) {
	if r.stoppedAt.Load() != 0 {
		return
	}
	flag.Store(true)
	r.stopReason = reason
	r.stoppedAt.Store(now.UnixNano())
	r.thread.Cancel(reason)
}
