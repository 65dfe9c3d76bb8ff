// Binary container: the loader rejects every kind of damage with a clear error and never crashes.
#include <gtest/gtest.h>

#include <zlib.h>

#include "isa/assembler.hpp"
#include "isa/isa.hpp"

namespace {

const char* kSource = R"(
.const table u32[2] = 1, 2
.global g u32[1]
.kernel k
.param out u64
    S2R R0, SR_TID_X
loop:
    IADD R0, R0, -1
    ISETP.NE.U32 P0, PT, R0, RZ
@P0 BRA loop
    EXIT
)";

std::vector<uint8_t> valid() { return tsm::assemble(kSource, "t.tsa").serialize(); }

void refix_crc(std::vector<uint8_t>& b) {
  const uint32_t crc = static_cast<uint32_t>(crc32(crc32(0, Z_NULL, 0), b.data() + 32, static_cast<uInt>(b.size() - 32)));
  for (int i = 0; i < 4; ++i) b[16 + i] = static_cast<uint8_t>(crc >> (8 * i));
}

std::string load_error(const std::vector<uint8_t>& b) {
  try {
    tsm::Module::deserialize(b, "k.tsb");
  } catch (const tsm::FormatError& e) {
    return e.what();
  }
  return "";
}

TEST(Container, LoadsWhatItWrote) {
  const tsm::Module m = tsm::Module::deserialize(valid(), "k.tsb");
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].params[0].name, "out");
  EXPECT_EQ(m.text.size(), 5u);
  EXPECT_EQ(m.cbanks.at(2).size(), 8u);
}

TEST(Container, EverySingleByteCorruptionIsRejected) {
  const auto good = valid();
  for (size_t i = 0; i < good.size(); ++i) {
    auto b = good;
    b[i] ^= 0x5A;
    EXPECT_NE(load_error(b), "") << "byte " << i << " corrupted but accepted";
  }
  for (size_t n = 0; n < good.size(); n += 7) {
    const std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<long>(n));
    EXPECT_NE(load_error(cut), "") << "truncated to " << n;
  }
}

TEST(Container, ErrorsSayWhatIsWrong) {
  auto b = valid();
  b[0] = 'X';
  EXPECT_NE(load_error(b).find("bad magic"), std::string::npos);
  b = valid();
  b[6] = 99;
  EXPECT_NE(load_error(b).find("ISA version 99"), std::string::npos);
  b = valid();
  b.push_back(0);
  EXPECT_NE(load_error(b).find("truncated or padded"), std::string::npos);
  b = valid();
  b.back() ^= 1;
  EXPECT_NE(load_error(b).find("checksum mismatch"), std::string::npos);
}

TEST(Container, ValidChecksumDoesNotHideBadContent) {
  // Damage behind a recomputed checksum, as a buggy tool would write it.
  tsm::Module m = tsm::assemble(kSource, "t.tsa");
  m.text[1] = 0x01;  // undefined opcode
  EXPECT_NE(load_error(m.serialize()).find("instruction at PC 1"), std::string::npos) << load_error(m.serialize());

  m = tsm::assemble(kSource, "t.tsa");
  m.text[3] = tsm::isa::set(m.text[3], tsm::isa::Field::target, 100);
  EXPECT_NE(load_error(m.serialize()).find("outside the code"), std::string::npos);

  m = tsm::assemble(kSource, "t.tsa");
  m.kernels[0].entry = 50;
  EXPECT_NE(load_error(m.serialize()).find("entry PC 50"), std::string::npos);

  m = tsm::assemble(kSource, "t.tsa");
  m.kernels[0].params[0].offset = 0x22;
  EXPECT_NE(load_error(m.serialize()).find("misaligned"), std::string::npos);

  m = tsm::assemble(kSource, "t.tsa");
  m.consts[0].offset = 4;  // runs past the 8-byte bank image
  EXPECT_NE(load_error(m.serialize()).find("outside bank 2"), std::string::npos);

  auto b = valid();
  const std::string meta_key = "\"kernels\"";
  auto it = std::search(b.begin(), b.end(), meta_key.begin(), meta_key.end());
  ASSERT_NE(it, b.end());
  *(it + 1) = 'K';
  refix_crc(b);
  EXPECT_NE(load_error(b).find("META .kernels: is missing"), std::string::npos) << load_error(b);
}

}  // namespace

namespace {

// Relocations: addresses of globals inside the global image, filled in by the loader.
tsm::Module with_table() {
  tsm::Module m = tsm::assemble(".global data u32[4]\n.global table u64[2]\n.kernel k\n    EXIT\n", "r.tsa");
  m.relocs.push_back({"table", 8, "data", 12, 8, 0});
  m.relocs.push_back({"table", 1, "data", 0, 1, 8});
  return m;
}

TEST(Container, RelocationsRoundTrip) {
  const tsm::Module m = tsm::Module::deserialize(with_table().serialize(), "r.tsb");
  ASSERT_EQ(m.relocs.size(), 2u);
  EXPECT_EQ(m.relocs[0].global, "table");
  EXPECT_EQ(m.relocs[0].at, 8u);
  EXPECT_EQ(m.relocs[0].target, "data");
  EXPECT_EQ(m.relocs[0].addend, 12);
  EXPECT_EQ(m.relocs[1].bytes, 1u);
  EXPECT_EQ(m.relocs[1].shift, 8u);
}

TEST(Container, BadRelocationsAreRejected) {
  auto error = [](tsm::Relocation r) {
    tsm::Module m = with_table();
    m.relocs = {r};
    try {
      m.validate("r.tsb");
    } catch (const tsm::FormatError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error({"nope", 0, "data", 0, 8, 0}).find("relocation in 'nope': no such global"), std::string::npos);
  EXPECT_NE(error({"table", 0, "nope", 0, 8, 0}).find("target 'nope' is not a global"), std::string::npos);
  EXPECT_NE(error({"table", 12, "data", 0, 8, 0}).find("lies outside the variable (16 bytes)"), std::string::npos);
  EXPECT_NE(error({"table", 0, "data", 0, 3, 0}).find("3 bytes shifted by 0 is not a valid form"), std::string::npos);
  EXPECT_NE(error({"table", 0, "data", 0, 1, 4}).find("is not a valid form"), std::string::npos);
}

}  // namespace
