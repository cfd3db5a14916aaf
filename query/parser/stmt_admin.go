package parser

import (
	"math"
	"strconv"
	"strings"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
)

func (p *parser) parseCreate() ast.Statement {
	pos := p.pos()
	p.next()
	switch {
	case p.acceptKeyword("SPACE"):
		return p.parseCreateSpace(pos)
	case p.acceptKeyword("TAG"):
		if p.acceptKeyword("INDEX") {
			return p.parseCreateIndex(pos, ast.TagSchema)
		}
		return p.parseCreateSchema(pos, ast.TagSchema)
	case p.acceptKeyword("EDGE"):
		if p.acceptKeyword("INDEX") {
			return p.parseCreateIndex(pos, ast.EdgeSchema)
		}
		return p.parseCreateSchema(pos, ast.EdgeSchema)
	case p.acceptKeyword("USER"):
		return p.parseCreateUser(pos)
	case p.acceptKeyword("SNAPSHOT"):
		return &ast.SnapshotStmt{Pos: pos}
	}
	p.expected("SPACE, TAG, EDGE, USER or SNAPSHOT")
	return nil
}

// ifNotExists consumes an optional IF NOT EXISTS.
func (p *parser) ifNotExists() bool {
	if !p.acceptKeyword("IF") {
		return false
	}
	p.expectKeyword("NOT")
	p.expectKeyword("EXISTS")
	return true
}

// ifExists consumes an optional IF EXISTS.
func (p *parser) ifExists() bool {
	if !p.acceptKeyword("IF") {
		return false
	}
	p.expectKeyword("EXISTS")
	return true
}

// positiveInt consumes an integer literal in [1, MaxInt32] (the range of the
// catalog's int32 fields), failing with "<what> must be ...".
func (p *parser) positiveInt(what string) int {
	return p.intInRange(what, 1, math.MaxInt32)
}

func (p *parser) intInRange(what string, lo, hi int64) int {
	return int(p.int64InRange(what, lo, hi))
}

// int64InRange consumes an integer literal in [lo, hi], where lo >= 0,
// failing with "expected <what>" or "<what> must be ...". A negative number
// fails with the range message.
func (p *parser) int64InRange(what string, lo, hi int64) int64 {
	rangeMsg := what + " must be an integer from " + strconv.FormatInt(lo, 10) + " to " + strconv.FormatInt(hi, 10)
	if p.at(lexer.Minus) && p.peek(1).Kind == lexer.Int {
		p.fail(rangeMsg)
	}
	if !p.at(lexer.Int) {
		p.expected(what)
	}
	n, err := parseIntText(p.tok().Text)
	if err != nil || n < lo || n > hi {
		p.fail(rangeMsg)
	}
	p.next()
	return n
}

func (p *parser) parseCreateSpace(pos ast.Pos) *ast.CreateSpaceStmt {
	s := &ast.CreateSpaceStmt{
		Pos:           pos,
		PartitionNum:  ast.DefaultPartitionNum,
		ReplicaFactor: ast.DefaultReplicaFactor,
		VIDType:       ast.VIDType{Kind: ast.VIDFixedString, Len: ast.DefaultVIDLen},
	}
	s.IfNotExists = p.ifNotExists()
	s.Name = p.name("space name")
	if !p.accept(lexer.LParen) {
		return s
	}
	var seen []string
	p.parseList(lexer.RParen, func() {
		opt := strings.ToLower(p.tok().Value)
		if p.tok().Kind != lexer.Ident || (opt != "partition_num" && opt != "replica_factor" && opt != "vid_type") {
			p.expected("partition_num, replica_factor or vid_type")
		}
		for _, o := range seen {
			if o == opt {
				p.fail("duplicate option " + opt)
			}
		}
		seen = append(seen, opt)
		p.next()
		p.expect(lexer.Assign)
		switch opt {
		case "partition_num":
			s.PartitionNum = p.positiveInt("partition_num")
		case "replica_factor":
			s.ReplicaFactor = p.positiveInt("replica_factor")
		case "vid_type":
			s.VIDType = p.parseVIDType()
		}
	})
	return s
}

