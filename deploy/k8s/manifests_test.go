package k8s

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	sigsyaml "sigs.k8s.io/yaml"
)

// kustomization is the part of kustomize's Kustomization this directory
// uses; decoding is strict, so a field it does not know is an error (add
// it here when the kustomization starts using it).
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace,omitempty"`
	Resources  []string `json:"resources"`
	Labels     []struct {
		Pairs            map[string]string `json:"pairs"`
		IncludeSelectors bool              `json:"includeSelectors,omitempty"`
		IncludeTemplates bool              `json:"includeTemplates,omitempty"`
	} `json:"labels,omitempty"`
	// SecretGenerator makes Secrets from files (the TLS material,
	// certs.sh); the test takes each file's base name as a key, without
	// reading the files, which a fresh clone does not have.
	SecretGenerator []struct {
		Name  string   `json:"name"`
		Files []string `json:"files"`
	} `json:"secretGenerator,omitempty"`
	Images []struct {
		Name    string `json:"name"`
		NewName string `json:"newName,omitempty"`
		NewTag  string `json:"newTag,omitempty"`
		Digest  string `json:"digest,omitempty"`
	} `json:"images,omitempty"`
}

// manifests is every object of the kustomization, by kind.
type manifests struct {
	services     map[string]*corev1.Service
	configMaps   map[string]*corev1.ConfigMap
	secrets      map[string]*corev1.Secret
	statefulSets map[string]*appsv1.StatefulSet
	deployments  map[string]*appsv1.Deployment
	pdbs         map[string]*policyv1.PodDisruptionBudget
}

// workload is a StatefulSet or Deployment, seen through its pod template.
type workload struct {
	kind, name string
	selector   *metav1.LabelSelector
	template   *corev1.PodTemplateSpec
}

func (m *manifests) workloads() []workload {
	var out []workload
	for _, n := range sortedKeys(m.statefulSets) {
		s := m.statefulSets[n]
		out = append(out, workload{"StatefulSet", n, s.Spec.Selector, &s.Spec.Template})
	}
	for _, n := range sortedKeys(m.deployments) {
		d := m.deployments[n]
		out = append(out, workload{"Deployment", n, d.Spec.Selector, &d.Spec.Template})
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// splitDocs splits a multi-document YAML file at its "---" lines and drops
// documents that hold only comments or whitespace.
func splitDocs(data []byte) [][]byte {
	var docs [][]byte
	var cur bytes.Buffer
	flush := func() {
		content := false
		for _, line := range strings.Split(cur.String(), "\n") {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
				content = true
				break
			}
		}
		if content {
			docs = append(docs, bytes.Clone(cur.Bytes()))
		}
		cur.Reset()
	}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if strings.TrimRight(line, " \t\r\n") == "---" {
			flush()
			continue
		}
		cur.WriteString(line)
	}
	flush()
	return docs
}

// load reads the kustomization in dir and decodes every resource it lists.
func load(dir string) (*kustomization, *manifests, error) {
	data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return nil, nil, err
	}
	var k kustomization
	if err := sigsyaml.UnmarshalStrict(data, &k); err != nil {
		return nil, nil, fmt.Errorf("kustomization.yaml: %w", err)
	}
	if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		return nil, nil, fmt.Errorf("kustomization.yaml: apiVersion/kind %s/%s", k.APIVersion, k.Kind)
	}
	m := &manifests{
		services: map[string]*corev1.Service{}, configMaps: map[string]*corev1.ConfigMap{},
		secrets: map[string]*corev1.Secret{}, statefulSets: map[string]*appsv1.StatefulSet{},
		deployments: map[string]*appsv1.Deployment{}, pdbs: map[string]*policyv1.PodDisruptionBudget{},
	}
	for _, res := range k.Resources {
		data, err := os.ReadFile(filepath.Join(dir, res))
		if err != nil {
			return nil, nil, fmt.Errorf("kustomization.yaml lists %s: %w", res, err)
		}
		docs := splitDocs(data)
		if len(docs) == 0 {
			return nil, nil, fmt.Errorf("%s holds no object", res)
		}
		for i, doc := range docs {
			if err := m.add(doc); err != nil {
				return nil, nil, fmt.Errorf("%s, document %d: %w", res, i+1, err)
			}
		}
	}
	for _, g := range k.SecretGenerator {
		if _, seen := m.secrets[g.Name]; seen {
			return nil, nil, fmt.Errorf("Secret %q both generated and defined", g.Name)
		}
		sec := &corev1.Secret{Data: map[string][]byte{}}
		sec.Name = g.Name
		for _, f := range g.Files {
			sec.Data[filepath.Base(f)] = nil
		}
		m.secrets[g.Name] = sec
	}
	return &k, m, nil
}

