// A DIC job shared by several MPI ranks (core/mpi/shared_job.hpp): the leader's registrar and the
// other ranks' loop. Every exchange is a collective over the group (or the ranks that take part),
// in the same order on every rank: header, then what the header says follows.
#include "core/mpi/shared_job.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/dic/partitioned_registrar.hpp"
#include "core/engine/engine.hpp"
#include "core/io/json_options.hpp"
#include "core/mpi/text.hpp"

namespace xcorr::mpi {
namespace {

enum Command : int {
  kStart = 1,  // options follow; each rank makes its registrar and answers
  kFrame = 2,  // a frame's part for each rank (FrameHeader)
  kStop = 3,   // the leader's registrar is gone
  kDone = 4,   // the job is over
};

// What follows a kFrame header, and the shapes to receive it into.
struct Header {
  int command = 0;
  int new_reference = 0;  // the reference image follows (else: the last one sent)
  int new_deformed = 0;   // the deformed image follows (else: the last one sent, registered again)
  long long ref_rows = 0, ref_cols = 0, def_rows = 0, def_cols = 0;  // px
  // The grid's shape (registering a part needs only that: positions come with the points).
  long long grid_rows = 0, grid_cols = 0, points = 0;
};
static_assert(std::is_trivially_copyable_v<Header>);
static_assert(std::is_trivially_copyable_v<dic::IcgnResult>);

bool bcast_header(MPI_Comm comm, Header& h, const Waiter& wait) {
  MPI_Request r;
  MPI_Ibcast(&h, sizeof h, MPI_BYTE, 0, comm, &r);
  return wait(r);
}

// `count` elements of trivially copyable T as one MPI type (counts stay within int for any frame:
// a 10^7-point grid is 10^7 elements, not 10^9 bytes).
template <class T>
class Bytes {
 public:
  Bytes() {
    MPI_Type_contiguous(static_cast<int>(sizeof(T)), MPI_BYTE, &type_);
    MPI_Type_commit(&type_);
  }
  ~Bytes() { MPI_Type_free(&type_); }
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;
  MPI_Datatype type() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

std::string options_text(const dic::DicOptions& o) {
  nlohmann::json j;
  io::write_options(j, dic::dic_option_table(), o);
  return j.dump();
}

Result<dic::DicOptions> parse_options(const std::string& text) {
  dic::DicOptions o;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return Status{ErrorCode::internal, "options from the leader: not JSON"};
  XCORR_RETURN_IF_ERROR(io::read_options(j, dic::dic_option_table(), o));
  return o;
}

// Rank 0's image to every rank of `comm`: packed into `pixels` there, received into `pixels`
// (sized to the image, rows x cols) elsewhere, where `image` is not used.
bool bcast_image(MPI_Comm comm, MatrixView<const float> image, std::vector<float>& pixels,
                 const Waiter& wait) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    pixels.resize(static_cast<std::size_t>(image.rows * image.cols));
    for (Index r = 0; r < image.rows; ++r)
      std::copy(image.row(r), image.row(r) + image.cols,
                pixels.begin() + static_cast<std::ptrdiff_t>(r * image.cols));
  }
  MPI_Request r;
  MPI_Ibcast(pixels.data(), static_cast<int>(pixels.size()), MPI_FLOAT, 0, comm, &r);
  return wait(r);
}

// A frame's grid points, one contiguous slice per rank: rank r's are [at[r], at[r] + count[r]).
struct Slices {
  std::vector<int> count, at;
};

// Rank 0's bounds (dic::split_points: ranks + 1 entries) to every rank of `comm`, as slices.
bool bcast_slices(MPI_Comm comm, const std::vector<std::size_t>& bounds, const Waiter& wait,
                  Slices& s) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  std::vector<long long> b(static_cast<std::size_t>(ranks) + 1);
  std::copy(bounds.begin(), bounds.end(), b.begin());  // rank 0's; empty elsewhere
  MPI_Request r;
  MPI_Ibcast(b.data(), ranks + 1, MPI_LONG_LONG, 0, comm, &r);
  if (!wait(r)) return false;
  s = Slices{};
  for (std::size_t k = 0; k + 1 < b.size(); ++k) {
    s.at.push_back(static_cast<int>(b[k]));
    s.count.push_back(static_cast<int>(b[k + 1] - b[k]));
  }
  return true;
}

