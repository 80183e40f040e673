// engine::install_gpu() in a build with CUDA: the engine facade's backend table
// (core/engine/gpu_backend.hpp) filled with the GPU engine's functions.
#include "core/engine/gpu_backend.hpp"
#include "gpu/counters.hpp"
#include "gpu/device.hpp"
#include "gpu/dic_gpu.hpp"
#include "gpu/engine.hpp"
#include "gpu/phase_gpu.hpp"
#include "gpu/transform_gpu.hpp"
#include "gpu/volume_gpu.hpp"

namespace xcorr::engine {

void install_gpu() {
  set_gpu_backend({.add_variants = gpu::add_gpu_variants,
                   .devices = gpu::list_devices,
                   .is_gpu_variant = gpu::is_gpu_variant,
                   .make_dic_registrar = gpu::make_gpu_registrar,
                   .on_device = gpu::on_device,
                   .make_multi_dic_registrar = gpu::make_multi_gpu_registrar,
                   .last_frame_seconds = gpu::last_gpu_frame_seconds,
                   .last_stage_seconds = gpu::last_gpu_stage_seconds,
                   .make_phase_engine = gpu::make_gpu_phase_engine,
                   .make_volume_engine = gpu::make_gpu_volume_engine,
                   .make_level_fitter = gpu::make_gpu_level_fitter,
                   .time_volumes = gpu::time_volumes_on_gpu,
                   .time_phase = gpu::time_phase_on_gpu,
                   .time = gpu::time_on_gpu,
                   .kernel_profiles = gpu::kernel_profiles,
                   .read_counters = gpu::read_counters});
}

}  // namespace xcorr::engine
