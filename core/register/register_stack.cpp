#include "core/register/register_stack.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <future>
#include <sstream>
#include <utility>

#include "core/hot_pixels.hpp"
#include "core/io/atomic_write.hpp"
#include "core/io/lazy_stack.hpp"
#include "core/io/read_file.hpp"
#include "core/io/tiff_writer.hpp"
#include "core/missing_data.hpp"
#include "core/parallel.hpp"
#include "core/peak.hpp"
#include "core/register/missing_pixels.hpp"
#include "core/register/phase_engine.hpp"
#include "core/register/register_volumes.hpp"
#include "core/register/shift_image.hpp"
#include "core/register/transform_fit.hpp"
#include "core/register/warp_image.hpp"
#include "core/version.hpp"

namespace xcorr::reg {
namespace {

constexpr std::size_t kCacheBytes = std::size_t{256} << 20;

std::string fmt(const char* f, double v) {
  if (!std::isfinite(v)) return "nan";
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// A region as it is measured: hot pixels suppressed (core/hot_pixels.hpp); its missing pixels stay
// NaN (the estimator fills them). `why` says when it cannot be registered.
MissingPixels clean(MatrixView<float> image) {
  const MissingPixels m = check_missing(image);
  if (!m.why.empty()) return m;
  const std::vector<char> where = fill_missing_with_mean(image);  // empty: none missing
  (void)suppress_hot_pixels(image);
  for (std::size_t i = 0; i < where.size(); ++i)
    if (where[i] != 0)
      image(static_cast<Index>(i) / image.cols, static_cast<Index>(i) % image.cols) = NAN;
  return m;
}

// A clean region as the phase engine, the ZNCC search and the transform fitter take it: itself
// when it lacks nothing, else a copy with its missing pixels filled (fill_missing), kept in
// `copies`.
const Stack<float>* filled(const Stack<float>& image, std::deque<Stack<float>>& copies) {
  if (all_finite(image[0])) return &image;
  Stack<float>& f = copies.emplace_back(image);
  (void)fill_missing(f[0]);
  return &f;
}

// Measures frames against a reference image (both: the region's pixels, clean(), missing pixels
// NaN), by phase correlation or the engine's ZNCC peak search (the reference's region inset by
// the search margin as the template, the frame's region as the window). A frame that lacks pixels,
// or whose reference does, is measured again once both lack what either lacks (lack_alike).
class Estimator {
 public:
  static Result<std::unique_ptr<Estimator>> create(const RegisterOptions& o, const Engines& engines,
                                                   Shape region) {
    std::unique_ptr<Estimator> e(new Estimator(o, *engines.variants, region));
    if (o.transform != Transform::translation) {
      auto f = TransformFitter::create(region, {o.transform, o.max_rotation, o.smoothing_px()},
                                       engines.transform, o.device);
      if (!f.is_ok()) return f.status();
      e->fit_ = std::move(f).value();
    } else if (o.method == Method::phase) {
      auto p = engines.phase(region, phase_options(o), o.iterations, o.device, o.devices);
      if (!p.is_ok()) return p.status();
      e->phase_ = std::move(p).value();
    } else {
      const long shorter = std::min(region.rows, region.cols);
      e->margin_ = o.max_shift > 0 ? o.max_shift : std::max(1L, shorter / 8);
      if (2 * e->margin_ + 2 > shorter) {
        return Status{ErrorCode::invalid_argument, "max_shift " + std::to_string(e->margin_) +
                                                       " px leaves no template in the " +
                                                       to_string(region) + " px region (at most " +
                                                       std::to_string((shorter - 2) / 2) + ")"};
      }
    }
    return e;
  }

  // "cpu" or "gpu": where the phase method measures (zncc: the engine's dispatcher decides).
  std::string device() const {
    return fit_ ? fit_->device() : phase_ ? phase_->device() : "engine";
  }
  Status set_reference(const Stack<float>& reference) {
    reference_ = reference;
    filled_reference_ = reference;
    (void)fill_missing(filled_reference_[0]);
    if (fit_) return fit_->set_reference(filled_reference_[0]);
    return phase_ ? phase_->set_reference(filled_reference_[0]) : Status::ok();
  }
  bool fits_transforms() const { return fit_ != nullptr; }
  // The phase engine's frames per call (PhaseEngine::frames_per_call); 0 otherwise.
  long frames_per_call() const { return phase_ ? static_cast<long>(phase_->frames_per_call()) : 0; }

  // Transforms (rigid and up): each frame's fit from the reference (references as measure()'s),
  // in the region's pixels.
  Result<std::vector<Fit>> fit(const std::vector<const Stack<float>*>& frames,
                               const std::vector<const Stack<float>*>* references) const {
    std::deque<Stack<float>> copies;
    std::vector<MatrixView<const float>> f, r;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      f.push_back((*filled(*frames[i], copies))[0]);
      if (references != nullptr) r.push_back((*filled(*(*references)[i], copies))[0]);
    }
    return fit_->measure(f, references != nullptr ? &r : nullptr);
  }

  // Shifts of frames[k] from the reference (references: null for the set one, else one
  // reference per frame, as `previous` needs).
  Result<std::vector<Shift>> measure(const std::vector<const Stack<float>*>& frames,
                                     const std::vector<const Stack<float>*>* references) {
    std::deque<Stack<float>> copies;
    std::vector<const Stack<float>*> fp, rp;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      fp.push_back(filled(*frames[i], copies));
      if (references != nullptr) rp.push_back(filled(*(*references)[i], copies));
    }
    auto first = measure_filled(fp, references != nullptr ? &rp : nullptr);
    if (!first.is_ok()) return first;
    std::vector<Shift> out = std::move(first).value();
    std::vector<const Stack<float>*> refs;
    for (std::size_t i = 0; i < frames.size(); ++i)
      refs.push_back(references != nullptr ? (*references)[i] : &reference_);
    XCORR_RETURN_IF_ERROR(measure_lacking_alike(
        frames, refs, out,
        [this](const std::vector<const Stack<float>*>& f,
               const std::vector<const Stack<float>*>& r) { return measure_filled(f, &r); }));
    return out;
  }

 private:
  // measure() on finite images (references: null for the set one).
  Result<std::vector<Shift>> measure_filled(const std::vector<const Stack<float>*>& frames,
                                            const std::vector<const Stack<float>*>* references) {
    std::vector<Shift> out(frames.size());
    if (phase_) {
      std::vector<MatrixView<const float>> f, r;
      for (std::size_t i = 0; i < frames.size(); ++i) {
        f.push_back((*frames[i])[0]);
        if (references != nullptr) r.push_back((*(*references)[i])[0]);
      }
      return phase_->measure(f, references != nullptr ? &r : nullptr);
    }
    // ZNCC: one request for the block (one_to_many, or n_to_mn with one window per template).
    const long m = margin_;
    const Shape t{region_.rows - 2 * m, region_.cols - 2 * m};
    const auto n = static_cast<Index>(frames.size());
    Stack<float> windows(region_.rows, region_.cols, n);
    for (Index k = 0; k < n; ++k)
      std::copy_n(frames[static_cast<std::size_t>(k)]->data(), region_.area(), windows[k].data);
    const auto inset = [&](const Stack<float>& s) {
      return StackView<const float>{
          s.data() + m * region_.cols + m, t.rows, t.cols, 1, region_.cols, region_.area()};
    };
    Stack<float> templates;
    StackView<const float> left = inset(filled_reference_);
    Form form = Form::one_to_many;
    if (references != nullptr) {
      templates = Stack<float>(region_.rows, region_.cols, n);
      for (Index k = 0; k < n; ++k)
        std::copy_n((*references)[static_cast<std::size_t>(k)]->data(), region_.area(),
                    templates[k].data);
      left = inset(templates);
      left.count = n;
      form = Form::n_to_mn;
    }
    const CorrelationProblem p{
        {form, Mode::valid, Normalization::zncc, Output::peak, SubpixelMethod::quadratic2d},
        left,
        windows.view()};
    auto r = correlate(engine_, p, "auto");
    if (!r.is_ok()) return r.status();
    for (Index k = 0; k < n; ++k) {
      const Peak peak = decode_peak(r.value().result[k].row(0));
      out[static_cast<std::size_t>(k)] = {peak.sub_col() - static_cast<double>(m),
                                          peak.sub_row() - static_cast<double>(m), peak.value};
    }
    return out;
  }

