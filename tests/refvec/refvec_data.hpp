// Reading the reference vectors recorded on a real NVIDIA GPU (tests/refvec/data, format TSMREFV1,
// docs/reference-vectors.md) and parsing the PTX form each block records. Used by the golden
// model's check (refvec_test.cpp) and by the RTL units' testbenches (tests/rtl).
#pragma once

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tsm/isa_gen.hpp"

namespace tsm::refvec {

namespace gen = tsm::isa::gen;
using gen::Fcmp;
using gen::Rnd;

// ---------------------------------------------------------------------------------------------
// Reading the data files (format TSMREFV1, docs/reference-vectors.md).

struct Block {
  std::string file;
  std::string ptx;
  std::vector<int> in_widths;
  int out_width = 0;
  size_t count = 0;
  std::vector<uint64_t> inputs;   // count x in_widths.size(), row by row
  std::vector<uint64_t> outputs;  // the GPU's results

  uint64_t in(size_t i, size_t k) const { return inputs[i * in_widths.size() + k]; }
};

class GzFile {
 public:
  explicit GzFile(std::string path) : path_(std::move(path)), f_(gzopen(path_.c_str(), "rb")) {
    if (!f_) throw std::runtime_error(fmt::format("cannot open {}", path_));
  }
  ~GzFile() { gzclose(f_); }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  void read(void* p, size_t n) {
    if (gzread(f_, p, static_cast<unsigned>(n)) != static_cast<int>(n))
      throw std::runtime_error(fmt::format("{}: truncated or corrupt record data", path_));
  }
  uint64_t le(int bytes) {
    std::array<uint8_t, 8> b{};
    read(b.data(), static_cast<size_t>(bytes));
    return decode(b.data(), bytes);
  }
  static uint64_t decode(const uint8_t* b, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t{b[i]} << (8 * i);
    return v;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  gzFile f_;
};

inline std::vector<Block> read_blocks(const std::filesystem::path& path) {
  GzFile f(path.string());
  std::array<char, 8> magic{};
  f.read(magic.data(), magic.size());
  if (std::string(magic.data(), magic.size()) != "TSMREFV1")
    throw std::runtime_error(fmt::format("{}: not a TSMREFV1 reference-vector file", f.path()));
  std::vector<Block> blocks;
  for (;;) {
    const auto name_len = static_cast<size_t>(f.le(2));
    if (name_len == 0) break;
    Block b;
    b.file = path.filename().string();
    b.ptx.resize(name_len);
    f.read(b.ptx.data(), name_len);
    const auto n_in = static_cast<int>(f.le(1));
    if (n_in < 1 || n_in > 3) throw std::runtime_error(fmt::format("{}: {} has {} inputs", f.path(), b.ptx, n_in));
    for (int k = 0; k <= n_in; ++k) {
      const auto w = static_cast<int>(f.le(1));
      if (w != 1 && w != 2 && w != 4 && w != 8)
        throw std::runtime_error(fmt::format("{}: {} has an operand of {} bytes", f.path(), b.ptx, w));
      if (k < n_in) {
        b.in_widths.push_back(w);
      } else {
        b.out_width = w;
      }
    }
    b.count = static_cast<size_t>(f.le(4));
    int record = b.out_width;
    for (int w : b.in_widths) record += w;
    std::vector<uint8_t> raw(b.count * static_cast<size_t>(record));
    f.read(raw.data(), raw.size());
    b.inputs.reserve(b.count * b.in_widths.size());
    b.outputs.reserve(b.count);
    for (const uint8_t* p = raw.data(); p != raw.data() + raw.size();) {
      for (int w : b.in_widths) b.inputs.push_back(GzFile::decode(p, w)), p += w;
      b.outputs.push_back(GzFile::decode(p, b.out_width)), p += b.out_width;
    }
    blocks.push_back(std::move(b));
  }
  return blocks;
}

inline const std::filesystem::path kDataDir = TSM_REFVEC_DATA_DIR;

// Every block of every data file, read once for all tests.
inline const std::vector<Block>& all_blocks() {
  static const std::vector<Block> blocks = [] {
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(kDataDir))
      for (const auto& e : std::filesystem::directory_iterator(kDataDir))
        if (e.path().string().ends_with(".bin.gz")) files.push_back(e.path());
    if (files.empty())
      throw std::runtime_error(fmt::format("no reference vectors in {}: see docs/reference-vectors.md", kDataDir.string()));
    std::sort(files.begin(), files.end());
    std::vector<Block> all;
    for (const auto& p : files)
      for (Block& b : read_blocks(p)) all.push_back(std::move(b));
    return all;
  }();
  return blocks;
}

// ---------------------------------------------------------------------------------------------
// The instruction a block records, parsed from its PTX text.

struct Insn {
  std::string op;                  // add, sub, mul, fma, min, max, setp, cvt, div, rem, rcp, ...
  std::vector<std::string> types;  // type suffixes in order (cvt: destination, then source)
  Rnd rnd = Rnd::RN;               // RN when the form names none
  bool rint = false;               // .rni/.rzi/.rmi/.rpi
  bool ftz = false, sat = false, nan = false, approx = false;
  std::optional<Fcmp> cmp;
  std::string part;  // mul.hi / mul.wide

