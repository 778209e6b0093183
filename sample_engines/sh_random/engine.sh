#!/bin/sh
# sh_random: a bidref/1 engine as a POSIX shell script (sed and awk only).
# It answers every request with a random action from the request's "legal"
# list, which the referee writes last on the line in compact JSON, e.g.
#   {"type":"request","id":7,"view":{...},"clock":{...},"legal":["draw"]}
# A bid is never chosen if it would cost the whole balance (the view's
# "balances" are not parsed here, so bids are avoided altogether unless
# they are all that is legal).

PROTOCOL="bidref/1"
n=0
pending_id=""
pending_legal=""

# The quoted strings of the request's top-level "legal" array, one a line.
legal_list() {
    printf '%s\n' "$1" | sed -n 's/.*"legal":\[\(.*\)\]}[[:space:]]*$/\1/p' \
        | awk 'BEGIN { RS = "," } { gsub(/^[ \n"]+|[ \n"]+$/, ""); if ($0 != "") print }'
}

# A random line of $1 that is not $2 (and no bid when anything else is legal).
pick() {
    printf '%s\n' "$1" | awk -v seed="$$$n" -v avoid="$2" '
        $0 != avoid && $0 !~ /^bid / { keep[++k] = $0 }
        { all[++a] = $0 }
        END {
            srand(seed)
            if (k > 0) print keep[int(rand() * k) + 1]
            else print all[int(rand() * a) + 1]
        }'
}

answer() {
    action=$(pick "$pending_legal" "$1")
    printf '{"type":"action","id":%s,"action":"%s"}\n' "$pending_id" "$action"
    last="$action"
}

while IFS= read -r line; do
    n=$((n + 1))
    case "$line" in
        '{"type":"hello"'*)
            printf '{"type":"hello","name":"sh_random","author":"bidref","version":"1","protocol":"%s"}\n' "$PROTOCOL"
            ;;
        '{"type":"request"'*)
            pending_id=$(printf '%s\n' "$line" | awk 'match($0, /"id":[0-9]+/) { print substr($0, RSTART + 5, RLENGTH - 5) }')
            pending_legal=$(legal_list "$line")
            answer ""
            ;;
        '{"type":"error"'*)
            echo "sh_random: $line" >&2
            case "$line" in
                *'"code":"illegal"'* | *'"code":"bad_action"'*)
                    [ -n "$pending_id" ] && answer "$last" ;;
            esac
            ;;
        '{"type":"ping"'*)
            id=$(printf '%s\n' "$line" | awk 'match($0, /"id":[0-9]+/) { print substr($0, RSTART + 5, RLENGTH - 5) }')
            printf '{"type":"pong","id":%s}\n' "$id"
            ;;
        '{"type":"quit"'*)
            exit 0
            ;;
    esac
done
exit 0
