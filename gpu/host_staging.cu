#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

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
