#!/usr/bin/env bash
# Runs a program under oclgrind with netcl's checks on, and reads oclgrind's
# log: oclgrind exits 0 whatever it finds, so its log is the only verdict.
#
#   check.sh [--local-mem-size BYTES] [--constant-mem-size BYTES] [--no-uninitialized]
#            [--expect REGEX]... -- PROGRAM [ARGS...]
#
# Without --expect: passes when PROGRAM exits 0 and oclgrind reported nothing;
# fails printing every kind of report (with counts) and the first reports in
# full. With --expect (the seeded-fault self-test): passes only when every
# REGEX matches the first line of some report, proving the parser sees them.
#
# Every message in the log is a finding: oclgrind writes only its own reports
# there (invalid reads/writes, data races, uninitialised values, work-group
# divergence), each a block whose first line starts in column 0. API errors
# (--check-api) do not go to the log but to stderr, as a block starting
# "Oclgrind - OpenCL runtime error detected"; stderr is searched for any line
# starting "Oclgrind" or "OCLGRIND" too.
set -uo pipefail

device=()
uninitialized=(--uninitialized)
expects=()
while [ $# -gt 0 ]; do
  case "$1" in
    --local-mem-size | --constant-mem-size) device+=("$1" "$2"); shift 2 ;;
    --no-uninitialized) uninitialized=(); shift ;;
    --expect) expects+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "check.sh: unknown option '$1'; expected --local-mem-size, --constant-mem-size, --no-uninitialized, --expect or --" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "check.sh: no program given; usage: check.sh [options] -- PROGRAM [ARGS]" >&2; exit 2; }
command -v oclgrind >/dev/null || { echo "check.sh: oclgrind not found; install the 'oclgrind' package" >&2; exit 2; }

# The log, oclgrind's stderr and the FIFO below in a directory of this run's own.
scratch="$(mktemp -d)"  # under $TMPDIR, else /tmp
trap 'rm -rf "$scratch"' EXIT
log="$scratch/log"
err="$scratch/stderr"
fifo="$scratch/log.fifo"

# oclgrind opens its --log file afresh, truncating it, for every OpenCL
# context the program creates (each context's Logger plugin does
# `new ofstream(path)`), so a file would keep only the reports made after the
# last context was created: the suite creates a dozen, and a kernel fault in
# any test but the last few went unseen. A FIFO is opened, never truncated:
# every context's reports reach the one reader, which the shell's own writer
# (fd 3) keeps open between contexts.
mkfifo "$fifo"
cat "$fifo" >"$log" &
reader=$!
exec 3>"$fifo"

# Compile every kernel fresh for oclgrind's device rather than trusting a cache.
export NETCL_CACHE_DIR=off
# -cl-opt-disable: with clang's optimiser on, integer division and remainder
# come out as LLVM 'freeze' instructions, on which oclgrind 21.10's
# uninitialised-value plugin stops ("OCLGRIND FATAL ERROR ... Unsupported
# instruction: freeze") and the kernel does not run.
start=$(date +%s)
oclgrind --build-options -cl-opt-disable --data-races "${uninitialized[@]}" --check-api "${device[@]}" --log "$fifo" "$@" 2>"$err" 3>&-
status=$?
exec 3>&-
wait "$reader"
cat "$err" >&2
# The API reports, as blocks, appended to the kernel reports.
awk '/^(Oclgrind|OCLGRIND)/ {keep = 1} /^[[:space:]]*$/ {keep = 0} keep' "$err" >>"$log"
seconds=$(( $(date +%s) - start ))

# First line of each report, addresses and work-item ids blanked so that one
# kind of fault counts as one line.
kinds="$(grep -E '^[^[:space:]]' "$log" | sed -E 's/0x[0-9a-fA-F]+/ADDR/g' | sort | uniq -c | sort -rn)"
reports="$(grep -cE '^[^[:space:]]' "$log")"
echo "check.sh: '$*' exited $status under oclgrind after ${seconds}s; oclgrind made $reports report(s)"

if [ ${#expects[@]} -gt 0 ]; then
  missing=0
  for re in "${expects[@]}"; do
    if grep -E '^[^[:space:]]' "$log" | grep -qE "$re"; then
      echo "check.sh: found the expected report /$re/"
    else
      echo "check.sh: FAIL: no report matches /$re/" >&2
      missing=1
    fi
  done
  [ -n "$kinds" ] && printf '%s\n' "$kinds"
  [ $status -eq 0 ] || { echo "check.sh: FAIL: the program itself exited $status" >&2; exit 1; }
  exit $missing
fi

if [ "$reports" -gt 0 ]; then
  echo "check.sh: FAIL: oclgrind reported errors; kinds and counts:" >&2
  printf '%s\n' "$kinds" >&2
  echo "check.sh: the first reports in full:" >&2
  head -n 60 "$log" >&2
  exit 1
fi
[ $status -eq 0 ] || { echo "check.sh: FAIL: the program exited $status (oclgrind reported nothing)" >&2; exit 1; }
echo "check.sh: clean"
