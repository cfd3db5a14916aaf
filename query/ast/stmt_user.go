package ast

import "github.com/novagraph/novagraph/query/value"

// Role is a user's role on a space, as in NebulaGraph, most privileged
// first. GOD is root's alone; it parses so that granting it can fail with a
// clear message.
type Role uint8

// Roles.
const (
	RoleGod Role = iota + 1
	RoleAdmin
	RoleDBA
	RoleUser
	RoleGuest
)

func (r Role) String() string {
	switch r {
	case RoleGod:
		return "GOD"
	case RoleAdmin:
		return "ADMIN"
	case RoleDBA:
		return "DBA"
	case RoleUser:
		return "USER"
	case RoleGuest:
		return "GUEST"
	}
	return "?"
}

// CreateUserStmt is CREATE USER [IF NOT EXISTS] name [WITH PASSWORD 'pwd'].
// Without a password the user's password is empty.
type CreateUserStmt struct {
	Pos
	IfNotExists bool
	Name        string
	Password    string
	HasPassword bool
}

// AlterUserStmt is ALTER USER name WITH PASSWORD 'pwd'.
type AlterUserStmt struct {
	Pos
	Name     string
	Password string
}

// DropUserStmt is DROP USER [IF EXISTS] name.
type DropUserStmt struct {
	Pos
	IfExists bool
	Name     string
}

// ChangePasswordStmt is CHANGE PASSWORD name FROM 'old' TO 'new'.
type ChangePasswordStmt struct {
	Pos
	Name string
	Old  string
	New  string
}

// GrantRoleStmt is GRANT [ROLE] role ON space TO user.
type GrantRoleStmt struct {
	Pos
	Role  Role
	Space string
	User  string
}

// RevokeRoleStmt is REVOKE [ROLE] role ON space FROM user.
type RevokeRoleStmt struct {
	Pos
	Role  Role
	Space string
	User  string
}

// ShowUsersStmt is SHOW USERS.
type ShowUsersStmt struct {
	Pos
}

// ShowRolesStmt is SHOW ROLES IN space.
type ShowRolesStmt struct {
	Pos
	Space string
}

// DescribeUserStmt is DESCRIBE | DESC USER name.
type DescribeUserStmt struct {
	Pos
	Name string
}

func (*CreateUserStmt) stmtNode()     {}
func (*AlterUserStmt) stmtNode()      {}
func (*DropUserStmt) stmtNode()       {}
func (*ChangePasswordStmt) stmtNode() {}
func (*GrantRoleStmt) stmtNode()      {}
func (*RevokeRoleStmt) stmtNode()     {}
func (*ShowUsersStmt) stmtNode()      {}
func (*ShowRolesStmt) stmtNode()      {}
func (*DescribeUserStmt) stmtNode()   {}

// quotePassword prints a password as a string literal.
func quotePassword(p string) string { return value.Str(p).String() }

func (s *CreateUserStmt) String() string {
	out := "CREATE USER "
	if s.IfNotExists {
		out += "IF NOT EXISTS "
	}
	out += QuoteName(s.Name)
	if s.HasPassword {
		out += " WITH PASSWORD " + quotePassword(s.Password)
	}
	return out
}

func (s *AlterUserStmt) String() string {
	return "ALTER USER " + QuoteName(s.Name) + " WITH PASSWORD " + quotePassword(s.Password)
}

func (s *DropUserStmt) String() string {
	if s.IfExists {
		return "DROP USER IF EXISTS " + QuoteName(s.Name)
	}
	return "DROP USER " + QuoteName(s.Name)
}

func (s *ChangePasswordStmt) String() string {
	return "CHANGE PASSWORD " + QuoteName(s.Name) + " FROM " + quotePassword(s.Old) + " TO " + quotePassword(s.New)
}

func (s *GrantRoleStmt) String() string {
	return "GRANT ROLE " + s.Role.String() + " ON " + QuoteName(s.Space) + " TO " + QuoteName(s.User)
}

func (s *RevokeRoleStmt) String() string {
	return "REVOKE ROLE " + s.Role.String() + " ON " + QuoteName(s.Space) + " FROM " + QuoteName(s.User)
}

func (*ShowUsersStmt) String() string      { return "SHOW USERS" }
func (s *ShowRolesStmt) String() string    { return "SHOW ROLES IN " + QuoteName(s.Space) }
func (s *DescribeUserStmt) String() string { return "DESCRIBE USER " + QuoteName(s.Name) }
