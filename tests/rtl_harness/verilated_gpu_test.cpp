// VerilatedGpu against Verilated models of a stand-in GPU top (tsm_gpu_stub.sv) in three
// geometries, so that every port kind occurs: 8/16/32/64-bit integers and VlWide, commit slices
// that straddle words. Each field the stub drives is a known function of the word W written to
// 0x0F0 and the SM s; the memory request is a function of the word written to 0x0F4.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "Vgpu_stub_one.h"
#include "Vgpu_stub_three.h"
#include "Vgpu_stub_two.h"
#include "rtl/verilated_gpu.hpp"
#include "tsm/config_gen.hpp"

namespace {

using namespace tsm;

template <class Model>
class Driver {
 public:
  explicit Driver(const rtl::GpuGeometry& g) : gpu(g) { gpu.reset(); }

  void write(uint32_t addr, uint32_t value) {
    gpu.set_mmio(true, true, addr, value);
    gpu.eval();
    gpu.tick();
    idle();
  }
  uint32_t read(uint32_t addr) {
    gpu.set_mmio(true, false, addr, 0);
    gpu.eval();
    EXPECT_FALSE(gpu.mmio_rvalid());
    gpu.tick();
    idle();
    EXPECT_TRUE(gpu.mmio_rvalid()) << fmt::format("read of {:#x}", addr);
    const uint32_t v = gpu.mmio_rdata();
    gpu.tick();
    idle();
    return v;
  }
  void idle() {
    gpu.set_mmio(false, false, 0, 0);
    gpu.eval();
  }

  rtl::VerilatedGpu<Model> gpu;
};

uint32_t low(uint64_t v, unsigned bits) { return static_cast<uint32_t>(bits >= 32 ? v : v & ((1ull << bits) - 1)); }

template <class Model>
void check(unsigned num_sms, unsigned sp_lanes, unsigned max_warps) {
  const rtl::GpuGeometry geo = rtl::GpuGeometry::of(num_sms, sp_lanes, max_warps);
  Driver<Model> d(geo);
  auto& gpu = d.gpu;
  EXPECT_EQ(gpu.num_sms(), num_sms);
  EXPECT_EQ(gpu.sp_lanes(), sp_lanes);
  EXPECT_EQ(d.read(0x000), 0x314D5354u);
  EXPECT_EQ(d.read(0x004), num_sms);
  EXPECT_EQ(d.read(0x008) | uint64_t{d.read(0x00C)} << 32, config::kSmall.config_tag);
  d.write(0x020, 0xDEADBEEF);
  EXPECT_EQ(d.read(0x020), 0xDEADBEEFu);
  for (unsigned s = 0; s < num_sms; ++s) EXPECT_FALSE(gpu.commit(s)) << s;

  for (const uint32_t w : {0x12345678u, 0xFFFFFFFFu, 0x80000001u, 0x0000A5C3u}) {
    gpu.set_mmio(true, true, 0x0F0, w);
    gpu.eval();
    gpu.tick();
    d.idle();
    for (unsigned s = 0; s < num_sms; ++s) {
      const auto e = gpu.commit(s);
      ASSERT_TRUE(e) << s;
      const std::string at = fmt::format("W {:#x} SM {}", w, s);
      EXPECT_EQ(e->sm, s) << at;
      EXPECT_EQ(e->kind, w & 7) << at;
      EXPECT_EQ(e->warp, low(w + s, geo.warp_id_bits)) << at;
      EXPECT_EQ(e->seq, w + s) << at;
      EXPECT_EQ(e->pc, (w ^ 0xA5A50000u) + s) << at;
      EXPECT_EQ(e->active, ~w) << at;
      EXPECT_EQ(e->exec, w << s) << at;
      EXPECT_EQ(e->exit, s % 2 == 1) << at;
      EXPECT_EQ(e->reg, static_cast<uint8_t>(w + s)) << at;
      EXPECT_EQ(e->group, low(s + 1, geo.group_bits)) << at;
      EXPECT_EQ(e->lanes, low(w >> s, sp_lanes)) << at;
      for (unsigned l = 0; l < sp_lanes; ++l) EXPECT_EQ(e->data[l], (w & 0xFFFF) << 16 | s << 8 | l) << at << " lane " << l;
      for (unsigned l = sp_lanes; l < rtl::kMaxSpLanes; ++l) EXPECT_EQ(e->data[l], 0u) << at << " lane " << l;
      EXPECT_EQ(e->addr, (w << 4) + 16 * s) << at;
      EXPECT_EQ(e->mask, static_cast<uint16_t>(w ^ s)) << at;
      for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(e->wdata[k], w + 4 * s + k) << at << " word " << k;
      const auto r = gpu.commit_retire(s);
      ASSERT_EQ(r.has_value(), s % 2 == 1) << at;
      if (r) {
        EXPECT_EQ(r->sm, s) << at;
        EXPECT_EQ(r->kind, rtl::kRetire) << at;
        EXPECT_EQ(r->warp, low(w + s + 3, geo.warp_id_bits)) << at;
        EXPECT_EQ(r->seq, w + s + 5) << at;
        EXPECT_EQ(r->pc, w ^ s) << at;
        EXPECT_EQ(r->active, w >> s) << at;
        EXPECT_EQ(r->exec, ~(w << s)) << at;
        EXPECT_EQ(r->exit, (w >> s & 1) != 0) << at;
      }
    }
    gpu.tick();  // one clock only
    d.idle();
    for (unsigned s = 0; s < num_sms; ++s) EXPECT_FALSE(gpu.commit(s) || gpu.commit_retire(s)) << s;
  }

  // A memory request, held until accepted.
  const uint32_t w = 0xCAFE3A52;
  d.write(0x0F4, w);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(gpu.mem_req_valid());
    const rtl::MemRequest r = gpu.mem_req();
    EXPECT_EQ(r.id, low(w >> 4 & 0xFF, 6 + rtl::index_bits(num_sms)));
    EXPECT_EQ(r.kind, w & 3);
    EXPECT_EQ(r.addr, w & ~15u);
    EXPECT_EQ(r.mask, static_cast<uint16_t>((w >> 16) ^ 0xF0F0));
    EXPECT_EQ(r.data, (std::array<uint32_t, 4>{w, ~w, w + 2, w + 3}));
    EXPECT_EQ(r.atom, static_cast<uint8_t>(w >> 4));
    gpu.tick();  // not ready yet
    d.idle();
  }
  gpu.set_mem_req_ready(true);
  gpu.eval();
  gpu.tick();
  gpu.set_mem_req_ready(false);
  d.idle();
  EXPECT_FALSE(gpu.mem_req_valid());

