package nodecluster

import (
	"os"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes a kubeconfig for server that authenticates with a
// client certificate issued by the cluster's CA.
func writeKubeconfig(file, server string, ca *authority, user, certFile, keyFile string) error {
	config := clientcmdapi.NewConfig()
	config.Clusters["nodeslo-cluster"] = &clientcmdapi.Cluster{
		Server:                   server,
		CertificateAuthorityData: ca.CertPEM(),
	}
	cert, err := os.ReadFile(certFile)
	if err != nil {
		return err
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return err
	}
	config.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	config.Contexts["nodeslo-cluster"] = &clientcmdapi.Context{Cluster: "nodeslo-cluster", AuthInfo: user}
	config.CurrentContext = "nodeslo-cluster"
	return clientcmd.WriteToFile(*config, file)
}
