#!/usr/bin/env bash
# Issue 28's "Done when", by hand and repeatable: the console used through a real `ssh`
# session, dropped while `$EDITOR` is open on the composer's draft, and reconnected.
#
#   scripts/ssh-drop.sh                    # drops the ssh client (kill -9), then the
#                                          # server's side of the session (kill -9 sshd)
#   DROP=client scripts/ssh-drop.sh        # only one of them
#   DOCDECK_BIN=target/release/docdeck scripts/ssh-drop.sh
#   KEEP=1 scripts/ssh-drop.sh             # keep the temporary folder (logs, journal)
#
# Needs: sshd and ssh (Debian: apt-get install openssh-server), tmux, python3. Runs a
# throwaway sshd on a free loopback port with its own host key and authorized_keys, and
# `docdeck serve` on another, all in a temporary folder; `ssh -tt` into it inside tmux
# (socket docdeck-ssh-PID), runs the console there with EDITOR set to a script that
# writes a line to the draft's file (as `:w` would) and stays open. Then it drops the
# connection and checks: the console exited 129 without a panic, the editor was ended,
# nothing of the console is left running; then it reconnects and checks the draft holds
# what the editor wrote. Exit 0 when every check held. Not run by CI (it needs sshd).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${DOCDECK_BIN:-$ROOT/target/debug/docdeck}")
SSHD=${SSHD:-/usr/sbin/sshd}
DROPS=${DROP:-client server}
T=$(mktemp -d /tmp/docdeck-ssh.XXXXXX)
SOCK=docdeck-ssh-$$
KEY=mint_ssh_drop_0123456789abcdef
TEXT="written in the editor over ssh"
FAILED=0

say() { printf '%s\n' "$*"; }
check() { # check WHAT COMMAND...
    local what=$1
    shift
    if "$@"; then say "  ok: $what"; else say "  FAILED: $what"; FAILED=1; fi
}
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_for() { # wait_for SECONDS COMMAND...
    local until=$((SECONDS + $1))
    shift
    while ! "$@"; do
        if ((SECONDS >= until)); then return 1; fi
        sleep 0.1
    done
}
pane() { tmux -L "$SOCK" capture-pane -p -t drop; }
pane_has() { pane | grep -qF -- "$1"; }