// add decodes one document strictly (unknown or duplicate fields are
// errors) into the API type its apiVersion and kind name.
func (m *manifests) add(doc []byte) error {
	var tm metav1.TypeMeta
	if err := sigsyaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	var name string
	var err error
	dup := func(seen bool) error {
		if seen {
			return fmt.Errorf("%s %q defined twice", tm.Kind, name)
		}
		return nil
	}
	switch tm.APIVersion + " " + tm.Kind {
	case "v1 Service":
		o := &corev1.Service{}
		if err = sigsyaml.UnmarshalStrict(doc, o); err == nil {
			name = o.Name
			_, seen := m.services[name]
			err, m.services[name] = dup(seen), o
		}
	case "v1 ConfigMap":
		o := &corev1.ConfigMap{}
		if err = sigsyaml.UnmarshalStrict(doc, o); err == nil {
			name = o.Name
			_, seen := m.configMaps[name]
			err, m.configMaps[name] = dup(seen), o
		}
	case "v1 Secret":
		o := &corev1.Secret{}
		if err = sigsyaml.UnmarshalStrict(doc, o); err == nil {
			name = o.Name
			_, seen := m.secrets[name]
			err, m.secrets[name] = dup(seen), o
		}
	case "apps/v1 StatefulSet":
		o := &appsv1.StatefulSet{}
		if err = sigsyaml.UnmarshalStrict(doc, o); err == nil {
			name = o.Name
			_, seen := m.statefulSets[name]
			err, m.statefulSets[name] = dup(seen), o
		}
	case "apps/v1 Deployment":
		o := &appsv1.Deployment{}
		if err = sigsyaml.UnmarshalStrict(doc, o); err == nil {
			name = o.Name
			_, seen := m.deployments[name]
			err, m.deployments[name] = dup(seen), o
		}
	case "policy/v1 PodDisruptionBudget":
		o := &policyv1.PodDisruptionBudget{}
		if err = sigsyaml.UnmarshalStrict(doc, o); err == nil {
			name = o.Name
			_, seen := m.pdbs[name]
			err, m.pdbs[name] = dup(seen), o
		}
	default:
		return fmt.Errorf("unexpected apiVersion/kind %q %q (add the type to this test)", tm.APIVersion, tm.Kind)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", tm.Kind, err)
	}
	if name == "" {
		return fmt.Errorf("%s without metadata.name", tm.Kind)
	}
	return nil
}

func loadT(t *testing.T) (*kustomization, *manifests) {
	t.Helper()
	k, m, err := load(".")
	if err != nil {
		t.Fatal(err)
	}
	return k, m
}

// TestEveryManifestIsListedAndParses: each YAML file here is a resource of
// the kustomization (or the kustomization itself), and every resource
// decodes strictly.
func TestEveryManifestIsListedAndParses(t *testing.T) {
	k, m := loadT(t)
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f != "kustomization.yaml" && !slices.Contains(k.Resources, f) {
			t.Errorf("%s is not in kustomization.yaml's resources", f)
		}
	}
	for _, kind := range []struct {
		what string
		n    int
	}{{"Service", len(m.services)}, {"ConfigMap", len(m.configMaps)}, {"Secret", len(m.secrets)},
		{"StatefulSet", len(m.statefulSets)}, {"Deployment", len(m.deployments)}, {"PodDisruptionBudget", len(m.pdbs)}} {
		if kind.n == 0 {
			t.Errorf("no %s among the manifests", kind.what)
		}
	}
	for _, img := range k.Images {
		used := false
		for _, w := range m.workloads() {
			for _, c := range w.template.Spec.Containers {
				used = used || strings.Split(c.Image, ":")[0] == img.Name
			}
		}
		if !used {
			t.Errorf("kustomization.yaml retags image %q, which no container uses", img.Name)
		}
	}
}

