// The lowering sequences against a real NVIDIA GPU: data/gpu_vectors.bin.gz holds what an H200 computed
// for every PTX operation the library lowers (made by gpu_vectors.cu, see make_gpu_vectors.sh and
// docs/lowering-sequences.md). Two checks per operation: the host reference of specs.hpp agrees
// with the GPU on its inputs, and the sequence run on the golden model returns the GPU's bits
// (or, for .approx/.full, meets the same PTX bound the GPU meets).
#include <gtest/gtest.h>
#include <zlib.h>

#include <array>
#include <map>
#include <set>
#include <stdexcept>

#include "specs.hpp"

namespace tsm::seqtest {
namespace {

struct Block {
  std::string ptx;
  std::vector<int> in_widths;
  int out_width = 0;
  std::vector<Tuple> inputs;
  std::vector<uint64_t> outputs;
};

/// Reads a TSMREFV1 file (docs/reference-vectors.md).
std::vector<Block> read_blocks(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path + " (see docs/lowering-sequences.md)");
  auto read = [&](void* p, size_t n) {
    if (gzread(f, p, static_cast<unsigned>(n)) != static_cast<int>(n)) throw std::runtime_error(path + ": truncated");
  };
  auto le = [&](int bytes) {
    std::array<uint8_t, 8> b{};
    read(b.data(), static_cast<size_t>(bytes));
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t{b[static_cast<size_t>(i)]} << (8 * i);
    return v;
  };
  std::array<char, 8> magic{};
  read(magic.data(), 8);
  if (std::string(magic.data(), 8) != "TSMREFV1") throw std::runtime_error(path + ": not a TSMREFV1 file");
  std::vector<Block> blocks;
  for (;;) {
    const auto name_len = static_cast<size_t>(le(2));
    if (name_len == 0) break;
    Block b;
    b.ptx.resize(name_len);
    read(b.ptx.data(), name_len);
    const auto n_in = static_cast<int>(le(1));
    for (int k = 0; k < n_in; ++k) b.in_widths.push_back(static_cast<int>(le(1)));
    b.out_width = static_cast<int>(le(1));
    const auto count = static_cast<size_t>(le(4));
    for (size_t i = 0; i < count; ++i) {
      Tuple t;
      for (const int w : b.in_widths) t.push_back(le(w));
      b.inputs.push_back(std::move(t));
      b.outputs.push_back(le(b.out_width));
    }
    blocks.push_back(std::move(b));
  }
  gzclose(f);
  return blocks;
}

const std::vector<Block>& all_blocks() {
  static const std::vector<Block> blocks = read_blocks(TSM_SEQUENCES_DATA_DIR "/gpu_vectors.bin.gz");
  return blocks;
}

/// The GPU keeps every cvt operand in a 64-bit register; the sequences take a 32-bit register for
/// sources of at most 32 bits and return one for such destinations (PTX extends a narrow
/// destination type into the wider register, by the destination's signedness).
Tuple sequence_inputs(const Sequence& s, const Tuple& gpu) {
  Tuple t = gpu;
  for (size_t i = 0; i < t.size(); ++i) t[i] &= slot_mask(s.inputs[i]);
  return t;
}
uint64_t widen(const std::string& ptx, uint64_t result32) {
  const std::string dst = ptx.substr(8, ptx.find('.', 8) - 8);
  if (dst[0] == 's') return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(result32)));
  return result32;
}
bool is_cvt_to_narrow(const Block& b) { return b.ptx.rfind("cvt.", 0) == 0 && b.ptx.find(".u64.") == std::string::npos && b.ptx.find(".s64.") == std::string::npos; }
bool is_exact(const std::string& ptx) { return ptx.find(".approx") == std::string::npos && ptx.find(".full") == std::string::npos; }

TEST(GpuVectors, CoverEverySequence) {
  std::set<std::string> recorded;
  size_t cases = 0;
  for (const auto& b : all_blocks()) {
    EXPECT_TRUE(recorded.insert(b.ptx).second) << b.ptx << " recorded twice";
    EXPECT_NE(ptx::find_sequence(b.ptx), nullptr) << b.ptx << " is recorded but the library has no sequence";
    cases += b.inputs.size();
  }
  // f32 -> f64 is exact; the GPU's results for it (NaN payloads included) are in tests/refvec's
  // vectors, which hold the golden model's F2F.F64.F32 to them; sequences_test holds the sequence
  // to the same rule.
  // So is binary64 without a DP unit: the reference is the golden model's DP arithmetic.
  const std::set<std::string> covered_by_refvec = {"cvt.f64.f32", "cvt.ftz.f64.f32", "cvt.rn.f64.s64", "cvt.rn.f64.u64",
                                                   "cvt.rn.f32.f64", "mul.rn.f64"};
  for (const auto& s : ptx::sequences())
    EXPECT_TRUE(recorded.count(s.name) || covered_by_refvec.count(s.name)) << s.name << " has no GPU vectors";
  EXPECT_GE(cases, 100000u);
}

