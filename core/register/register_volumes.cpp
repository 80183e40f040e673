#include "core/register/register_volumes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/dic/icgn_math.hpp"
#include "core/hot_pixels.hpp"
#include "core/io/atomic_write.hpp"
#include "core/io/read_file.hpp"
#include "core/io/tiff_writer.hpp"
#include "core/parallel.hpp"
#include "core/register/missing_pixels.hpp"
#include "core/register/phase_volume.hpp"
#include "core/register/shift_image.hpp"

namespace xcorr::reg {
namespace {

Status cancelled() {
  return Status{ErrorCode::cancelled, "registration cancelled"};
}

// Commits: "t dx dy dz peak" per measured time point (%.17g: read back exactly), or
// "t failed <reason>", for time points 1 .. upto - 1.
std::string commit_text(const std::vector<DriftRow>& rows, long upto) {
  std::string t;
  char b[160];
  for (long k = 1; k < upto; ++k) {
    const DriftRow& d = rows[static_cast<std::size_t>(k)];
    if (!d.failed.empty()) {
      t += std::to_string(k) + " failed " + d.failed + "\n";
      continue;
    }
    std::snprintf(b, sizeof b, "%ld %.17g %.17g %.17g %.17g\n", k, d.dx, d.dy, d.dz, d.peak);
    t += b;
  }
  return t;
}

// The committed rows into `rows`; the first time point they do not cover (1: none).
long read_commits(const std::string& text, std::vector<DriftRow>& rows) {
  std::istringstream in(text);
  long next = 1;
  for (std::string line; std::getline(in, line);) {
    std::istringstream l(line);
    long k = 0;
    std::string word;
    if (!(l >> k >> word) || k != next || k >= static_cast<long>(rows.size())) break;
    DriftRow& d = rows[static_cast<std::size_t>(k)];
    if (word == "failed") {
      std::getline(l >> std::ws, d.failed);
    } else {
      d.dx = std::strtod(word.c_str(), nullptr);
      if (!(l >> d.dy >> d.dz >> d.peak)) break;
    }
    ++next;
  }
  return next;
}

// The hyperstack's time points (the layout's, or as many as the pages hold).
long time_points(const io::HyperLayout& l, long pages) {
  return l.frames > 0 ? l.frames : pages / std::max(1L, l.channels * l.slices);
}

// A time point's volume (one channel's, or every channel's added): its z-planes (the region's
// pixels), plane after plane.
struct Volume {
  std::vector<float> voxels;
  std::string failed;  // why it cannot be registered ("" when it can)
};

// Time point t's volume of `channel`, or (channel -1) of every channel added voxel by voxel (a
// pixel missing in one channel is missing in the sum); each plane's missing pixels filled and
// hot pixels suppressed.
Volume read_volume(io::LazyStack& pages, const io::HyperLayout& l, long channel, long t,
                   const Rect& rr) {
  Volume v;
  v.voxels.resize(static_cast<std::size_t>(l.slices * rr.h * rr.w));
  const long first = channel < 0 ? 0 : channel, last = channel < 0 ? l.channels - 1 : channel;
  for (long z = 0; z < l.slices; ++z) {
    auto plane = pages.region(l.page(first, z, t), rr.y, rr.x, rr.h, rr.w);
    for (long c = first + 1; c <= last && plane.is_ok(); ++c) {
      auto more = pages.region(l.page(c, z, t), rr.y, rr.x, rr.h, rr.w);
      if (!more.is_ok()) {
        plane = more.status();
        break;
      }
      float* sum = plane.value().data();
      const float* in = more.value().data();
      for (long i = 0; i < rr.h * rr.w; ++i) sum[i] += in[i];
    }
    if (!plane.is_ok()) {
      v.failed = plane.status().message();
      return v;
    }
    const MissingPixels m = fill_missing(plane.value()[0]);
    if (!m.why.empty()) {
      v.failed =
          "its z-plane " + std::to_string(z) + (channel < 0 ? " (channels added) " : " ") + m.why;
      return v;
    }
    (void)suppress_hot_pixels(plane.value()[0]);
    std::copy_n(plane.value().data(), rr.h * rr.w,
                v.voxels.begin() + static_cast<std::ptrdiff_t>(z * rr.h * rr.w));
  }
  return v;
}

// The stack opened on every page (in file order), indexed.
Result<std::unique_ptr<io::LazyStack>> open_every_page(const RegisterOptions& o,
                                                       const OpenPages& open) {
  io::PlaneSelection every = o.plane();
  every.all_pages = true;
  auto opened = open(every);
  if (opened.is_ok()) XCORR_RETURN_IF_ERROR(opened.value()->wait_indexed());
  return opened;
}

}  // namespace

Result<RegisterReport> register_volumes(const RegisterJob& job, const OpenPages& open,
                                        const Engines& engines, const RegisterProgress& progress,
                                        bool in_memory, Stack<float>* to_memory) {
  const RegisterOptions& o = job.options;
  if (o.devices != "0")  // dims auto chose volumes (dims 3 itself is refused by check())
    return Status{ErrorCode::invalid_argument,
                  "'" + job.stack + "' is registered as volumes (dims auto: " +
                      std::to_string(kAutoVolumeSlices) +
                      " z-planes or more), which run on one GPU: use devices 0, or dims 2"};
  auto opened = open_every_page(o, open);
  if (!opened.is_ok()) return opened.status();
  io::LazyStack& pages = *opened.value();
  const io::StackMetadata& meta = pages.metadata();
  const io::HyperLayout& l = meta.layout;
  const long T = time_points(l, static_cast<long>(pages.count()));
  if (l.slices < 2)
    return Status{ErrorCode::invalid_argument,
                  "'" + job.stack + "' has one z-plane: dims 3 needs z-stacks (use dims 2)"};
  if (T < 2)
    return Status{ErrorCode::invalid_argument,
                  "'" + job.stack + "' holds one time point: registration needs at least two"};
  const long channel = o.sums_channels() ? -1 : o.plane().channel;  // -1: every channel added
  if (channel >= l.channels)
    return Status{ErrorCode::invalid_argument, "channel " + std::to_string(channel) +
                                                   ": the stack has " + std::to_string(l.channels) +
                                                   " channel(s)"};
  const Shape shape = pages.shape();
  auto region = parse_region(o.region, shape.cols, shape.rows);
  if (!region.is_ok()) return region.status();
  const Rect rr = region.value();
  RegisterReport report;
  auto scale = io::apply_user_scale(meta.scale, o.pixel_size, o.frame_interval);
  if (!scale.is_ok()) return scale.status();
  report.scale = scale.value();
  report.frame = shape;
  report.volumes = true;
  report.spacing_z = meta.spacing_z;
  report.drift.resize(static_cast<std::size_t>(T));
  for (long t = 0; t < T; ++t) report.drift[static_cast<std::size_t>(t)].frame = t;

  if (!engines.volume) return Status{ErrorCode::internal, "register_volumes: no volume engine"};
  auto made = engines.volume({l.slices, rr.h, rr.w}, o.upsample, o.device);
  if (!made.is_ok()) return made.status();
  VolumeEngine& engine = *made.value();
  report.device = engine.device();
  Volume reference = read_volume(pages, l, channel, 0, rr);
  if (!reference.failed.empty())
    return Status{ErrorCode::invalid_argument,
                  "the reference time point 0 cannot be used: " + reference.failed};
  XCORR_RETURN_IF_ERROR(engine.set_reference(reference.voxels.data()));
  report.drift[0].peak = 1;

  const double total = 2.0 * static_cast<double>(T);  // measuring, then writing
  double done = 1;
  const auto tick = [&](double n) {
    done += n;
    return !progress || progress(done, total);
  };
  const bool previous = o.reference == Reference::previous;
  // Time points read and measured together: a volume per host thread, or 8 for the GPU's batches.
  const long block =
      engine.device() == "gpu" ? 8L : std::max(2L, static_cast<long>(hardware_threads()));
  Volume last = std::move(reference);  // previous: the last readable volume
  double sx = 0, sy = 0, sz = 0;       // previous: the accumulated drift of `last`
  // Commits of an interrupted run of this job: resumed from the first time point they miss.
  const std::filesystem::path partial =
      in_memory ? std::filesystem::path() : std::filesystem::path(partial_folder(job));
  const std::string identity = in_memory ? std::string() : job_identity(job);
  long start = 1;
  if (!in_memory) {
    auto saved = io::read_file(partial / "job.txt");
    auto rows = io::read_file(partial / "drift.txt");
    std::error_code ec;
    if (saved.is_ok() && saved.value() == identity && rows.is_ok())
      start = read_commits(rows.value(), report.drift);
    else
      std::filesystem::remove_all(partial, ec);  // another job's, or none
    report.resumed = start - 1;
    for (long k = start - 1; k >= 1 && previous; --k) {  // previous: from the last good one
      const DriftRow& d = report.drift[static_cast<std::size_t>(k)];
      if (!d.failed.empty()) continue;
      Volume v = read_volume(pages, l, channel, k, rr);
      if (!v.failed.empty()) return Status{ErrorCode::invalid_argument, v.failed};
      last = std::move(v);
      sx = d.dx, sy = d.dy, sz = d.dz;
      break;
    }
    if (start > 1 && !tick(static_cast<double>(start - 1))) return cancelled();
  }
  const auto commit = [&](long upto) -> Status {
    if (in_memory) return Status::ok();
    std::error_code ec;
    std::filesystem::create_directories(partial, ec);
    if (!std::filesystem::exists(partial / "job.txt", ec))
      XCORR_RETURN_IF_ERROR(io::write_text_atomically(partial / "job.txt", identity));
    return io::write_text_atomically(partial / "drift.txt", commit_text(report.drift, upto));
  };
  for (long first = start; first < T; first += block) {
    const long count = std::min(block, T - first);
    std::vector<Volume> volumes;
    for (long t = first; t < first + count; ++t) {
      volumes.push_back(read_volume(pages, l, channel, t, rr));
      if (!tick(0)) return cancelled();
    }
    // The readable volumes of the block (and, for previous, the last readable one before each).
    std::vector<const float*> measured, before;
    std::vector<std::size_t> which;
    const Volume* prior = &last;
    for (std::size_t k = 0; k < volumes.size(); ++k) {
      if (!volumes[k].failed.empty()) continue;
      measured.push_back(volumes[k].voxels.data());
      before.push_back(prior->voxels.data());
      which.push_back(k);
      prior = &volumes[k];
    }
    std::vector<Shift3> shifts(volumes.size());
    if (!measured.empty()) {
      auto found = engine.measure(measured, previous ? &before : nullptr);
      if (!found.is_ok()) return found.status();
      for (std::size_t i = 0; i < which.size(); ++i) shifts[which[i]] = found.value()[i];
    }
    for (long i = 0; i < count; ++i) {
      const auto k = static_cast<std::size_t>(i);
      DriftRow& d = report.drift[static_cast<std::size_t>(first + i)];
      if (!volumes[k].failed.empty()) {
        d.failed = "it " + volumes[k].failed;
        continue;
      }
      const Shift3 s = shifts[k];
      if (!std::isfinite(s.dx) || !std::isfinite(s.dy) || !std::isfinite(s.dz) || !(s.peak > 0)) {
        d.failed = "it has no correlation peak (peak " + std::to_string(s.peak) + ")";
        continue;
      }
      if (previous) sx += s.dx, sy += s.dy, sz += s.dz;
      d.dx = previous ? sx : s.dx, d.dy = previous ? sy : s.dy, d.dz = previous ? sz : s.dz;
      d.peak = s.peak;
    }
    if (previous)
      for (std::size_t k = volumes.size(); k-- > 0;)
        if (volumes[k].failed.empty()) {
          last = std::move(volumes[k]);
          break;
        }
    XCORR_RETURN_IF_ERROR(commit(first + count));
    if (!tick(static_cast<double>(count))) return cancelled();
  }
  XCORR_RETURN_IF_ERROR(finish_registration(
      job, report, shape, in_memory, to_memory, partial,
      [&](Stack<float>* to) { return write_corrected_volumes(job, open, report, tick, to); }));
  return report;
}

Status write_corrected_volumes(const RegisterJob& job, const OpenPages& open,
                               const RegisterReport& report,
                               const std::function<bool(double)>& tick, Stack<float>* to_memory) {
  auto opened = open_every_page(job.options, open);
  if (!opened.is_ok()) return opened.status();
  io::LazyStack& pages = *opened.value();
  const io::StackMetadata& meta = pages.metadata();
  const io::HyperLayout& l = meta.layout;
  const long T = time_points(l, static_cast<long>(pages.count()));
  const Shape shape = pages.shape();
  const Shape out_shape{report.height, report.width};
  struct Page {
    long page, c, z, t;
  };
  std::vector<Page> order;  // the output pages in file order, failed time points left out
  for (long t = 0; t < T && t < static_cast<long>(report.drift.size()); ++t) {
    if (!report.drift[static_cast<std::size_t>(t)].failed.empty()) continue;
    for (long c = 0; c < l.channels; ++c)
      for (long z = 0; z < l.slices; ++z) order.push_back({l.page(c, z, t), c, z, t});
  }
  std::sort(order.begin(), order.end(),
            [](const Page& a, const Page& b) { return a.page < b.page; });
  const long good = static_cast<long>(order.size()) / std::max(1L, l.channels * l.slices);
  const Index area = shape.area();
  // A time point's channels: their planes as read (for missing pixels) and their cubic
  // coefficients along z (missing pixels at each plane's finite mean first).
  long loaded = -1;
  std::vector<std::vector<float>> raw, along_z;
  std::vector<float> means;
  const auto load = [&](long t) -> Status {
    raw.assign(static_cast<std::size_t>(l.channels), {});
    along_z.assign(static_cast<std::size_t>(l.channels), {});
    means.assign(static_cast<std::size_t>(l.channels * l.slices), 0.0f);
    for (long c = 0; c < l.channels; ++c) {
      std::vector<float>& r = raw[static_cast<std::size_t>(c)];
      r.resize(static_cast<std::size_t>(l.slices * area));
      for (long z = 0; z < l.slices; ++z) {
        auto f = pages.frame(l.page(c, z, t));
        if (!f.is_ok()) return f.status();
        std::copy_n(f.value()->data(), area, r.begin() + static_cast<std::ptrdiff_t>(z * area));
      }
      std::vector<float>& a = along_z[static_cast<std::size_t>(c)];
      a = r;
      for (long z = 0; z < l.slices; ++z) {
        char missing = 0;
        const float mean = finite_mean(
            MatrixView<const float>{r.data() + z * area, shape.rows, shape.cols, shape.cols},
            missing);
        means[static_cast<std::size_t>(c * l.slices + z)] = mean;
        for (Index i = 0; i < area; ++i) {
          float& v = a[static_cast<std::size_t>(z * area + i)];
          if (!std::isfinite(v)) v = mean;
        }
      }
      // The prefilter along z, every pixel at once (as a column of a slices x area image).
      for (Index i = 0; i < area; ++i)
        dic::math::bspline_prefilter<3>(a.data() + i, l.slices, area);
    }
    loaded = t;
    return Status::ok();
  };
  const double per_page = 1.0 / static_cast<double>(std::max(1L, l.channels * l.slices));
  // Page (c, z) of the loaded time point moved by its drift, a row at a time into `rows`.
  const auto moved_page =
      [&](const Page& p,
          const std::function<Status(const std::function<void(Index, float*)>&)>& rows) -> Status {
    if (p.t != loaded) XCORR_RETURN_IF_ERROR(load(p.t));
    const DriftRow& d = report.drift[static_cast<std::size_t>(p.t)];
    const double zs = static_cast<double>(p.z) + d.dz;  // the source plane
    std::vector<float> plane(static_cast<std::size_t>(area), 0.0f);
    const bool inside = zs > -1e-6 && zs < static_cast<double>(l.slices - 1) + 1e-6;
    const std::vector<float>& a = along_z[static_cast<std::size_t>(p.c)];
    const auto nearest = std::clamp<long>(std::lround(zs), 0, l.slices - 1);
    if (inside) {
      const double fz = std::floor(zs);
      float w[4];
      dic::math::BSpline<3>::weights(static_cast<float>(zs - fz), w);
      for (int k = 0; k < 4; ++k) {
        const auto idx = static_cast<long long>(fz) - 1 + k;
        const dic::math::Continued m = dic::math::point_mirror(idx, l.slices);
        const float* src = a.data() + m.index * area;
        const float* anchor = a.data() + m.anchor * area;
        for (Index i = 0; i < area; ++i)
          plane[static_cast<std::size_t>(i)] +=
              w[k] * static_cast<float>(m.sign * src[i] + (1 - m.sign) * anchor[i]);
      }
    }
    const MatrixView<const float> view{plane.data(), shape.rows, shape.cols, shape.cols};
    const ShiftedImage moved(view, d.dx, d.dy,
                             means[static_cast<std::size_t>(p.c * l.slices + nearest)]);
    const MatrixView<const float> source{raw[static_cast<std::size_t>(p.c)].data() + nearest * area,
                                         shape.rows, shape.cols, shape.cols};
    std::vector<float> row(static_cast<std::size_t>(shape.cols));
    return rows([&](Index r, float* out) {
      moved.row(r + report.crop_y, row.data(), 0.0f);
      if (!inside) std::fill(row.begin(), row.end(), 0.0f);
      mark_missing_row(source, d.dx, d.dy, r + report.crop_y, row.data());
      std::copy_n(row.data() + report.crop_x, report.width, out);
    });
  };
  if (to_memory != nullptr) {
    Stack<float> out(out_shape.rows, out_shape.cols, static_cast<Index>(order.size()));
    const io::PixelType type = pages.pixel_type();
    for (std::size_t k = 0; k < order.size(); ++k) {
      const MatrixView<float> page = out[static_cast<Index>(k)];
      XCORR_RETURN_IF_ERROR(
          moved_page(order[k], [&](const std::function<void(Index, float*)>& rows) {
            for (Index r = 0; r < out_shape.rows; ++r) {
              rows(r, page.row(r));
              for (Index c = 0; c < out_shape.cols; ++c)
                page(r, c) = io::stored_value(type, page(r, c));
            }
            return Status::ok();
          }));
      if (!tick(per_page)) return cancelled();
    }
    *to_memory = std::move(out);
    return Status::ok();
  }
  const std::string description =
      io::derived_description(meta, out_shape, good, pages.pixel_type(), report.scale);
  return io::write_atomically(job.out, [&](const std::filesystem::path& tmp) -> Status {
    auto w = io::TiffWriter::create(tmp, pages.pixel_type(), out_shape,
                                    static_cast<long>(order.size()), description, report.scale);
    if (!w.is_ok()) return w.status();
    for (const Page& p : order) {
      XCORR_RETURN_IF_ERROR(moved_page(p, [&](const std::function<void(Index, float*)>& rows) {
        return w.value()->add_page_rows(rows);
      }));
      if (!tick(per_page)) return cancelled();
    }
    return w.value()->close();
  });
}

}  // namespace xcorr::reg