func selects(sel map[string]string, lbls map[string]string) bool {
	return len(sel) > 0 && labels.SelectorFromSet(sel).Matches(labels.Set(lbls))
}

func labelSelector(t *testing.T, what string, ls *metav1.LabelSelector) labels.Selector {
	t.Helper()
	if ls == nil || (len(ls.MatchLabels) == 0 && len(ls.MatchExpressions) == 0) {
		t.Fatalf("%s: empty selector", what)
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		t.Fatalf("%s: selector: %v", what, err)
	}
	return sel
}

// TestSelectors: each workload's selector matches its own pods; each
// Service and PodDisruptionBudget selects the pods of exactly one workload;
// a StatefulSet's serviceName is a headless Service selecting its pods.
func TestSelectors(t *testing.T) {
	_, m := loadT(t)
	for _, w := range m.workloads() {
		sel := labelSelector(t, w.kind+" "+w.name, w.selector)
		if !sel.Matches(labels.Set(w.template.Labels)) {
			t.Errorf("%s %s: selector %s does not match its pod template labels %v", w.kind, w.name, sel, w.template.Labels)
		}
	}
	for _, name := range sortedKeys(m.services) {
		svc := m.services[name]
		var matched []string
		for _, w := range m.workloads() {
			if selects(svc.Spec.Selector, w.template.Labels) {
				matched = append(matched, w.kind+" "+w.name)
			}
		}
		if len(matched) != 1 {
			t.Errorf("Service %s: selector %v selects the pods of %v, want exactly one workload", name, svc.Spec.Selector, matched)
		}
	}
	for _, name := range sortedKeys(m.pdbs) {
		pdb := m.pdbs[name]
		sel := labelSelector(t, "PodDisruptionBudget "+name, pdb.Spec.Selector)
		var matched []string
		for _, w := range m.workloads() {
			if sel.Matches(labels.Set(w.template.Labels)) {
				matched = append(matched, w.kind+" "+w.name)
			}
		}
		if len(matched) != 1 {
			t.Errorf("PodDisruptionBudget %s: selector %s selects the pods of %v, want exactly one workload", name, sel, matched)
		}
		if (pdb.Spec.MinAvailable == nil) == (pdb.Spec.MaxUnavailable == nil) {
			t.Errorf("PodDisruptionBudget %s: set exactly one of minAvailable and maxUnavailable", name)
		}
	}
	for _, w := range m.workloads() {
		covered := false
		for _, pdb := range m.pdbs {
			covered = covered || labelSelector(t, "PodDisruptionBudget "+pdb.Name, pdb.Spec.Selector).Matches(labels.Set(w.template.Labels))
		}
		if !covered {
			t.Errorf("%s %s: no PodDisruptionBudget covers its pods", w.kind, w.name)
		}
	}
	for _, name := range sortedKeys(m.statefulSets) {
		sts := m.statefulSets[name]
		svc, ok := m.services[sts.Spec.ServiceName]
		switch {
		case !ok:
			t.Errorf("StatefulSet %s: serviceName %q is not a Service", name, sts.Spec.ServiceName)
		case svc.Spec.ClusterIP != corev1.ClusterIPNone:
			t.Errorf("StatefulSet %s: Service %s is not headless (clusterIP: None)", name, svc.Name)
		case !selects(svc.Spec.Selector, sts.Spec.Template.Labels):
			t.Errorf("StatefulSet %s: headless Service %s does not select its pods", name, svc.Name)
		case !svc.Spec.PublishNotReadyAddresses:
			// Peers must resolve one another before they are ready.
			t.Errorf("Service %s: publishNotReadyAddresses must be true", svc.Name)
		}
	}
}

