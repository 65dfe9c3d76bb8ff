// Device memory model of the memory port: perform at acceptance, answer after the latency.
#include "rtl/memory_model.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "arith/fp.hpp"
#include "tsm/isa_gen.hpp"

namespace tsm::rtl {

namespace g = isa::gen;

namespace {

constexpr unsigned kLineBytes = 16;
constexpr unsigned kAtomicChannelBytes = 8;

g::Atype atype_of(uint8_t atom) { return static_cast<g::Atype>(atom >> 4 & 7); }
g::Aop aop_of(uint8_t atom) { return static_cast<g::Aop>(atom & 15); }
bool is_wide(g::Atype t) { return t == g::Atype::U64 || t == g::Atype::S64; }

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

}  // namespace

unsigned atomic_bytes(uint8_t atom) { return is_wide(atype_of(atom)) ? 8 : 4; }

uint64_t atomic_new_value(uint8_t atom, uint64_t old, uint64_t b, uint64_t swap, bool global) {
  const g::Atype type = atype_of(atom);
  const bool wide = is_wide(type);
  if (!wide) {
    old &= 0xFFFFFFFFu;
    b &= 0xFFFFFFFFu;
    swap &= 0xFFFFFFFFu;
  }
  uint64_t nv = old;
  if (atom & kAtomCasBit) {
    if (old == b) nv = swap;
  } else {
    const bool sgn = type == g::Atype::S32 || type == g::Atype::S64;
    const auto as_signed = [&](uint64_t v) { return wide ? static_cast<int64_t>(v) : int64_t{static_cast<int32_t>(v)}; };
    switch (aop_of(atom)) {
      case g::Aop::ADD:
        // PTX: atom.add.f32 on global memory flushes subnormal inputs and results.
        nv = type == g::Atype::F32 ? fp::add_f32(static_cast<uint32_t>(old), static_cast<uint32_t>(b), g::Rnd::RN, global, false)
                                   : old + b;
        break;
      case g::Aop::MIN:
      case g::Aop::MAX: {
        const bool want_min = aop_of(atom) == g::Aop::MIN;
        if (type == g::Atype::F32) {
          nv = want_min ? fp::min_f32(static_cast<uint32_t>(old), static_cast<uint32_t>(b), false, false)
                        : fp::max_f32(static_cast<uint32_t>(old), static_cast<uint32_t>(b), false, false);
        } else {
          const bool b_less = sgn ? as_signed(b) < as_signed(old) : b < old;
          nv = (b_less == want_min) ? b : old;
        }
        break;
      }
      case g::Aop::INC: nv = old >= b ? 0 : old + 1; break;
      case g::Aop::DEC: nv = (old == 0 || old > b) ? b : old - 1; break;
      case g::Aop::EXCH: nv = b; break;
      case g::Aop::AND: nv = old & b; break;
      case g::Aop::OR: nv = old | b; break;
      case g::Aop::XOR: nv = old ^ b; break;
    }
  }
  return wide ? nv : nv & 0xFFFFFFFFu;
}

MemoryModel::MemoryModel(uint32_t latency, uint32_t bytes_per_clock) : latency_(latency), bytes_per_clock_(bytes_per_clock) {
  if (latency == 0) throw std::invalid_argument("memory model: the latency must be at least 1 clock");
  if (bytes_per_clock == 0) throw std::invalid_argument("memory model: the bandwidth must be at least 1 byte per clock");
}

void MemoryModel::map(uint32_t addr, uint32_t bytes) {
  memory_.map(addr, bytes);
  allocations_[addr] = bytes;
}

void MemoryModel::unmap(uint32_t addr) {
  memory_.unmap(addr);
  allocations_.erase(addr);
}

bool MemoryModel::bytes_accessible(uint32_t line, uint16_t mask) const {
  for (unsigned i = 0; i < kLineBytes; ++i)
    if ((mask >> i & 1) && !accessible(line + i, 1)) return false;
  return true;
}

bool MemoryModel::line_touches_allocation(uint32_t line) const {
  for (unsigned i = 0; i < kLineBytes; ++i)
    if (accessible(line + i, 1)) return true;
  return false;
}

void MemoryModel::accept(const MemRequest& req, uint64_t cycle) {
  if (!ready(cycle))
    throw std::logic_error(fmt::format("memory model: request accepted at clock {} while the channel is busy until {}", cycle, busy_until_));
  const uint32_t channel_bytes = req.kind == kMemAtomic ? kAtomicChannelBytes : kLineBytes;
  MemResponse resp = perform(req);
  busy_until_ = cycle + ceil_div(channel_bytes, bytes_per_clock_);
  ++counters_.requests;
  counters_.bytes += channel_bytes;
  counters_.errors += resp.err;
  pending_.push(Pending{cycle + latency_, accepted_++, resp});
}

MemResponse MemoryModel::perform(const MemRequest& req) {
  MemResponse resp;
  resp.id = req.id;
  switch (req.kind) {
    case kMemRead: {
      ++counters_.reads;
      if (req.addr % kLineBytes)
        throw PortError(fmt::format("memory port: read of line address {:#010x}, which is not 16-byte aligned", req.addr));
      // A mask names the bytes the lanes need, and all of them must be allocated. A read without
      // one (docs/gpu-interfaces.md defines the mask for writes only) errs only when no byte of
      // the line is allocated: a line may hang over the end of a small allocation.
      const bool ok = req.mask ? bytes_accessible(req.addr, req.mask) : line_touches_allocation(req.addr);
      if (!ok) {
        resp.err = true;
        break;
      }
      std::array<uint8_t, kLineBytes> line{};
      memory_.read(req.addr, line);
      std::memcpy(resp.data.data(), line.data(), kLineBytes);
      break;
    }
    case kMemWrite: {
      ++counters_.writes;
      resp.write = true;
      if (req.addr % kLineBytes)
        throw PortError(fmt::format("memory port: write of line address {:#010x}, which is not 16-byte aligned", req.addr));
      if (!bytes_accessible(req.addr, req.mask)) {
        resp.err = true;
        break;
      }
      std::array<uint8_t, kLineBytes> line{};
      std::memcpy(line.data(), req.data.data(), kLineBytes);
      for (unsigned i = 0; i < kLineBytes; ++i)
        if (req.mask >> i & 1) memory_.write(req.addr + i, std::span<const uint8_t>(&line[i], 1));
      break;
    }
    case kMemAtomic: {
      ++counters_.atomics;
      if ((req.atom >> 4 & 7) > static_cast<unsigned>(g::Atype::S64) || (req.atom & 15) > static_cast<unsigned>(g::Aop::XOR))
        throw PortError(fmt::format("memory port: atomic request with undefined type/operation bits {:#04x} at {:#010x}", req.atom,
                                    req.addr));
      const unsigned bytes = atomic_bytes(req.atom);
      if (!accessible(req.addr, bytes)) {
        resp.err = true;
        break;
      }
      const uint64_t old = memory_.load(req.addr, bytes);
      const uint64_t b = req.data[0] | uint64_t{req.data[1]} << 32;
      const uint64_t swap = req.data[2] | uint64_t{req.data[3]} << 32;
      memory_.store(req.addr, bytes, atomic_new_value(req.atom, old, b, swap, true));
      resp.data[0] = static_cast<uint32_t>(old);
      resp.data[1] = static_cast<uint32_t>(old >> 32);
      break;
    }
    default:
      throw PortError(fmt::format("memory port: request kind {} is undefined (0 read, 1 write, 2 atomic), address {:#010x}", req.kind,
                                  req.addr));
  }
  return resp;
}

std::optional<MemResponse> MemoryModel::response(uint64_t cycle) const {
  if (pending_.empty() || pending_.top().due > cycle) return std::nullopt;
  return pending_.top().response;
}

void MemoryModel::pop() {
  if (pending_.empty()) throw std::logic_error("memory model: pop() without a pending response");
  pending_.pop();
}

}  // namespace tsm::rtl
