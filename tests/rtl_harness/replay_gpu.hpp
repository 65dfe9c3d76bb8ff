// A scripted GPU top for the driver's tests: MMIO registers as docs/gpu-interfaces.md §1 has them,
// and on CTRL = 1 it plays a converted golden run (replay.hpp) on the commit port, one event a
// clock, sending the run's memory writes through the memory port; then done, or a scripted fault.
// It also reads the entry instruction's line and constant bank 0's first line through the port,
// so the tests can check the driver's memory layout.
#pragma once

#include <bit>
#include <deque>
#include <map>
#include <set>

#include "replay.hpp"
#include "rtl/gpu_driver.hpp"
#include "rtl/gpu_pins.hpp"

namespace tsm::rtltest {

class ReplayGpu : public rtl::GpuPins {
 public:
  struct Script {
    std::vector<Item> items;
    unsigned num_sms = 2;
    unsigned sp_lanes = 4;
    uint64_t config_tag = 0;
    std::optional<rtl::RtlFault> fault;  // raised once the items are played
    bool hang = false;                   // busy forever, doing nothing
    uint32_t id = rtl::mmio::kIdValue;
  };
  static constexpr uint32_t kCodeReadId = 1000, kCbankReadId = 1001;

  explicit ReplayGpu(Script script) : script_(std::move(script)) {}

  unsigned num_sms() const override { return script_.num_sms; }
  unsigned sp_lanes() const override { return script_.sp_lanes; }

  void reset() override {
    ++resets;
    registers.clear();
    read_back.clear();
    running_ = false;
    status_ = 0;
    next_ = 0;
    current_.reset();
    requests_.clear();
    outstanding_.clear();
    rvalid_ = false;
  }

  void set_mmio(bool valid, bool write, uint32_t addr, uint32_t wdata) override { mmio_ = {valid, write, addr, wdata}; }
  void set_mem_req_ready(bool ready) override { req_ready_ = ready; }
  void set_mem_resp(bool valid, const rtl::MemResponse& r) override {
    resp_valid_ = valid;
    resp_ = r;
  }
  void eval() override {}  // every output is a register here

  bool mmio_rvalid() const override { return rvalid_; }
  uint32_t mmio_rdata() const override { return rdata_; }
  bool mem_req_valid() const override { return !requests_.empty(); }
  rtl::MemRequest mem_req() const override { return requests_.front(); }
  bool mem_resp_ready() const override { return true; }
  std::optional<rtl::CommitEvent> commit(unsigned sm) const override {
    if (current_ && current_->sm == sm) return current_;
    return std::nullopt;
  }
  std::optional<rtl::CommitEvent> commit_retire(unsigned) const override { return std::nullopt; }

  void tick() override {
    // Handshakes first: they are decided by the outputs as they were before this edge.
    if (req_ready_ && !requests_.empty()) {
      outstanding_.insert(requests_.front().id);
      requests_.pop_front();
    }
    if (resp_valid_) {
      outstanding_.erase(resp_.id);
      if (resp_.err) ++errors;
      if (!resp_.write) read_back[resp_.id] = resp_.data;
    }
    rvalid_ = false;
    if (mmio_.valid && mmio_.write) {
      registers[mmio_.addr] = mmio_.wdata;
      if (mmio_.addr == rtl::mmio::kCtrl && (mmio_.wdata & 1)) start();
    } else if (mmio_.valid) {
      rvalid_ = true;
      rdata_ = read_register(mmio_.addr);
    }
    if (running_) {
      ++cycles_;
      current_.reset();
      advance();
    }
  }

  Script& script() { return script_; }
  std::map<uint32_t, uint32_t> registers;  // every MMIO write, last value
  std::map<uint32_t, std::array<uint32_t, 4>> read_back;
  unsigned resets = 0;
  unsigned errors = 0;

 private:
  struct Mmio {
    bool valid = false, write = false;
    uint32_t addr = 0, wdata = 0;
  };

  uint32_t read_register(uint32_t addr) const {
    namespace m = rtl::mmio;
    const auto fault = [&](auto get) { return script_.fault && (status_ & m::kStatusFault) ? get(*script_.fault) : 0u; };
    switch (addr) {
      case m::kId: return script_.id;
      case m::kNumSms: return script_.num_sms;
      case m::kConfigLo: return static_cast<uint32_t>(script_.config_tag);
      case m::kConfigHi: return static_cast<uint32_t>(script_.config_tag >> 32);
      case m::kStatus: return status_;
      case m::kFaultKind: return fault([](const rtl::RtlFault& f) { return static_cast<uint32_t>(f.kind) + 1; });
      case m::kFaultSm: return fault([](const rtl::RtlFault& f) { return f.sm; });
      case m::kFaultWarp: return fault([](const rtl::RtlFault& f) { return f.warp; });
      case m::kFaultPc: return fault([](const rtl::RtlFault& f) { return f.pc; });
      case m::kFaultAddr: return fault([](const rtl::RtlFault& f) { return f.addr; });
      case m::kFaultLane: return fault([](const rtl::RtlFault& f) { return f.lane.value_or(0xFFFFFFFFu); });
      case m::kCounter0: return static_cast<uint32_t>(cycles_);
      case m::kCounter0 + 4: return static_cast<uint32_t>(cycles_ >> 32);
      case m::kCounter0 + 8: return static_cast<uint32_t>(retired_);
      case m::kCounter0 + 12: return static_cast<uint32_t>(retired_ >> 32);
      case m::kCounter0 + 16: return static_cast<uint32_t>(threads_);
      case m::kCounter0 + 20: return static_cast<uint32_t>(threads_ >> 32);
      default: {
        const auto it = registers.find(addr);
        return it == registers.end() ? 0 : it->second;
      }
    }
  }

  void start() {
    running_ = true;
    status_ = rtl::mmio::kStatusBusy;
    cycles_ = retired_ = threads_ = 0;
    rtl::MemRequest r;
    r.kind = rtl::kMemRead;
    r.id = kCodeReadId;
    r.addr = (registers[rtl::mmio::kCodeBase] + 8 * registers[rtl::mmio::kEntryPc]) & ~15u;
    requests_.push_back(r);
    r.id = kCbankReadId;
    r.addr = registers[rtl::mmio::kCbankBase0];
    requests_.push_back(r);
  }

  void advance() {
    if (script_.hang) return;
    while (next_ < script_.items.size()) {
      const Item& it = script_.items[next_++];
      if (it.write) {
        rtl::MemRequest w = *it.write;
        w.id = next_id_++;
        requests_.push_back(w);
        continue;
      }
      current_ = *it.event;
      if (current_->kind == rtl::kRetire) {
        ++retired_;
        threads_ += static_cast<uint64_t>(std::popcount(current_->exec));
      }
      return;
    }
    if (requests_.empty() && outstanding_.empty()) {  // every write acknowledged
      running_ = false;
      status_ = script_.fault ? rtl::mmio::kStatusFault : rtl::mmio::kStatusDone;
    }
  }

  Script script_;
  Mmio mmio_;
  bool req_ready_ = false, resp_valid_ = false;
  rtl::MemResponse resp_;
  bool rvalid_ = false;
  uint32_t rdata_ = 0;
  bool running_ = false;
  uint32_t status_ = 0;
  size_t next_ = 0;
  std::optional<rtl::CommitEvent> current_;
  std::deque<rtl::MemRequest> requests_;
  std::set<uint32_t> outstanding_;
  uint32_t next_id_ = 0;
  uint64_t cycles_ = 0, retired_ = 0, threads_ = 0;
};

}  // namespace tsm::rtltest
