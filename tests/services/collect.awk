# tests/services/collect.awk: the figures of one case of tests/services/services.sh, printed as
# shell assignments (r_KEY='VALUE') that svc_assert and svc_summary source; one awk for all of
# them (every process costs under TCG).  Inputs, told apart by their names:
#   NAME.out      svcbench's lines (role=benign|attack|watch)
#   NAME.props    systemctl show -p Id,ActiveState,NRestarts,Result of the case's units
#   NAME.records  Brute's records that audit.log gained during the case
#   NAME.journal  brute-reportd's journal entries of the case (journalctl -o json)
#   NAME.siem     the lines the SIEM (rsyslog) received during the case
#   peers         /sys/kernel/security/brute/peers after the case
# Variables (-v): unit (the unit whose processes crash), restarts0 (the units' NRestarts before),
# dropped0 (Brute's records_dropped before: records carry the total since boot).
function emit(k, v) {
	gsub(/'/, "", v)
	printf "r_%s='%s'\n", k, v
}
# value of KEY= among the fields of the current line ("" if none)
function val(key,   i) {
	for (i = 1; i <= NF; i++)
		if (index($i, key "=") == 1)
			return substr($i, length(key) + 2)
	return ""
}
function add(list, item) { return list (list == "" ? "" : ",") item }
function counts(arr,   k, s) {
	s = ""
	for (k in arr)
		s = add(s, k ":" arr[k])
	return s
}
FILENAME ~ /\.out$/ {
	if ($1 == "role=benign") {
		n = val("name")
		clients = clients (clients == "" ? "" : " ") n
		for (i = 3; i <= NF; i++) {
			split($i, kv, "=")
			emit("benign_" n "_" kv[1], kv[2])
		}
	} else if ($1 == "role=attack") {
		for (i = 3; i <= NF; i++) {
			split($i, kv, "=")
			emit("attack_" kv[1], kv[2])
		}
	} else if ($1 == "role=watch") {
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			emit("watch_" kv[1], kv[2])
		}
	} else if ($0 ~ /^error=/ || $0 ~ /^svcbench: /) {
		error = add(error, $0)
	}
	next
}
FILENAME ~ /\.props$/ {
	if ($0 == "")
		next
	split($0, kv, "=")
	if (kv[1] == "Id") {
		id = kv[2]
		sub(/\.service$/, "", id)
	} else if (kv[1] == "ActiveState") {
		states = add(states, id ":" kv[2])
		if (kv[2] != "active")
			inactive = add(inactive, id ":" kv[2])
	} else if (kv[1] == "NRestarts") {
		nrestarts += kv[2]
	} else if (kv[1] == "Result" && kv[2] == "start-limit-hit") {
		limit++
	}
	next
}
FILENAME ~ /\.records$/ {
	type = $1
	sub(/^type=/, "", type)
	if (type == "UNKNOWN[1712]" || type == "BRUTE_CRASH") {
		if (val("sig") == "")
			next			# the (user, target) table's charge, not a crash of its own
		crashes++
		f = val("faults") + 0
		if (f > faults_max)
			faults_max = f
		s = val("source")
		if (s != "")
			src[s]++
		s = val("input")
		if (s != "")
			inp[s]++
		p = val("peer")
		if (p != "")
			charged[p]++
	} else if (type == "UNKNOWN[1713]" || type == "BRUTE_ATTACK") {
		attacks++
		att[val("attack")]++
		m = val("mitigation")
		if (m != "")
			mit[val("attack") "/" m]++
	} else if (type == "UNKNOWN[1714]" || type == "BRUTE_KILL") {
		if (val("opid") != "")
			kills++
	} else if (type == "UNKNOWN[1718]" || type == "BRUTE_PEER_BAN") {
		peer_bans++
		p = val("peer")
		if (!(p in banned_seen)) {
			banned_seen[p] = 1
			banned = banned (banned == "" ? "" : " ") p
		}
	}
	r = val("records_dropped")
	if (r != "")
		dropped = r
	next
}
FILENAME ~ /\.journal$/ {
	if ($0 ~ /"MESSAGE_ID":"72daa15b2f794fafa7bedff6fcaee907"/) {
		j_attacks++
		if (index($0, "\"OBJECT_SYSTEMD_UNIT\":\"" unit "\""))
			j_attacks_unit++
	} else if ($0 ~ /"MESSAGE_ID":"79ecec051cb34c3a91486f64fd349085"/) {
		j_peer_bans++
		if (index($0, "\"OBJECT_SYSTEMD_UNIT\":\"" unit "\""))
			j_peer_bans_unit++
	} else {
		next
	}
	if (match($0, /"OBJECT_SYSTEMD_UNIT":"[^"]*"/))
		junits[substr($0, RSTART + 23, RLENGTH - 24)]++
	else
		junits["none"]++
	next
}
FILENAME ~ /\.siem$/ {
	if (index($0, "kind=\"attack\""))
		s_attacks++
	else if (index($0, "kind=\"peer_ban\""))
		s_peer_bans++
	next
}
FILENAME ~ /peers$/ {
	if (val("ban_left_s") + 0 > 0)
		bans_now = bans_now (bans_now == "" ? "" : " ") val("peer")
	next
}
END {
	emit("benign_clients", clients)
	emit("error", error)
	emit("units", states)
	emit("units_inactive", inactive)
	emit("unit_nrestarts", nrestarts - restarts0)
	emit("start_limit_results", limit + 0)
	emit("k_crashes", crashes + 0)
	emit("k_faults_max", faults_max + 0)
	emit("k_sources", counts(src))
	emit("k_inputs", counts(inp))
	emit("k_charged", counts(charged))
	emit("k_attacks", attacks + 0)
	emit("k_attack_peer", att["peer"] + 0)
	emit("k_attack_backstop", att["backstop"] + 0)
	emit("k_attack_fork", att["fork"] + 0)
	emit("k_attack_exec", att["exec"] + 0)
	emit("k_mitigations", counts(mit))
	emit("k_kills", kills + 0)
	emit("k_peer_bans", peer_bans + 0)
	emit("k_banned", banned)
	emit("k_records_dropped", dropped == "" ? 0 : dropped - dropped0)
	emit("bans_now", bans_now)
	emit("journal_attacks", j_attacks + 0)
	emit("journal_attacks_unit", j_attacks_unit + 0)
	emit("journal_peer_bans", j_peer_bans + 0)
	emit("journal_peer_bans_unit", j_peer_bans_unit + 0)
	emit("journal_units", counts(junits))
	emit("siem_attacks", s_attacks + 0)
	emit("siem_peer_bans", s_peer_bans + 0)
}