// containerPort finds the port a Service targetPort or probe port names.
func containerPort(c *corev1.Container, p intstr.IntOrString, proto corev1.Protocol) (corev1.ContainerPort, bool) {
	if proto == "" {
		proto = corev1.ProtocolTCP
	}
	for _, cp := range c.Ports {
		cpProto := cp.Protocol
		if cpProto == "" {
			cpProto = corev1.ProtocolTCP
		}
		if cpProto != proto {
			continue
		}
		if (p.Type == intstr.String && cp.Name == p.StrVal) || (p.Type == intstr.Int && cp.ContainerPort == p.IntVal) {
			return cp, true
		}
	}
	return corev1.ContainerPort{}, false
}

// TestServicePorts: every port of a Service reaches a container port of
// the pods it selects, with the same name and number.
func TestServicePorts(t *testing.T) {
	_, m := loadT(t)
	for _, name := range sortedKeys(m.services) {
		svc := m.services[name]
		for _, w := range m.workloads() {
			if !selects(svc.Spec.Selector, w.template.Labels) {
				continue
			}
			for _, sp := range svc.Spec.Ports {
				target := sp.TargetPort
				if target.Type == intstr.Int && target.IntVal == 0 {
					target = intstr.FromInt32(sp.Port)
				}
				found := false
				for i := range w.template.Spec.Containers {
					c := &w.template.Spec.Containers[i]
					cp, ok := containerPort(c, target, sp.Protocol)
					if !ok {
						continue
					}
					found = true
					if sp.Name != "" && cp.Name != sp.Name {
						t.Errorf("Service %s port %s: reaches container port %s of %s", name, sp.Name, cp.Name, w.name)
					}
					if cp.ContainerPort != sp.Port {
						t.Errorf("Service %s port %s: %d, but container port %s of %s is %d", name, sp.Name, sp.Port, cp.Name, w.name, cp.ContainerPort)
					}
				}
				if !found {
					t.Errorf("Service %s port %q: target %s/%s is no container port of %s %s", name, sp.Name, target.String(), sp.Protocol, w.kind, w.name)
				}
			}
		}
	}
}

// flagValue returns the value of --name in args (--name=v or --name v).
func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		a = strings.TrimLeft(a, "-")
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
		if a == name && i+1 < len(args) && strings.HasPrefix(args[i], "-") {
			return args[i+1], true
		}
	}
	return "", false
}

// daemon is one novagraph container: its pod spec, container and the
// config file it reads (--config, from the ConfigMap), merged with the
// command line (which wins, as in the daemons).
type daemon struct {
	w        workload
	c        *corev1.Container
	settings map[string]string
}

func (d daemon) String() string { return d.w.kind + " " + d.w.name + " container " + d.c.Name }

func (d daemon) port(t *testing.T, name string) int32 {
	t.Helper()
	for _, cp := range d.c.Ports {
		if cp.Name == name {
			return cp.ContainerPort
		}
	}
	t.Fatalf("%s: no container port named %q", d, name)
	return 0
}

// setting is a flag's value from the command line or the config file.
func (d daemon) setting(t *testing.T, flag string) string {
	t.Helper()
	v, ok := d.settings[flag]
	if !ok {
		t.Fatalf("%s: --%s is set neither on the command line nor in its config file", d, flag)
	}
	return v
}