  // A response: every input bit lands where the port says.
  rtl::MemResponse resp;
  resp.id = 0x2A;
  resp.data = {0x01234567, 0x89ABCDEF, 0xFFFFFFFF, 0x80000001};
  resp.write = true;
  resp.err = true;
  gpu.set_mem_resp(true, resp);
  gpu.eval();
  EXPECT_TRUE(gpu.mem_resp_ready());
  gpu.tick();
  gpu.set_mem_resp(false, rtl::MemResponse{});
  d.idle();
  for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(d.read(0x0E0 + 4 * k), resp.data[k]) << k;
  const unsigned id_bits = 6 + rtl::index_bits(num_sms);
  EXPECT_EQ(d.read(0x0DC), (1u << (id_bits + 1)) | (1u << id_bits) | 0x2A);
}

TEST(VerilatedGpu, TwoSmsOfFourLanes) { check<Vgpu_stub_two>(2, 4, 8); }        // 8-bit and 64-bit slices, VlWide data
TEST(VerilatedGpu, ThreeSmsOfEightLanes) { check<Vgpu_stub_three>(3, 8, 24); }  // 96-bit fields: every slice a VlWide
TEST(VerilatedGpu, OneSmOfOneLane) { check<Vgpu_stub_one>(1, 1, 2); }          // 32 groups, 32-bit data

TEST(VerilatedGpu, AGeometryWiderThanTheModelIsRefused) {
  EXPECT_THROW(rtl::VerilatedGpu<Vgpu_stub_one>(rtl::GpuGeometry::of(1, 8, 2)), std::invalid_argument);  // cm_data_o is 32 bits
  EXPECT_THROW(rtl::VerilatedGpu<Vgpu_stub_two>(rtl::GpuGeometry::of(4, 4, 8)), std::invalid_argument);  // 2 SMs, not 4
}

}  // namespace
