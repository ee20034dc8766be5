#!/bin/sh
# bagtop play --publish-service-requests on the service events real rosbag2
# recorded (../shared/fixtures; skipped, exit 77, when absent), against
# tsvc, a server that prints the bytes of each request it takes. The bytes
# expected are laid out here from the spec (rmw_cyclonedds: a 16-byte
# request header, then the request in plain CDR, 8-byte values aligned from
# the sample's start, the sample padded to 4), not by bagtop's encoder:
#   - topics_and_services (sqlite3): /add_two_ints's 3 REQUEST_RECEIVED
#     events (a = 1, 2, 3; b = 3) become 3 requests, its 3 responses none;
#     the int64s sat 8 bytes further in the event (after its info and the
#     sequence count) than in the request, so a copy of the bytes fails;
#   - bag_with_topics_and_service_events (sqlite3 and MCAP), recorded from
#     the clients' side: nothing by default (service_introspection), 2
#     requests a service with --service-requests-source client_introspection
#     (test_msgs/srv/BasicTypes: every primitive and a string);
#   - a remap sends the requests to the service it names; without the flag
#     the events are published as events (the server takes none);
#   - no server: the requests are not sent and the player says so;
#   - a copy of the bag (in the scratch directory) whose definition is empty
#     and in no other source, or malformed: the service is not played, one
#     warning says why; one event cut short, or recorded with metadata
#     only: a warning, the others sent;
#   - usage errors.
# Domains 226 and 227.
set -u
B=${BAGTOP_BIN:?}
S=${BAGTOP_TSVC:?}
F=${BAGTOP_FIXTURES:-}
# shellcheck source=../integration/proc_lib.sh
. "${BAGTOP_SOURCE_DIR:?}/tests/integration/proc_lib.sh"
proc_scratch play-svc-requests

usage_error "service_introspection or client_introspection" play --publish-service-requests \
	--service-requests-source both /nonexistent
usage_error "goes with --publish-service-requests" play \
	--service-requests-source client_introspection /nonexistent
usage_error "goes with --publish-service-requests" burst \
	--service-requests-source service_introspection /nonexistent

if [ -z "$F" ] || [ ! -d "$F/topics_and_services" ]; then
	echo "SKIPPED: no fixtures (../shared/fixtures/rosbag2)"
	exit 77
fi
M=$(dirname "$F")/rosbag2-mcap

# ---- bytes from the spec ----
le() { # le BYTES VALUE: VALUE as BYTES little-endian bytes, in hex
	_v=$2 _o=""
	for _i in $(seq "$1"); do
		_o="$_o$(printf '%02x' $((_v & 255)))"
		_v=$((_v >> 8))
	done
	echo "$_o"
}
zeros() { le "$1" 0; }
# example_interfaces/srv/AddTwoInts_Request {int64 a; int64 b} at offset 16
add_req() { echo "$(le 8 "$1")$(le 8 "$2")"; }
# test_msgs/srv/BasicTypes_Request, every value 0 and string_value "": bool
# @16, byte @17, char @18, (pad) float32 @20, float64 @24, int8 @32, uint8
# @33, int16 @34, uint16 @36, (pad) int32 @40, uint32 @44, int64 @48, uint64
# @56, string length 1 @64, its NUL @68, padding to 72.
basic_req="$(zeros 48)$(le 4 1)$(zeros 4)"

server() { # server LOG SERVICE=TYPE...: tsvc on domain $DOM (226) for 40 s,
	# answering unless REPLY=0
	_log=$1
	shift
	_args=""
	for _s in "$@"; do _args="$_args --service $_s"; done
	# shellcheck disable=SC2086
	"$S" --domain "${DOM:-226}" --duration 40 --reply "${REPLY:-1}" $_args >"$_log" 2>&1 &
	RECS="$RECS $!"
	wait_for "$_log" READY 100
}
play() { # play OUT ARGS...: bounded; status in $rc
	_out=$1
	shift
	timeout -s KILL 30 "$B" play --no-tui --disable-keyboard-controls --domain "${DOM:-226}" \
		"$@" >"$_out" 2>&1
	rc=$?
	[ "$rc" = 0 ] || { cat "$_out"; fail "play $*: exit $rc"; }
}
reqs() { grep -c "^REQ $2 " "$1"; } # reqs LOG SERVICE: requests taken
bodies() { awk -v s="$2" '$1 == "REQ" && $2 == s {sub("body=", "", $4); print $3, $4}' "$1"; }

