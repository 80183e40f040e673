// A batch (job queue) file: {"jobs": [job, job, ...]}, each job a DIC job object as in a job file
// (docs/batch.md has the schema) or a registration job ({"type": "register", ...},
// core/register/job.hpp), which runs after the DIC jobs. A single job object is a batch of one,
// so every project and
// job file the desktop app writes runs as a batch too. Parsing is strict, per job: unknown keys,
// wrong types and bad values are refused with the job's number and name.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/dic/job.hpp"
#include "core/register/job.hpp"

namespace xcorr::dic {

struct Batch {
  std::vector<DicJob> jobs;                     // in file order
  std::vector<reg::RegisterJob> registrations;  // in file order; run after `jobs`
  // Each job's 1-based place in the file (the DIC jobs', then the registrations'), for labels;
  // unset (another size): the order to_json writes.
  std::vector<std::size_t> positions;
  std::size_t size() const { return jobs.size() + registrations.size(); }
};

// Relative paths are resolved against `base` (the file's folder).
Result<Batch> parse_batch(const std::string& json_text, const std::filesystem::path& base);
Result<Batch> read_batch(const std::filesystem::path& path);
std::string to_json(const Batch& batch);  // what parse_batch reads back

// "job 2 ('name')" for messages, numbered by the job's place in the file, so that no two jobs
// share a number; indexes from jobs.size() on are the registrations: "register job 3 ('name')".
std::string job_label(const Batch& b, std::size_t index);

}  // namespace xcorr::dic
