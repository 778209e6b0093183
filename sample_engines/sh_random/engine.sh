#!/bin/sh
# sh_random: a bidref/1 engine as a POSIX shell script (awk, and sed).
# It answers every request with a random action from the request's "legal"
# list. A bid is never chosen if anything else is legal (the view's
# "balances" are not read, so bids are avoided altogether).
#
# Every line is read with a small JSON scanner in awk (below), so any valid
# JSON object works: spaces, any order of keys, escapes such as \u0061 or \".
# It reads only the top-level "type", "id", "code" and "legal".

LC_ALL=C
export LC_ALL
PROTOCOL="bidref/1"
nl='
'
n=0
pending_id=""
pending_legal=""
last=""

# One JSON object on stdin -> its top-level type, id and code, one a line
# (empty when absent), then the strings of its top-level "legal" array, one a
# line, then a line "." (so that no trailing empty field is lost).
PARSE='
function hex(h,   i, v) {
    v = 0
    for (i = 1; i <= length(h); i++)
        v = v * 16 + index("0123456789abcdef", tolower(substr(h, i, 1))) - 1
    return v
}
function utf8(c) {
    if (c < 128) return sprintf("%c", c)
    if (c < 2048) return sprintf("%c%c", 192 + int(c / 64), 128 + c % 64)
    if (c < 65536) return sprintf("%c%c%c", 224 + int(c / 4096), 128 + int(c / 64) % 64,
                                  128 + c % 64)
    return sprintf("%c%c%c%c", 240 + int(c / 262144), 128 + int(c / 4096) % 64,
                   128 + int(c / 64) % 64, 128 + c % 64)
}
function ws() { while (pos <= len && index(" \t\r\n", substr(s, pos, 1))) pos++ }
# The JSON string at pos (an opening quote), decoded; pos moves past it.
function str(   out, c, e, u, lo) {
    out = ""
    pos++
    while (pos <= len) {
        c = substr(s, pos, 1)
        if (c == "\"") { pos++; return out }
        if (c != "\\") { out = out c; pos++; continue }
        e = substr(s, pos + 1, 1)
        pos += 2
        if (e == "n") out = out "\n"
        else if (e == "t") out = out "\t"
        else if (e == "r") out = out "\r"
        else if (e == "b") out = out "\b"
        else if (e == "f") out = out "\f"
        else if (e == "u") {
            u = hex(substr(s, pos, 4)); pos += 4
            if (u >= 55296 && u < 56320 && substr(s, pos, 2) == "\\u") {
                lo = hex(substr(s, pos + 2, 4)); pos += 6
                u = 65536 + (u - 55296) * 1024 + (lo - 56320)
            }
            out = out utf8(u)
        } else out = out e
    }
    return out
}
# Skip any JSON value at pos.
function skip(   depth, c) {
    ws()
    c = substr(s, pos, 1)
    if (c == "\"") { str(); return }
    if (c == "{" || c == "[") {
        depth = 0
        while (pos <= len) {
            c = substr(s, pos, 1)
            if (c == "\"") { str(); continue }
            if (c == "{" || c == "[") depth++
            else if (c == "}" || c == "]") { depth--; if (depth == 0) { pos++; return } }
            pos++
        }
        return
    }
    while (pos <= len && !index(",}] \t\r\n", substr(s, pos, 1))) pos++
}
{
    s = $0; len = length(s); pos = 1
    type = ""; id = ""; code = ""; nlegal = 0
    ws()
    if (substr(s, pos, 1) != "{") { print ""; print ""; print ""; print "."; next }
    pos++
    while (pos <= len) {
        ws()
        c = substr(s, pos, 1)
        if (c == ",") { pos++; continue }
        if (c != "\"") break
        key = str()
        ws(); if (substr(s, pos, 1) == ":") pos++; ws()
        c = substr(s, pos, 1)
        if (key == "type" && c == "\"") type = str()
        else if (key == "code" && c == "\"") code = str()
        else if (key == "id") { start = pos; skip(); id = substr(s, start, pos - start) }
        else if (key == "legal" && c == "[") {
            nlegal = 0; pos++
            while (pos <= len) {
                ws(); c = substr(s, pos, 1)
                if (c == "]") { pos++; break }
                if (c == ",") { pos++; continue }
                if (c == "\"") legal[++nlegal] = str(); else skip()
            }
        } else skip()
    }
    print type; print id; print code
    for (i = 1; i <= nlegal; i++) print legal[i]
    print "."
}'

# A random line of $1 that is not $2, and no bid when anything else is legal.
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

# Answer the pending request (avoiding $1, an action just refused), as JSON.
answer() {
    [ -n "$pending_legal" ] || return 0
    action=$(pick "$pending_legal" "$1")
    last="$action"
    case "$action" in  # escape what JSON needs escaped in a string (never in bidref notation)
        *[\\\"]*) action=$(printf '%s\n' "$action" | sed 's/[\\"]/\\&/g') ;;
    esac
    printf '{"type":"action","id":%s,"action":"%s"}\n' "$pending_id" "$action"
}

while IFS= read -r line; do
    n=$((n + 1))
    case "$line" in  # the referee's compact events and rules answers: nothing to do
        '{"type":"event",'* | '{"type":"rules",'*) continue ;;
    esac
    parsed=$(printf '%s\n' "$line" | awk "$PARSE")
    type=${parsed%%"$nl"*}; rest=${parsed#*"$nl"}
    id=${rest%%"$nl"*}; rest=${rest#*"$nl"}
    code=${rest%%"$nl"*}; rest=${rest#*"$nl"}
    legal=${rest%.}; legal=${legal%"$nl"}
    case "$type" in
        hello)
            printf '{"type":"hello","name":"sh_random","author":"bidref","version":"1","protocol":"%s"}\n' "$PROTOCOL"
            ;;
        request)
            pending_id=$id
            pending_legal=$legal
            answer ""
            ;;
        error)
            echo "sh_random: $line" >&2
            case "$code" in
                illegal | bad_action)
                    [ "$id" = "$pending_id" ] && answer "$last" ;;
            esac
            ;;
        ping)
            printf '{"type":"pong","id":%s}\n' "$id"
            ;;
        quit)
            exit 0
            ;;
    esac
done
exit 0
