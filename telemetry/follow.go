package telemetry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"syscall"
)

// maxFollowRead bounds what one Poll reads of one file; the rest waits for
// the next Poll.
const maxFollowRead = 8 << 20

// Follower reads what is appended to session files: the complete lines
// past where it last read each, the matching ones decoded. A torn last line
// waits until the writer ends it.
type Follower struct {
	filter  *filter
	offsets map[string]int64
}

// NewFollower starts at the current end of each of files; a file it has not
// seen (a new session) is read from its start.
func NewFollower(f Filter, files []string) *Follower {
	fl := &Follower{filter: newFilter(f), offsets: map[string]int64{}}
	for _, p := range files {
		if f, err := openSessionFile(p, syscall.O_RDONLY); err == nil {
			if fi, err := f.Stat(); err == nil {
				fl.offsets[p] = fi.Size()
			}
			f.Close()
		}
	}
	return fl
}

// Poll reads what was appended to files since the last Poll and emits the
// matching events in time order; damaged lines are counted in the returned
// damage.
func (fl *Follower) Poll(files []string, emit func(*Record) error) ([]Damage, error) {
	var damage []Damage
	var recs []*Record
	for _, p := range files {
		d, err := fl.pollFile(p, func(r *Record) error {
			recs = append(recs, r)
			return nil
		})
		if d.Count > 0 {
			d.File = p
			damage = append(damage, d)
		}
		if err != nil {
			return damage, err
		}
	}
	// Sessions written at once: merge them by time, each in its own order.
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Event.Timestamp.Before(recs[j].Event.Timestamp) })
	for _, r := range recs {
		if err := emit(r); err != nil {
			return damage, err
		}
	}
	return damage, nil
}

func (fl *Follower) pollFile(p string, emit func(*Record) error) (Damage, error) {
	var dmg Damage
	f, err := openSessionFile(p, syscall.O_RDONLY)
	if err != nil {
		return dmg, nil // gone, or not a regular file: nothing to follow there
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return dmg, nil
	}
	off := fl.offsets[p]
	if fi.Size() < off {
		off = 0 // replaced by a shorter file: read it anew
	}
	if fi.Size() == off {
		fl.offsets[p] = off
		return dmg, nil
	}
	data := make([]byte, min(fi.Size()-off, maxFollowRead))
	n, err := f.ReadAt(data, off)
	if err != nil && err != io.EOF {
		return dmg, fmt.Errorf("read %s: %w", p, err)
	}
	data = data[:n]
	last := bytes.LastIndexByte(data, '\n')
	if last < 0 {
		return dmg, nil // no complete line yet
	}
	fl.offsets[p] = off + int64(last) + 1
	var sc Scanner
	var lf LineFields
	for num, line := range bytes.Split(data[:last], []byte("\n")) {
		if err := sc.Scan(line, &lf); err != nil {
			dmg.add(num+1, err.Error())
			continue
		}
		if !fl.filter.match(&lf) {
			continue
		}
		ev := new(Event)
		if err := json.Unmarshal(line, ev); err != nil {
			dmg.add(num+1, "not an event: "+err.Error())
			continue
		}
		if err := emit(&Record{File: p, Raw: line, Event: ev}); err != nil {
			return dmg, err
		}
	}
	return dmg, nil
}
