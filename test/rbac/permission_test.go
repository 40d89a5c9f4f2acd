package rbac_test

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// permission is one verb on one resource: what a request needs and what a
// rule grants. Namespace is where; "" is cluster-wide for a grant (a
// ClusterRoleBinding), and cluster-scoped or every namespace for a request.
// Name is the object's name: for a grant one of its resourceNames, "" for
// any; for a list or watch, the name its metadata.name field selector asks
// for (the apiserver authorises that against resourceNames too).
type permission struct {
	Verb, Group, Resource, Namespace, Name string
}

func (p permission) String() string {
	group := p.Group
	if group == "" {
		group = "core"
	}
	where := "cluster-wide"
	if p.Namespace != "" {
		where = "in namespace " + p.Namespace
	}
	name := ""
	if p.Name != "" {
		name = " named " + p.Name
	}
	return fmt.Sprintf("%s %s/%s%s %s", p.Verb, group, p.Resource, name, where)
}

// covers reports whether the grant g allows the request r.
func (g permission) covers(r permission) bool {
	return g.Verb == r.Verb && g.Group == r.Group && g.Resource == r.Resource &&
		(g.Namespace == "" || g.Namespace == r.Namespace) && (g.Name == "" || g.Name == r.Name)
}

// grant is a permission and the role it comes from, for the messages.
type grant struct {
	permission
	Role string
}

// grantsOf returns every permission the bindings in the cluster give the
// ServiceAccount namespace/name, rule by rule expanded into single verbs
// resources and names. Wildcards and nonResourceURLs are returned as errors:
// the comparison would not be exact with them, and the manager needs neither.
func grantsOf(ctx context.Context, c client.Client, namespace, name string) ([]grant, error) {
	bound := func(subjects []rbacv1.Subject) bool {
		for _, s := range subjects {
			if s.Kind == rbacv1.ServiceAccountKind && s.Namespace == namespace && s.Name == name {
				return true
			}
		}
		return false
	}
	var grants []grant
	var errs []error
	expand := func(role string, rules []rbacv1.PolicyRule, where string) {
		for _, rule := range rules {
			if len(rule.NonResourceURLs) > 0 {
				errs = append(errs, fmt.Errorf("%s: a rule with nonResourceURLs", role))
				continue
			}
			names := rule.ResourceNames
			if len(names) == 0 {
				names = []string{""}
			}
			for _, group := range rule.APIGroups {
				for _, resource := range rule.Resources {
					for _, verb := range rule.Verbs {
						if group == "*" || resource == "*" || verb == "*" {
							errs = append(errs, fmt.Errorf("%s: a wildcard in %v", role, rule))
							continue
						}
						for _, name := range names {
							grants = append(grants, grant{permission{verb, group, resource, where, name}, role})
						}
					}
				}
			}
		}
	}
	roleRules := func(ref rbacv1.RoleRef, bindingNamespace string) (string, []rbacv1.PolicyRule, error) {
		if ref.Kind == "ClusterRole" {
			role := &rbacv1.ClusterRole{}
			err := c.Get(ctx, client.ObjectKey{Name: ref.Name}, role)
			return "ClusterRole " + ref.Name, role.Rules, err
		}
		role := &rbacv1.Role{}
		err := c.Get(ctx, client.ObjectKey{Namespace: bindingNamespace, Name: ref.Name}, role)
		return "Role " + bindingNamespace + "/" + ref.Name, role.Rules, err
	}

	clusterBindings := &rbacv1.ClusterRoleBindingList{}
	if err := c.List(ctx, clusterBindings); err != nil {
		return nil, err
	}
	for _, b := range clusterBindings.Items {
		if bound(b.Subjects) {
			role, rules, err := roleRules(b.RoleRef, "")
			if err != nil {
				return nil, fmt.Errorf("ClusterRoleBinding %s: %w", b.Name, err)
			}
			expand(role, rules, "")
		}
	}
	bindings := &rbacv1.RoleBindingList{}
	if err := c.List(ctx, bindings); err != nil {
		return nil, err
	}
	for _, b := range bindings.Items {
		if bound(b.Subjects) {
			role, rules, err := roleRules(b.RoleRef, b.Namespace)
			if err != nil {
				return nil, fmt.Errorf("RoleBinding %s/%s: %w", b.Namespace, b.Name, err)
			}
			expand(role, rules, b.Namespace)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%v", errs)
	}
	return grants, nil
}
