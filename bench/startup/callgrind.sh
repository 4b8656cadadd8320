#!/bin/sh
# callgrind.sh RUNS PROGRAM... -- ARGS: counts the instructions of whole
# processes (valgrind --tool=callgrind, every thread) of each PROGRAM run
# with ARGS, interleaved RUNS times, and prints each one's counts and
# median. Go's runtime makes the count move by up to 15% between runs of
# one binary (where the heap lands decides how long the page allocator
# searches), so compare medians of interleaved runs, not single counts.
# GODEBUG=asyncpreemptoff=1 keeps Go's preemption signals out of valgrind.
#   sh bench/startup/callgrind.sh 9 ./paneteam ./minurfave -- --version
set -eu
runs=$1
shift
progs=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
	progs="$progs $1"
	shift
done
[ "$#" -gt 0 ] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
	n=0
	for p in $progs; do
		n=$((n + 1))
		GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$p" "$@" >/dev/null 2>"$tmp/err" || true
		sed -n 's/.*Collected : //p' "$tmp/err" >>"$tmp/$n"
	done
	i=$((i + 1))
done
n=0
for p in $progs; do
	n=$((n + 1))
	sort -n "$tmp/$n" >"$tmp/$n.sorted"
	med=$(awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : int((v[NR/2]+v[NR/2+1])/2)}' "$tmp/$n.sorted")
	printf '%s\tmedian %s\t(%s)\n' "$p" "$med" "$(tr '\n' ' ' <"$tmp/$n.sorted")"
done
