#include "kernels/stream_params_choice.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "base/strings.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kMaxBytes = int64_t{1} << 20;

// "48K", "1024K", "2M" or a plain byte count, as sysfs writes cache sizes; 0 when unreadable.
int64_t ReadSize(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  if (!(f >> s) || s.empty()) return 0;
  int64_t scale = 1;
  if (s.back() == 'K' || s.back() == 'k') scale = 1024, s.pop_back();
  else if (s.back() == 'M' || s.back() == 'm') scale = int64_t{1} << 20, s.pop_back();
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == s.c_str() || *end != '\0' || v <= 0) return 0;
  return static_cast<int64_t>(v) * scale;
}

std::string ReadWord(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  f >> s;
  return s;
}

bool ParseBytes(std::string_view v, int64_t* out) {
  std::string s(v);
  int64_t scale = 1;
  if (!s.empty() && (s.back() == 'k' || s.back() == 'K')) scale = 1024, s.pop_back();
  if (s.empty() || s.size() > 8) return false;
  int64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  n *= scale;
  if (n > kMaxBytes) return false;
  *out = n;
  return true;
}

const char* LevelName(PrefetchLevel l) {
  switch (l) {
    case PrefetchLevel::kOff: return "off";
    case PrefetchLevel::kL1: return "l1";
    case PrefetchLevel::kL2: return "l2";
  }
  return "?";
}

}  // namespace

CpuFacts ReadCpuFacts() {
  CpuFacts c;
  std::ifstream info("/proc/cpuinfo");
  std::string line;
  while (std::getline(info, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) {
      if (!c.vendor.empty()) break;  // the end of the first processor's block
      continue;
    }
    const std::string key(TrimAscii(std::string_view(line).substr(0, colon)));
    const std::string value(TrimAscii(std::string_view(line).substr(colon + 1)));
    if (key == "vendor_id") c.vendor = value;
    if (key == "cpu family") c.family = std::atoi(value.c_str());
    if (key == "model name") c.model_name = value;
  }
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string type = ReadWord(dir + "type"), level = ReadWord(dir + "level");
    if (type.empty()) break;
    if (level == "1" && type == "Data") c.l1d_bytes = ReadSize(dir + "size");
    if (level == "2" && type == "Unified") c.l2_bytes = ReadSize(dir + "size");
  }
  return c;
}

Result<StreamParams> ParseStreamParams(std::string_view spec, const StreamParams& base) {
  StreamParams p = base;
  for (const std::string& piece : StrSplit(spec, ',')) {
    const std::string_view item = TrimAscii(piece);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) return InvalidArgumentError("expected key=value, got '" + std::string(item) + "'");
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "level" || key == "level_bf16" || key == "level_int8" || key == "level_ct" || key == "level_q4x16") {
      PrefetchLevel level;
      if (value == "off") level = PrefetchLevel::kOff;
      else if (value == "l1") level = PrefetchLevel::kL1;
      else if (value == "l2") level = PrefetchLevel::kL2;
      else return InvalidArgumentError(std::string(key) + " must be off, l1 or l2, got '" + std::string(value) + "'");
      // `level` sets all five; a later level_bf16 / level_int8 / level_ct / level_q4x16 sets its own.
      if (key == "level" || key == "level_bf16") p.level_bf16 = level;
      if (key == "level" || key == "level_int8") p.level_int8 = level;
      if (key == "level" || key == "level_ct") p.level_ct = level;
      if (key == "level" || key == "level_q4x16") p.level_q4x16 = level;
      if (key == "level") p.level = level;
      continue;
    }
    if (key == "q4x16_groups") {
      if (value != "1" && value != "2" && value != "4") {
        return InvalidArgumentError("q4x16_groups must be 1, 2 or 4, got '" + std::string(value) + "'");
      }
      p.q4x16_lone_groups = value[0] - '0';
      continue;
    }
    if (key == "long_streams") {
      if (value != "4" && value != "8") {
        return InvalidArgumentError("long_streams must be 4 or 8, got '" + std::string(value) + "'");
      }
      p.long_row_streams = value == "8" ? 8 : 4;
      continue;
    }
    int64_t* field = key == "ahead_short"        ? &p.ahead_short
                     : key == "ahead_short_int8" ? &p.ahead_short_int8
                     : key == "ahead_long"       ? &p.ahead_long
                     : key == "long_row"   ? &p.long_row_bytes
                                           : nullptr;
    if (field == nullptr) {
      return InvalidArgumentError("unknown key '" + std::string(key) +
                                  "' (ahead_short, ahead_short_int8, ahead_long, long_row, long_streams, level, "
                                  "level_bf16, level_int8, level_ct, level_q4x16, q4x16_groups)");
    }
    if (!ParseBytes(value, field)) {
      return InvalidArgumentError("'" + std::string(key) + "' must be a byte count up to 1M, got '" + std::string(value) + "'");
    }
  }
  return p;
}

