package parser

import (
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
)

// Host management, as in NebulaGraph 3.x:
//
//	ADD HOSTS "host":port [, "host":port ...]
//	DROP HOSTS "host":port [, "host":port ...]
//
// SHOW HOSTS is parsed with the other SHOW statements. HOSTS stays usable
// as a name.

// parseAddHosts parses ADD HOSTS host_list.
func (p *parser) parseAddHosts() *ast.AddHostsStmt {
	s := &ast.AddHostsStmt{Pos: p.pos()}
	p.expectKeyword("ADD")
	p.expectKeyword("HOSTS")
	s.Hosts = p.hostList()
	return s
}

// parseDropHosts parses what follows DROP HOSTS.
func (p *parser) parseDropHosts(pos ast.Pos) *ast.DropHostsStmt {
	return &ast.DropHostsStmt{Pos: pos, Hosts: p.hostList()}
}

// hostList parses "host":port [, "host":port ...].
func (p *parser) hostList() []ast.HostAddr {
	var hosts []ast.HostAddr
	for {
		if !p.at(lexer.String) {
			p.expected(`a host as "host":port`)
		}
		h := ast.HostAddr{Host: p.tok().Value}
		if h.Host == "" {
			p.fail("the host name is empty")
		}
		p.next()
		p.expect(lexer.Colon)
		if !p.at(lexer.Int) {
			p.expected("a port number")
		}
		port, err := parseUintText(p.tok().Text)
		if err != nil || port < 1 || port > 65535 {
			p.fail("a port must be in [1, 65535]")
		}
		h.Port = int(port)
		p.next()
		hosts = append(hosts, h)
		if !p.accept(lexer.Comma) {
			return hosts
		}
	}
}