cleanup() {
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    [[ -f $T/sshd.pid ]] && kill "$(cat "$T/sshd.pid")" 2>/dev/null || true
    [[ -n ${SERVE_PID:-} ]] && kill "$SERVE_PID" 2>/dev/null || true
    if [[ -n ${KEEP:-} ]]; then say "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

[[ -x $SSHD ]] || { say "no sshd at $SSHD: apt-get install openssh-server"; exit 2; }
[[ -x $BIN ]] || { say "no docdeck at $BIN: cargo build -j 1"; exit 2; }

# The throwaway sshd.
ssh-keygen -q -t ed25519 -N '' -f "$T/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$T/client_key"
cp "$T/client_key.pub" "$T/authorized_keys"
SSH_PORT=$(free_port)
mkdir -p /run/sshd 2>/dev/null || true
cat >"$T/sshd_config" <<EOF
Port $SSH_PORT
ListenAddress 127.0.0.1
HostKey $T/host_key
AuthorizedKeysFile $T/authorized_keys
PidFile $T/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PrintMotd no
EOF
"$SSHD" -f "$T/sshd_config" -E "$T/sshd.log"
wait_for 10 test -s "$T/sshd.pid"

# The service the console talks to (its key in the environment, not on a command line).
SERVE_PORT=$(free_port)
DOCDECK_SERVE_API_KEY=$KEY "$BIN" serve --addr "127.0.0.1:$SERVE_PORT" \
    --db "$T/service.sqlite" --seed none >"$T/serve.log" 2>&1 &
SERVE_PID=$!
wait_for 20 grep -q "local service ready" "$T/serve.log"

# What runs at the other end of the ssh session, and the editor.
mkdir -p "$T/home" "$T/tmp"
cat >"$T/editor.sh" <<EOF
#!/bin/sh
# Writes to the draft's file as ':w' would, and stays open.
printf '%s\n' "$TEXT" >>"\$1"
echo \$\$ >"$T/editor.pid"
exec sleep 300
EOF
cat >"$T/remote.sh" <<EOF
#!/bin/sh
export HOME=$T/home XDG_CONFIG_HOME=$T/home/config XDG_DATA_HOME=$T/home/data
export LANG=C.UTF-8 DOCDECK_NOTIFY=off EDITOR=$T/editor.sh TMPDIR=$T/tmp
export DOCDECK_BASE_URL=http://127.0.0.1:$SERVE_PORT DOCDECK_PROJECT_ID=demo
export DOCDECK_API_KEY=\$(cat $T/key)
echo \$\$ >$T/remote.pid
# The shell outlives the hangup to report the console's exit code.
trap ':' HUP
"$BIN" 2>>$T/console.stderr
echo \$? >>$T/exits
EOF
printf '%s' "$KEY" >"$T/key"
chmod 700 "$T/editor.sh" "$T/remote.sh"
SSH="ssh -tt -p $SSH_PORT -i $T/client_key -o StrictHostKeyChecking=no \
-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR $(id -un)@127.0.0.1 $T/remote.sh"

tmux -L "$SOCK" -f /dev/null new-session -d -s drop -x 80 -y 24 "bash --norc --noprofile"
tmux -L "$SOCK" set -g escape-time 0
tmux -L "$SOCK" set -g remain-on-exit on

connect() {
    rm -f "$T/remote.pid"
    tmux -L "$SOCK" send-keys -t drop "$SSH" Enter
    wait_for 20 test -s "$T/remote.pid" || return 1
    wait_for 20 pane_has "1 Jobs"
}

for drop in $DROPS; do
    say "drop: $drop"
    rm -f "$T/exits" "$T/editor.pid"
    : >"$T/console.stderr"
    check "the console opens through ssh" connect
    REMOTE=$(cat "$T/remote.pid")
    CONSOLE=$(pgrep -P "$REMOTE" | head -1)
    SSHD_SESSION=$(ps -o ppid= -p "$REMOTE" | tr -d ' ')
    SSH_CLIENT=$(pgrep -P "$(tmux -L "$SOCK" display -p -t drop '#{pane_pid}')" ssh | head -1)
    tmux -L "$SOCK" send-keys -t drop 2
    wait_for 10 pane_has "Composer" || true
    tmux -L "$SOCK" send-keys -t drop -l "typed before the editor"
    tmux -L "$SOCK" send-keys -t drop C-e
    check "the editor runs and writes the draft's file" wait_for 10 test -s "$T/editor.pid"
    EDITOR_PID=$(cat "$T/editor.pid")
    case $drop in
    client) kill -KILL "$SSH_CLIENT" ;;
    server) kill -KILL "$SSHD_SESSION" ;;
    esac
    check "the console ends" wait_for 10 test -s "$T/exits"
    check "exit code 129 (got $(cat "$T/exits" 2>/dev/null))" test "$(cat "$T/exits" 2>/dev/null)" = 129
    check "no panic on standard error" bash -c "! grep -qi panick '$T/console.stderr'"
    check "the editor was ended" wait_for 5 bash -c "! kill -0 $EDITOR_PID 2>/dev/null"
    check "nothing of the console is left running" wait_for 5 bash -c "! kill -0 $CONSOLE 2>/dev/null"
    check "no temporary draft file is left" bash -c "! find '$T/tmp' -type f | grep -q ."
    say "  the local pane after the drop: $(tmux -L "$SOCK" display -p -t drop \
        'alternate screen #{alternate_on}, mouse #{mouse_any_flag}, cursor shown #{cursor_flag}')"
    # Back at the local shell (a killed client leaves the local terminal as it was).
    tmux -L "$SOCK" send-keys -t drop C-c
    tmux -L "$SOCK" send-keys -t drop "stty sane; tput rmcup; printf '\\033[?1000l\\033[?1002l\\033[?1006l'; clear" Enter
    sleep 0.5
    rm -f "$T/exits"
    check "reconnects" connect
    tmux -L "$SOCK" send-keys -t drop 2
    check "the draft holds what the editor wrote" wait_for 10 pane_has "$TEXT"
    check "and what was typed before" pane_has "typed before the editor"
    pane | sed 's/^/  | /'
    # Leave the composer, the draft kept, and quit.
    tmux -L "$SOCK" send-keys -t drop Escape
    sleep 0.3
    tmux -L "$SOCK" send-keys -t drop q
    check "quits with exit 0" wait_for 10 bash -c "test \"\$(cat '$T/exits' 2>/dev/null)\" = 0"
    # The next round starts from an empty draft.
    rm -rf "$T/home/data"
    tmux -L "$SOCK" send-keys -t drop clear Enter
done

if ((FAILED)); then say "some checks failed (KEEP=1 keeps $T)"; exit 1; fi
say "every check held"
