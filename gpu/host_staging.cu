#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/host_staging.cuh"

namespace xcorr::gpu {
namespace {

constexpr std::size_t kChunkFloats = std::size_t{2} << 20;  // 8 MiB per buffer

struct Staging {
  std::mutex mutex;
  float* buf[2] = {nullptr, nullptr};
  cudaEvent_t done[2] = {nullptr, nullptr};
  bool tried = false;
  bool ok() const { return buf[0] != nullptr && buf[1] != nullptr; }
  // Allocated on first use; kept for the process (freed by the driver at exit).
  void init() {
    if (tried) return;
    tried = true;
    for (int b = 0; b < 2; ++b) {
      if (cudaMallocHost(&buf[b], kChunkFloats * sizeof(float)) != cudaSuccess ||
          cudaEventCreateWithFlags(&done[b], cudaEventDisableTiming) != cudaSuccess) {
        buf[0] = buf[1] = nullptr;
        (void)cudaGetLastError();
        return;
      }
    }
  }
};

// One per device: the events belong to the device that was current when they were made.
Result<Staging*> staging() {
  constexpr int kMaxDevices = 64;
  static Staging s[kMaxDevices];
  int device = 0;
  XCORR_CUDA_TRY(cudaGetDevice(&device));
  if (device < 0 || device >= kMaxDevices)
    return Status{ErrorCode::unsupported, "CUDA device " + std::to_string(device) + " of 64"};
  return &s[device];
}

// Whether s's values lie in one run (rows and matrices back to back).
bool contiguous(const StackView<const float>& s) {
  return s.row_stride == s.cols && (s.count == 1 || s.matrix_stride == s.rows * s.cols);
}

// dst[0, n) <- src[0, n) in pieces of at least 1 MiB, at most kCopyPieces of them at once on the
// host's threads: one thread's memcpy into pinned memory ran at 6.7 GB/s on the H200 machine,
// a twelfth of the copy engine's rate (docs/registration.md, Several GPUs).
constexpr std::size_t kPieceFloats = std::size_t{1} << 18, kCopyPieces = 8;
void copy_on_threads(float* dst, const float* src, std::size_t n) {
  const std::size_t pieces = std::clamp<std::size_t>(n / kPieceFloats, 1, kCopyPieces);
  if (pieces == 1) {
    std::memcpy(dst, src, n * sizeof(float));
    return;
  }
  const std::size_t each = (n + pieces - 1) / pieces;
  parallel_for(static_cast<Index>(pieces), 1, [&](Index first, Index last) {
    for (Index p = first; p < last; ++p) {
      const std::size_t from = static_cast<std::size_t>(p) * each;
      if (from < n) std::memcpy(dst + from, src + from, std::min(each, n - from) * sizeof(float));
    }
  });
}

}  // namespace

Status upload_staged(StackView<const float> s, float* dst, cudaStream_t stream) {
  auto where = staging();
  if (!where.is_ok()) return where.status();
  Staging& st = *where.value();
  std::lock_guard lock(st.mutex);
  st.init();
  const auto cols = static_cast<std::size_t>(s.cols);
  if (!st.ok()) {  // pageable fallback, row by row
    for (Index t = 0; t < s.count; ++t) {
      for (Index r = 0; r < s.rows; ++r, dst += cols)
        XCORR_CUDA_TRY(cudaMemcpy(dst, s[t].row(r), cols * sizeof(float), cudaMemcpyHostToDevice));
    }
    return Status::ok();
  }
  // Buffer b fills on the host while the other one's copy runs.
  int b = 0;
  std::size_t filled = 0;
  auto flush = [&]() -> Status {
    if (filled == 0) return Status::ok();
    XCORR_CUDA_TRY(
        cudaMemcpyAsync(dst, st.buf[b], filled * sizeof(float), cudaMemcpyHostToDevice, stream));
    XCORR_CUDA_TRY(cudaEventRecord(st.done[b], stream));
    dst += filled;
    filled = 0;
    b ^= 1;
    return cuda_status(cudaEventSynchronize(st.done[b]), "upload");  // free to refill
  };
  XCORR_CUDA_TRY(cudaEventSynchronize(st.done[0]));
  XCORR_CUDA_TRY(cudaEventSynchronize(st.done[1]));
  if (contiguous(s)) {  // chunk by chunk, each packed by several host threads
    const float* from = s.data;
    for (std::size_t left = static_cast<std::size_t>(s.count * s.rows) * cols; left > 0;) {
      const std::size_t k = std::min(left, kChunkFloats);
      copy_on_threads(st.buf[b], from, k);
      filled = k;
      from += k;
      left -= k;
      XCORR_RETURN_IF_ERROR(flush());
    }
    return cuda_status(cudaEventSynchronize(st.done[b ^ 1]), "upload");
  }
  for (Index t = 0; t < s.count; ++t) {
    for (Index r = 0; r < s.rows; ++r) {
      const float* row = s[t].row(r);
      for (std::size_t n = cols; n > 0;) {
        const std::size_t k = std::min(n, kChunkFloats - filled);
        std::memcpy(st.buf[b] + filled, row, k * sizeof(float));
        filled += k;
        row += k;
        n -= k;
        if (filled == kChunkFloats) XCORR_RETURN_IF_ERROR(flush());
      }
    }
  }
  XCORR_RETURN_IF_ERROR(flush());
  return cuda_status(cudaEventSynchronize(st.done[b ^ 1]), "upload");
}

Status download_staged(const float* src, StackView<float> out, cudaStream_t stream) {
  auto where = staging();
  if (!where.is_ok()) return where.status();
  Staging& st = *where.value();
  std::lock_guard lock(st.mutex);
  st.init();
  const auto total = static_cast<std::size_t>(out.count * out.rows * out.cols);
  // Host rows in order, filled from a contiguous source run by run.
  Index t = 0, r = 0;
  std::size_t col = 0;
  auto unpack = [&](const float* from, std::size_t n) {
    while (n > 0) {
      const std::size_t k = std::min(n, static_cast<std::size_t>(out.cols) - col);
      std::memcpy(out[t].row(r) + col, from, k * sizeof(float));
      from += k;
      n -= k;
      col += k;
      if (col == static_cast<std::size_t>(out.cols)) {
        col = 0;
        if (++r == out.rows) {
          r = 0;
          ++t;
        }
      }
    }
  };
  if (!st.ok()) {
    XCORR_CUDA_TRY(cudaStreamSynchronize(stream));
    for (std::size_t pos = 0; pos < total; pos += kChunkFloats) {
      const std::size_t n = std::min(kChunkFloats, total - pos);
      std::vector<float> tmp(n);
      XCORR_CUDA_TRY(cudaMemcpy(tmp.data(), src + pos, n * sizeof(float), cudaMemcpyDeviceToHost));
      unpack(tmp.data(), n);
    }
    return Status::ok();
  }
  // Chunk k lands in buf[k % 2] while chunk k - 1 is unpacked.
  std::size_t prev_n = 0;
  int b = 0;
  for (std::size_t pos = 0; pos < total; pos += kChunkFloats) {
    const std::size_t n = std::min(kChunkFloats, total - pos);
    XCORR_CUDA_TRY(
        cudaMemcpyAsync(st.buf[b], src + pos, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    XCORR_CUDA_TRY(cudaEventRecord(st.done[b], stream));
    if (prev_n > 0) {
      XCORR_CUDA_TRY(cudaEventSynchronize(st.done[b ^ 1]));
      unpack(st.buf[b ^ 1], prev_n);
    }
    prev_n = n;
    b ^= 1;
  }
  if (prev_n > 0) {
    XCORR_CUDA_TRY(cudaEventSynchronize(st.done[b ^ 1]));
    unpack(st.buf[b ^ 1], prev_n);
  }
  return Status::ok();
}

}  // namespace xcorr::gpu
