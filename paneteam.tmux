#!/bin/sh
# paneteam's tmux plugin, for TPM (https://github.com/tmux-plugins/tpm).
# In ~/.tmux.conf, before TPM's own run line:
#
#   set -g @plugin 'paneteam/paneteam'
#   set -g status-right '#{paneteam_status} %H:%M'   # the team status, optional
#
# then prefix + I. Each key below is changed with its option, or switched
# off with "off":
#
#   set -g @paneteam-inbox 'O'      # prefix + O watches the lead's inbox
#   set -g @paneteam-attach 'off'   # no attach key
#
# @paneteam-bin names the paneteam binary when it is not on tmux's PATH.
#
# Notices are off unless asked for. With a team named for every session,
#
#   set -g @paneteam-team 'review'
#   set -g @paneteam-notify 'tmux,terminal'   # or 'tmux', or 'terminal'
#
# the plugin starts `paneteam monitor --notify` in the background for that
# team: a message in the message line and a bell in the window of a
# teammate that needs you, finished its task or died, or when the whole
# team is idle ('terminal': the terminal's own desktop notification too,
# which needs set -g allow-passthrough on). docs/NOTICES.md.
# Teams brought back after tmux-resurrect restores (off unless asked for):
#
#   set -g @paneteam-resume-after-restore 'on'
#
# chains 'paneteam resume --all' after resurrect's post-restore-all hook
# (after any command you set there yourself, before TPM's run line): every
# team paneteam led whose lead and panes went away within the last day
# comes back, its teammates on paneteam's own tmux server ('paneteam
# attach' shows them), never in the panes resurrect restored, each run as
# its launch record says (its PATH and config folder, not the hook's).
# The tmux server becomes those teams' lead. docs/RESUME.md.
#
# The session's @paneteam-team option names the team the keys act on
# (tmux set-option @paneteam-team review).
#
# TPM throws away what a plugin prints, so problems are told in tmux's
# message line. The keys are the ones tmux.conf.example binds for people
# without TPM; a test checks both against one list.

say() {
	# Fixed texts only: tmux parses the hook below as a command and
	# expands formats in a message.
	msg="paneteam plugin: $*"
	if [ -n "$(tmux list-clients -F x 2>/dev/null)" ]; then
		tmux display-message -d 0 "$msg"
	else
		# tmux is still starting (TPM runs from the config, before any
		# client is there): tell the first client that gets a session.
		tmux set-hook -g 'client-session-changed[7391]' \
			"display-message -d 0 \"$msg\" ; set-hook -gu 'client-session-changed[7391]'"
	fi
}

opt() { tmux show-option -gqv "$1"; }

# display-popup as these bindings use it needs tmux 3.3.
version=$(tmux -V | sed 's/^tmux //; s/^next-//')
major=${version%%.*}
minor=${version#*.}
minor=${minor%%[!0-9]*}
case $major$minor in
*[!0-9]* | '') ;; # a build that does not say: try
*) if [ "$major" -lt 3 ] || { [ "$major" -eq 3 ] && [ "${minor:-0}" -lt 3 ]; }; then
	say "paneteam's keys need tmux 3.3 or later; this is tmux $version"
	exit 0
fi ;;
esac

bin=$(opt @paneteam-bin)
if [ -n "$bin" ]; then
	if [ ! -f "$bin" ] || [ ! -x "$bin" ]; then
		say "@paneteam-bin does not name an executable file: set it to the path of paneteam, or unset it to use PATH"
		exit 0
	fi
else
	bin=$(command -v paneteam)
	if [ -z "$bin" ]; then
		say "paneteam is not installed (not on the PATH tmux has): go install github.com/paneteam/paneteam/cmd/paneteam@latest, or set @paneteam-bin to its path; then press prefix + I"
		exit 0
	fi
fi

# binding NAME DEFAULT-KEY POPUP-FLAGS PANETEAM-ARGS...: prefix + the key
# opens a popup running paneteam with those arguments. The popup command
# is given as separate words, so tmux runs it as it is: no shell, no
# format expansion, whatever the path of the binary.
binding() {
	name=$1 key=$2 flags=$3
	shift 3
	set=$(opt "@paneteam-$name")
	[ -n "$set" ] && key=$set
	[ "$key" = off ] && return
	# shellcheck disable=SC2086 # flags are words without spaces
	if ! tmux bind-key -- "$key" display-popup $flags "$bin" "$@"; then
		say "@paneteam-$name is not a key tmux knows: set it to one such as T, C-t or M-t, or to off"
	fi
}