  const std::string& type() const { return types.back(); }
};

inline Insn parse(const std::string& ptx) {
  static const std::map<std::string, Rnd> rnds = {{"rn", Rnd::RN}, {"rz", Rnd::RZ}, {"rm", Rnd::RM}, {"rp", Rnd::RP}};
  static const std::map<std::string, Rnd> irnds = {{"rni", Rnd::RN}, {"rzi", Rnd::RZ}, {"rmi", Rnd::RM}, {"rpi", Rnd::RP}};
  static const std::map<std::string, Fcmp> cmps = {
      {"eq", Fcmp::EQ},   {"ne", Fcmp::NE},   {"lt", Fcmp::LT},   {"le", Fcmp::LE},   {"gt", Fcmp::GT},
      {"ge", Fcmp::GE},   {"equ", Fcmp::EQU}, {"neu", Fcmp::NEU}, {"ltu", Fcmp::LTU}, {"leu", Fcmp::LEU},
      {"gtu", Fcmp::GTU}, {"geu", Fcmp::GEU}, {"num", Fcmp::NUM}, {"nan", Fcmp::NAN_}};
  static const std::vector<std::string> types = {"f16", "f32", "f64", "u8",  "s8",  "u16",
                                                 "s16", "u32", "s32", "u64", "s64"};
  Insn in;
  size_t start = 0;
  for (size_t dot; start <= ptx.size(); start = dot + 1) {
    dot = std::min(ptx.find('.', start), ptx.size());
    const std::string t = ptx.substr(start, dot - start);
    if (in.op.empty()) in.op = t;
    else if (rnds.contains(t)) in.rnd = rnds.at(t);
    else if (irnds.contains(t)) in.rnd = irnds.at(t), in.rint = true;
    else if (in.op == "setp" && cmps.contains(t)) in.cmp = cmps.at(t);
    else if (t == "ftz") in.ftz = true;
    else if (t == "sat") in.sat = true;
    else if (t == "NaN") in.nan = true;
    else if (t == "approx") in.approx = true;
    else if (t == "hi" || t == "wide") in.part = t;
    else if (std::find(types.begin(), types.end(), t) != types.end()) in.types.push_back(t);
    else throw std::runtime_error(fmt::format("{}: unknown token '{}'", ptx, t));
  }
  if (in.types.empty()) throw std::runtime_error(fmt::format("{}: no type", ptx));
  return in;
}

/// The ISA's itype encoding of a PTX integer type ("u8" ... "s64"), looked up in the ISA table's
/// enum; nothing for other types, and for 64-bit ones unless `with_64`.
inline std::optional<uint8_t> itype_of(const std::string& ptx_type, bool with_64 = true) {
  const gen::EnumInfo& e = gen::kEnums[static_cast<size_t>(gen::EnumId::itype)];
  for (uint8_t i = 0; i < e.count; ++i) {
    std::string name = e.values[i];
    for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (name == ptx_type) return with_64 || e.regs[i] == 1 ? std::optional<uint8_t>(i) : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace tsm::refvec
