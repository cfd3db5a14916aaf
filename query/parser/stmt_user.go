package parser

import (
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
)

// Users and roles, as in NebulaGraph:
//
//	CREATE USER [IF NOT EXISTS] name [WITH PASSWORD 'pwd']
//	ALTER USER name WITH PASSWORD 'pwd'
//	DROP USER [IF EXISTS] name
//	CHANGE PASSWORD name FROM 'old' TO 'new'
//	GRANT [ROLE] role ON space TO user
//	REVOKE [ROLE] role ON space FROM user
//	SHOW USERS
//	SHOW ROLES IN space
//	DESCRIBE USER name
//
// role is GOD, ADMIN, DBA, USER or GUEST. The keywords USER, USERS, ROLE,
// ROLES, PASSWORD and CHANGE stay usable as names; GRANT and REVOKE, which
// start statements, are reserved.

// password consumes a quoted password.
func (p *parser) password() string {
	if !p.at(lexer.String) {
		p.expected("a password in quotes")
	}
	v := p.tok().Value
	p.next()
	return v
}

// parseCreateUser parses what follows CREATE USER.
func (p *parser) parseCreateUser(pos ast.Pos) *ast.CreateUserStmt {
	s := &ast.CreateUserStmt{Pos: pos}
	s.IfNotExists = p.ifNotExists()
	s.Name = p.name("user name")
	if p.acceptKeyword("WITH") {
		p.expectKeyword("PASSWORD")
		s.Password, s.HasPassword = p.password(), true
	}
	return s
}

// parseAlterUser parses what follows ALTER USER.
func (p *parser) parseAlterUser(pos ast.Pos) *ast.AlterUserStmt {
	s := &ast.AlterUserStmt{Pos: pos}
	s.Name = p.name("user name")
	p.expectKeyword("WITH")
	p.expectKeyword("PASSWORD")
	s.Password = p.password()
	return s
}

// parseDropUser parses what follows DROP USER.
func (p *parser) parseDropUser(pos ast.Pos) *ast.DropUserStmt {
	s := &ast.DropUserStmt{Pos: pos}
	s.IfExists = p.ifExists()
	s.Name = p.name("user name")
	return s
}

func (p *parser) parseChangePassword() *ast.ChangePasswordStmt {
	s := &ast.ChangePasswordStmt{Pos: p.pos()}
	p.expectKeyword("CHANGE")
	p.expectKeyword("PASSWORD")
	s.Name = p.name("user name")
	p.expectKeyword("FROM")
	s.Old = p.password()
	p.expectKeyword("TO")
	s.New = p.password()
	return s
}

// parseRole parses [ROLE] GOD | ADMIN | DBA | USER | GUEST.
func (p *parser) parseRole() ast.Role {
	// ROLE is optional, and no role is called ROLE, so ROLE followed by a
	// role name is the keyword.
	if p.is("ROLE") && p.peek(1).Kind == lexer.Ident {
		p.next()
	}
	for r := ast.RoleGod; r <= ast.RoleGuest; r++ {
		if p.acceptKeyword(r.String()) {
			return r
		}
	}
	p.expected("a role (GOD, ADMIN, DBA, USER or GUEST)")
	return 0
}

// parseGrantRevoke parses GRANT [ROLE] role ON space TO user and
// REVOKE [ROLE] role ON space FROM user.
func (p *parser) parseGrantRevoke() ast.Statement {
	pos := p.pos()
	grant := p.is("GRANT")
	p.next()
	role := p.parseRole()
	p.expectKeyword("ON")
	space := p.name("space name")
	if grant {
		p.expectKeyword("TO")
		return &ast.GrantRoleStmt{Pos: pos, Role: role, Space: space, User: p.name("user name")}
	}
	p.expectKeyword("FROM")
	return &ast.RevokeRoleStmt{Pos: pos, Role: role, Space: space, User: p.name("user name")}
}

// parseShowUsers parses SHOW USERS and SHOW ROLES IN space, the current
// token being USERS or ROLES.
func (p *parser) parseShowUsers(pos ast.Pos) ast.Statement {
	if p.acceptKeyword("USERS") {
		return &ast.ShowUsersStmt{Pos: pos}
	}
	p.expectKeyword("ROLES")
	p.expectKeyword("IN")
	return &ast.ShowRolesStmt{Pos: pos, Space: p.name("space name")}
}