// Rank 0's `all` (a value per grid point) to the other ranks, each its slice into the same place
// of its own `mine` (also a value per grid point). Rank 0 passes mine = nullptr, the others
// all = nullptr.
template <class T>
bool scatter_slices(MPI_Comm comm, const Slices& s, const T* all, T* mine, MPI_Datatype type,
                    const Waiter& wait) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const auto k = static_cast<std::size_t>(rank);
  MPI_Request r;
  if (rank == 0) {
    MPI_Iscatterv(all, s.count.data(), s.at.data(), type, MPI_IN_PLACE, s.count[0], type, 0, comm,
                  &r);
  } else {
    MPI_Iscatterv(nullptr, nullptr, nullptr, type, mine + s.at[k], s.count[k], type, 0, comm, &r);
  }
  return wait(r);
}

// What a frame's part sends back: the status code (-1: registered) and the variant or message.
struct PartReply {
  int code = -1;
  std::string text;
};

// The group as the partitioned registrar's transport (core/dic/partitioned_registrar.hpp): per
// frame the leader sends what the header says, scatters each rank's slice of the points,
// registers its own slice (the first) and gathers the others' in grid order. When the group loses
// a rank on the way, the exchange is left behind and the leader registers that frame (and, as
// `alone()` then says, the rest) itself, with the bytes of the shared run (every point's
// arithmetic is the same wherever it runs), its images sent to its own registrar afresh.
class GroupTransport final : public dic::PartTransport {
 public:
  GroupTransport(dic::FrameRegistrar& local, MPI_Comm work, std::vector<int> world_ranks,
                 GroupWatch watch)
      : local_(local),
        work_(work),
        world_ranks_(std::move(world_ranks)),
        watch_(std::move(watch)),
        wait_{watch_.broken} {}
  ~GroupTransport() override {
    if (work_ == MPI_COMM_NULL) return;
    Header h;
    h.command = kStop;
    if (bcast_header(work_, h, wait_)) MPI_Comm_free(&work_);
  }
  GroupTransport(const GroupTransport&) = delete;
  GroupTransport& operator=(const GroupTransport&) = delete;

  bool alone() const { return work_ == MPI_COMM_NULL; }
  dic::FrameRegistrar& lead() override { return local_; }
  std::size_t workers() const override {
    int ranks = 1;
    if (work_ != MPI_COMM_NULL) MPI_Comm_size(work_, &ranks);
    return static_cast<std::size_t>(ranks);
  }

  Status register_parts(const dic::FrameInputs& in, const dic::DicOptions& part,
                        const std::vector<std::size_t>& bounds,
                        std::vector<dic::IcgnResult>& points, std::string& variant) override {
    bool broken = false;
    Status shared = work_ == MPI_COMM_NULL
                        ? Status{ErrorCode::internal, "alone"}
                        : shared_parts(in, part, bounds, points, variant, broken);
    if (work_ != MPI_COMM_NULL && !broken) return shared;
    if (work_ != MPI_COMM_NULL) {
      work_ = MPI_COMM_NULL;
      std::fprintf(stderr,
                   "xcorr-mpi: rank %d registers the rest of its job alone: its group lost a "
                   "rank\n",
                   world_ranks_[0]);
      if (watch_.alone) watch_.alone();
    }
    dic::FrameInputs again = in;
    again.reference_changed = again.deformed_changed = true;
    auto got = local_.register_frame(again, part);
    if (!got.is_ok()) return got.status();
    std::copy(got.value()->points.begin(), got.value()->points.end(), points.begin());
    variant = got.value()->variant;
    return Status::ok();
  }