// parseVIDType parses INT64 (or INT) or FIXED_STRING(N).
func (p *parser) parseVIDType() ast.VIDType {
	switch {
	case p.acceptKeyword("INT64"), p.acceptKeyword("INT"):
		return ast.VIDType{Kind: ast.VIDInt64}
	case p.acceptKeyword("FIXED_STRING"):
		p.expect(lexer.LParen)
		n := p.positiveInt("FIXED_STRING length")
		p.expect(lexer.RParen)
		return ast.VIDType{Kind: ast.VIDFixedString, Len: n}
	}
	p.expected("INT64 or FIXED_STRING(N)")
	return ast.VIDType{}
}

// parseDrop parses DROP SPACE, DROP TAG | EDGE, DROP TAG | EDGE INDEX and
// DROP USER.
func (p *parser) parseDrop() ast.Statement {
	pos := p.pos()
	p.next()
	var kind ast.SchemaKind
	switch {
	case p.acceptKeyword("SPACE"):
		s := &ast.DropSpaceStmt{Pos: pos}
		s.IfExists = p.ifExists()
		s.Name = p.name("space name")
		return s
	case p.acceptKeyword("TAG"):
		kind = ast.TagSchema
	case p.acceptKeyword("EDGE"):
		kind = ast.EdgeSchema
	case p.acceptKeyword("USER"):
		return p.parseDropUser(pos)
	case p.acceptKeyword("HOSTS"):
		return p.parseDropHosts(pos)
	case p.acceptKeyword("SNAPSHOT"):
		s := &ast.SnapshotStmt{Pos: pos, Drop: true}
		s.IfExists = p.ifExists()
		s.Name = p.name("snapshot name")
		return s
	default:
		p.expected("SPACE, TAG, EDGE, USER, HOSTS or SNAPSHOT")
	}
	if p.acceptKeyword("INDEX") {
		return p.parseDropIndex(pos, kind)
	}
	s := &ast.DropSchemaStmt{Pos: pos, Kind: kind}
	s.IfExists = p.ifExists()
	s.Name = p.name(schemaWhat(kind))
	return s
}

func (p *parser) parseShow() ast.Statement {
	s := &ast.ShowStmt{Pos: p.pos()}
	p.next()
	switch {
	case p.is("USERS"), p.is("ROLES"):
		return p.parseShowUsers(s.Pos)
	case p.is("JOBS"), p.is("JOB"):
		return p.parseShowJobs(s.Pos)
	case p.is("SPACES"):
		s.Target = ast.ShowSpaces
	case p.is("HOSTS"):
		s.Target = ast.ShowHosts
		// SHOW HOSTS META lists the metad addresses this graphd uses (the
		// importer finds metad, and through it the partition leaders,
		// from a graphd address); SHOW HOSTS [STORAGE] the storage hosts.
		switch {
		case p.peek(1).Is("META"):
			p.next()
			s.Target = ast.ShowHostsMeta
		case p.peek(1).Is("STORAGE"):
			p.next()
		}
	case p.is("PARTS"):
		s.Target = ast.ShowParts
	case p.is("TAGS"):
		s.Target = ast.ShowTags
	case p.is("EDGES"):
		s.Target = ast.ShowEdges
	case p.is("TAG"), p.is("EDGE"):
		s.Target = ast.ShowTagIndexes
		if p.is("EDGE") {
			s.Target = ast.ShowEdgeIndexes
		}
		p.next()
		if !p.is("INDEXES") {
			p.expected("INDEXES")
		}
	case p.is("QUERIES"):
		s.Target = ast.ShowQueries
	case p.is("LOCAL") && p.peek(1).Is("QUERIES"):
		p.next()
		s.Target = ast.ShowLocalQueries
	case p.is("LOCAL") && p.peek(1).Is("SESSIONS"):
		p.next()
		s.Target = ast.ShowLocalSessions
	case p.is("SESSIONS"):
		s.Target = ast.ShowSessions
	case p.is("STATS"):
		s.Target = ast.ShowStats
	case p.is("SNAPSHOTS"):
		s.Target = ast.ShowSnapshots
	case p.is("CREATE"):
		d := p.parseDescribe()
		ds, ok := d.(*ast.DescribeStmt)
		if !ok {
			p.fail("SHOW CREATE USER is not supported by novagraph")
		}
		ds.Pos, ds.ShowCreate = s.Pos, true
		return ds
	default:
		p.expected("SPACES, HOSTS, PARTS, TAGS, EDGES, TAG INDEXES, EDGE INDEXES, QUERIES, SESSIONS, STATS, USERS, ROLES or CREATE")
	}
	p.next()
	return s
}

