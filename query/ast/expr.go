package ast

import (
	"strings"

	"github.com/novagraph/novagraph/query/value"
)

// Literal is a constant: an int, float, string, bool or NULL. A minus sign
// directly before a number is part of the literal, so -1 is Literal{-1}
// (and -9223372036854775808 is representable).
type Literal struct {
	Pos
	Value value.Value
}

// ListExpr is a list literal, [a, b, c]; its items may be any expressions.
type ListExpr struct {
	Pos
	Items []Expr
}

// MapExpr is a map literal, {name: "Tim", age: 40 + 2}: keys are distinct
// (the parser rejects a repeated one) and kept in source order; the
// values may be any expressions.
type MapExpr struct {
	Pos
	Items []MapItem
}

// MapItem is one key: value of a MapExpr.
type MapItem struct {
	Key   string
	Value Expr
}

// UnaryOp is the operator of a UnaryExpr.
type UnaryOp uint8

// Unary operators.
const (
	OpNeg        UnaryOp = iota + 1 // -x
	OpPlus                          // +x
	OpNot                           // NOT x, !x
	OpIsNull                        // x IS NULL
	OpIsNotNull                     // x IS NOT NULL
	OpIsEmpty                       // x IS EMPTY
	OpIsNotEmpty                    // x IS NOT EMPTY
)

// UnaryExpr applies a prefix operator (or the postfix IS [NOT] NULL) to X.
// Pos is the operator's position (of IS for IS [NOT] NULL).
type UnaryExpr struct {
	Pos
	Op UnaryOp
	X  Expr
}

// BinaryOp is the operator of a BinaryExpr.
type BinaryOp uint8

// Binary operators, grouped as the evaluator treats them.
const (
	// Arithmetic.
	OpAdd BinaryOp = iota + 1
	OpSub
	OpMul
	OpDiv
	OpMod
	// Comparison and the other three-valued predicates.
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpIn
	OpNotIn
	OpContains
	OpStartsWith
	OpEndsWith
	OpNotContains
	OpNotStartsWith
	OpNotEndsWith
	// Logic.
	OpAnd
	OpOr
	OpXor
	// Came with MATCH: a regular-expression match (the whole string),
	// and bitwise and / exclusive or of integers.
	OpRegex
	OpBitAnd
	OpBitXor
)

// String is the operator as nGQL spells it.
func (op BinaryOp) String() string {
	switch op {
	case OpAdd:
		return "+"
	case OpSub:
		return "-"
	case OpMul:
		return "*"
	case OpDiv:
		return "/"
	case OpMod:
		return "%"
	case OpEq:
		return "=="
	case OpNe:
		return "!="
	case OpLt:
		return "<"
	case OpLe:
		return "<="
	case OpGt:
		return ">"
	case OpGe:
		return ">="
	case OpIn:
		return "IN"
	case OpNotIn:
		return "NOT IN"
	case OpContains:
		return "CONTAINS"
	case OpStartsWith:
		return "STARTS WITH"
	case OpEndsWith:
		return "ENDS WITH"
	case OpNotContains:
		return "NOT CONTAINS"
	case OpNotStartsWith:
		return "NOT STARTS WITH"
	case OpNotEndsWith:
		return "NOT ENDS WITH"
	case OpAnd:
		return "AND"
	case OpOr:
		return "OR"
	case OpXor:
		return "XOR"
	case OpRegex:
		return "=~"
	case OpBitAnd:
		return "&"
	case OpBitXor:
		return "^"
	}
	return "?"
}

// IsLogical reports whether op is AND, OR or XOR.
func (op BinaryOp) IsLogical() bool { return op == OpAnd || op == OpOr || op == OpXor }

// BinaryExpr is L op R. Pos is the operator's position.
type BinaryExpr struct {
	Pos
	Op   BinaryOp
	L, R Expr
}

// FuncCall is name(args). The parser accepts any name; the validator and
// evaluator decide which functions exist. src(edge), dst(edge), rank(edge),
// type(edge), id($$) and id($^) are calls like any other, with an EdgeExpr
// or VertexExpr argument.
type FuncCall struct {
	Pos
	Name string // as written; function names are case-insensitive
	Args []Expr
}

// LabelExpr is a bare name in an expression. nGQL gives it no meaning on its
// own (a property needs edge.prop or $$.tag.prop); the parser keeps it so
// that the validator can report "invalid label" with its position.
type LabelExpr struct {
	Pos
	Name string
}

// EdgePropExpr is name.prop: in GO and FETCH PROP ON an edge, a property of
// the row's edge, named by its edge type; Prop may be one of the reserved
// names _src, _dst, _rank and _type. In FETCH PROP ON tags the same syntax
// names a property of a tag (player.name), which the grammar cannot tell
// apart, so it is this node too and the executor resolves Edge as a tag.
type EdgePropExpr struct {
	Pos
	Edge, Prop string
}

// SrcPropExpr is $^.tag.prop: a property of the vertex a GO step leaves from.
type SrcPropExpr struct {
	Pos
	Tag, Prop string
}

// DstPropExpr is $$.tag.prop: a property of the vertex a GO step reaches.
type DstPropExpr struct {
	Pos
	Tag, Prop string
}

// InputPropExpr is $-.col: a column of the statement piped into this one.
type InputPropExpr struct {
	Pos
	Col string
}

// VarPropExpr is $var.col: a column of the result assigned to $var.
type VarPropExpr struct {
	Pos
	Var, Col string
}

