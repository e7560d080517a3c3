package capability

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// targetJSON is the JSON of a [Target]: the shape the exported fields had.
type targetJSON struct {
	Host string `json:"host"`
	Port uint16 `json:"port"`
}

// MarshalJSON writes {"host":"example.com","port":443}: the bytes
// encoding/json wrote when Target's fields were exported. A normalised
// host holds only letters, digits, '-', '_', '.' and ':', none of which
// JSON escapes, so it is written as it is.
func (t Target) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(`{"host":"","port":65535}`)+len(t.host))
	b = append(b, `{"host":"`...)
	b = append(b, t.host...)
	b = append(b, `","port":`...)
	b = strconv.AppendUint(b, uint64(t.port), 10)
	return append(b, '}'), nil
}

// UnmarshalJSON reads {"host": …, "port": …} (the keys as encoding/json
// matches struct fields; null leaves t as it is) and keeps the target only
// if it is one [NewTarget] would build without changing it: the host
// already in normal form ([NormalizeHost] returns it unchanged) and the
// port 1–65535; a host and port both absent or zero give the zero Target.
// Anything else is refused, with an error wrapping [ErrInvalidHost] or
// [ErrInvalidPort] that does not quote the host: a file (an audit line)
// never yields a Target nobody normalised, nor one read differently from
// what was written.
func (t *Target) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	v := targetJSON{Host: t.host, Port: t.port}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	if v == (targetJSON{}) {
		*t = Target{}
		return nil
	}
	if v.Port == 0 {
		return fmt.Errorf("%w: the target has no port", ErrInvalidPort)
	}
	h, err := NormalizeHost(v.Host)
	if err != nil {
		return fmt.Errorf("%w: the target's host is not a valid host", ErrInvalidHost)
	}
	if h != v.Host {
		return fmt.Errorf("%w: the target's host is not in normal form", ErrInvalidHost)
	}
	*t = Target{host: h, port: v.Port}
	return nil
}
