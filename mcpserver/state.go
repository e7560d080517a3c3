package mcpserver

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// stateTTL bounds how long a question put to the user stays answerable.
const stateTTL = 15 * time.Minute

// callState is what a call carries from one round of the multi round-trip
// protocol to the next, as the opaque requestState the client echoes.
type callState struct {
	// Root is the workspace root chosen in an earlier round ("" if none).
	Root string `json:"root,omitempty"`
	// Target is the "host:port" the approval question was about.
	Target string `json:"target,omitempty"`
	// Args is the SHA-256 of the call's arguments: state and answers are
	// honoured only for the very call they were issued for.
	Args string `json:"args"`
	// Expires is a Unix time after which the state is ignored.
	Expires int64 `json:"exp"`
}

// stateSigner seals request state with an HMAC under a key that lives as
// long as the process, as the protocol asks of servers without
// authentication: a client cannot forge a state, and cannot replay one for
// other arguments or after it expires.
type stateSigner struct {
	key [32]byte
	now func() time.Time
}

func newStateSigner() (*stateSigner, error) {
	s := &stateSigner{now: time.Now}
	if _, err := rand.Read(s.key[:]); err != nil {
		return nil, fmt.Errorf("mcpserver: state key: %w", err)
	}
	return s, nil
}

func argsDigest(args string) string {
	sum := sha256.Sum256([]byte(args))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func (s *stateSigner) mac(payload string) string {
	m := hmac.New(sha256.New, s.key[:])
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// seal returns st bound to args, signed.
func (s *stateSigner) seal(st callState, args string) string {
	st.Args = argsDigest(args)
	st.Expires = s.now().Add(stateTTL).Unix()
	data, _ := json.Marshal(st) // strings and an integer: cannot fail
	payload := base64.RawURLEncoding.EncodeToString(data)
	return payload + "." + s.mac(payload)
}

// open verifies sealed and returns its state if it was issued by this
// process for exactly these arguments and has not expired.
func (s *stateSigner) open(sealed, args string) (callState, bool) {
	payload, sig, ok := strings.Cut(sealed, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(s.mac(payload))) {
		return callState{}, false
	}
	data, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return callState{}, false
	}
	var st callState
	if err := json.Unmarshal(data, &st); err != nil {
		return callState{}, false
	}
	if st.Args != argsDigest(args) || s.now().Unix() > st.Expires {
		return callState{}, false
	}
	return st, true
}