// ParamExpr is $name with no .col after it: the query parameter name,
// sent by the client with the statement (NebulaGraph 3's parameterized
// queries). $name.col is a VarPropExpr, whatever name is.
type ParamExpr struct {
	Pos
	Name string
}

// EdgeExpr is the keyword EDGE in an expression: the edge of the current
// row as a whole, as in src(edge) or properties(edge).
type EdgeExpr struct {
	Pos
}

// VertexRole says which vertex a VertexExpr stands for.
type VertexRole uint8

// Vertex roles.
const (
	SrcVertex VertexRole = iota + 1 // $^: the vertex a GO step leaves from
	DstVertex                       // $$: the vertex a GO step reaches
	RowVertex                       // VERTEX: the vertex of a FETCH PROP ON tags row
)

// VertexExpr is $^, $$ or the keyword VERTEX standing alone, as in id($$)
// or properties(vertex): a vertex of the current row as a whole.
type VertexExpr struct {
	Pos
	Role VertexRole
}

// AttributeExpr is X.Name where X is not a plain name (those are
// EdgePropExpr), e.g. properties(edge).degree.
type AttributeExpr struct {
	Pos
	X    Expr
	Name string
}

// SubscriptExpr is X[Index], e.g. a list element.
type SubscriptExpr struct {
	Pos
	X, Index Expr
}

func (*Literal) exprNode()       {}
func (*ListExpr) exprNode()      {}
func (*MapExpr) exprNode()       {}
func (*UnaryExpr) exprNode()     {}
func (*BinaryExpr) exprNode()    {}
func (*FuncCall) exprNode()      {}
func (*LabelExpr) exprNode()     {}
func (*EdgePropExpr) exprNode()  {}
func (*SrcPropExpr) exprNode()   {}
func (*DstPropExpr) exprNode()   {}
func (*InputPropExpr) exprNode() {}
func (*VarPropExpr) exprNode()   {}
func (*ParamExpr) exprNode()     {}
func (*EdgeExpr) exprNode()      {}
func (*VertexExpr) exprNode()    {}
func (*AttributeExpr) exprNode() {}
func (*SubscriptExpr) exprNode() {}

// String methods. NebulaGraph parenthesises every operator application and
// writes arithmetic and comparison operators without spaces, e.g. (a+1),
// ((a>1) AND (b<2)), -(x), !(x); column names depend on it.

func (e *Literal) String() string  { return e.Value.String() }
func (e *ListExpr) String() string { return "[" + joinNodes(e.Items, ",") + "]" }

// String prints {k:v,...} in source order, as NebulaGraph prints a map
// expression; a key that is not an identifier is a quoted string.
func (e *MapExpr) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, item := range e.Items {
		if i > 0 {
			b.WriteByte(',')
		}
		value.FormatKey(&b, item.Key)
		b.WriteByte(':')
		b.WriteString(item.Value.String())
	}
	b.WriteByte('}')
	return b.String()
}

func (e *UnaryExpr) String() string {
	switch e.Op {
	case OpNeg:
		return "-(" + e.X.String() + ")"
	case OpPlus:
		return "+(" + e.X.String() + ")"
	case OpNot:
		return "!(" + e.X.String() + ")"
	case OpIsNull:
		return "(" + e.X.String() + " IS NULL)"
	case OpIsNotNull:
		return "(" + e.X.String() + " IS NOT NULL)"
	case OpIsEmpty:
		return "(" + e.X.String() + " IS EMPTY)"
	case OpIsNotEmpty:
		return "(" + e.X.String() + " IS NOT EMPTY)"
	}
	return "?(" + e.X.String() + ")"
}

func (e *BinaryExpr) String() string {
	l, r := e.L.String(), e.R.String()
	switch e.Op {
	case OpAdd, OpSub, OpMul, OpDiv, OpMod, OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		if e.Op == OpSub && strings.HasPrefix(r, "-") {
			// "--" would start a comment.
			return "(" + l + "- " + r + ")"
		}
		return "(" + l + e.Op.String() + r + ")"
	}
	return "(" + l + " " + e.Op.String() + " " + r + ")"
}

func (e *FuncCall) String() string { return e.Name + "(" + joinNodes(e.Args, ",") + ")" }

func (e *LabelExpr) String() string    { return QuoteName(e.Name) }
func (e *EdgePropExpr) String() string { return QuoteName(e.Edge) + "." + QuoteName(e.Prop) }
func (e *SrcPropExpr) String() string  { return "$^." + QuoteName(e.Tag) + "." + QuoteName(e.Prop) }
func (e *DstPropExpr) String() string  { return "$$." + QuoteName(e.Tag) + "." + QuoteName(e.Prop) }
func (e *InputPropExpr) String() string {
	return "$-." + QuoteName(e.Col)
}
func (e *VarPropExpr) String() string { return "$" + e.Var + "." + QuoteName(e.Col) }
func (e *ParamExpr) String() string   { return "$" + e.Name }
func (e *EdgeExpr) String() string    { return "EDGE" }

func (e *VertexExpr) String() string {
	switch e.Role {
	case DstVertex:
		return "$$"
	case RowVertex:
		return "VERTEX"
	}
	return "$^"
}

func (e *AttributeExpr) String() string { return e.X.String() + "." + QuoteName(e.Name) }
func (e *SubscriptExpr) String() string { return e.X.String() + "[" + e.Index.String() + "]" }