 private:
  // The frame's parts registered by the group; `broken` when the group lost a rank on the way
  // (the result then means nothing).
  Status shared_parts(const dic::FrameInputs& in, const dic::DicOptions& part,
                      const std::vector<std::size_t>& bounds, std::vector<dic::IcgnResult>& points,
                      std::string& variant, bool& broken) {
    const std::vector<char>& active = *in.active;
    const std::size_t n = active.size();
    const auto lost = [&broken] {
      broken = true;
      return Status{ErrorCode::internal, "the group lost a rank"};
    };

    Header h;
    h.command = kFrame;
    h.new_reference =
        in.reference_changed || !sent_reference_ || in.reference.shape() != reference_shape_;
    h.new_deformed =
        in.deformed_changed || !sent_deformed_ || in.deformed.shape() != deformed_shape_;
    h.ref_rows = in.reference.rows, h.ref_cols = in.reference.cols;
    h.def_rows = in.deformed.rows, h.def_cols = in.deformed.cols;
    h.grid_rows = in.grid->rows, h.grid_cols = in.grid->cols;
    h.points = static_cast<long long>(n);
    if (!bcast_header(work_, h, wait_)) return lost();
    std::string text = options_text(part);
    if (!bcast_text(work_, text, wait_)) return lost();
    if (h.new_reference) {
      if (!bcast_image(work_, in.reference, pixels_, wait_)) return lost();
      sent_reference_ = true;
      reference_shape_ = in.reference.shape();
    }
    if (h.new_deformed) {
      if (!bcast_image(work_, in.deformed, pixels_, wait_)) return lost();
      sent_deformed_ = true;
      deformed_shape_ = in.deformed.shape();
    }
    const auto ranks = static_cast<std::size_t>(workers());
    Slices sl;
    if (!bcast_slices(work_, bounds, wait_, sl) ||
        !scatter_slices<double>(work_, sl, in.cx->data(), nullptr, MPI_DOUBLE, wait_) ||
        !scatter_slices<double>(work_, sl, in.cy->data(), nullptr, MPI_DOUBLE, wait_) ||
        !scatter_slices<char>(work_, sl, active.data(), nullptr, MPI_CHAR, wait_) ||
        !scatter_slices<dic::Warp>(work_, sl, in.predicted->data(), nullptr, warp_type_.type(),
                                   wait_))
      return lost();
    const auto mine_end = static_cast<std::ptrdiff_t>(sl.count[0]);  // rank 0's slice from 0

    // This rank's part: the first slice (in.progress counts it).
    active_.assign(n, 0);
    std::copy(active.begin(), active.begin() + mine_end, active_.begin());
    dic::FrameInputs mine = in;
    mine.active = &active_;
    auto got = local_.register_frame(mine, part);
    PartReply reply;
    if (got.is_ok()) {
      std::copy(got.value()->points.begin(), got.value()->points.begin() + mine_end,
                points.begin());
      reply.text = got.value()->variant;
    } else {
      reply.code = static_cast<int>(got.status().code());
      reply.text = got.status().message();
    }
    std::vector<int> codes(ranks);
    std::vector<std::string> texts;
    MPI_Request r;
    MPI_Igather(&reply.code, 1, MPI_INT, codes.data(), 1, MPI_INT, 0, work_, &r);
    if (!wait_(r) || !gather_text(work_, reply.text, wait_, texts)) return lost();
    MPI_Igatherv(MPI_IN_PLACE, sl.count[0], result_type_.type(), points.data(), sl.count.data(),
                 sl.at.data(), result_type_.type(), 0, work_, &r);
    if (!wait_(r)) return lost();
    if (!got.is_ok()) return got.status();
    for (std::size_t k = 0; k < codes.size(); ++k) {
      if (codes[k] >= 0) {
        return Status{static_cast<ErrorCode>(codes[k]),
                      "rank " + std::to_string(world_ranks_[k]) + ": " + texts[k]};
      }
      if (variant.empty()) variant = texts[k];
    }
    return Status::ok();
  }