func portOf(t *testing.T, what, hostPort string) int32 {
	t.Helper()
	_, p, err := net.SplitHostPort(hostPort)
	if err != nil {
		t.Fatalf("%s: %q: %v", what, hostPort, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("%s: port of %q: %v", what, hostPort, err)
	}
	return int32(n)
}

// daemons resolves each container's config: the ConfigMap key mounted at
// the --config path, decoded as YAML, then the command line's flags.
func daemons(t *testing.T, m *manifests) map[string]daemon {
	t.Helper()
	out := map[string]daemon{}
	for _, w := range m.workloads() {
		for i := range w.template.Spec.Containers {
			c := &w.template.Spec.Containers[i]
			d := daemon{w: w, c: c, settings: map[string]string{}}
			if path, ok := flagValue(c.Args, "config"); ok {
				text := configFile(t, m, w, c, path)
				var values map[string]any
				if err := yaml.Unmarshal([]byte(text), &values); err != nil {
					t.Fatalf("%s: config %s: %v", d, path, err)
				}
				for k, v := range values {
					if list, ok := v.([]any); ok {
						parts := make([]string, len(list))
						for i, item := range list {
							parts[i] = fmt.Sprint(item)
						}
						d.settings[k] = strings.Join(parts, ",")
					} else {
						d.settings[k] = fmt.Sprint(v)
					}
				}
			}
			for _, a := range c.Args {
				if k, v, ok := strings.Cut(strings.TrimLeft(a, "-"), "="); ok && strings.HasPrefix(a, "--") {
					d.settings[k] = v
				}
			}
			out[c.Name] = d
		}
	}
	return out
}

// configFile returns the text of the file at path in container c: a key
// of a ConfigMap volume mounted at its directory.
func configFile(t *testing.T, m *manifests, w workload, c *corev1.Container, path string) string {
	t.Helper()
	for _, vm := range c.VolumeMounts {
		rel, err := filepath.Rel(vm.MountPath, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		for _, vol := range w.template.Spec.Volumes {
			if vol.Name != vm.Name || vol.ConfigMap == nil {
				continue
			}
			cm, ok := m.configMaps[vol.ConfigMap.Name]
			if !ok {
				t.Fatalf("%s %s: volume %s: ConfigMap %q does not exist", w.kind, w.name, vol.Name, vol.ConfigMap.Name)
			}
			key := rel
			for _, item := range vol.ConfigMap.Items {
				if item.Path == rel {
					key = item.Key
				}
			}
			text, ok := cm.Data[key]
			if !ok {
				t.Fatalf("%s %s: --config %s is key %q of ConfigMap %s, which has no such key", w.kind, w.name, path, key, cm.Name)
			}
			return text
		}
	}
	t.Fatalf("%s %s container %s: --config %s is on no ConfigMap volume", w.kind, w.name, c.Name, path)
	return ""
}

// TestReferences: ConfigMap and Secret references exist with their keys,
// volume mounts name volumes or claim templates, and every $(VAR) of the
// command line is an environment variable of the container.
func TestReferences(t *testing.T) {
	_, m := loadT(t)
	varRef := regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
	for _, w := range m.workloads() {
		volumes := map[string]bool{}
		for _, vol := range w.template.Spec.Volumes {
			volumes[vol.Name] = true
			if vol.ConfigMap != nil {
				cm, ok := m.configMaps[vol.ConfigMap.Name]
				if !ok {
					t.Errorf("%s %s: volume %s: ConfigMap %q does not exist", w.kind, w.name, vol.Name, vol.ConfigMap.Name)
					continue
				}
				for _, item := range vol.ConfigMap.Items {
					if _, ok := cm.Data[item.Key]; !ok {
						t.Errorf("%s %s: volume %s: ConfigMap %s has no key %q", w.kind, w.name, vol.Name, cm.Name, item.Key)
					}
				}
			}
			if vol.Secret != nil {
				if _, ok := m.secrets[vol.Secret.SecretName]; !ok {
					t.Errorf("%s %s: volume %s: Secret %q does not exist", w.kind, w.name, vol.Name, vol.Secret.SecretName)
				}
			}
		}
		if sts, ok := m.statefulSets[w.name]; ok && w.kind == "StatefulSet" {
			for _, pvc := range sts.Spec.VolumeClaimTemplates {
				volumes[pvc.Name] = true
				if _, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; !ok {
					t.Errorf("StatefulSet %s: volume claim template %s requests no storage", w.name, pvc.Name)
				}
			}
		}
		for _, c := range w.template.Spec.Containers {
			for _, vm := range c.VolumeMounts {
				if !volumes[vm.Name] {
					t.Errorf("%s %s container %s: mounts %q, which is no volume or claim template", w.kind, w.name, c.Name, vm.Name)
				}
			}
			env := map[string]bool{}
			for _, e := range c.Env {
				env[e.Name] = true
				if e.ValueFrom == nil {
					continue
				}
				if ref := e.ValueFrom.SecretKeyRef; ref != nil {
					has := false
					if s, ok := m.secrets[ref.Name]; ok {
						_, inData := s.Data[ref.Key]
						_, inString := s.StringData[ref.Key]
						has = inData || inString
					}
					if !has {
						t.Errorf("%s %s env %s: Secret %s has no key %q", w.kind, w.name, e.Name, ref.Name, ref.Key)
					}
				}
				if ref := e.ValueFrom.ConfigMapKeyRef; ref != nil {
					has := false
					if cm, ok := m.configMaps[ref.Name]; ok {
						_, has = cm.Data[ref.Key]
					}
					if !has {
						t.Errorf("%s %s env %s: ConfigMap %s has no key %q", w.kind, w.name, e.Name, ref.Name, ref.Key)
					}
				}
			}
			for _, a := range slices.Concat(c.Command, c.Args) {
				for _, ref := range varRef.FindAllStringSubmatch(a, -1) {
					if !env[ref[1]] {
						t.Errorf("%s %s container %s: %q uses $(%s), which is not in its env", w.kind, w.name, c.Name, a, ref[1])
					}
				}
			}
		}
	}
}

// TestProbesAndPorts: every daemon has readiness and liveness probes (and
// any startup probe) on GET /healthz at its container port "http", which
// is the port of its --http-addr; its gRPC and gossip ports are those of
// --addr and --gossip-addr; it requests CPU and memory and caps memory.
func TestProbesAndPorts(t *testing.T) {
	_, m := loadT(t)
	ds := daemons(t, m)
	for _, name := range []string{"metad", "storaged", "graphd"} {
		if _, ok := ds[name]; !ok {
			t.Fatalf("no container named %s", name)
		}
	}
	for _, name := range sortedKeys(ds) {
		d := ds[name]
		if d.c.ReadinessProbe == nil || d.c.LivenessProbe == nil {
			t.Errorf("%s: needs a readinessProbe and a livenessProbe", d)
		}
		for kind, p := range map[string]*corev1.Probe{"readiness": d.c.ReadinessProbe, "liveness": d.c.LivenessProbe, "startup": d.c.StartupProbe} {
			if p == nil {
				continue
			}
			if p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" {
				t.Errorf("%s: %s probe is not an HTTP GET of /healthz", d, kind)
				continue
			}
			cp, ok := containerPort(d.c, p.HTTPGet.Port, corev1.ProtocolTCP)
			if !ok || cp.Name != "http" {
				t.Errorf("%s: %s probe port %s is not the container port named http", d, kind, p.HTTPGet.Port.String())
			}
		}
		if got, want := d.port(t, "http"), portOf(t, d.String()+" --http-addr", d.setting(t, "http-addr")); got != want {
			t.Errorf("%s: container port http %d, but --http-addr listens on %d", d, got, want)
		}
		if got, want := d.port(t, "grpc"), portOf(t, d.String()+" --addr", d.setting(t, "addr")); got != want {
			t.Errorf("%s: container port grpc %d, but --addr listens on %d", d, got, want)
		}
		gossip := portOf(t, d.String()+" --gossip-addr", d.setting(t, "gossip-addr"))
		if d.port(t, "gossip") != gossip || d.port(t, "gossip-udp") != gossip {
			t.Errorf("%s: container ports gossip/gossip-udp must be --gossip-addr's port %d", d, gossip)
		}
		req, lim := d.c.Resources.Requests, d.c.Resources.Limits
		if req.Cpu().IsZero() || req.Memory().IsZero() || lim.Memory().IsZero() {
			t.Errorf("%s: needs cpu and memory requests and a memory limit", d)
		}
		if dataPath, ok := d.settings["data-path"]; ok && d.w.kind == "StatefulSet" {
			mounted := false
			for _, vm := range d.c.VolumeMounts {
				rel, err := filepath.Rel(vm.MountPath, dataPath)
				mounted = mounted || (err == nil && !strings.HasPrefix(rel, ".."))
			}
			if !mounted {
				t.Errorf("%s: --data-path %s is on no mounted volume", d, dataPath)
			}
		}
	}
}

// podDNS is the DNS name of pod i of a StatefulSet under its headless
// Service, as the manifests write it (namespace from the downward API).
func podDNS(sts *appsv1.StatefulSet, i int) string {
	return fmt.Sprintf("%s-%d.%s.$(POD_NAMESPACE).svc.cluster.local", sts.Name, i, sts.Spec.ServiceName)
}

// TestMetadPeers: three metad, started in parallel (a new etcd cluster
// needs all its members), whose --meta-peers lists exactly the three pods'
// DNS names at the peer port; each finds itself by --etcd-peer-addr.
// storaged and graphd know every metad, and storaged registers under its
// own pod DNS name.
func TestMetadPeers(t *testing.T) {
	_, m := loadT(t)
	ds := daemons(t, m)
	sts, ok := m.statefulSets["metad"]
	if !ok {
		t.Fatal("no StatefulSet metad")
	}
	if sts.Spec.Replicas == nil || *sts.Spec.Replicas != 3 {
		t.Fatalf("StatefulSet metad: replicas must be 3")
	}
	if sts.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
		t.Errorf("StatefulSet metad: podManagementPolicy must be Parallel, or metad-1 waits for a metad-0 that waits for a quorum")
	}
	md := ds["metad"]
	peerPort := md.port(t, "peer")
	var want []string
	for i := range 3 {
		want = append(want, fmt.Sprintf("%s:%d", podDNS(sts, i), peerPort))
	}
	got := strings.Split(md.setting(t, "meta-peers"), ",")
	for i := range got {
		got[i] = strings.TrimSpace(got[i])
	}
	if !slices.Equal(sorted(got), want) {
		t.Errorf("metad --meta-peers = %v, want exactly %v", got, want)
	}
	self := fmt.Sprintf("$(POD_NAME).%s.$(POD_NAMESPACE).svc.cluster.local:%d", sts.Spec.ServiceName, peerPort)
	if v := md.setting(t, "etcd-peer-addr"); v != self {
		t.Errorf("metad --etcd-peer-addr = %q, want %q", v, self)
	}
	downward(t, md, map[string]string{"POD_NAME": "metadata.name", "POD_NAMESPACE": "metadata.namespace"})
	// Root's password comes from the Secret through the environment,
	// never the command line (which the process list shows).
	if _, ok := md.settings["root-password"]; ok {
		t.Errorf("metad: --root-password is on the command line; it must come from the Secret as NOVA_ROOT_PASSWORD")
	}
	fromSecret := false
	for _, e := range md.c.Env {
		if e.Name == "NOVA_ROOT_PASSWORD" {
			fromSecret = e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil
		}
	}
	if !fromSecret {
		t.Errorf("metad: NOVA_ROOT_PASSWORD must be set from a Secret")
	}
	// The manifests ship no known password: metad refuses root's default
	// on a pod address, and must not be told to allow it.
	if _, ok := md.settings["allow-default-root-password"]; ok {
		t.Errorf("metad: --allow-default-root-password is set: the manifests must not run with root's default password")
	}
	if sec, ok := m.secrets["novagraph-root"]; !ok {
		t.Errorf("the Secret novagraph-root is missing")
	} else if pw := sec.StringData["password"] + string(sec.Data["password"]); pw != "" {
		t.Errorf("the Secret novagraph-root ships the password %q: it must be empty, for the user to set", pw)
	}

	grpcPort := md.port(t, "grpc")
	var metaAddrs []string
	for i := range 3 {
		metaAddrs = append(metaAddrs, fmt.Sprintf("%s-%d.%s:%d", sts.Name, i, sts.Spec.ServiceName, grpcPort))
	}
	for _, name := range []string{"storaged", "graphd"} {
		d := ds[name]
		got := strings.Split(d.setting(t, "meta-addrs"), ",")
		for i := range got {
			got[i] = strings.TrimSpace(got[i])
		}
		if !slices.Equal(sorted(got), metaAddrs) {
			t.Errorf("%s --meta-addrs = %v, want %v", name, got, metaAddrs)
		}
	}

	st, ok := m.statefulSets["storaged"]
	if !ok {
		t.Fatal("no StatefulSet storaged")
	}
	if st.Spec.Replicas == nil || *st.Spec.Replicas < 3 {
		t.Errorf("StatefulSet storaged: at least 3 replicas (replica_factor=3)")
	}
	sd := ds["storaged"]
	wantAddr := fmt.Sprintf("$(POD_NAME).%s.$(POD_NAMESPACE).svc.cluster.local:%d", st.Spec.ServiceName, sd.port(t, "grpc"))
	if v := sd.setting(t, "addr"); v != wantAddr {
		t.Errorf("storaged --addr = %q, want its pod DNS name %q (the address it registers under)", v, wantAddr)
	}
	downward(t, sd, map[string]string{"POD_NAME": "metadata.name", "POD_NAMESPACE": "metadata.namespace"})

	if dep, ok := m.deployments["graphd"]; !ok || dep.Spec.Replicas == nil || *dep.Spec.Replicas < 2 {
		t.Errorf("Deployment graphd with at least 2 replicas expected")
	}
	if svc, ok := m.services["graphd"]; !ok || svc.Spec.ClusterIP == corev1.ClusterIPNone {
		t.Errorf("graphd needs a client (not headless) Service named graphd")
	}
}

