package discover

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/agent-shell/agent-shell/policy"
)

// safetyPackBlock is the proposal's [[pack]] entry, as Merge adds it.
const safetyPackBlock = `
# The built-in safety pack: what is dangerous anywhere (agent-shell pack show safety).
[[pack]]
name = "safety"
options = { level = "standard" }
`

// Merge adds to an existing manifest (at path) what the proposal has and it
// lacks: the safety pack, and each rule whose id it does not use yet. The
// existing text is kept as it is, comments and all, and what is added
// follows it; the user's [policy] stays theirs, and notes say where it
// differs from the proposal. The result must load, or Merge fails.
func Merge(path string, existing []byte, prop Proposal) (merged []byte, notes []string, err error) {
	m, err := policy.ParseManifest(path, existing)
	if err != nil {
		return nil, nil, fmt.Errorf("the existing %s does not load, so nothing is merged into it: %w", path, err)
	}
	mine := map[string]*policy.Rule{}
	for _, r := range m.Rules {
		mine[r.ID] = r
	}
	proposed := map[string]*policy.Rule{}
	if pm, err := policy.ParseManifest(path, prop.Manifest); err == nil {
		for _, r := range pm.Rules {
			proposed[r.ID] = r
		}
	}
	hasSafety := false
	for _, p := range m.Packs {
		hasSafety = hasSafety || p.Name == "safety"
	}
	var b strings.Builder
	b.Write(existing)
	if len(existing) > 0 && !strings.HasSuffix(string(existing), "\n") {
		b.WriteString("\n")
	}
	if !hasSafety {
		b.WriteString(safetyPackBlock)
	}
	added := 0
	for _, r := range prop.Rules {
		if have := mine[r.ID]; have != nil {
			// Said only when it decides otherwise than the proposal's.
			if want := proposed[r.ID]; want == nil || have.Action != want.Action || !reflect.DeepEqual(have.Match, want.Match) {
				notes = append(notes, fmt.Sprintf("rule %s is yours and differs from the proposal's: kept as it is", r.ID))
			}
			continue
		}
		if added == 0 {
			b.WriteString("\n# Proposed by `agent-shell policy --init`.\n")
		}
		added++
		b.WriteString("\n")
		b.WriteString(r.Text)
	}
	if m.Policy.Default != policy.ActionAsk {
		notes = append(notes, fmt.Sprintf("[policy] default = %q is yours and was kept; the proposal asks about commands no rule matches (default = \"ask\")", m.Policy.Default))
	}
	out := []byte(b.String())
	if _, err := policy.ParseManifest(path, out); err != nil {
		return nil, nil, fmt.Errorf("the merged manifest would not load, so nothing is written: %w", err)
	}
	return out, notes, nil
}