  Estimator(const RegisterOptions& o, const Registry& engine, Shape region)
      : options_(o), engine_(engine), region_(region) {}
  static PhaseOptions phase_options(const RegisterOptions& o) {
    return {o.upsample, o.window == Window::tukey, o.whiten == Whiten::on};
  }
  RegisterOptions options_;
  const Registry& engine_;
  Shape region_;
  long margin_ = 0;
  std::unique_ptr<PhaseEngine> phase_;
  std::unique_ptr<TransformFitter> fit_;
  Stack<float> reference_;         // as set: clean, missing pixels NaN
  Stack<float> filled_reference_;  // what is measured against
};

// A transform's linear part as text after the shift (" l00 l01 l10 l11", %.17g); nothing for a
// translation, so that translation commits keep their form.
std::string linear_text(const std::array<double, 4>& l) {
  if (l == std::array<double, 4>{1, 0, 0, 1}) return "";
  char b[128];
  std::snprintf(b, sizeof b, " %.17g %.17g %.17g %.17g", l[0], l[1], l[2], l[3]);
  return b;
}
// The linear part after a commit's numbers, when there is one (else the identity).
std::array<double, 4> read_linear(std::istream& in) {
  std::array<double, 4> l{1, 0, 0, 1}, read{};
  if (in >> read[0] >> read[1] >> read[2] >> read[3]) l = read;
  return l;
}

// Committed rows: "frame dx dy peak" per measured frame (%.17g: read back exactly), or
// "frame failed <reason>".
std::string commit_text(const std::vector<DriftRow>& rows, long upto) {
  std::string t;
  char b[128];
  for (long k = 1; k < upto; ++k) {
    const DriftRow& d = rows[static_cast<std::size_t>(k)];
    if (!d.failed.empty()) {
      t += std::to_string(k) + " failed " + d.failed + "\n";
      continue;
    }
    std::snprintf(b, sizeof b, "%ld %.17g %.17g %.17g", k, d.dx, d.dy, d.peak);
    t += b + linear_text(d.linear) + "\n";
  }
  return t;
}

// The rows of an earlier run's commits; how many frames (from 1) they cover in order.
long read_commits(const std::string& text, std::vector<DriftRow>& rows) {
  std::istringstream in(text);
  std::string line;
  long next = 1;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    long k = 0;
    std::string word;
    if (!(l >> k >> word) || k != next || k >= static_cast<long>(rows.size())) break;
    DriftRow& d = rows[static_cast<std::size_t>(k)];
    if (word == "failed") {
      std::getline(l >> std::ws, d.failed);
    } else {
      char* end = nullptr;
      d.dx = std::strtod(word.c_str(), &end);
      if (!(l >> d.dy >> d.peak) || !std::isfinite(d.dx) || !std::isfinite(d.dy)) break;
      d.linear = read_linear(l);
    }
    ++next;
  }
  return next;
}

// One frame's measurement: its shift (previous: from the readable frame before it) or why it
// could not be read.
struct Measured {
  long frame = 0;
  Shift shift;  // transforms: where the frame's centre went (DriftRow)
  std::array<double, 4> linear{1, 0, 0, 1};
  std::string failed;
};

// Measurements as text (%.17g: read back exactly), for the processes of a shared job.
std::string measured_text(const std::vector<Measured>& rows) {
  std::string t;
  char b[128];
  for (const Measured& m : rows) {
    if (!m.failed.empty()) {
      t += std::to_string(m.frame) + " failed " + m.failed + "\n";
      continue;
    }
    std::snprintf(b, sizeof b, "%ld %.17g %.17g %.17g", m.frame, m.shift.dx, m.shift.dy,
                  m.shift.peak);
    t += b + linear_text(m.linear) + "\n";
  }
  return t;
}

std::vector<Measured> parse_measured(const std::string& text) {
  std::vector<Measured> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    Measured m;
    std::string word;
    if (!(l >> m.frame >> word)) continue;
    if (word == "failed") {
      std::getline(l >> std::ws, m.failed);
    } else {
      m.shift.dx = std::strtod(word.c_str(), nullptr);
      l >> m.shift.dy >> m.shift.peak;
      m.linear = read_linear(l);
    }
    rows.push_back(std::move(m));
  }
  return rows;
}

}  // namespace

long first_uncommitted_frame(const RegisterJob& job, long pages) {
  const std::filesystem::path partial = partial_folder(job);
  auto saved = io::read_file(partial / "job.txt");
  auto rows = io::read_file(partial / "drift.txt");
  if (!saved.is_ok() || saved.value() != job_identity(job) || !rows.is_ok()) return 1;
  std::vector<DriftRow> drift(static_cast<std::size_t>(std::max(pages, 1L)));
  return read_commits(rows.value(), drift);
}

std::string drift_csv(const RegisterJob& job, const RegisterReport& r) {
  const io::ImageScale& s = r.scale;
  const bool transform = job.options.transform != Transform::translation;
  std::string h = "# xcorr drift\n# software: xcorr " + std::string(kVersion) + "\n";
  h += "# stack: " + std::filesystem::path(job.stack).filename().string() + "\n";
  h +=
      "# units: dx, dy in px: a feature at (x, y) in the reference is at (x + dx, y + dy) in "
      "the frame; the corrected frame is the frame moved back by (dx, dy); peak: " +
      std::string(transform                             ? "ZNCC of the fitted frame"
                  : job.options.method == Method::phase ? "normalised phase-correlation peak (0..1)"
                                                        : "ZNCC") +
      "\n";
  if (transform) {
    char b[512];
    std::snprintf(b, sizeof b,
                  "# transform: %s; dx, dy: where the frame's centre (x %.1f, y %.1f px) went; "
                  "angle_deg: rotation in degrees, from +x towards +y (clockwise as shown); "
                  "scale: sqrt(|det|); a11..a23 (px): a reference pixel (x, y) is at (a11 x + "
                  "a12 y + a13, a21 x + a22 y + a23) in the frame; the corrected frame samples "
                  "the frame there (cubic B-spline)\n",
                  label(job.options.transform), (static_cast<double>(r.frame.cols) - 1) / 2,
                  (static_cast<double>(r.frame.rows) - 1) / 2);
    h += b;
  }
  h += "# scale: " + io::describe(s) + "\n";
  h += "# settings: " + describe_fields(register_option_table(), job.options) + "\n";
  h += "# corrected area: x " + std::to_string(r.crop_x) + ", y " + std::to_string(r.crop_y) +
       ", " + std::to_string(r.width) + " x " + std::to_string(r.height) + " px\n";
  for (const DriftRow& d : r.drift)
    if (!d.failed.empty())
      h += "# failed: frame " + std::to_string(d.frame) + ": " + d.failed + "\n";
  h += "frame";
  if (s.has_time()) h += ",time_s";
  const bool z_unit = r.volumes && s.has_length() && r.spacing_z > 0;
  if (r.volumes)
    h.insert(h.rfind("# scale:"),
             "# dims: 3; dz in z-planes (a feature at plane z of the reference is at z + dz "
             "in the frame)" +
                 std::string(z_unit ? "" : "; z spacing not known") + "\n");
  h += ",dx,dy";
  if (r.volumes) h += ",dz";
  if (transform) h += ",angle_deg,scale,a11,a12,a13,a21,a22,a23";
  if (s.has_length()) h += ",dx_" + s.unit + ",dy_" + s.unit;
  if (z_unit) h += ",dz_" + s.unit;
  h += ",peak\n";
  for (const DriftRow& d : r.drift) {
    const bool ok = d.failed.empty();
    const double nan = std::nan("");
    h += std::to_string(d.frame);
    if (s.has_time()) h += "," + fmt("%.9g", static_cast<double>(d.frame) * s.frame_interval_s);
    h += "," + fmt("%.6f", ok ? d.dx : nan) + "," + fmt("%.6f", ok ? d.dy : nan);
    if (r.volumes) h += "," + fmt("%.6f", ok ? d.dz : nan);
    if (transform) {
      const Affine a = drift_map(d, r.frame);
      h +=
          "," + fmt("%.6f", ok ? a.angle_degrees() : nan) + "," + fmt("%.8f", ok ? a.scale() : nan);
      for (const double v : a.m) h += "," + fmt("%.9g", ok ? v : nan);
    }
    if (s.has_length())
      h += "," + fmt("%.9g", ok ? d.dx * s.pixel_x : nan) + "," +
           fmt("%.9g", ok ? d.dy * s.pixel_y : nan);
    if (z_unit) h += "," + fmt("%.9g", ok ? d.dz * r.spacing_z : nan);
    h += "," + fmt("%.6f", ok ? d.peak : nan) + "\n";
  }
  return h;
}