binding spawn-claude T "-E -w 80%" prompt spawn --claude
binding spawn-shell C-t "-E -w 80%" prompt spawn -- bash -l
binding send M "-E -w 80%" prompt send
binding inbox N "-EE -w 80% -h 60%" inbox-watch --mark-read
binding hide H "-E -w 80%" prompt hide
binding show S "-E -w 80%" prompt show
binding kill X "-E -w 80%" prompt kill-pane
binding requests P "-E -w 90% -h 80%" dashboard --requests
binding dashboard W "-E -w 95% -h 90%" dashboard
binding attach A "-EE -w 90% -h 90%" attach

# #{paneteam_status} in status-left or status-right becomes the team
# status. It runs through sh and tmux's format expansion, so a binary
# path with other characters than these is refused rather than quoted.
# tmux hands it the panes of this server (--panes, the format of
# tmux.StatusPanesFormat in paneteam's source), so that each refresh runs
# no tmux client of its own.
segment="#($bin status --format tmux --panes '#{S:#{W:#{P:#{pane_id}:#{pane_dead}:#{s/[^A-Za-z0-9@._-]//:@paneteam-agent} }}}')"
case $bin in
*[!A-Za-z0-9_./+-]*) segment= ;;
esac
for side in status-left status-right; do
	value=$(opt "$side")
	case $value in
	*'#{paneteam_status}'*) ;;
	*) continue ;;
	esac
	if [ -z "$segment" ]; then
		say "the path of paneteam has characters the status line cannot run safely: set @paneteam-bin to a path of letters, digits and / . _ - + only"
		break
	fi
	out=
	while :; do
		case $value in
		*'#{paneteam_status}'*)
			out=$out${value%%'#{paneteam_status}'*}$segment
			value=${value#*'#{paneteam_status}'}
			;;
		*) break ;;
		esac
	done
	tmux set-option -g "$side" "$out$value"
done

# Notices: one background monitor per server and team, started once even
# when the configuration is read again. Its output is not wanted (tmux
# would show it when it ends); it stops when the team is deleted.
notify=$(opt @paneteam-notify)
case $notify in
'' | off) ;;
*[!a-z,]*) say "@paneteam-notify takes tmux, terminal or tmux,terminal (or off)" ;;
*)
	name=$(opt @paneteam-team)
	case $bin$name in
	*[!A-Za-z0-9_./+-]*) say "@paneteam-notify: the team's name and the path of paneteam must be letters, digits and / . _ - + only" ;;
	*)
		if [ -z "$name" ]; then
			say "@paneteam-notify needs the team: set -g @paneteam-team NAME before TPM's run line, or run paneteam monitor --notify yourself"
		elif [ "$(opt @paneteam-notifying)" != "$name" ]; then
			tmux set-option -g @paneteam-notifying "$name"
			tmux run-shell -b "exec $bin monitor --team $name --notify $notify >/dev/null 2>&1"
		fi
		;;
	esac
	;;
esac

# After tmux-resurrect restores: resume --all, chained after the hook
# already set, once however often the configuration is read. TMUX is
# taken away so that the teammates go to paneteam's own server rather
# than into the windows resurrect restored; the server, which outlives
# the hook's shell, leads the teams.
case $(opt @paneteam-resume-after-restore) in
'' | off) ;;
on)
	case $bin in
	*[!A-Za-z0-9_./+-]*) say "@paneteam-resume-after-restore: the path of paneteam must be letters, digits and / . _ - + only" ;;
	*)
		server=$(tmux display-message -p '#{pid}')
		ours="env -u TMUX -u TMUX_PANE $bin resume --all --leader-pid $server >/dev/null 2>&1 &"
		hook=$(opt @resurrect-hook-post-restore-all)
		# A hook that already ends its command ('cmd &', 'cmd;') takes ours
		# after a space: "cmd & ; ours" is a syntax error that would stop
		# the person's command too.
		hook=${hook%"${hook##*[! ]}"}
		case $hook in
		*"$bin resume --all"*) ;;
		'') tmux set-option -g @resurrect-hook-post-restore-all "$ours" ;;
		*'&' | *';') tmux set-option -g @resurrect-hook-post-restore-all "$hook $ours" ;;
		*) tmux set-option -g @resurrect-hook-post-restore-all "$hook ; $ours" ;;
		esac
		;;
	esac
	;;
*) say "@paneteam-resume-after-restore takes on or off" ;;
esac
