package shellparse

import (
	"path/filepath"
	"strings"
)

// networkClients talk to other machines; any of them can carry project data
// out, so each use is reported.
var networkClients = setOf("wget", "curl", "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "ftp", "tftp",
	"telnet", "rclone", "lftp", "smbclient", "sendmail", "mail", "mailx", "mutt", "http", "https", "xh",
	"aria2c", "httpie", "dig", "nslookup", "host", "ping", "ping6", "traceroute", "mosh", "rsh", "rlogin",
	"iwr", "irm", "invoke-webrequest", "invoke-restmethod", "start-bitstransfer", "bitsadmin", "certutil",
	"gsutil", "azcopy", "s3cmd", "ngrok", "cloudflared", "tailscale", "openssl", "websocat", "grpcurl", "lwp-request")

// dbClients take SQL or commands on their command line.
var dbClients = setOf("psql", "mysql", "mariadb", "sqlite3", "sqlcmd", "cockroach", "clickhouse-client", "mongo",
	"mongosh", "redis-cli", "cqlsh", "duckdb", "sqlplus", "influx", "pgcli", "mycli", "litecli", "usql")

// destructiveSQL are statements that destroy data, matched in upper case.
var destructiveSQL = []string{"DROP ", "DROP\t", "TRUNCATE", "DELETE FROM", "FLUSHALL", "FLUSHDB", "DROPDATABASE",
	".DROP(", "DELETEMANY", "ALTER TABLE", "DROP_DATABASE", "DEL "}

func hasDestructiveSQL(args []string) bool {
	up := strings.ToUpper(strings.Join(args, " "))
	for _, s := range destructiveSQL {
		if strings.Contains(up, s) {
			return true
		}
	}
	return false
}

// infraTools change cloud or cluster state; verbs lists the subcommand words
// that create, change or destroy.
var infraTools = map[string][]string{
	"terraform":      {"apply", "destroy", "import", "taint", "untaint", "rm", "mv", "force-unlock", "push", "delete", "replace"},
	"tofu":           {"apply", "destroy", "import", "taint", "untaint", "rm", "mv", "force-unlock", "delete"},
	"terragrunt":     {"apply", "destroy", "run-all", "import", "delete"},
	"pulumi":         {"up", "update", "destroy", "refresh", "cancel", "rm", "import", "delete"},
	"kubectl":        {"delete", "apply", "create", "replace", "patch", "scale", "drain", "cordon", "uncordon", "rollout", "edit", "set", "label", "annotate", "taint", "exec", "cp", "run", "expose", "autoscale"},
	"oc":             {"delete", "apply", "create", "replace", "patch", "scale", "rollout", "edit", "exec"},
	"helm":           {"install", "upgrade", "uninstall", "delete", "rollback", "push"},
	"cdk":            {"deploy", "destroy", "bootstrap"},
	"serverless":     {"deploy", "remove"},
	"sls":            {"deploy", "remove"},
	"eksctl":         {"create", "delete", "upgrade", "scale", "drain"},
	"doctl":          {"delete", "create", "update"},
	"flyctl":         {"deploy", "destroy", "scale", "secrets"},
	"fly":            {"deploy", "destroy", "scale", "secrets"},
	"vercel":         {"deploy", "--prod", "rm", "remove", "env", "alias", "promote"},
	"netlify":        {"deploy", "sites:delete", "env:set"},
	"heroku":         {"apps:destroy", "destroy", "ps:scale", "config:set", "releases:rollback", "pg:reset"},
	"firebase":       {"deploy", "hosting:disable", "firestore:delete", "database:remove"},
	"wrangler":       {"deploy", "publish", "delete", "secret", "rollback"},
	"nomad":          {"run", "stop", "purge"},
	"ansible":        {"-m", "--module-name", "-a"},
	"az":             {"delete", "create", "deploy", "update", "set", "purge", "stop", "restart"},
	"gcloud":         {"delete", "create", "deploy", "update", "set", "remove", "reset", "stop", "resize"},
	"aws":            {"rm", "rb", "mv", "sync", "cp", "deploy", "delete", "terminate", "remove", "put", "create", "update", "stop", "modify", "detach", "revoke", "purge", "invoke"},
	"docker-compose": {"down", "rm"},
	"vagrant":        {"destroy", "up", "halt"},
	"packer":         {"build"},
}

