package advisor

// CheckRequirement compiles a requirement as --require reads it against
// the environment's keys, without running anything, so that a caller
// holding many (a review file) can say which one is wrong.
func (e *Env) CheckRequirement(text string) error {
	_, err := e.compileRequirement(text)
	return err
}
