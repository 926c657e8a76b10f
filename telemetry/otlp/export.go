package otlp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// DefaultBatchSize is how many records go in one request.
const DefaultBatchSize = 512

// Response is what a 2xx said: how many records it rejected (OTLP partial
// success) and why.
type Response struct {
	Rejected int64
	Message  string
}

// Sender delivers one encoded ExportLogsRequest, retrying as it sees fit;
// an error means the records were not acknowledged.
type Sender interface {
	Send(ctx context.Context, body []byte) (Response, error)
}

// Exporter sends what the session files of Dir hold past the cursor at
// CursorPath.
type Exporter struct {
	Dir        string // the events folder
	CursorPath string
	Endpoint   string // recorded in the cursor
	Sender     Sender
	Resource   ResourceInfo
	BatchSize  int
	Now        func() time.Time
}

// Result is what one pass did.
type Result struct {
	Sent     int       `json:"sent"`     // records acknowledged
	Damaged  int       `json:"damaged"`  // of which damaged lines
	Rejected int64     `json:"rejected"` // records a Collector said it dropped (partial success)
	Requests int       `json:"requests"` // requests acknowledged
	Restarts []Restart `json:"restarts,omitempty"`
	Messages []string  `json:"messages,omitempty"` // partial-success messages
}

// ErrLocked is another export running for the same repository and endpoint.
var ErrLocked = errors.New("another agent-shell export is running for this repository and endpoint")

// Lock takes the cursor's lock, so that two exports never send the same
// records twice; unlock releases it.
func Lock(cursorPath string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(cursorPath), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(cursorPath+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil
}

// Run exports every complete line past the cursor, file by file, in
// batches. The cursor moves past a batch only once the Collector answered
// 2xx; on an error it stays before the first record not acknowledged, so
// the next run sends it again (and nothing twice, unless a 2xx was lost).
func (x *Exporter) Run(ctx context.Context) (Result, error) {
	var res Result
	c, err := LoadCursor(x.CursorPath)
	if err != nil {
		return res, err
	}
	if c.Endpoint == "" {
		c.Endpoint = x.Endpoint
	}
	names, err := sessionFiles(x.Dir)
	if err != nil {
		return res, fmt.Errorf("list session files: %w", err)
	}
	size := x.BatchSize
	if size <= 0 {
		size = DefaultBatchSize
	}
	now := x.Now
	if now == nil {
		now = time.Now
	}
	resource := Resource{Attributes: x.Resource.Attributes()}
	var pending []Line
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		obs := now()
		recs := make([]LogRecord, len(pending))
		for i := range pending {
			recs[i] = Record(&pending[i], obs)
		}
		body, err := json.Marshal(ExportLogsRequest{ResourceLogs: []ResourceLogs{{
			Resource:  resource,
			ScopeLogs: []ScopeLogs{{Scope: Scope{Name: "agent-shell", Version: x.Resource.ServiceVersion}, LogRecords: recs}},
		}}})
		if err != nil {
			return err
		}
		resp, err := x.Sender.Send(ctx, body)
		if err != nil {
			return err
		}
		for i := range pending {
			c.Files[pending[i].File] = pending[i].advance()
			if pending[i].Event == nil {
				res.Damaged++
			}
		}
		if err := c.Save(x.CursorPath); err != nil {
			return fmt.Errorf("records sent, but the cursor was not saved (they will be sent again): %w", err)
		}
		res.Sent += len(pending)
		res.Requests++
		res.Rejected += resp.Rejected
		if resp.Message != "" {
			res.Messages = append(res.Messages, resp.Message)
		}
		pending = pending[:0]
		return nil
	}
	for _, name := range names {
		pos := c.Files[name]
		for {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			lines, restart, err := readFile(x.Dir, name, pos)
			if err != nil {
				return res, err
			}
			if restart != nil {
				res.Restarts = append(res.Restarts, *restart)
				pos = FileCursor{}
				if len(lines) == 0 {
					// Nothing to send from it: forget the stale position.
					c.Files[name] = pos
					if err := c.Save(x.CursorPath); err != nil {
						return res, err
					}
				}
			}
			if len(lines) == 0 {
				break
			}
			for _, l := range lines {
				pending = append(pending, l)
				if len(pending) >= size {
					if err := flush(); err != nil {
						return res, err
					}
				}
			}
			pos = lines[len(lines)-1].advance()
		}
	}
	return res, flush()
}
