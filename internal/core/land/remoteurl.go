package land

import (
	"context"
	"net/url"
	"strings"
)

// remoteRepo is HOST/OWNER/REPO of the remote's URL when it names one
// the way GitHub-style hosts do (https://HOST/OWNER/REPO.git,
// git@HOST:OWNER/REPO.git, ssh://git@HOST/OWNER/REPO), else "" (a path
// on this machine, another layout): then gh finds the repository itself.
func remoteRepo(ctx context.Context, dir, remote string) string {
	u, err := git(ctx, dir, "remote", "get-url", remote)
	if err != nil {
		return ""
	}
	return parseRemoteURL(u)
}

func parseRemoteURL(raw string) string {
	var host, path string
	if scheme, rest, ok := strings.Cut(raw, "://"); ok {
		switch scheme {
		case "https", "http", "ssh", "git", "git+ssh", "ssh+git":
		default:
			return ""
		}
		host, path, _ = strings.Cut(rest, "/")
		if i := strings.LastIndex(host, "@"); i >= 0 {
			host = host[i+1:]
		}
		if h, _, ok := strings.Cut(host, ":"); ok {
			host = h // a port: not part of the web host gh names
		}
	} else {
		// scp-like: [user@]host:path, with no slash before the colon.
		var ok bool
		host, path, ok = strings.Cut(raw, ":")
		if !ok || strings.Contains(host, "/") {
			return ""
		}
		if i := strings.LastIndex(host, "@"); i >= 0 {
			host = host[i+1:]
		}
	}
	path = strings.TrimSuffix(strings.TrimSuffix(path, "/"), ".git")
	owner, repo, ok := strings.Cut(path, "/")
	if !ok || !nameChars(host, true) || !nameChars(owner, false) || !nameChars(repo, false) || !strings.Contains(host, ".") {
		return ""
	}
	return host + "/" + owner + "/" + repo
}

// nameChars reports s is a host name (host) or an owner or repository
// name of GitHub's: letters, digits, '-', '.', and '_' in names.
func nameChars(s string, host bool) bool {
	if s == "" || s == "." || s == ".." || strings.HasPrefix(s, "-") {
		return false
	}
	for _, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || (!host && c == '_')
		if !ok {
			return false
		}
	}
	return true
}

// maxCompareURL keeps a compare page's address within what browsers and
// GitHub take: past it the body is left out of the address.
const maxCompareURL = 6000

// compareURL is the remote's page that opens the request in a browser,
// its title and body filled in; "" when repo is "".
func compareURL(repo string, res *PRResult) string {
	host, path, ok := strings.Cut(repo, "/")
	if !ok {
		return ""
	}
	ref := escapeRef(res.Branch)
	if res.Base != "" {
		ref = escapeRef(res.Base) + "..." + ref
	}
	base := "https://" + host + "/" + path + "/compare/" + ref + "?expand=1&title=" + url.QueryEscape(res.Title)
	if full := base + "&body=" + url.QueryEscape(res.Body); len(full) <= maxCompareURL {
		return full
	}
	return base
}

// escapeRef escapes each part of a branch name for a URL path, its
// slashes kept as GitHub's compare page reads them.
func escapeRef(ref string) string {
	parts := strings.Split(ref, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}