namespace {

// The corrected stack: every page of the stack (a hyperstack's every channel and z-plane) moved
// by its time point's drift, in the input's page order, failed time points left out; the layout,
// scale and flavour (OME-XML or ImageJ) of the input. Pages are moved a block at a time over the
// host's threads, the block's size kept within kOutputBudget (at least one page: a huge frame
// costs the page read and one page of interpolation coefficients, rows streamed to the file).
constexpr std::size_t kOutputBudget = std::size_t{256} << 20;

using PageRows = std::function<void(Index r, float* out)>;
// Opens the job's stack (the file, or the MemoryStack) for a plane selection.
// To the TIFF job.out, or (to_memory set) into *to_memory as the TIFF would hold the values.
Status write_corrected(const RegisterJob& job, io::LazyStack& st, const OpenPages& open,
                       const RegisterReport& report, const std::function<bool(double)>& tick,
                       Stack<float>* to_memory = nullptr) {
  const io::StackMetadata& metadata = st.metadata();
  const io::HyperLayout& layout = metadata.layout;
  const Shape shape = st.shape();
  const long n = static_cast<long>(st.count());
  // The pages to write, in file order, with their time points (frames of `st`).
  io::LazyStack* pages = &st;
  std::unique_ptr<io::LazyStack> all;
  std::vector<std::pair<long, long>> order;  // page of `pages`, time point
  if (layout.plain()) {
    for (long k = 0; k < n; ++k) order.emplace_back(k, k);
  } else {
    io::PlaneSelection every = job.options.plane();
    every.all_pages = true;
    auto opened = open(every);
    if (!opened.is_ok()) return opened.status();
    all = std::move(opened).value();
    XCORR_RETURN_IF_ERROR(all->wait_indexed());
    pages = all.get();
    for (long p = 0; p < static_cast<long>(all->count()); ++p) {
      const long t = layout.time_of_page(p);
      if (t < n) order.emplace_back(p, t);
    }
  }
  std::erase_if(order, [&report](const std::pair<long, long>& e) {
    return !report.drift[static_cast<std::size_t>(e.second)].failed.empty();
  });
  const long good = n - std::count_if(report.drift.begin(), report.drift.begin() + n,
                                      [](const DriftRow& d) { return !d.failed.empty(); });
  const Shape out_shape{report.height, report.width};
  const auto page_bytes = static_cast<std::size_t>(shape.area()) * sizeof(float);
  const long block = std::clamp(static_cast<long>(kOutputBudget / (2 * page_bytes)), 1L,
                                std::max(2L, static_cast<long>(hardware_threads()) * 2));
  const double per_page =
      static_cast<double>(n) / static_cast<double>(std::max<std::size_t>(1, order.size()));
  // Every page moved, given to `add_page` a row at a time.
  const auto move_pages = [&](const std::function<Status(const PageRows&)>& add_page) -> Status {
    for (std::size_t first = 0; first < order.size(); first += static_cast<std::size_t>(block)) {
      const std::size_t count = std::min(order.size() - first, static_cast<std::size_t>(block));
      std::vector<std::shared_ptr<const Stack<float>>> in(count);
      for (std::size_t i = 0; i < count; ++i) {
        auto f = pages->frame(order[first + i].first);
        if (!f.is_ok()) return f.status();  // it was readable in the first pass
        in[i] = f.value();
      }
      // Missing (non-finite) pixels: interpolated as the finite mean, missing again after.
      std::vector<std::unique_ptr<ShiftedImage>> moved(count);
      std::vector<std::unique_ptr<WarpedImage>> warped(count);  // transforms
      std::vector<char> has_missing(count, 0);
      parallel_for(static_cast<Index>(count), 1, [&](Index b, Index end) {
        for (Index i = b; i < end; ++i) {
          const auto k = static_cast<std::size_t>(i);
          const DriftRow& d = report.drift[static_cast<std::size_t>(order[first + k].second)];
          const MatrixView<const float> page = (*in[k])[0];
          const float mean = finite_mean(page, has_missing[k]);
          if (d.linear == std::array<double, 4>{1, 0, 0, 1})
            moved[k] = std::make_unique<ShiftedImage>(page, d.dx, d.dy, mean);
          else
            warped[k] =
                std::make_unique<WarpedImage>(page, drift_map(d, shape), mean, has_missing[k] != 0);
        }
      });
      for (std::size_t k = 0; k < count; ++k) {
        const DriftRow& d = report.drift[static_cast<std::size_t>(order[first + k].second)];
        const MatrixView<const float> page = (*in[k])[0];
        std::vector<float> row(static_cast<std::size_t>(shape.cols));
        XCORR_RETURN_IF_ERROR(add_page([&](Index r, float* out) {
          if (warped[k]) {
            warped[k]->row(r + report.crop_y, row.data(), 0.0f);
          } else {
            moved[k]->row(r + report.crop_y, row.data(), 0.0f);
            if (has_missing[k]) mark_missing_row(page, d.dx, d.dy, r + report.crop_y, row.data());
          }
          std::copy_n(row.data() + report.crop_x, report.width, out);
        }));
        moved[k].reset();
        warped[k].reset();
        in[k].reset();
      }
      if (!tick(per_page * static_cast<double>(count)))
        return Status{ErrorCode::cancelled, "registration cancelled"};
    }
    return Status::ok();
  };
  if (to_memory != nullptr) {
    Stack<float> out(out_shape.rows, out_shape.cols, static_cast<Index>(order.size()));
    // Allocating the whole corrected stack can take a while: cancel is looked at after it.
    if (!tick(0)) return Status{ErrorCode::cancelled, "registration cancelled"};
    Index next = 0;
    const io::PixelType type = st.pixel_type();
    XCORR_RETURN_IF_ERROR(move_pages([&](const PageRows& rows) {
      const MatrixView<float> page = out[next++];
      for (Index r = 0; r < out_shape.rows; ++r) {
        float* row = page.row(r);
        rows(r, row);
        for (Index c = 0; c < out_shape.cols; ++c) row[c] = io::stored_value(type, row[c]);
      }
      return Status::ok();
    }));
    *to_memory = std::move(out);
    return Status::ok();
  }
  const std::string description =
      io::derived_description(metadata, out_shape, good, st.pixel_type(), report.scale);
  return io::write_atomically(job.out, [&](const std::filesystem::path& tmp) -> Status {
    auto w = io::TiffWriter::create(tmp, st.pixel_type(), out_shape,
                                    static_cast<long>(order.size()), description, report.scale);
    if (!w.is_ok()) return w.status();
    XCORR_RETURN_IF_ERROR(
        move_pages([&](const PageRows& rows) { return w.value()->add_page_rows(rows); }));
    return w.value()->close();
  });
}

}  // namespace

Status finish_registration(const RegisterJob& job, RegisterReport& report, Shape shape,
                           bool in_memory, Stack<float>* to_memory,
                           const std::filesystem::path& partial,
                           const std::function<Status(Stack<float>*)>& write_corrected) {
  for (const DriftRow& d : report.drift) report.failed += d.failed.empty() ? 0 : 1;
  XCORR_RETURN_IF_ERROR(set_corrected_area(report, shape, job.options.border));
  if (in_memory) return to_memory != nullptr ? write_corrected(to_memory) : Status::ok();
  if (!job.out.empty()) {
    XCORR_RETURN_IF_ERROR(write_corrected(nullptr));
    report.written.push_back(job.out);
  }
  if (!job.drift.empty()) {
    XCORR_RETURN_IF_ERROR(io::write_text_atomically(job.drift, drift_csv(job, report)));
    report.written.push_back(job.drift);
  }
  std::error_code ec;
  std::filesystem::remove_all(partial, ec);  // everything is in the outputs now
  return Status::ok();
}

