#!/usr/bin/env bash
# The terminal browser's smoke test in a real terminal (tmux): start `annals browse` on a small
# database, type a query, read the screen, open the chat, pin it, quit, and check with
# `annals list --json` that the pin is stored.
# Usage: .ci/tui-smoke.sh ANNALS_BINARY [SCREEN_FILE]  (SCREEN_FILE gets the screen of the open
# chat, as docs/TUI.md shows it). Run from the repository's root; needs tmux.
set -euo pipefail
bin=$(realpath "$1")
screen_file=${2:-}
tmp=$(mktemp -d)
sock="$tmp/tmux.sock"
t() { tmux -S "$sock" "$@"; }
cleanup() { t kill-server 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

db="$tmp/annals.db"
"$bin" ingest --db "$db" examples/first-chat.jsonl >/dev/null

# NO_COLOR keeps the captured screen plain; TZ fixes the times it shows.
t new-session -d -x 110 -y 32 -s browse \
	"env TERM=xterm-256color NO_COLOR=1 TZ=UTC '$bin' browse --db '$db'; echo BROWSE-EXITED-\$?; sleep 600"

screen() { t capture-pane -p -t browse; }
wait_for() {
	for _ in $(seq 1 100); do
		if screen | grep -qF -- "$1"; then return 0; fi
		sleep 0.1
	done
	echo "tui smoke: the screen never showed \"$1\"; it shows:"
	screen
	exit 1
}

wait_for "2 recent chats"
t send-keys -t browse -l "rounding"
wait_for "1 of 1 chat matches"
screen | grep -qF "Fix failing TestTotalRoundsHalfUp" || { echo "tui smoke: the result is missing"; screen; exit 1; }
t send-keys -t browse Enter
sleep 0.2
t send-keys -t browse Enter
wait_for "fails on main since yesterday"
if [ -n "$screen_file" ]; then screen > "$screen_file"; fi
t send-keys -t browse p
wait_for "pinned “Fix failing"
t send-keys -t browse q
wait_for "BROWSE-EXITED-0"

"$bin" list --db "$db" --pinned --json > "$tmp/pinned.json"
grep -q '"id":"c-7f3a91e2"' "$tmp/pinned.json" || { echo "tui smoke: the pin is not stored:"; cat "$tmp/pinned.json"; exit 1; }
echo "tui smoke: searched, opened, pinned and quit in tmux; the pin is stored"