  dic::FrameRegistrar& local_;
  MPI_Comm work_;                 // the leader and the ranks that take part (MPI_COMM_NULL: alone)
  std::vector<int> world_ranks_;  // of work_'s ranks, for messages
  GroupWatch watch_;
  Waiter wait_;
  Bytes<dic::Warp> warp_type_;
  Bytes<dic::IcgnResult> result_type_;
  std::vector<char> active_;  // this rank's part
  std::vector<float> pixels_;
  bool sent_reference_ = false, sent_deformed_ = false;
  Shape reference_shape_{}, deformed_shape_{};
};

// The leader's registrar: the partitioned registrar over the group, or the local registrar
// itself when the leader registers alone (from the start, or since the group lost a rank; also
// for reliability-guided propagation without waves, the CPU's, which cannot be shared).
class SharedRegistrar final : public dic::FrameRegistrar {
 public:
  SharedRegistrar(std::unique_ptr<dic::FrameRegistrar> local, MPI_Comm work,
                  std::vector<int> world_ranks, GroupWatch watch)
      : local_(std::move(local)) {
    auto group =
        std::make_unique<GroupTransport>(*local_, work, std::move(world_ranks), std::move(watch));
    group_ = group.get();
    shared_ = std::make_unique<dic::PartitionedRegistrar>(std::move(group));
  }
  ~SharedRegistrar() override { shared_.reset(); }  // releases the group before local_ goes
  SharedRegistrar(const SharedRegistrar&) = delete;
  SharedRegistrar& operator=(const SharedRegistrar&) = delete;

  std::string device() const override { return local_->device(); }
  Result<std::string> guess_method(const dic::DicOptions& o, Index rows, Index cols,
                                   Index points) const override {
    return local_->guess_method(o, rows, cols, points);
  }
  bool has_waves() const override { return local_->has_waves(); }
  Status waves(const dic::FrameInputs& in, const dic::DicOptions& o,
               std::vector<dic::IcgnResult>& points) override {
    return local_->waves(in, o, points);
  }
  Result<const dic::FrameRegistration*> register_frame(const dic::FrameInputs& in,
                                                       const dic::DicOptions& o) override {
    if (group_->alone()) return local_->register_frame(in, o);
    return shared_->register_frame(in, o);
  }
  void preload(MatrixView<const float> deformed, const dic::DicOptions& o) override {
    if (group_->alone()) local_->preload(deformed, o);
  }
  // Alone, as its local registrar; a group's exchanges stay on the session's thread.
  bool may_run_ahead() const override { return group_->alone() && local_->may_run_ahead(); }

 private:
  std::unique_ptr<dic::FrameRegistrar> local_;
  GroupTransport* group_ = nullptr;  // owned by shared_
  std::unique_ptr<dic::PartitionedRegistrar> shared_;
};