Status set_corrected_area(RegisterReport& report, Shape shape, Border border) {
  report.crop_x = report.crop_y = 0;
  report.width = shape.cols, report.height = shape.rows;
  if (border == Border::pad) return Status::ok();
  double x0 = 0, y0 = 0, x1 = static_cast<double>(shape.cols - 1),
         y1 = static_cast<double>(shape.rows - 1);
  for (const DriftRow& d : report.drift) {
    if (!d.failed.empty()) continue;
    x0 = std::max(x0, -d.dx), y0 = std::max(y0, -d.dy);
    x1 = std::min(x1, static_cast<double>(shape.cols - 1) - d.dx);
    y1 = std::min(y1, static_cast<double>(shape.rows - 1) - d.dy);
  }
  report.crop_x = static_cast<long>(std::ceil(x0 - 1e-9));
  report.crop_y = static_cast<long>(std::ceil(y0 - 1e-9));
  report.width = static_cast<long>(std::floor(x1 + 1e-9)) - report.crop_x + 1;
  report.height = static_cast<long>(std::floor(y1 + 1e-9)) - report.crop_y + 1;
  // Transforms: that area inset alike on every side until its corners map into every frame (a
  // frame is convex: then the whole area does).
  const auto covered = [&](long inset) {
    const double l = static_cast<double>(report.crop_x + inset);
    const double t = static_cast<double>(report.crop_y + inset);
    const double r = static_cast<double>(report.crop_x + report.width - 1 - inset);
    const double b = static_cast<double>(report.crop_y + report.height - 1 - inset);
    if (r < l || b < t) return false;
    for (const DriftRow& d : report.drift) {
      if (!d.failed.empty()) continue;
      const Affine a = drift_map(d, shape);
      for (const double x : {l, r})
        for (const double y : {t, b}) {
          const double fx = a.x(x, y), fy = a.y(x, y);
          if (fx < -1e-6 || fy < -1e-6 || fx > static_cast<double>(shape.cols - 1) + 1e-6 ||
              fy > static_cast<double>(shape.rows - 1) + 1e-6)
            return false;
        }
    }
    return true;
  };
  if (report.width >= 1 && report.height >= 1 && !covered(0)) {
    long lo = 0, hi = (std::min(report.width, report.height) + 1) / 2;  // lo fails, hi: none
    while (hi - lo > 1) {
      const long mid = (lo + hi) / 2;
      (covered(mid) ? hi : lo) = mid;
    }
    report.crop_x += hi, report.crop_y += hi;
    report.width -= 2 * hi, report.height -= 2 * hi;
    if (!covered(0)) report.width = report.height = 0;
  }
  if (report.width < 1 || report.height < 1)
    return Status{ErrorCode::invalid_argument,
                  "the frames share no area after their drift: use border pad"};
  return Status::ok();
}

namespace {

// A saved drift table (drift_csv's format: '#' lines, a header naming frame, dx and dy, one row
// per frame; nan for a failed frame) as the drift of a stack of `frames` time points.
Result<std::vector<DriftRow>> read_drift_table(const std::string& path, long frames,
                                               const std::string& stack, Shape frame,
                                               bool& volumes) {
  auto text = io::read_file(path);
  if (!text.is_ok()) return text.status();
  std::istringstream in(text.value());
  std::vector<DriftRow> rows;
  long col_frame = -1, col_dx = -1, col_dy = -1, col_dz = -1, columns = 0, line_no = 0;
  std::array<long, 6> col_a{-1, -1, -1, -1, -1, -1};  // a11 .. a23 (transforms)
  const char* a_names[] = {"a11", "a12", "a13", "a21", "a22", "a23"};
  const auto bad = [&](const std::string& why) {
    return Status{ErrorCode::parse_error, path + ":" + std::to_string(line_no) + ": " + why};
  };
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream cs(line);
    for (std::string c; std::getline(cs, c, ',');) cells.push_back(c);
    if (col_frame < 0) {
      for (long c = 0; c < static_cast<long>(cells.size()); ++c) {
        const std::string& name = cells[static_cast<std::size_t>(c)];
        if (name == "frame") col_frame = c;
        if (name == "dx") col_dx = c;
        if (name == "dy") col_dy = c;
        if (name == "dz") col_dz = c;
        for (std::size_t k = 0; k < 6; ++k)
          if (name == a_names[k]) col_a[k] = c;
      }
      if (col_frame < 0 || col_dx < 0 || col_dy < 0)
        return bad("not a drift table: the header names no frame, dx and dy columns");
      columns = static_cast<long>(cells.size());
      continue;
    }
    if (static_cast<long>(cells.size()) != columns)
      return bad("expected " + std::to_string(columns) + " values, found " +
                 std::to_string(cells.size()));
    DriftRow d;
    char* end = nullptr;
    const std::string& f = cells[static_cast<std::size_t>(col_frame)];
    d.frame = std::strtol(f.c_str(), &end, 10);
    if (f.empty() || *end != '\0' || d.frame != static_cast<long>(rows.size())) {
      if (d.frame == frames && f == std::to_string(frames)) continue;  // a row for lost pages
      return bad("frame '" + f + "': expected frame " + std::to_string(rows.size()));
    }
    const std::string& x = cells[static_cast<std::size_t>(col_dx)];
    const std::string& y = cells[static_cast<std::size_t>(col_dy)];
    d.dx = std::strtod(x.c_str(), &end);
    const bool x_ok = !x.empty() && *end == '\0';
    d.dy = std::strtod(y.c_str(), &end);
    if (!x_ok || y.empty() || *end != '\0')
      return bad("dx, dy '" + x + "', '" + y + "' are not numbers");
    if (col_dz >= 0) {
      const std::string& z = cells[static_cast<std::size_t>(col_dz)];
      d.dz = std::strtod(z.c_str(), &end);
      if (z.empty() || *end != '\0') return bad("dz '" + z + "' is not a number");
      if (!std::isfinite(d.dz)) d.dx = NAN;
    }
    if (col_a[0] >= 0 && std::isfinite(d.dx) && std::isfinite(d.dy)) {
      Affine a;
      for (std::size_t k = 0; k < 6; ++k) {
        if (col_a[k] < 0) return bad(std::string("a transform table without ") + a_names[k]);
        const std::string& v = cells[static_cast<std::size_t>(col_a[k])];
        a.m[k] = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !std::isfinite(a.m[k]))
          return bad(std::string(a_names[k]) + " '" + v + "' is not a number");
      }
      if (!(std::abs(a.determinant()) > 1e-6)) return bad("the transform is singular");
      set_drift_map(d, a, frame);
    }
    if (!std::isfinite(d.dx) || !std::isfinite(d.dy))
      d.failed = "failed in the drift table '" + path + "'";
    d.peak = 1;
    rows.push_back(d);
  }
  if (col_frame < 0)
    return Status{ErrorCode::parse_error, path + ": not a drift table (no header)"};
  volumes = col_dz >= 0;
  if (static_cast<long>(rows.size()) != frames)
    return Status{ErrorCode::size_mismatch,
                  "the drift table '" + path + "' has " + std::to_string(rows.size()) +
                      " frame(s) but '" + stack + "' has " + std::to_string(frames) +
                      ": a drift table applies only to a stack of as many frames (time points)"};
  return rows;
}

// --apply: the corrected stack from a saved drift table, nothing measured.
Result<RegisterReport> apply_drift(const RegisterJob& job, const RegisterProgress& progress) {
  const RegisterOptions& o = job.options;
  auto open = io::LazyStack::open(job.stack, kCacheBytes, o.plane());
  if (!open.is_ok()) return open.status();
  io::LazyStack& st = *open.value();
  XCORR_RETURN_IF_ERROR(st.wait_indexed());
  const long n = static_cast<long>(st.count());
  RegisterReport report;
  report.device = "drift table";
  auto scale = io::apply_user_scale(st.metadata().scale, o.pixel_size, o.frame_interval);
  if (!scale.is_ok()) return scale.status();
  report.scale = scale.value();
  report.frame = st.shape();
  bool volumes = false;
  auto rows = read_drift_table(job.apply, n, job.stack, st.shape(), volumes);
  if (!rows.is_ok()) return rows.status();
  report.drift = std::move(rows).value();
  for (const DriftRow& d : report.drift) report.failed += d.failed.empty() ? 0 : 1;
  XCORR_RETURN_IF_ERROR(set_corrected_area(report, st.shape(), o.border));
  double done = 0;
  const auto tick = [&](double frames) {
    done += frames;
    return !progress || progress(done, static_cast<double>(n));
  };
  const OpenPages open_file = [&job](const io::PlaneSelection& plane) {
    return io::LazyStack::open(job.stack, kCacheBytes, plane);
  };
  if (volumes) {  // a table with dz: the volumes move in z too
    report.volumes = true;
    XCORR_RETURN_IF_ERROR(write_corrected_volumes(job, open_file, report, tick));
    report.written.push_back(job.out);
    return report;
  }
  XCORR_RETURN_IF_ERROR(write_corrected(job, st, open_file, report, tick));
  report.written.push_back(job.out);
  return report;
}

