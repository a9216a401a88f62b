# Reads `objdump -d` of brute-demo-server, prints the stack layout of handle() as shell
# assignments (brute-demo.layout); fails when handle() does not look as expected.  POSIX awk (mawk has no strtonum).
function hex(s,  i, n) {
	n = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++)
		n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n
}
/^[0-9a-f]+ <handle>:/ { inside = 1; next }
inside && /^$/ { inside = 0 }
!inside { next }
/\tpush +%/ && !frame { pushes++ }
/\tsub +\$0x[0-9a-f]+,%rsp/ { match($0, /\$0x[0-9a-f]+/); frame = hex(substr($0, RSTART + 1, RLENGTH - 1)) }
/mov +%fs:0x28,%rax/ { canary_next = 1; next }
canary_next && /mov +%rax,0x[0-9a-f]+\(%rsp\)/ {
	match($0, /0x[0-9a-f]+\(/); canary = hex(substr($0, RSTART, RLENGTH - 1)); canary_next = 0
}
/lea +0x[0-9a-f]+\(%rsp\),%rsi/ { match($0, /0x[0-9a-f]+\(/); lea = hex(substr($0, RSTART, RLENGTH - 1)) }
/call.*<read_full>/ { calls++; if (calls == 2) buf = lea }
END {
	if (!frame || !canary || calls < 2 || target == "0x") {
		print "layout.awk: cannot read handle()'s frame" > "/dev/stderr"; exit 1
	}
	printf "canary_offset=%d\nret_offset=%d\ntarget=%s\n", canary - buf, frame + 8 * pushes - buf, target
}