// A rank that takes part in a leader's registrar: frames until kStop.
// False when the group lost a rank (`wait` gave up).
bool serve_frames(MPI_Comm work, dic::FrameRegistrar& local, const Waiter& wait) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(work, &rank);
  MPI_Comm_size(work, &ranks);
  const auto me = static_cast<std::size_t>(rank);
  Bytes<dic::Warp> warp_type;
  Bytes<dic::IcgnResult> result_type;
  dic::Grid grid;
  std::vector<float> reference, deformed;
  std::vector<double> cx, cy;
  std::vector<char> active;
  std::vector<dic::Warp> predicted;
  std::vector<dic::IcgnResult> none;
  for (;;) {
    Header h;
    if (!bcast_header(work, h, wait)) return false;
    if (h.command != kFrame) return true;  // kStop
    std::string text;
    if (!bcast_text(work, text, wait)) return false;
    auto part = parse_options(text);
    const auto n = static_cast<std::size_t>(h.points);
    grid.rows = h.grid_rows;
    grid.cols = h.grid_cols;
    grid.points.resize(n);
    if (h.new_reference) {
      reference.resize(static_cast<std::size_t>(h.ref_rows * h.ref_cols));
      if (!bcast_image(work, {}, reference, wait)) return false;
    }
    if (h.new_deformed) {
      deformed.resize(static_cast<std::size_t>(h.def_rows * h.def_cols));
      if (!bcast_image(work, {}, deformed, wait)) return false;
    }
    Slices sl;
    if (!bcast_slices(work, {}, wait, sl)) return false;
    cx.resize(n);
    cy.resize(n);
    predicted.resize(n);
    active.assign(n, 0);  // only this rank's slice is set
    if (!scatter_slices<double>(work, sl, nullptr, cx.data(), MPI_DOUBLE, wait) ||
        !scatter_slices<double>(work, sl, nullptr, cy.data(), MPI_DOUBLE, wait) ||
        !scatter_slices<char>(work, sl, nullptr, active.data(), MPI_CHAR, wait) ||
        !scatter_slices<dic::Warp>(work, sl, nullptr, predicted.data(), warp_type.type(), wait))
      return false;

    PartReply reply;
    const dic::IcgnResult* sent = nullptr;
    if (!part.is_ok()) {
      reply.code = static_cast<int>(part.status().code());
      reply.text = part.status().message();
    } else {
      dic::FrameInputs in{{reference.data(), h.ref_rows, h.ref_cols, h.ref_cols},
                          {deformed.data(), h.def_rows, h.def_cols, h.def_cols},
                          h.new_reference != 0,
                          &grid,
                          &cx,
                          &cy,
                          &active,
                          &predicted,
                          nullptr};
      in.deformed_changed = h.new_deformed != 0;
      auto got = local.register_frame(in, part.value());
      if (got.is_ok()) {
        reply.text = got.value()->variant;
        sent = got.value()->points.data() + sl.at[me];
      } else {
        reply.code = static_cast<int>(got.status().code());
        reply.text = got.status().message();
      }
    }
    if (sent == nullptr) {  // the leader reports the failure; the slice is still sent
      none.assign(static_cast<std::size_t>(sl.count[me]), dic::IcgnResult{});
      sent = none.data();
    }
    MPI_Request r;
    MPI_Igather(&reply.code, 1, MPI_INT, nullptr, 1, MPI_INT, 0, work, &r);
    std::vector<std::string> unused;
    if (!wait(r) || !gather_text(work, reply.text, wait, unused)) return false;
    MPI_Igatherv(sent, sl.count[me], result_type.type(), nullptr, nullptr, nullptr,
                 result_type.type(), 0, work, &r);
    if (!wait(r)) return false;
  }
}

}  // namespace

