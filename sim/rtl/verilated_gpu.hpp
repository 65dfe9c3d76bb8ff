// Binds a Verilator model of the GPU top (`tsm_gpu`, docs/gpu-interfaces.md) to the abstract
// GpuPins interface. Header-only because the model class is generated per configuration; only code
// built with a Verilated model includes it (the harness library itself needs no Verilator).
//
// Port types follow Verilator: up to 8/16/32/64 bits a port is an integer of that size, wider ones
// are VlWide<N> (N 32-bit words, bit 0 in word 0). The commit ports are flattened per SM
// (`[NumSms*W-1:0]`, SM s in bits [s*W +: W]); one bit-extraction helper serves every port.
#pragma once

#if !__has_include(<verilated.h>)
#error "sim/rtl/verilated_gpu.hpp needs Verilator's include directory (a target built with verilate() has it)"
#endif

#include <verilated.h>
#if VM_TRACE_FST
#include <verilated_fst_c.h>
#endif

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "rtl/gpu_pins.hpp"

namespace tsm::rtl {

namespace verilated_detail {

template <class Port>
constexpr unsigned port_bits() {
  if constexpr (std::is_integral_v<Port>) return 8 * sizeof(Port);
  else return 32 * (sizeof(Port::m_storage) / sizeof(Port::m_storage[0]));
}

constexpr uint64_t low_mask(unsigned width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }

/// Bits [lsb, lsb+width) of a port (width <= 64), for integer and VlWide ports alike.
template <class Port>
uint64_t get_bits(const Port& port, unsigned lsb, unsigned width) {
  if constexpr (std::is_integral_v<Port>) {
    if (lsb >= 64) return 0;
    return (static_cast<uint64_t>(port) >> lsb) & low_mask(width);
  } else {
    uint64_t v = 0;
    for (unsigned done = 0; done < width;) {
      const unsigned bit = lsb + done;
      if (bit >= port_bits<Port>()) break;
      const unsigned word = bit / 32, offset = bit % 32, take = std::min(32 - offset, width - done);
      v |= ((uint64_t{port.m_storage[word]} >> offset) & low_mask(take)) << done;
      done += take;
    }
    return v;
  }
}

/// Set bits [lsb, lsb+width) of a port (width <= 64) to `value`.
template <class Port>
void set_bits(Port& port, unsigned lsb, unsigned width, uint64_t value) {
  if constexpr (std::is_integral_v<Port>) {
    const uint64_t mask = low_mask(width) << lsb;
    port = static_cast<Port>((static_cast<uint64_t>(port) & ~mask) | ((value << lsb) & mask));
  } else {
    for (unsigned done = 0; done < width;) {
      const unsigned bit = lsb + done;
      if (bit >= port_bits<Port>()) break;
      const unsigned word = bit / 32, offset = bit % 32, take = std::min(32 - offset, width - done);
      const uint32_t mask = static_cast<uint32_t>(low_mask(take) << offset);
      const uint32_t chunk = static_cast<uint32_t>(((value >> done) & low_mask(take)) << offset);
      port.m_storage[word] = (port.m_storage[word] & ~mask) | chunk;
      done += take;
    }
  }
}

}  // namespace verilated_detail

template <class Model>
class VerilatedGpu : public GpuPins {
 public:
  /// `args` go to VerilatedContext::commandArgs (e.g. "+verilator+rand+reset+2", "+verilator+seed+7").
  VerilatedGpu(unsigned warp_id_bits, unsigned group_bits, unsigned sp_lanes, unsigned num_sms,
               const std::vector<std::string>& args = {})
      : geometry_{warp_id_bits, group_bits, sp_lanes, num_sms}, context_(std::make_unique<VerilatedContext>()) {
    if (sp_lanes == 0 || sp_lanes > kMaxSpLanes || 32 % sp_lanes != 0)
      throw std::invalid_argument("VerilatedGpu: SpLanes must divide 32 and be at most " + std::to_string(kMaxSpLanes));
    if (num_sms == 0) throw std::invalid_argument("VerilatedGpu: NumSms must be at least 1");
    std::vector<const char*> argv{"tsm_gpu"};
    for (const auto& a : args) argv.push_back(a.c_str());
    context_->commandArgs(static_cast<int>(argv.size()), argv.data());
    model_ = std::make_unique<Model>(context_.get(), "TOP");
    check_widths();
  }
  explicit VerilatedGpu(const GpuGeometry& g, const std::vector<std::string>& args = {})
      : VerilatedGpu(g.warp_id_bits, g.group_bits, g.sp_lanes, g.num_sms, args) {}

