package conform

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"example.com/byor/tools/internal/chapters"
)

// Stage is one chapter's checks: the chapter, as the registry lists it,
// and the protocol it adds, whose properties say how the stage talks to
// the server.
type Stage struct {
	*chapters.Info
	Proto chapters.Protocol
	// extra returns the stage's own checks beyond the shared ones.
	extra func(st *Stage, cfg *Config) []Check
}

// Check is one thing checked against the server.
type Check struct {
	Name    string
	Section string // "" means the stage's
	Hint    string
	// Fresh: the check needs an empty key space. Under -server the
	// server is restarted for it; otherwise it is skipped, unless
	// FreshOptional says it can run (less strictly) on a shared one.
	Fresh         bool
	FreshOptional bool
	// Slow: it waits several seconds by design.
	Slow    bool
	Timeout time.Duration
	// Unverified: the expected value (of the newer edition) rests on a
	// single source, so a mismatch is reported but does not fail.
	Unverified bool
	// Skip, if set, is why the check does not apply.
	Skip string
	Run  func(e *Env) error
}

// extras are the stages' own checks, by chapter.
var extras = map[string]func(st *Stage, cfg *Config) []Check{
	"ch08": resizeChecks,
	"ch11": zsetChecks,
	"ch12": idleChecks,
	"ch13": ttlChecks,
	"ch14": poolChecks,
	"ch15": hardChecks,
	"ch16": fieldTTLChecks,
	"ch17": outputChecks,
	"ch21": resp21Checks,
	"ch22": resp22Checks,
	"ch23": respChecks,
	"ch24": respCommandChecks,
	"ch25": scanChecks,
	"ch26": resp26Checks,
	"ch27": resp27Checks,
	"ch28": resp28Checks,
	"ch29": resp29Checks,
	"ch30": resp30Checks,
	"ch31": resp31Checks,
	"ch32": resp32Checks,
	"ch33": resp33Checks,
	"ch34": rdbChecks,
	"ch35": bgsaveChecks,
	"ch36": rewriteChecks,
	"ch37": resp37Checks,
	"ch38": resp38Checks,
}

// stages are built from the chapter registry: one per chapter with a
// server, checking the protocol that chapter adds.
var stages = func() []*Stage {
	var out []*Stage
	for _, ch := range chapters.All() {
		out = append(out, &Stage{Info: ch, Proto: ch.Newest(), extra: extras[ch.ID]})
	}
	return out
}()

// Stages returns every stage, in chapter order.
func Stages() []*Stage { return stages }

// StageIDs returns the stage ids in chapter order.
func StageIDs() []string {
	var ids []string
	for _, st := range stages {
		ids = append(ids, st.ID)
	}
	return ids
}

// StageByID returns the stage with id, or nil.
func StageByID(id string) *Stage {
	if i := slices.IndexFunc(stages, func(st *Stage) bool { return st.ID == id }); i >= 0 {
		return stages[i]
	}
	return nil
}

// Plan is what -upto runs: the stages a server of one chapter can pass,
// and the earlier ones left out, with why.
type Plan struct {
	IDs     []string // the stages to run, in order
	Skipped []string // the earlier stages left out
	Why     string   // why they are left out ("" if none are)
}

// UpTo returns the stages a server of chapter id should pass: from the
// first stage that speaks id's wire format up to id. The earlier stages,
// of other formats, are listed as skipped, with the reason.
func UpTo(id string) (*Plan, error) {
	target := StageByID(id)
	if target == nil {
		return nil, fmt.Errorf("unknown stage %q (known: %s)", id, strings.Join(StageIDs(), " "))
	}
	p := &Plan{}
	for _, st := range stages {
		if st.Num > target.Num {
			break
		}
		if st.Proto == target.Proto {
			p.IDs = append(p.IDs, st.ID)
		} else {
			p.Skipped = append(p.Skipped, st.ID)
		}
	}
	if len(p.Skipped) > 0 {
		first := p.IDs[0]
		p.Why = fmt.Sprintf("the wire format changes at %s: a %s server speaks %s, which the stages before %s do not",
			first, id, target.Proto, first)
		if target.Proto == chapters.RESP {
			p.Why += fmt.Sprintf(" (check a chapter %d server's book listener, -addr, with -upto ch20)", target.Num)
		}
	}
	return p, nil
}

// Family returns the ids of the stages that speak the same wire format as
// stage id, up to and including it.
func Family(id string) []string {
	p, err := UpTo(id)
	if err != nil {
		return nil
	}
	return p.IDs
}

// Checks returns the stage's checks for cfg, in the order they run.
func (st *Stage) Checks(cfg *Config) []Check {
	out := sessionChecks(st, cfg)
	switch {
	case st.Proto == chapters.Hello:
		// The session is the whole wire of chapter 03.
	case st.Proto.TextMessages():
		out = append(out, echoChecks(st, cfg)...)
	case st.Proto == chapters.RESP:
		// Its checks are all the stage's own.
	default:
		out = append(out, commandChecks(st, cfg)...)
	}
	if st.extra != nil {
		out = append(out, st.extra(st, cfg)...)
	}
	if cfg.Edition == EditionNewer {
		for i := range out {
			if out[i].Unverified {
				out[i].Name += " [newer edition: unverified]"
			}
		}
	}
	return out
}
