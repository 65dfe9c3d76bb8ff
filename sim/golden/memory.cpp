// Sparse paged device memory with allocation-granular bounds.
#include "memory.hpp"

#include <algorithm>

namespace tsm::golden {

void DeviceMemory::map(uint32_t addr, uint32_t size) {
  allocations_[addr] = size;
  // Fresh allocations read as zero, as cudaMalloc'd memory does in practice for a new process.
  for (uint64_t a = addr; a < uint64_t{addr} + size;) {
    const uint32_t page_no = static_cast<uint32_t>(a >> kPageBits);
    if (auto it = pages_.find(page_no); it != pages_.end()) {
      const uint64_t page_end = (uint64_t{page_no} + 1) << kPageBits;
      const uint64_t end = std::min<uint64_t>(page_end, uint64_t{addr} + size);
      std::fill(it->second->begin() + static_cast<long>(a & ((1u << kPageBits) - 1)),
                it->second->begin() + static_cast<long>(end - (uint64_t{page_no} << kPageBits)), 0);
    }
    a = (a >> kPageBits << kPageBits) + (1u << kPageBits);
  }
}

void DeviceMemory::unmap(uint32_t addr) { allocations_.erase(addr); }

std::optional<std::pair<uint32_t, uint32_t>> DeviceMemory::allocation_of(uint32_t addr, uint32_t size) const {
  auto it = allocations_.upper_bound(addr);
  if (it == allocations_.begin()) return std::nullopt;
  --it;
  if (uint64_t{addr} + size <= uint64_t{it->first} + it->second) return std::make_pair(it->first, it->second);
  return std::nullopt;
}

DeviceMemory::Page* DeviceMemory::page(uint32_t addr, bool create) const {
  const uint32_t no = addr >> kPageBits;
  auto it = pages_.find(no);
  if (it != pages_.end()) return it->second.get();
  if (!create) return nullptr;
  auto p = std::make_unique<Page>();
  p->fill(0);
  return pages_.emplace(no, std::move(p)).first->second.get();
}

void DeviceMemory::read(uint32_t addr, std::span<uint8_t> out) const {
  for (size_t i = 0; i < out.size(); ++i) {
    const uint32_t a = addr + static_cast<uint32_t>(i);
    const Page* p = page(a, false);
    out[i] = p ? (*p)[a & ((1u << kPageBits) - 1)] : 0;
  }
}

void DeviceMemory::write(uint32_t addr, std::span<const uint8_t> in) {
  for (size_t i = 0; i < in.size(); ++i) {
    const uint32_t a = addr + static_cast<uint32_t>(i);
    (*page(a, true))[a & ((1u << kPageBits) - 1)] = in[i];
  }
}

uint64_t DeviceMemory::load(uint32_t addr, unsigned bytes) const {
  std::array<uint8_t, 8> b{};
  read(addr, std::span(b.data(), bytes));
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; ++i) v |= uint64_t{b[i]} << (8 * i);
  return v;
}

void DeviceMemory::store(uint32_t addr, unsigned bytes, uint64_t value) {
  std::array<uint8_t, 8> b{};
  for (unsigned i = 0; i < bytes; ++i) b[i] = static_cast<uint8_t>(value >> (8 * i));
  write(addr, std::span<const uint8_t>(b.data(), bytes));
}

}  // namespace tsm::golden
