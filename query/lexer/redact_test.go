package lexer

import "testing"

func TestRedactSecrets(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`CREATE USER bob WITH PASSWORD 's3cret'`, `CREATE USER bob WITH PASSWORD '***'`},
		{`alter user bob with password "x\"y"; SHOW USERS`, `alter user bob with password '***'; SHOW USERS`},
		{`CHANGE PASSWORD bob FROM 'old' TO 'new'`, `CHANGE PASSWORD bob FROM '***' TO '***'`},
		{`CREATE USER bob WITH PASSWORD 'unterminated`, `CREATE USER bob WITH PASSWORD '***'`},
		// No PASSWORD keyword: strings are data and stay.
		{`INSERT VERTEX t(a) VALUES 1:("password")`, `INSERT VERTEX t(a) VALUES 1:("password")`},
		{`GO FROM "a" OVER e YIELD e.password`, `GO FROM "a" OVER e YIELD e.password`},
		{`GO FROM "a" OVER e YIELD "x"`, `GO FROM "a" OVER e YIELD "x"`},
		// The keyword in any case, and under Unicode case folding (ſ is an
		// s), is found past the fast check for the word.
		{`CREATE USER bob WITH PaSsWoRd 's3cret'`, `CREATE USER bob WITH PaSsWoRd '***'`},
		{"CREATE USER bob WITH PA\u017f\u017fWORD 's3cret'", "CREATE USER bob WITH PA\u017f\u017fWORD '***'"},
		{"CREATE USER bob WITH PASSWOR", "CREATE USER bob WITH PASSWOR"},
	} {
		if got := RedactSecrets(tc.in); got != tc.want {
			t.Errorf("RedactSecrets(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
