#include "core/batch/results_file.hpp"

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/batch/commit.hpp"
#include "core/dic/job.hpp"
#include "core/io/json_parse.hpp"

namespace xcorr::batch {
namespace {

using nlohmann::json;
constexpr std::string_view kMagic = "XCRS2\n";  // XCRS1 + the commits' sigma_u, sigma_v

template <class T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

struct BadValue {};  // thrown by index_of

// A JSON integer in [0, 2^62]: sizes, indices, rectangles (a float or a huge number is not one,
// and converting it would be undefined).
Index index_of(const json& v) {
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > (1ULL << 62)))
    throw BadValue{};
  const auto i = v.get<std::int64_t>();
  if (i < 0 || i > (Index{1} << 62)) throw BadValue{};
  return static_cast<Index>(i);
}

template <class T>
bool get(std::string_view& in, T& v) {
  if (in.size() < sizeof(T)) return false;
  std::memcpy(&v, in.data(), sizeof(T));
  in.remove_prefix(sizeof(T));
  return true;
}

}  // namespace

std::string encode_results_file(const SavedResults& r) {
  dic::DicJob ran;  // the options and ROI, in the job file's words
  ran.reference = r.reference;
  ran.out = "ran.csv";  // a job names an output; not used here
  ran.options = r.options;
  ran.roi = r.roi;
  json head = {{"reference", r.reference},
               {"frames", r.frames},
               {"ran", json::parse(dic::to_json(ran))},
               {"failed", json::array()},
               {"tracks", json::array()}};
  for (const FrameFailure& f : r.failed) head["failed"].push_back({f.frame, f.source, f.reason});
  for (const Track& t : r.tracks) {
    head["tracks"].push_back({{"rect", {t.rect.x, t.rect.y, t.rect.width, t.rect.height}},
                              {"x", t.x},
                              {"y", t.y},
                              {"zncc", t.zncc}});
  }
  if (r.dic) {
    head["dic"] = {{"grid", {r.dic->grid.rows, r.dic->grid.cols}},
                   {"guess_variant", r.dic->guess_variant},
                   {"device", r.dic->device},
                   {"frames", r.dic->frames.size()}};
  }
  std::string out(kMagic);
  out += head.dump() + "\n";
  if (r.dic) {
    for (const dic::GridPoint& p : r.dic->grid.points) {
      put(out, p.x);
      put(out, p.y);
      put(out, static_cast<std::uint8_t>(p.valid));
    }
    for (const dic::FrameResult& fr : r.dic->frames) {
      const std::string commit = encode_commit(fr, {});
      put(out, static_cast<std::uint64_t>(commit.size()));
      out += commit;
    }
  }
  return out;
}

Result<SavedResults> decode_results_file(std::string_view in, const std::string& name) {
  const Status bad{ErrorCode::io_error,
                   "'" + name + "' is not a results file of this version, or is damaged"};
  if (in.substr(0, kMagic.size()) != kMagic) return bad;
  in.remove_prefix(kMagic.size());
  const std::size_t eol = in.find('\n');
  if (eol == std::string_view::npos) return bad;
  SavedResults r;
  auto parsed = io::parse_json(std::string(in.substr(0, eol)), "'" + name + "'");
  if (!parsed.is_ok()) return parsed.status();
  in.remove_prefix(eol + 1);
  try {
    const json& head = parsed.value();
    r.reference = head.at("reference").get<std::string>();
    r.frames = head.at("frames").get<std::vector<std::string>>();
    auto ran = dic::parse_dic_job(head.at("ran").dump(), {});
    if (!ran.is_ok())
      return Status{ErrorCode::io_error, "'" + name + "': " + ran.status().message()};
    r.options = ran.value().options;
    r.roi = ran.value().roi;
    for (const json& f : head.at("failed"))
      r.failed.push_back(
          {index_of(f.at(0)), f.at(1).get<std::string>(), f.at(2).get<std::string>()});
    for (const json& t : head.at("tracks")) {
      Track track;
      const json& rect = t.at("rect");
      track.rect = {index_of(rect.at(0)), index_of(rect.at(1)), index_of(rect.at(2)),
                    index_of(rect.at(3))};
      track.x = t.at("x").get<std::vector<double>>();
      track.y = t.at("y").get<std::vector<double>>();
      track.zncc = t.at("zncc").get<std::vector<double>>();
      r.tracks.push_back(std::move(track));
    }
    if (head.contains("dic")) {
      const json& d = head.at("dic");
      dic::DicResult res;
      res.grid.rows = index_of(d.at("grid").at(0));
      res.grid.cols = index_of(d.at("grid").at(1));
      res.guess_variant = d.at("guess_variant").get<std::string>();
      res.device = d.at("device").get<std::string>();
      const auto frames = static_cast<std::size_t>(index_of(d.at("frames")));
      if (static_cast<double>(res.grid.rows) * static_cast<double>(res.grid.cols) * 17 >
          static_cast<double>(in.size()))
        return bad;
      res.grid.points.resize(static_cast<std::size_t>(res.grid.rows * res.grid.cols));
      for (dic::GridPoint& p : res.grid.points) {
        std::uint8_t valid = 0;
        if (!get(in, p.x) || !get(in, p.y) || !get(in, valid)) return bad;
        p.valid = valid != 0;
      }
      for (std::size_t k = 0; k < frames; ++k) {
        std::uint64_t size = 0;
        if (!get(in, size) || size > in.size()) return bad;
        dic::FrameResult fr;
        dic::DicState st;
        if (!decode_commit(in.substr(0, size), fr, st) ||
            fr.points.size() != res.grid.points.size())
          return bad;
        in.remove_prefix(size);
        res.frames.push_back(std::move(fr));
      }
      r.dic = std::move(res);
    }
  } catch (const json::exception&) {
    return bad;
  } catch (const BadValue&) {
    return bad;
  }
  if (!in.empty()) return bad;
  return r;
}

}  // namespace xcorr::batch