// The processes a shared job runs in (RegisterShare), or none: how the passes agree, exchange
// and give up. Alone (from the start, or once an exchange gave up: the group lost a process)
// every exchange is local; then the leader goes on alone and the others stop (orphaned()).
class Group {
 public:
  explicit Group(const RegisterShare* share)
      : share_(share),
        shared_(share != nullptr && share->count > 1),
        leader_(!shared_ || share->index == 0) {}
  bool shared() const { return shared_; }
  bool leader() const { return leader_; }
  long index() const { return share_ != nullptr ? share_->index : 0; }
  long count() const { return shared_ ? share_->count : 1; }
  void leave() { shared_ = false; }
  static Status orphaned() { return Status{ErrorCode::cancelled, "the group lost a process"}; }

  // Shared: every process's status to all, the first failure (in process order) for every one,
  // so that all stop together. Alone: `mine`.
  Status agree(const Status& mine) {
    if (!shared_) return mine;
    std::vector<std::string> all;
    std::string verdict;
    if (share_->gather(mine.is_ok()
                           ? ""
                           : std::to_string(static_cast<int>(mine.code())) + " " + mine.message(),
                       all)) {
      for (std::size_t p = 0; p < all.size() && verdict.empty(); ++p) verdict = all[p];
      if (share_->broadcast(verdict)) {
        if (verdict.empty()) return Status::ok();
        const std::size_t space = verdict.find(' ');
        return Status{static_cast<ErrorCode>(std::atoi(verdict.c_str())),
                      verdict.substr(space + 1)};
      }
    }
    shared_ = false;
    return leader_ ? mine : orphaned();
  }
  // The collectives (RegisterShare); false when the group gave up (the caller decides what then).
  bool gather(const std::string& mine, std::vector<std::string>& all) {
    return share_->gather(mine, all);
  }
  bool broadcast(std::string& text) { return share_->broadcast(text); }
  // broadcast, leaving the group when it gives up: false for a process that must then stop.
  bool broadcast_or_leave(std::string& text) {
    if (!shared_ || share_->broadcast(text)) return true;
    shared_ = false;
    return leader_;
  }

 private:
  const RegisterShare* share_;
  bool shared_;
  bool leader_;
};