  ~VerilatedGpu() override {
#if VM_TRACE_FST
    trace_close();
#endif
    if (model_) model_->final();
  }
  VerilatedGpu(const VerilatedGpu&) = delete;
  VerilatedGpu& operator=(const VerilatedGpu&) = delete;

  unsigned num_sms() const override { return geometry_.num_sms; }
  unsigned sp_lanes() const override { return geometry_.sp_lanes; }

  /// For tracing and for tests that look inside.
  VerilatedContext& context() { return *context_; }
  Model& model() { return *model_; }

  void reset() override {
    set_mmio(false, false, 0, 0);
    set_mem_req_ready(false);
    set_mem_resp(false, MemResponse{});
    model_->rst_ni = 0;
    model_->clk_i = 0;
    model_->eval();
    for (int i = 0; i < 4; ++i) tick();
    model_->rst_ni = 1;
    model_->eval();
  }

  void set_mmio(bool valid, bool write, uint32_t addr, uint32_t wdata) override {
    using verilated_detail::set_bits;
    set_bits(model_->mmio_valid_i, 0, 1, valid);
    set_bits(model_->mmio_write_i, 0, 1, write);
    set_bits(model_->mmio_addr_i, 0, 12, addr);
    set_bits(model_->mmio_wdata_i, 0, 32, wdata);
  }
  void set_mem_req_ready(bool ready) override { verilated_detail::set_bits(model_->mem_req_ready_i, 0, 1, ready); }
  void set_mem_resp(bool valid, const MemResponse& r) override {
    using verilated_detail::set_bits;
    set_bits(model_->mem_resp_valid_i, 0, 1, valid);
    set_bits(model_->mem_resp_id_i, 0, 32, r.id);
    for (unsigned w = 0; w < 4; ++w) set_bits(model_->mem_resp_data_i, 32 * w, 32, r.data[w]);
    set_bits(model_->mem_resp_write_i, 0, 1, r.write);
    set_bits(model_->mem_resp_err_i, 0, 1, r.err);
  }

  void eval() override {
    model_->clk_i = 0;
    model_->eval();
  }

  bool mmio_rvalid() const override { return bit(model_->mmio_rvalid_o, 0, 1) != 0; }
  uint32_t mmio_rdata() const override { return static_cast<uint32_t>(bit(model_->mmio_rdata_o, 0, 32)); }
  bool mem_req_valid() const override { return bit(model_->mem_req_valid_o, 0, 1) != 0; }
  MemRequest mem_req() const override {
    MemRequest r;
    r.id = static_cast<uint32_t>(bit(model_->mem_req_id_o, 0, 32));
    r.kind = static_cast<uint8_t>(bit(model_->mem_req_kind_o, 0, 2));
    r.addr = static_cast<uint32_t>(bit(model_->mem_req_addr_o, 0, 32));
    r.mask = static_cast<uint16_t>(bit(model_->mem_req_mask_o, 0, 16));
    for (unsigned w = 0; w < 4; ++w) r.data[w] = static_cast<uint32_t>(bit(model_->mem_req_data_o, 32 * w, 32));
    r.atom = static_cast<uint8_t>(bit(model_->mem_req_atom_o, 0, 8));
    return r;
  }
  bool mem_resp_ready() const override { return bit(model_->mem_resp_ready_o, 0, 1) != 0; }

