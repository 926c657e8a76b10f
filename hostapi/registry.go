package hostapi

import "sort"

// adapters are the hosts agent-shell speaks to, by name. Each adapter's
// file registers itself.
var adapters = map[string]func(getenv func(string) string) Adapter{}

func register(name string, mk func(getenv func(string) string) Adapter) { adapters[name] = mk }

// ByName returns the adapter for a host, configured from its environment.
func ByName(name string, getenv func(string) string) (Adapter, bool) {
	mk, ok := adapters[name]
	if !ok {
		return nil, false
	}
	return mk(getenv), true
}

// Names lists the hosts with an adapter, sorted.
func Names() []string {
	names := make([]string, 0, len(adapters))
	for n := range adapters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