// publishers ship packages or releases to the world.
var publishers = map[string][]string{
	"npm": {"publish", "unpublish", "deprecate", "dist-tag", "owner", "access"}, "yarn": {"publish", "npm"},
	"pnpm": {"publish"}, "bun": {"publish"}, "cargo": {"publish", "yank", "owner", "login"}, "twine": {"upload", "register"},
	"gem": {"push", "yank", "owner"}, "poetry": {"publish"}, "flit": {"publish"}, "hatch": {"publish"},
	"mvn": {"deploy", "release:perform"}, "gradle": {"publish", "publishToMavenCentral", "uploadArchives"},
	"docker": {"push", "login"}, "podman": {"push"}, "vsce": {"publish", "unpublish"}, "ovsx": {"publish"},
	"dart": {"pub"}, "flutter": {"pub"}, "mix": {"hex.publish"}, "dotnet": {"nuget"}, "nuget": {"push", "delete"},
	"gh": {"release", "repo", "gist", "secret", "pr", "issue", "api", "workflow"}, "glab": {"release", "repo", "mr"},
	"goreleaser": {"release"}, "jf": {"rt"}, "conda": {"upload"}, "anaconda": {"upload"},
}

// moreDangers recognises publishing, infrastructure, database, persistence,
// history wiping and network clients.
func (z *analyser) moreDangers(name, lname string, words []word, args []string, text string) (Level, bool) {
	hit := func(class, why string) (Level, bool) {
		z.danger(class, text, why)
		return LevelUnknown, true
	}
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	if verbs, ok := publishers[lname]; ok && hasAnyArg(args[:min(len(args), 2)], verbs...) {
		publish := true
		switch lname {
		case "gh", "glab":
			publish = ghPublishes(args)
		case "dart", "flutter", "yarn":
			publish = hasAnyArg(args, "publish")
		case "dotnet":
			publish = hasAnyArg(args, "push", "delete")
		}
		if publish {
			return hit(ClassPublish, name+" "+strings.Join(args[:min(len(args), 2)], " ")+" publishes to a registry or remote")
		}
	}
	if verbs, ok := infraTools[lname]; ok {
		for _, a := range args {
			for _, v := range verbs {
				if a == v || strings.HasPrefix(a, v+"-") || lname == "aws" && strings.HasPrefix(a, v) {
					return hit(ClassInfra, name+" "+a+" changes infrastructure")
				}
			}
		}
		return z.unknown("`" + name + "` talks to infrastructure and is not a known-safe command"), true
	}
	if lname == "docker" || lname == "podman" {
		if sub == "compose" && hasAnyArg(args, "down", "rm") || hasAnyArg(args[:min(len(args), 2)], "volume", "system", "container", "image") && hasAnyArg(args, "rm", "prune") {
			return hit(ClassInfra, name+" "+strings.Join(args[:min(len(args), 3)], " ")+" removes containers, images or volumes")
		}
	}
	if lname == "ansible-playbook" || lname == "chef-client" || lname == "puppet" || lname == "salt" || lname == "knife" {
		return hit(ClassInfra, name+" applies configuration to machines")
	}
	switch lname {
	case "dropdb", "dropuser", "mysqladmin":
		if lname != "mysqladmin" || hasAnyArg(args, "drop") {
			return hit(ClassDatabase, name+" drops a database")
		}
	case "rails", "rake", "bin/rails":
		for _, a := range args {
			if a == "db:drop" || a == "db:reset" || a == "db:schema:load" || a == "db:purge" || a == "db:truncate_all" {
				return hit(ClassDatabase, name+" "+a+" destroys database data")
			}
		}
	case "prisma":
		if hasAnyArg(args, "reset") || hasFlag(args, "", "--force-reset", "--accept-data-loss") {
			return hit(ClassDatabase, "prisma resets the database")
		}
	case "crontab", "at", "batch", "schtasks", "register-scheduledtask", "new-scheduledtask", "new-service", "sc", "sc.exe":
		if lname == "crontab" && (hasFlag(args, "l", "") && !hasFlag(args, "re", "")) {
			return LevelReadOnly, true
		}
		if (lname == "sc" || lname == "sc.exe") && !hasAnyArgFold(args, "create", "config", "delete") {
			break
		}
		return hit(ClassPersistence, name+" schedules or installs something that runs later")
	case "systemctl", "launchctl":
		for _, a := range args {
			if a == "enable" || a == "link" || a == "load" || a == "bootstrap" || a == "submit" || a == "preset" || a == "edit" || a == "set-property" {
				return hit(ClassPersistence, name+" "+a+" installs something that runs at start-up")
			}
		}
	case "journalctl":
		if hasAnyArgPrefix(args, "--vacuum", "--rotate", "--flush") {
			return hit(ClassHistoryWipe, "journalctl "+strings.Join(args, " ")+" deletes system logs")
		}
	case "wevtutil":
		if hasAnyArgFold(args, "cl", "clear-log") {
			return hit(ClassHistoryWipe, "wevtutil cl clears Windows event logs")
		}
	case "clear-eventlog", "clear-history", "remove-eventlog":
		return hit(ClassHistoryWipe, name+" clears logs or history")
	case "git":
		if sub == "send-email" || sub == "imap-send" || sub == "daemon" || sub == "instaweb" {
			return hit(ClassNetwork, "git "+sub+" sends data over the network")
		}
	case "npm", "yarn", "pnpm", "pip", "pip3", "gem", "cargo", "poetry", "conda", "bundle", "go":
		if sub == "config" && hasAnyArg(args, "set", "delete", "edit", "unset", "--global") || lname == "bundle" && sub == "config" ||
			lname == "go" && sub == "env" && hasFlag(args, "", "-w") {
			return hit(ClassPersistence, name+" "+strings.Join(args, " ")+" changes package-manager configuration")
		}
	}
	if dbClients[lname] && hasDestructiveSQL(args) {
		return hit(ClassDatabase, name+" runs a statement that destroys data")
	}
	if networkClients[lname] && lname != "curl" && lname != "wget" && !(lname == "openssl" && !hasAnyArg(args, "s_client", "s_server")) && !(lname == "certutil" && !hasAnyArgFold(args, "-urlcache", "/urlcache")) {
		return hit(ClassNetwork, "`"+name+"` is not a known-safe command: it talks to the network, so data could leave the machine")
	}
	if lname == "rsync" && hasRemote(args) {
		return hit(ClassNetwork, "rsync to or from another host")
	}
	return 0, false
}

// ghPublishes reports gh subcommands that publish or change remote state.
func ghPublishes(args []string) bool {
	if len(args) < 2 {
		return false
	}
	switch args[1] {
	case "create", "upload", "delete", "edit", "merge", "close", "set", "run", "fork", "rename", "archive", "comment":
		return true
	}
	return args[0] == "api" && hasFlag(args, "XfF", "--method", "--field", "--raw-field", "--input")
}

func hasRemote(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && (strings.Contains(a, ":") || strings.HasPrefix(a, "rsync://")) {
			return true
		}
	}
	return false
}

// historyFile reports shell history files and system logs.
func (z *analyser) historyFile(abs string) bool {
	base := filepath.Base(abs)
	if strings.HasSuffix(base, "_history") || base == ".history" || base == "wtmp" || base == "btmp" || base == "lastlog" || base == "utmp" {
		return true
	}
	return within(abs, "/var/log") || within(abs, "/private/var/log")
}