// Frames (dims 2) are measured on one channel.
Status refuse_channel_sum(const RegisterOptions& o) {
  if (!o.sums_channels()) return Status::ok();
  return Status{ErrorCode::invalid_argument,
                "channel sum adds the channels of volumes (dims 3) only: name the channel that "
                "frames are measured on"};
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// One registration of a stack, pass by pass: open the stack and the region, make the estimator
// (with the leader's FFTW plans), plan the blocks (resume point, block size, device), measure
// (first pass, with commits), the mean reference and its pass, then the outputs (the leader's).
class StackRegistration {
 public:
  // memory: the stack in memory (register_memory), its corrected pages to `corrected`; no
  // commits then.
  StackRegistration(const RegisterJob& job, const Engines& engines,
                    const RegisterProgress& progress, const RegisterShare* share,
                    const MemoryStack* memory = nullptr, Stack<float>* corrected = nullptr)
      : job_(job),
        o_(job.options),
        engines_(engines),
        progress_(progress),
        group_(share),
        memory_(memory),
        corrected_(corrected),
        partial_(memory != nullptr ? std::filesystem::path()
                                   : std::filesystem::path(partial_folder(job))),
        identity_(memory != nullptr ? std::string() : job_identity(job)) {}

  Result<RegisterReport> run() {
    const Clock::time_point start = Clock::now();
    XCORR_RETURN_IF_ERROR(refuse_channel_sum(o_));
    XCORR_RETURN_IF_ERROR(group_.agree(open()));
    // Cancel is looked at between the steps of the setup too (a process of its own: a group's
    // processes stop together, in the passes).
    const auto alone_cancelled = [this] { return !group_.shared() && !tick(0); };
    if (alone_cancelled()) return cancelled();
    XCORR_RETURN_IF_ERROR(make_estimator_with_plans());
    if (alone_cancelled()) return cancelled();
    report_.drift.resize(static_cast<std::size_t>(n_));
    for (long k = 0; k < n_; ++k) report_.drift[static_cast<std::size_t>(k)].frame = k;
    passes_ = o_.reference == Reference::mean ? 3 : 2;
    XCORR_RETURN_IF_ERROR(open_projection());
    XCORR_RETURN_IF_ERROR(plan_blocks());
    if (alone_cancelled()) return cancelled();
    report_.times.setup_s = seconds_since(start);
    const Clock::time_point passes = Clock::now();
    XCORR_RETURN_IF_ERROR(pass(ref_, o_.reference == Reference::previous, true));
    if (!tick(1)) return cancelled();
    if (o_.reference == Reference::mean) XCORR_RETURN_IF_ERROR(mean_reference_pass());
    report_.times.frames_s = seconds_since(passes);
    if (!group_.leader()) return RegisterReport{};  // the leader writes
    return outputs();
  }

 private:
  static Status cancelled() { return Status{ErrorCode::cancelled, "registration cancelled"}; }

  bool tick(double frames) {
    done_ += frames;
    return !group_.leader() || !progress_ || progress_(done_, passes_ * static_cast<double>(n_));
  }

  Result<std::unique_ptr<io::LazyStack>> open_stack(const io::PlaneSelection& plane) const {
    if (memory_ != nullptr)
      return io::LazyStack::in_memory(memory_->name, memory_->pages, memory_->type,
                                      memory_->metadata, plane);
    return io::LazyStack::open(job_.stack, kCacheBytes, plane);
  }

  // The stack, its frames, the region and the scale.
  Status open() {
    XCORR_RETURN_IF_ERROR(memory_ != nullptr ? o_.check() : job_.check());
    auto open = open_stack(o_.plane());
    if (!open.is_ok()) return open.status();
    opened_ = std::move(open).value();
    indexed_ = opened_->wait_indexed();
    n_ = static_cast<long>(opened_->count());
    if (n_ < 2)
      return Status{ErrorCode::invalid_argument,
                    "'" + job_.stack + "' holds one frame: registration needs at least two"};
    shape_ = opened_->shape();
    report_.frame = shape_;
    auto region = parse_region(o_.region, shape_.cols, shape_.rows);
    if (!region.is_ok()) return region.status();
    rr_ = region.value();
    rshape_ = Shape{rr_.h, rr_.w};
    auto scale = io::apply_user_scale(opened_->metadata().scale, o_.pixel_size, o_.frame_interval);
    if (!scale.is_ok()) return scale.status();
    report_.scale = scale.value();
    return Status::ok();
  }

  // The estimator and the reference (frame 0's region).
  Status make_estimator() {
    auto est = Estimator::create(o_, engines_, rshape_);
    if (!est.is_ok()) return est.status();
    estimator_ = std::move(est).value();
    auto r0 = opened_->region(0, rr_.y, rr_.x, rr_.h, rr_.w);
    if (!r0.is_ok())
      return Status{r0.status().code(),
                    "the reference frame 0 cannot be used: " + r0.status().message()};
    ref_ = std::move(r0).value();
    const MissingPixels m = clean(ref_[0]);
    if (!m.why.empty())
      return Status{ErrorCode::invalid_argument, "the reference frame 0 " + m.why};
    return Status::ok();
  }

  // FFTW's plans (core/register/phase_correlation.hpp): the leader's, those an interrupted run of
  // this job used (kept in its .partial folder) or made now; the other processes use them, so
  // that every frame's arithmetic is the same wherever it is measured.
  Status make_estimator_with_plans() {
    Status made = Status::ok();
    if (group_.leader()) {
      if (!partial_.empty()) {
        auto saved = io::read_file(partial_ / "job.txt");
        auto kept = io::read_file(partial_ / "fftw_plans.txt");
        if (saved.is_ok() && saved.value() == identity_ && kept.is_ok())
          use_fftw_plans(kept.value());
      }
      made = make_estimator();
      plans_ = fftw_plans();
    }
    if (group_.shared()) {
      XCORR_RETURN_IF_ERROR(group_.agree(made));
      if (!group_.broadcast_or_leave(plans_)) return Group::orphaned();
      if (group_.shared() && !group_.leader()) {
        made = use_fftw_plans(plans_)
                   ? make_estimator()
                   : Status{ErrorCode::internal,
                            "the first process's FFTW plans cannot be used here (another FFTW "
                            "build?)"};
      }
    }
    return group_.agree(made);
  }

  // z-stacks measured on a projection over z: each time point's pages of the channel, from a
  // view of every page; the reference is frame 0's projection too.
  Status open_projection() {
    const io::HyperLayout& layout = opened_->metadata().layout;
    if (o_.z_projection == ZProjection::plane || layout.slices <= 1) return Status::ok();
    io::PlaneSelection all = o_.plane();
    all.all_pages = true;
    auto pages = open_stack(all);
    XCORR_RETURN_IF_ERROR(group_.agree(pages.status()));
    every_ = std::move(pages).value();
    (void)every_->wait_indexed();  // damage: the pages it names fail their frames
    auto r0 = read_region(0);
    XCORR_RETURN_IF_ERROR(group_.agree(
        r0.is_ok() ? Status::ok()
                   : Status{r0.status().code(),
                            "the reference frame 0 cannot be used: " + r0.status().message()}));
    ref_ = std::move(r0).value();
    return Status::ok();
  }

  Result<Stack<float>> project(long k) {
    const io::HyperLayout& layout = opened_->metadata().layout;
    const Rect rr = rr_;
    Stack<float> sum(rr.h, rr.w, 1, o_.z_projection == ZProjection::max ? -INFINITY : 0.0f);
    std::vector<long> used(static_cast<std::size_t>(rr.h * rr.w), 0);
    for (long z = 0; z < layout.slices; ++z) {
      const long page = layout.page(o_.plane().channel, z, static_cast<long>(opened_->time_of(k)));
      auto f = every_->region(page, rr.y, rr.x, rr.h, rr.w);
      if (!f.is_ok()) return f;
      // Each plane's hot pixels go before they add up (a max keeps every plane's); missing
      // pixels are left out of the projection.
      (void)clean(f.value()[0]);
      for (Index i = 0; i < rr.h * rr.w; ++i) {
        const float v = f.value().data()[i];
        if (!std::isfinite(v)) continue;
        float& to = sum.data()[i];
        to = o_.z_projection == ZProjection::max ? std::max(to, v) : to + v;
        ++used[static_cast<std::size_t>(i)];
      }
    }
    for (Index i = 0; i < rr.h * rr.w; ++i) {
      const long u = used[static_cast<std::size_t>(i)];
      float& v = sum.data()[i];
      v = u == 0 ? NAN : o_.z_projection == ZProjection::mean ? v / static_cast<float>(u) : v;
    }
    return sum;
  }

  // A frame's region, clean() (its missing pixels NaN); a frame that cannot be registered (too
  // few finite pixels, flat, values too large) fails by name.
  Result<Stack<float>> read_region(long k) {
    auto f = every_ ? project(k) : opened_->region(k, rr_.y, rr_.x, rr_.h, rr_.w);
    if (!f.is_ok()) return f;
    const MissingPixels m = clean(f.value()[0]);
    if (!m.why.empty()) return Status{ErrorCode::invalid_argument, "it " + m.why};
    return f;
  }

  // Frames per block: a few per host thread (they are shifted on the CPU); on the GPU, what the
  // phase engine measures at once (32 frames, on each GPU of --devices), else 32. Commits of an
  // interrupted run of this job (first pass only; the leader's) give the resume point. Shared: the
  // leader's resume point and block size hold for all (a block's frames are measured in one call,
  // so the same blocks give the same bytes), and every process must measure on the same device.
  Status plan_blocks() {
    const std::string device = estimator_->device();
    const long cpu_block = std::max(2L, static_cast<long>(hardware_threads()) * 2);
    const long engine_block = estimator_->frames_per_call();  // the GPU phase engine's
    block_ = engine_block > 0 ? engine_block : device == "gpu" ? 32L : cpu_block;
    // Transforms on the GPU: up to 128 frames (within 1 GiB), so that the fitter's chunks of 32
    // overlap their starts on the host with the device's IC-GN (TransformFitter).
    if (device == "gpu" && estimator_->fits_transforms())
      block_ = std::clamp(static_cast<long>((1L << 30) / (4 * std::max<Index>(1, rshape_.area()))),
                          32L, 128L);
    report_.device = device;
    if (group_.leader() && !partial_.empty()) {
      std::error_code ec;
      auto saved = io::read_file(partial_ / "job.txt");
      auto rows = io::read_file(partial_ / "drift.txt");
      if (saved.is_ok() && saved.value() == identity_ && rows.is_ok())
        resume_from_ = read_commits(rows.value(), report_.drift);
      else
        std::filesystem::remove_all(partial_, ec);  // another job's, or none: start afresh
      report_.resumed = resume_from_ - 1;
    }
    if (!group_.shared()) return Status::ok();
    std::vector<std::string> devices;
    std::string plan = std::to_string(resume_from_) + " " + std::to_string(block_);
    const bool gathered = group_.gather(device, devices);
    for (std::size_t p = 0; p < devices.size(); ++p) {
      if (devices[p] != device)
        plan = "process " + std::to_string(p) + " of this job measures on " + devices[p] +
               " and its first on " + device +
               ": the drift would not be the same bytes; choose the device (--device)";
    }
    if (gathered && group_.broadcast(plan)) {
      std::istringstream in(plan);
      if (!(in >> resume_from_ >> block_)) return Status{ErrorCode::invalid_argument, plan};
      return Status::ok();
    }
    group_.leave();
    return group_.leader() ? Status::ok() : Group::orphaned();
  }

  Status timed_commit(long upto) {
    const AddTime timed(report_.times.commits_s);
    return commit(upto);
  }

  Status commit(long upto) {
    if (partial_.empty()) return Status::ok();  // in memory: nothing to resume
    std::error_code ec;
    std::filesystem::create_directories(partial_, ec);
    if (!std::filesystem::exists(partial_ / "job.txt", ec)) {
      if (!plans_.empty())  // first, so that the job's identity never stands without them
        XCORR_RETURN_IF_ERROR(io::write_text_atomically(partial_ / "fftw_plans.txt", plans_));
      XCORR_RETURN_IF_ERROR(io::write_text_atomically(partial_ / "job.txt", identity_));
    }
    return io::write_text_atomically(partial_ / "drift.txt", commit_text(report_.drift, upto));
  }

  // A block's frames as read (read_region), before they are measured.
  struct ReadBlock {
    std::vector<Measured> rows;        // one per frame; a frame that cannot be read has failed
    std::vector<Stack<float>> frames;  // the readable ones, in order
    std::vector<std::size_t> index;    // frames[i] is rows[index[i]]
  };

  // Frames [first, first + count) read and cleaned, several at once on the host's threads (a
  // TIFF's pages decode one at a time: LazyStack::region); stops early, as it was, once `stop`
  // is set.
  ReadBlock read_block(long first, long count, const std::atomic<bool>& stop) {
    ReadBlock b;
    b.rows.resize(static_cast<std::size_t>(count));
    std::vector<Result<Stack<float>>> read(static_cast<std::size_t>(count),
                                           Status{ErrorCode::cancelled, "not read"});
    parallel_for(count, 1, [&](Index a, Index z) {
      for (Index i = a; i < z && !stop.load(); ++i)
        read[static_cast<std::size_t>(i)] = read_region(first + static_cast<long>(i));
    });
    for (std::size_t i = 0; i < read.size(); ++i) {
      b.rows[i].frame = first + static_cast<long>(i);
      if (!read[i].is_ok()) {
        b.rows[i].failed = read[i].status().message();
        continue;
      }
      b.frames.push_back(std::move(read[i]).value());
      b.index.push_back(i);
    }
    return b;
  }

  // read_block(first, count) on the caller's thread, looking at cancel until it is done (a GPU
  // block of 32 frames or more can take seconds to read and clean): false when cancelled.
  bool read_now(long first, long count, ReadBlock& out) {
    std::atomic<bool> stop{false};
    auto reading = std::async(
        std::launch::async, [this, first, count, &stop] { return read_block(first, count, stop); });
    return wait_for_reading(reading, stop, out);
  }

  // The block being read by `reading` into `out`, looking at cancel every 0.1 s meanwhile (on
  // this thread: progress is only ever called from it); false, once the reading has stopped,
  // when cancelled.
  bool wait_for_reading(std::future<ReadBlock>& reading, std::atomic<bool>& stop, ReadBlock& out) {
    const AddTime timed(report_.times.reading_wait_s);
    while (reading.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
      if (!tick(0)) {
        stop.store(true);
        reading.wait();
        return false;
      }
    }
    out = reading.get();
    return !stop.load() && tick(0);
  }

  // Frames [first, first + count) against the reference, or (previous) each against the readable
  // frame before it, the first against `last`; `last` becomes the block's last readable frame.
  Result<std::vector<Measured>> measure_block(long first, long count, bool previous,
                                              Stack<float>& last) {
    ReadBlock b;
    if (!read_now(first, count, b)) return cancelled();
    return measure_read(std::move(b), previous, last);
  }

  // A block as read, measured as measure_block says.
  Result<std::vector<Measured>> measure_read(ReadBlock b, bool previous, Stack<float>& last) {
    std::vector<Measured>& rows = b.rows;
    std::vector<Stack<float>>& frames = b.frames;
    const std::vector<std::size_t>& index = b.index;
    std::vector<const Stack<float>*> ptrs, refs;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      ptrs.push_back(&frames[i]);
      refs.push_back(i == 0 ? &last : &frames[i - 1]);
    }
    if (ptrs.empty()) return std::move(rows);
    if (estimator_->fits_transforms()) {
      auto fitted = estimator_->fit(ptrs, previous ? &refs : nullptr);
      if (!fitted.is_ok()) return fitted.status();
      const std::vector<Fit>& fits = fitted.value();
      const auto ox = static_cast<double>(rr_.x), oy = static_cast<double>(rr_.y);
      for (std::size_t i = 0; i < fits.size(); ++i) {
        Measured& m = rows[index[i]];
        if (!fits[i].failed.empty()) {
          m.failed = "it " + fits[i].failed;
          continue;
        }
        DriftRow d;  // the region's map in the frame's pixels, about its centre
        set_drift_map(
            d, Affine::translation(-ox, -oy).then(fits[i].map).then(Affine::translation(ox, oy)),
            shape_);
        m.shift = {d.dx, d.dy, fits[i].zncc};
        m.linear = d.linear;
      }
      last = frames.back();
      return std::move(rows);
    }
    auto shifts = estimator_->measure(ptrs, previous ? &refs : nullptr);
    if (!shifts.is_ok()) return shifts.status();
    for (std::size_t i = 0; i < ptrs.size(); ++i) {
      const Shift& sh = shifts.value()[i];
      Measured& m = rows[index[i]];
      m.shift = sh;
      if (!std::isfinite(sh.dx) || !std::isfinite(sh.dy) || !(sh.peak > 0))
        m.failed = "no correlation peak (peak " + fmt("%.4g", sh.peak) + ")";
    }
    last = frames.back();
    return std::move(rows);
  }

  // The measurements into the drift table, in frame order (previous: accumulated).
  void apply(const std::vector<Measured>& rows, bool previous) {
    for (const Measured& m : rows) {
      DriftRow& d = report_.drift[static_cast<std::size_t>(m.frame)];
      if (!m.failed.empty()) {
        d.failed = m.failed;
        continue;
      }
      DriftRow measured;
      measured.dx = m.shift.dx, measured.dy = m.shift.dy, measured.linear = m.linear;
      if (previous && o_.transform != Transform::translation) {
        // This frame's map from the one before, after the maps up to that one.
        acc_ = acc_.then(drift_map(measured, shape_));
        set_drift_map(d, acc_, shape_);
      } else if (previous) {
        dx_ += m.shift.dx;
        dy_ += m.shift.dy;
        d.dx = dx_, d.dy = dy_;
      } else {
        d.dx = m.shift.dx, d.dy = m.shift.dy, d.linear = m.linear;
      }
      d.peak = m.shift.peak;
    }
  }

  // The readable frame before `first` (from 1 on), else the reference.
  Stack<float> last_before(long first, const Stack<float>& reference) {
    for (long k = first - 1; k >= 1; --k) {
      auto f = read_region(k);
      if (f.is_ok()) return std::move(f).value();
    }
    return reference;
  }

  // Every frame against `reference` (previous: against the last good frame before it); commits
  // (first pass): resumed from resume_from_, committed after every block or round.
  Status pass(const Stack<float>& reference, bool previous, bool commits) {
    XCORR_RETURN_IF_ERROR(estimator_->set_reference(reference));
    Stack<float> last = reference;  // previous: the last good frame
    dx_ = dy_ = 0;
    acc_ = Affine{};
    const long start = commits ? resume_from_ : 1;
    if (start > 1) {  // resumed: previous continues from the last good frame measured
      if (!tick(static_cast<double>(start - 1))) return cancelled();
      for (long k = start - 1; k >= 1 && previous && group_.leader(); --k) {
        const DriftRow& d = report_.drift[static_cast<std::size_t>(k)];
        if (!d.failed.empty()) continue;
        if (!group_.shared()) {
          auto f = read_region(k);
          if (!f.is_ok()) return f.status();
          last = std::move(f).value();
        }
        dx_ = d.dx, dy_ = d.dy;
        acc_ = drift_map(d, shape_);
        break;
      }
    }
    // Shared: rounds of one block per process (process p: the round's block p); the leader
    // takes every process's measurements in frame order, commits and says whether to go on.
    // Alone (from the start, or once the group lost a process): block after block.
    // Either way, this process's next block is read and cleaned on the host while this one is
    // measured (and, shared, exchanged): the block P blocks on (alone, P is 1; a leader left
    // alone goes on from the round after, which is where its next block starts).
    const long P = group_.count();
    const long block = block_;
    long next = start;  // the first frame not entered yet
    std::atomic<bool> stop_reading{false};
    std::future<ReadBlock> ahead;  // the block from `ahead_first`, when it is being read
    long ahead_first = -1;
    // Whatever way this pass ends, the reading ahead stops first (it uses this object).
    const struct StopAhead {
      std::atomic<bool>& stop;
      std::future<ReadBlock>& reading;
      ~StopAhead() {
        stop.store(true);
        if (reading.valid()) reading.wait();
      }
    } stop_at_end{stop_reading, ahead};
    // Frames [first, first + count): the block read ahead, or read now; then the block `step`
    // blocks on starts reading. false: cancelled.
    const auto take = [&](long first, long count, long step, ReadBlock& b) {
      const bool read = ahead.valid() && ahead_first == first
                            ? wait_for_reading(ahead, stop_reading, b)
                            : read_now(first, count, b);
      if (!read) return false;
      const long after = first + step * block;
      if (after < n_) {
        const long then = std::min(block, n_ - after);
        ahead_first = after;
        ahead = std::async(std::launch::async, [this, after, then, &stop_reading] {
          return read_block(after, then, stop_reading);
        });
      }
      return true;
    };
    while (next < n_) {
      if (!group_.shared()) {
        const long count = std::min(block, n_ - next);
        ReadBlock b;
        if (!take(next, count, 1, b)) return cancelled();
        auto rows = measure_read(std::move(b), previous, last);
        if (!rows.is_ok()) return rows.status();
        apply(rows.value(), previous);
        if (const Status c = commits ? timed_commit(next + count) : Status::ok(); !c.is_ok())
          return c;
        if (!tick(static_cast<double>(count))) return cancelled();
        next += count;
        continue;
      }
      const long round = next, upto = std::min(n_, round + P * block);
      const long first = round + group_.index() * block;
      Result<std::vector<Measured>> own = std::vector<Measured>{};
      if (first < n_) {
        ReadBlock b;
        if (take(first, std::min(block, n_ - first), P, b)) {
          Stack<float> before = previous ? last_before(first, reference) : reference;
          own = measure_read(std::move(b), previous, before);
        } else {
          own = cancelled();
        }
      }
      std::vector<std::string> all;
      bool gathered = false;
      {
        const AddTime timed(report_.times.exchanges_s);
        gathered = group_.gather(
            own.is_ok() ? measured_text(own.value()) : "E " + own.status().message(), all);
      }
      if (!gathered && !group_.leader()) return Group::orphaned();
      std::string verdict;
      if (!gathered) {  // the group lost a process: the leader measures the round's blocks itself
        group_.leave();
        if (!own.is_ok()) return own.status();
        for (long p = 0; p < P && round + p * block < n_; ++p) {
          const long f = round + p * block;
          if (p == group_.index()) {
            apply(own.value(), previous);
            continue;
          }
          Stack<float> before = previous ? last_before(f, reference) : reference;
          auto rows = measure_block(f, std::min(block, n_ - f), previous, before);
          if (!rows.is_ok()) return rows.status();
          apply(rows.value(), previous);
        }
      } else {
        for (std::size_t p = 0; p < all.size() && verdict.empty(); ++p)
          if (all[p].rfind("E ", 0) == 0) verdict = all[p].substr(2);
        if (group_.leader() && verdict.empty())
          for (const std::string& t : all) apply(parse_measured(t), previous);
      }
      if (group_.leader() && verdict.empty()) {
        Status ok = commits ? timed_commit(upto) : Status::ok();
        if (!ok.is_ok()) verdict = ok.message();
        if (verdict.empty() && !tick(static_cast<double>(upto - round))) verdict = "cancelled";
      }
      bool told = false;
      {
        const AddTime timed(report_.times.exchanges_s);
        told = group_.broadcast_or_leave(verdict);
      }
      if (!told) return Group::orphaned();
      if (verdict == "cancelled") return cancelled();
      if (!verdict.empty()) return Status{ErrorCode::internal, verdict};
      next = upto;
      if (!group_.shared() && previous) last = last_before(next, reference);  // alone from here
    }
    report_.drift[0].peak = 1;
    return Status::ok();
  }

  // The mean of the frames moved onto frame 0 (the leader's, a sum in frame order: the same
  // bytes; shared to every process), the pass against it, and the drift from frame 0, as the
  // other references report it.
  Status mean_reference_pass() {
    Stack<float> mean(rr_.h, rr_.w, 1, 0.0f);
    Status summed = Status::ok();
    if (group_.leader()) {
      std::vector<double> sum(static_cast<std::size_t>(rshape_.area()), 0.0);
      std::vector<long> used(static_cast<std::size_t>(rshape_.area()), 0);  // frames with data
      Stack<float> moved(rr_.h, rr_.w, 1);
      for (long k = 0; k < n_ && summed.is_ok(); ++k) {
        const DriftRow& d = report_.drift[static_cast<std::size_t>(k)];
        if (!d.failed.empty()) continue;
        auto f = read_region(k);
        if (!f.is_ok()) continue;
        if (o_.transform == Transform::translation) {
          shift_image(f.value()[0], d.dx, d.dy, moved[0], std::nanf(""));
        } else {  // the map in the region's pixels
          const auto ox = static_cast<double>(rr_.x), oy = static_cast<double>(rr_.y);
          warp_image(f.value()[0],
                     Affine::translation(ox, oy)
                         .then(drift_map(d, shape_))
                         .then(Affine::translation(-ox, -oy)),
                     moved[0], std::nanf(""));
        }
        for (Index i = 0; i < rshape_.area(); ++i) {
          if (!std::isfinite(moved.data()[i])) continue;  // missing, or outside the frame
          sum[static_cast<std::size_t>(i)] += moved.data()[i];
          ++used[static_cast<std::size_t>(i)];
        }
        if (progress_ && !progress_(done_, passes_ * static_cast<double>(n_))) summed = cancelled();
      }
      // Each pixel the mean of the frames with data there; where none has, frame 0's pixel
      // (NaN when missing there too).
      for (Index i = 0; i < rshape_.area(); ++i) {
        const long u = used[static_cast<std::size_t>(i)];
        mean.data()[i] =
            u > 0 ? static_cast<float>(sum[static_cast<std::size_t>(i)] / static_cast<double>(u))
                  : ref_.data()[i];
      }
    }
    XCORR_RETURN_IF_ERROR(group_.agree(summed));
    if (group_.shared()) {  // the mean to every process, as bytes
      std::string bytes(reinterpret_cast<const char*>(mean.data()),
                        static_cast<std::size_t>(rshape_.area()) * sizeof(float));
      if (!group_.broadcast_or_leave(bytes)) return Group::orphaned();
      if (group_.shared()) std::memcpy(mean.data(), bytes.data(), bytes.size());
    }
    XCORR_RETURN_IF_ERROR(pass(mean, false, false));
    const DriftRow d0 = report_.drift[0];
    const Affine from_frame0 = drift_map(d0, shape_).inverse();  // frame 0 -> the mean
    for (DriftRow& d : report_.drift) {
      if (!d.failed.empty()) continue;
      if (o_.transform != Transform::translation) {
        set_drift_map(d, from_frame0.then(drift_map(d, shape_)), shape_);
        continue;
      }
      d.dx -= d0.dx;
      d.dy -= d0.dy;
    }
    report_.drift[0].dx = report_.drift[0].dy = 0;
    report_.drift[0].linear = {1, 0, 0, 1};
    return Status::ok();
  }

  // The leader's outputs: the corrected stack and the drift table, then the .partial folder goes.
  Result<RegisterReport> outputs() {
    // Pages lost to damage after the last readable one: one row says why.
    if (!indexed_.is_ok()) {
      DriftRow lost;
      lost.frame = n_;
      lost.failed = indexed_.message();
      report_.drift.push_back(lost);
    }
    const OpenPages open = [this](const io::PlaneSelection& plane) { return open_stack(plane); };
    const auto ticked = [this](double f) { return tick(f); };
    const Clock::time_point start = Clock::now();
    XCORR_RETURN_IF_ERROR(finish_registration(
        job_, report_, shape_, memory_ != nullptr, corrected_, partial_, [&](Stack<float>* to) {
          return write_corrected(job_, *opened_, open, report_, ticked, to);
        }));
    report_.times.writing_s = seconds_since(start);
    return report_;
  }

  const RegisterJob& job_;
  const RegisterOptions& o_;
  const Engines& engines_;
  const RegisterProgress& progress_;
  Group group_;
  const MemoryStack* memory_;
  Stack<float>* corrected_;
  const std::filesystem::path partial_;  // the commits of an interrupted run (none in memory)
  const std::string identity_;           // the job's fingerprint
  std::unique_ptr<io::LazyStack> opened_;
  std::unique_ptr<io::LazyStack> every_;  // every page (z projections), else null
  Status indexed_ = Status::ok();         // the stack's damage after its last readable page
  long n_ = 0;                            // frames (time points)
  Shape shape_{}, rshape_{};              // the frames' and the region's, px
  Rect rr_{};                             // the region, px
  std::unique_ptr<Estimator> estimator_;
  Stack<float> ref_;   // frame 0's region (or projection)
  std::string plans_;  // FFTW's plans the job measures with
  long block_ = 0, resume_from_ = 1;
  RegisterReport report_;
  double passes_ = 2, done_ = 0;  // progress: passes over the stack, frames done
  double dx_ = 0, dy_ = 0;        // previous: the accumulated drift of the last good frame
  Affine acc_;                    // previous, transforms: the last good frame's map
};

}  // namespace

