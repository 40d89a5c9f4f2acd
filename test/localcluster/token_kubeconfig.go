package localcluster

import (
	"fmt"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// TokenKubeconfig returns a kubeconfig that reaches this control plane with a
// bearer token, as a pod's in-cluster config does with its ServiceAccount
// token: the end-to-end tests run the manager with it.
func (c *Cluster) TokenKubeconfig(token string) ([]byte, error) {
	const name = "local"
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{
		Server:                   c.Admin.Host,
		CertificateAuthorityData: c.Admin.CAData,
	}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	cfg.CurrentContext = name
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, fmt.Errorf("writing a token kubeconfig: %w", err)
	}
	return out, nil
}
