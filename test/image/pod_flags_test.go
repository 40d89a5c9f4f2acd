//go:build image

package image

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// serviceAccountDir is where a kubelet mounts a Pod's ServiceAccount token,
// CA and namespace, and where client-go's in-cluster config reads them.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// podHost is what the kubelet gives a Pod that the manifest does not say:
// the apiserver's address (the kubernetes Service's environment variables),
// the ServiceAccount files, and the contents of the Secret volumes.
type podHost struct {
	apiServerHost, apiServerPort string
	// serviceAccountFiles holds token, ca.crt and namespace.
	serviceAccountFiles string
	// secrets maps a Secret's name to a directory with its keys as files.
	secrets map[string]string
}

// podmanFlags translates the manager container of a Deployment into the
// flags of `podman run` (before the image) and the arguments after it. Every
// field the kubelet would act on is translated or refused: a field this
// function does not know fails the spec rather than being dropped silently.
func podmanFlags(d *appsv1.Deployment, host podHost) (flags, args []string) {
	GinkgoHelper()
	spec := d.Spec.Template.Spec
	Expect(spec.Containers).To(HaveLen(1), "one container, the manager")
	Expect(spec.InitContainers).To(BeEmpty())
	c := spec.Containers[0]

	// The kubelet's part. Host networking only because the control plane
	// listens on loopback; the manager's ports are its own.
	flags = []string{"--network=host"}

	// securityContext: the pod's and the container's.
	pod := spec.SecurityContext
	if pod != nil {
		if pod.RunAsUser != nil {
			flags = append(flags, "--user="+strconv.FormatInt(*pod.RunAsUser, 10))
		}
		Expect(pod.RunAsGroup).To(BeNil(), "runAsGroup is not translated")
		Expect(pod.FSGroup).To(BeNil(), "fsGroup is not translated")
		if pod.SeccompProfile != nil {
			Expect(pod.SeccompProfile.Type).To(Equal(corev1.SeccompProfileTypeRuntimeDefault),
				"only the runtime's default seccomp profile is translated (podman's default)")
		}
	}
	sc := c.SecurityContext
	Expect(sc).NotTo(BeNil(), "the manager container has no securityContext")
	if sc.RunAsUser != nil {
		flags = append(flags, "--user="+strconv.FormatInt(*sc.RunAsUser, 10))
	}
	Expect(sc.Privileged).To(Or(BeNil(), HaveValue(BeFalse())), "privileged is not translated")
	if sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem {
		// podman adds writable tmpfs on /tmp, /run and /var/tmp to a
		// read-only container by default; a kubelet adds none.
		flags = append(flags, "--read-only", "--read-only-tmpfs=false")
	}
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		flags = append(flags, "--security-opt=no-new-privileges")
	}
	if sc.Capabilities != nil {
		for _, cap := range sc.Capabilities.Drop {
			flags = append(flags, "--cap-drop="+string(cap))
		}
		for _, cap := range sc.Capabilities.Add {
			flags = append(flags, "--cap-add="+string(cap))
		}
	}

	// Resources: the limits are what the runtime enforces.
	if mem, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
		flags = append(flags, fmt.Sprintf("--memory=%d", mem.Value()))
	}
	if cpu, ok := c.Resources.Limits[corev1.ResourceCPU]; ok {
		flags = append(flags, fmt.Sprintf("--cpus=%.3f", float64(cpu.MilliValue())/1000))
	}

	// The environment of every Pod, then the container's own.
	flags = append(flags,
		"--env=KUBERNETES_SERVICE_HOST="+host.apiServerHost,
		"--env=KUBERNETES_SERVICE_PORT="+host.apiServerPort)
	for _, e := range c.Env {
		flags = append(flags, "--env="+e.Name+"="+envValue(c, e))
	}

	// Volumes: the ServiceAccount's (automounted unless turned off), then
	// each of the container's mounts, whose volume must be a Secret.
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		flags = append(flags, "--volume="+host.serviceAccountFiles+":"+serviceAccountDir+":ro")
	}
	for _, m := range c.VolumeMounts {
		v := volumeNamed(spec.Volumes, m.Name)
		Expect(v.Secret).NotTo(BeNil(), "volume %s: only Secret volumes are translated", m.Name)
		dir, ok := host.secrets[v.Secret.SecretName]
		Expect(ok).To(BeTrue(), "no stand-in for Secret %s (volume %s)", v.Secret.SecretName, m.Name)
		mode := "ro"
		if !m.ReadOnly {
			mode = "rw"
		}
		flags = append(flags, "--volume="+dir+":"+m.MountPath+":"+mode)
	}

	// command replaces the image's ENTRYPOINT, args its CMD.
	if len(c.Command) > 0 {
		entrypoint, err := json.Marshal(c.Command)
		Expect(err).NotTo(HaveOccurred())
		flags = append(flags, "--entrypoint="+string(entrypoint))
	}
	return flags, c.Args
}

func volumeNamed(volumes []corev1.Volume, name string) corev1.Volume {
	GinkgoHelper()
	for _, v := range volumes {
		if v.Name == name {
			return v
		}
	}
	Fail("no volume " + name + " for a volumeMount")
	return corev1.Volume{}
}

// mustBeNonRootUser checks runAsNonRoot as the kubelet does before it starts
// the container: the user (the image's, unless the manifest sets one) must
// be numeric and not 0.
func mustBeNonRootUser(d *appsv1.Deployment, imageUser string) {
	GinkgoHelper()
	spec := d.Spec.Template.Spec
	pod := spec.SecurityContext
	nonRoot := pod != nil && pod.RunAsNonRoot != nil && *pod.RunAsNonRoot
	c := spec.Containers[0].SecurityContext
	if c != nil && c.RunAsNonRoot != nil {
		nonRoot = *c.RunAsNonRoot
	}
	Expect(nonRoot).To(BeTrue(), "the Deployment does not ask for runAsNonRoot")
	if (pod != nil && pod.RunAsUser != nil) || (c != nil && c.RunAsUser != nil) {
		return
	}
	user, _, _ := strings.Cut(imageUser, ":")
	uid, err := strconv.Atoi(user)
	Expect(err).NotTo(HaveOccurred(),
		"image user %q: runAsNonRoot needs a numeric USER (the kubelet cannot verify a name)", imageUser)
	Expect(uid).NotTo(BeZero(), "image runs as root: the kubelet refuses it under runAsNonRoot")
}

// envValue is the value a kubelet gives the container's variable e: its
// value, or a resource limit through the downward API (the only valueFrom
// translated), in units of its divisor, rounded up as the kubelet does.
func envValue(c corev1.Container, e corev1.EnvVar) string {
	GinkgoHelper()
	if e.ValueFrom == nil {
		return e.Value
	}
	ref := e.ValueFrom.ResourceFieldRef
	Expect(ref).NotTo(BeNil(), "env %s: only valueFrom.resourceFieldRef is translated", e.Name)
	Expect(ref.ContainerName).To(Or(BeEmpty(), Equal(c.Name)), "env %s: another container's resources", e.Name)
	name, ok := strings.CutPrefix(ref.Resource, "limits.")
	Expect(ok).To(BeTrue(), "env %s: only limits are translated, not %s", e.Name, ref.Resource)
	limit, ok := c.Resources.Limits[corev1.ResourceName(name)]
	Expect(ok).To(BeTrue(), "env %s: the container has no %s limit", e.Name, name)
	divisor := ref.Divisor.Value()
	if divisor == 0 {
		divisor = 1
	}
	return strconv.FormatInt((limit.Value()+divisor-1)/divisor, 10)
}