  std::optional<CommitEvent> commit(unsigned sm) const override {
    if (sm >= geometry_.num_sms || !slice(model_->cm_valid_o, sm, 1)) return std::nullopt;
    const unsigned lanes = geometry_.sp_lanes;
    CommitEvent e;
    e.sm = sm;
    e.kind = static_cast<uint8_t>(slice(model_->cm_kind_o, sm, 3));
    e.warp = static_cast<uint32_t>(slice(model_->cm_warp_o, sm, geometry_.warp_id_bits));
    e.seq = static_cast<uint32_t>(slice(model_->cm_seq_o, sm, 32));
    e.pc = static_cast<uint32_t>(slice(model_->cm_pc_o, sm, 32));
    e.active = static_cast<uint32_t>(slice(model_->cm_active_o, sm, 32));
    e.exec = static_cast<uint32_t>(slice(model_->cm_exec_o, sm, 32));
    e.exit = slice(model_->cm_exit_o, sm, 1) != 0;
    e.reg = static_cast<uint8_t>(slice(model_->cm_reg_o, sm, 8));
    e.group = static_cast<uint32_t>(slice(model_->cm_group_o, sm, geometry_.group_bits));
    e.lanes = static_cast<uint32_t>(slice(model_->cm_lanes_o, sm, lanes));
    for (unsigned l = 0; l < lanes; ++l) e.data[l] = static_cast<uint32_t>(bit(model_->cm_data_o, sm * lanes * 32 + 32 * l, 32));
    e.addr = static_cast<uint32_t>(slice(model_->cm_addr_o, sm, 32));
    e.mask = static_cast<uint16_t>(slice(model_->cm_mask_o, sm, 16));
    for (unsigned w = 0; w < 4; ++w) e.wdata[w] = static_cast<uint32_t>(bit(model_->cm_wdata_o, sm * 128 + 32 * w, 32));
    return e;
  }

  std::optional<CommitEvent> commit_retire(unsigned sm) const override {
    if (sm >= geometry_.num_sms || !slice(model_->cr_valid_o, sm, 1)) return std::nullopt;
    CommitEvent e;
    e.sm = sm;
    e.kind = kRetire;
    e.warp = static_cast<uint32_t>(slice(model_->cr_warp_o, sm, geometry_.warp_id_bits));
    e.seq = static_cast<uint32_t>(slice(model_->cr_seq_o, sm, 32));
    e.pc = static_cast<uint32_t>(slice(model_->cr_pc_o, sm, 32));
    e.active = static_cast<uint32_t>(slice(model_->cr_active_o, sm, 32));
    e.exec = static_cast<uint32_t>(slice(model_->cr_exec_o, sm, 32));
    e.exit = slice(model_->cr_exit_o, sm, 1) != 0;
    return e;
  }

  void tick() override {
#if VM_TRACE_FST
    if (trace_pending_) {
      trace_->dump(10 * trace_cycle_);
      model_->clk_i = 1;
      model_->eval();
      trace_->dump(10 * trace_cycle_ + 5);
      trace_pending_ = false;
    } else
#endif
    {
      model_->clk_i = 1;
      model_->eval();
    }
    context_->timeInc(1);
    model_->clk_i = 0;
    model_->eval();
    context_->timeInc(1);
  }

