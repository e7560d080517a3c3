package testio

// Endless is a reader that never ends: every Read fills p with 'x'. A
// body with no end, for the bounds that must stop it.
type Endless struct{}

// Read fills p and never fails.
func (Endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}