server "$T/srv.log" /add_two_ints=example_interfaces/srv/AddTwoInts \
	/test_service1=test_msgs/srv/BasicTypes /test_service2=test_msgs/srv/BasicTypes \
	/sum_svc=example_interfaces/srv/AddTwoInts

# ---- topics_and_services: the servers' side ----
play "$T/p1" --publish-service-requests "$F/topics_and_services"
sleep 0.5
want="seq=1 $(add_req 1 3)
seq=2 $(add_req 2 3)
seq=3 $(add_req 3 3)"
got=$(bodies "$T/srv.log" /add_two_ints)
[ "$got" = "$want" ] || { cat "$T/p1" "$T/srv.log"; fail "add_two_ints: got
$got
want
$want"; }
grep -q "/add_two_ints: played as requests of example_interfaces/srv/AddTwoInts (definition \
from the bag)" "$T/p1" || { cat "$T/p1"; fail "no info line"; }
grep -q "^Played 10 messages" "$T/p1" || { cat "$T/p1"; fail "7 + 3 requests played"; }
grep -q "^  /add_two_ints/_service_event: 3 published as requests, 3 answered, 0 not sent \
(no server)," "$T/p1" || { cat "$T/p1"; fail "the replies not counted"; }
echo "ok topics_and_services: 3 requests, bytes as laid out"

# ---- the clients' side, sqlite3 and MCAP ----
play "$T/p2" --publish-service-requests "$F/bag_with_topics_and_service_events"
sleep 0.5
[ "$(reqs "$T/srv.log" /test_service1)" = 0 ] || fail "client events sent as the servers'"
grep -q "^Played 2 messages" "$T/p2" || { cat "$T/p2"; fail "p2: want the 2 topics' alone"; }
for bag in "$F/bag_with_topics_and_service_events" "$M/bag_with_topics_and_service_events"; do
	[ -d "$bag" ] || fail "no $bag"
	before1=$(reqs "$T/srv.log" /test_service1)
	before2=$(reqs "$T/srv.log" /test_service2)
	play "$T/p3" --publish-service-requests --service-requests-source client_introspection \
		"$bag"
	sleep 0.5
	n1=$(($(reqs "$T/srv.log" /test_service1) - before1))
	n2=$(($(reqs "$T/srv.log" /test_service2) - before2))
	[ "$n1" = 2 ] && [ "$n2" = 2 ] || { cat "$T/p3" "$T/srv.log"; fail "$bag: $n1 + $n2"; }
	bad=$(bodies "$T/srv.log" /test_service1 | awk -v w="$basic_req" '$2 != w' | head -1)
	[ -z "$bad" ] || fail "$bag: BasicTypes request $bad, want $basic_req"
	echo "ok $bag: 2 + 2 requests from the clients' events"
done

# ---- a remap; without the flag ----
play "$T/p4" --publish-service-requests "$F/topics_and_services" -m /add_two_ints:=/sum_svc
sleep 0.5
got=$(bodies "$T/srv.log" /sum_svc | awk '{print $2}' | tr '\n' ' ')
[ "$got" = "$(add_req 1 3) $(add_req 2 3) $(add_req 3 3) " ] ||
	{ cat "$T/p4"; fail "remapped: $got"; }
n=$(reqs "$T/srv.log" /add_two_ints)
play "$T/p5" "$F/topics_and_services"
sleep 0.5
[ "$(reqs "$T/srv.log" /add_two_ints)" = "$n" ] || fail "events taken as requests"
grep -q "^Played 13 messages" "$T/p5" || { cat "$T/p5"; fail "events not all played"; }
echo "ok remap, and events as events without the flag"

# ---- no server (domain 227) ----
DOM=227 play "$T/p6" --publish-service-requests "$F/topics_and_services"
grep -q "/add_two_ints/_service_event: no server of the service: its requests are not sent" \
	"$T/p6" || { cat "$T/p6"; fail "no server: not said"; }
grep -q "^  /add_two_ints/_service_event: 0 published as requests, 0 answered, 3 not sent \
(no server)," "$T/p6" || { cat "$T/p6"; fail "no server: not counted"; }
# a server that does not answer: the player waits 1 s at the end, then
# says none was answered
DOM=227 REPLY=0 server "$T/mute.log" /add_two_ints=example_interfaces/srv/AddTwoInts
DOM=227 play "$T/p6b" --publish-service-requests "$F/topics_and_services"
grep -q "^  /add_two_ints/_service_event: 3 published as requests, 0 answered, 0 not sent" \
	"$T/p6b" || { cat "$T/p6b"; fail "unanswered: not counted"; }
[ "$(reqs "$T/mute.log" /add_two_ints)" = 3 ] || fail "the silent server took no 3"
echo "ok no server, a silent server: said, counted"

# ---- a damaged copy of the bag ----
cp -r "$F/topics_and_services" "$T/bag"
db="$T/bag/topics_and_services.db3"
sqlite3 "$db" "UPDATE message_definitions SET encoded_message_definition = '' \
	WHERE topic_type = 'example_interfaces/srv/AddTwoInts'" || fail "sqlite3"
play "$T/p7" --publish-service-requests "$T/bag"
grep -q "/add_two_ints: its requests are not played: no .srv definition of \
example_interfaces/srv/AddTwoInts" "$T/p7" || { cat "$T/p7"; fail "no definition: not said"; }
sqlite3 "$db" "UPDATE message_definitions SET encoded_message_definition = \
	'int64 a' || char(10) || 'int64[x] b' || char(10) || '---' || char(10) || 'int64 sum' \
	WHERE topic_type = 'example_interfaces/srv/AddTwoInts'" || fail "sqlite3"
play "$T/p8" --publish-service-requests "$T/bag"
grep -q "/add_two_ints: its requests are not played: .*cannot read the field line 'int64\[x\] b'" \
	"$T/p8" || { cat "$T/p8"; fail "bad definition: not said"; }
cp "$F/topics_and_services/topics_and_services.db3" "$db"
sqlite3 "$db" "UPDATE messages SET data = substr(data, 1, 50) WHERE id = (SELECT min(m.id) \
	FROM messages m JOIN topics t ON m.topic_id = t.id \
	WHERE t.name = '/add_two_ints/_service_event')" || fail "sqlite3"
n=$(reqs "$T/srv.log" /add_two_ints)
play "$T/p9" --publish-service-requests "$T/bag"
sleep 0.5
grep -q "/add_two_ints: a request not sent: the service event: data beyond the end at offset \
44 of 46 (said once)" "$T/p9" || { cat "$T/p9"; fail "a cut event: not said"; }
[ $(($(reqs "$T/srv.log" /add_two_ints) - n)) = 2 ] || { cat "$T/p9"; fail "cut: want 2 sent"; }
# the first request event recorded with introspection's metadata only: its
# info (44 bytes with the encapsulation header), no request, no response
cp "$F/topics_and_services/topics_and_services.db3" "$db"
sqlite3 "$db" "UPDATE messages SET data = substr(data, 1, 44) || x'0000000000000000' \
	WHERE id = (SELECT min(m.id) FROM messages m JOIN topics t ON m.topic_id = t.id \
	WHERE t.name = '/add_two_ints/_service_event')" || fail "sqlite3"
n=$(reqs "$T/srv.log" /add_two_ints)
play "$T/p10" --publish-service-requests "$T/bag"
sleep 0.5
grep -q "/add_two_ints: a request event without its request (introspection was metadata \
only): not sent" "$T/p10" || { cat "$T/p10"; fail "metadata only: not said"; }
[ $(($(reqs "$T/srv.log" /add_two_ints) - n)) = 2 ] || { cat "$T/p10"; fail "metadata: want 2"; }
echo "ok damaged copies: one line each, the rest played"
echo "PASS"