// The host references and PTX bounds of specs.hpp describe what the GPU does.
TEST(GpuVectors, ReferencesAgreeWithTheGpu) {
  for (const auto& b : all_blocks()) {
    const Sequence* s = ptx::find_sequence(b.ptx);
    if (!s) continue;
    const Spec spec = spec_for(*s);
    int failures = 0;
    for (size_t i = 0; i < b.inputs.size(); ++i) {
      uint64_t gpu = b.outputs[i];
      if (is_cvt_to_narrow(b)) {
        EXPECT_EQ(gpu, widen(b.ptx, gpu & 0xFFFFFFFF)) << b.ptx << ": the GPU did not extend the result as PTX says";
        gpu &= 0xFFFFFFFF;
      }
      if (const auto why = spec.check(sequence_inputs(*s, b.inputs[i]), Tuple{gpu})) {
        if (++failures <= 4) {
          std::string in;
          for (const auto v : b.inputs[i]) in += " " + hex(v);
          ADD_FAILURE() << b.ptx << " (in:" << in << "): GPU result " << *why;
        }
      }
    }
    EXPECT_EQ(failures, 0) << b.ptx << ": " << failures << " of " << b.inputs.size() << " GPU results disagree with the reference";
  }
}

// .ftz division flushes a quotient that is tiny *after* rounding (rounded to 24 bits with an
// unbounded exponent it is below 2^-126), like FFMA.FTZ. For quotients of binary32 numbers this
// differs from "flush when the quotient rounded with subnormals is below 2^-126" only at the tie
// a/b = 2^-126 - 2^-150 (e.g. 0x00FFFFFF / 2), which rounds up to 2^-126 with subnormals but is
// exactly (1 - 2^-24) 2^-126 at 24 bits: the GPU returns 0 there.
TEST(GpuVectors, FtzDivisionFlushesTinyAfterRounding) {
  int band = 0;
  for (const auto& b : all_blocks()) {
    if (b.ptx != "div.rn.ftz.f32") continue;
    for (size_t i = 0; i < b.inputs.size(); ++i) {
      const auto a = static_cast<uint32_t>(b.inputs[i][0]), d = static_cast<uint32_t>(b.inputs[i][1]);
      const uint32_t with_subnormals = ref::div_rn(ref::flush(a), ref::flush(d), false);
      if ((with_subnormals & 0x7FFFFFFF) != 0x00800000 || !ref::quotient_tiny_after_rounding(ref::flush(a), ref::flush(d)))
        continue;
      ++band;
      EXPECT_EQ(b.outputs[i], with_subnormals & 0x80000000) << hex(a) << " / " << hex(d);
    }
  }
  EXPECT_GE(band, 5) << "too few recorded quotients where the two flush rules differ";
}

// The sequences on the golden model return the GPU's bits (exact operations) or satisfy the bound
// the GPU satisfies (approximations), on the GPU's inputs.
TEST(GpuVectors, SequencesMatchTheGpu) {
  for (const auto& b : all_blocks()) {
    const Sequence* s = ptx::find_sequence(b.ptx);
    if (!s) continue;
    std::vector<Tuple> cases;
    for (const auto& in : b.inputs) cases.push_back(sequence_inputs(*s, in));
    std::map<Tuple, uint64_t> gpu;
    for (size_t i = 0; i < cases.size(); ++i)
      gpu[cases[i]] = is_cvt_to_narrow(b) ? b.outputs[i] & 0xFFFFFFFF : b.outputs[i];
    Check check;
    if (is_exact(b.ptx)) {
      check = [&gpu](const Tuple& in, const Tuple& out) -> std::optional<std::string> {
        const uint64_t want = gpu.at(in);
        if (out[0] == want) return std::nullopt;
        return "got " + hex(out[0]) + ", the GPU " + hex(want);
      };
    } else {
      check = spec_for(*s).check;
    }
    const uint64_t seed = seed_of(b.ptx) ^ 0x6770;
    run_and_check(*s, check, make_layout(*s, seed), cases, seed);
  }
}

}  // namespace
}  // namespace tsm::seqtest
