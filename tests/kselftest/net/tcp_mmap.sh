#!/bin/sh
# TCP zero-copy receive with the kernel's tcp_mmap (tools/testing/selftests/net/tcp_mmap.c),
# which upstream runs by hand: a server (-s -z: reads with getsockopt(TCP_ZEROCOPY_RECEIVE)
# into a mapping of the socket, read() for what cannot be mapped) and a client that sends
# (MSG_ZEROCOPY), over IPv6 and IPv4 loopback with an MSS of one page plus the timestamp
# option (-M 4108, as tcp_mmap.c says for loopback), so that received segments can be mapped.
# The client would send 32 GiB: it is stopped after $secs s, and the server reports what it
# received on EOF ("received N MB (P % mmap'ed) ..."). TAP: the server accepted and received
# data, and part of it was received by TCP_ZEROCOPY_RECEIVE (P > 0).
cd "$(dirname "$0")" || exit 1
secs=${TCP_MMAP_SECONDS:-4}
port=8787
hexport=$(printf '%04X' $port)
n=0
fail=0

tap() { # tap ok|not-ok DESCRIPTION
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n $2"; else echo "not ok $n $2"; fail=1; fi
}

listening() {
	grep -q ":$hexport [0-9A-F:]* 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

one() { # one -6|-4 HOST
	log=/tmp/tcp_mmap.$$.log
	# The server reports with printf() when a connection ends and runs until it is killed:
	# on a terminal (ptyrun) that line is flushed, in a file it would die in the buffer.
	./ptyrun ./tcp_mmap -s -z -M 4108 "$1" >"$log" 2>&1 &
	server=$!
	i=0
	until listening; do
		i=$((i + 1))
		[ $i -le 100 ] || break
		sleep 0.1
	done
	timeout -s KILL "$secs" ./tcp_mmap -z -M 4108 "$1" -H "$2" >>"$log" 2>&1
	i=0
	until grep -q '^received ' "$log"; do
		i=$((i + 1))
		[ $i -le 200 ] || break
		sleep 0.1
	done
	kill $server 2>/dev/null   # ptyrun kills the server and copies what it wrote
	wait $server 2>/dev/null
	sed 's/^/# /' "$log"
	line=$(grep '^received ' "$log")
	rm -f "$log"
	if [ -n "$line" ]; then
		tap ok "tcp_mmap $1: the server accepted and received data"
	else
		tap not-ok "tcp_mmap $1: the server accepted and received data"
	fi
	# "received 123 MB (99.9 % mmap'ed) in ...": the percentage is the second field in ().
	pct=$(echo "$line" | sed -n 's/^received [^(]*(\([0-9.e+-]*\) % mmap.*/\1/p')
	echo "# mapped by TCP_ZEROCOPY_RECEIVE: ${pct:-no report}%"
	case $pct in
	'' | 0) tap not-ok "tcp_mmap $1: data received by TCP_ZEROCOPY_RECEIVE" ;;
	*) tap ok "tcp_mmap $1: data received by TCP_ZEROCOPY_RECEIVE" ;;
	esac
}

echo "TAP version 13"
echo "1..4"
one -6 ::1
one -4 127.0.0.1
exit $fail