  std::optional<IssueEvent> issue(unsigned sm) const override {
    if constexpr (requires(Model& m) { m.dbg_issue_o; }) {
      if (sm >= geometry_.num_sms || !slice(model_->dbg_issue_o, sm, 1)) return std::nullopt;
      return IssueEvent{static_cast<uint32_t>(slice(model_->dbg_warp_o, sm, geometry_.warp_id_bits)),
                        static_cast<uint32_t>(slice(model_->dbg_seq_o, sm, 32))};
    } else {
      return std::nullopt;
    }
  }
  unsigned stalls(unsigned sm) const override {
    if constexpr (requires(Model& m) { m.dbg_stall_o; }) {
      return sm < geometry_.num_sms ? static_cast<unsigned>(slice(model_->dbg_stall_o, sm, 3)) : 0u;
    } else {
      return 0;
    }
  }

#if VM_TRACE_FST
  bool can_trace() const override { return true; }
  void trace_open(const std::string& path, unsigned depth) override {
    trace_close();
    context_->traceEverOn(true);
    auto trace = std::make_unique<VerilatedFstC>();
    // One clock is one nanosecond, written at 10 steps of 100 ps (docs/waveforms.md §1): GTKWave's
    // time axis then reads in clocks, as the timeline (timeline.cpp) does.
    trace->set_time_unit("1ns");
    trace->set_time_resolution("100ps");
    // Verilator inlines the whole design into one level, so the depth goes to the FST writer's
    // $dumpvars-style filter: the signals at most `depth` levels below TOP.
    if (depth != 0) trace->dumpvars(static_cast<int>(depth), "TOP");
    model_->trace(trace.get(), 99);
    trace->open(path.c_str());
    if (!trace->isOpen()) throw std::runtime_error("cannot open the trace file " + path);
    trace_ = std::move(trace);
  }
  void trace_clock(uint64_t cycle) override {
    if (!trace_) return;
    trace_pending_ = true;
    trace_cycle_ = cycle;
  }
  void trace_flush() override {
    if (trace_) trace_->flush();
  }
  void trace_close() override {
    if (trace_) trace_->close();
    trace_.reset();
    trace_pending_ = false;
  }
#endif

 private:
  template <class Port>
  static uint64_t bit(const Port& port, unsigned lsb, unsigned width) {
    return verilated_detail::get_bits(port, lsb, width);
  }
  /// SM `sm`'s field of a flattened per-SM port whose slices are `width` bits.
  template <class Port>
  static uint64_t slice(const Port& port, unsigned sm, unsigned width) {
    return verilated_detail::get_bits(port, sm * width, width);
  }

  /// A port narrower than the geometry says means the geometry does not describe this model.
  void check_widths() const {
    using verilated_detail::port_bits;
    const unsigned n = geometry_.num_sms;
    const auto need = [](const char* port, unsigned have, unsigned want) {
      if (have < want)
        throw std::invalid_argument(std::string("VerilatedGpu: port ") + port + " has " + std::to_string(have) +
                                    " bits, the geometry needs " + std::to_string(want) +
                                    " (check NumSms, SpLanes, WarpIdWidth and the group width)");
    };
    using M = Model;
    need("cm_valid_o", port_bits<std::remove_reference_t<decltype(std::declval<M&>().cm_valid_o)>>(), n);
    need("cm_warp_o", port_bits<std::remove_reference_t<decltype(std::declval<M&>().cm_warp_o)>>(), n * geometry_.warp_id_bits);
    need("cm_group_o", port_bits<std::remove_reference_t<decltype(std::declval<M&>().cm_group_o)>>(), n * geometry_.group_bits);
    need("cm_lanes_o", port_bits<std::remove_reference_t<decltype(std::declval<M&>().cm_lanes_o)>>(), n * geometry_.sp_lanes);
    need("cm_data_o", port_bits<std::remove_reference_t<decltype(std::declval<M&>().cm_data_o)>>(), n * geometry_.sp_lanes * 32);
    need("cm_wdata_o", port_bits<std::remove_reference_t<decltype(std::declval<M&>().cm_wdata_o)>>(), n * 128);
  }

  GpuGeometry geometry_;
  std::unique_ptr<VerilatedContext> context_;  // first: the model refers to it
  std::unique_ptr<Model> model_;
#if VM_TRACE_FST
  std::unique_ptr<VerilatedFstC> trace_;
  bool trace_pending_ = false;  // the next tick() writes the clock
  uint64_t trace_cycle_ = 0;
#endif
};

}  // namespace tsm::rtl