Result<RegisterReport> register_stack(const RegisterJob& job, const Engines& engines,
                                      const RegisterProgress& progress,
                                      const RegisterShare* share) {
  if (!job.apply.empty()) {
    XCORR_RETURN_IF_ERROR(job.check());
    return apply_drift(job, progress);
  }
  auto meta = io::read_stack_metadata(job.stack);
  if (meta.is_ok() && registers_volumes(job.options, meta.value().layout.slices)) {
    XCORR_RETURN_IF_ERROR(job.check());
    if (share != nullptr && share->count > 1)
      return Status{ErrorCode::unsupported,
                    "dims 3 registers in one process: run it with xcorr register (or dims 2)"};
    return register_volumes(
        job,
        [&job](const io::PlaneSelection& plane) {
          return io::LazyStack::open(job.stack, kCacheBytes, plane);
        },
        engines, progress);
  }
  StackRegistration r(job, engines, progress, share);
  return r.run();
}

Result<RegisterReport> register_memory(const MemoryStack& stack, const RegisterOptions& options,
                                       const Engines& engines, Stack<float>* corrected,
                                       const RegisterProgress& progress) {
  RegisterJob job;
  job.stack = stack.name;
  job.options = options;
  if (registers_volumes(options, stack.metadata.layout.slices)) {
    XCORR_RETURN_IF_ERROR(options.check());
    auto r = register_volumes(
        job,
        [&stack](const io::PlaneSelection& plane) {
          return io::LazyStack::in_memory(stack.name, stack.pages, stack.type, stack.metadata,
                                          plane);
        },
        engines, progress, true, corrected);
    return r;
  }
  StackRegistration r(job, engines, progress, nullptr, &stack, corrected);
  return r.run();
}

}  // namespace xcorr::reg
