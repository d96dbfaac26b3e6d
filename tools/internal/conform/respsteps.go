package conform

import "fmt"

// A respStep is one command of a RESP check with what its reply must be.
// Most replies are fixed bytes; some vary from run to run (a TTL counting
// down, a random key) and are checked for their range or form, so that a
// check mixing both is still one list of steps.
type respStep func(c *Conn) error

// ex is a command whose reply must be want, byte for byte.
func ex(want string, args ...string) respStep {
	return func(c *Conn) error { return c.CommandExpect(want, args...) }
}

// intIn is a command whose reply must be an integer in lo..hi.
func intIn(lo, hi int64, args ...string) respStep {
	return func(c *Conn) error { return c.CommandIntIn(lo, hi, args...) }
}

// form is a command whose reply ok must accept; want describes that form
// in a mismatch.
func form(want string, ok func(got []byte) bool, args ...string) respStep {
	return func(c *Conn) error { return c.expectForm(want, ok, args...) }
}

// because is s with its failure prefixed by what the step shows, for a
// reply whose meaning a bare mismatch would not tell.
func because(what string, s respStep) respStep {
	return func(c *Conn) error {
		if err := s(c); err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
		return nil
	}
}

// steps runs steps in order, stopping at the first that fails.
func (c *Conn) steps(ss ...respStep) error {
	for _, s := range ss {
		if err := s(c); err != nil {
			return err
		}
	}
	return nil
}

// freshSteps is the Run of a check that is nothing but steps: it dials,
// deletes keys (as fresh does, whatever the DEL answers) so that each
// starts missing, then runs steps in order.
func freshSteps(keys []string, steps ...respStep) func(e *Env) error {
	return dialed(func(e *Env, c *Conn) error {
		for _, k := range keys {
			c.fresh(k)
		}
		return c.steps(steps...)
	})
}

// expectForm sends args and checks that the reply has a form that ok
// accepts, for replies whose bytes vary from run to run; want describes
// that form in a mismatch.
func (c *Conn) expectForm(want string, ok func(got []byte) bool, args ...string) error {
	req, got, err := c.CommandReply(args...)
	if err != nil {
		return err
	}
	if !ok(got) {
		return &Mismatch{Request: req, Want: []byte(want), Got: got, e: c.e}
	}
	return nil
}