std::string FormatStreamParams(const StreamParams& p) {
  std::string s = "ahead_short=" + std::to_string(p.ahead_short);
  s += ",ahead_short_int8=" + std::to_string(p.ahead_short_int8);
  s += ",ahead_long=" + std::to_string(p.ahead_long);
  s += ",long_row=" + std::to_string(p.long_row_bytes);
  s += ",long_streams=" + std::to_string(p.long_row_streams);
  s += std::string(",level=") + LevelName(p.level);
  s += std::string(",level_bf16=") + LevelName(p.level_bf16);
  s += std::string(",level_int8=") + LevelName(p.level_int8);
  s += std::string(",level_ct=") + LevelName(p.level_ct);
  s += std::string(",level_q4x16=") + LevelName(p.level_q4x16);
  s += ",q4x16_groups=" + std::to_string(p.q4x16_lone_groups);
  return s;
}

StreamParams StreamParamsForCpu(const CpuFacts& cpu, std::string* row) {
  // AMD Zen (families 23-26): prefetching 16 KB ahead into L2 (prefetcht1). Measured on a Zen 4
  // EPYC (32 KB L1d, 1 MB L2; bench_linear, cold, batch 1): bf16 13-14 -> 21-22 GB/s on one
  // thread and 24-26 -> 31-41 on two, int8 10 -> 20, int4 10 -> 14.5 against the Intel row
  // (whose prefetcht0 into the 32 KB L1d evicts lines before they are read). Since the 1x4
  // tiles read four sequential streams (QuarterStreams), bf16 and int8 stream best with no
  // software prefetch (one thread, huge pages: 28-32 GB/s against 24-27 with it; the Q4_0 tile
  // keeps it: 28-31 against 23-29), docs/cpu-performance.md §17; rows of 8 KB or more read eight
  // streams instead of four (24 KB rows: 28-29 against 25-26 GB/s). The compressed-tensors tiles
  // stream best without it too (one thread, gate_up 6144x1536 cold: FP8 324-353 µs against 373-425
  // with it, int4 code table 196-211 against 234-298, int2 136-140 against 148-174; §24), and so
  // do the kQ4_0x16 tiles, one sequential stream per 16-row group (E2B int4 decode, one thread:
  // 23.9 t/s without it against 16.3-17.8 with it 4-32 KB ahead; §26).
  if (cpu.vendor == "AuthenticAMD" && cpu.family >= 23) {
    if (row != nullptr) *row = "AMD Zen";
    StreamParams p;
    p.ahead_short = 16384;
    p.ahead_short_int8 = 16384;
    p.ahead_long = 16384;
    p.long_row_bytes = 8192;
    p.level = PrefetchLevel::kL2;
    p.level_bf16 = PrefetchLevel::kOff;
    p.level_int8 = PrefetchLevel::kOff;
    p.level_ct = PrefetchLevel::kOff;
    p.level_q4x16 = PrefetchLevel::kOff;
    p.q4x16_lone_groups = 1;
    p.long_row_streams = 8;
    return p;
  }
  // The AMD row keeps one stream per int4 group for a lone token (q4x16_lone_groups 1): four groups
  // side by side are not measured on a Zen yet.
  // Everything else: the defaults, measured on an Intel Xeon (48 KB L1d, 2 MB L2); on a second Xeon
  // (family 6 model 207) they were the best of six candidates too (docs/cpu-performance.md §21). A lone
  // int4 token reading four groups side by side: on an Ice Lake Xeon (model 106) 85-95 % of the read
  // ceiling at one thread and 90-97 % at two, against 72-77 % and 71-76 % one group at a time (§32).
  if (row != nullptr) *row = cpu.vendor == "GenuineIntel" ? "Intel" : "default";
  return StreamParams{};
}

StreamChoice ChooseStreamParams() {
  StreamChoice choice;
  const CpuFacts cpu = ReadCpuFacts();
  std::string row;
  choice.params = StreamParamsForCpu(cpu, &row);
  choice.why = "table row '" + row + "' for " + (cpu.model_name.empty() ? std::string("this CPU") : cpu.model_name) +
               " (family " + std::to_string(cpu.family) + ", L1d " + std::to_string(cpu.l1d_bytes / 1024) +
               " KiB, L2 " + std::to_string(cpu.l2_bytes / 1024) + " KiB)";
  const char* env = std::getenv("GEMMAD_STREAM");
  if (env != nullptr && *env != '\0') {
    auto parsed = ParseStreamParams(env, choice.params);
    if (parsed.ok()) {
      choice.params = *parsed;
      choice.why = "GEMMAD_STREAM";
    } else {
      choice.error = "GEMMAD_STREAM: " + parsed.status().message();
    }
  }
  return choice;
}

const StreamChoice& AppliedStreamChoice() {
  static const StreamChoice choice = ChooseStreamParams();
  return choice;
}

}  // namespace gemmad::kernels