func downward(t *testing.T, d daemon, want map[string]string) {
	t.Helper()
	for name, field := range want {
		ok := false
		for _, e := range d.c.Env {
			if e.Name == name && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == field {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s: env %s must come from the downward API field %s", d, name, field)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

// TestSplitDocs pins the document splitter the other tests rely on.
func TestSplitDocs(t *testing.T) {
	docs := splitDocs([]byte("# only a comment\n---\na: 1\n---\n\n---  \nb: 2\n--- \n# trailing\n"))
	if len(docs) != 2 || !strings.Contains(string(docs[0]), "a: 1") || !strings.Contains(string(docs[1]), "b: 2") {
		t.Fatalf("splitDocs: %q", docs)
	}
}

// TestStrictDecoding: a misspelt field fails, so the other tests can trust
// that what they read is what Kubernetes would.
func TestStrictDecoding(t *testing.T) {
	m := &manifests{services: map[string]*corev1.Service{}}
	err := m.add([]byte("apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {selectr: {a: b}}\n"))
	if err == nil || !strings.Contains(err.Error(), "selectr") {
		t.Fatalf("unknown field: %v", err)
	}
	err = m.add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n"))
	if err == nil {
		t.Fatal("an unexpected kind must fail")
	}
}

// TestTLS: every daemon runs with TLS and an encrypted gossip: its config
// names a --tls-dir where a Secret volume of its role is mounted, holding
// ca.crt, <role>.crt, <role>.key and gossip.key (what --tls-dir and
// --gossip-key-file read), generated from the files certs.sh writes.
func TestTLS(t *testing.T) {
	k, m := loadT(t)
	for role, d := range daemons(t, m) {
		dir, ok := d.settings["tls-dir"]
		if !ok {
			t.Errorf("%s: no tls-dir: the daemons must run with TLS", role)
			continue
		}
		if got, want := d.settings["gossip-key-file"], filepath.Join(dir, "gossip.key"); got != want {
			t.Errorf("%s: gossip-key-file %q, want %q", role, got, want)
		}
		var secret string
		for _, vm := range d.c.VolumeMounts {
			if vm.MountPath != dir {
				continue
			}
			for _, vol := range d.w.template.Spec.Volumes {
				if vol.Name == vm.Name && vol.Secret != nil {
					secret = vol.Secret.SecretName
					if mode := vol.Secret.DefaultMode; mode == nil || *mode&0o007 != 0 {
						t.Errorf("%s: the TLS Secret volume's files are readable by others (defaultMode %v)", role, mode)
					}
				}
			}
		}
		sec, ok := m.secrets[secret]
		if !ok {
			t.Errorf("%s: no Secret volume mounted at its tls-dir %s", role, dir)
			continue
		}
		for _, key := range []string{"ca.crt", role + ".crt", role + ".key", "gossip.key"} {
			if _, ok := sec.Data[key]; !ok {
				t.Errorf("%s: Secret %s has no %s", role, secret, key)
			}
		}
		if g := d.w.template.Spec.SecurityContext; g == nil || g.FSGroup == nil || *g.FSGroup != 10001 {
			t.Errorf("%s: fsGroup must be 10001, the daemon's group, to read its key (mode 0440)", role)
		}
	}
	if len(k.SecretGenerator) == 0 {
		t.Fatal("kustomization.yaml generates no TLS Secret")
	}
	if st, err := os.Stat("certs.sh"); err != nil || st.Mode()&0o111 == 0 {
		t.Errorf("certs.sh, which writes the Secrets' files, is missing or not executable: %v", err)
	}
}
