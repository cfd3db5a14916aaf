package exec

import (
	"strings"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
)

// foldVolatile prepares an expression that storaged will evaluate (UPDATE's
// SET, WHEN and YIELD, LOOKUP's filter): storaged must not evaluate a
// non-deterministic call, since replicas (and retries) would disagree, so
// graphd evaluates each such call once, here, and ships its value as a
// literal. The call's arguments must then be constant. Random functions
// (rand, rand32, rand64) are folded only when random is true: folding
// changes rand() < 0.5 from a per-row coin into one coin for the whole
// statement, which is right for the one row of an UPDATE but not for the
// rows of a LOOKUP. The clock functions read the clock once per statement,
// which is what a user means by now().
func foldVolatile(e ast.Expr, random bool, what string) (ast.Expr, error) {
	if e == nil || eval.IsDeterministic(e) {
		return e, nil
	}
	return rewrite(e, func(x ast.Expr) (ast.Expr, error) {
		c, ok := x.(*ast.FuncCall)
		if !ok || !eval.IsVolatileCall(c) {
			return nil, nil
		}
		if !random && strings.HasPrefix(strings.ToLower(c.Name), "rand") {
			return nil, at(c, "%s: %s is random per row, which storage cannot evaluate here", what, c)
		}
		v, err := eval.Eval(nil, c)
		if err != nil {
			return nil, at(c, "%s: %s is not deterministic, so graphd evaluates it once, but: %v", what, c, err)
		}
		return &ast.Literal{Pos: c.Pos, Value: v}, nil
	})
}
