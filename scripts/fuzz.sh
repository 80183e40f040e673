#!/usr/bin/env bash
# Builds the libFuzzer targets (preset fuzz: clang, ASan + UBSan) and runs each on a copy of its
# seed corpus (tests/fuzz/corpus/<name>, plus <name>-found.tar.gz: the inputs longer runs kept)
# for XCORR_FUZZ_SECONDS seconds (default 60). A crash, a sanitizer report, a leak, a readers'
# disagreement (__builtin_trap) or an input that takes more than 30 s (a 67-Mpixel page, which a
# few hostile bytes may announce, takes seconds under ASan) or 2 GiB fails the run; the offending
# input is kept in build/fuzz/artifacts/ (print it with `xxd`, replay it with
# `build/fuzz/tests/fuzz/fuzz_<name> <file>`).
# Usage: scripts/fuzz.sh [name ...]   (default: every target). CI runs it (scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${XCORR_FUZZ_SECONDS:-60}
targets=("$@")
# Default: every target, one per tests/fuzz/<name>_fuzz.cpp.
[ ${#targets[@]} -gt 0 ] || targets=($(cd tests/fuzz && ls *_fuzz.cpp | sed 's/_fuzz\.cpp$//'))
cmake --preset fuzz > /dev/null
cmake --build --preset fuzz
mkdir -p build/fuzz/artifacts
failed=0
for t in "${targets[@]}"; do
  work=$(mktemp -d)
  cp -r "tests/fuzz/corpus/$t/." "$work/"
  # What longer runs found (libFuzzer -set_cover_merge of their corpora), one archive per target.
  [ -f "tests/fuzz/corpus/$t-found.tar.gz" ] && tar -C "$work" -xzf "tests/fuzz/corpus/$t-found.tar.gz"
  log=build/fuzz/fuzz_$t.log
  if build/fuzz/tests/fuzz/fuzz_$t "$work" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
       -max_len=65536 -artifact_prefix=build/fuzz/artifacts/"$t"- -print_final_stats=1 > "$log" 2>&1; then
    echo "fuzz $t: ok, $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') inputs in ${seconds} s, corpus $(ls "$work" | wc -l)"
  else
    echo "fuzz $t: FAILED (log: $log)"
    grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -5
    failed=1
  fi
  rm -rf "$work"
done
exit $failed
