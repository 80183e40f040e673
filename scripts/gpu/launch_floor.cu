// Engine against the thesis (docs/perf/gpu-engine.md): the launch floor of the GPU machine (host +
// H200) as `xcorr bench` measures it (not part of the product build). Build: nvcc -O2 -std=c++20
// -arch=sm_90 scripts/gpu/launch_floor.cu -o launch_floor Results: docs/perf/gpu-engine.md, run 74.
// single: events around one launch (enqueue included, = bench kernel_ms);
// held: the launch enqueued behind a spinning kernel, events around it (= bench device_ms);
// b2b20 / b2b1000: events around 20 / 1000 launches without waiting, / count (the thesis' method
// with its adaptive loop is the 1000 case; bench's back-to-back is the 20 case).
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <vector>

__global__ void empty_kernel(float* out) {
  if (out != nullptr && threadIdx.x == 1000000) out[0] = 1;
}
// 31 blocks x 256 threads, each lane doing 32 dependent FMAs from registers and one store: the
// shape of gpu_small_direct on one_to_one 16 without its loads.
__global__ void tiny_kernel(float* out, float a) {
  float s = threadIdx.x;
  for (int i = 0; i < 32; ++i) s = fmaf(s, a, 1.0f);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void hold(volatile int* flag) {
  while (*flag == 0) {
  }
}

template <class F>
void measure(const char* name, F launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 10; ++i) launch();
  cudaDeviceSynchronize();
  std::vector<float> single, held;
  for (int i = 0; i < 50; ++i) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    single.push_back(ms);
  }
  int* flag;
  cudaHostAlloc(&flag, 4, cudaHostAllocMapped);
  int* dflag;
  cudaHostGetDevicePointer(reinterpret_cast<void**>(&dflag), flag, 0);
  for (int i = 0; i < 50; ++i) {
    std::atomic_ref<int>(*flag).store(0);
    hold<<<1, 1>>>(dflag);
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    std::atomic_ref<int>(*flag).store(1);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    held.push_back(ms);
  }
  float b2b[2];
  int counts[2] = {20, 1000};
  for (int k = 0; k < 2; ++k) {
    cudaEventRecord(a);
    for (int i = 0; i < counts[k]; ++i) launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    cudaEventElapsedTime(&b2b[k], a, b);
    b2b[k] /= counts[k];
  }
  std::sort(single.begin(), single.end());
  std::sort(held.begin(), held.end());
  std::printf("%-34s single %.2f us  held %.2f us  b2b20 %.2f us  b2b1000 %.2f us\n", name,
              single[25] * 1e3, held[25] * 1e3, b2b[0] * 1e3, b2b[1] * 1e3);
  cudaFreeHost(flag);
}

int main() {
  float* out;
  cudaMalloc(&out, 1 << 20);
  measure("empty <<<1, 32>>>", [&] { empty_kernel<<<1, 32>>>(out); });
  measure("empty <<<31, 256>>>", [&] { empty_kernel<<<31, 256>>>(out); });
  measure("tiny 32 FMAs <<<31, 256>>>", [&] { tiny_kernel<<<31, 256>>>(out, 0.5f); });
  return 0;
}