Result<std::unique_ptr<dic::FrameRegistrar>> make_shared_registrar(MPI_Comm group,
                                                                   const dic::DicOptions& o,
                                                                   GroupWatch watch) {
  int ranks = 1, world = 0;
  MPI_Comm_size(group, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &world);  // the group's ranks are world + 0, 1, ... (key order)
  auto local = engine::make_dic_registrar(o);
  Header h;
  h.command = kStart;
  bcast_header(group, h, Waiter{});
  std::string text = options_text(o);
  bcast_text(group, text);
  // Answers: "device" or "!message".
  const std::vector<std::string> answers = gather_text(group, "");
  std::vector<char> take(static_cast<std::size_t>(ranks), 0);
  std::vector<int> world_ranks;
  if (local.is_ok()) {
    const dic::FrameRegistrar& mine = *local.value();
    take[0] = 1;
    world_ranks.push_back(world);
    // Alone: the CPU's reliability-guided propagation cannot be split; and a GPU registers a
    // frame in milliseconds, less than sending its image and points to the other ranks and
    // their results back costs (one 400-frame 2048^2 job on 2 H200 ranks of one host ran at
    // 0.52x one rank's speed: docs/scale-out.md), so a GPU leader registers its job alone,
    // each next frame ahead (DicSession).
    const bool seeds = o.propagation == dic::Propagation::reliability_guided && !mine.has_waves();
    const bool gpu = mine.device() == "gpu";
    const bool alone = seeds || gpu;
    if (alone && ranks > 1) {
      if (seeds) {
        std::fprintf(stderr,
                     "xcorr-mpi: rank %d registers its job alone: %s reliability-guided "
                     "propagation grows from seeds point by point (independent propagation, or "
                     "the GPU's, is shared by ranks)\n",
                     world, mine.device().c_str());
      } else {
        std::fprintf(stderr,
                     "xcorr-mpi: rank %d registers its job alone: a GPU registers a frame faster "
                     "than ranks exchange its image and points (a group shares CPU frames)\n",
                     world);
      }
    }
    for (std::size_t r = 1; r < answers.size() && !alone; ++r) {
      const int w = world + static_cast<int>(r);
      if (!answers[r].empty() && answers[r][0] == '!') {
        std::fprintf(stderr, "xcorr-mpi: rank %d sits out rank %d's job: %s\n", w, world,
                     answers[r].c_str() + 1);
      } else if (answers[r] != mine.device()) {
        std::fprintf(stderr,
                     "xcorr-mpi: rank %d sits out rank %d's job: it registers on the %s, rank %d "
                     "on the %s (their results would differ in rounding)\n",
                     w, world, answers[r].c_str(), world, mine.device().c_str());
      } else {
        take[r] = 1;
        world_ranks.push_back(w);
      }
    }
  }
  MPI_Bcast(take.data(), ranks, MPI_CHAR, 0, group);
  MPI_Comm work = MPI_COMM_NULL;
  MPI_Comm_split(group, take[0] ? 0 : MPI_UNDEFINED, 0, &work);
  if (!local.is_ok()) return local.status();
  if (work != MPI_COMM_NULL && world_ranks.size() == 1) MPI_Comm_free(&work);  // alone
  return std::unique_ptr<dic::FrameRegistrar>(std::make_unique<SharedRegistrar>(
      std::move(local).value(), work, std::move(world_ranks), std::move(watch)));
}

bool end_shared_job(MPI_Comm group, const std::function<bool()>& broken) {
  Header h;
  h.command = kDone;
  return bcast_header(group, h, Waiter{broken});
}

Status serve_shared_job(MPI_Comm group, const std::function<bool()>& broken, bool& orphaned) {
  orphaned = false;
  int rank = 0;
  MPI_Comm_rank(group, &rank);
  const Waiter wait{broken};
  for (;;) {
    Header h;
    if (!bcast_header(group, h, wait)) {
      orphaned = true;
      return Status::ok();
    }
    if (h.command == kDone) return Status::ok();
    if (h.command != kStart)
      return Status{ErrorCode::internal, "unexpected message " + std::to_string(h.command)};
    std::string text;
    bcast_text(group, text);
    auto o = parse_options(text);
    Result<std::unique_ptr<dic::FrameRegistrar>> local =
        o.is_ok() ? engine::make_dic_registrar(o.value()) : o.status();
    (void)gather_text(group,
                      local.is_ok() ? local.value()->device() : "!" + local.status().message());
    int ranks = 1;
    MPI_Comm_size(group, &ranks);
    std::vector<char> take(static_cast<std::size_t>(ranks));
    MPI_Bcast(take.data(), ranks, MPI_CHAR, 0, group);
    MPI_Comm work = MPI_COMM_NULL;
    MPI_Comm_split(group, take[static_cast<std::size_t>(rank)] ? 0 : MPI_UNDEFINED, rank, &work);
    if (work == MPI_COMM_NULL) continue;
    if (!serve_frames(work, *local.value(), wait)) {
      orphaned = true;  // `work` is left behind with the exchange
      return Status::ok();
    }
    MPI_Comm_free(&work);
  }
}

}  // namespace xcorr::mpi
