package policy

import (
	"bytes"
	"encoding/json"
	"testing"
)

// jsonCanon is how ConfigDigest wrote policy.json's lists before
// policyFileCanon: the digests of configurations already authorized.
func jsonCanon(pf *PolicyFile) []byte {
	b, _ := json.Marshal(struct {
		Allow    []string `json:"allow"`
		HasAllow bool     `json:"has_allow"`
		Deny     []string `json:"deny"`
	}{pf.Allow, pf.HasAllow, pf.Deny})
	return b
}

func TestPolicyFileCanonIsJSONMarshal(t *testing.T) {
	tricky := []string{"", "rm -rf *", `say "hi"`, `a\b`, "<script>&amp;</script>", "tab\there\nnew\rline",
		"\b\f\x00\x01\x1f\x7f", "caf\u00e9 \u2028 \u2029 \U0001F600", "bad \xff\xfe utf8 \xe2\x82", "\xed\xa0\x80 surrogate"}
	cases := []*PolicyFile{
		{},
		{Allow: []string{}, Deny: []string{}},
		{Allow: []string{"git *"}, HasAllow: true},
		{Allow: tricky, HasAllow: true, Deny: tricky},
		{Deny: tricky[3:]},
	}
	for _, pf := range cases {
		if got, want := policyFileCanon(pf), jsonCanon(pf); !bytes.Equal(got, want) {
			t.Errorf("policyFileCanon(%q, %v, %q)\n got %s\nwant %s", pf.Allow, pf.HasAllow, pf.Deny, got, want)
		}
	}
}

func FuzzPolicyFileCanon(f *testing.F) {
	f.Add("git *", "rm -rf <x> & \"y\"", true)
	f.Add("\xff\u2028\b", "", false)
	f.Fuzz(func(t *testing.T, allow, deny string, hasAllow bool) {
		pf := &PolicyFile{Allow: []string{allow, deny}, HasAllow: hasAllow, Deny: []string{deny}}
		if got, want := policyFileCanon(pf), jsonCanon(pf); !bytes.Equal(got, want) {
			t.Fatalf("policyFileCanon differs from json.Marshal:\n got %s\nwant %s", got, want)
		}
	})
}