func (p *parser) parseDescribe() ast.Statement {
	s := &ast.DescribeStmt{Pos: p.pos()}
	p.next()
	what := ""
	switch {
	case p.acceptKeyword("USER"):
		return &ast.DescribeUserStmt{Pos: s.Pos, Name: p.name("user name")}
	case p.is("SPACE"):
		s.Target, what = ast.DescribeSpace, "space name"
	case p.is("TAG"):
		s.Target, what = ast.DescribeTag, "tag name"
		if p.peek(1).Is("INDEX") {
			p.next()
			s.Target, what = ast.DescribeTagIndex, "index name"
		}
	case p.is("EDGE"):
		s.Target, what = ast.DescribeEdge, "edge name"
		if p.peek(1).Is("INDEX") {
			p.next()
			s.Target, what = ast.DescribeEdgeIndex, "index name"
		}
	default:
		p.expected("SPACE, TAG, EDGE or USER")
	}
	p.next()
	s.Name = p.name(what)
	return s
}

func (p *parser) parseCreateSchema(pos ast.Pos, kind ast.SchemaKind) *ast.CreateSchemaStmt {
	s := &ast.CreateSchemaStmt{Pos: pos, Kind: kind}
	s.IfNotExists = p.ifNotExists()
	s.Name = p.name(schemaWhat(kind))
	p.expect(lexer.LParen)
	p.parseList(lexer.RParen, func() { s.Props = append(s.Props, p.parsePropDef()) })
	s.TTL = p.parseTTLOptions()
	return s
}

// parseTTLOptions parses TTL_DURATION = n and TTL_COL = "prop" (or a bare
// name), separated by commas, in any order and each at most once. It
// returns nil unless the current token starts one.
func (p *parser) parseTTLOptions() *ast.TTLOptions {
	if !p.is("TTL_DURATION") && !p.is("TTL_COL") && !p.is("COMMENT") {
		return nil
	}
	o := &ast.TTLOptions{Pos: p.pos()}
	for {
		switch {
		case p.is("TTL_DURATION"):
			if o.HasDuration {
				p.fail("duplicate TTL_DURATION")
			}
			p.next()
			p.expect(lexer.Assign)
			o.Duration = p.int64InRange("TTL_DURATION", 0, math.MaxInt64)
			o.HasDuration = true
		case p.is("TTL_COL"):
			if o.HasCol {
				p.fail("duplicate TTL_COL")
			}
			p.next()
			p.expect(lexer.Assign)
			if p.at(lexer.String) {
				o.Col = p.tok().Value
				p.next()
			} else {
				o.Col = p.name("a property name or string after TTL_COL =")
			}
			o.HasCol = true
		case p.is("COMMENT"):
			if o.HasComment {
				p.fail("duplicate COMMENT")
			}
			p.next()
			p.expect(lexer.Assign)
			if !p.at(lexer.String) {
				p.expected("a string after COMMENT =")
			}
			o.Comment, o.HasComment = p.tok().Value, true
			p.next()
		default:
			p.expected("TTL_DURATION, TTL_COL or COMMENT")
		}
		if !p.accept(lexer.Comma) {
			return o
		}
	}
}

// parseAlter parses
//
//	ALTER TAG | EDGE name alter_op [, alter_op ...] [[,] ttl_options]
//	ALTER TAG | EDGE name ttl_options
//	ALTER USER name WITH PASSWORD 'pwd'
func (p *parser) parseAlter() ast.Statement {
	s := &ast.AlterSchemaStmt{Pos: p.pos()}
	p.next()
	switch {
	case p.acceptKeyword("TAG"):
		s.Kind = ast.TagSchema
	case p.acceptKeyword("EDGE"):
		s.Kind = ast.EdgeSchema
	case p.acceptKeyword("USER"):
		return p.parseAlterUser(s.Pos)
	default:
		p.expected("TAG, EDGE or USER")
	}
	s.Name = p.name(schemaWhat(s.Kind))
	for !p.is("TTL_DURATION") && !p.is("TTL_COL") && !p.is("COMMENT") {
		s.Ops = append(s.Ops, p.parseAlterOp())
		if !p.accept(lexer.Comma) {
			break
		}
	}
	s.TTL = p.parseTTLOptions()
	return s
}

