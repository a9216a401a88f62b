#!/bin/bash
# The tools of the real-services scenarios (tests/services/, issue 30), on this machine:
# brute-fault.so makes a process fault (SIGSEGV in its own code) when a socket read returns
# its marker, through each interposed call (read, __read_chk, recv, recvfrom, recvmsg, readv)
# and across reads of one byte at a time, only in the program it is configured for; its
# ordinary bug faults once per period on benign requests; svcbench tells a crash, an answer
# and a service that is down apart.  A forking server (tests/services/test/faultsrv.c) on
# 127.0.0.1 stands for the daemons; the system guest runs the real ones (tests/system/5?-services-*).
. "$(dirname "$0")/lib.bash"
set -u
T=$(mktemp -d)
srv=
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$T"' EXIT

if ! out=$(gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$T/brute-fault.so" \
	"$top/tests/services/src/brute-fault.c" -ldl 2>&1 &&
	gcc -static -O2 -Wall -Wextra -Werror -o "$T/svcbench" "$top/tests/services/src/svcbench.c" 2>&1 &&
	gcc -O2 -Wall -Wextra -Werror -o "$T/faultsrv" "$top/tests/services/test/faultsrv.c" 2>&1); then
	not_ok "brute-fault.so, svcbench and faultsrv build (-Wall -Wextra -Werror)" "$out"
	exit 0
fi
ok "brute-fault.so, svcbench and faultsrv build (-Wall -Wextra -Werror)"

# start MODE ENV...: faultsrv under the library; its port in $port
start() {
	local mode=$1
	shift
	[ -n "$srv" ] && kill $srv 2>/dev/null
	rm -f "$T/port"
	env "$@" LD_PRELOAD="$T/brute-fault.so" "$T/faultsrv" "$mode" >"$T/port" &
	srv=$!
	for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
	port=$(cat "$T/port")
}
field() { sed -n "/^role=$2/s/.* $3=\([^ ]*\).*/\1/p" <<<"$1" | head -n 1; }
run() { "$T/svcbench" -R 5 -d 1 -t 1 "$@" 2>&1; }

for mode in read chk recv recvfrom recvmsg readv byte; do
	start $mode BRUTE_FAULT=faultsrv:BRUTEFAULT-X
	if [ $mode = byte ]; then
		out=$(run -b proto=ssh,to=127.0.0.1:$port,every=50 \
			-a proto=ssh,to=127.0.0.1:$port,id=SSH-2.0-BRUTEFAULT-X,every=100)
	else
		out=$(run -b to=127.0.0.1:$port,path=/ok,every=50 \
			-a to=127.0.0.1:$port,path=/ok?BRUTEFAULT-X,every=100)
	fi
	if [ "$(field "$out" benign pct)" = 100.00 ] && [ "$(field "$out" attack crashes)" -ge 5 ] &&
		[ "$(field "$out" attack crashes)" = "$(field "$out" attack sent)" ]; then
		ok "$mode: the marker faults the reader every time, benign requests are answered"
	else
		not_ok "$mode: the marker faults the reader every time, benign requests are answered" "$out"
	fi
done
# The marker is the configured program's only: another program's reads pass.
start read BRUTE_FAULT=nginx:BRUTEFAULT-X
out=$(run -a to=127.0.0.1:$port,path=/ok?BRUTEFAULT-X,every=100)
same "another program's marker: no fault (answered)" "0 $(field "$out" attack sent)" \
	"$(field "$out" attack crashes) $(field "$out" attack answered)"
# A SIGSEGV of the reader itself: cat reading the marker from a socket ('*': any program),
# and the same cat reading it from a pipe (not a socket: no fault).
sig=$(python3 -c '
import os, socket, sys
a, b = socket.socketpair()
a.sendall(b"GET /BRUTEFAULT-X\n"); a.close()
pid = os.fork()
if pid == 0:
    os.dup2(b.fileno(), 0); os.dup2(os.open("/dev/null", os.O_WRONLY), 1)
    os.execve("/bin/cat", ["cat"], dict(os.environ, BRUTE_FAULT="*:BRUTEFAULT-X", LD_PRELOAD=sys.argv[1]))
_, st = os.waitpid(pid, 0)
print(os.WTERMSIG(st) if os.WIFSIGNALED(st) else "exit %d" % os.WEXITSTATUS(st))
' "$T/brute-fault.so")
same "the marker read from a socket: SIGSEGV (11) of the reader (cat)" 11 "$sig"
piped=$(echo "GET /BRUTEFAULT-X" | BRUTE_FAULT='*:BRUTEFAULT-X' LD_PRELOAD="$T/brute-fault.so" cat)
same "the marker read from a pipe: no fault" "GET /BRUTEFAULT-X" "$piped"

# The ordinary bug: benign requests fault once per 300 ms, whichever child reads them.
start read BRUTE_FAULT_BUG=faultsrv:GET:300
out=$("$T/svcbench" -R 0 -d 2 -t 0 -b to=127.0.0.1:$port,path=/ok,every=20 2>&1)
failed=$(field "$out" benign failed_other)
if [ "${failed:-0}" -ge 4 ] && [ "${failed:-0}" -le 8 ] && [ "$(field "$out" benign answered)" -ge 40 ]; then
	ok "ordinary bug: one fault per period across the forked children ($failed in 2 s at 300 ms)"
else
	not_ok "ordinary bug: one fault per period across the forked children (4-8 in 2 s at 300 ms)" "$out"
fi

# svcbench: a service that is not there is down, not crashed.
kill $srv 2>/dev/null
wait $srv 2>/dev/null
srv=
out=$(run -R 0 -a to=127.0.0.1:$port,path=/ok,every=100)
same "svcbench: a refused connection counts as down, never as a crash" 0 "$(field "$out" attack crashes)"
[ "$(field "$out" attack down)" -ge 5 ] && ok "svcbench: refused connections counted as down" ||
	not_ok "svcbench: refused connections counted as down" "$out"

# svcbench's open loop (open=1): requests start on their schedule, whatever became of the
# others; a closed-loop client waits for each.  Against a server that answers after 400 ms,
# in 2 s at every=100: the open one sends ~20, all answered; the closed one ~4.
python3 -c '
import http.server, socketserver, sys, time
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        time.sleep(0.4)
        self.send_response(200); self.send_header("Content-Length", "3"); self.end_headers()
        self.wfile.write(b"ok\n")
    def log_message(self, *a): pass
class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 64
s = S(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
' >"$T/port" &
srv=$!
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
port=$(cat "$T/port")
out=$("$T/svcbench" -R 5 -d 2 -t 0 -b name=open,open=1,to=127.0.0.1:$port,every=100 \
	-b name=closed,to=127.0.0.1:$port,every=100 2>&1)
os=$(sed -n 's/^role=benign name=open sent=\([0-9]*\) answered=\([0-9]*\).*/\1 \2/p' <<<"$out")
cs=$(sed -n 's/^role=benign name=closed sent=\([0-9]*\).*/\1/p' <<<"$out")
if [ -n "$os" ] && [ -n "$cs" ] && [ "${os% *}" -ge 18 ] && [ "${os% *}" -le 23 ] &&
	[ "${os#* }" = "${os% *}" ] && [ "$cs" -le 6 ]; then
	ok "svcbench open=1: requests start on their schedule (sent, answered: $os; closed loop: $cs sent)"
else
	not_ok "svcbench open=1: requests start on their schedule, each answered; a closed loop waits" "$out"
fi
