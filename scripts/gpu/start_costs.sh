#!/usr/bin/env bash
# What starting costs on the GPU machine (docs/scale-out.md), from the repository root after
# `tar -xJf .gpu.txz` (scripts/gpu/pack.sh): 1, 2 and 4 processes started at once, each on a GPU
# of its own, twice: `xcorr --version` (no CUDA), `xcorr list` (starts CUDA: the context, the
# device's properties, the build's kernels loaded once) and `mpirun -np N xcorr-mpi --version`
# (MPI's start). Reads only; prints the driver and its persistence mode first.
export LD_LIBRARY_PATH=$PWD/.gpu/lib:$PWD/.gpu/openmpi/lib
export OPAL_PREFIX=$PWD/.gpu/openmpi PATH=$PWD/.gpu/openmpi/bin:$PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
nvidia-smi -q | grep -i -m4 "persistence\|Driver Version"
t() { local t0 t1; t0=$(date +%s.%N); "$@"; t1=$(date +%s.%N); awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}'; }
for round in 1 2; do
for n in 1 2 4; do
  v=$(t bash -c "for g in \$(seq 0 $((n-1))); do .gpu/bin/xcorr --version > /dev/null & done; wait")
  l=$(t bash -c "for g in \$(seq 0 $((n-1))); do CUDA_VISIBLE_DEVICES=\$g .gpu/bin/xcorr list > /dev/null & done; wait")
  m=$(t bash -c "mpirun -np $n .gpu/bin/xcorr-mpi --version > /dev/null 2>&1")
  echo "round $round, $n at once: xcorr --version $v s; xcorr list (CUDA) $l s; mpirun xcorr-mpi --version $m s"
done
done
