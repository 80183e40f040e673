#include "core/engine/device_info.hpp"

#include <algorithm>
#include <cstdlib>

namespace xcorr::engine {
namespace {

constexpr std::size_t KiB = 1024;

// One published device: compute capability, SMs, shared memory per block (opt-in) and per SM,
// threads and blocks per SM, boost clock (GHz), memory bandwidth (GB/s). Shared memory reserved
// per block by the system: 1 KiB from sm_80 on, none on sm_75 (the CUDA programming guide).
DeviceInfo published(const char* name, int major, int minor, int sms, std::size_t optin_kib,
                     std::size_t per_sm_kib, int threads, int blocks, double ghz, double gbs) {
  DeviceInfo d;
  d.name = name;
  d.compute_major = major, d.compute_minor = minor;
  d.multiprocessors = sms;
  d.shared_memory_per_block_optin_bytes = optin_kib * KiB;
  d.shared_memory_per_multiprocessor_bytes = per_sm_kib * KiB;
  d.reserved_shared_memory_per_block_bytes = major >= 8 ? KiB : 0;
  d.registers_per_multiprocessor = 65536;
  d.max_threads_per_multiprocessor = threads;
  d.max_blocks_per_multiprocessor = blocks;
  d.clock_ghz = ghz;
  d.memory_bandwidth_gbs = gbs;
  return d;
}

}  // namespace

std::string DeviceInfo::arch() const {
  return "sm_" + std::to_string(compute_major) + std::to_string(compute_minor);
}

profiling::SmLimits DeviceInfo::sm_limits() const {
  profiling::SmLimits s;
  s.max_warps = std::max(1, max_threads_per_multiprocessor / 32);
  s.max_blocks = std::max(1, max_blocks_per_multiprocessor);
  s.registers = registers_per_multiprocessor;
  s.shared_bytes = static_cast<int>(shared_memory_per_multiprocessor_bytes);
  s.reserved_shared_bytes = static_cast<int>(reserved_shared_memory_per_block_bytes);
  return s;
}

double DeviceInfo::compute_scale() const {
  const DeviceInfo& r = reference_device();
  if (multiprocessors <= 0 || clock_ghz <= 0) return 1.0;  // unknown: the reference's rates
  return (multiprocessors * clock_ghz) / (r.multiprocessors * r.clock_ghz);
}

double DeviceInfo::bandwidth_scale() const {
  const DeviceInfo& r = reference_device();
  if (memory_bandwidth_gbs <= 0) return 1.0;
  return memory_bandwidth_gbs / r.memory_bandwidth_gbs;
}

const DeviceInfo& reference_device() {
  // NVIDIA H200 SXM: 132 SMs at 1.98 GHz, HBM3e at 4.8 TB/s; sm_90: 227 KiB per block
  // (opt-in), 228 KiB per SM, 2048 threads and 32 blocks per SM.
  static const DeviceInfo h200 =
      published("NVIDIA H200 (reference)", 9, 0, 132, 227, 228, 2048, 32, 1.98, 4800);
  return h200;
}

const std::vector<LabProfile>& lab_profiles() {
  // Data sheets (SMs, boost clock, bandwidth) and the CUDA programming guide's table of compute
  // capabilities (shared memory, threads and blocks per SM).
  static const std::vector<LabProfile> profiles = {
      {"t4", published("NVIDIA T4", 7, 5, 40, 64, 64, 1024, 16, 1.59, 320)},
      {"a100", published("NVIDIA A100-SXM4-40GB", 8, 0, 108, 163, 164, 2048, 32, 1.41, 1555)},
      {"rtx3090", published("NVIDIA GeForce RTX 3090", 8, 6, 82, 99, 100, 1536, 16, 1.695, 936)},
      {"rtx4090", published("NVIDIA GeForce RTX 4090", 8, 9, 128, 99, 100, 1536, 24, 2.52, 1008)},
      {"rtx5090", published("NVIDIA GeForce RTX 5090", 12, 0, 170, 99, 100, 1536, 32, 2.41, 1792)},
  };
  return profiles;
}

Result<DeviceInfo> emulate(const DeviceInfo& actual, std::string_view name) {
  if (name.empty()) return actual;
  for (const LabProfile& p : lab_profiles()) {
    if (p.name != name) continue;
    const DeviceInfo& l = p.device;
    DeviceInfo d = actual;
    d.profile = p.name;
    d.multiprocessors = std::min(actual.multiprocessors, l.multiprocessors);
    d.shared_memory_per_block_optin_bytes =
        std::min(actual.shared_memory_per_block_optin_bytes, l.shared_memory_per_block_optin_bytes);
    d.shared_memory_per_multiprocessor_bytes = std::min(
        actual.shared_memory_per_multiprocessor_bytes, l.shared_memory_per_multiprocessor_bytes);
    d.reserved_shared_memory_per_block_bytes = std::max(
        actual.reserved_shared_memory_per_block_bytes, l.reserved_shared_memory_per_block_bytes);
    d.registers_per_multiprocessor =
        std::min(actual.registers_per_multiprocessor, l.registers_per_multiprocessor);
    d.max_threads_per_multiprocessor =
        std::min(actual.max_threads_per_multiprocessor, l.max_threads_per_multiprocessor);
    d.max_blocks_per_multiprocessor =
        std::min(actual.max_blocks_per_multiprocessor, l.max_blocks_per_multiprocessor);
    d.clock_ghz = std::min(actual.clock_ghz, l.clock_ghz);
    d.memory_bandwidth_gbs = std::min(actual.memory_bandwidth_gbs, l.memory_bandwidth_gbs);
    return d;
  }
  std::string known;
  for (const LabProfile& p : lab_profiles()) known += (known.empty() ? "" : ", ") + p.name;
  return Status{ErrorCode::invalid_argument, "XCORR_GPU_PROFILE='" + std::string(name) +
                                                 "' is not a known GPU profile (" + known + ")"};
}

std::string describe_cuda_architectures(std::string_view cmake_list) {
  std::string real, virt;
  auto add = [](std::string& to, const std::string& what) {
    to += (to.empty() ? "" : ", ") + what;
  };
  while (!cmake_list.empty()) {
    const std::size_t semi = cmake_list.find_first_of(";,");
    std::string_view item = cmake_list.substr(0, semi);
    cmake_list = semi == std::string_view::npos ? std::string_view{} : cmake_list.substr(semi + 1);
    if (item.empty()) continue;
    const std::size_t dash = item.find('-');
    const std::string number(item.substr(0, dash));
    const std::string_view kind = dash == std::string_view::npos ? "" : item.substr(dash + 1);
    if (kind != "virtual") add(real, "sm_" + number);
    if (kind != "real") add(virt, "compute_" + number);
  }
  std::string s;
  if (!real.empty()) s = "machine code for " + real;
  if (!virt.empty()) s += (s.empty() ? "" : "; ") + ("PTX for " + virt);
  return s.empty() ? "no GPU code" : s;
}

std::string profile_from_environment() {
  const char* v = std::getenv("XCORR_GPU_PROFILE");
  return v != nullptr ? std::string(v) : std::string();
}

}  // namespace xcorr::engine