// parseAlterOp parses ADD (prop_def, ...), CHANGE (prop_def, ...) or
// DROP (name, ...); the lists hold at least one entry.
func (p *parser) parseAlterOp() *ast.AlterOp {
	op := &ast.AlterOp{Pos: p.pos()}
	switch {
	case p.acceptKeyword("ADD"):
		op.Kind = ast.AlterAdd
	case p.acceptKeyword("DROP"):
		op.Kind = ast.AlterDrop
	case p.acceptKeyword("CHANGE"):
		op.Kind = ast.AlterChange
	default:
		p.expected("ADD, DROP, CHANGE, TTL_DURATION or TTL_COL")
	}
	p.expect(lexer.LParen)
	for {
		if op.Kind == ast.AlterDrop {
			op.Names = append(op.Names, p.name("property name"))
		} else {
			op.Props = append(op.Props, p.parsePropDef())
		}
		if !p.accept(lexer.Comma) {
			break
		}
	}
	if !p.accept(lexer.RParen) {
		p.expected("',' or ')'")
	}
	return op
}

// parsePropDef parses name type followed by NULL, NOT NULL, DEFAULT expr and
// COMMENT 'text' in any order, each at most once.
func (p *parser) parsePropDef() *ast.PropDef {
	d := &ast.PropDef{Pos: p.pos(), Nullable: true}
	d.Name = p.name("property name")
	d.Type = p.parsePropType()
	var sawNull, sawDefault, sawComment bool
	once := func(seen *bool, what string) {
		if *seen {
			p.fail("duplicate " + what)
		}
		*seen = true
	}
	for {
		switch {
		case p.is("NULL"):
			once(&sawNull, "NULL or NOT NULL")
			p.next()
		case p.is("NOT"):
			once(&sawNull, "NULL or NOT NULL")
			p.next()
			p.expectKeyword("NULL")
			d.Nullable = false
		case p.is("DEFAULT"):
			once(&sawDefault, "DEFAULT")
			p.next()
			d.Default = p.parseExpr()
		case p.is("COMMENT"):
			once(&sawComment, "COMMENT")
			p.next()
			if !p.at(lexer.String) {
				p.expected("a string after COMMENT")
			}
			d.Comment = p.tok().Value
			p.next()
		default:
			return d
		}
	}
}

// parsePropType parses a property type. The sized integer types all store
// as INT64 and float as DOUBLE (the row codec has one integer and one
// floating-point width); their declared width is kept, for the range check
// on write and for DESCRIBE.
func (p *parser) parsePropType() ast.PropType {
	var t ast.PropType
	switch {
	case p.is("INT"), p.is("INT64"):
		t.Kind = ast.PropInt64
	case p.is("INT32"):
		t = ast.PropType{Kind: ast.PropInt64, Bits: 32}
	case p.is("INT16"):
		t = ast.PropType{Kind: ast.PropInt64, Bits: 16}
	case p.is("INT8"):
		t = ast.PropType{Kind: ast.PropInt64, Bits: 8}
	case p.is("FLOAT"):
		t = ast.PropType{Kind: ast.PropDouble, Float32: true}
	case p.is("DOUBLE"):
		t.Kind = ast.PropDouble
	case p.is("BOOL"):
		t.Kind = ast.PropBool
	case p.is("STRING"):
		t.Kind = ast.PropString
	case p.is("TIMESTAMP"):
		t.Kind = ast.PropTimestamp
	case p.is("DATE"):
		t.Kind = ast.PropDate
	case p.is("TIME"):
		t.Kind = ast.PropTime
	case p.is("DATETIME"):
		t.Kind = ast.PropDateTime
	case p.is("DURATION"):
		t.Kind = ast.PropDuration
	case p.is("FIXED_STRING"):
		p.next()
		p.expect(lexer.LParen)
		t = ast.PropType{Kind: ast.PropFixedString, Len: p.positiveInt("FIXED_STRING length")}
		p.expect(lexer.RParen)
		return t
	default:
		p.expected("a property type (int, float, double, bool, string, fixed_string(N), timestamp, date, time, datetime or duration)")
	}
	p.next()
	return t
}
