#!/usr/bin/env bash
# Builds the libFuzzer targets (preset fuzz: clang, ASan + UBSan) and runs each on a copy of its
# seed corpus (tests/fuzz/corpus/<name>, plus <name>-found.tar.gz: the inputs longer runs kept)
# for XCORR_FUZZ_SECONDS seconds (default 30), XCORR_FUZZ_JOBS targets at once (default: one per
# core, at most 4). A crash, a sanitizer report, a leak, a readers'
# disagreement (__builtin_trap) or an input that takes more than 30 s (a 67-Mpixel page, which a
# few hostile bytes may announce, takes seconds under ASan) or 2 GiB fails the run; the offending
# input is kept in build/fuzz/artifacts/ (print it with `xxd`, replay it with
# `build/fuzz/tests/fuzz/fuzz_<name> <file>`).
# Usage: scripts/fuzz.sh [name ...]   (default: every target). CI runs it (scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${XCORR_FUZZ_SECONDS:-30}
targets=("$@")
# Default: every target, one per tests/fuzz/<name>_fuzz.cpp.
[ ${#targets[@]} -gt 0 ] || targets=($(cd tests/fuzz && ls *_fuzz.cpp | sed 's/_fuzz\.cpp$//'))
cmake --preset fuzz > /dev/null
cmake --build --preset fuzz
mkdir -p build/fuzz/artifacts
# One target's run: its corpus copied, fuzzed, the summary line printed; fails when it found
# something.
fuzz_one() {
  local t=$1 work log
  work=$(mktemp -d)
  cp -r "tests/fuzz/corpus/$t/." "$work/"
  # What longer runs found (libFuzzer -set_cover_merge of their corpora), one archive per target.
  [ -f "tests/fuzz/corpus/$t-found.tar.gz" ] && tar -C "$work" -xzf "tests/fuzz/corpus/$t-found.tar.gz"
  log=build/fuzz/fuzz_$t.log
  if build/fuzz/tests/fuzz/fuzz_$t "$work" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
       -max_len=65536 -artifact_prefix=build/fuzz/artifacts/"$t"- -print_final_stats=1 > "$log" 2>&1; then
    echo "fuzz $t: ok, $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') inputs in ${seconds} s, corpus $(ls "$work" | wc -l)"
    rm -rf "$work"
  else
    echo "fuzz $t: FAILED (log: $log)"
    grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -5
    rm -rf "$work"
    return 1
  fi
}
# Each target is one process on one core: XCORR_FUZZ_JOBS of them at once (default: the host's
# cores, at most 4), each line printed as its target ends.
jobs=${XCORR_FUZZ_JOBS:-$(( $(nproc) < 4 ? $(nproc) : 4 ))}
failed=0
running=0
for t in "${targets[@]}"; do
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit $failed
