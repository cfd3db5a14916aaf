package compose

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// docker drives the compose cluster through the docker and docker-compose
// command lines, the same commands an operator would type. Every call has
// a deadline: a wedged docker daemon must fail the run, not hang it.
type docker struct {
	project string // docker-compose project name
	dir     string // deploy/compose
	env     []string
}

// run runs a command and returns its trimmed stdout; the error carries
// stderr, which is where docker says what went wrong.
func (d *docker) run(ctx context.Context, timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = d.dir
	cmd.Env = append(os.Environ(), d.env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// container is the id of a service's container.
func (d *docker) container(ctx context.Context, service string) (string, error) {
	out, err := d.run(ctx, 30*time.Second, "docker", "ps", "-aq",
		"--filter", "label=com.docker.compose.project="+d.project,
		"--filter", "label=com.docker.compose.service="+service)
	if err != nil {
		return "", err
	}
	ids := strings.Fields(out)
	if len(ids) != 1 {
		return "", fmt.Errorf("service %s of project %s: %d containers (%q)", service, d.project, len(ids), out)
	}
	return ids[0], nil
}

// on runs `docker <verb> [args] <container of service>`.
func (d *docker) on(ctx context.Context, service string, verb string, args ...string) error {
	id, err := d.container(ctx, service)
	if err != nil {
		return err
	}
	_, err = d.run(ctx, 60*time.Second, "docker", append(append([]string{verb}, args...), id)...)
	if err != nil {
		return fmt.Errorf("%s %s: %w", verb, service, err)
	}
	return nil
}

func (d *docker) kill(ctx context.Context, service string) error {
	return d.on(ctx, service, "kill", "--signal", "KILL")
}
func (d *docker) start(ctx context.Context, service string) error { return d.on(ctx, service, "start") }
func (d *docker) pause(ctx context.Context, service string) error { return d.on(ctx, service, "pause") }
func (d *docker) unpause(ctx context.Context, service string) error {
	return d.on(ctx, service, "unpause")
}

// network is the compose network's full name.
func (d *docker) network() string { return d.project + "_nova" }

func (d *docker) disconnect(ctx context.Context, service string) error {
	id, err := d.container(ctx, service)
	if err != nil {
		return err
	}
	_, err = d.run(ctx, 60*time.Second, "docker", "network", "disconnect", "--force", d.network(), id)
	return err
}

// connect puts a service back on the network with its fixed address and
// its service name as an alias, as compose created it: peers find it by
// name, and gossip knows it by address.
func (d *docker) connect(ctx context.Context, service, ip string) error {
	id, err := d.container(ctx, service)
	if err != nil {
		return err
	}
	_, err = d.run(ctx, 60*time.Second, "docker", "network", "connect", "--ip", ip, "--alias", service, d.network(), id)
	return err
}

// exec runs a program inside a service's container (the image has no
// shell: args[0] is a binary path).
func (d *docker) exec(ctx context.Context, service string, args ...string) (string, error) {
	id, err := d.container(ctx, service)
	if err != nil {
		return "", err
	}
	return d.run(ctx, 2*time.Minute, "docker", append([]string{"exec", id}, args...)...)
}

// state is a container's docker state ("running", "paused", "exited").
func (d *docker) state(ctx context.Context, service string) (string, error) {
	id, err := d.container(ctx, service)
	if err != nil {
		return "", err
	}
	return d.run(ctx, 30*time.Second, "docker", "inspect", "-f", "{{.State.Status}}", id)
}

// compose runs deploy/compose/compose.sh (up, down).
func (d *docker) compose(ctx context.Context, timeout time.Duration, args ...string) (string, error) {
	return d.run(ctx, timeout, "./compose.sh", args...)
}

// logs returns the last lines of a service's log, for a failure report.
func (d *docker) logs(ctx context.Context, service string, lines int) string {
	id, err := d.container(ctx, service)
	if err != nil {
		return err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, "docker", "logs", "--tail", fmt.Sprint(lines), id).CombinedOutput()
	return string(out)
}
