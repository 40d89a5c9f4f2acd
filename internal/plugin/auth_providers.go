package plugin

// client-go's auth providers, linked as kubectl links them: a kubeconfig
// whose user has an auth-provider (oidc) works with the plugin as with
// kubectl, and one naming the removed azure or gcp provider gets client-go's
// message pointing to their exec plugins (kubelogin,
// gke-gcloud-auth-plugin) rather than "no Auth Provider found".
import _ "k8s.io/client-go/plugin/pkg/client/auth"
